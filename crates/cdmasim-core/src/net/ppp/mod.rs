//! PPP on a link (RFC 1661, framed as RFC 1662 §3.1 describes), with its
//! TCP/IP header compression: none, Van Jacobson's (RFC 1144, `vj`) or
//! ROHC-TCP's (RFC 6846, `rohc`). The dial-up 1x EV-DO access that Lee
//! measured ran PPP with VJ compression between the laptop and the
//! network; its §3.3 traces one lost frame below PPP to a burst of TCP
//! checksum failures at the receiver.
//!
//! Compressor and decompressor both live here, as two halves: `Ppp::send`
//! compresses a packet as it leaves the sending end (the frame's size and
//! a `Wire` note of what the frame says), `Ppp::receive` rebuilds it at the
//! receiving end from that note, or learns that the frame was lost below
//! PPP. The compressor sees every frame, the decompressor every frame not
//! lost, in the order they cross, so a lost frame leaves them out of step
//! exactly as it would on the wire. A link does both at once as it starts
//! a transmission (`Ppp::carry`); in EV-DO the PDSN sends when a packet
//! enters the base station's queue (`evdo::framing`) and the terminal
//! receives when the radio link has delivered
//! the packet's octets or given them up (RLP, `evdo::ran`). What crosses is
//! the frame: the packet with its headers compressed or whole, inside the
//! PPP framing (`FRAMING_BYTES`, added by the link).

mod rohc;
mod vj;
pub mod rows;

use super::{Body, DropReason, Packet};
use rows::PppResult;
use serde::{Deserialize, Serialize};

/// PPP framing bytes per frame (RFC 1662 §3.1): a flag (back-to-back
/// frames share one), the 2-byte protocol field and the 16-bit FCS, with
/// the address and control fields compressed away (ACFC, RFC 1661 §6.6),
/// as a dial-up link negotiates them. Byte stuffing (RFC 1662 §4.2) is left
/// to the link that counts it (the EV-DO air: `evdo::air`).
pub const FRAMING_BYTES: u32 = 5;

/// What header compression a PPP link negotiated (IPCP, RFC 1332 / RFC 3241).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    /// Plain PPP: every IP packet whole in its frame.
    #[default]
    None,
    /// Van Jacobson TCP/IP header compression (RFC 1144).
    Vj,
    /// Robust header compression, the TCP profile (RFC 6846).
    Rohc,
}

impl Compression {
    pub const ALL: [Compression; 3] = [Compression::None, Compression::Vj, Compression::Rohc];

    /// The compression named `name` (as `as_str` spells it).
    pub fn from_name(name: &str) -> Option<Compression> {
        Compression::ALL.into_iter().find(|c| c.as_str() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Vj => "vj",
            Compression::Rohc => "rohc",
        }
    }
}

/// What became of a frame that was not lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The packet came out with its header as sent.
    Intact,
    /// The decompressor rebuilt the TCP header wrong (the packet now holds
    /// the rebuilt header and `corrupt`): its checksum will fail at the
    /// destination (RFC 1144 carries the TCP checksum through unchanged).
    Corrupted,
    /// The decompressor could not rebuild it and discarded it (no context,
    /// or a failed ROHC CRC: RFC 6846 §5.3).
    Discarded,
}

/// A frame as the link carries it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Bytes of IP and TCP header in the frame (compressed or not).
    pub header_bytes: u32,
    pub outcome: Outcome,
}

/// What a frame tells the decompressor, as the compressor wrote it: its
/// header bytes and the scheme's own fields (slot, differences, context).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wire {
    pub header_bytes: u32,
    body: WireBody,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WireBody {
    /// The headers whole (no compression, or a frame the scheme passes as
    /// plain IP): the decompressor has nothing to do.
    Plain,
    Vj(vj::Sent),
    Rohc(rohc::Sent),
}

impl Wire {
    fn plain(h: &Body) -> Wire {
        Wire { header_bytes: full_header(h), body: WireBody::Plain }
    }
}

