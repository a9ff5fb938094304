//! One direction of a 1xEV-DO user's link below IP: the queue in front of
//! the air, the PPP link's framing and header compression, the IP packet
//! whose octets are being sent, and RLP between the sender and the far
//! end (`evdo::rlp`). The forward link has one per user at the base
//! station; the reverse MAC (`evdo::reverse`) one per terminal. Both fill
//! their physical-layer packets and hand up what RLP delivers the same way.

use super::air::AirOverhead;
use super::framing::Framing;
use super::rlp::{HandedUp, Load, Rlp};
use crate::engine::{Rng, RngStreams, Time};
use crate::net::ppp::Compression;
use crate::net::queue::{self, AnyQueue, Queue, QueueMeter, QueueSpec};
use crate::net::{DropReason, Headers, Packet};

pub struct Bearer {
    pub queue: AnyQueue,
    pub meter: QueueMeter,
    /// The IP packet whose octets are being sent (its RLP sequence number)
    /// and how many octets are left.
    head: Option<(u64, u64)>,
    pub rlp: Rlp,
    /// PPP's header compression from the sender (before the queue) to the
    /// far end (None: framing only), and the residual loss below PPP.
    pub ppp: Option<Framing>,
    pub loss: f64,
    loss_rng: Rng,
}

/// What became of a packet RLP handed up: it reaches the far end at `at`,
/// or is dropped.
pub enum Fate {
    Arrives { at: Time, pkt: Packet },
    Dropped { pkt: Packet, reason: DropReason },
}

impl Bearer {
    /// `queue_name` names its RED stream; `tag` its RLP and loss streams
    /// (`rlp/{tag}`, `loss/{tag}`).
    pub fn new(queue_name: &str, queue: &QueueSpec, tag: &str, rng: &RngStreams) -> Bearer {
        Bearer {
            queue: queue::build(queue, 0, rng, queue_name),
            meter: QueueMeter::default(),
            head: None,
            rlp: Rlp::new(None, rng.stream(&format!("rlp/{tag}"))),
            ppp: None,
            loss: 0.0,
            loss_rng: rng.stream(&format!("loss/{tag}")),
        }
    }

    pub fn with_ppp(mut self, compression: Option<Compression>) -> Bearer {
        self.ppp = compression.map(Framing::new);
        self
    }

    pub fn backlogged(&self) -> bool {
        self.head.is_some() || self.queue.len_packets() > 0
    }

    pub fn touch(&mut self, now: Time) {
        self.meter.touch(now, &self.queue);
    }

    /// A packet for the far end arrives at the sender; the queue takes it
    /// or gives it back with the reason.
    pub fn offer(&mut self, now: Time, pkt: Packet, hd: &Headers) -> Result<(), (Packet, DropReason)> {
        if let Some(ppp) = self.ppp.as_mut() {
            ppp.enter(&pkt, hd.get(pkt.hdr));
        }
        self.meter.enqueue(now, &mut self.queue, pkt).inspect_err(|&(pkt, _)| {
            if let Some(ppp) = self.ppp.as_mut() {
                ppp.refused(pkt, self.rlp.next_seq() + self.queue.len_packets() as u64);
            }
        })
    }

    /// PPP octets waiting to be sent at `t`: resends due, the head's
    /// remainder and the queue (by IP size, with the framing per packet
    /// and the stuffing over all of it, which is never less than the sum
    /// of each packet's).
    pub fn pending(&self, t: Time, air: &AirOverhead) -> u64 {
        let framed = self.queue.len_bytes() + self.queue.len_packets() as u64 * air.ppp_bytes as u64;
        let queued = framed + if air.escape_every > 0 { framed / air.escape_every as u64 } else { 0 };
        self.rlp.owed(t) + self.head.map_or(0, |h| h.1) + queued
    }

