//! Channel statistics of seed 000 section 5, whole-trace and per window.
//!
//! - mean and standard deviation of the DRC rate, modal state and fraction;
//! - entropy of the DRC distribution (eq. 1);
//! - sojourn (run) times: overall mean, per state observed, per state from
//!   the one-step Markov fit 1/(1-p_ii), and their relative error (eq. 4);
//! - normalised conditional entropy H(X_i | X_{i-1..i-n}) / H(X) for
//!   n = 1..=max_order (eq. 3, Fig. 5 left/middle);
//! - normalised H(X_{i+d} | X_i) / H(X_{i+d}) for d = 1..=max_lag (Fig. 5 right);
//! - SINR-rate correlation per slot (when SINR is present).
//!
//! Note on eq. 4: with the maximum-likelihood one-step fit, p_ii is the
//! number of self-transitions over the number of slots in state i, so
//! 1/(1-p_ii) is the slots in i over the exits from i, which is the observed
//! mean run length except for a run cut by the trace's end. The RMSE is small
//! by construction for any sequence, Markov or not; seed 000's values
//! (< 1e-2, Fig. 4 right) say as much about the estimator as the channel.

pub mod entropy;
pub mod lag;
pub mod runs;

use crate::channel::drc::{NUM_DRC, RATE_BPS};
use serde::Serialize;

#[derive(Clone, Debug)]
pub struct StatsConfig {
    pub max_order: usize,
    pub max_lag: usize,
}

