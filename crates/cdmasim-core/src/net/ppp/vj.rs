//! Van Jacobson TCP/IP header compression (RFC 1144).
//!
//! The compressor keeps the last header it sent for each of up to 16
//! connections (§3.2.2: a one-byte connection number, 16 slots) and sends
//! a TCP segment as one of:
//! - "TYPE_IP", the packet as it is, when it cannot be compressed at all
//!   (not TCP, or SYN or FIN set, or ACK clear; §3.2.3); the slot is not
//!   touched;
//! - UNCOMPRESSED_TCP, the full header with the slot number, which sets the
//!   decompressor's copy of that slot: for a new connection, when anything
//!   but the sequence, acknowledgement and window numbers changed (the
//!   TCP options: a timestamp that moved is enough), when a number went
//!   backwards or jumped by 2^16 or more (a retransmission goes backwards),
//!   and when nothing changed at all (a duplicate ACK, a retransmitted
//!   segment: sent whole in case the decompressor missed the last one);
//! - COMPRESSED_TCP: a change mask, the slot number when it differs from
//!   the last frame's, the TCP checksum (2 bytes, carried unchanged) and
//!   the changed fields as differences (1 byte for 1-255, else 3). Two
//!   common patterns need no difference at all (§3.2.3): a data segment
//!   whose sequence number moved by the previous segment's length ("D"),
//!   and echoed interactive traffic ("I"). The IP id is taken to grow by
//!   one per packet of the connection (Linux's per-socket counter), which
//!   needs no field.
//!
//! The decompressor rebuilds each compressed header from its own copy of
//! the slot: its copy plus the differences. If a frame was lost below PPP
//! without the framer noticing (Lee §3.3 saw the segments that
//! followed reach TCP and fail its checksum), that copy is one packet
//! behind: every header rebuilt from it is wrong (and becomes the new
//! copy), so every following compressed segment fails the checksum until
//! an uncompressed one (the sender's retransmission, which goes backwards)
//! resets the slot. A conforming decompressor told of the error by the
//! framer tosses those packets itself instead (§4.3); to TCP the effect is
//! the same burst.

use super::{full_header, Connections, HeaderCompression, Outcome, Wire, WireBody};
#[cfg(test)]
use super::Frame;
use crate::net::{Body, Packet, SackBlocks, TcpFlags, TcpHeader};

/// What a slot holds of a connection's last header: the numbers a
/// compressed header changes by differences, the payload length, and what
/// must not change (the options).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Held {
    seq: u32,
    ack: u32,
    win: u16,
    len: u32,
    ts: Option<(u32, u32)>,
    sack: SackBlocks,
}

impl Held {
    fn of(h: &TcpHeader) -> Held {
        Held { seq: h.seq as u32, ack: h.ack as u32, win: h.wnd.min(0xffff) as u16, len: h.len, ts: h.ts, sack: h.sack }
    }
}

/// A compressed header's content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Delta {
    /// "D": the sequence number moved by the previous segment's length.
    Data,
    /// "I": sequence and acknowledgement numbers both moved by it.
    Echo,
    /// The differences of the fields that changed.
    Fields { seq: u32, ack: u32, win: u16 },
}

/// Bytes of one difference (RFC 1144 §3.2.3: 1..=255 in one byte, else a
/// zero byte and two bytes).
fn delta_bytes(d: u32) -> u32 {
    match d {
        0 => 0,
        1..=255 => 1,
        _ => 3,
    }
}

/// A connection's slot (RFC 1144 §3.2.2: 16 of them, one-byte numbers).
#[derive(Clone, Copy)]
struct Slot {
    /// The compressor's last header sent, and the decompressor's copy
    /// (None until an uncompressed frame reached it).
    sent: Held,
    copy: Option<Held>,
}

#[derive(Default)]
pub struct Vj {
    slots: Connections<Slot>,
    /// Slot of the last frame sent (the next compressed header omits it if the same).
    last_slot: Option<usize>,
    /// The decompressor's: the slot of the last frame it received with a
    /// slot number (RFC 1144 §4: a compressed header without one applies
    /// to that slot). A lost frame that changed the slot leaves it behind.
    last_received: Option<usize>,
}

