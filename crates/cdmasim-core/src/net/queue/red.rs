//! Random Early Detection (Floyd & Jacobson, "Random Early Detection Gateways
//! for Congestion Avoidance", IEEE/ACM ToN 1993), with the gentle variant
//! (Floyd 2000) and byte mode.
//!
//! On every arrival (section 4 of the paper, Fig. 2):
//! - avg ← (1 − w_q)·avg + w_q·q when the queue is busy; after an idle period,
//!   avg ← (1 − w_q)^m · avg with m = idle time / s, s the transmission time of
//!   a typical packet (the "idle-time correction").
//! - min_th ≤ avg < max_th: count ← count + 1, p_b = max_p (avg − min_th)/(max_th − min_th),
//!   p_a = p_b / (1 − count·p_b); drop with probability p_a and then count ← 0.
//!   The count makes inter-drop gaps uniform instead of geometric. As in the
//!   paper's Fig. 2 (and ns-2), count is incremented before p_a is computed, so
//!   P(gap > n) = (1 − (n+1) p_b)/(1 − p_b): gaps are uniform on {1 .. 1/p_b − 1}
//!   (section 7's analysis counts from zero and gets {1 .. 1/p_b}).
//! - gentle: max_th ≤ avg < 2 max_th: p_b = max_p + (1 − max_p)(avg − max_th)/max_th.
//! - above that: drop every arrival ("forced"); below min_th: count ← −1.
//! In byte mode the queue is measured in bytes and p_b is scaled by
//! size / mean_pkt_size (the paper's section 7 variant), so large packets are
//! likelier to be dropped.
//!
//! `RedVariant::Ns2` is ns-2.35's REDQueue::enque and drop_early with its
//! defaults (wait_ true), which Paliwal et al.'s simulations ran:
//! - count grows with every arrival, and a drop decision is made only
//!   while the queue already holds more than one packet (`qlen > 1`);
//! - when avg first reaches min_th (ns-2's `old` flag), count starts at 1
//!   and that arrival is not dropped;
//! - "wait": p_a = 0 while count·p_b < 1, p_b / (2 − count·p_b) while it is
//!   below 2, then 1: drops are spaced between 1/p_b and 2/p_b arrivals
//!   instead of Floyd & Jacobson's 1 to 1/p_b, about a third as many at a
//!   steady average.

use super::{fits, Fifo, Queue};
use crate::engine::{time::tx_time, Rng, Time};
use crate::net::{DropReason, Packet};
use super::QueueLimit;
use serde::{Deserialize, Serialize};

/// RED parameters (Floyd & Jacobson 1993). Thresholds and limit are in packets
/// in packet mode and in bytes in byte mode.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RedSpec {
    pub limit: QueueLimit,
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    /// EWMA weight w_q.
    pub w_q: f64,
    /// Gentle mode: drop probability rises from max_p to 1 between max_th and 2 max_th.
    pub gentle: bool,
    /// Byte mode: thresholds in bytes and drop probability scaled by packet size / mean_pkt_size.
    pub byte_mode: bool,
    /// Typical packet size (bytes), used for the idle-time correction and byte mode.
    pub mean_pkt_size: u32,
    pub variant: RedVariant,
}

/// Whose drop rule: the 1993 paper's, or ns-2.35's (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RedVariant {
    Floyd,
    Ns2,
}


pub struct Red {
    p: RedSpec,
    fifo: Fifo,
    rng: Rng,
    avg: f64,
    count: i64,
    /// ns-2's `old`: avg was at or above min_th (with a queue) at the last arrival.
    old: bool,
    /// Start of the current idle period (the queue and the link both empty), if idle.
    idle_since: Option<Time>,
    /// Transmission time of a typical packet at the current rate, ns.
    typical_tx: f64,
}

impl Red {
    pub fn new(p: RedSpec, rate_bps: u64, rng: Rng) -> Self {
        let typical_tx = Self::typical(&p, rate_bps);
        Self { p, fifo: Fifo::default(), rng, avg: 0.0, count: -1, old: false, idle_since: Some(Time::ZERO), typical_tx }
    }

    fn typical(p: &RedSpec, rate_bps: u64) -> f64 {
        if rate_bps == 0 {
            f64::INFINITY
        } else {
            tx_time(p.mean_pkt_size as u64, rate_bps).0 as f64
        }
    }

    /// The current average queue (packets or bytes, by mode).
    pub fn avg(&self) -> f64 {
        self.avg
    }

