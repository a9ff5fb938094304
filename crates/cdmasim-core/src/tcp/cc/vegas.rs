//! TCP Vegas (L. S. Brakmo and L. L. Peterson, "TCP Vegas: End to End
//! Congestion Avoidance on a Global Internet", IEEE JSAC 13(8), 1995).
//!
//! §3.2 congestion avoidance: BaseRTT is the smallest RTT seen. Once per
//! round trip, Expected = cwnd / BaseRTT and Actual = cwnd / RTT; their
//! difference times BaseRTT,
//!
//!   Diff = (Expected − Actual) · BaseRTT = cwnd · (RTT − BaseRTT) / RTT,
//!
//! is the number of this flow's segments queued in the network (with the
//! bottleneck busy, RTT − BaseRTT = Q / C and cwnd / RTT = C, so Diff = Q).
//! Diff < alpha: one more segment for the next RTT; Diff > beta: one fewer;
//! otherwise hold.
//!
//! §3.3 modified slow start: cwnd grows exponentially only every other RTT;
//! in between it stays fixed, so that the comparison is made over a round
//! sent with one window. When Diff exceeds gamma Vegas leaves slow start.
//! On leaving, cwnd is set to what the path carries, Actual · BaseRTT, plus
//! one segment, and ssthresh to cwnd (Linux tcp_vegas.c; the Arizona code,
//! as carried into ns-2's tcp-vegas.cc, instead cuts cwnd by 1/8).
//!
//! Which RTT: in congestion avoidance the window hardly changes over a
//! round, so all its samples see the same standing queue; the round's RTT
//! is their minimum, as Linux takes it, because a delayed ACK or a segment
//! queued behind its burst partner inflates a sample by a transient that is
//! not the standing queue. In slow start the samples of a hold round belong
//! to segments sent while the window doubled, a queue rising through the
//! round: their minimum is the queue from before the doubling, and reacting
//! to it would let the window double once more (measured: a 95-packet peak
//! queue on a 35-packet path). The paper's Actual uses the RTT of one
//! distinguished segment, sent as the hold round begins, which sees the
//! whole queue the doubling built; here that is the newest sample when the
//! hold round ends (the last segment sent before the round began). A round
//! needs at least three samples (one or two per round are almost surely
//! delayed ACKs, Linux's reasoning); in congestion avoidance a round with
//! fewer grows as Reno would for one ACK (Linux 2.6.21 tcp_vegas_cong_avoid:
//! `cntRTT <= 2` calls tcp_reno_cong_avoid), so a small window keeps growing.
//!
//! Rounds, as Linux counts them: a round ends on the first ACK *beyond* the
//! data that was outstanding when it began (`after(ack, beg_snd_nxt)`), and
//! that ACK's sample belongs to it. Ending one ACK earlier, on the ACK that
//! covers the round exactly, leaves a window of four or five segments
//! acknowledged every second segment (Windows XP's delayed ACKs) with two
//! samples per round: no round would ever decide and the window would
//! freeze.
//!
//! Loss: ssthresh as Reno (the trait default halves the flight) and growth
//! as Reno while loss recovery is not Open (Linux disables Vegas outside
//! TCP_CA_Open). The paper's own loss handling differs: its fine-grained
//! retransmission check on the first duplicate ACK (§3.1), and its window
//! decrease on a fast retransmit of one quarter (to 3/4), at most once per
//! window of data sent since the last decrease; the sender here keeps its
//! RFC 5681/6582 recovery for every algorithm.

use super::reno::{self, Reno};
use super::{Ack, AckEvent, CaState, CongestionControl, Window};
use crate::engine::Time;
use serde::{Deserialize, Serialize};

/// TCP Vegas (Brakmo & Peterson, IEEE JSAC 1995 §3.2–3.3): thresholds on
/// Diff = (Expected − Actual) · BaseRTT, in segments queued in the network.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct VegasParams {
    /// Below alpha segments queued, grow cwnd by one segment per RTT (paper: 1).
    pub alpha: f64,
    /// Above beta, shrink by one segment per RTT (paper: 3).
    pub beta: f64,
    /// Leave slow start when Diff exceeds gamma (paper: 1).
    pub gamma: f64,
}

