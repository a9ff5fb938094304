//! CUBIC (RFC 9438). The window in congestion avoidance follows
//! W_cubic(t) = C·(t − K)^3 + W_max (§4.2 eq. 1), t the time since the
//! congestion-avoidance epoch began, K = cbrt((W_max − cwnd_epoch)/C) (eq. 2;
//! with cwnd_epoch = β·W_max this is RFC 8312's cbrt(W_max(1 − β)/C)).
//! Each ACK moves cwnd towards target = W_cubic(t + RTT) bounded to
//! [cwnd, 1.5·cwnd] by (target − cwnd)/cwnd per segment acked (§4.4, §4.5),
//! unless the Reno-friendly estimate W_est is ahead of W_cubic(t) (§4.3).
//! A congestion event sets ssthresh = β·FlightSize (§4.6; the sender passes
//! FlightSize bounded by the window in force) and W_max to the window before
//! the reduction, lowered to W·(1 + β)/2 by fast convergence (§4.7).
//!
//! The RFC counts in segments and seconds; Window is in bytes: the state here
//! is in segments (bytes / SMSS as f64), cwnd changes are carried to the byte
//! with the fraction kept between ACKs.
//!
//! A flow that does not fill its window (application- or rwnd-limited, seen
//! as FlightSize before the ACK more than one segment short of cwnd) does
//! not grow it in congestion avoidance, and the epoch clock t stops
//! meanwhile (§5.8), so the curve resumes where it left off instead of
//! leaping ahead; in slow start the window grows while it is below twice
//! the FlightSize (Linux's rule).
//!
//! `linux = true` follows Linux 2.6.21's tcp_cubic.c (CUBIC 2.1, the kernel
//! of Liu et al.'s servers) where it differs from the RFC, in its integer
//! arithmetic (cwnd, W_max and the target in whole segments):
//! - the target looks ahead by the minimum RTT seen (delay_min), not SRTT
//!   (behind a standing queue the two differ by the queue's delay), and is
//!   W_max ∓ ⌊C·|t − K|³⌋;
//! - cwnd grows by one segment per `cnt` segments acked, cnt = ⌊cwnd /
//!   (target − cwnd)⌋, or 100·cwnd at or above the target; cnt is at least
//!   ⌊cwnd / (160 s⁻¹ · RTT_min)⌋ (max_increment: at most 16 segments per
//!   100 ms of RTT_min) and at least 1 (no 1.5x-per-RTT bound);
//! - while no loss has been seen since the start or the last timeout
//!   (loss_cwnd = 0), cnt is 50: 2 % growth per RTT;
//! - an epoch starting at or above W_max starts its curve there with K = 0;
//! - the Reno-friendly estimate is counted: one segment per ⌊cwnd ·
//!   beta_scale / 8⌋ ACKs, beta_scale = ⌊8 (1024 + b) / 3 / (1024 − b)⌋
//!   with b = 1024·beta (23 for beta = 0.8: with an ACK per segment 8/23 =
//!   0.348 segment per RTT, half that with delayed ACKs; never raised to
//!   1); when it is ahead, cnt shrinks to ⌊cwnd / (W_est − cwnd)⌋;
//! - ssthresh is ⌊cwnd·b/1024⌋ (not FlightSize), at least 2 segments, and
//!   fast convergence sets W_max = ⌊cwnd (1024 + b) / 2048⌋;
//! - a timeout (the Loss state) forgets everything: W_max, the epoch, the
//!   minimum RTT and the loss (bictcp_reset);
//! - undoing a spurious congestion event gives cwnd = max(cwnd, W_max) and
//!   the old ssthresh back (bictcp_undo_cwnd), not the cubic state: after a
//!   spurious timeout, whose reset forgot W_max, the window slow-starts back;
//! - the epoch clock does not stop while the window is not in use (that
//!   came in 2015); growth still waits for a full window.
//! Growth counts segments acked where the kernel counts ACKs and divides
//! cnt by its measured ACK ratio: the same rate.

use super::hystart::{HyStart, Phase};
use super::reno::slow_start;
use super::{Ack, CaState, CongestionControl, CongestionEvent, Window};
use crate::engine::time::secs;
use crate::engine::{Time, NS_PER_SEC};
use crate::tcp::rtt::RttEstimator;
use serde::{Deserialize, Serialize};

