//! Packets as they cross the network. Sizes are real: an IPv4 header of 20
//! bytes, a TCP header of 20 bytes plus options padded to 4 bytes, a UDP
//! header of 8 bytes.

use crate::engine::Time;
use super::NodeId;

pub const IPV4_HEADER: u32 = 20;
pub const TCP_HEADER: u32 = 20;
pub const UDP_HEADER: u32 = 8;

/// Up to four SACK blocks [start, end) (RFC 2018 §3: at most four, three
/// when the timestamps option is also present), held as the wire carries
/// them: 32-bit sequence numbers, which the reader unwraps against the ACK
/// of the same segment (every block lies within the receive window of it,
/// under 2^30 bytes, so the unwrapping is exact). Unused slots are empty
/// blocks (start == end), which a SACK option never carries.
///
/// Why not 64-bit blocks and a count: a header is copied into the network's
/// store when its packet is sent and out to the endpoint it reaches, and
/// 32-bit blocks keep a `Body` at 80 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    blocks: [(u32, u32); 4],
}

impl SackBlocks {
    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.blocks.iter().take_while(|b| b.0 != b.1).count()
    }
    pub fn is_empty(&self) -> bool {
        self.blocks[0].0 == self.blocks[0].1
    }
    /// Append the block [start, end) (start < end, as RFC 2018 has them).
    pub fn push(&mut self, b: (u64, u64)) {
        debug_assert!(b.0 < b.1, "an empty SACK block");
        let i = self.len();
        self.blocks[i] = (b.0 as u32, b.1 as u32);
    }
    /// The blocks as on the wire (32-bit sequence numbers).
    pub fn wire(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.blocks[..self.len()].iter().copied()
    }
    /// The blocks in the 64-bit sequence space, unwrapped against `ack`,
    /// the cumulative ACK of the segment that carries them.
    pub fn iter(&self, ack: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.wire().map(move |(s, e)| (unwrap_seq(ack, s), unwrap_seq(ack, e)))
    }
}