    fn current(&self) -> f64 {
        if self.p.byte_mode {
            self.fifo.bytes() as f64
        } else {
            self.fifo.len() as f64
        }
    }

    fn update_avg(&mut self, now: Time) {
        match self.idle_since.take() {
            Some(since) if self.fifo.is_empty() => {
                let m = (now - since).0 as f64 / self.typical_tx;
                self.avg *= (1.0 - self.p.w_q).powf(m);
            }
            _ => {
                self.avg = (1.0 - self.p.w_q) * self.avg + self.p.w_q * self.current();
            }
        }
    }

    /// Drop decision for one arrival of `size` bytes, given the updated avg.
    fn early_drop(&mut self, size: u32) -> Option<DropReason> {
        let (min, avg) = (self.p.min_th, self.avg);
        if avg < min {
            self.count = -1;
            return None;
        }
        if self.forced(avg) {
            self.count = 0;
            return Some(DropReason::RedForced);
        }
        let pb = self.p_b(avg, size);
        self.count += 1;
        let denom = 1.0 - self.count as f64 * pb;
        let pa = if denom <= 0.0 { 1.0 } else { (pb / denom).min(1.0) };
        if self.rng.uniform() < pa {
            self.count = 0;
            Some(DropReason::RedEarly)
        } else {
            None
        }
    }

    /// Every arrival is dropped at or above max_th (2·max_th when gentle).
    fn forced(&self, avg: f64) -> bool {
        avg >= if self.p.gentle { 2.0 * self.p.max_th } else { self.p.max_th }
    }

    /// p_b for `avg` from min_th up to the forced region (gentle: from
    /// max_p to 1 between max_th and 2·max_th), scaled by size in byte mode.
    fn p_b(&self, avg: f64, size: u32) -> f64 {
        let (min, max, max_p) = (self.p.min_th, self.p.max_th, self.p.max_p);
        let pb = if avg < max { max_p * (avg - min) / (max - min) } else { max_p + (1.0 - max_p) * (avg - max) / max };
        if self.p.byte_mode {
            pb * size as f64 / self.p.mean_pkt_size as f64
        } else {
            pb
        }
    }

    /// ns-2.35's drop decision for one arrival (module docs), avg updated.
    fn ns2_drop(&mut self, size: u32) -> Option<DropReason> {
        let avg = self.avg;
        self.count += 1;
        if avg < self.p.min_th || self.fifo.len() <= 1 {
            self.old = false;
            return None;
        }
        if self.forced(avg) {
            self.count = 0;
            return Some(DropReason::RedForced);
        }
        if !self.old {
            self.old = true;
            self.count = 1;
            return None;
        }
        let pb = self.p_b(avg, size);
        let c = self.count as f64 * pb;
        let pa = if c < 1.0 { 0.0 } else if c < 2.0 { pb / (2.0 - c) } else { 1.0 };
        // ns-2 drops when u <= p_a; u is never exactly 0 here, so p_a = 0 never drops.
        if pa > 0.0 && self.rng.uniform() <= pa {
            self.count = 0;
            Some(DropReason::RedEarly)
        } else {
            None
        }
    }
}

impl Queue for Red {
    fn kind(&self) -> &'static str {
        "red"
    }

    fn enqueue(&mut self, now: Time, pkt: Packet) -> Result<(), (Packet, DropReason)> {
        self.update_avg(now);
        let early = match self.p.variant {
            RedVariant::Floyd => self.early_drop(pkt.size),
            RedVariant::Ns2 => self.ns2_drop(pkt.size),
        };
        if let Some(reason) = early {
            return Err((pkt, reason));
        }
        if !fits(&self.p.limit, &self.fifo, pkt.size) {
            self.count = 0;
            return Err((pkt, DropReason::Overflow));
        }
        self.fifo.push(pkt);
        Ok(())
    }

    fn dequeue(&mut self, now: Time) -> Option<Packet> {
        let p = self.fifo.pop();
        if self.fifo.is_empty() && self.idle_since.is_none() {
            self.idle_since = Some(now);
        }
        p
    }

    fn len_packets(&self) -> usize {
        self.fifo.len()
    }

    fn len_bytes(&self) -> u64 {
        self.fifo.bytes()
    }

    fn set_rate(&mut self, rate_bps: u64) {
        self.typical_tx = Self::typical(&self.p, rate_bps);
    }

    fn average(&self) -> Option<f64> {
        Some(self.avg)
    }
}

