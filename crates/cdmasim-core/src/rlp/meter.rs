//! Bounded-memory distributions for the RLP buffers and channel ON times:
//! a histogram of fixed-width bins (the last bin collects everything
//! beyond), weighted by time (`set`: a level that holds until the next
//! change) or by count (`add_sample`).

use crate::engine::{time::secs, Time};
use crate::result::Cdf;

/// Bins per histogram: 24-byte bins reach 98 KB, 1-frame bins 82 s.
const BINS: usize = 4096;

#[derive(Clone, Debug)]
pub struct Meter {
    bin: u64,
    /// Weight per bin: seconds (time-weighted) or samples.
    pub weights: Vec<f64>,
    pub max: u64,
    level: u64,
    since: Time,
    sum: f64,
    total: f64,
}

impl Meter {
    pub fn new(bin: u64) -> Self {
        Meter { bin: bin.max(1), weights: Vec::new(), max: 0, level: 0, since: Time::ZERO, sum: 0.0, total: 0.0 }
    }

    fn add(&mut self, value: u64, weight: f64) {
        if weight <= 0.0 {
            return;
        }
        let i = ((value / self.bin) as usize).min(BINS - 1);
        if self.weights.len() <= i {
            self.weights.resize(i + 1, 0.0);
        }
        self.weights[i] += weight;
        self.sum += value as f64 * weight;
        self.total += weight;
        self.max = self.max.max(value);
    }

    /// The level is `value` from `now` on.
    pub fn set(&mut self, now: Time, value: u64) {
        if value == self.level {
            return;
        }
        let dt = secs(now.saturating_sub(self.since));
        self.add(self.level, dt);
        self.level = value;
        self.since = now;
        self.max = self.max.max(value);
    }

    /// Close the last level at the end of the run.
    pub fn finish(&mut self, now: Time) {
        let dt = secs(now.saturating_sub(self.since));
        self.add(self.level, dt);
        self.since = now;
    }

    /// `weight` more at `value` (merging histograms of the same bin width).
    pub fn add_weight(&mut self, value: u64, weight: f64) {
        self.add(value * self.bin, weight);
    }

    /// One sample (zero samples are not counted: a run of no frames is no run).
    pub fn add_sample(&mut self, value: u64) {
        if value > 0 {
            self.add(value, 1.0);
        }
    }

    pub fn mean(&self) -> f64 {
        if self.total > 0.0 { self.sum / self.total } else { 0.0 }
    }

    pub fn bin_width(&self) -> u64 {
        self.bin
    }

    /// The distribution as (upper edge of each occupied bin, scaled by
    /// `unit`, fraction of the weight at or below).
    pub fn cdf(&self, unit: f64) -> Cdf {
        let total: f64 = self.weights.iter().sum();
        let mut acc = 0.0;
        let w = self.bin as f64;
        Cdf(self
            .weights
            .iter()
            .enumerate()
            .filter_map(|(i, &x)| {
                acc += x;
                (x > 0.0).then(|| ((i as f64 + 1.0) * w * unit, acc / total))
            })
            .collect())
    }

    /// Fraction of the weight at or below `value` (bin resolution: a bin
    /// counts when its lower edge is at or below `value`).
    pub fn cdf_at(&self, value: u64) -> f64 {
        if self.total <= 0.0 {
            return 0.0;
        }
        let last = ((value / self.bin) as usize).min(self.weights.len().saturating_sub(1));
        self.weights.iter().take(last + 1).sum::<f64>() / self.total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_SEC;

    #[test]
    fn time_weighted_levels() {
        let mut m = Meter::new(24);
        m.set(NS_PER_SEC, 100); // 0 for 1 s
        m.set(3 * NS_PER_SEC, 0); // 100 for 2 s
        m.finish(4 * NS_PER_SEC); // 0 for 1 s
        assert!((m.mean() - 50.0).abs() < 1e-9);
        assert_eq!(m.max, 100);
        assert!((m.cdf_at(0) - 0.5).abs() < 1e-12, "empty half the time");
        assert!((m.cdf_at(96) - 1.0).abs() < 1e-12);
    }
}
