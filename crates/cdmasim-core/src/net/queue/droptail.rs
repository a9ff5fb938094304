//! DropTail: accept while there is room (in packets or bytes), drop arrivals otherwise.

use super::{fits, Fifo, Queue};
use crate::engine::Time;
use crate::net::{DropReason, Packet};
use super::QueueLimit;

pub struct DropTail {
    limit: QueueLimit,
    fifo: Fifo,
}

impl DropTail {
    pub fn new(limit: QueueLimit) -> Self {
        Self { limit, fifo: Fifo::default() }
    }
}

impl Queue for DropTail {
    fn kind(&self) -> &'static str {
        "droptail"
    }
    fn enqueue(&mut self, _now: Time, pkt: Packet) -> Result<(), (Packet, DropReason)> {
        if !fits(&self.limit, &self.fifo, pkt.size) {
            return Err((pkt, DropReason::Overflow));
        }
        self.fifo.push(pkt);
        Ok(())
    }
    fn dequeue(&mut self, _now: Time) -> Option<Packet> {
        self.fifo.pop()
    }
    /// Through an empty FIFO: the limit decides, the FIFO is left as it was.
    #[inline(always)]
    fn pass(&mut self, _now: Time, pkt: Packet) -> Result<Packet, (Packet, DropReason)> {
        debug_assert!(self.fifo.is_empty(), "pass is for an empty queue");
        if !fits(&self.limit, &self.fifo, pkt.size) {
            return Err((pkt, DropReason::Overflow));
        }
        Ok(pkt)
    }
    fn len_packets(&self) -> usize {
        self.fifo.len()
    }
    fn len_bytes(&self) -> u64 {
        self.fifo.bytes()
    }
}

#[cfg(test)]
mod tests {
    use crate::net::NodeId;
    use super::*;
    use crate::net::packet::Packet;

    fn pkt(size: u32) -> Packet {
        let (mut p, _) = Packet::udp(0, 0, NodeId(0), NodeId(1), Time::ZERO, 0, 0);
        p.size = size;
        p
    }

    #[test]
    fn packet_and_byte_limits() {
        let mut q = DropTail::new(QueueLimit::Packets(2));
        assert!(q.enqueue(Time::ZERO, pkt(100)).is_ok());
        assert!(q.enqueue(Time::ZERO, pkt(100)).is_ok());
        assert_eq!(q.enqueue(Time::ZERO, pkt(100)).unwrap_err().1, DropReason::Overflow);
        let mut q = DropTail::new(QueueLimit::Bytes(5000));
        for _ in 0..10 {
            assert!(q.enqueue(Time::ZERO, pkt(500)).is_ok());
        }
        assert!(q.enqueue(Time::ZERO, pkt(1)).is_err());
        assert_eq!(q.len_bytes(), 5000);
        q.dequeue(Time::ZERO);
        assert!(q.enqueue(Time::ZERO, pkt(500)).is_ok());
        assert!(q.enqueue(Time::ZERO, pkt(1)).is_err());
    }

    #[test]
    fn passing_an_empty_queue_is_queueing_and_leaving_at_once() {
        for (limit, size) in [(QueueLimit::Packets(0), 100), (QueueLimit::Packets(1), 100), (QueueLimit::Bytes(99), 100),
                              (QueueLimit::Bytes(100), 100), (QueueLimit::Unlimited, 100)] {
            let (mut a, mut b) = (DropTail::new(limit.clone()), DropTail::new(limit));
            let by_fifo = a.enqueue(Time::ZERO, pkt(size)).map(|()| a.dequeue(Time::ZERO).unwrap().size).map_err(|e| e.1);
            assert_eq!(b.pass(Time::ZERO, pkt(size)).map(|p| p.size).map_err(|e| e.1), by_fifo);
            assert_eq!((b.len_packets(), b.len_bytes()), (0, 0));
        }
    }
}
