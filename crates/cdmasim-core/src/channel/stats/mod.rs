//! Channel statistics of Liu et al. section 5, whole-trace and per window.
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
//! by construction for any sequence, Markov or not; Liu et al.'s values
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

/// Statistics of a whole sequence (one `Accumulator` fed everything).
pub fn compute(drc: &[u8], sinr: Option<&[f32]>, cfg: &StatsConfig) -> Stats {
    let mut a = Accumulator::new(cfg.clone());
    a.push(drc, sinr);
    a.finish()
}

/// Statistics of consecutive windows of `window` slots (the last one may be shorter;
/// a last window shorter than half a window is dropped).
pub fn compute_windows(drc: &[u8], sinr: Option<&[f32]>, window: usize, cfg: &StatsConfig) -> Vec<Stats> {
    let mut w = Windows::new(window as u64, cfg.clone());
    w.push(drc, sinr);
    w.finish()
}

/// The statistics of a sequence fed in pieces of any size, in order: what
/// it keeps is bounded by the configuration (the 5-gram table, the lag
/// array and the runs of the last `max_lag` slots), not by the sequence's
/// length, so a day of slots streams from its file. Any split of the same
/// sequence gives bit-identical statistics.
pub struct Accumulator {
    cfg: StatsConfig,
    slots: u64,
    /// Slots and completed-or-current runs per state.
    count: [u64; NUM_DRC],
    nruns: [u64; NUM_DRC],
    runs: u64,
    /// The run still growing at the end of what was pushed: (state, start, len).
    current: Option<(u8, u64, u64)>,
    ngrams: entropy::NGrams,
    lags: lag::LagCounts,
    sinr: Option<SinrSums>,
}

impl Accumulator {
    pub fn new(cfg: StatsConfig) -> Self {
        let lags = lag::LagCounts::new(cfg.max_lag);
        Self { cfg, slots: 0, count: [0; NUM_DRC], nruns: [0; NUM_DRC], runs: 0, current: None, ngrams: entropy::NGrams::default(), lags, sinr: None }
    }

    /// The next `drc.len()` slots (and their SINR, for every piece or none).
    pub fn push(&mut self, drc: &[u8], sinr: Option<&[f32]>) {
        if let Some(s) = sinr {
            self.sinr.get_or_insert_with(SinrSums::default).push(drc, s);
        }
        let base = self.slots;
        runs::split(drc, |state, start, len| match &mut self.current {
            // The run the last piece ended in goes on.
            Some((v, _, l)) if *v == state => *l += len as u64,
            _ => {
                self.end_run();
                self.current = Some((state, base + start as u64, len as u64));
            }
        });
        self.slots += drc.len() as u64;
    }

    fn end_run(&mut self) {
        if let Some((state, start, len)) = self.current.take() {
            self.count[state as usize] += len;
            self.nruns[state as usize] += 1;
            self.runs += 1;
            if self.cfg.max_order > 0 {
                self.ngrams.add_run(state, start, len);
            }
            self.lags.add_run(runs::Run { state, start, len });
        }
    }

    pub fn slots(&self) -> u64 {
        self.slots
    }

