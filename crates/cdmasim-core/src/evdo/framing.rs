//! PPP on an EV-DO user's forward link, where each end sits. The packet
//! data serving node (PDSN) frames and compresses every IP packet before
//! the radio network buffers it (the A10 tunnel carries PPP frames, and
//! the base station's per-user queue holds them); the terminal deframes and
//! decompresses what RLP hands up. So a frame the base station's queue
//! drops was written by the compressor but never reaches the decompressor:
//! under VJ (RFC 1144 §4) its delta goes missing exactly as a frame lost on
//! the air would, and the compressed frames after it are rebuilt wrong
//! (Lee §3.3). `Framing` keeps the frames of the queued packets and
//! tells the decompressor about each dropped one at its place in the order
//! of frames: before the first packet RLP sent after it.

use crate::net::ppp::{Compression, Ppp, Wire};
use crate::net::{Body, DropReason, Packet};
use crate::net::ppp::rows::PppResult;
use std::collections::VecDeque;

pub struct Framing {
    ppp: Ppp,
    /// The frames of the packets in the queue, in queue order: (packet uid,
    /// PPP octets without framing, what the decompressor will be told).
    queued: VecDeque<(u64, u32, Wire)>,
    /// Frames written whose packets the queue dropped, each with the RLP
    /// sequence number of the first packet sent after it (the frame alone:
    /// the decompressor misses it without its packet, docs/packet.md).
    missed: VecDeque<(u64, Wire)>,
}

impl Framing {
    pub fn new(compression: Compression) -> Framing {
        Framing { ppp: Ppp::new(compression), queued: VecDeque::new(), missed: VecDeque::new() }
    }

    /// `pkt`, with its header `h`, arrives at the base station: the PDSN
    /// writes its frame.
    pub fn enter(&mut self, pkt: &Packet, h: &Body) {
        let (size, wire) = self.ppp.send(pkt, h);
        self.queued.push_back((pkt.uid, size, wire));
    }

    /// The queue refused the packet that just entered; `next_sent` is the
    /// RLP sequence number the packet after those queued will have.
    pub fn refused(&mut self, pkt: Packet, next_sent: u64) {
        let (uid, _, wire) = self.queued.pop_back().expect("refused after enter");
        debug_assert_eq!(uid, pkt.uid);
        self.missed.push_back((next_sent, wire));
    }

    /// `pkt` leaves the queue for RLP: its frame's octets and wire (the
    /// queues drop only at their entry, so it is the oldest frame queued).
    pub fn leave(&mut self, pkt: &Packet) -> (u32, Wire) {
        let (uid, size, wire) = self.queued.pop_front().expect("left a queue it entered");
        debug_assert_eq!(uid, pkt.uid);
        (size, wire)
    }

    /// `pkt`, queued, is dropped without being sent (a hand-off empties the
    /// queue); nothing queued after it will be sent before `next_sent`.
    pub fn flushed(&mut self, pkt: Packet, next_sent: u64) {
        let (uid, _, wire) = self.queued.pop_front().expect("flushed a queued packet");
        debug_assert_eq!(uid, pkt.uid);
        for m in self.missed.iter_mut() {
            m.0 = m.0.min(next_sent);
        }
        self.missed.push_back((next_sent, wire));
    }

    /// RLP hands up `pkt`, sequence number `seq`, its frame `wire` (or
    /// `lost` below PPP): the decompressor first misses the dropped frames
    /// written before it, then rebuilds it (`Ppp::receive`).
    pub fn receive(&mut self, pkt: &mut Packet, h: &mut Body, wire: &Wire, lost: bool, seq: u64) -> Option<DropReason> {
        while self.missed.front().is_some_and(|m| m.0 <= seq) {
            let (_, w) = self.missed.pop_front().expect("front exists");
            self.ppp.miss(&w);
        }
        self.ppp.receive(pkt, h, wire, lost)
    }

