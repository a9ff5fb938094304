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
//! - **Day scale** (off unless set): a second Gauss-Markov offset with a
//!   correlation time of days, for what changes from one day to the next at
//!   a fixed place (Fig. 1 right: 30-minute means at Location 1 over 25
//!   weekdays). The paper states no size for it; `day_sd_db` is a named
//!   setting, 0 in every preset, and liu's `fig1_day_scale` figure shows
//!   what it does to the 25-day range.
//!
//! `skip` moves the process over a gap without drawing its slots: a
//! campaign of half-hour traces on 25 days draws 25 hours, not 600.

use super::fading::Ar1;
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
    /// Standard deviation (dB) of the day-scale offset; 0 = none.
    pub day_sd_db: f64,
    /// Correlation time (slots) of the day-scale offset.
    pub day_corr_slots: f64,
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
    g: Rng,
    drift: Ar1,
    /// The day-scale offset (None when `day_sd_db` is 0, so the other
    /// streams are drawn exactly as without it).
    day: Option<DayScale>,
    current: usize,
    cumulative: Vec<f64>,
}

impl Regime {
    /// `rng` draws the regime, `gauss` the drift, `day` the day scale.
    pub fn new(cfg: RegimeConfig, rng: Rng, gauss: Rng, day: Rng) -> Self {
        assert!(!cfg.levels_db.is_empty() && cfg.levels_db.len() == cfg.shares.len());
        assert!(cfg.redraw_slots >= 1.0);
        let total: f64 = cfg.shares.iter().sum();
        let mut acc = 0.0;
        let cumulative = cfg.shares.iter().map(|s| {
            acc += s / total;
            acc
        });
        let cumulative: Vec<f64> = cumulative.collect();
        let mut g = gauss;
        let drift = Ar1::new(cfg.drift_sd_db, cfg.drift_corr_slots, &mut g);
        let day = DayScale::new(cfg.day_sd_db, cfg.day_corr_slots, day);
        let mut r = Self { cfg, rng, g, drift, day, current: 0, cumulative };
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

    /// This slot's SINR offset (dB): `step_within_day` + `step_day`.
    #[inline]
    pub fn step(&mut self) -> f64 {
        self.step_within_day() + self.step_day()
    }

    /// This slot's offset but the day scale's: the regime's level and the
    /// drift.
    #[inline]
    pub fn step_within_day(&mut self) -> f64 {
        if self.rng.uniform() * self.cfg.redraw_slots < 1.0 {
            self.current = self.draw();
        }
        let drift = if self.cfg.drift_sd_db > 0.0 { self.drift.step(&mut self.g) } else { 0.0 };
        self.cfg.levels_db[self.current] + drift
    }

    /// This slot's day-scale offset (0 without one).
    #[inline]
    pub fn step_day(&mut self) -> f64 {
        self.day.as_mut().map_or(0.0, DayScale::step)
    }

    /// Move `n` slots on at once. The regime is redrawn at least once in
    /// `n` slots with probability 1 - (1 - 1/redraw)^n, and then it is the
    /// last redraw's, a fresh draw from `shares`; the drift and the day
    /// scale take their exact n-step laws.
    pub fn skip(&mut self, n: u64) {
        if n == 0 {
            return;
        }
        let stay = (1.0 - 1.0 / self.cfg.redraw_slots).powf(n as f64);
        if self.rng.uniform() >= stay {
            self.current = self.draw();
        }
        if self.cfg.drift_sd_db > 0.0 {
            self.drift.skip(n, &mut self.g);
        }
        if let Some(d) = self.day.as_mut() {
            d.skip(n);
        }
    }
}

/// The day-scale offset (dB): an AR(1) process with its own draws, so that
/// processes that differ only in it share every other draw
/// (`channel::day_scales`).
#[derive(Clone, Debug)]
pub struct DayScale {
    offset: Ar1,
    g: Rng,
}

impl DayScale {
    /// Standard deviation `sd_db`, correlation time `corr_slots`, drawn
    /// from `g`; None when `sd_db` is 0 (no draws at all).
    pub fn new(sd_db: f64, corr_slots: f64, g: Rng) -> Option<Self> {
        (sd_db > 0.0).then(|| {
            let mut g = g;
            Self { offset: Ar1::new(sd_db, corr_slots, &mut g), g }
        })
    }

    #[inline]
    pub fn step(&mut self) -> f64 {
        self.offset.step(&mut self.g)
    }