impl Vj {
    /// How the compressor sends `now` after `sent` (None: uncompressed).
    fn delta(sent: &Held, now: &Held) -> Option<Delta> {
        if sent.ts != now.ts || sent.sack != now.sack {
            return None;
        }
        let (dseq, dack) = (now.seq.wrapping_sub(sent.seq), now.ack.wrapping_sub(sent.ack));
        if dseq > 0xffff || dack > 0xffff {
            return None;
        }
        let dwin = now.win.wrapping_sub(sent.win);
        match (dseq != 0, dack != 0, dwin != 0) {
            // Nothing changed: data after a pure ACK is new, anything else a repeat.
            (false, false, false) => (now.len > 0 && sent.len == 0).then_some(Delta::Fields { seq: 0, ack: 0, win: 0 }),
            (true, false, false) if dseq == sent.len => Some(Delta::Data),
            (true, true, false) if dseq == sent.len && dack == sent.len => Some(Delta::Echo),
            _ => Some(Delta::Fields { seq: dseq, ack: dack, win: dwin }),
        }
    }

    /// The header the decompressor rebuilds from its copy.
    fn rebuild(copy: &Held, d: Delta, now: &Held) -> Held {
        let (seq, ack, win) = match d {
            Delta::Data => (copy.seq.wrapping_add(copy.len), copy.ack, copy.win),
            Delta::Echo => (copy.seq.wrapping_add(copy.len), copy.ack.wrapping_add(copy.len), copy.win),
            Delta::Fields { seq, ack, win } => (copy.seq.wrapping_add(seq), copy.ack.wrapping_add(ack), copy.win.wrapping_add(win)),
        };
        // The payload's length comes from the frame; the options from the copy.
        Held { seq, ack, win, len: now.len, ts: copy.ts, sack: copy.sack }
    }
}

/// Write a rebuilt header into the packet (the 32-bit numbers unwrapped
/// next to the true ones).
fn write_back(h: &mut TcpHeader, r: &Held) {
    h.seq = crate::net::packet::unwrap_seq(h.seq, r.seq);
    h.ack = crate::net::packet::unwrap_seq(h.ack, r.ack);
    if h.wnd <= 0xffff {
        h.wnd = r.win as u64;
    }
    h.ts = r.ts;
    h.sack = r.sack;
}

/// What a VJ frame tells the decompressor: the slot, whether the slot
/// number was left out (the same as the last frame's), and the differences
/// (None: UNCOMPRESSED_TCP, the whole header, which sets the slot's copy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Sent {
    slot: usize,
    same_slot: bool,
    delta: Option<Delta>,
}

impl HeaderCompression for Vj {
    fn compress(&mut self, pkt: &Packet, body: &Body) -> Wire {
        let Body::Tcp(h) = body else { return Wire::plain(body) };
        if h.flags.has(TcpFlags::SYN) || h.flags.has(TcpFlags::FIN) || !h.flags.has(TcpFlags::ACK) {
            return Wire::plain(body); // TYPE_IP
        }
        let now = Held::of(h);
        let (i, known) = self.slots.entry((pkt.flow, pkt.forward), || Slot { sent: now, copy: None });
        let same_slot = self.last_slot == Some(i);
        self.last_slot = Some(i);
        let delta = if known { Vj::delta(&self.slots.get(i).sent, &now) } else { None };
        self.slots.get(i).sent = now;
        let header_bytes = match delta {
            // UNCOMPRESSED_TCP: the slot number rides in the IP protocol field.
            None => full_header(body),
            Some(Delta::Fields { seq, ack, win }) => {
                1 + (!same_slot) as u32 + 2 + delta_bytes(seq) + delta_bytes(ack) + delta_bytes(win as u32)
            }
            Some(_) => 1 + (!same_slot) as u32 + 2,
        };
        Wire { header_bytes, body: WireBody::Vj(Sent { slot: i, same_slot, delta }) }
    }

    /// A lost frame teaches VJ's decompressor nothing: the frames after it
    /// are rebuilt from a stale copy, which `decompress` finds.
    fn lose(&mut self, _wire: &Wire) {}