    /// Its row of the `ppp` table.
    pub fn row(&self, link: String) -> PppResult {
        self.ppp.row(link)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::ppp::testutil::{data, seq_of, Seg, MSS};

    /// A bulk transfer through the PDSN and a queue of `limit` packets that
    /// drains one packet per arrival after the first `limit`: which
    /// segments come out corrupted at the terminal.
    #[test]
    fn a_frame_the_queue_drops_desynchronizes_vj_like_a_lost_one() {
        let mut f = Framing::new(Compression::Vj);
        // Segments 0..8 enter; the queue refuses segment 3 (its frame was
        // written); the rest leave in order as RLP 0, 1, 2, ...
        let mut kept = Vec::new();
        for seg in 0..8u64 {
            let p = data(seg, seg, None);
            f.enter(&p.pkt, &p.h);
            if seg == 3 {
                f.refused(p.pkt, 3);
            } else {
                kept.push(p);
            }
        }
        let mut out = Vec::new();
        for (seq, p) in kept.iter().enumerate() {
            let (size, wire) = f.leave(&p.pkt);
            assert!(size < p.pkt.size || seq == 0, "compressed after the first");
            let mut q = *p;
            let fate = f.receive(&mut q.pkt, &mut q.h, &wire, false, seq as u64);
            out.push((seq_of(&q), q.pkt.corrupt, fate));
        }
        // 0, 1, 2 intact; 4 onwards rebuilt from segment 2's header plus
        // their own delta: one segment (MSS) behind, corrupted.
        assert!(out[..3].iter().all(|o| !o.1 && o.2.is_none()), "{out:?}");
        assert!(out[3..].iter().all(|o| o.1), "{out:?}");
        assert_eq!(out[3].0, 1 + 3 * MSS as u64, "segment 4 rebuilt as segment 3");
        assert_eq!(f.row("l".into()).dropped_in_queue, 1);
    }

    #[test]
    fn the_queue_refusing_the_only_frame_of_a_gap_between_sends_is_missed_in_order() {
        // Segment 1 is refused while segment 0 is still queued: the
        // decompressor must see segment 0 intact before it misses 1.
        let mut f = Framing::new(Compression::Vj);
        let p0 = data(0, 0, None);
        let p1 = data(1, 1, None);
        let p2 = data(2, 2, None);
        f.enter(&p0.pkt, &p0.h);
        f.enter(&p1.pkt, &p1.h);
        f.refused(p1.pkt, 1);
        f.enter(&p2.pkt, &p2.h);
        let (_, w0) = f.leave(&p0.pkt);
        let (_, w2) = f.leave(&p2.pkt);
        let (mut a, mut b) = (p0, p2);
        assert_eq!(f.receive(&mut a.pkt, &mut a.h, &w0, false, 0), None);
        assert!(!a.pkt.corrupt);
        assert_eq!(f.receive(&mut b.pkt, &mut b.h, &w2, false, 1), None);
        assert!(b.pkt.corrupt, "segment 2's delta applied to segment 0's header");
    }

    #[test]
    fn a_hand_off_flush_is_missed_before_the_next_packet_sent() {
        let mut f = Framing::new(Compression::Vj);
        let ps: Vec<Seg> = (0..4).map(|s| data(s, s, None)).collect();
        for p in &ps {
            f.enter(&p.pkt, &p.h);
        }
        let (_, w0) = f.leave(&ps[0].pkt);
        // A hand-off drops 1 and 2; 3 is sent next as RLP 1.
        f.flushed(ps[1].pkt, 1);
        f.flushed(ps[2].pkt, 1);
        let (_, w3) = f.leave(&ps[3].pkt);
        let (mut a, mut d) = (ps[0], ps[3]);
        f.receive(&mut a.pkt, &mut a.h, &w0, false, 0);
        f.receive(&mut d.pkt, &mut d.h, &w3, false, 1);
        assert!(!a.pkt.corrupt && d.pkt.corrupt);
        assert_eq!(f.row("l".into()).dropped_in_queue, 2);
    }
}