    /// `n` slots on at once (`Ar1::skip`).
    pub fn skip(&mut self, n: u64) {
        self.offset.skip(n, &mut self.g);
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
            day_sd_db: 0.0,
            day_corr_slots: 0.0,
        }
    }

    fn regime(c: RegimeConfig, seed: u64) -> Regime {
        Regime::new(c, Rng::from_seed(seed), Rng::from_seed(seed + 100), Rng::from_seed(seed + 200))
    }

    #[test]
    fn time_in_each_regime_is_its_share_and_stays_last_their_mean() {
        let c = cfg(1000.0);
        let mut r = regime(c.clone(), 5);
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
        let mut r = regime(c, 1);
        let k = r.current();
        let base = [0.0, -3.0][k];
        let n = 1_000_000;
        let xs: Vec<f64> = (0..n).map(|_| r.step() - base).collect();
        let m = xs.iter().sum::<f64>() / n as f64;
        let sd = (xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n as f64).sqrt();
        assert!(m.abs() < 0.1 && (sd - 2.0).abs() < 0.1, "mean {m} sd {sd}");
    }

    /// A jump over a gap is the gap drawn slot by slot, in law: after 2,000
    /// slots of a regime redrawn every 1,000, the chance of still being in
    /// the regime one started in is the same both ways, and so are the
    /// drift's mean and spread given where it started.
    #[test]
    fn a_skip_is_the_gap_drawn_slot_by_slot() {
        let c = RegimeConfig { drift_sd_db: 1.0, drift_corr_slots: 4000.0, ..cfg(1000.0) };
        let (n, gap) = (4000u64, 2000u64);
        let mut kept = [0u64; 2];
        let mut moved: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
        for seed in 0..n {
            for (way, skip) in [(0, true), (1, false)] {
                let mut r = regime(c.clone(), seed);
                let x0 = r.step();
                let k0 = r.current();
                let d0 = x0 - c.levels_db[k0];
                if skip {
                    r.skip(gap - 1);
                } else {
                    for _ in 0..gap - 1 {
                        r.step();
                    }
                }
                let x = r.step();
                kept[way] += (r.current() == k0) as u64;
                moved[way].push((x - c.levels_db[r.current()]) - d0 * (-(gap as f64) / 4000.0).exp());
            }
        }
        // Stay: 0.75 + 0.25 (1 - 1/1000)^2000 for regime 0 and so on, about
        // 0.66 on average; binomial sd over 4000 runs 0.0075.
        let (a, b) = (kept[0] as f64 / n as f64, kept[1] as f64 / n as f64);
        assert!((a - b).abs() < 0.035, "stayed: skip {a}, drawn {b}");
        for m in &moved {
            let mean = m.iter().sum::<f64>() / n as f64;
            let sd = (m.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
            let want = (1.0 - (-2.0 * gap as f64 / 4000.0).exp()).sqrt();
            assert!(mean.abs() < 0.05 && (sd / want - 1.0).abs() < 0.05, "mean {mean}, sd {sd} against {want}");
        }
    }

    /// The day scale adds its spread, holds it for its correlation time,
    /// and takes no draws from the other streams: with it off, the regime
    /// and the drift are what they were.
    #[test]
    fn the_day_scale_has_its_spread_and_leaves_the_rest_alone() {
        let day = 100_000.0;
        let c = RegimeConfig { day_sd_db: 3.0, day_corr_slots: 10.0 * day, ..cfg(1e12) };
        let mut xs = Vec::new();
        let mut r = regime(c.clone(), 3);
        let base = c.levels_db[r.current()];
        for _ in 0..2000 {
            r.skip(day as u64 - 1);
            xs.push(r.step() - base);
        }
        let m = xs.iter().sum::<f64>() / xs.len() as f64;
        let sd = (xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / xs.len() as f64).sqrt();
        let lag1 = xs.windows(2).map(|w| (w[0] - m) * (w[1] - m)).sum::<f64>() / (xs.len() - 1) as f64 / (sd * sd);
        assert!((sd - 3.0).abs() < 0.6, "sd {sd}");
        assert!((lag1 - (-0.1f64).exp()).abs() < 0.06, "day-to-day correlation {lag1}");
        let off = RegimeConfig { day_sd_db: 0.0, drift_sd_db: 1.0, drift_corr_slots: 500.0, ..cfg(300.0) };
        let mut a = regime(off.clone(), 9);
        let mut b = Regime::new(off, Rng::from_seed(9), Rng::from_seed(109), Rng::from_seed(12345));
        for _ in 0..10_000 {
            assert_eq!(a.step(), b.step());
        }
    }
}
