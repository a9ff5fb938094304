//! RBSMQ, receiver-based stable and minimum queueing (Jung, Chun, Kim and
//! Yoo, "Receiver Based Stable and Minimum Queueing Policy for TCP in
//! CDMA2000-1X"; Jung et al. §IV). The receiver times the gaps between arriving
//! data segments and steers the sender through its advertised window, so the
//! base station's per-mobile queue stays short without touching the sender.
//!
//! Per arriving data segment, with `iat` the time since the previous one:
//! - `iat` inside the short-time boundary `[0, s_base + s_var)`: a segment
//!   that waited in the base-station queue and followed its predecessor
//!   back to back. `s_base = 7/8 s_base + 1/8 iat`,
//!   `s_var = 3/4 s_var + 1/4 |s_var − s_base|`.
//! - else inside the long-time boundary `[0, l_base + l_var)`: a gap set by
//!   the sender (the queue had run dry); the long base and variance move the
//!   same way.
//! - else filtered out: neither base moves (a delay spike).
//! - β = ⌊l_base / s_base⌋ unless a fixed beta is configured.
//! - n = the number of consecutive short inter-arrival times ending with this
//!   segment. n < α: window + 1 segment; n > β: window − 1; otherwise hold.
//! - A new connection resets both bases (and their variances) to the initial
//!   values.
//!
//! Where the paper is silent or self-contradictory, this file chooses:
//! - The variance update is the printed `|s_var − s_base|` (with the base
//!   just updated, in the printed order), not RFC 6298's `|iat − base|`. Its
//!   fixed point for any input is var = base/2, so each boundary settles at
//!   1.5 × its base: a fixed relative tolerance rather than a measured spread.
//! - A reset sets each variance to half its base: RFC 6298 §2.2's first-sample
//!   rule and the printed recursion's fixed point, so a fresh boundary is
//!   already 1.5 × the initial base.
//! - A filtered segment takes no window step, and it ends the run (an arrival
//!   after a spike is not a continuous arrival).
//! - The first segment after a reset of the arrival clock (none before) starts
//!   a run of 0, like a segment after a long gap.
//! - β below α would make the +1 and −1 rules overlap; β is raised to α then.
//! - Estimator scope (`RbsmqScope`): by default one estimator per receiving
//!   host, shared by its RBSMQ connections. The paper runs RBSMQ in the
//!   phone's own stack, and what the short inter-arrival times measure is the
//!   base station's queue for that mobile, which all of its connections share;
//!   the paper also resets the bases "due to packets for the new connection",
//!   which only matters if a running estimator sees them. Each connection
//!   keeps its own window, stepped by its own segments against the shared run
//!   and β. `scope = "connection"` gives each connection its own estimator.

use super::RwndPolicy;
use crate::engine::Time;
use std::cell::RefCell;
use std::rc::Rc;
use serde::{Deserialize, Serialize};

/// RBSMQ (Jung et al. §IV). Windows are in segments of the connection's MSS.
/// The defaults are justified in docs/tcp.md (## RBSMQ).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RbsmqParams {
    /// Runs of short inter-arrival times shorter than alpha grow the window by one.
    pub alpha: u32,
    /// Runs longer than beta shrink it by one; None: beta is the quotient
    /// longtime_base / shorttime_base, as the paper defines it.
    pub beta: Option<u32>,
    /// Weight of the old base (7/8) and of the old variance (3/4).
    pub base_gain: f64,
    pub variance_gain: f64,
    /// Starting values of the bases after a reset. Each base adapts freely
    /// downwards but only slowly upwards (a sample beyond its boundary is not
    /// taken), so these must lie above the values to be learnt.
    pub initial_short_base: Time,
    pub initial_long_base: Time,
    /// Window at the start of a connection, and its bounds (segments). A
    /// decrease phase lasts until the receiver sees the queue run dry, one
    /// RTT after the sender went quiet, so it ends at min_window: the floor
    /// should cover the path's bandwidth-delay product (5 × 1500 B on 1X).
    pub initial_window: u32,
    pub min_window: u32,
    pub max_window: u32,
    /// Whether the inter-arrival estimator belongs to each connection or is
    /// shared by all RBSMQ connections arriving at the same node.
    pub scope: RbsmqScope,
}

impl Default for RbsmqParams {
    fn default() -> Self {
        Self {
            alpha: 3,
            beta: None,
            base_gain: 0.875,
            variance_gain: 0.75,
            initial_short_base: 200 * crate::engine::NS_PER_MS,
            initial_long_base: crate::engine::NS_PER_SEC,
            initial_window: 5,
            min_window: 5,
            max_window: 64,
            scope: RbsmqScope::Host,
        }
    }
}