/// CUBIC (RFC 9438).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CubicParams {
    /// C of W_cubic(t) = C (t − K)^3 + W_max, segments/s^3 (RFC 9438 §5: 0.4).
    pub c: f64,
    /// Multiplicative decrease factor beta_cubic (RFC 9438 §4.6: 0.7).
    pub beta: f64,
    /// Fast convergence (RFC 9438 §4.7).
    pub fast_convergence: bool,
    /// The Reno-friendly region (RFC 9438 §4.3).
    pub reno_friendly: bool,
    /// HyStart++ (RFC 9406) in slow start.
    pub hystart: bool,
    /// Linux 2.6.21's tcp_cubic.c in place of the RFC's rules (module doc).
    #[serde(default)]
    pub linux: bool,
}

impl Default for CubicParams {
    fn default() -> Self {
        Self { c: 0.4, beta: 0.7, fast_convergence: true, reno_friendly: true, hystart: false, linux: false }
    }
}


/// A congestion-avoidance epoch (§4.2), in segments and seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Epoch {
    /// t_epoch.
    pub start: Time,
    pub cwnd_epoch: f64,
    pub k: f64,
    /// W_est of the Reno-friendly region (§4.3).
    pub w_est: f64,
}

/// What a congestion event changes, kept for undo (§4.9).
#[derive(Clone, Copy, Debug)]
struct Saved {
    w_max: Option<f64>,
    cwnd_prior: Option<f64>,
    epoch: Option<Epoch>,
    restart: bool,
}

pub struct Cubic {
    p: CubicParams,
    hystart: Option<HyStart>,
    /// SRTT (RFC 6298) for the RTT-ahead target (§4.4: "RTT is the smoothed round-trip time").
    rtt: RttEstimator,
    state: CaState,
    /// Window before the reduction in the last congestion event, after fast
    /// convergence (segments); None until the first one.
    w_max: Option<f64>,
    /// cwnd when ssthresh was last set (segments), §4.1.2.
    cwnd_prior: Option<f64>,
    epoch: Option<Epoch>,
    /// The next epoch starts from its own window with K = 0 (§4.8 after a
    /// timeout, §4.10 after HyStart++ left slow start without a loss).
    restart: bool,
    /// Bytes of growth below one byte, carried to the next ACK.
    frac: f64,
    /// Time of the last ACK in congestion avoidance.
    last_ack: Time,
    saved: Option<Saved>,
    /// `linux`: the smallest RTT sample (tcp_cubic.c's delay_min), the ACKs
    /// counted towards the Reno-friendly estimate's next step, and whether
    /// a loss was seen since the start or the last timeout (loss_cwnd ≠ 0).
    min_rtt: Option<Time>,
    acks: u64,
    loss_seen: bool,
}

impl Cubic {
    pub fn new(p: CubicParams) -> Self {
        Self {
            p,
            hystart: p.hystart.then(HyStart::default),
            rtt: RttEstimator::new(NS_PER_SEC, Time::ZERO, Time::MAX),
            state: CaState::Open,
            w_max: None,
            cwnd_prior: None,
            epoch: None,
            restart: false,
            frac: 0.0,
            last_ack: Time::ZERO,
            saved: None,
            min_rtt: None,
            acks: 0,
            loss_seen: false,
        }
    }

    /// K of eq. 2 (seconds); negative when the epoch starts above W_max.
    pub fn k(c: f64, w_max: f64, cwnd_epoch: f64) -> f64 {
        ((w_max - cwnd_epoch) / c).cbrt()
    }

    /// Eq. 1 (segments).
    pub fn w_cubic(&self, t: f64) -> f64 {
        let e = self.epoch.expect("w_cubic needs an epoch");
        self.p.c * (t - e.k).powi(3) + self.w_max.unwrap_or(e.cwnd_epoch)
    }

    /// α of the Reno-friendly region (§4.3): 3(1 − β)/(1 + β), gives the same
    /// average rate as Reno's AIMD(1, 0.5).
    pub fn alpha(beta: f64) -> f64 {
        3.0 * (1.0 - beta) / (1.0 + beta)
    }

    pub fn w_max(&self) -> Option<f64> {
        self.w_max
    }

    pub fn epoch(&self) -> Option<Epoch> {
        self.epoch
    }

    pub fn hystart(&self) -> Option<&HyStart> {
        self.hystart.as_ref()
    }

    fn start_epoch(&mut self, now: Time, cwnd: f64) {
        // Linux: an epoch starting at or above W_max has its origin there, K = 0.
        let above = self.p.linux && self.w_max.map_or(true, |m| m <= cwnd);
        if self.restart || self.w_max.is_none() || above {
            self.w_max = Some(cwnd);
            self.cwnd_prior.get_or_insert(cwnd);
            self.restart = false;
        }
        let k = Self::k(self.p.c, self.w_max.unwrap(), cwnd);
        self.epoch = Some(Epoch { start: now, cwnd_epoch: cwnd, k, w_est: cwnd });
        self.frac = 0.0;
        self.acks = 0;
    }