#[cfg(test)]
mod tests {
    use crate::net::NodeId;
    use super::*;
    use crate::engine::NS_PER_MS;
    use crate::net::queue::QueueLimit;

    fn spec(w_q: f64, gentle: bool) -> RedSpec {
        RedSpec {
            limit: QueueLimit::Packets(1000),
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q,
            gentle,
            byte_mode: false,
            mean_pkt_size: 500,
            variant: RedVariant::Floyd,
        }
    }

    fn pkt() -> Packet {
        let (mut p, _) = Packet::udp(0, 0, NodeId(0), NodeId(1), Time::ZERO, 0, 0);
        p.size = 500;
        p
    }

    /// Fill the queue to `n` packets without RED deciding (setup only).
    fn fill(q: &mut Red, n: usize) {
        fill_with(q, n, pkt());
    }

    fn fill_with(q: &mut Red, n: usize, p: Packet) {
        for _ in 0..n {
            q.fifo.push(p);
        }
        q.idle_since = None;
    }

    #[test]
    fn ewma_follows_the_recursion_on_a_constant_queue() {
        // Queue held at 10 packets: after n arrivals avg = 10 (1 − (1 − w_q)^n).
        let w = 0.002;
        let mut q = Red::new(spec(w, true), 10_000_000, Rng::from_seed(1));
        fill(&mut q, 10);
        for n in 1..=2000u32 {
            q.update_avg(Time(n as u64));
            let expect = 10.0 * (1.0 - (1.0 - w).powi(n as i32));
            assert!((q.avg() - expect).abs() < 1e-9, "n={n} avg={} expect={expect}", q.avg());
        }
    }

    #[test]
    fn idle_time_correction_decays_avg() {
        // 500 B at 10 Mb/s is 0.4 ms; 40 ms idle is m = 100 typical packets.
        let w = 0.01;
        let mut q = Red::new(spec(w, true), 10_000_000, Rng::from_seed(1));
        fill(&mut q, 10);
        q.avg = 8.0;
        while q.fifo.pop().is_some() {}
        q.idle_since = Some(Time::ZERO);
        q.update_avg(40 * NS_PER_MS);
        let expect = 8.0 * (1.0 - w).powi(100);
        assert!((q.avg() - expect).abs() < 1e-9, "{} vs {expect}", q.avg());
    }

    /// Hold avg at `avg` (w_q = 1, queue length constant) and measure the drop fraction.
    fn drop_fraction(avg: usize, gentle: bool, n: u32) -> (f64, u32, u32) {
        let mut q = Red::new(spec(1.0, gentle), 10_000_000, Rng::from_seed(42));
        fill(&mut q, avg);
        let (mut early, mut forced) = (0, 0);
        for i in 0..n {
            match q.enqueue(Time(i as u64), pkt()) {
                Ok(()) => {
                    q.fifo.pop();
                }
                Err((_, DropReason::RedEarly)) => early += 1,
                Err((_, DropReason::RedForced)) => forced += 1,
                Err(e) => panic!("{:?}", e.1),
            }
        }
        ((early + forced) as f64 / n as f64, early, forced)
    }

    /// Long-run drop fraction 1/E[gap] with P(gap > n) = (1 − (n+1) p_b)/(1 − p_b).
    fn expected_fraction(pb: f64) -> f64 {
        let mean_gap: f64 = (0..).map(|n| (1.0 - (n + 1) as f64 * pb) / (1.0 - pb)).take_while(|p| *p > 0.0).sum();
        1.0 / mean_gap
    }

    #[test]
    fn count_spacing_gives_the_uniform_gap_drop_rate() {
        for (avg, pb) in [(10usize, 0.05), (7, 0.02), (14, 0.09)] {
            let (f, _, forced) = drop_fraction(avg, false, 400_000);
            let expect = expected_fraction(pb);
            assert_eq!(forced, 0);
            assert!((f - expect).abs() / expect < 0.03, "avg {avg}: {f} vs {expect}");
        }
        // Below min_th: nothing is dropped.
        assert_eq!(drop_fraction(4, false, 10_000).0, 0.0);
    }

