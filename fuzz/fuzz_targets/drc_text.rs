//! Fuzz the DRC text trace reader.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = cdmasim_core::channel::trace_text::parse("fuzz.txt", text);
    }
});
