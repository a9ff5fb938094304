//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation-02):
//! each segment remembers, when sent, how much had been delivered and when;
//! an ACK that delivers it yields delivered-bytes over the longer of the
//! send span and the ACK span (§3.3), which keeps ACK compression from
//! inflating the estimate. BBR's bandwidth filter and round counting use it.

use super::cc::RateSample;
use crate::engine::Time;

/// What a segment carries from the moment it was (re)sent (draft §3.2).
#[derive(Clone, Copy, Debug, Default)]
pub struct SendState {
    pub delivered: u64,
    pub delivered_time: Time,
    pub first_sent_time: Time,
    pub app_limited: bool,
}

#[derive(Default)]
pub struct DeliveryRate {
    /// Bytes delivered so far (cumulatively acknowledged or SACKed).
    pub delivered: u64,
    delivered_time: Time,
    first_sent_time: Time,
    /// Non-zero while the connection is application-limited: the value of
    /// `delivered` at which that phase ends (draft §3.4).
    app_limited_until: u64,
    /// Without SACK: bytes already counted from duplicate ACKs for segments
    /// above the cumulative ACK point (Linux's Reno sacked_out).
    dupack_credit: u64,
    // The sample being built from the current ACK.
    cur: Option<Building>,
}

#[derive(Clone, Copy)]
struct Building {
    prior_delivered: u64,
    prior_time: Time,
    send_elapsed: Time,
    app_limited: bool,
    rtt: Option<Time>,
    newest_sent: Time,
}

impl DeliveryRate {
    /// A segment leaves; `nothing_in_flight` restarts the spans (draft §3.2).
    pub fn on_send(&mut self, now: Time, nothing_in_flight: bool) -> SendState {
        if nothing_in_flight {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        SendState {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            app_limited: self.app_limited_until != 0,
        }
    }

    /// The sender had nothing to send with room in the window (draft §3.4).
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited_until = (self.delivered + in_flight).max(1);
    }

    /// Without SACK, a duplicate ACK says one segment left the network: count
    /// it now (Linux tcp_add_reno_sack), at most what is outstanding.
    pub fn on_dupack(&mut self, now: Time, mss: u64, outstanding: u64) {
        let add = mss.min(outstanding.saturating_sub(self.dupack_credit));
        if add > 0 {
            self.delivered += add;
            self.delivered_time = now;
            self.dupack_credit += add;
        }
    }

    /// One segment delivered by the ACK being processed (not one SACKed earlier).
    pub fn on_delivered(&mut self, now: Time, len: u32, sent_at: Time, retransmitted: bool, st: &SendState) {
        // The first segment a cumulative ACK covers is new (the hole it
        // fills); the rest were counted by their duplicate ACKs, up to the
        // credit (Linux tcp_remove_reno_sacks).
        let mut fresh = len as u64;
        if self.cur.is_some() {
            let old = fresh.min(self.dupack_credit);
            self.dupack_credit -= old;
            fresh -= old;
        }
        self.delivered += fresh;
        self.delivered_time = now;
        // The sample follows the most recently sent of the delivered segments.
        let newer = self.cur.is_none_or(|c| st.delivered > c.prior_delivered || sent_at > c.newest_sent);
        if newer {
            self.cur = Some(Building {
                prior_delivered: st.delivered,
                prior_time: st.delivered_time,
                send_elapsed: sent_at.saturating_sub(st.first_sent_time),
                app_limited: st.app_limited,
                rtt: (!retransmitted).then(|| now - sent_at),
                newest_sent: sent_at,
            });
            self.first_sent_time = sent_at;
        }
    }

