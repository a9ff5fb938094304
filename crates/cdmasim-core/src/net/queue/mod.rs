//! Queue disciplines behind one trait, one file each. A queue holds the
//! packets waiting for a link; the packet being serialised is not in it (as
//! in ns-2 and ns-3, so a "100-packet" queue holds 100 waiting packets).

pub mod droptail;
pub mod fifo;
pub mod meter;
pub mod red;
pub mod rows;

pub use droptail::DropTail;
pub use fifo::Fifo;
pub use meter::QueueMeter;
pub use red::Red;

use super::{DropReason, Packet};
use crate::engine::{RngStreams, Time};
pub use red::RedSpec;
pub use rows::QueueResult;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum QueueLimit {
    Packets(u64),
    Bytes(u64),
    Unlimited,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum QueueSpec {
    DropTail { limit: QueueLimit },
    Red(RedSpec),
}

/// A link's queue when the scenario names none: DropTail of 100 packets
/// (ns-2's default limit).
impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec::DropTail { limit: QueueLimit::Packets(100) }
    }
}


pub trait Queue {
    fn kind(&self) -> &'static str;
    /// Offer a packet. On a drop the packet comes back with the reason.
    fn enqueue(&mut self, now: Time, pkt: Packet) -> Result<(), (Packet, DropReason)>;
    fn dequeue(&mut self, now: Time) -> Option<Packet>;
    /// A packet arrives at the empty queue of an idle transmitter and
    /// leaves at once: enqueue then dequeue (Err: dropped on arrival). A
    /// discipline that keeps no state on that path may skip the copy
    /// through its FIFO.
    #[inline(always)]
    fn pass(&mut self, now: Time, pkt: Packet) -> Result<Packet, (Packet, DropReason)> {
        self.enqueue(now, pkt)?;
        Ok(self.dequeue(now).expect("the packet just queued"))
    }
    fn len_packets(&self) -> usize;
    fn len_bytes(&self) -> u64;
    /// The link's service rate changed (RED's idle-time correction depends on it).
    fn set_rate(&mut self, _rate_bps: u64) {}
    /// RED's average queue (packets, or bytes in byte mode); None for queues without one.
    fn average(&self) -> Option<f64> {
        None
    }
}

/// Whether a FIFO holding `fifo` may take one more packet of `size` bytes.
pub fn fits(limit: &QueueLimit, fifo: &Fifo, size: u32) -> bool {
    match *limit {
        QueueLimit::Packets(n) => (fifo.len() as u64) < n,
        QueueLimit::Bytes(b) => fifo.bytes() + size as u64 <= b,
        QueueLimit::Unlimited => true,
    }
}

/// A built queue: the disciplines as a closed set, so that the per-packet
/// calls of the common one (DropTail, a few instructions each) are inlined
/// into the link instead of called through a vtable (as the network's
/// hops are: network::kinds).
pub enum AnyQueue {
    DropTail(DropTail),
    Red(Box<Red>),
}

macro_rules! each {
    ($self:expr, $q:ident => $e:expr) => {
        match $self {
            AnyQueue::DropTail($q) => $e,
            AnyQueue::Red($q) => $e,
        }
    };
}

impl Queue for AnyQueue {
    fn kind(&self) -> &'static str {
        each!(self, q => q.kind())
    }
    #[inline(always)]
    fn enqueue(&mut self, now: Time, pkt: Packet) -> Result<(), (Packet, DropReason)> {
        each!(self, q => q.enqueue(now, pkt))
    }
    #[inline(always)]
    fn dequeue(&mut self, now: Time) -> Option<Packet> {
        each!(self, q => q.dequeue(now))
    }
    #[inline(always)]
    fn pass(&mut self, now: Time, pkt: Packet) -> Result<Packet, (Packet, DropReason)> {
        each!(self, q => q.pass(now, pkt))
    }
    #[inline(always)]
    fn len_packets(&self) -> usize {
        each!(self, q => q.len_packets())
    }
    #[inline(always)]
    fn len_bytes(&self) -> u64 {
        each!(self, q => q.len_bytes())
    }
    fn set_rate(&mut self, rate_bps: u64) {
        each!(self, q => q.set_rate(rate_bps))
    }
    fn average(&self) -> Option<f64> {
        each!(self, q => q.average())
    }
}

/// Build the queue a spec describes; `name` names its random stream.
pub fn build(spec: &QueueSpec, rate_bps: u64, rng: &RngStreams, name: &str) -> AnyQueue {
    match spec {
        QueueSpec::DropTail { limit } => AnyQueue::DropTail(DropTail::new(limit.clone())),
        QueueSpec::Red(r) => AnyQueue::Red(Box::new(Red::new(r.clone(), rate_bps, rng.stream(&format!("red/{name}"))))),
    }
}
