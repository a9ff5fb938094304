//! Fuzz the scenario parser: any text must give a spec or a one-line
//! ScenarioError, never a panic.
//!
//!     cargo +nightly fuzz run scenario_toml -- -max_total_time=600
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Err(e) = cdmasim_core::scenario::parse_str(text, "fuzz.toml") {
            assert!(!e.to_string().contains('\n'), "an error is one line");
        }
    }
});
