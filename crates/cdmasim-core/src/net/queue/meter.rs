//! What every queue's owner reports about it (a link's queue, an EV-DO
//! user's base-station queue): packets taken, drops by reason, maxima, and
//! the time integrals of its length for the averages.

use super::Queue;
use crate::engine::Time;
use crate::net::{DropReason, Packet};
use super::QueueResult;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default)]
pub struct QueueMeter {
    pub enqueued: u64,
    pub drops: [u64; DropReason::ALL.len()],
    pub max_pkts: u64,
    pub max_bytes: u64,
    /// Integrals of the queue length over time (packet·ns, byte·ns).
    pub area_pkts: f64,
    pub area_bytes: f64,
    last_touch: Time,
}

impl QueueMeter {
    /// Bring the integrals up to `now` (call before the queue changes).
    #[inline]
    pub fn touch<Q: Queue + ?Sized>(&mut self, now: Time, q: &Q) {
        // An empty queue adds nothing (x + 0.0 is x): most of a run's
        // queues are empty most of the time, and this is on every packet.
        let pkts = q.len_packets();
        if pkts != 0 {
            let dt = (now - self.last_touch).0 as f64;
            self.area_pkts += pkts as f64 * dt;
            self.area_bytes += q.len_bytes() as f64 * dt;
        }
        self.last_touch = now;
    }

    /// Note the queue's length after it grew.
    #[inline]
    pub fn peak<Q: Queue + ?Sized>(&mut self, q: &Q) {
        self.max_pkts = self.max_pkts.max(q.len_packets() as u64);
        self.max_bytes = self.max_bytes.max(q.len_bytes());
    }

    /// Offer `pkt` to `q` at `now`, counting what happens: taken (and a
    /// new maximum) or dropped, given back with the reason.
    #[inline]
    pub fn enqueue<Q: Queue + ?Sized>(&mut self, now: Time, q: &mut Q, pkt: Packet) -> Result<(), (Packet, DropReason)> {
        self.touch(now, q);
        match q.enqueue(now, pkt) {
            Ok(()) => {
                self.enqueued += 1;
                self.peak(q);
                Ok(())
            }
            Err((pkt, reason)) => {
                self.drop(reason);
                Err((pkt, reason))
            }
        }
    }

    pub fn drop(&mut self, reason: DropReason) {
        self.drops[reason.index()] += 1;
    }

    /// The queue's row of the queues table over a run that ended at
    /// `horizon`: `utilization` and `bytes_sent` are its owner's to say.
    pub fn row(&self, name: String, q: &dyn Queue, horizon: Time, utilization: f64, bytes_sent: u64) -> QueueResult {
        QueueResult {
            link: name,
            kind: q.kind().into(),
            drops: self.drop_counts(),
            enqueued: self.enqueued,
            max_packets: self.max_pkts,
            max_bytes: self.max_bytes,
            avg_packets: self.area_pkts / horizon.max(Time(1)).0 as f64,
            avg_bytes: self.area_bytes / horizon.max(Time(1)).0 as f64,
            utilization,
            bytes_sent,
        }
    }

    /// Drops by reason, overflow always listed.
    fn drop_counts(&self) -> BTreeMap<String, u64> {
        DropReason::ALL
            .iter()
            .filter(|r| self.drops[r.index()] > 0 || **r == DropReason::Overflow)
            .map(|r| (r.as_str().to_string(), self.drops[r.index()]))
            .collect()
    }

    /// Packets dropped, every reason.
    pub fn drops_total(&self) -> u64 {
        self.drops.iter().sum()
    }
}
