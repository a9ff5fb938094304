//! A hidden regime modulating a Markov chain, fitted from a trace: the
//! one-step chain of Liu et al. §5.3 with the memory of Fig. 5 (right) and the
//! slow variation of Fig. 1.
//!
//! A single chain fitted to a trace has the trace's slot-to-slot statistics
//! but forgets its state within a few hundred slots, so it has less memory at
//! lag 100 than the trace (the trace's slow changes of mean are averaged into
//! one transition matrix). Here the trace is cut into windows (10 s by
//! default); each window's mean rate places it in one of R regimes (1-D
//! k-means over the window means, started at their quantiles, so the regimes
//! are levels of the mean rate, numbered from the slowest); each regime gets
//! its own chain, fitted on the runs of consecutive windows in it; and the
//! regime sequence is a first-order chain over windows. Generation draws the
//! next window's regime at each window boundary and continues the DRC chain
//! with that regime's transitions from the current history.

use super::error::{ChannelError, Result};
use super::markov::{MarkovModel, MarkovSource};
use super::ChannelSource;
use crate::channel::drc::RATE_BPS;
use crate::engine::Rng;

#[derive(Clone, Debug, PartialEq)]
pub struct RegimeMarkovModel {
    pub window_slots: u64,
    /// Mean rate (bit/s) of each regime's windows, increasing.
    pub levels_bps: Vec<f64>,
    /// The DRC chain within each regime.
    pub chains: Vec<MarkovModel>,
    /// Counts of window-to-window regime transitions.
    pub transitions: Vec<Vec<u64>>,
}

/// 1-D k-means: `k` centres of `xs`, increasing, started at the quantiles.
fn kmeans_1d(xs: &[f64], k: usize) -> Vec<f64> {
    let mut sorted = xs.to_vec();
    sorted.sort_by(|a, b| a.total_cmp(b));
    let n = sorted.len();
    let mut c: Vec<f64> = (0..k).map(|i| sorted[((2 * i + 1) * n / (2 * k)).min(n - 1)]).collect();
    for _ in 0..100 {
        let mut sum = vec![0.0; k];
        let mut cnt = vec![0usize; k];
        for &x in xs {
            let j = nearest(&c, x);
            sum[j] += x;
            cnt[j] += 1;
        }
        let next: Vec<f64> = (0..k).map(|j| if cnt[j] > 0 { sum[j] / cnt[j] as f64 } else { c[j] }).collect();
        if next == c {
            break;
        }
        c = next;
    }
    c.sort_by(|a, b| a.total_cmp(b));
    c
}

fn nearest(centres: &[f64], x: f64) -> usize {
    let mut best = 0;
    for (j, &c) in centres.iter().enumerate() {
        if (x - c).abs() < (x - centres[best]).abs() {
            best = j;
        }
    }
    best
}

impl RegimeMarkovModel {
    /// Fit `regimes` regimes of windows of `window_slots` slots, each with a
    /// chain of `order`. The trace must hold at least `regimes` windows.
    pub fn fit(drc: &[u8], order: usize, regimes: usize, window_slots: u64) -> RegimeMarkovModel {
        assert!(regimes >= 1 && window_slots >= 1);
        let w = window_slots as usize;
        let windows: Vec<&[u8]> = drc.chunks(w).filter(|c| c.len() == w).collect();
        assert!(windows.len() >= regimes, "{} windows for {regimes} regimes", windows.len());
        let rate = |d: u8| RATE_BPS.get(d as usize).map_or(0.0, |&r| r as f64);
        let means: Vec<f64> = windows.iter().map(|c| c.iter().map(|&d| rate(d)).sum::<f64>() / c.len() as f64).collect();
        let levels = kmeans_1d(&means, regimes);
        let label: Vec<usize> = means.iter().map(|&m| nearest(&levels, m)).collect();
        let mut transitions = vec![vec![0u64; regimes]; regimes];
        for p in label.windows(2) {
            transitions[p[0]][p[1]] += 1;
        }
        let mut chains: Vec<MarkovModel> = (0..regimes).map(|_| MarkovModel::fit(&[], order)).collect();
        // Runs of consecutive windows in one regime: the transitions inside
        // a run belong to its chain.
        let mut start = 0;
        for i in 1..=label.len() {
            if i == label.len() || label[i] != label[start] {
                chains[label[start]].add(&MarkovModel::fit(&drc[start * w..i * w], order));
                start = i;
            }
        }
        // A regime whose only run was shorter than the order has no
        // transitions: give it the whole trace's chain rather than nothing.
        let whole = MarkovModel::fit(&drc[..windows.len() * w], order);
        for c in chains.iter_mut().filter(|c| c.counts.is_empty()) {
            *c = whole.clone();
        }
        RegimeMarkovModel { window_slots, levels_bps: levels, chains, transitions }
    }

