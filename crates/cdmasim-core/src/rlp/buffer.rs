//! The network side's per-mobile buffer in front of the forward RLP sender
//! (the PDSN/BSC queue of Jung et al. §III: "the PDSN ... has a buffer for
//! each mobile", 120 packets in their network). IP packets wait here whole,
//! in the queue discipline of `[[link]]` (DropTail or RED), and the RLP
//! sender takes the next one when its new-data buffer holds less than a
//! frame: RLP segments only what the next frame needs, so a burst longer
//! than the buffer overflows here and not inside RLP.

use crate::engine::{RngStreams, Time};
use crate::net::queue::{self, AnyQueue, Queue, QueueMeter, QueueSpec};
use crate::net::{DropReason, Packet};
use crate::net::queue::QueueResult;

use super::arq::Arq;

pub struct Buffer {
    queue: AnyQueue,
    meter: QueueMeter,
    /// Bytes handed to the RLP sender.
    bytes_sent: u64,
}

impl Buffer {
    pub fn new(spec: &QueueSpec, rate_bps: u64, rng: &RngStreams, name: &str) -> Self {
        Buffer { queue: queue::build(spec, rate_bps, rng, name), meter: QueueMeter::default(), bytes_sent: 0 }
    }

    /// A packet arrives from the network; on a drop it comes back with the reason.
    pub fn offer(&mut self, now: Time, pkt: Packet) -> Result<(), (Packet, DropReason)> {
        self.meter.enqueue(now, &mut self.queue, pkt)
    }

    /// Move packets into the RLP sender until it holds at least `frame`
    /// bytes of new data (none while the channel carries nothing).
    pub fn refill(&mut self, now: Time, arq: &mut Arq, frame: u64) {
        while arq.new_data_bytes() < frame && self.queue.len_packets() > 0 {
            self.meter.touch(now, &self.queue);
            let pkt = self.queue.dequeue(now).expect("a packet waits");
            self.bytes_sent += pkt.size as u64;
            arq.push(pkt);
        }
    }

    /// RED's idle-time correction follows the forward rate.
    pub fn set_rate(&mut self, bps: u64) {
        self.queue.set_rate(bps);
    }

    pub fn len_packets(&self) -> usize {
        self.queue.len_packets()
    }

    pub fn drops(&self) -> u64 {
        self.meter.drops_total()
    }

    pub fn finish(&mut self, now: Time) {
        self.meter.touch(now, &self.queue);
    }

    /// Its row of the queues table; utilisation is the bytes handed to RLP
    /// over what the forward rate could carry in the run.
    pub fn row(&self, name: String, horizon: Time, rate_bps: u64) -> QueueResult {
        let capacity = rate_bps as f64 * horizon.0 as f64 / 1e9;
        let utilization = if capacity > 0.0 { (self.bytes_sent as f64 * 8.0 / capacity).min(1.0) } else { 0.0 };
        self.meter.row(name, &self.queue, horizon, utilization, self.bytes_sent)
    }
}
