//! TCP Westwood+ (L. A. Grieco and S. Mascolo, "Performance evaluation and
//! comparison of Westwood+, New Reno, and Vegas TCP congestion control",
//! ACM CCR 34(2), 2004; S. Mascolo et al., "TCP Westwood: Bandwidth
//! Estimation for Enhanced Transport over Wireless Links", MobiCom 2001).
//!
//! The sender counts the bytes each ACK reports delivered, duplicate ACKs
//! included (one segment each, as the receiver got a segment; the
//! cumulative ACK that follows them is then counted only for what they did
//! not already count, Linux's westwood_acked_count). Westwood+ takes one
//! bandwidth sample per RTT, b_k = d_k / T_k with T_k the span of the
//! sample window, no shorter than `min_sample_interval` (Linux: 50 ms),
//! which avoids the ACK-compression aliasing of Westwood's per-ACK samples
//! (CCR 2004 §2). The samples are low-pass filtered,
//!
//!   BWE_k = g · BWE_{k−1} + (1 − g) · b_k,   g = `filter_gain` (7/8),
//!
//! the first sample filling the filter. (Linux cascades two such filters;
//! this is the paper's single one.) RTTmin is the smallest RTT seen.
//!
//! After three duplicate ACKs and after a timeout,
//! ssthresh = max(BWE · RTTmin, 2 · MSS) in whole segments (MobiCom 2001
//! §2.2): the window the path carried with an empty queue, rather than half
//! of what it was. The sender sets cwnd = ssthresh when fast recovery ends
//! (Reno and SACK recovery; NewReno caps it at the flight plus one segment,
//! RFC 6582 §3.2 step 3) and cwnd = 1 segment after a timeout, as the paper
//! prescribes. Window growth is Reno's.
//!
//! `linux = true` follows Linux 2.6.21's tcp_westwood.c instead, the
//! kernel Liu et al.'s servers ran: the samples pass two such filters in a
//! row (westwood_filter: bw_ns_est, then bw_est); RTTmin is the smallest
//! *smoothed* RTT (w->rtt = srtt, an RFC 6298 average of the samples), which
//! sits above the smallest sample on a queue that varies; and a timeout
//! takes Reno's ssthresh, half the flight (the kernel's ssthresh hook is
//! tcp_reno_ssthresh; BWE · RTTmin is applied when fast recovery ends,
//! CA_EVENT_COMPLETE_CWR, and F-RTO was off in 2.6.21).

use super::reno::Reno;
use super::{Ack, AckEvent, CongestionControl, CongestionEvent, Window};
use crate::engine::Time;
use serde::{Deserialize, Serialize};

/// TCP Westwood+ (Grieco & Mascolo, CCR 2004): one bandwidth sample per RTT,
/// low-pass filtered; after a loss ssthresh = BWE · RTTmin.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct WestwoodParams {
    /// Weight of the old estimate in the EWMA filter (7/8 as in Westwood+).
    pub filter_gain: f64,
    /// Shortest interval for one bandwidth sample (Linux: 50 ms).
    pub min_sample_interval: Time,
    /// Linux 2.6.21's variant: two filter stages, RTTmin from the smoothed
    /// RTT, Reno's ssthresh at a timeout (module comment).
    #[serde(default)]
    pub linux: bool,
}

impl Default for WestwoodParams {
    fn default() -> Self {
        Self { filter_gain: 0.875, min_sample_interval: 50 * crate::engine::NS_PER_MS, linux: false }
    }
}


pub struct Westwood {
    p: WestwoodParams,
    /// Learnt from the sender's window at the first ACK (the trait gives it
    /// there); a duplicate ACK before that counts nothing.
    mss: u64,
    /// Bytes counted in the current sample window and when it began.
    bk: u64,
    win_start: Option<Time>,
    /// Bytes duplicate ACKs counted that the next cumulative ACK will cover.
    accounted: u64,
    /// Latest RTT sample (the length of a sample window) and the smallest.
    rtt: Option<Time>,
    rtt_min: Option<Time>,
    /// Filtered bandwidth estimate, bytes per second, and (`linux`) the
    /// first filter stage's output.
    bwe: Option<f64>,
    first_stage: Option<f64>,
    /// The smoothed RTT (`linux`).
    srtt: Option<f64>,
    data_acked: bool,
    reno: Reno,
}

impl Westwood {
    pub fn new(p: WestwoodParams) -> Self {
        Westwood {
            p,
            mss: 0,
            bk: 0,
            win_start: None,
            accounted: 0,
            rtt: None,
            rtt_min: None,
            bwe: None,
            first_stage: None,
            srtt: None,
            data_acked: false,
            reno: Reno::default(),
        }
    }

    /// Bandwidth estimate in bytes per second, once there is one.
    pub fn bwe(&self) -> Option<f64> {
        self.bwe
    }

