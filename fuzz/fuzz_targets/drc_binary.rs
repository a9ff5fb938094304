//! Fuzz the binary DRC trace reader: counts in the header are checked
//! against the bytes, so no input allocates more than it holds.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Most inputs fail the magic; give half of them a valid one.
    let _ = cdmasim_core::channel::trace_binary::decode("fuzz.drc", data);
    let mut v = cdmasim_core::channel::trace_binary::MAGIC.to_vec();
    v.extend_from_slice(data);
    let _ = cdmasim_core::channel::trace_binary::decode("fuzz.drc", &v);
});
