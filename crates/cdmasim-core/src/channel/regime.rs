//! The slow part of a terminal's mean SINR: a hidden regime and a drift over
//! hours (Liu et al. sections 5.1 and 5.3).
//!
//! Liu et al. find two things a single stationary SINR process cannot give
//! together: the DRC is a one-step Markov chain slot to slot (Fig. 5 left and
//! middle), yet a slot still says much about the DRC 100 slots later (Fig. 5
//! right: H(X_{i+d} | X_i) / H below 0.5 up to d ≈ 100); and the hourly mean
//! moves over the day and from day to day (Fig. 1: 2 → 3 Mb/s over 24 hours
//! at Location 1, 0.5–3 Mb/s over 25 days).
//!
//! - **Regime**: a hidden state that shifts the SINR mean by one of a few
//!   levels and holds it for seconds. On the EV-DO forward link the cause is
//!   the neighbouring sectors: a sector with data transmits at full power, an
//!   idle one only its pilot and MAC bursts, so the other-cell interference a
//!   terminal sees steps between a few levels as the neighbours' users come
//!   and go. At each slot the regime is redrawn with probability
//!   1 / `redraw_slots` from `shares` (possibly the same regime): the time in
//!   each regime is then `shares`, and a stay in regime k lasts
//!   `redraw_slots / (1 - share_k)` slots on average. Regime changes are rare
//!   on the slot scale, so the one-step chain stays a good model, while the
//!   regime a slot reveals persists for thousands of slots.
//! - **Drift**: a Gauss-Markov (AR(1)) offset with a correlation time of
//!   hours: the load and the surroundings over the day.

use super::fading::{Ar1, Gauss};
use crate::engine::Rng;

#[derive(Clone, Debug, PartialEq)]
pub struct RegimeConfig {
    /// SINR offset (dB) of each regime.
    pub levels_db: Vec<f64>,
    /// Long-run share of time in each regime (sums to 1).
    pub shares: Vec<f64>,
    /// Mean slots between redraws of the regime.
    pub redraw_slots: f64,
    /// Standard deviation (dB) of the drift over hours; 0 = none.
    pub drift_sd_db: f64,
    /// Correlation time (slots) of the drift.
    pub drift_corr_slots: f64,
}

impl RegimeConfig {
    /// Mean stay (slots) in regime `k`.
    pub fn mean_stay_slots(&self, k: usize) -> f64 {
        self.redraw_slots / (1.0 - self.shares[k])
    }
}

/// The live process: one offset (dB) per slot.
pub struct Regime {
    cfg: RegimeConfig,
    rng: Rng,
    g: Gauss,
    drift: Ar1,
    current: usize,
    cumulative: Vec<f64>,
}

impl Regime {
    pub fn new(cfg: RegimeConfig, rng: Rng, gauss: Rng) -> Self {
        assert!(!cfg.levels_db.is_empty() && cfg.levels_db.len() == cfg.shares.len());
        assert!(cfg.redraw_slots >= 1.0);
        let total: f64 = cfg.shares.iter().sum();
        let mut acc = 0.0;
        let cumulative = cfg.shares.iter().map(|s| {
            acc += s / total;
            acc
        });
        let cumulative: Vec<f64> = cumulative.collect();
        let mut g = Gauss::new(gauss);
        let drift = Ar1::new(cfg.drift_sd_db, cfg.drift_corr_slots, &mut g);
        let mut r = Self { cfg, rng, g, drift, current: 0, cumulative };
        r.current = r.draw(); // start in the stationary distribution
        r
    }

    fn draw(&mut self) -> usize {
        let u = self.rng.uniform();
        self.cumulative.partition_point(|&c| c <= u).min(self.cumulative.len() - 1)
    }

    /// The regime in force at the last step.
    pub fn current(&self) -> usize {
        self.current
    }

    /// This slot's SINR offset (dB).
    #[inline]
    pub fn step(&mut self) -> f64 {
        if self.rng.uniform() * self.cfg.redraw_slots < 1.0 {
            self.current = self.draw();
        }
        let drift = if self.cfg.drift_sd_db > 0.0 { self.drift.step(&mut self.g) } else { 0.0 };
        self.cfg.levels_db[self.current] + drift
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(redraw: f64) -> RegimeConfig {
        RegimeConfig {
            levels_db: vec![0.0, -3.0],
            shares: vec![0.75, 0.25],
            redraw_slots: redraw,
            drift_sd_db: 0.0,
            drift_corr_slots: 0.0,
        }
    }

    #[test]
    fn time_in_each_regime_is_its_share_and_stays_last_their_mean() {
        let c = cfg(1000.0);
        let mut r = Regime::new(c.clone(), Rng::from_seed(5), Rng::from_seed(6));
        let n = 20_000_000u64;
        let (mut in_low, mut stays, mut stay_slots, mut run, mut last) = (0u64, [0u64; 2], [0u64; 2], 0u64, None);
        for _ in 0..n {
            let x = r.step();
            let k = r.current();
            if x < -1.0 {
                in_low += 1;
            }
            if last.is_some_and(|l| l != k) {
                let l = last.unwrap();
                stays[l] += 1;
                stay_slots[l] += run;
                run = 0;
            }
            last = Some(k);
            run += 1;
        }
        let share = in_low as f64 / n as f64;
        assert!((share - 0.25).abs() < 0.01, "share {share}");
        for k in 0..2 {
            let mean = stay_slots[k] as f64 / stays[k] as f64;
            let want = c.mean_stay_slots(k);
            assert!((mean / want - 1.0).abs() < 0.05, "regime {k}: mean stay {mean} against {want}");
        }
    }

    #[test]
    fn drift_has_its_spread() {
        let c = RegimeConfig { drift_sd_db: 2.0, drift_corr_slots: 50.0, ..cfg(1e12) };
        let mut r = Regime::new(c, Rng::from_seed(1), Rng::from_seed(2));
        let k = r.current();
        let base = [0.0, -3.0][k];
        let n = 1_000_000;
        let xs: Vec<f64> = (0..n).map(|_| r.step() - base).collect();
        let m = xs.iter().sum::<f64>() / n as f64;
        let sd = (xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n as f64).sqrt();
        assert!(m.abs() < 0.1 && (sd - 2.0).abs() < 0.1, "mean {m} sd {sd}");
    }
}