/// One header-compression scheme: a compressor at the link's sending end
/// and a decompressor at its receiving end, each fed every frame in order.
pub trait HeaderCompression: Send {
    /// The compressor: the frame that carries `pkt`, whose header is `h`.
    fn compress(&mut self, pkt: &Packet, h: &Body) -> Wire;
    /// The decompressor, given the frame `wire` of `pkt`: rebuilds the
    /// header, writing what it rebuilt into `h` (and marking `pkt` corrupt
    /// if it rebuilt it wrong).
    fn decompress(&mut self, pkt: &mut Packet, h: &mut Body, wire: &Wire) -> Outcome;

    /// The decompressor never gets the frame `wire` (lost below PPP, or
    /// dropped by a queue between the two ends): it learns only that a
    /// frame is missing, so it needs no packet.
    fn lose(&mut self, wire: &Wire);

    /// Both ends at once (a frame crossing a link): what the tests tell.
    fn carry(&mut self, pkt: &mut Packet, h: &mut Body, lost: bool) -> Frame {
        let wire = self.compress(pkt, h);
        let outcome = if lost {
            self.lose(&wire);
            Outcome::Intact
        } else {
            self.decompress(pkt, h, &wire)
        };
        Frame { header_bytes: wire.header_bytes, outcome }
    }
}

/// The headers a packet carries whole: IPv4 and TCP with options, or IPv4
/// and UDP.
pub fn full_header(h: &Body) -> u32 {
    match h {
        Body::Tcp(h) => super::packet::IPV4_HEADER + h.header_len(),
        Body::Udp { .. } => super::packet::IPV4_HEADER + super::packet::UDP_HEADER,
    }
}

/// A compressor's table of connections (both schemes keep 16: VJ's
/// one-byte slot numbers, ROHC's small CIDs), each under its flow and
/// direction; a new connection takes a free entry or the least recently
/// used one.
pub(crate) struct Connections<T> {
    entries: Vec<(Key, u64, T)>,
    tick: u64,
}

/// A connection as the compressor tells them apart: its flow and direction.
type Key = (u32, bool);

/// Entries of a connection table.
pub(crate) const CONNECTIONS: usize = 16;

impl<T> Default for Connections<T> {
    fn default() -> Self {
        Connections { entries: Vec::new(), tick: 0 }
    }
}

impl<T> Connections<T> {
    /// The entry of `key` (made with `fresh` if it has none) and whether it
    /// was there: (index, known).
    pub fn entry(&mut self, key: Key, fresh: impl FnOnce() -> T) -> (usize, bool) {
        self.tick += 1;
        if let Some(i) = self.entries.iter().position(|e| e.0 == key) {
            self.entries[i].1 = self.tick;
            return (i, true);
        }
        let e = (key, self.tick, fresh());
        if self.entries.len() < CONNECTIONS {
            self.entries.push(e);
            return (self.entries.len() - 1, false);
        }
        let i = (0..CONNECTIONS).min_by_key(|&i| self.entries[i].1).expect("a full table");
        self.entries[i] = e;
        (i, false)
    }

    pub fn get(&mut self, i: usize) -> &mut T {
        &mut self.entries[i].2
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.entries.len()
    }
}

/// PPP on one direction of a link.
pub struct Ppp {
    scheme: Option<Box<dyn HeaderCompression>>,
    /// What it counts: its row of the `ppp` table, but for the link's name.
    stats: PppResult,
}

impl Ppp {
    pub fn new(compression: Compression) -> Ppp {
        let scheme: Option<Box<dyn HeaderCompression>> = match compression {
            Compression::None => None,
            Compression::Vj => Some(Box::new(vj::Vj::default())),
            Compression::Rohc => Some(Box::new(rohc::Rohc::default())),
        };
        Ppp { scheme, stats: PppResult { compression: compression.as_str().into(), ..Default::default() } }
    }

