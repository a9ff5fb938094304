//! Fuzz the Mahimahi reader and its mapping onto slots.
#![no_main]
use libfuzzer_sys::fuzz_target;
use cdmasim_core::channel::mahimahi;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(ms) = mahimahi::parse_ms("fuzz.down", text) {
            let _ = mahimahi::map_to_slots(&ms, 100);
        }
    }
});
