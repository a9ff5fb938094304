//! Normalised lagged conditional entropy H(X_{i+d} | X_i) / H(X_{i+d}) for
//! d = 1..=D (Liu et al. Fig. 5 right), from runs.
//!
//! For two runs A = [s1, s1+L1) and B = [s2, s2+L2) the number of pairs
//! (i in A, i+d in B) is the convolution of two boxes, a trapezoid in d whose
//! second difference is four unit impulses: +1 at d0 = s2-(s1+L1)+1, -1 at
//! d0+L1 and at d0+L2, +1 at d0+L1+L2. Adding the impulses of every pair of
//! runs less than D slots apart into a [15][15][D] array and summing twice
//! gives every lag's joint counts at once, in O(runs x runs within D)
//! instead of O(N x D). Pairs inside one run (L - d of them) are added from
//! the run-length histogram.

use super::entropy::entropy;
use super::runs::Run;
use crate::channel::drc::NUM_DRC;
use std::collections::VecDeque;

/// The lagged joint counts of a sequence fed run by run: the second
/// differences of every pair of runs less than `max_lag` apart, and the
/// run-length histogram for the pairs inside one run. Memory is the
/// [15][15][D] array and the runs of the last D slots.
pub struct LagCounts {
    max_lag: usize,
    /// Second differences, indexed [a][b][d].
    dd: Vec<i64>,
    /// Runs whose end is within `max_lag` slots of the next run's start.
    recent: VecDeque<Run>,
    /// Runs with L = l (l <= max_lag), and longer ones in `max_lag + 1`.
    len_hist: Vec<[u64; NUM_DRC]>,
    /// Total length of the runs longer than `max_lag`, per state.
    long_len: [u64; NUM_DRC],
}

impl LagCounts {
    pub fn new(max_lag: usize) -> Self {
        Self {
            max_lag,
            dd: vec![0i64; NUM_DRC * NUM_DRC * (max_lag + 2)],
            recent: VecDeque::new(),
            len_hist: vec![[0u64; NUM_DRC]; max_lag + 2],
            long_len: [0u64; NUM_DRC],
        }
    }

    /// The next run of the sequence (runs come in order, back to back).
    pub fn add_run(&mut self, r2: Run) {
        let (max_lag, dl) = (self.max_lag, self.max_lag + 2);
        // Earlier runs that no later run can reach either.
        while self.recent.front().is_some_and(|r1| (r2.start - (r1.start + r1.len) + 1) as usize > max_lag) {
            self.recent.pop_front();
        }
        for r1 in &self.recent {
            let d0 = (r2.start - (r1.start + r1.len) + 1) as usize;
            let row = &mut self.dd[(r1.state as usize * NUM_DRC + r2.state as usize) * dl..][..dl];
            row[d0] += 1;
            let (l1, l2) = (r1.len as usize, r2.len as usize);
            if d0 + l1 <= max_lag {
                row[d0 + l1] -= 1;
            }
            if d0 + l2 <= max_lag {
                row[d0 + l2] -= 1;
            }
            if d0 + l1 + l2 <= max_lag {
                row[d0 + l1 + l2] += 1;
            }
        }
        self.recent.push_back(r2);
        let l = r2.len as usize;
        if l > max_lag {
            self.len_hist[max_lag + 1][r2.state as usize] += 1;
            self.long_len[r2.state as usize] += r2.len;
        } else {
            self.len_hist[l][r2.state as usize] += 1;
        }
    }

    /// Joint counts c[d][a][b] = #{i : X_i = a, X_{i+d} = b}, d = 1..=max_lag (index d-1).
    pub fn joint_counts(&self) -> Vec<[[u64; NUM_DRC]; NUM_DRC]> {
        let (max_lag, dl) = (self.max_lag, self.max_lag + 2);
        let mut out = vec![[[0u64; NUM_DRC]; NUM_DRC]; max_lag];
        for a in 0..NUM_DRC {
            for b in 0..NUM_DRC {
                let row = &self.dd[(a * NUM_DRC + b) * dl..][..dl];
                let (mut first, mut val) = (0i64, 0i64);
                for d in 1..=max_lag {
                    first += row[d];
                    val += first;
                    out[d - 1][a][b] = val as u64;
                }
            }
            // Within-run pairs: sum over runs of max(L - d, 0) = S_len(d) -
            // d * S_cnt(d) over runs with L > d, by descending d.
            let (mut cnt, mut sum) = (self.len_hist[max_lag + 1][a], self.long_len[a]);
            for d in (1..=max_lag).rev() {
                // runs with L = d+1 join when we step down to d
                if d < max_lag {
                    cnt += self.len_hist[d + 1][a];
                    sum += (d as u64 + 1) * self.len_hist[d + 1][a];
                }
                out[d - 1][a][a] += sum - d as u64 * cnt;
            }
        }
        out
    }

    /// H(X_{i+d} | X_i) / H(X_{i+d}) for d = 1..=max_lag.
    pub fn entropies(&self) -> Vec<f64> {
        self.joint_counts()
            .iter()
            .map(|j| {
                let hj = entropy(j.iter().flat_map(|r| r.iter().copied()));
                let hx = entropy((0..NUM_DRC).map(|a| j[a].iter().sum::<u64>()));
                let hy = entropy((0..NUM_DRC).map(|b| (0..NUM_DRC).map(|a| j[a][b]).sum::<u64>()));
                if hy > 0.0 {
                    (hj - hx) / hy
                } else {
                    f64::NAN
                }
            })
            .collect()
    }
}

/// Joint counts c[d][a][b] of a run-length encoded sequence (LagCounts fed every run).
#[cfg(test)]
pub fn lagged_joint_counts(runs: &[Run], max_lag: usize) -> Vec<[[u64; NUM_DRC]; NUM_DRC]> {
    let mut c = LagCounts::new(max_lag);
    for &r in runs {
        c.add_run(r);
    }
    c.joint_counts()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::stats::runs::encode;
    use crate::engine::Rng;

    #[test]
    fn matches_direct_pair_counting() {
        let mut rng = Rng::from_seed(11);
        let mut x = Vec::new();
        while x.len() < 5000 {
            let v = rng.below(15) as u8;
            let cap = if rng.bernoulli(0.2) { 80 } else { 6 };
            let l = 1 + rng.below(cap) as usize;
            x.extend(std::iter::repeat(v).take(l));
        }
        let runs = encode(&x);
        let d_max = 40;
        let fast = lagged_joint_counts(&runs, d_max);
        for d in 1..=d_max {
            let mut c = [[0u64; NUM_DRC]; NUM_DRC];
            for i in 0..x.len() - d {
                c[x[i] as usize][x[i + d] as usize] += 1;
            }
            assert_eq!(fast[d - 1], c, "lag {d}");
        }
    }
}
