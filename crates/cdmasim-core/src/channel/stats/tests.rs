//! Every statistic against a closed form on synthetic sequences.

use super::*;
use crate::engine::Rng;

/// "Stay with probability p, else draw uniformly among `states`" (the draw may
/// return the same state). Its k-step matrix is p^k I + (1-p^k) J/m, so every
/// lag has a closed-form conditional entropy.
fn sticky_uniform(states: &[u8], p: f64, n: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::from_seed(seed);
    let mut x = states[0];
    (0..n)
        .map(|_| {
            if !rng.bernoulli(p) {
                x = states[rng.below(states.len() as u64) as usize];
            }
            x
        })
        .collect()
}

fn h_row(q: f64, m: usize) -> f64 {
    // one entry q + (m-1) entries (1-q)/(m-1)
    let r = (1.0 - q) / (m as f64 - 1.0);
    -(q * q.log2()) - (m as f64 - 1.0) * if r > 0.0 { r * r.log2() } else { 0.0 }
}

#[test]
fn iid_uniform_has_log2_m_entropy_and_no_memory() {
    let states = [1u8, 3, 6, 9, 11, 12, 14, 2];
    let x = sticky_uniform(&states, 0.0, 400_000, 1);
    let s = compute(&x, None, &StatsConfig { max_order: 4, max_lag: 5 });
    // Plug-in entropy bias is (m-1)/(2N ln 2) ~ 1e-5 bits; sampling error ~1e-3.
    assert!((s.entropy_bits - 3.0).abs() < 0.003, "{}", s.entropy_bits);
    assert!((s.modal_fraction - 0.125).abs() < 0.003);
    // Mean run length of an iid sequence: 1 / (1 - 1/m).
    assert!((s.mean_sojourn_slots - 8.0 / 7.0).abs() < 0.01, "{}", s.mean_sojourn_slots);
    // No memory: H(X|past) / H(X) = 1 up to the plug-in bias, which grows
    // with the number of contexts (8^4 x 8 cells at n = 4: about 0.02).
    for (n, c) in s.cond_entropy.iter().enumerate() {
        assert!(*c <= 1.0 + 1e-9 && *c > 1.0 - 0.03, "n={} {}", n + 1, c);
    }
    for c in &s.lag_entropy {
        assert!((c - 1.0).abs() < 0.002, "{c}");
    }
}

#[test]
fn order_one_chain_matches_closed_forms() {
    let states = [4u8, 8, 11, 12];
    let p = 0.97;
    let m = states.len();
    let x = sticky_uniform(&states, p, 2_000_000, 7);
    let s = compute(&x, None, &StatsConfig { max_order: 4, max_lag: 200 });
    // Sojourn of each state: 1 / (1 - p_ii), p_ii = p + (1-p)/m.
    let pii = p + (1.0 - p) / m as f64;
    for &st in &states {
        let o = s.sojourn_observed[st as usize];
        // ~ 5e5 / 40 = 12 000 runs per state: relative std error ~1 %.
        assert!((o / (1.0 / (1.0 - pii)) - 1.0).abs() < 0.04, "state {st}: {o}");
        assert!((s.sojourn_analytic[st as usize] / o - 1.0).abs() < 1e-3);
    }
    assert!(s.sojourn_rmse < 1e-3, "{}", s.sojourn_rmse);
    // Uniform stationary distribution: H = 2 bits.
    assert!((s.entropy_bits - 2.0).abs() < 0.01);
    // H(X_i | X_{i-1}) / H = H(row) / log2 m, and it stops falling beyond n = 1.
    let want = h_row(pii, m) / 2.0;
    assert!((s.cond_entropy[0] - want).abs() < 0.01, "{} vs {want}", s.cond_entropy[0]);
    for n in 1..4 {
        assert!((s.cond_entropy[n] - s.cond_entropy[0]).abs() < 0.005, "n={} {:?}", n + 1, s.cond_entropy);
    }
    // Lag d: the d-step matrix has diagonal p^d + (1-p^d)/m.
    for d in [1usize, 10, 50, 100, 200] {
        let q = p.powi(d as i32) + (1.0 - p.powi(d as i32)) / m as f64;
        let want = h_row(q, m) / 2.0;
        assert!((s.lag_entropy[d - 1] - want).abs() < 0.02, "d={d}: {} vs {want}", s.lag_entropy[d - 1]);
    }
}

#[test]
fn second_order_pattern_needs_two_slots_of_history() {
    let x: Vec<u8> = (0..30_000).map(|i| [1u8, 1, 5][i % 3]).collect();
    let s = compute(&x, None, &StatsConfig { max_order: 4, max_lag: 6 });
    // After a 1 comes 1 or 5 with equal odds: H(X|X-1) = (2/3) bit; H(X) = h(1/3).
    let hx = -(1.0 / 3.0f64) * (1.0 / 3.0f64).log2() - (2.0 / 3.0) * (2.0 / 3.0f64).log2();
    assert!((s.cond_entropy[0] - (2.0 / 3.0) / hx).abs() < 1e-3, "{:?}", s.cond_entropy);
    assert!(s.cond_entropy[1].abs() < 1e-9 && s.cond_entropy[3].abs() < 1e-9);
    // Period 3: lag 3 and 6 determine the state exactly.
    assert!(s.lag_entropy[2].abs() < 1e-9 && s.lag_entropy[5].abs() < 1e-9);
}