impl Default for VegasParams {
    fn default() -> Self {
        Self { alpha: 1.0, beta: 3.0, gamma: 1.0 }
    }
}


/// Fewer RTT samples than this in a round give no Vegas decision (Linux).
const MIN_SAMPLES: u32 = 3;

pub struct Vegas {
    p: VegasParams,
    /// The smallest RTT seen on data (the SYN's is left out: a 40-byte
    /// packet crosses the bottleneck faster than a full segment, which would
    /// bias Diff by about one segment).
    base_rtt: Option<Time>,
    /// Smallest and newest RTT, and number of samples, in the current round.
    round_min: Option<Time>,
    round_last: Option<Time>,
    round_samples: u32,
    /// Bytes still to be acknowledged before the current round ends (the
    /// flight when it began); None until an ACK starts a round.
    round_left: Option<u64>,
    /// In slow start: whether this round doubles the window (every other one).
    ss_grow: bool,
    data_acked: bool,
    /// Growth while loss recovery is not Open.
    reno: Reno,
}

/// What the end of a round decided (for the tests and the docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Decision {
    /// A slow-start growth round ended (or too few samples in slow start).
    None,
    /// Too few RTT samples in congestion avoidance: Reno's growth for one ACK.
    Reno,
    Increase,
    Decrease,
    Hold,
    /// Slow start goes on: the next round grows.
    KeepSlowStart,
    /// Diff > gamma in slow start: cwnd set to the path's share, then linear mode.
    LeaveSlowStart,
}

impl Vegas {
    pub fn new(p: VegasParams) -> Self {
        Vegas {
            p,
            base_rtt: None,
            round_min: None,
            round_last: None,
            round_samples: 0,
            round_left: None,
            ss_grow: true,
            data_acked: false,
            reno: Reno::default(),
        }
    }

    /// Diff in segments for window `cwnd` bytes and round RTT `rtt`.
    fn diff(&self, w: &Window, rtt: Time) -> Option<f64> {
        let base = (self.base_rtt?).0 as f64;
        let rtt = rtt.0 as f64;
        let segs = w.cwnd as f64 / w.mss as f64;
        // Expected − Actual = segs/base − segs/rtt; times base:
        Some(segs * (rtt - base) / rtt)
    }

    fn start_round(&mut self, in_flight: u64) {
        self.round_left = Some(in_flight);
        self.round_min = None;
        self.round_last = None;
        self.round_samples = 0;
    }

    /// The once-per-RTT adjustment at the end of a round (`ack` ended it).
    fn end_round(&mut self, w: &mut Window, ack: &Ack) -> Decision {
        let enough = self.round_samples >= MIN_SAMPLES;
        if w.in_slow_start() {
            let diff = self.round_last.filter(|_| enough).and_then(|rtt| self.diff(w, rtt));
            if self.ss_grow {
                // The window changed during this round: no valid comparison.
                self.ss_grow = false;
                return Decision::None;
            }
            return match diff {
                Some(d) if d > self.p.gamma => {
                    // Actual · BaseRTT in segments (= cwnd − Diff), plus one.
                    let segs = w.cwnd as f64 / w.mss as f64 - d;
                    let target = (segs.floor() as u64 + 1) * w.mss;
                    w.cwnd = w.cwnd.min(target).max(2 * w.mss);
                    w.ssthresh = w.cwnd;
                    Decision::LeaveSlowStart
                }
                _ => {
                    self.ss_grow = true;
                    Decision::KeepSlowStart
                }
            };
        }
        let Some(d) = self.round_min.filter(|_| enough).and_then(|rtt| self.diff(w, rtt)) else {
            let one = Ack { bytes_acked: w.mss, bytes_delivered: w.mss, cwnd_limited: true, ..*ack };
            self.reno.on_ack(w, &one);
            return Decision::Reno;
        };
        if d > self.p.beta {
            w.cwnd = w.cwnd.saturating_sub(w.mss).max(2 * w.mss);
            // Stay in congestion avoidance.
            w.ssthresh = w.ssthresh.min(w.cwnd);
            Decision::Decrease
        } else if d < self.p.alpha {
            w.cwnd += w.mss;
            Decision::Increase
        } else {
            Decision::Hold
        }
    }