    /// Bytes this ACK reports delivered (Linux westwood_acked_count).
    fn acked_count(&mut self, ev: &AckEvent) -> u64 {
        if ev.bytes_acked == 0 {
            // A duplicate ACK: the receiver got one segment out of order.
            self.accounted += self.mss;
            return self.mss;
        }
        let a = ev.bytes_acked;
        if a <= self.mss {
            return a;
        }
        // A cumulative ACK over segments that duplicates already counted
        // (or a delayed ACK): count only what they did not.
        if self.accounted >= a {
            self.accounted -= a;
            self.mss
        } else {
            let c = a - self.accounted;
            self.accounted = 0;
            c
        }
    }

    fn filter(&mut self, sample: f64) {
        let g = self.p.filter_gain;
        let stage = |old: Option<f64>, x: f64| Some(old.map_or(x, |b| g * b + (1.0 - g) * x));
        let input = if self.p.linux {
            self.first_stage = stage(self.first_stage, sample);
            self.first_stage.expect("just set")
        } else {
            sample
        };
        self.bwe = stage(self.bwe, input);
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }

    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        self.mss = w.mss;
        self.reno.on_ack(w, ack);
    }

    fn on_ack_event(&mut self, ev: &AckEvent) {
        self.data_acked = true;
        let start = *self.win_start.get_or_insert(ev.now);
        // One sample per RTT, no shorter than the minimum interval; this
        // ACK belongs to the next window (Linux westwood_update_window).
        if let Some(rtt) = self.rtt {
            let span = ev.now - start;
            if span > rtt.max(self.p.min_sample_interval) {
                self.filter(self.bk as f64 * 1e9 / span.0 as f64);
                self.bk = 0;
                self.win_start = Some(ev.now);
            }
        }
        self.bk += self.acked_count(ev);
    }

    fn on_rtt_sample(&mut self, now: Time, rtt: Time) {
        if !self.data_acked {
            // The handshake: data starts flowing now. Its RTT is left out of
            // RTTmin (a 40-byte SYN crosses the bottleneck faster than a segment).
            self.win_start.get_or_insert(now);
            return;
        }
        self.rtt = Some(rtt);
        let for_min = if self.p.linux {
            // RFC 6298 §2.3's SRTT, as tcp_rtt_estimator keeps it.
            let srtt = self.srtt.map_or(rtt.0 as f64, |s| 0.875 * s + 0.125 * rtt.0 as f64);
            self.srtt = Some(srtt);
            Time(srtt as u64)
        } else {
            rtt
        };
        self.rtt_min = Some(self.rtt_min.map_or(for_min, |m| m.min(for_min)));
    }

    fn ssthresh(&mut self, w: &Window, in_flight: u64, ev: CongestionEvent, _now: Time) -> u64 {
        self.mss = w.mss;
        if self.p.linux && ev == CongestionEvent::Timeout {
            return (in_flight / 2).max(2 * w.mss);
        }
        let bdp = match (self.bwe, self.rtt_min) {
            (Some(b), Some(r)) => b * r.0 as f64 / 1e9,
            // No estimate yet: Linux's bw_est = 0 gives the floor.
            _ => 0.0,
        };
        ((bdp / w.mss as f64).floor() as u64 * w.mss).max(2 * w.mss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_MS;
    use crate::tcp::cc::CaState;

    const MSS: u64 = 1000;

    fn ev(now_ms: u64, bytes_acked: u64) -> AckEvent {
        AckEvent { now: now_ms * NS_PER_MS, bytes_acked, bytes_sacked: 0, dupack: bytes_acked == 0 }
    }

    /// A Westwood whose data began at t = 0, MSS known, last RTT `rtt_ms`.
    fn westwood(rtt_ms: u64) -> Westwood {
        let mut ww = Westwood::new(WestwoodParams::default());
        ww.on_rtt_sample(Time::ZERO, Time(1)); // SYN-ACK at t = 0
        let mut w = Window { cwnd: 10 * MSS, ssthresh: 5 * MSS, mss: MSS };
        let a = Ack { now: Time::ZERO, bytes_acked: 0, bytes_delivered: 0, prior_in_flight: 0, in_flight: 0, rtt: None, state: CaState::Open, cwnd_limited: true };
        ww.on_ack(&mut w, &a);
        ww.data_acked = true;
        ww.on_rtt_sample(Time::ZERO, rtt_ms * NS_PER_MS);
        ww
    }

    #[test]
    fn duplicate_acks_count_one_segment_and_the_cumulative_ack_is_corrected() {
        let mut ww = westwood(100);
        // Three duplicates: 3 segments reached the receiver.
        for _ in 0..3 {
            assert_eq!(ww.acked_count(&ev(1, 0)), MSS);
        }
        // The retransmission fills the hole: the ACK covers the lost segment
        // and the three above it (4000 bytes), three of which were counted.
        assert_eq!(ww.acked_count(&ev(2, 4 * MSS)), MSS);
        assert_eq!(ww.accounted, 0);
        // A partial ACK covering less than was counted: one segment, the
        // rest stays accounted for the next.
        for _ in 0..3 {
            ww.acked_count(&ev(3, 0));
        }
        assert_eq!(ww.acked_count(&ev(4, 2 * MSS)), MSS);
        assert_eq!(ww.accounted, MSS);
        // A delayed ACK of two segments with nothing accounted counts both.
        ww.accounted = 0;
        assert_eq!(ww.acked_count(&ev(5, 2 * MSS)), 2 * MSS);
    }

    #[test]
    fn one_sample_per_rtt_filtered_with_gain_seven_eighths() {
        // RTT 100 ms, one 1000-byte ACK every 10 ms (100 kB/s) from t = 10 ms.
        let mut ww = westwood(100);
        for t in (10..=110).step_by(10) {
            ww.on_ack_event(&ev(t, MSS));
        }
        // The window [0, 110 ms) closed at the ACK of t = 110 ms (span 110 >
        // 100): it held the ACKs of 10..100 ms, 10 000 bytes over 0.11 s.
        let b1 = 10_000.0 / 0.11;
        assert!((ww.bwe().unwrap() - b1).abs() < 1e-6, "{:?}", ww.bwe());
        for t in (120..=220).step_by(10) {
            ww.on_ack_event(&ev(t, MSS));
        }
        // Second window [110, 220): 11 ACKs over 0.11 s = 100 kB/s exactly.
        let b2 = 0.875 * b1 + 0.125 * 100_000.0;
        assert!((ww.bwe().unwrap() - b2).abs() < 1e-6);
    }

    #[test]
    fn sample_windows_are_not_shorter_than_the_minimum_interval() {
        // RTT 20 ms < 50 ms: the first window closes only past 50 ms.
        let mut ww = westwood(20);
        for t in (10..=50).step_by(10) {
            ww.on_ack_event(&ev(t, MSS));
        }
        assert_eq!(ww.bwe(), None);
        ww.on_ack_event(&ev(60, MSS));
        // Five ACKs (10..50 ms) over 60 ms.
        assert!((ww.bwe().unwrap() - 5000.0 / 0.06).abs() < 1e-6);
    }

    #[test]
    fn ssthresh_is_bandwidth_times_rtt_min_in_whole_segments() {
        let mut ww = westwood(100);
        let w = Window { cwnd: 50 * MSS, ssthresh: u64::MAX / 2, mss: MSS };
        // No estimate yet: the 2-segment floor.
        assert_eq!(ww.ssthresh(&w, 50 * MSS, CongestionEvent::FastRetransmit, Time::ZERO), 2 * MSS);
        ww.bwe = Some(125_000.0); // 1 Mb/s
        ww.on_rtt_sample(Time::ZERO, 180 * NS_PER_MS); // a larger sample leaves RTTmin
        // 125 000 B/s · 0.1 s = 12 500 bytes → 12 segments.
        assert_eq!(ww.ssthresh(&w, 50 * MSS, CongestionEvent::FastRetransmit, Time::ZERO), 12 * MSS);
        assert_eq!(ww.ssthresh(&w, 50 * MSS, CongestionEvent::Timeout, Time::ZERO), 12 * MSS);
        ww.bwe = Some(5_000.0);
        assert_eq!(ww.ssthresh(&w, 50 * MSS, CongestionEvent::Timeout, Time::ZERO), 2 * MSS);
    }

    #[test]
    fn linux_filters_twice_takes_rttmin_from_srtt_and_halves_at_a_timeout() {
        let p = WestwoodParams { linux: true, ..Default::default() };
        let mut ww = Westwood::new(p);
        ww.data_acked = true;
        ww.mss = MSS;
        // Two stages: samples 100 then 200 (bytes/s). Stage one 100, then
        // 0.875·100 + 0.125·200 = 112.5; stage two 100, then 0.875·100 +
        // 0.125·112.5 = 101.5625 (one stage would give 112.5).
        ww.filter(100.0);
        ww.filter(200.0);
        assert!((ww.bwe().unwrap() - 101.5625).abs() < 1e-9, "{:?}", ww.bwe());
        // RTTmin from the smoothed RTT: samples 100, then 60 ms: SRTT 100,
        // then 95 ms; the smallest sample, 60, is not RTTmin.
        ww.on_rtt_sample(Time::ZERO, 100 * NS_PER_MS);
        ww.on_rtt_sample(Time::ZERO, 60 * NS_PER_MS);
        assert_eq!(ww.rtt_min, Some(95 * NS_PER_MS));
        // A timeout: half the flight (Reno's), not BWE · RTTmin.
        let w = Window { cwnd: 40 * MSS, ssthresh: 20 * MSS, mss: MSS };
        assert_eq!(ww.ssthresh(&w, 40 * MSS, CongestionEvent::Timeout, Time::ZERO), 20 * MSS);
        // Fast retransmit: BWE · RTTmin as ever (here below the 2-segment floor).
        assert_eq!(ww.ssthresh(&w, 40 * MSS, CongestionEvent::FastRetransmit, Time::ZERO), 2 * MSS);
    }
}