    /// Slow start, through HyStart++ when enabled; returns the bytes left
    /// for congestion avoidance.
    fn slow_start(&mut self, w: &mut Window, ack: &Ack) -> u64 {
        // As Linux's tcp_is_cwnd_limited in slow start: grow only while the
        // window is less than twice what was in flight (§5.8).
        let limited = w.cwnd < 2 * ack.prior_in_flight;
        let Some(hs) = self.hystart.as_mut().filter(|h| h.active()) else {
            return if limited { slow_start(w, ack.bytes_acked) } else { 0 };
        };
        match hs.on_ack(ack) {
            Phase::Done => {
                // §4.10: leave slow start here; the epoch starts on the next ACK.
                w.ssthresh = w.cwnd;
                self.cwnd_prior = Some(w.cwnd as f64 / w.mss as f64);
                self.restart = true;
                0
            }
            _ if !limited => 0,
            phase => hs.grow(w, ack.bytes_acked, phase),
        }
    }

    /// Congestion avoidance for `acked` bytes (§4.3–§4.5).
    fn avoid(&mut self, w: &mut Window, now: Time, acked: u64) {
        if self.p.linux {
            return self.avoid_linux(w, now, acked);
        }
        let mss = w.mss as f64;
        let cwnd = w.cwnd as f64 / mss;
        if self.epoch.is_none() {
            self.start_epoch(now, cwnd);
        }
        let segs = acked as f64 / mss;
        let t = secs(now - self.epoch.unwrap().start);
        let rtt = secs(self.rtt.srtt().unwrap_or(Time::ZERO));
        // §4.3: W_est grows by α per window acked; α becomes 1 once W_est
        // reaches the window of the last congestion event.
        let prior = self.cwnd_prior.unwrap_or(cwnd);
        let alpha = if self.epoch.unwrap().w_est >= prior { 1.0 } else { Self::alpha(self.p.beta) };
        let e = self.epoch.as_mut().unwrap();
        e.w_est += alpha * segs / cwnd;
        let w_est = e.w_est;
        if self.p.reno_friendly && self.w_cubic(t) < w_est {
            if w_est > cwnd {
                w.cwnd = (w_est * mss) as u64;
                self.frac = 0.0;
            }
            return;
        }
        // §4.4/§4.5: concave below W_max, convex above; one formula.
        let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
        let grow = (target - cwnd) / cwnd * segs * mss + self.frac;
        w.cwnd += grow as u64;
        self.frac = grow.fract();
    }

    /// Linux 2.6.21's bictcp_update and its per-ACK increase (module doc).
    fn avoid_linux(&mut self, w: &mut Window, now: Time, acked: u64) {
        let cwnd = w.cwnd / w.mss;
        if self.epoch.is_none() {
            self.start_epoch(now, cwnd as f64);
        }
        self.acks += 1;
        let e = self.epoch.expect("started above");
        let t = secs(now + self.min_rtt.unwrap_or(Time::ZERO) - e.start);
        let origin = self.w_max.unwrap_or(e.cwnd_epoch) as u64;
        let delta = (self.p.c * (t - e.k).abs().powi(3)).floor() as u64;
        let target = if t < e.k { origin.saturating_sub(delta) } else { origin + delta };
        let mut cnt = if target > cwnd { cwnd / (target - cwnd) } else { 100 * cwnd };
        if let Some(rtt) = self.min_rtt.filter(|&r| r > Time::ZERO) {
            // max_increment = 16 segments per 100 ms of RTT_min.
            let min_cnt = (cwnd as f64 * NS_PER_SEC.0 as f64 / (160.0 * rtt.0 as f64)) as u64;
            cnt = cnt.max(min_cnt);
        }
        if !self.loss_seen {
            cnt = 50;
        }
        if self.p.reno_friendly {
            let per_step = (cwnd * Self::linux_beta_scale(self.p.beta) / 8).max(1);
            let e = self.epoch.as_mut().expect("started above");
            while self.acks > per_step {
                self.acks -= per_step;
                e.w_est += 1.0;
            }
            let est = e.w_est as u64;
            if est > cwnd {
                cnt = cnt.min(cwnd / (est - cwnd));
            }
        }
        let grow = acked as f64 / cnt.max(1) as f64 + self.frac;
        w.cwnd += grow as u64;
        self.frac = grow.fract();
    }

