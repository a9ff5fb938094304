//! Reno AIMD (RFC 5681 §3.1): slow start adds min(N, SMSS) per ACK (RFC 3465
//! byte counting with L = 1 SMSS); congestion avoidance adds one SMSS per
//! window of bytes acknowledged. The multiplicative decrease is the trait's
//! default ssthresh. Reno and NewReno share this growth; they differ in the
//! sender's fast-recovery rules (RFC 5681 §3.2 vs RFC 6582).

use super::{Ack, CongestionControl, Window};

#[derive(Default)]
pub struct Reno {
    /// Bytes acknowledged since the last congestion-avoidance increment.
    acked_in_ca: u64,
}

/// Slow start: returns the bytes of `acked` left over once cwnd reaches ssthresh.
pub fn slow_start(w: &mut Window, acked: u64) -> u64 {
    let room = w.ssthresh.saturating_sub(w.cwnd);
    let used = acked.min(w.mss).min(room);
    w.cwnd += used;
    if acked.min(w.mss) > room { acked - used } else { 0 }
}

/// Additive increase: one SMSS for every cwnd bytes acknowledged.
pub fn additive_increase(w: &mut Window, acked: u64, counter: &mut u64) {
    *counter += acked;
    if *counter >= w.cwnd {
        *counter -= w.cwnd;
        w.cwnd += w.mss;
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        if !ack.cwnd_limited {
            return;
        }
        let mut acked = ack.bytes_acked;
        if w.in_slow_start() {
            acked = slow_start(w, acked);
            if acked == 0 {
                return;
            }
        }
        additive_increase(w, acked, &mut self.acked_in_ca);
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::Time;
    use super::*;

    fn ack(bytes: u64) -> Ack {
        Ack { now: Time::ZERO, bytes_acked: bytes, bytes_delivered: bytes, prior_in_flight: 0, in_flight: 0, rtt: None, state: super::super::CaState::Open, cwnd_limited: true }
    }

    #[test]
    fn slow_start_doubles_and_avoidance_adds_one_mss_per_rtt() {
        let mut r = Reno::default();
        let mut w = Window { cwnd: 2000, ssthresh: 64_000, mss: 1000 };
        // One RTT: every segment of the window is acked once.
        for _ in 0..2 {
            r.on_ack(&mut w, &ack(1000));
        }
        assert_eq!(w.cwnd, 4000);
        let mut w = Window { cwnd: 10_000, ssthresh: 5000, mss: 1000 };
        for _ in 0..10 {
            r.on_ack(&mut w, &ack(1000));
        }
        assert_eq!(w.cwnd, 11_000);
    }

    #[test]
    fn a_window_not_in_use_does_not_grow() {
        let mut r = Reno::default();
        let mut w = Window { cwnd: 10_000, ssthresh: 5000, mss: 1000 };
        for _ in 0..50 {
            r.on_ack(&mut w, &Ack { cwnd_limited: false, ..ack(1000) });
        }
        assert_eq!(w.cwnd, 10_000);
    }
}