    fn decompress(&mut self, pkt: &mut Packet, body: &mut Body, wire: &Wire) -> Outcome {
        let WireBody::Vj(sent) = wire.body else { return Outcome::Intact };
        let Body::Tcp(h) = body else { return Outcome::Intact };
        let (i, now) = (sent.slot, Held::of(h));
        let Some(d) = sent.delta else {
            self.slots.get(i).copy = Some(now);
            self.last_received = Some(i);
            return Outcome::Intact;
        };
        // Without a slot number the decompressor applies the differences to
        // the slot of the last frame it saw with one: another connection's,
        // if the frame that changed slots was lost.
        let target = if sent.same_slot { self.last_received.unwrap_or(i) } else { i };
        self.last_received = Some(target);
        let Some(copy) = self.slots.get(target).copy else {
            // Nothing to rebuild from (the slot's uncompressed frame was lost).
            return Outcome::Discarded;
        };
        let rebuilt = Vj::rebuild(&copy, d, &now);
        self.slots.get(target).copy = Some(rebuilt);
        if target == i && rebuilt == now {
            return Outcome::Intact;
        }
        if target == i {
            write_back(h, &rebuilt);
        }
        pkt.corrupt = true;
        Outcome::Corrupted
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{ack, carry, data, seq_of, MSS};
    use super::*;

    /// Segments 0..n of a bulk transfer through one VJ link; `lose` the
    /// segments lost below PPP. What came out of each: (sent seq, outcome).
    fn bulk(n: u64, lose: &[u64], ts: impl Fn(u64) -> Option<(u32, u32)>) -> Vec<(u64, Outcome, u32)> {
        let mut vj = Vj::default();
        (0..n)
            .map(|k| {
                let mut p = data(k, k, ts(k));
                let f = carry(&mut vj, &mut p, lose.contains(&k));
                (k, if lose.contains(&k) { Outcome::Discarded } else { f.outcome }, f.header_bytes)
            })
            .collect()
    }

    #[test]
    fn a_bulk_transfer_compresses_to_three_bytes_of_header() {
        let out = bulk(10, &[], |_| None);
        // The first segment goes whole and sets the slot; the rest are "D":
        // change mask and TCP checksum (the slot is the last frame's).
        assert_eq!(out[0].2, 40);
        assert!(out[1..].iter().all(|&(_, o, b)| o == Outcome::Intact && b == 3));
    }

    #[test]
    fn one_lost_frame_corrupts_every_compressed_segment_until_the_retransmission() {
        // Segment 3 is lost below PPP. The decompressor's copy stays at
        // segment 2, so segment 4 is rebuilt with segment 3's sequence
        // number, and so on: all of 4..10 fail the checksum.
        let mut vj = Vj::default();
        let mut got = Vec::new();
        for k in 0..10 {
            let mut p = data(k, k, None);
            let f = carry(&mut vj, &mut p, k == 3);
            if k != 3 {
                got.push((k, f.outcome, seq_of(&p)));
            }
        }
        assert!(got[..3].iter().all(|g| g.1 == Outcome::Intact));
        for &(k, o, seq) in &got[3..] {
            assert_eq!(o, Outcome::Corrupted, "segment {k}");
            // Rebuilt one segment behind: the header of the segment before.
            assert_eq!(seq, 1 + (k - 1) * MSS as u64);
        }
        // The sender's timeout retransmits segment 3: its sequence number
        // goes backwards, so it goes uncompressed and resets the slot; the
        // segments after it are rebuilt right again.
        let mut r = data(100, 3, None);
        assert_eq!(carry(&mut vj, &mut r, false), Frame { header_bytes: 40, outcome: Outcome::Intact });
        for k in 4..8 {
            let mut p = data(101 + k, k, None);
            assert_eq!(carry(&mut vj, &mut p, false).outcome, Outcome::Intact);
            assert!(!p.pkt.corrupt && seq_of(&p) == 1 + k * MSS as u64);
        }
    }

    #[test]
    fn with_timestamps_every_segment_goes_whole_and_a_loss_costs_one() {
        // Every segment's TSval differs (sent a millisecond apart): the
        // options changed, so each goes uncompressed and the loss of segment
        // 3 touches no other (Lee Fig. 8, timestamps on).
        let out = bulk(10, &[3], |k| Some((1000 + k as u32, 7)));
        assert!(out.iter().all(|&(k, o, b)| b == 52 && (o == Outcome::Intact || k == 3)));
    }

    #[test]
    fn segments_sharing_a_timestamp_are_still_compressed() {
        // Two segments per millisecond share TSval: every second one is
        // compressed, and a loss can corrupt the one after it.
        let out = bulk(10, &[4], |k| Some((1000 + (k / 2) as u32, 7)));
        assert_eq!(out.iter().filter(|o| o.2 < 52).count(), 5);
        assert_eq!(out[5].1, Outcome::Corrupted);
        assert!(out.iter().filter(|o| o.1 == Outcome::Corrupted).count() == 1);
    }

    #[test]
    fn a_lost_ack_corrupts_the_acks_after_it_until_a_duplicate() {
        let mut vj = Vj::default();
        let mut out = Vec::new();
        for (uid, upto) in [(0, 2), (1, 4), (2, 6), (3, 8), (4, 10)] {
            let mut p = ack(uid, upto);
            out.push(carry(&mut vj, &mut p, uid == 1).outcome);
        }
        assert_eq!(out[2..], [Outcome::Corrupted; 3]);
        // A duplicate ACK changes nothing, so it goes whole and resets the slot.
        let mut dup = ack(5, 10);
        assert_eq!(carry(&mut vj, &mut dup, false).header_bytes, 40);
        let mut next = ack(6, 12);
        let f = carry(&mut vj, &mut next, false);
        // Change mask, checksum, a 3-byte ACK difference (2 x 1448).
        assert_eq!(f, Frame { header_bytes: 6, outcome: Outcome::Intact });
    }

    #[test]
    fn a_lost_frame_that_changed_slots_corrupts_the_other_connection_too() {
        // Two connections, A and B, share the link. A's third segment goes
        // compressed with A's slot number (the last frame was B's) and is
        // lost; A's fourth goes without a number, so the decompressor
        // applies it to B's slot, the last it saw: A's segment fails, B's
        // slot has moved, and B's next segment fails too.
        let mut vj = Vj::default();
        let a = |uid: u64, seg: u64| {
            let mut p = data(uid, seg, None);
            p.pkt.flow = 1;
            p
        };
        let b = |uid: u64, seg: u64| data(uid, seg, None);
        assert_eq!(carry(&mut vj, &mut a(0, 0), false).outcome, Outcome::Intact);
        assert_eq!(carry(&mut vj, &mut a(1, 1), false).outcome, Outcome::Intact);
        assert_eq!(carry(&mut vj, &mut b(2, 0), false).header_bytes, 40);
        assert_eq!(carry(&mut vj, &mut b(3, 1), false), Frame { header_bytes: 3, outcome: Outcome::Intact });
        assert_eq!(carry(&mut vj, &mut a(4, 2), true).header_bytes, 4, "A's slot number rides in the lost frame");
        assert_eq!(carry(&mut vj, &mut a(5, 3), false), Frame { header_bytes: 3, outcome: Outcome::Corrupted });
        assert_eq!(carry(&mut vj, &mut b(6, 2), false), Frame { header_bytes: 4, outcome: Outcome::Corrupted });
    }

    #[test]
    fn connections_beyond_sixteen_take_the_oldest_slot() {
        let mut vj = Vj::default();
        for flow in 0..17u32 {
            let mut p = data(flow as u64, 0, None);
            p.pkt.flow = flow;
            assert_eq!(carry(&mut vj, &mut p, false).header_bytes, 40);
        }
        assert_eq!(vj.slots.len(), super::super::CONNECTIONS);
        // Flow 0 lost its slot to flow 16: its next segment goes whole.
        let mut p = data(99, 1, None);
        assert_eq!(carry(&mut vj, &mut p, false).header_bytes, 40);
    }
}