    /// b = 1024·beta, as tcp_cubic.c holds beta (at most 1023).
    fn linux_b(beta: f64) -> u64 {
        ((beta * 1024.0).round() as u64).min(1023)
    }

    /// tcp_cubic.c's beta_scale: 8 (1024 + b) / 3 / (1024 − b) in integers,
    /// b = beta in 1024ths; the Reno-friendly estimate grows one segment per
    /// cwnd · beta_scale / 8 segments acked.
    pub fn linux_beta_scale(beta: f64) -> u64 {
        let b = Self::linux_b(beta);
        8 * (1024 + b) / 3 / (1024 - b)
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        let mut acked = ack.bytes_acked;
        if w.in_slow_start() {
            acked = self.slow_start(w, ack);
            if acked == 0 {
                return;
            }
        }
        let since = self.last_ack;
        self.last_ack = ack.now;
        if ack.prior_in_flight + w.mss < w.cwnd {
            // §5.8: not cwnd-limited: no growth, and the time since the
            // last ACK does not count towards t (Linux 2.6.21: only no growth).
            if let Some(e) = self.epoch.as_mut().filter(|_| !self.p.linux) {
                e.start += ack.now - since.max(e.start);
            }
            return;
        }
        self.avoid(w, ack.now, acked);
    }

    fn on_rtt_sample(&mut self, _now: Time, rtt: Time) {
        self.rtt.sample(rtt);
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
    }

    fn on_state_change(&mut self, _w: &mut Window, _now: Time, _from: CaState, to: CaState, _in_flight: u64) {
        self.state = to;
    }

    fn ssthresh(&mut self, w: &Window, in_flight: u64, ev: CongestionEvent, _now: Time) -> u64 {
        if self.state == CaState::Open {
            // The first reduction of this episode: what undo would restore.
            self.saved = Some(Saved { w_max: self.w_max, cwnd_prior: self.cwnd_prior, epoch: self.epoch, restart: self.restart });
        }
        // The window before the reduction: during recovery the un-inflated one.
        let window = if self.state == CaState::Recovery { w.cwnd.min(w.ssthresh) } else { w.cwnd };
        let prior = window as f64 / w.mss as f64;
        self.cwnd_prior = Some(prior);
        self.epoch = None;
        // §4.8: after a timeout the next epoch starts at its own window, K = 0.
        self.restart = ev == CongestionEvent::Timeout;
        if let Some(h) = self.hystart.as_mut() {
            h.stop();
        }
        if self.p.linux {
            // bictcp_recalc_ssthresh, in whole segments.
            let (cwnd, b) = (window / w.mss, Self::linux_b(self.p.beta));
            let last_max = self.w_max.unwrap_or(0.0) as u64;
            self.w_max = Some(if self.p.fast_convergence && cwnd < last_max { cwnd * (1024 + b) / 2048 } else { cwnd } as f64);
            self.loss_seen = true;
            if ev == CongestionEvent::Timeout {
                // The Loss state resets everything (bictcp_reset).
                self.w_max = None;
                self.min_rtt = None;
                self.loss_seen = false;
            }
            return (cwnd * b / 1024).max(2) * w.mss;
        }
        // §4.7: a flow whose window stopped short of W_max releases bandwidth.
        self.w_max = Some(match self.w_max {
            Some(m) if self.p.fast_convergence && prior < m => prior * (1.0 + self.p.beta) / 2.0,
            _ => prior,
        });
        // §4.6: ssthresh = FlightSize·β, at least 2 segments (rounded to the
        // byte: 0.7 is not exact in binary).
        ((in_flight as f64 * self.p.beta).round() as u64).max(2 * w.mss)
    }

    /// §4.9: a spurious congestion event gives back the window and the
    /// cubic state (W_max, K and the epoch) it replaced.
    fn undo(&mut self, w: &mut Window, saved: &Window) {
        if self.p.linux {
            // bictcp_undo_cwnd: max(cwnd, W_max); the cubic state stays.
            w.cwnd = w.cwnd.max(self.w_max.map_or(0, |m| m as u64 * w.mss));
            w.ssthresh = w.ssthresh.max(saved.ssthresh);
            self.saved = None;
            return;
        }
        w.cwnd = w.cwnd.max(saved.cwnd);
        w.ssthresh = w.ssthresh.max(saved.ssthresh);
        if let Some(s) = self.saved.take() {
            self.w_max = s.w_max;
            self.cwnd_prior = s.cwnd_prior;
            self.epoch = s.epoch;
            self.restart = s.restart;
        }
    }
}

#[cfg(test)]
#[path = "cubic_tests.rs"]
mod tests;
