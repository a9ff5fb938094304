//! Fuzz the Markov model reader and a draw from what it accepts.
#![no_main]
use libfuzzer_sys::fuzz_target;
use cdmasim_core::channel::markov::{MarkovModel, MarkovSource};
use cdmasim_core::channel::collect;
use cdmasim_core::engine::RngStreams;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(m) = MarkovModel::from_json("fuzz.json", text) {
            let mut s = MarkovSource::new(&m, RngStreams::new(1).stream("fuzz"));
            let _ = collect(&mut s, 1000);
            let _ = m.transition_matrix();
        }
    }
});
