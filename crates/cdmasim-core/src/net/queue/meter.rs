//! What every queue's owner reports about it (a link's queue, an EV-DO
//! user's base-station queue): packets taken, drops by reason, maxima, and
//! the time integrals of its length for the averages.

use super::Queue;
use crate::engine::Time;
use crate::net::DropReason;

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
    pub fn touch(&mut self, now: Time, q: &dyn Queue) {
        let dt = (now - self.last_touch) as f64;
        self.area_pkts += q.len_packets() as f64 * dt;
        self.area_bytes += q.len_bytes() as f64 * dt;
        self.last_touch = now;
    }

    /// Note the queue's length after it grew.
    #[inline]
    pub fn peak(&mut self, q: &dyn Queue) {
        self.max_pkts = self.max_pkts.max(q.len_packets() as u64);
        self.max_bytes = self.max_bytes.max(q.len_bytes());
    }

    pub fn drop(&mut self, reason: DropReason) {
        self.drops[reason.index()] += 1;
    }
}