    /// The sending end: the size of the frame carrying `pkt` with its
    /// header `h` (headers as compressed, framing not included) and what it
    /// tells the receiving end.
    pub fn send(&mut self, pkt: &Packet, h: &Body) -> (u32, Wire) {
        let full = full_header(h);
        let wire = match self.scheme.as_mut() {
            Some(s) => s.compress(pkt, h),
            None => Wire::plain(h),
        };
        let s = &mut self.stats;
        s.frames += 1;
        s.compressed += (wire.header_bytes < full) as u64;
        s.header_bytes += wire.header_bytes as u64;
        s.full_header_bytes += full as u64;
        // A real packet (the emulator's) may lay its options out tighter
        // than the model counts them: its payload is never negative.
        (wire.header_bytes + pkt.size.saturating_sub(full), wire)
    }

    /// The receiving end, frames in the order sent: why `pkt` does not come
    /// out, if it does not (lost below PPP, or discarded by the
    /// decompressor). A packet rebuilt wrong comes out, marked `corrupt`.
    pub fn receive(&mut self, pkt: &mut Packet, h: &mut Body, wire: &Wire, lost: bool) -> Option<DropReason> {
        if lost {
            if let Some(s) = self.scheme.as_mut() {
                s.lose(wire);
            }
            self.stats.lost += 1;
            return Some(DropReason::RandomLoss);
        }
        let outcome = match self.scheme.as_mut() {
            Some(s) => s.decompress(pkt, h, wire),
            None => Outcome::Intact,
        };
        let s = &mut self.stats;
        s.corrupted += (outcome == Outcome::Corrupted) as u64;
        s.discarded += (outcome == Outcome::Discarded) as u64;
        (outcome == Outcome::Discarded).then_some(DropReason::Decompression)
    }

    /// The receiving end misses the frame `wire`, which a queue between
    /// the compressor and the link dropped: to the decompressor it is a
    /// lost frame, counted apart from those lost below PPP.
    pub fn miss(&mut self, wire: &Wire) {
        if let Some(s) = self.scheme.as_mut() {
            s.lose(wire);
        }
        self.stats.dropped_in_queue += 1;
    }

    /// Both ends at once, as a link carries a frame: its size and why it
    /// does not come out, if so.
    pub fn carry(&mut self, pkt: &mut Packet, h: &mut Body, lost: bool) -> (u32, Option<DropReason>) {
        let (size, wire) = self.send(pkt, h);
        (size, self.receive(pkt, h, &wire, lost))
    }

    /// Its row of the `ppp` table.
    pub fn row(&self, link: String) -> PppResult {
        PppResult { link, ..self.stats.clone() }
    }
}

/// Test packets: a bulk transfer's data segments and ACKs, each with its
/// header beside it as a hop sees them.
#[cfg(test)]
pub(crate) mod testutil {
    use super::{Frame, HeaderCompression};
    use crate::engine::Time;
    use crate::net::{Body, NodeId, Packet, TcpFlags, TcpHeader};

    pub const MSS: u32 = 1448;

    /// A packet and its header.
    #[derive(Clone, Copy, Debug)]
    pub struct Seg {
        pub pkt: Packet,
        pub h: Body,
    }

    fn seg((pkt, h): (Packet, Body)) -> Seg {
        Seg { pkt, h }
    }

    pub fn data(uid: u64, seg_no: u64, ts: Option<(u32, u32)>) -> Seg {
        let h = TcpHeader { seq: 1 + seg_no * MSS as u64, ack: 1, len: MSS, flags: TcpFlags(TcpFlags::ACK), wnd: 65535, ts, ..Default::default() };
        seg(Packet::tcp(uid, 0, true, NodeId(0), NodeId(1), Time::ZERO, h))
    }

    pub fn ack(uid: u64, upto_seg: u64) -> Seg {
        let h = TcpHeader { seq: 1, ack: 1 + upto_seg * MSS as u64, flags: TcpFlags(TcpFlags::ACK), wnd: 65535, ..Default::default() };
        seg(Packet::tcp(uid, 0, false, NodeId(1), NodeId(0), Time::ZERO, h))
    }

    pub fn seq_of(s: &Seg) -> u64 {
        s.h.seq()
    }

    /// `HeaderCompression::carry` of a test segment.
    pub fn carry(c: &mut impl HeaderCompression, s: &mut Seg, lost: bool) -> Frame {
        c.carry(&mut s.pkt, &mut s.h, lost)
    }
}
