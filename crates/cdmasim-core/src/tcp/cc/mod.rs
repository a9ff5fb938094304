//! Congestion control behind one trait, one file per algorithm, chosen by
//! name (in the spirit of Linux's tcp_congestion_ops). The sender owns loss
//! recovery (Reno, NewReno or SACK); an algorithm decides how the window
//! grows on ACKs and how far it falls on a congestion event. Optional hooks
//! carry what delay- and rate-based algorithms need (RTT samples, delivery
//! rate samples, state changes, undo after a spurious event) and a pacing rate.

pub mod bbr;
pub mod cubic;
pub mod hystart;
pub mod reno;
pub mod vegas;
pub mod westwood;

use crate::engine::Time;
use bbr::BbrParams;
use cubic::CubicParams;
use vegas::VegasParams;
use westwood::WestwoodParams;
use serde::{Deserialize, Serialize};

/// The congestion-control algorithm and its parameters, each defaulting to
/// the value of its paper or RFC (`[flow.tcp.<name>]` overrides them).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum CcAlgo {
    Reno,
    NewReno,
    Vegas(VegasParams),
    Westwood(WestwoodParams),
    Cubic(CubicParams),
    Bbr(BbrParams),
}

impl CcAlgo {
    pub fn name(&self) -> &'static str {
        match self {
            CcAlgo::Reno => "reno",
            CcAlgo::NewReno => "newreno",
            CcAlgo::Vegas(_) => "vegas",
            CcAlgo::Westwood(_) => "westwood",
            CcAlgo::Cubic(_) => "cubic",
            CcAlgo::Bbr(_) => "bbr",
        }
    }
}


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

/// An ACK that advanced the cumulative acknowledgement outside recovery
/// (for an algorithm that owns cwnd: any ACK that delivered data, in any state).
#[derive(Clone, Copy, Debug)]
pub struct Ack {
    pub now: Time,
    /// Bytes newly acknowledged cumulatively.
    pub bytes_acked: u64,
    /// Bytes newly delivered: cumulatively acknowledged or SACKed.
    pub bytes_delivered: u64,
    /// Bytes in flight before and after this ACK (RFC 6675 pipe with SACK;
    /// after a timeout, snd_nxt − snd_una for an algorithm that owns cwnd;
    /// else snd_max − snd_una).
    pub prior_in_flight: u64,
    pub in_flight: u64,
    /// RTT sample this ACK gave, if any (Karn-safe).
    pub rtt: Option<Time>,
    pub state: CaState,
    /// The window was the limit before this ACK (RFC 7661 §4.3: a window
    /// the sender does not use is not grown), or validation is off. The
    /// Reno family grows cwnd only then; Cubic keeps its own §5.8 test.
    pub cwnd_limited: bool,
}

/// Every ACK the sender accepts, new or duplicate, in any state, before the
/// window hooks run (Linux's pkts_acked / in_ack_event). Westwood+ counts
/// duplicate ACKs as delivered segments from this.
#[derive(Clone, Copy, Debug)]
pub struct AckEvent {
    pub now: Time,
    /// Cumulative advance (0 for a duplicate ACK).
    pub bytes_acked: u64,
    /// Bytes newly SACKed by this ACK.
    pub bytes_sacked: u64,
    pub dupack: bool,
}

/// A delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation-02 §3.3):
/// `delivered` bytes over `interval`, the longer of the send and ACK spans
/// of the newest packet the ACK delivered.
#[derive(Clone, Copy, Debug)]
pub struct RateSample {
    pub delivered: u64,
    pub interval: Time,
    /// Total bytes delivered when that packet was sent (BBR counts round
    /// trips with it).
    pub prior_delivered: u64,
    /// The sender had nothing to send for part of the interval: the sample
    /// may underestimate the path.
    pub app_limited: bool,
    /// RTT of the newest delivered packet (None if retransmitted).
    pub rtt: Option<Time>,
}

impl RateSample {
    /// Bytes per second.
    pub fn rate(&self) -> f64 {
        self.delivered as f64 * 1e9 / self.interval.max(Time(1)).0 as f64
    }
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

    /// Grow the window on an ACK outside recovery (Linux cong_avoid); for an
    /// algorithm that owns cwnd, set it on every delivering ACK (cong_control).
    fn on_ack(&mut self, w: &mut Window, ack: &Ack);

    /// Every accepted ACK, duplicates included (see [`AckEvent`]).
    fn on_ack_event(&mut self, _ev: &AckEvent) {}

    /// The connection is established (after the SYN-ACK's RTT sample, if
    /// any): Linux's tcp_congestion_ops.init. `header_bytes` is the IP+TCP
    /// header of a data segment, for algorithms that convert payload rates
    /// into the wire rates [`CongestionControl::pacing_rate`] is in.
    fn init(&mut self, _w: &mut Window, _now: Time, _header_bytes: u32) {}

    /// A model-based algorithm (BBR) sets cwnd itself on every ACK and on
    /// state changes: the sender then skips the window arithmetic of its loss
    /// recovery (inflation, deflation, cwnd = ssthresh on exit) and only
    /// retransmits, and still drops cwnd to one segment on a timeout.
    fn owns_cwnd(&self) -> bool {
        false
    }

    /// The slow-start threshold after a congestion event (Linux ssthresh).
    /// RFC 5681 eq. (4): max(FlightSize / 2, 2·SMSS).
    fn ssthresh(&mut self, w: &Window, in_flight: u64, _ev: CongestionEvent, _now: Time) -> u64 {
        (in_flight / 2).max(2 * w.mss)
    }

    /// Every valid RTT sample, including those taken during recovery.
    fn on_rtt_sample(&mut self, _now: Time, _rtt: Time) {}

    fn on_rate_sample(&mut self, _now: Time, _rs: &RateSample) {}

    /// Loss recovery changed state; `in_flight` as for [`Ack`].
    fn on_state_change(&mut self, _w: &mut Window, _now: Time, _from: CaState, _to: CaState, _in_flight: u64) {}

    /// A congestion event turned out to be spurious: restore what it took
    /// (the default gives back the window and threshold saved by the sender).
    fn undo(&mut self, w: &mut Window, saved: &Window) {
        w.cwnd = w.cwnd.max(saved.cwnd);
        w.ssthresh = w.ssthresh.max(saved.ssthresh);
    }

    /// Bytes per second to pace at, if the algorithm paces (the sender
    /// spaces segments by their wire size at this rate).
    fn pacing_rate(&self) -> Option<u64> {
        None
    }
}

/// Build an algorithm by its scenario name.
pub fn by_name(name: CcAlgo) -> Box<dyn CongestionControl> {
    match name {
        CcAlgo::Reno | CcAlgo::NewReno => Box::new(reno::Reno::default()),
        CcAlgo::Vegas(p) => Box::new(vegas::Vegas::new(p)),
        CcAlgo::Westwood(p) => Box::new(westwood::Westwood::new(p)),
        CcAlgo::Cubic(p) => Box::new(cubic::Cubic::new(p)),
        CcAlgo::Bbr(p) => Box::new(bbr::Bbr::new(p)),
    }
}