    /// A new physical-layer packet carries up to `budget` PPP octets:
    /// RLP's retransmissions first, then the head IP packet's remaining
    /// octets, then whole packets from the queue (each handed to `sent` as
    /// it leaves it). Records them in `load`; returns the octets carried.
    pub fn fill(&mut self, t: Time, mut budget: u64, air: &AirOverhead, load: &mut Load, mut sent: impl FnMut(Packet)) -> u64 {
        let resent = self.rlp.retransmit(t, budget, load);
        budget -= resent;
        let mut carried = resent;
        while budget > 0 {
            if self.head.is_none() {
                self.touch(t);
                let Some(pkt) = self.queue.dequeue(t) else { break };
                sent(pkt);
                let (seq, size) = self.send(pkt);
                self.head = Some((seq, air.air_bytes(size)));
            }
            let (seq, left) = self.head.as_mut().expect("head set above");
            let take = budget.min(*left);
            *left -= take;
            budget -= take;
            carried += take;
            load.new = Some((load.new.map_or(*seq, |n| n.0), *seq));
            load.new_bytes += take;
            if *left == 0 {
                load.completes = Some(*seq);
                self.head = None;
            }
        }
        carried
    }

    /// `pkt` leaves the queue for the air with the frame PPP wrote for it
    /// (the far end's decompressor sees it when RLP hands it up), the
    /// residual loss below PPP is drawn for it, and RLP takes it. Returns
    /// its sequence number and its PPP octets (headers as compressed; the
    /// air adds the framing).
    fn send(&mut self, pkt: Packet) -> (u64, u32) {
        let lost = self.loss > 0.0 && self.loss_rng.bernoulli(self.loss);
        let (size, wire) = match self.ppp.as_mut() {
            Some(ppp) => {
                let (size, wire) = ppp.leave(&pkt);
                (size, Some(wire))
            }
            None => (pkt.size, None),
        };
        (self.rlp.push(pkt, wire, lost), size)
    }

    /// Drop everything not yet on the air (a hand-off): the packet on its
    /// way out goes no further (RLP reports it in order); each queued one
    /// goes to `dropped`.
    pub fn flush(&mut self, t: Time, reason: DropReason, mut dropped: impl FnMut(Packet)) {
        self.touch(t);
        if let Some((seq, _)) = self.head.take() {
            self.rlp.drop_packet(seq, t, reason);
        }
        while let Some(pkt) = self.queue.dequeue(t) {
            if let Some(ppp) = self.ppp.as_mut() {
                ppp.flushed(pkt, self.rlp.next_seq());
            }
            self.meter.drop(reason);
            dropped(pkt);
        }
    }

    /// The packets RLP can hand up now: PPP rebuilds each (or learns it
    /// lost), and `out` learns its fate; `scratch` is reused between calls.
    pub fn hand_up(&mut self, hd: &mut Headers, scratch: &mut Vec<HandedUp>, mut out: impl FnMut(Fate)) {
        self.rlp.hand_up(|h| scratch.push(h));
        for mut h in scratch.drain(..) {
            let fate = match (self.ppp.as_mut(), h.wire) {
                // The decompressor sees every frame sent, or learns it lost.
                (Some(ppp), Some(wire)) => {
                    let header = hd.get_mut(h.pkt.hdr);
                    ppp.receive(&mut h.pkt, header, &wire, h.lost || h.dropped.is_some(), h.seq)
                }
                _ => h.lost.then_some(DropReason::RandomLoss),
            };
            match h.dropped.or(fate) {
                Some(reason) => {
                    self.meter.drop(reason);
                    out(Fate::Dropped { pkt: h.pkt, reason });
                }
                None => out(Fate::Arrives { at: h.at, pkt: h.pkt }),
            }
        }
    }

    /// IP packets between the sender and the far end: queued or with RLP.
    pub fn packets_inside(&self) -> u64 {
        self.queue.len_packets() as u64 + self.rlp.len() as u64
    }
}
