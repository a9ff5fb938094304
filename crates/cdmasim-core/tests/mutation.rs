//! A short mutation run over every reader (the long runs are the cargo-fuzz
//! targets in fuzz/): valid inputs — the example scenarios, traces written
//! by the encoders, a fitted Markov model, Mahimahi lines — are mutated
//! byte by byte (flips, insertions, deletions, duplicated spans, extreme
//! numbers) with a seeded RNG; every reader must return Ok or its typed
//! error, never panic, and a scenario error must be one line.

use cdmasim_core::channel::markov::MarkovModel;
use cdmasim_core::channel::{mahimahi, trace_binary, trace_text, DrcTrace};
use cdmasim_core::engine::{Rng, RngStreams};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Tokens worth splicing in: the numbers and words that broke readers before.
const TOKENS: &[&str] = &[
    "18446744073709551615", "-1", "0", "NaN", "inf", "1e308", "4294967296", "\"\"", "[]", "{}", "=", "\n", "ms",
    "kbps", "[[flow]]", "[[radio_link]]", "preset = \"is2000\"", "\u{0}", "1ns",
];

fn mutate(rng: &mut Rng, base: &[u8]) -> Vec<u8> {
    let mut v = base.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = if v.is_empty() { 0 } else { rng.below(v.len() as u64) as usize };
        match rng.below(5) {
            0 if !v.is_empty() => v[at] ^= 1 << rng.below(8),
            1 => v.insert(at, rng.below(256) as u8),
            2 if !v.is_empty() => {
                let end = (at + 1 + rng.below(16) as usize).min(v.len());
                v.drain(at..end);
            }
            3 if !v.is_empty() => {
                let end = (at + 1 + rng.below(64) as usize).min(v.len());
                let span = v[at..end].to_vec();
                v.splice(at..at, span);
            }
            _ => {
                let t = TOKENS[rng.below(TOKENS.len() as u64) as usize].as_bytes();
                v.splice(at..at, t.iter().copied());
            }
        }
    }
    v
}

/// `n` mutants of each seed through `read`; a panic fails with the input.
fn run(name: &str, seeds: &[Vec<u8>], n: usize, read: impl Fn(&[u8])) {
    let mut rng = RngStreams::new(42).stream(name);
    for i in 0..n {
        let m = mutate(&mut rng, &seeds[i % seeds.len()]);
        if catch_unwind(AssertUnwindSafe(|| read(&m))).is_err() {
            panic!("{name}: mutant {i} panicked: {:?}", String::from_utf8_lossy(&m));
        }
    }
}

fn examples() -> Vec<Vec<u8>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut v: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml") && !p.file_name().unwrap().to_string_lossy().starts_with("sweep_"))
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    v.sort();
    assert!(v.len() >= 5);
    v
}

#[test]
fn scenarios() {
    run("scenario", &examples(), 10_000, |b| {
        if let Ok(text) = std::str::from_utf8(b) {
            if let Err(e) = cdmasim_core::scenario::parse_str(text, "m.toml") {
                assert!(!e.to_string().contains('\n'), "one line: {e}");
            }
        }
    });
}

fn trace() -> DrcTrace {
    DrcTrace { drc: (0..300).map(|i| (i % 15) as u8).collect(), sinr: Some((0..300).map(|i| i as f32 / 10.0).collect()), handoffs: vec![7, 200] }
}

#[test]
fn drc_traces_text_and_binary() {
    let t = trace();
    let text: String = t.drc.iter().zip(t.sinr.as_ref().unwrap()).map(|(d, s)| format!("{d} {s}\n")).collect();
    run("drc_text", &[text.into_bytes(), b"307.2kbps\n2.4576Mbps 3.5\n0\n".to_vec()], 5_000, |b| {
        if let Ok(s) = std::str::from_utf8(b) {
            let _ = trace_text::parse("m.txt", s);
        }
    });
    run("drc_binary", &[trace_binary::encode(&t), trace_binary::encode(&DrcTrace { sinr: None, ..t.clone() })], 5_000, |b| {
        let _ = trace_binary::decode("m.drc", b);
    });
}

#[test]
fn mahimahi_traces() {
    let lines: String = (0..500).map(|i| format!("{}\n", i * 7 / 3)).collect();
    run("mahimahi", &[lines.into_bytes()], 5_000, |b| {
        if let Ok(s) = std::str::from_utf8(b) {
            if let Ok(ms) = mahimahi::parse_ms("m.down", s) {
                let _ = mahimahi::map_to_slots(&ms, 100);
            }
        }
    });
}

#[test]
fn markov_models() {
    let m = MarkovModel::fit(&trace().drc, 2).to_json();
    run("markov", &[m.into_bytes()], 5_000, |b| {
        if let Ok(s) = std::str::from_utf8(b) {
            if let Ok(m) = MarkovModel::from_json("m.json", s) {
                let _ = m.transition_matrix();
            }
        }
    });
}
