//! Loss periods (Lee §3.3): "the time between the first retransmission
//! and the last retransmission of multiple retransmissions without any new
//! packet transmission". A period opens at a retransmitted data segment,
//! counts every retransmitted segment, and closes at the first segment that
//! carries new (never-sent) data; its length is first-to-last retransmission.

#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct LossPeriod {
    /// First and last retransmission (µs since the epoch).
    pub start_us: u64,
    pub end_us: u64,
    /// Retransmitted segments in the period.
    pub rexmits: u64,
}

#[derive(Debug, Default)]
pub struct LossTracker {
    open: Option<LossPeriod>,
    pub periods: Vec<LossPeriod>,
}

impl LossTracker {
    /// A data-bearing segment was sent: `retransmitted` if any of its bytes
    /// had been sent before, `new_data` if any had not.
    pub fn on_segment(&mut self, now: u64, retransmitted: bool, new_data: bool) {
        if retransmitted {
            match &mut self.open {
                Some(p) => {
                    p.end_us = now;
                    p.rexmits += 1;
                }
                None => self.open = Some(LossPeriod { start_us: now, end_us: now, rexmits: 1 }),
            }
        }
        if new_data {
            self.close();
        }
    }

    pub fn close(&mut self) {
        if let Some(p) = self.open.take() {
            self.periods.push(p);
        }
    }
}

/// Complementary CDF of retransmissions per loss period: for each observed
/// count k, the fraction of periods with at least k retransmissions
/// (P[X >= k], the form of the paper's Fig. 6(b)).
pub fn ccdf(periods: &[LossPeriod]) -> Vec<(u64, f64)> {
    let mut counts: Vec<u64> = periods.iter().map(|p| p.rexmits).collect();
    counts.sort_unstable();
    let n = counts.len() as f64;
    let mut out = Vec::new();
    let mut i = 0;
    while i < counts.len() {
        let k = counts[i];
        out.push((k, (counts.len() - i) as f64 / n));
        while i < counts.len() && counts[i] == k {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_split_by_new_data() {
        let mut t = LossTracker::default();
        t.on_segment(1, false, true);
        t.on_segment(2, true, false);
        t.on_segment(3, true, false);
        t.on_segment(4, false, true);
        t.on_segment(5, true, false);
        t.on_segment(6, true, true); // partial retransmission with new data
        t.close();
        assert_eq!(
            t.periods,
            vec![
                LossPeriod { start_us: 2, end_us: 3, rexmits: 2 },
                LossPeriod { start_us: 5, end_us: 6, rexmits: 2 }
            ]
        );
        let c = ccdf(&[
            LossPeriod { start_us: 0, end_us: 0, rexmits: 1 },
            LossPeriod { start_us: 0, end_us: 0, rexmits: 1 },
            LossPeriod { start_us: 0, end_us: 0, rexmits: 3 },
            LossPeriod { start_us: 0, end_us: 0, rexmits: 4 },
        ]);
        assert_eq!(c, vec![(1, 1.0), (3, 0.5), (4, 0.25)]);
    }
}
