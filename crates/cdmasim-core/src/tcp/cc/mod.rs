//! Congestion control behind one trait, one file per algorithm, chosen by
//! name (in the spirit of Linux's tcp_congestion_ops). The sender owns loss
//! recovery (Reno, NewReno or SACK); an algorithm decides how the window
//! grows on ACKs and how far it falls on a congestion event. Optional hooks
//! carry what delay- and rate-based algorithms need (RTT samples, delivery
//! rate samples, state changes, undo after a spurious event) and a pacing rate.

pub mod reno;

use crate::engine::Time;

/// The window variables an algorithm may change (bytes).
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub mss: u64,
}

impl Window {
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// An ACK that advanced the cumulative acknowledgement outside recovery.
#[derive(Clone, Copy, Debug)]
pub struct Ack {
    pub now: Time,
    pub bytes_acked: u64,
    /// Bytes in flight before this ACK.
    pub prior_in_flight: u64,
    /// RTT sample this ACK gave, if any (Karn-safe).
    pub rtt: Option<Time>,
}

/// A delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation).
#[derive(Clone, Copy, Debug)]
pub struct RateSample {
    pub delivered: u64,
    pub interval: Time,
    pub app_limited: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongestionEvent {
    /// Loss detected by duplicate ACKs or SACK: fast retransmit.
    FastRetransmit,
    /// The retransmission timer expired.
    Timeout,
}

/// Where the sender's loss recovery stands (Linux's ca_state, reduced).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaState {
    Open,
    Recovery,
    Loss,
}

pub trait CongestionControl {
    fn name(&self) -> &'static str;

    /// Grow the window on an ACK outside recovery (Linux cong_avoid).
    fn on_ack(&mut self, w: &mut Window, ack: &Ack);

    /// The slow-start threshold after a congestion event (Linux ssthresh).
    /// RFC 5681 eq. (4): max(FlightSize / 2, 2·SMSS).
    fn ssthresh(&mut self, w: &Window, in_flight: u64, _ev: CongestionEvent, _now: Time) -> u64 {
        (in_flight / 2).max(2 * w.mss)
    }

    /// Every valid RTT sample, including those taken during recovery.
    fn on_rtt_sample(&mut self, _now: Time, _rtt: Time) {}

    fn on_rate_sample(&mut self, _now: Time, _rs: &RateSample) {}

    fn on_state_change(&mut self, _now: Time, _from: CaState, _to: CaState) {}

    /// A congestion event turned out to be spurious: restore what it took
    /// (the default gives back the window and threshold saved by the sender).
    fn undo(&mut self, w: &mut Window, saved: &Window) {
        w.cwnd = w.cwnd.max(saved.cwnd);
        w.ssthresh = w.ssthresh.max(saved.ssthresh);
    }

    /// Bytes per second to pace at, if the algorithm paces.
    fn pacing_rate(&self) -> Option<u64> {
        None
    }
}

/// Build an algorithm by its scenario name.
pub fn by_name(name: crate::scenario::CcAlgo) -> Box<dyn CongestionControl> {
    use crate::scenario::CcAlgo;
    match name {
        CcAlgo::Reno | CcAlgo::NewReno => Box::new(reno::Reno::default()),
    }
}