    pub fn finish(mut self) -> Stats {
        let last = self.current.map(|(v, _, _)| v as usize);
        self.end_run();
        let (n, count, nruns) = (self.slots, self.count, self.nruns);
        let nf = n.max(1) as f64;
        let mean = (0..NUM_DRC).map(|i| count[i] as f64 * RATE_BPS[i] as f64).sum::<f64>() / nf;
        let var = (0..NUM_DRC).map(|i| count[i] as f64 * (RATE_BPS[i] as f64 - mean).powi(2)).sum::<f64>() / nf;
        let modal = (0..NUM_DRC).max_by_key(|&i| (count[i], std::cmp::Reverse(i))).unwrap();
        // One-step fit: exits from i = slots in i (excluding the last slot) - self transitions.
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
        let (sinr_mean_db, sinr_rate_corr) = match self.sinr {
            Some(s) if s.n > 0 => {
                let (m, c) = s.finish();
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
            mean_sojourn_slots: n as f64 / self.runs.max(1) as f64,
            sojourn_observed: sojourn_obs,
            sojourn_analytic: sojourn_an,
            sojourn_rmse: if k > 0 { rmse / k as f64 } else { f64::NAN },
            cond_entropy: self.ngrams.conditional_entropies(n, self.cfg.max_order),
            lag_entropy: self.lags.entropies(),
            sinr_mean_db,
            sinr_rate_corr,
        }
    }
}

/// Sums for the mean SINR and the Pearson correlation of SINR (dB) with the
/// DRC rate, accumulated in f64 over blocks of 4096 slots counted from the
/// sequence's start (exact enough, vectorisable, and the same whatever the
/// pieces the sequence arrives in).
#[derive(Default)]
struct SinrSums {
    total: [f64; 5],
    block: [f64; 5],
    in_block: usize,
    n: u64,
}

const SINR_BLOCK: usize = 4096;

impl SinrSums {
    fn push(&mut self, drc: &[u8], s: &[f32]) {
        let mut at = 0;
        let n = drc.len().min(s.len());
        while at < n {
            let take = (SINR_BLOCK - self.in_block).min(n - at);
            let [mut a, mut b, mut aa, mut bb, mut ab] = self.block;
            for (&d, &x) in drc[at..at + take].iter().zip(&s[at..at + take]) {
                let y = RATE_BPS[d as usize] as f64 * 1e-6;
                let x = x as f64;
                a += x;
                b += y;
                aa += x * x;
                bb += y * y;
                ab += x * y;
            }
            self.block = [a, b, aa, bb, ab];
            self.in_block += take;
            at += take;
            if self.in_block == SINR_BLOCK {
                self.flush();
            }
        }
        self.n += n as u64;
    }

    fn flush(&mut self) {
        for (t, b) in self.total.iter_mut().zip(&mut self.block) {
            *t += *b;
            *b = 0.0;
        }
        self.in_block = 0;
    }

    /// (mean SINR, correlation; None when either is constant).
    fn finish(mut self) -> (f64, Option<f64>) {
        self.flush();
        let n = self.n as f64;
        let [sx, sy, sxx, syy, sxy] = self.total;
        let (mx, my) = (sx / n, sy / n);
        let cov = sxy / n - mx * my;
        let (vx, vy) = (sxx / n - mx * mx, syy / n - my * my);
        let c = if vx > 0.0 && vy > 0.0 { Some(cov / (vx * vy).sqrt()) } else { None };
        (mx, c)
    }
}

/// The largest lag d of H(X_{i+d} | X_i): a lag table counts the 15 x 15
/// state pairs at every lag (about 1.9 kB a lag), so 10^5 lags take 190 MB.
pub const MAX_LAG: usize = 100_000;
/// Window lengths in one pass (each keeps its own lag table).
pub const MAX_WINDOW_LENGTHS: usize = 16;
/// The statistics of all windows together: each window keeps its lag
/// entropies and about 60 values more, and each value takes about 64 bytes
/// once it reaches Python (JSON text, then a float in a list).
const MAX_WINDOW_RESULT_BYTES: u64 = 1 << 30;

/// Whether statistics of (at most) `slots` slots, per window of each
/// length in `windows` (0: none), with `cfg`, fit the memory they are
/// allowed: checked before any table is allocated.
pub fn check_limits(slots: u64, windows: &[u64], cfg: &StatsConfig) -> Result<(), String> {
    if cfg.max_order > 4 {
        return Err(format!("max_order: {} is above 4 (conditional entropies are computed up to depth 4)", cfg.max_order));
    }
    if cfg.max_lag == 0 || cfg.max_lag > MAX_LAG {
        return Err(format!("max_lag: {} slots is outside 1 .. {MAX_LAG}", cfg.max_lag));
    }
    if windows.len() > MAX_WINDOW_LENGTHS {
        return Err(format!("window_slots: {} window lengths; at most {MAX_WINDOW_LENGTHS} in one pass", windows.len()));
    }
    let each = (cfg.max_lag as u64 + 64) * 64;
    for &w in windows.iter().filter(|&&w| w > 0) {
        let n = slots / w + 1;
        if n.saturating_mul(each) > MAX_WINDOW_RESULT_BYTES {
            return Err(format!(
                "window_slots: {n} windows of {w} slots would hold more than {} MiB of results at max_lag {}; give longer windows",
                MAX_WINDOW_RESULT_BYTES >> 20,
                cfg.max_lag
            ));
        }
    }
    Ok(())
}

/// Consecutive windows of `window` slots, fed in pieces like `Accumulator`:
/// one window's accumulator at a time.
pub struct Windows {
    window: u64,
    cfg: StatsConfig,
    current: Accumulator,
    done: Vec<Stats>,
}

impl Windows {
    pub fn new(window: u64, cfg: StatsConfig) -> Self {
        assert!(window > 0, "a window of 0 slots");
        Self { window, current: Accumulator::new(cfg.clone()), cfg, done: Vec::new() }
    }

