//! Running one-way-delay statistics of a flow's packets: minimum, maximum,
//! mean and standard deviation in one pass (Welford). Liu et al. §7 reports the
//! *excess* one-way delay, the delay minus the flow's smallest: its mean is
//! mean − min and its standard deviation that of the delay itself, so no
//! per-packet storage is needed.

use crate::engine::time::secs;
use crate::engine::Time;

#[derive(Clone, Debug, Default)]
pub struct DelayStats {
    n: u64,
    mean: f64,
    m2: f64,
    min: Option<Time>,
    max: Time,
}

impl DelayStats {
    pub fn add(&mut self, d: Time) {
        self.n += 1;
        let x = d.0 as f64;
        let delta = x - self.mean;
        self.mean += delta / self.n as f64;
        self.m2 += delta * (x - self.mean);
        self.min = Some(self.min.map_or(d, |m| m.min(d)));
        self.max = self.max.max(d);
    }

    /// Packets measured.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// Smallest delay, seconds.
    pub fn min_s(&self) -> Option<f64> {
        self.min.map(secs)
    }

    /// Largest delay, seconds.
    pub fn max_s(&self) -> Option<f64> {
        self.min.map(|_| secs(self.max))
    }

    /// Mean delay, seconds.
    pub fn mean_s(&self) -> Option<f64> {
        self.min.map(|_| self.mean / 1e9)
    }

    /// Mean excess delay over the minimum, seconds.
    pub fn excess_mean_s(&self) -> Option<f64> {
        self.min.map(|m| (self.mean - m.0 as f64).max(0.0) / 1e9)
    }

    /// Population standard deviation, seconds.
    pub fn std_s(&self) -> Option<f64> {
        (self.n > 0).then(|| (self.m2 / self.n as f64).sqrt() / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excess_mean_and_std_match_the_direct_formulas() {
        let d: Vec<Time> = vec![Time(40_000_000), Time(41_000_000), Time(55_000_000), Time(40_500_000), Time(90_000_000)];
        let mut s = DelayStats::default();
        d.iter().for_each(|&x| s.add(x));
        let min = (*d.iter().min().unwrap()).0 as f64;
        let mean = d.iter().map(|&x| x.0 as f64).sum::<f64>() / d.len() as f64;
        let var = d.iter().map(|&x| (x.0 as f64 - mean).powi(2)).sum::<f64>() / d.len() as f64;
        assert!((s.excess_mean_s().unwrap() - (mean - min) / 1e9).abs() < 1e-12);
        assert!((s.std_s().unwrap() - var.sqrt() / 1e9).abs() < 1e-12);
        assert_eq!(s.min_s(), Some(0.04));
        assert_eq!(s.max_s(), Some(0.09));
        assert!((s.mean_s().unwrap() - mean / 1e9).abs() < 1e-15);
        assert_eq!(DelayStats::default().excess_mean_s(), None);
    }
}
