//! Fuzz the capture reader, the decoder and the whole analysis: any byte
//! string must give Ok or a typed error, never a panic.
//!
//!     cargo +nightly fuzz run pcap_reader -- -max_total_time=60
#![no_main]
use cdmasim_core::pcap::{analyze_bytes, AnalyzeOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let opts = AnalyzeOptions { series: true, ..Default::default() };
    if let Ok(mut a) = analyze_bytes(data, &opts) {
        let _ = a.report(&opts);
    }
    let _ = cdmasim_core::pcap::analysis::owd::one_way_delay(data, data);
});