/// Who owns RBSMQ's inter-arrival estimator (bases, variances, run count).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RbsmqScope {
    /// One estimator per receiving node: every data segment arriving there
    /// (of any RBSMQ connection with the same parameters) is one arrival.
    Host,
    /// One estimator per connection: only its own segments count.
    Connection,
}


/// One base with its variance; the boundary is `[0, base + variance)`. Nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Band {
    pub base: f64,
    pub variance: f64,
}

impl Band {
    fn initial(base: Time) -> Self {
        Band { base: base.0 as f64, variance: base.0 as f64 / 2.0 }
    }

    pub fn contains(&self, iat: f64) -> bool {
        iat < self.base + self.variance
    }

    /// Jung et al. §IV's two update equations, in the printed order.
    fn update(&mut self, iat: f64, base_gain: f64, variance_gain: f64) {
        self.base = base_gain * self.base + (1.0 - base_gain) * iat;
        // As printed: |s_variance − shorttime_base|, not |iat − base|.
        self.variance = variance_gain * self.variance + (1.0 - variance_gain) * (self.variance - self.base).abs();
    }
}

/// How one arrival was classified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// No earlier arrival to measure a gap from.
    First,
    Short,
    Long,
    Filtered,
}

/// The inter-arrival estimator: both bands, the arrival clock and the run
/// of consecutive short inter-arrival times.
#[derive(Clone, Debug)]
pub struct Estimator {
    p: RbsmqParams,
    pub short: Band,
    pub long: Band,
    last: Option<Time>,
    pub run: u32,
}

impl Estimator {
    pub fn new(p: RbsmqParams) -> Self {
        Estimator { p, short: Band::initial(p.initial_short_base), long: Band::initial(p.initial_long_base), last: None, run: 0 }
    }

    /// A new connection: both bases (and variances) back to their initial values.
    pub fn reset(&mut self) {
        self.short = Band::initial(self.p.initial_short_base);
        self.long = Band::initial(self.p.initial_long_base);
    }

    /// A data segment arrived at `now`: classify its gap, update the band it
    /// falls in and the run.
    pub fn observe(&mut self, now: Time) -> Arrival {
        let prev = self.last.replace(now);
        let Some(prev) = prev else {
            self.run = 0;
            return Arrival::First;
        };
        let iat = now.saturating_sub(prev).0 as f64;
        let (bg, vg) = (self.p.base_gain, self.p.variance_gain);
        if self.short.contains(iat) {
            self.short.update(iat, bg, vg);
            self.run += 1;
            Arrival::Short
        } else if self.long.contains(iat) {
            self.long.update(iat, bg, vg);
            self.run = 0;
            Arrival::Long
        } else {
            self.run = 0;
            Arrival::Filtered
        }
    }

    /// β: the configured value, or ⌊longtime_base / shorttime_base⌋; never below α.
    pub fn beta(&self) -> u32 {
        let b = self.p.beta.unwrap_or_else(|| (self.long.base / self.short.base.max(1.0)).floor().min(u32::MAX as f64) as u32);
        b.max(self.p.alpha)
    }
}

/// The window step for a segment that ends a run of `n` short inter-arrivals.
pub fn step(n: u32, alpha: u32, beta: u32) -> i32 {
    if n < alpha {
        1
    } else if n > beta {
        -1
    } else {
        0
    }
}

/// The policy of one connection: its window, and the estimator it uses
/// (its own, or its host's).
pub struct Rbsmq {
    p: RbsmqParams,
    mss: u64,
    /// Advertised window in segments, within [min_window, max_window].
    window: u32,
    est: Rc<RefCell<Estimator>>,
}

impl Rbsmq {
    /// With an estimator of its own.
    pub fn new(p: RbsmqParams, mss: u32) -> Self {
        Self::sharing(p, mss, Rc::new(RefCell::new(Estimator::new(p))))
    }

    /// With an estimator shared with other connections.
    pub fn sharing(p: RbsmqParams, mss: u32, est: Rc<RefCell<Estimator>>) -> Self {
        Rbsmq { p, mss: mss as u64, window: p.initial_window, est }
    }

    pub fn window_segments(&self) -> u32 {
        self.window
    }
}