    pub fn push(&mut self, mut drc: &[u8], mut sinr: Option<&[f32]>) {
        while !drc.is_empty() {
            let room = (self.window - self.current.slots()).min(drc.len() as u64) as usize;
            self.current.push(&drc[..room], sinr.map(|s| &s[..room.min(s.len())]));
            drc = &drc[room..];
            sinr = sinr.map(|s| &s[room.min(s.len())..]);
            if self.current.slots() == self.window {
                let full = std::mem::replace(&mut self.current, Accumulator::new(self.cfg.clone()));
                self.done.push(full.finish());
            }
        }
    }

    /// Every window's statistics; a last window shorter than half a window
    /// is dropped unless it is the only one.
    pub fn finish(mut self) -> Vec<Stats> {
        let n = self.current.slots();
        if n > 0 && (n >= self.window / 2 || self.done.is_empty()) {
            self.done.push(self.current.finish());
        }
        self.done
    }
}

/// The whole sequence's statistics and, when it is longer than one window
/// (`window` > 0), its windows': one pass over pieces pushed in order.
/// `for_windows` takes several window lengths at once (one pass, one
/// whole-sequence accumulator).
pub struct TraceStats {
    whole: Accumulator,
    /// One per window length given, in order (None for a length of 0).
    windows: Vec<Option<Windows>>,
}

impl TraceStats {
    pub fn new(window: u64, cfg: &StatsConfig) -> Self {
        Self::for_windows(&[window], cfg)
    }

    /// A window length of 0 asks for the whole sequence only.
    pub fn for_windows(windows: &[u64], cfg: &StatsConfig) -> Self {
        let windows = windows.iter().map(|&w| (w > 0).then(|| Windows::new(w, cfg.clone()))).collect();
        Self { whole: Accumulator::new(cfg.clone()), windows }
    }

    /// The accumulators are independent: pieces of a million slots or more
    /// feed the whole sequence's and the windows' on two threads (a day:
    /// 0.44 -> 0.2 s).
    pub fn push(&mut self, drc: &[u8], sinr: Option<&[f32]>) {
        let threads = drc.len() >= 1 << 20 && self.windows.iter().any(Option::is_some);
        let (whole, windows) = (&mut self.whole, &mut self.windows);
        let mut push_windows = move || windows.iter_mut().flatten().for_each(|w| w.push(drc, sinr));
        if threads {
            std::thread::scope(|s| {
                s.spawn(push_windows);
                whole.push(drc, sinr);
            });
        } else {
            whole.push(drc, sinr);
            push_windows();
        }
    }

    /// The whole sequence's statistics and its windows' (for one built
    /// with `new`: one window length).
    pub fn finish(self) -> (Stats, Vec<Stats>) {
        debug_assert!(self.windows.len() == 1, "finish_windows gives every window length's");
        let (whole, windows) = self.finish_windows();
        (whole, windows.into_iter().next().unwrap_or_default())
    }

    /// The whole sequence's statistics and, per window length given, in
    /// order, its windows' (none for a length of 0, or when the sequence
    /// is shorter than one window).
    pub fn finish_windows(self) -> (Stats, Vec<Vec<Stats>>) {
        let n = self.whole.slots();
        let windows = self
            .windows
            .into_iter()
            .map(|w| w.filter(|w| n >= w.window).map_or_else(Vec::new, Windows::finish))
            .collect();
        (self.whole.finish(), windows)
    }
}

/// Correlation across windows of mean SINR with mean DRC rate: the long
/// time-scale SINR-DRC agreement of Liu et al. section 5.1.1 (> 0.98 hourly).
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