/// The 64-bit sequence number nearest `near` whose low 32 bits are `x`.
pub(crate) fn unwrap_seq(near: u64, x: u32) -> u64 {
    near.wrapping_add(x.wrapping_sub(near as u32) as i32 as i64 as u64)
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpFlags(pub u8);

impl TcpFlags {
    pub const FIN: u8 = 0x01;
    pub const SYN: u8 = 0x02;
    pub const ACK: u8 = 0x10;
    pub fn has(self, f: u8) -> bool {
        self.0 & f != 0
    }
}

/// A TCP header with 64-bit sequence numbers (the sequence space never wraps
/// inside the simulator; the pcap writer truncates to 32 bits).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpHeader {
    pub seq: u64,
    pub ack: u64,
    /// Payload bytes.
    pub len: u32,
    pub flags: TcpFlags,
    /// Advertised receive window in bytes (unscaled).
    pub wnd: u64,
    /// Timestamps option (RFC 7323): (TSval, TSecr).
    pub ts: Option<(u32, u32)>,
    pub sack: SackBlocks,
    /// SYN segments carry MSS, SACK-permitted and window-scale options.
    pub syn_opts: Option<SynOptions>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SynOptions {
    pub mss: u16,
    pub sack_permitted: bool,
    pub wscale: u8,
}

impl TcpHeader {
    /// Length of the options field as Linux lays it out, each option padded
    /// with NOPs to a 4-byte boundary: NOP NOP TS (12), NOP NOP SACK (4 + 8n);
    /// a SYN carries MSS (4), NOP WS (4) and SACK-permitted, which fills the
    /// two NOPs before the timestamps (or takes NOP NOP SACKOK, 4, without them).
    pub fn options_len(&self) -> u32 {
        let mut n = 0;
        if self.ts.is_some() {
            n += 12;
        }
        if let Some(o) = self.syn_opts {
            n += 4 + 4;
            if o.sack_permitted && self.ts.is_none() {
                n += 4;
            }
        }
        if !self.sack.is_empty() {
            n += 4 + 8 * self.sack.len() as u32;
        }
        n
    }

    /// TCP header length in bytes (20 + options).
    pub fn header_len(&self) -> u32 {
        TCP_HEADER + self.options_len()
    }

    /// Sequence space the segment occupies (SYN and FIN count one each).
    pub fn seq_len(&self) -> u64 {
        self.len as u64 + self.flags.has(TcpFlags::SYN) as u64 + self.flags.has(TcpFlags::FIN) as u64
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Body {
    Tcp(TcpHeader),
    /// A datagram of a CBR stream: its sequence number and payload size.
    Udp { seq: u64, len: u32 },
}

/// What crosses the hops: the fields a hop reads (addresses, size, times)
/// and a reference to the packet's header, which the network keeps apart
/// (`net::Headers`; docs/packet.md). Every hop copies a packet several
/// times (into its queue, onto its wire list, into the event it hands on),
/// so it is kept at 40 bytes; only PPP, the endpoints and captures read
/// the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Unique among the packets in the network at one time. The simulator
    /// numbers them per run in creation order (also the IPv4 id, truncated);
    /// the emulator uses its packet store's index, reused once a packet left.
    pub uid: u64,
    /// When the packet entered the network, for one-way delays.
    pub created: Time,
    pub flow: u32,
    pub src: NodeId,
    pub dst: NodeId,
    /// Bytes on the wire at the IP layer (headers included).
    pub size: u32,
    /// Its header in the network's store (`HeaderRef::NONE` until sent).
    pub hdr: HeaderRef,
    /// True for data towards the flow's receiver, false for ACKs back to its sender.
    pub forward: bool,
    /// Its TCP header was rebuilt wrong below IP (a header decompressor
    /// out of step after a lost frame: `net::ppp`): the checksum fails at
    /// the destination, whose stack discards it.
    pub corrupt: bool,
}

/// Where a packet's header is kept in the network's store (`net::Headers`).
/// Debug builds also carry the slot's generation, to catch a read of a
/// slot given back (and perhaps taken again by another packet).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeaderRef {
    pub(crate) slot: u32,
    #[cfg(debug_assertions)]
    pub(crate) generation: u32,
}

impl HeaderRef {
    /// Not in any store: a packet made but not yet sent.
    pub const NONE: HeaderRef = HeaderRef {
        slot: u32::MAX,
        #[cfg(debug_assertions)]
        generation: 0,
    };
}

impl Packet {
    /// A TCP segment and its header, to be sent (`network::Network::send`).
    pub fn tcp(uid: u64, flow: u32, forward: bool, src: NodeId, dst: NodeId, now: Time, h: TcpHeader) -> (Self, Body) {
        let size = IPV4_HEADER + h.header_len() + h.len;
        (Packet { uid, flow, forward, src, dst, size, created: now, corrupt: false, hdr: HeaderRef::NONE }, Body::Tcp(h))
    }

    /// A UDP datagram and its header, to be sent.
    pub fn udp(uid: u64, flow: u32, src: NodeId, dst: NodeId, now: Time, seq: u64, len: u32) -> (Self, Body) {
        let size = IPV4_HEADER + UDP_HEADER + len;
        (Packet { uid, flow, forward: true, src, dst, size, created: now, corrupt: false, hdr: HeaderRef::NONE }, Body::Udp { seq, len })
    }
}

impl Body {
    /// A TCP segment's sequence number or a datagram's number.
    pub fn seq(&self) -> u64 {
        match *self {
            Body::Tcp(h) => h.seq,
            Body::Udp { seq, .. } => seq,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_sizes_match_real_stacks() {
        let mut h = TcpHeader { len: 1448, ..Default::default() };
        assert_eq!(Packet::tcp(0, 0, true, NodeId(0), NodeId(1), Time::ZERO, h).0.size, 20 + 20 + 1448);
        h.ts = Some((1, 2));
        // NOP NOP TS(10) = 12 bytes of options: 1500-byte packets for MSS 1448.
        assert_eq!(Packet::tcp(0, 0, true, NodeId(0), NodeId(1), Time::ZERO, h).0.size, 1500);
        h.sack.push((10, 20));
        // + NOP NOP SACK(2 + 8) = 24 bytes of options with one block.
        assert_eq!(h.options_len(), 24);
        let syn = TcpHeader {
            flags: TcpFlags(TcpFlags::SYN),
            ts: Some((0, 0)),
            syn_opts: Some(SynOptions { mss: 1460, sack_permitted: true, wscale: 7 }),
            ..Default::default()
        };
        // MSS, SACK-permitted, TS, NOP, WS: 20 bytes as Linux sends.
        assert_eq!(syn.options_len(), 20);
        assert_eq!(syn.seq_len(), 1);
        assert_eq!(Packet::udp(0, 0, NodeId(0), NodeId(1), Time::ZERO, 0, 160).0.size, 188);
    }

    #[test]
    fn sack_blocks_unwrap_against_the_ack() {
        let mut s = SackBlocks::default();
        assert!(s.is_empty());
        let base = 5u64 << 32;
        s.push((base - 100, base + 200));
        s.push((base + 1000, base + 3000));
        assert_eq!(s.len(), 2);
        assert_eq!(s.iter(base - 1000).collect::<Vec<_>>(), vec![(base - 100, base + 200), (base + 1000, base + 3000)]);
        assert_eq!(s.wire().next(), Some(((base - 100) as u32, 200)));
    }

    /// A packet is copied several times per hop: it holds only what the
    /// hops read, 40 bytes (48 with a debug build's generation stamp).
    #[test]
    fn packet_stays_small() {
        let limit = if cfg!(debug_assertions) { 48 } else { 40 };
        assert!(std::mem::size_of::<Packet>() <= limit, "{}", std::mem::size_of::<Packet>());
    }
}