impl RwndPolicy for Rbsmq {
    fn name(&self) -> &'static str {
        "rbsmq"
    }

    fn on_connection(&mut self, _now: Time) {
        self.est.borrow_mut().reset();
        self.window = self.p.initial_window;
    }

    fn on_segment(&mut self, now: Time, _seq: u64, len: u32) {
        if len == 0 {
            return;
        }
        let mut e = self.est.borrow_mut();
        if e.observe(now) == Arrival::Filtered {
            return;
        }
        let w = self.window as i64 + step(e.run, self.p.alpha, e.beta()) as i64;
        self.window = w.clamp(self.p.min_window as i64, self.p.max_window as i64) as u32;
    }

    fn window(&mut self, _now: Time, free_space: u64) -> u64 {
        (self.window as u64 * self.mss).min(free_space)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_MS;

    const MS: f64 = NS_PER_MS.0 as f64;

    fn params() -> RbsmqParams {
        RbsmqParams {
            alpha: 3,
            beta: None,
            base_gain: 0.875,
            variance_gain: 0.75,
            initial_short_base: 200 * NS_PER_MS,
            initial_long_base: 1000 * NS_PER_MS,
            initial_window: 10,
            min_window: 2,
            max_window: 64,
            scope: RbsmqScope::Connection,
        }
    }

    /// Feed arrivals at these gaps (ms) after a first arrival at t = 0.
    fn feed(e: &mut Estimator, gaps_ms: &[f64]) -> Vec<Arrival> {
        let mut t = Time::ZERO;
        let mut out = vec![e.observe(t)];
        for g in gaps_ms {
            t += Time((g * MS) as u64);
            out.push(e.observe(t));
        }
        out
    }

    #[test]
    fn short_base_converges_geometrically_and_variance_to_half_the_base() {
        // Constant 78 ms gaps (a 1500 B packet at 153.6 kb/s) starting from a
        // 200 ms base: base_n = 78 + (200 − 78)(7/8)^n exactly (EWMA closed form).
        let mut e = Estimator::new(params());
        let n = 60;
        let kinds = feed(&mut e, &vec![78.0; n]);
        assert!(kinds[1..].iter().all(|k| *k == Arrival::Short));
        let expect = 78.0 + 122.0 * 0.875f64.powi(n as i32);
        assert!((e.short.base / MS - expect).abs() < 1e-6, "{} vs {expect}", e.short.base / MS);
        // The printed recursion v = 3/4 v + 1/4 |v − b| has its fixed point at
        // v = b/2 whatever the input: after 60 steps within 1 %.
        assert!((e.short.variance / e.short.base - 0.5).abs() < 0.01, "variance {}", e.short.variance / MS);
        assert_eq!(e.run, n as u32);
        // The long band saw nothing.
        assert_eq!(e.long, Band::initial(1000 * NS_PER_MS));
    }

    #[test]
    fn printed_variance_is_not_the_mean_deviation() {
        // Gaps exactly at the base: |iat − base| would be 0 and the RFC 6298
        // form would shrink the variance to 0; the printed form keeps base/2.
        let mut e = Estimator::new(params());
        feed(&mut e, &vec![200.0; 40]);
        assert!((e.short.base / MS - 200.0).abs() < 1e-9);
        assert!((e.short.variance / MS - 100.0).abs() < 1e-6, "{}", e.short.variance / MS);
    }

    #[test]
    fn boundaries_classify_and_filter() {
        // Fresh bands: short [0, 200 + 100) ms, long [0, 1000 + 500) ms.
        use Arrival::*;
        for (gap, kind) in [(299.0, Short), (301.0, Long), (1499.0, Long), (1501.0, Filtered)] {
            assert_eq!(feed(&mut Estimator::new(params()), &[gap])[1], kind, "gap {gap} ms");
        }
        // A sequence: 299 ms moves the short band to base 7/8·200 + 1/8·299 and
        // variance 3/4·100 + 1/4·|100 − base|; 400 ms then is long; 5 s is
        // filtered and leaves both bands alone.
        let mut e = Estimator::new(params());
        let kinds = feed(&mut e, &[299.0, 400.0, 5000.0]);
        assert_eq!(kinds, vec![First, Short, Long, Filtered]);
        let sb: f64 = 175.0 + 299.0 / 8.0;
        let sv = 75.0 + (100.0 - sb).abs() / 4.0;
        assert!((e.short.base / MS - sb).abs() < 1e-9 && (e.short.variance / MS - sv).abs() < 1e-9);
        let lb: f64 = 875.0 + 400.0 / 8.0;
        let lv = 375.0 + (500.0 - lb).abs() / 4.0;
        assert!((e.long.base / MS - lb).abs() < 1e-9 && (e.long.variance / MS - lv).abs() < 1e-9);
        assert_eq!(e.run, 0);
    }

    #[test]
    fn reset_restores_the_initial_bands() {
        let mut e = Estimator::new(params());
        feed(&mut e, &[50.0, 50.0, 400.0, 50.0]);
        assert_ne!(e.short, Band::initial(200 * NS_PER_MS));
        e.reset();
        assert_eq!(e.short, Band::initial(200 * NS_PER_MS));
        assert_eq!(e.long, Band::initial(1000 * NS_PER_MS));
    }

    #[test]
    fn beta_is_the_quotient_of_the_bases() {
        let mut e = Estimator::new(params());
        assert_eq!(e.beta(), 5); // 1000 / 200
        // Short base down to 60 ms (+150·(7/8)^100 ≈ 2e-4 ms): β = ⌊1000 / 60⌋ = 16.
        feed(&mut e, &vec![60.0; 100]);
        assert_eq!(e.beta(), 16);
        // A fixed beta wins; a quotient below α is raised to α.
        let mut p = params();
        p.beta = Some(7);
        assert_eq!(Estimator::new(p).beta(), 7);
        p.beta = None;
        p.initial_long_base = 400 * NS_PER_MS; // 400 / 200 = 2 < α = 3
        assert_eq!(Estimator::new(p).beta(), 3);
    }

    #[test]
    fn steps_by_alpha_and_beta() {
        assert_eq!((0..10).map(|n| step(n, 3, 6)).collect::<Vec<_>>(), vec![1, 1, 1, 0, 0, 0, 0, -1, -1, -1]);
    }

    #[test]
    fn window_follows_runs_of_short_arrivals() {
        let mut p = params();
        p.beta = Some(6);
        let mut r = Rbsmq::new(p, 1000);
        r.on_connection(Time::ZERO);
        let mut t = Time::ZERO;
        let mut arrive = |r: &mut Rbsmq, gap_ms: u64| {
            t += gap_ms * NS_PER_MS;
            r.on_segment(t, 0, 1000);
            r.window_segments()
        };
        // First segment: run 0 → +1. Then 10 back-to-back (80 ms) gaps:
        // runs 1, 2 → +1; 3..6 → hold; 7..10 → −1. Window 10 → 11 → 13 → 13 → 9.
        let mut seen = vec![arrive(&mut r, 0)];
        seen.extend((0..10).map(|_| arrive(&mut r, 80)));
        assert_eq!(seen, vec![11, 12, 13, 13, 13, 13, 13, 12, 11, 10, 9]);
        // A long gap (600 ms) starts a new run: +1.
        assert_eq!(arrive(&mut r, 600), 10);
        // A spike beyond the long boundary (~1.5 × the long base) is filtered: no step, run ends.
        assert_eq!(arrive(&mut r, 5000), 10);
        assert_eq!(arrive(&mut r, 80), 11); // run 1 < α
        // Pure ACKs (no payload) are not arrivals.
        r.on_segment(t + Time(1), 0, 0);
        assert_eq!(r.est.borrow().run, 1);
    }

    #[test]
    fn window_is_bounded_by_its_limits_and_the_free_buffer() {
        let mut p = params();
        p.beta = Some(3);
        p.initial_window = 3;
        p.min_window = 2;
        p.max_window = 5;
        let mut r = Rbsmq::new(p, 1000);
        let mut t = Time::ZERO;
        for _ in 0..20 {
            t += 80 * NS_PER_MS;
            r.on_segment(t, 0, 1000);
        }
        assert_eq!(r.window_segments(), 2, "long run: down to min_window");
        for _ in 0..10 {
            t += 600 * NS_PER_MS; // every segment after a long gap: +1
            r.on_segment(t, 0, 1000);
        }
        assert_eq!(r.window_segments(), 5, "up to max_window");
        assert_eq!(r.window(t, 1_000_000), 5000);
        assert_eq!(r.window(t, 3500), 3500, "never more than the free buffer");
        r.on_connection(t);
        assert_eq!(r.window_segments(), 3);
    }

    #[test]
    fn connections_on_one_host_share_the_run() {
        let mut p = params();
        p.beta = Some(5);
        let est = Rc::new(RefCell::new(Estimator::new(p)));
        let mut a = Rbsmq::sharing(p, 1000, est.clone());
        let mut b = Rbsmq::sharing(p, 1000, est.clone());
        // Interleaved back-to-back arrivals of both connections form one run.
        for i in 0..8u64 {
            let r = if i % 2 == 0 { &mut a } else { &mut b };
            r.on_segment(i * 80 * NS_PER_MS, 0, 1000);
        }
        assert_eq!(est.borrow().run, 7);
        // a had runs 0, 2, 4, 6: +1 +1 hold −1; b had 1, 3, 5, 7: +1 hold hold −1.
        assert_eq!((a.window_segments(), b.window_segments()), (11, 10));
        // A new connection on the host resets the shared bases.
        b.on_connection(Time::ZERO);
        assert_eq!(a.est.borrow().short, Band::initial(200 * NS_PER_MS));
    }
}