    pub fn to_json(&self) -> String {
        let v = serde_json::json!({
            "format": "cdmasim-regime-markov", "version": 1,
            "window_slots": self.window_slots,
            "regimes": self.chains.iter().zip(&self.levels_bps).map(|(c, l)| serde_json::json!({
                "mean_rate_bps": l, "chain": c.to_value(),
            })).collect::<Vec<_>>(),
            "transitions": self.transitions,
        });
        serde_json::to_string_pretty(&v).unwrap()
    }

    pub fn from_value(name: &str, v: &serde_json::Value) -> Result<RegimeMarkovModel> {
        let window_slots = v
            .get("window_slots")
            .and_then(|x| x.as_u64())
            .filter(|&x| x >= 1)
            .ok_or_else(|| ChannelError::new(name, "window_slots: missing or below 1"))?;
        let list = v.get("regimes").and_then(|r| r.as_array()).filter(|r| !r.is_empty());
        let list = list.ok_or_else(|| ChannelError::new(name, "regimes: missing or empty"))?;
        let mut chains = Vec::new();
        let mut levels_bps = Vec::new();
        for (i, r) in list.iter().enumerate() {
            let chain = r.get("chain").ok_or_else(|| ChannelError::new(name, format!("regimes[{i}].chain: missing")))?;
            chains.push(MarkovModel::from_value(&format!("{name}: regimes[{i}].chain"), chain)?);
            levels_bps.push(r.get("mean_rate_bps").and_then(|x| x.as_f64()).unwrap_or(f64::NAN));
        }
        if chains.iter().any(|c| c.order != chains[0].order) {
            return Err(ChannelError::new(name, "regimes: the chains' orders differ"));
        }
        let n = chains.len();
        let bad = || ChannelError::new(name, format!("transitions: must be {n} rows of {n} whole numbers"));
        let rows = v.get("transitions").and_then(|t| t.as_array()).filter(|t| t.len() == n).ok_or_else(bad)?;
        let mut transitions = Vec::new();
        for row in rows {
            let row = row.as_array().filter(|r| r.len() == n).ok_or_else(bad)?;
            transitions.push(row.iter().map(|x| x.as_u64()).collect::<Option<Vec<u64>>>().ok_or_else(bad)?);
        }
        Ok(RegimeMarkovModel { window_slots, levels_bps, chains, transitions })
    }
}

/// Generates DRC sequences from a fitted regime model.
pub struct RegimeMarkovSource {
    window_slots: u64,
    chains: Vec<MarkovSource>,
    /// Cumulative next-regime weights per regime (a regime never left in the
    /// fitted trace stays; one never entered is left uniformly).
    next: Vec<Vec<u64>>,
    rng: Rng,
    regime: usize,
    left: u64,
}

impl RegimeMarkovSource {
    pub fn new(m: &RegimeMarkovModel, rng: Rng, chain_rng: impl Fn(usize) -> Rng) -> RegimeMarkovSource {
        let n = m.chains.len();
        let chains = m.chains.iter().enumerate().map(|(i, c)| MarkovSource::new(c, chain_rng(i))).collect();
        let next = (0..n)
            .map(|i| {
                let row = &m.transitions[i];
                let row: Vec<u64> = if row.iter().all(|&x| x == 0) { vec![1; n] } else { row.clone() };
                row.iter()
                    .scan(0u64, |acc, &x| {
                        *acc = acc.saturating_add(x);
                        Some(*acc)
                    })
                    .collect()
            })
            .collect();
        // Start in a regime drawn with its share of the fitted windows.
        let shares: Vec<u64> = (0..n).map(|i| m.transitions[i].iter().sum::<u64>().max(1)).collect();
        let mut s = RegimeMarkovSource { window_slots: m.window_slots, chains, next, rng, regime: 0, left: 0 };
        let total: u64 = shares.iter().sum();
        let mut u = s.rng.below(total);
        for (i, w) in shares.iter().enumerate() {
            if u < *w {
                s.regime = i;
                break;
            }
            u -= w;
        }
        s.left = m.window_slots;
        s
    }

    /// The regime of the slot generated last.
    pub fn regime(&self) -> usize {
        self.regime
    }
}