    /// The sample of the ACK just processed, if it delivered anything.
    pub fn take_sample(&mut self, now: Time) -> Option<RateSample> {
        let c = self.cur.take()?;
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        let ack_elapsed = now - c.prior_time;
        Some(RateSample {
            delivered: self.delivered - c.prior_delivered,
            interval: c.send_elapsed.max(ack_elapsed),
            prior_delivered: c.prior_delivered,
            app_limited: c.app_limited,
            rtt: c.rtt,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_steady_flow_measures_the_bottleneck_rate() {
        // One 1000-byte segment every 1 ms, each ACKed 50 ms after it left:
        // once a round trip has passed every sample is 1000 B/ms = 1 MB/s.
        let ms = 1_000_000;
        let mut r = DeliveryRate::default();
        let mut outstanding = std::collections::VecDeque::new();
        let mut samples = Vec::new();
        for t in 0..300u64 {
            let now = t * ms;
            while outstanding.front().is_some_and(|(s, _)| s + 50 * ms <= now) {
                let (s, st) = outstanding.pop_front().unwrap();
                r.on_delivered(Time(now), 1000, Time(s), false, &st);
                samples.push(r.take_sample(Time(now)).unwrap());
            }
            let st = r.on_send(Time(now), outstanding.is_empty());
            outstanding.push_back((now, st));
        }
        assert_eq!(samples[0].rtt, Some(Time(50 * ms)));
        // The first segment's span is its whole RTT: a low, safe estimate.
        assert_eq!((samples[0].delivered, samples[0].interval), (1000, Time(50 * ms)));
        for s in &samples[60..] {
            assert!((s.rate() - 1e6).abs() < 1.0, "{}", s.rate());
            assert!(!s.app_limited);
        }
    }

    #[test]
    fn duplicate_acks_count_deliveries_once_without_sack() {
        // Ten 1000-byte segments leave at 0; segment 0 is lost. The other nine
        // arrive at 50..58 ms: nine duplicate ACKs, 9000 bytes delivered.
        let ms = 1_000_000;
        let mut r = DeliveryRate::default();
        let sent: Vec<SendState> = (0..10).map(|i| r.on_send(Time::ZERO, i == 0)).collect();
        for i in 0..9 {
            r.on_dupack(Time((50 + i) * ms), 1000, 10_000);
            assert!(r.take_sample(Time((50 + i) * ms)).is_none(), "a duplicate ACK gives no sample");
        }
        assert_eq!(r.delivered, 9000);
        // Segment 0 is resent at 60 ms and its ACK at 100 ms covers all ten:
        // only segment 0 is new (not 10 segments at once). The interval is the
        // longer of the send span (60 ms since the first transmission, which
        // no delivered segment has moved) and the ACK span (100 − 58 ms).
        let rtx = r.on_send(Time(60 * ms), false);
        r.on_delivered(Time(100 * ms), 1000, Time(60 * ms), true, &rtx);
        for (i, st) in sent.iter().enumerate().skip(1) {
            r.on_delivered(Time(100 * ms), 1000, Time::ZERO, false, st);
            assert_eq!(r.delivered, 10_000, "segment {i} counted twice");
        }
        let s = r.take_sample(Time(100 * ms)).unwrap();
        assert_eq!((s.delivered, s.interval), (1000, Time(60 * ms)));
        // More duplicates than outstanding data add nothing.
        r.on_dupack(Time(101 * ms), 1000, 0);
        assert_eq!(r.delivered, 10_000);
    }

    #[test]
    fn app_limited_marks_samples_until_that_data_is_delivered() {
        let ms = 1_000_000;
        let mut r = DeliveryRate::default();
        let a = r.on_send(Time::ZERO, true);
        r.mark_app_limited(1000);
        let b = r.on_send(Time(ms), false);
        r.on_delivered(Time(50 * ms), 1000, Time::ZERO, false, &a);
        assert!(!r.take_sample(Time(50 * ms)).unwrap().app_limited);
        r.on_delivered(Time(51 * ms), 1000, Time(ms), false, &b);
        assert!(r.take_sample(Time(51 * ms)).unwrap().app_limited);
        // delivered (2000) passed the mark (1000): the phase is over.
        assert!(!r.on_send(Time(52 * ms), true).app_limited);
    }
}