#[test]
fn rate_moments_and_sinr_correlation() {
    // 3/4 of the time at 2457.6 kb/s (12), 1/4 at 614.4 kb/s (6).
    let x: Vec<u8> = (0..4000).map(|i| if i % 4 == 0 { 6 } else { 12 }).collect();
    let sinr: Vec<f32> = x.iter().map(|&d| if d == 12 { 10.0 } else { 0.0 }).collect();
    let s = compute(&x, Some(&sinr), &StatsConfig::default());
    let (a, b) = (2_457_600.0, 614_400.0);
    let mean = 0.75 * a + 0.25 * b;
    assert!((s.mean_bps - mean).abs() < 1e-6 * mean);
    let sd = (0.75f64 * 0.25).sqrt() * (a - b);
    assert!((s.std_bps - sd).abs() < 1e-6 * sd);
    assert_eq!(s.modal_state, 12);
    assert!((s.modal_fraction - 0.75).abs() < 1e-12);
    assert!((s.sinr_rate_corr.unwrap() - 1.0).abs() < 1e-9);
    assert!((s.sinr_mean_db.unwrap() - 7.5).abs() < 1e-9);
    let w = compute_windows(&x, Some(&sinr), 1000, &StatsConfig::default());
    assert_eq!(w.len(), 4);
    assert!(w.iter().all(|s| (s.modal_fraction - 0.75).abs() < 1e-9));
}

#[test]
fn window_means_correlate_with_sinr() {
    // Windows alternating between two SINR levels and rates: correlation 1.
    let mut x = Vec::new();
    let mut sinr = Vec::new();
    for w in 0..6 {
        let (d, s) = if w % 2 == 0 { (12u8, 10.0f32) } else { (6u8, 0.0f32) };
        x.extend(std::iter::repeat(d).take(500));
        sinr.extend(std::iter::repeat(s).take(500));
    }
    let w = compute_windows(&x, Some(&sinr), 500, &StatsConfig { max_order: 1, max_lag: 1 });
    assert!((window_mean_corr(&w).unwrap() - 1.0).abs() < 1e-12);
    assert!(window_mean_corr(&w[..2]).is_none());
}

/// Bit-identical statistics whatever the pieces a sequence arrives in
/// (what lets `channel stats` stream a day from its file).
#[test]
fn any_split_into_pieces_gives_bit_identical_statistics() {
    let x = sticky_uniform(&[0, 3, 7, 14], 0.9, 60_000, 3);
    let sinr: Vec<f32> = (0..x.len()).map(|i| ((i * 7919) % 2000) as f32 / 100.0 - 5.0 + x[i] as f32).collect();
    let cfg = StatsConfig { max_order: 4, max_lag: 50 };
    let whole = format!("{:?}", compute(&x, Some(&sinr), &cfg));
    let windows = format!("{:?}", compute_windows(&x, Some(&sinr), 7_000, &cfg));
    for piece in [1, 7, 4096, 5_000, 59_999] {
        let mut a = Accumulator::new(cfg.clone());
        let mut w = Windows::new(7_000, cfg.clone());
        for (d, s) in x.chunks(piece).zip(sinr.chunks(piece)) {
            a.push(d, Some(s));
            w.push(d, Some(s));
        }
        assert_eq!(format!("{:?}", a.finish()), whole, "piece {piece}");
        assert_eq!(format!("{:?}", w.finish()), windows, "piece {piece}");
    }
}

/// Windows are the sequence's slices, each a sequence of its own; the
/// last one (4 000 of 7 000 slots) is kept, being at least half a window.
#[test]
fn windows_are_the_statistics_of_their_slices() {
    let x = sticky_uniform(&[1, 5, 9], 0.95, 25_000, 5);
    let cfg = StatsConfig { max_order: 2, max_lag: 20 };
    let w = compute_windows(&x, None, 7_000, &cfg);
    let want: Vec<String> = x.chunks(7_000).map(|c| format!("{:?}", compute(c, None, &cfg))).collect();
    assert_eq!(w.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>(), want);
    assert_eq!(compute_windows(&x[..24_000], None, 7_000, &cfg).len(), 3, "3 000 slots: under half a window");
}

/// The conditional entropies from run-fed 5-grams against counting every
/// (n+1)-gram of the sequence directly.
#[test]
fn conditional_entropies_match_direct_ngram_counting() {
    use std::collections::HashMap;
    let x = sticky_uniform(&[0, 2, 4, 6, 8], 0.6, 20_000, 9);
    let s = compute(&x, None, &StatsConfig { max_order: 4, max_lag: 1 });
    let h = |k: usize, skip_last: bool| {
        // Entropy of the k states ending at i (or at i - 1), over i = 4..N-1.
        let mut c: HashMap<&[u8], u64> = HashMap::new();
        for i in 4..x.len() {
            let end = if skip_last { i } else { i + 1 };
            *c.entry(&x[end - k..end]).or_default() += 1;
        }
        let mut counts: Vec<u64> = c.into_values().collect();
        counts.sort();
        entropy::entropy(counts)
    };
    let hx = h(1, false);
    for n in 1..=4 {
        let want = (h(n + 1, false) - h(n, true)) / hx;
        assert!((s.cond_entropy[n - 1] - want).abs() < 1e-12, "n={n}: {} vs {want}", s.cond_entropy[n - 1]);
    }
}