    /// One ACK in the Open state; returns the decision if it ended a round.
    fn on_open_ack(&mut self, w: &mut Window, ack: &Ack) -> Option<Decision> {
        let mut decided = None;
        match self.round_left {
            None => self.start_round(ack.in_flight),
            // The first ACK beyond the round's data ends it (Linux).
            Some(left) if ack.bytes_acked > left => {
                decided = Some(self.end_round(w, ack));
                self.start_round(ack.in_flight);
            }
            Some(left) => self.round_left = Some(left - ack.bytes_acked),
        }
        if w.in_slow_start() && self.ss_grow && ack.cwnd_limited && decided != Some(Decision::LeaveSlowStart) {
            reno::slow_start(w, ack.bytes_acked);
        }
        decided
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        if ack.state != CaState::Open {
            self.reno.on_ack(w, ack);
            return;
        }
        self.on_open_ack(w, ack);
    }

    fn on_ack_event(&mut self, _ev: &AckEvent) {
        self.data_acked = true;
    }

    fn on_rtt_sample(&mut self, _now: Time, rtt: Time) {
        if !self.data_acked {
            return;
        }
        self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
        self.round_min = Some(self.round_min.map_or(rtt, |m| m.min(rtt)));
        self.round_last = Some(rtt);
        self.round_samples += 1;
    }