impl ChannelSource for RegimeMarkovSource {
    fn fill(&mut self, drc: &mut [u8], sinr: Option<&mut [f32]>) -> usize {
        for d in drc.iter_mut() {
            if self.left == 0 {
                let row = &self.next[self.regime];
                let u = self.rng.below(*row.last().unwrap());
                let to = row.partition_point(|&c| c <= u);
                if to != self.regime {
                    let ctx = self.chains[self.regime].context();
                    self.chains[to].set_context(ctx);
                    self.regime = to;
                }
                self.left = self.window_slots;
            }
            self.left -= 1;
            *d = self.chains[self.regime].step();
        }
        if let Some(s) = sinr {
            s.fill(f32::NAN);
        }
        drc.len()
    }
}

/// Read a model file: a plain chain or a regime model, by its "format".
pub fn read_source(path: &str, rng: impl Fn(&str) -> Rng) -> Result<Box<dyn ChannelSource>> {
    let text = crate::files::read_input_text(std::path::Path::new(path), crate::files::MAX_SMALL_INPUT_BYTES, "channel model")
        .map_err(|e| ChannelError::io(path, e))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| ChannelError::at(path, e.line() as u64, "json", e.to_string()))?;
    if v.get("format").and_then(|f| f.as_str()) == Some("cdmasim-regime-markov") {
        let m = RegimeMarkovModel::from_value(path, &v)?;
        return Ok(Box::new(RegimeMarkovSource::new(&m, rng("regime-markov/regime"), |i| rng(&format!("regime-markov/chain/{i}")))));
    }
    let m = MarkovModel::from_value(path, &v)?;
    Ok(Box::new(MarkovSource::new(&m, rng("markov/generate"))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::{collect, presets, stats};

    fn lag100(drc: &[u8]) -> f64 {
        stats::compute(drc, None, &stats::StatsConfig { max_order: 1, max_lag: 100 }).lag_entropy[99]
    }

    #[test]
    fn a_regime_model_keeps_the_memory_a_single_chain_loses() {
        // 24 minutes of Location 3: a chain of order 1 forgets the slow state
        // the trace was in; regimes of one-second windows carry part of it
        // across lag 100 (measured: trace 0.36, one chain 0.50, eight
        // regimes 0.45; ten-second windows carry none of it, 0.52, as the
        // trace's lag-100 memory lives in its 2-3 s fading and 1 s loaded stays).
        let t = collect(presets::source("location3", 3).unwrap().as_mut(), 2 * 2_160_000 / 5);
        let original = lag100(&t.drc);
        let plain = MarkovModel::fit(&t.drc, 1);
        let plain = collect(&mut MarkovSource::new(&plain, Rng::from_seed(1)), t.drc.len() as u64);
        let m = RegimeMarkovModel::fit(&t.drc, 1, 8, 600);
        let back = RegimeMarkovModel::from_value("m", &serde_json::from_str(&m.to_json()).unwrap()).unwrap();
        // JSON keeps the counts exactly and the levels to the last bit or so.
        assert_eq!((&back.chains, &back.transitions, back.window_slots), (&m.chains, &m.transitions, m.window_slots));
        assert!(back.levels_bps.iter().zip(&m.levels_bps).all(|(a, b)| (a - b).abs() <= 1e-9 * b));
        let regime = collect(&mut RegimeMarkovSource::new(&m, Rng::from_seed(2), |i| Rng::from_seed(10 + i as u64)), t.drc.len() as u64);
        let (p, r) = (lag100(&plain.drc), lag100(&regime.drc));
        assert!(p > original + 0.1, "plain chain {p} against the trace's {original}");
        assert!((r - original).abs() < 0.75 * (p - original).abs(), "regime {r}, plain {p}, trace {original}");
        assert!(m.levels_bps.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn one_regime_is_the_plain_chain() {
        let t = collect(presets::source("stationary", 1).unwrap().as_mut(), 60_000);
        let m = RegimeMarkovModel::fit(&t.drc, 2, 1, 6_000);
        assert_eq!(m.chains[0], MarkovModel::fit(&t.drc, 2));
        assert_eq!(m.transitions, vec![vec![9]]);
    }

    #[test]
    fn bad_model_files_say_what_is_wrong() {
        let chain = MarkovModel::fit(&[1, 2, 1, 2, 1], 1).to_value();
        let cases = [
            (serde_json::json!({"format": "cdmasim-regime-markov", "regimes": []}), "window_slots"),
            (serde_json::json!({"window_slots": 10, "regimes": []}), "regimes: missing or empty"),
            (serde_json::json!({"window_slots": 10, "regimes": [{"chain": chain}], "transitions": [[1, 2]]}), "transitions"),
            (serde_json::json!({"window_slots": 10, "regimes": [{"chain": {"format": "x"}}], "transitions": [[1]]}), "regimes[0].chain"),
        ];
        for (v, want) in cases {
            let e = RegimeMarkovModel::from_value("m.json", &v).unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
        }
    }
}