impl Default for StatsConfig {
    fn default() -> Self {
        Self { max_order: 4, max_lag: 200 }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Stats {
    pub slots: u64,
    pub mean_bps: f64,
    pub std_bps: f64,
    pub modal_state: u8,
    pub modal_fraction: f64,
    pub entropy_bits: f64,
    pub state_fraction: Vec<f64>,
    /// Slots / runs: the mean time in any state.
    pub mean_sojourn_slots: f64,
    /// Observed mean run length per state (NaN where the state never occurs).
    pub sojourn_observed: Vec<f64>,
    /// 1 / (1 - p_ii) of the one-step fit (NaN where never left or never seen).
    pub sojourn_analytic: Vec<f64>,
    /// Eq. 4, averaged over the states where both sojourns are finite.
    pub sojourn_rmse: f64,
    /// n = 1..=max_order.
    pub cond_entropy: Vec<f64>,
    /// d = 1..=max_lag.
    pub lag_entropy: Vec<f64>,
    pub sinr_mean_db: Option<f64>,
    pub sinr_rate_corr: Option<f64>,
}

pub fn compute(drc: &[u8], sinr: Option<&[f32]>, cfg: &StatsConfig) -> Stats {
    let n = drc.len() as u64;
    let runs = runs::encode(drc);
    let mut count = [0u64; NUM_DRC];
    let mut nruns = [0u64; NUM_DRC];
    for r in &runs {
        count[r.state as usize] += r.len;
        nruns[r.state as usize] += 1;
    }
    let nf = n.max(1) as f64;
    let mean = (0..NUM_DRC).map(|i| count[i] as f64 * RATE_BPS[i] as f64).sum::<f64>() / nf;
    let var = (0..NUM_DRC).map(|i| count[i] as f64 * (RATE_BPS[i] as f64 - mean).powi(2)).sum::<f64>() / nf;
    let modal = (0..NUM_DRC).max_by_key(|&i| (count[i], std::cmp::Reverse(i))).unwrap();
    // One-step fit: exits from i = slots in i (excluding the last slot) - self transitions.
    let last = drc.last().map(|&d| d as usize);
    let mut sojourn_obs = vec![f64::NAN; NUM_DRC];
    let mut sojourn_an = vec![f64::NAN; NUM_DRC];
    let (mut rmse, mut k) = (0.0, 0);
    for i in 0..NUM_DRC {
        if nruns[i] == 0 {
            continue;
        }
        sojourn_obs[i] = count[i] as f64 / nruns[i] as f64;
        let from_i = count[i] - (last == Some(i)) as u64;
        let self_tr = count[i] - nruns[i];
        let exits = from_i - self_tr;
        if exits > 0 {
            sojourn_an[i] = from_i as f64 / exits as f64; // 1 / (1 - self_tr/from_i)
            rmse += ((sojourn_obs[i] - sojourn_an[i]) / sojourn_an[i]).abs();
            k += 1;
        }
    }
    let (sinr_mean_db, sinr_rate_corr) = match sinr {
        Some(s) if !s.is_empty() => {
            let (m, c) = sinr_corr(drc, s);
            (Some(m), c)
        }
        _ => (None, None),
    };
    Stats {
        slots: n,
        mean_bps: mean,
        std_bps: var.sqrt(),
        modal_state: modal as u8,
        modal_fraction: count[modal] as f64 / nf,
        entropy_bits: entropy::entropy(count),
        state_fraction: count.iter().map(|&c| c as f64 / nf).collect(),
        mean_sojourn_slots: n as f64 / runs.len().max(1) as f64,
        sojourn_observed: sojourn_obs,
        sojourn_analytic: sojourn_an,
        sojourn_rmse: if k > 0 { rmse / k as f64 } else { f64::NAN },
        cond_entropy: entropy::conditional_entropies(drc, &runs, cfg.max_order),
        lag_entropy: lag::lag_entropies(&runs, cfg.max_lag),
        sinr_mean_db,
        sinr_rate_corr,
    }
}

/// Mean SINR and the Pearson correlation of SINR (dB) with the DRC rate.
fn sinr_corr(drc: &[u8], s: &[f32]) -> (f64, Option<f64>) {
    let n = drc.len().min(s.len()) as f64;
    let (mut sx, mut sy, mut sxx, mut syy, mut sxy) = (0.0, 0.0, 0.0, 0.0, 0.0);
    // Accumulate in f64 blocks of f32 sums: exact enough, and vectorisable.
    for (dc, sc) in drc.chunks(4096).zip(s.chunks(4096)) {
        let (mut a, mut b, mut aa, mut bb, mut ab) = (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
        for (&d, &x) in dc.iter().zip(sc) {
            let y = RATE_BPS[d as usize] as f64 * 1e-6;
            let x = x as f64;
            a += x;
            b += y;
            aa += x * x;
            bb += y * y;
            ab += x * y;
        }
        sx += a;
        sy += b;
        sxx += aa;
        syy += bb;
        sxy += ab;
    }
    let (mx, my) = (sx / n, sy / n);
    let cov = sxy / n - mx * my;
    let (vx, vy) = (sxx / n - mx * mx, syy / n - my * my);
    let c = if vx > 0.0 && vy > 0.0 { Some(cov / (vx * vy).sqrt()) } else { None };
    (mx, c)
}

/// Statistics of consecutive windows of `window` slots (the last one may be shorter;
/// a last window shorter than half a window is dropped).
pub fn compute_windows(drc: &[u8], sinr: Option<&[f32]>, window: usize, cfg: &StatsConfig) -> Vec<Stats> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < drc.len() {
        let end = (at + window).min(drc.len());
        if end - at < window / 2 && at > 0 {
            break;
        }
        out.push(compute(&drc[at..end], sinr.map(|s| &s[at..end]), cfg));
        at = end;
    }
    out
}

/// Correlation across windows of mean SINR with mean DRC rate: the long
/// time-scale SINR-DRC agreement of seed 000 section 5.1.1 (> 0.98 hourly).
pub fn window_mean_corr(windows: &[Stats]) -> Option<f64> {
    let pts: Vec<(f64, f64)> = windows.iter().filter_map(|w| Some((w.sinr_mean_db?, w.mean_bps))).collect();
    if pts.len() < 3 {
        return None;
    }
    let n = pts.len() as f64;
    let (mx, my) = (pts.iter().map(|p| p.0).sum::<f64>() / n, pts.iter().map(|p| p.1).sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (x, y) in &pts {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

#[cfg(test)]
mod tests;