    #[test]
    fn gentle_region_and_forced_drops() {
        // Gentle: at avg = 20 = 1.33 max_th, p_b = 0.1 + 0.9·5/15 = 0.4.
        let pb: f64 = 0.1 + 0.9 * 5.0 / 15.0;
        let (f, early, forced) = drop_fraction(20, true, 200_000);
        assert_eq!(forced, 0);
        assert!(early > 0);
        let expect = expected_fraction(pb);
        assert!((f - expect).abs() / expect < 0.03, "{f} vs {expect}");
        // Not gentle: at or above max_th every arrival is a forced drop.
        let (f, early, _) = drop_fraction(15, false, 1000);
        assert_eq!((f, early), (1.0, 0));
        // Gentle: at or above 2 max_th likewise.
        assert_eq!(drop_fraction(30, true, 1000).0, 1.0);
    }

    #[test]
    fn ns2_waits_between_drops() {
        // avg held at 10 (p_b = 0.05): ns-2's wait rule never drops while
        // count·p_b < 1, so a gap between drops is at least 1/p_b = 20
        // arrivals, and the product telescopes: P(gap > n) =
        // Π_{k=20}^{n} (2 − (k+1)·p_b)/(2 − k·p_b) = (39 − n)/20 for
        // 19 ≤ n ≤ 39: uniform on {20 .. 39}, a mean gap of 29.5 (Floyd's
        // rule at the same p_b: uniform on {1 .. 19}, a mean of 10).
        let mut s = spec(1.0, false);
        s.variant = RedVariant::Ns2;
        let mut q = Red::new(s, 10_000_000, Rng::from_seed(9));
        fill(&mut q, 10);
        let (mut gaps, mut since, mut first) = (Vec::new(), 0u32, true);
        for i in 0..200_000u64 {
            since += 1;
            match q.enqueue(Time(i), pkt()) {
                Ok(()) => {
                    q.fifo.pop();
                }
                Err((_, DropReason::RedEarly)) => {
                    if !first {
                        gaps.push(since);
                    }
                    first = false;
                    since = 0;
                }
                Err(e) => panic!("{:?}", e.1),
            }
        }
        assert!(gaps.iter().all(|&g| (20..=39).contains(&g)), "gaps {:?}", &gaps[..10]);
        let mean = gaps.iter().sum::<u32>() as f64 / gaps.len() as f64;
        assert!((mean - 29.5).abs() < 0.3, "mean gap {mean}");
        // Floyd's rule at the same p_b drops about three times as often.
        let floyd = drop_fraction(10, false, 200_000).0;
        assert!(floyd > 2.5 / mean, "{floyd}");
    }

    #[test]
    fn ns2_neither_drops_from_a_queue_of_one_nor_on_crossing_min_th() {
        let mut s = spec(1.0, false);
        s.variant = RedVariant::Ns2;
        // One packet queued and avg far above max_th: ns-2 keeps the arrival.
        let mut q = Red::new(s.clone(), 10_000_000, Rng::from_seed(1));
        fill(&mut q, 1);
        q.avg = 50.0;
        assert!(q.ns2_drop(500).is_none());
        // Two queued: a forced drop.
        fill(&mut q, 1);
        assert_eq!(q.ns2_drop(500), Some(DropReason::RedForced));
        // The first arrival with avg over min_th only sets count to 1.
        let mut q = Red::new(s, 10_000_000, Rng::from_seed(1));
        fill(&mut q, 14);
        q.avg = 14.0;
        assert!(q.ns2_drop(500).is_none());
        assert_eq!((q.count, q.old), (1, true));
    }

    #[test]
    fn byte_mode_scales_with_packet_size() {
        let mut s = spec(1.0, false);
        s.byte_mode = true;
        s.min_th = 5.0 * 500.0;
        s.max_th = 15.0 * 500.0;
        s.limit = QueueLimit::Bytes(1_000_000);
        let mut q = Red::new(s, 10_000_000, Rng::from_seed(3));
        let mut big = pkt();
        big.size = 1000; // twice the mean size, so p_b doubles from 0.05 to 0.1
        fill_with(&mut q, 5, big); // 5000 bytes held: avg = 10 mean packets
        let n = 200_000;
        let mut drops = 0;
        for i in 0..n {
            match q.enqueue(Time(i), big) {
                Ok(()) => {
                    q.fifo.pop();
                }
                Err(_) => drops += 1,
            }
        }
        let f = drops as f64 / n as f64;
        let expect = expected_fraction(0.1);
        assert!((f - expect).abs() / expect < 0.03, "{f} vs {expect}");
    }
}