    fn on_state_change(&mut self, _w: &mut Window, _now: Time, _from: CaState, to: CaState, _in_flight: u64) {
        // Back to Open after recovery or a timeout: the saved round and its
        // samples are stale; the next ACK starts a fresh round (Linux vegas_enable).
        if to == CaState::Open {
            self.round_left = None;
            self.round_min = None;
            self.round_last = None;
            self.round_samples = 0;
            self.ss_grow = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_MS;

    const MSS: u64 = 1000;

    fn ack(bytes: u64, in_flight: u64) -> Ack {
        Ack { now: Time::ZERO, bytes_acked: bytes, bytes_delivered: bytes, prior_in_flight: in_flight + bytes, in_flight, rtt: None, state: CaState::Open, cwnd_limited: true }
    }

    /// One one-segment ACK with the flight equal to cwnd.
    fn step(v: &mut Vegas, w: &mut Window) -> Option<Decision> {
        let a = ack(MSS, w.cwnd);
        v.on_open_ack(w, &a)
    }

    fn vegas() -> Vegas {
        let mut v = Vegas::new(VegasParams::default());
        v.on_ack_event(&AckEvent { now: Time::ZERO, bytes_acked: MSS, bytes_sacked: 0, dupack: false });
        v
    }

    /// Play one round of a window of `segs` one-segment ACKs, each with RTT
    /// `rtt_ms` (the window held constant by the caller's flight): the
    /// window's ACKs and the first one beyond it, which ends the round;
    /// return its decision.
    fn round(v: &mut Vegas, w: &mut Window, segs: u64, rtt_ms: f64) -> Option<Decision> {
        let mut last = None;
        for _ in 0..=segs {
            v.on_rtt_sample(Time::ZERO, Time((rtt_ms * NS_PER_MS.0 as f64) as u64));
            let flight = w.cwnd;
            if let Some(d) = v.on_open_ack(w, &ack(MSS, flight)) {
                last = Some(d);
            }
        }
        last
    }

    /// Puts `v` in congestion avoidance with BaseRTT 100 ms and a round open.
    fn in_avoidance(cwnd_segs: u64) -> (Vegas, Window) {
        let mut v = vegas();
        let mut w = Window { cwnd: cwnd_segs * MSS, ssthresh: cwnd_segs * MSS, mss: MSS };
        v.on_rtt_sample(Time::ZERO, 100 * NS_PER_MS);
        // The first ACK opens a round covering one window.
        step(&mut v, &mut w);
        (v, w)
    }

    #[test]
    fn avoidance_increases_below_alpha_decreases_above_beta_holds_between() {
        // cwnd 20 segments, BaseRTT 100 ms. Diff = 20 (RTT − 100)/RTT:
        // RTT 102 ms → 0.39 < alpha = 1: +1 segment.
        let (mut v, mut w) = in_avoidance(20);
        assert_eq!(round(&mut v, &mut w, 20, 102.0), Some(Decision::Increase));
        assert_eq!(w.cwnd, 21 * MSS);
        // cwnd 20, RTT 110 ms → Diff = 20·10/110 = 1.82 ∈ [1, 3]: hold.
        let (mut v, mut w) = in_avoidance(20);
        assert_eq!(round(&mut v, &mut w, 20, 110.0), Some(Decision::Hold));
        assert_eq!(w.cwnd, 20 * MSS);
        // cwnd 20, RTT 125 ms → Diff = 20·25/125 = 4 > beta = 3: −1 segment,
        // and ssthresh follows so that the flow stays in avoidance.
        let (mut v, mut w) = in_avoidance(20);
        assert_eq!(round(&mut v, &mut w, 20, 125.0), Some(Decision::Decrease));
        assert_eq!(w.cwnd, 19 * MSS);
        assert!(!w.in_slow_start());
    }

    #[test]
    fn one_decision_per_round_using_the_rounds_minimum_rtt() {
        // The round covers the flight at its start (20 segments): exactly the
        // 21st ACK, the first beyond it, decides, and the ACKs before it
        // change nothing.
        let (mut v, mut w) = in_avoidance(20);
        for i in 0..20 {
            // All samples 150 ms except one of 102 ms: the minimum (Diff 0.39) rules.
            let rtt = if i == 7 { 102 } else { 150 };
            v.on_rtt_sample(Time::ZERO, rtt * NS_PER_MS);
            assert_eq!(step(&mut v, &mut w), None);
            assert_eq!(w.cwnd, 20 * MSS);
        }
        v.on_rtt_sample(Time::ZERO, 150 * NS_PER_MS);
        assert_eq!(step(&mut v, &mut w), Some(Decision::Increase));
    }

    #[test]
    fn too_few_samples_grow_as_reno() {
        // Two segments acknowledged together: a round is that ACK and the
        // next, beyond it: two samples, no Vegas decision; Reno's growth for
        // one ACK instead, so the window creeps up by a segment every cwnd
        // rounds rather than freezing.
        let (mut v, mut w) = in_avoidance(2);
        let mut decisions = Vec::new();
        for _ in 0..4 {
            v.on_rtt_sample(Time::ZERO, 160 * NS_PER_MS);
            let flight = w.cwnd;
            decisions.extend(v.on_open_ack(&mut w, &ack(2 * MSS, flight)));
        }
        assert_eq!(decisions, vec![Decision::Reno, Decision::Reno]);
        assert_eq!(w.cwnd, 3 * MSS);
    }

    #[test]
    fn a_small_window_acked_every_second_segment_still_decides() {
        // Four segments, one ACK per two (Windows XP): the round ends on the
        // third ACK, the first beyond the round's four segments, with three
        // samples: a Vegas decision. RTT 120 ms against BaseRTT 100: Diff =
        // 4·20/120 = 0.67 < alpha: one segment more.
        let (mut v, mut w) = in_avoidance(4);
        let mut last = None;
        for _ in 0..3 {
            v.on_rtt_sample(Time::ZERO, 120 * NS_PER_MS);
            let flight = w.cwnd;
            last = v.on_open_ack(&mut w, &ack(2 * MSS, flight)).or(last);
        }
        assert_eq!(last, Some(Decision::Increase));
        assert_eq!(w.cwnd, 5 * MSS);
    }

    #[test]
    fn base_rtt_is_the_minimum_and_ignores_the_handshake() {
        let mut v = Vegas::new(VegasParams::default());
        // SYN-ACK sample before any data ACK: ignored.
        v.on_rtt_sample(Time::ZERO, 50 * NS_PER_MS);
        assert_eq!(v.base_rtt, None);
        v.on_ack_event(&AckEvent { now: Time::ZERO, bytes_acked: MSS, bytes_sacked: 0, dupack: false });
        v.on_rtt_sample(Time::ZERO, 120 * NS_PER_MS);
        v.on_rtt_sample(Time::ZERO, 100 * NS_PER_MS);
        v.on_rtt_sample(Time::ZERO, 130 * NS_PER_MS);
        assert_eq!(v.base_rtt, Some(100 * NS_PER_MS));
    }

    /// Feeds one-segment ACKs with RTT `rtt_ms` (the flight equal to cwnd)
    /// until one ends a round; returns its decision and the ACKs it took.
    fn until_decision(v: &mut Vegas, w: &mut Window, rtt_ms: u64) -> (Decision, u64) {
        for n in 1..1000 {
            v.on_rtt_sample(Time::ZERO, rtt_ms * NS_PER_MS);
            let flight = w.cwnd;
            if let Some(d) = v.on_open_ack(w, &ack(MSS, flight)) {
                return (d, n);
            }
        }
        panic!("no round ended");
    }

    #[test]
    fn slow_start_doubles_every_other_round_and_leaves_above_gamma() {
        let mut v = vegas();
        let mut w = Window { cwnd: 4 * MSS, ssthresh: u64::MAX / 2, mss: MSS };
        v.on_rtt_sample(Time::ZERO, 100 * NS_PER_MS);
        // The first ACK opens a growth round over the 4 segments in flight.
        step(&mut v, &mut w);
        assert_eq!(w.cwnd, 5 * MSS);
        // Growth round: the 4 ACKs of its window add a segment each; the
        // 5th, the first beyond it, ends the round without growth.
        assert_eq!(until_decision(&mut v, &mut w, 100), (Decision::None, 5));
        assert_eq!(w.cwnd, 9 * MSS);
        // Hold round over the 9 segments: the window stays put until the ACK
        // beyond them, which finds no queue (RTT = BaseRTT), keeps slow start
        // and opens the next growth round (so it grows by one).
        assert_eq!(until_decision(&mut v, &mut w, 100), (Decision::KeepSlowStart, 10));
        assert_eq!(w.cwnd, 10 * MSS);
        // Growth round over the 9 segments outstanding when it opened (its
        // opening ACK grew the window after): 9 more, to 19.
        assert_eq!(until_decision(&mut v, &mut w, 100), (Decision::None, 10));
        assert_eq!(w.cwnd, 19 * MSS);
        // Hold round with a queue: RTT 120 ms → Diff = 19·20/120 = 3.17 >
        // gamma = 1: cwnd = floor(Actual·BaseRTT) + 1 = floor(19 − 3.17) + 1 = 16.
        assert_eq!(until_decision(&mut v, &mut w, 120), (Decision::LeaveSlowStart, 20));
        assert_eq!(w.cwnd, 16 * MSS);
        assert_eq!(w.ssthresh, 16 * MSS);
        assert!(!w.in_slow_start());
    }

    #[test]
    fn slow_start_judges_the_hold_round_by_its_newest_sample() {
        let mut v = vegas();
        let mut w = Window { cwnd: 16 * MSS, ssthresh: u64::MAX / 2, mss: MSS };
        v.on_rtt_sample(Time::ZERO, 100 * NS_PER_MS);
        step(&mut v, &mut w); // opens a growth round
        until_decision(&mut v, &mut w, 100); // ends it: a hold round begins
        let segs = w.cwnd / MSS;
        assert_eq!(segs, 33);
        // The hold round's samples rise from 100 to 120 ms as the doubling's
        // queue builds; the minimum (100) shows nothing, the newest (the ACK
        // beyond the round) shows Diff = 33·20/120 = 5.5 > gamma: leave slow
        // start at floor(33 − 5.5) + 1 = 28.
        for i in 0..=segs {
            v.on_rtt_sample(Time::ZERO, (100 + 20 * (i + 1) / (segs + 1)) * NS_PER_MS);
            let d = step(&mut v, &mut w);
            assert_eq!(d.is_some(), i == segs);
        }
        assert_eq!(w.cwnd, 28 * MSS);
        assert!(!w.in_slow_start());
    }

    #[test]
    fn outside_open_it_grows_like_reno_and_restarts_the_round_on_return() {
        let (mut v, mut w) = in_avoidance(10);
        let mut a = ack(MSS, w.cwnd);
        a.state = CaState::Loss;
        w.ssthresh = 20 * MSS; // slow start after a timeout
        v.on_ack(&mut w, &a);
        assert_eq!(w.cwnd, 11 * MSS);
        let flight = w.cwnd;
        v.on_state_change(&mut w, Time::ZERO, CaState::Loss, CaState::Open, flight);
        assert_eq!(v.round_left, None);
        assert_eq!(v.round_samples, 0);
    }
}
