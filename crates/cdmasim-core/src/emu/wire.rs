//! Real packets as the hops see them, and back. A TCP segment read from a
//! device becomes a `Packet` carrying its real header (sequence and
//! acknowledgement numbers, flags, window, timestamps, SACK blocks, the
//! SYN's options), so that a hop that reads headers works on it as on a
//! simulated one: PPP's header compression (`net::ppp`) compresses real
//! connections, and when its decompressor rebuilds a header wrong, the
//! rebuilt fields are written into the real bytes, which keep their
//! original checksum: the receiving kernel finds it wrong and drops the
//! segment (its TcpInCsumErrors), as Lee's laptop did (§3.3).
//! Anything else (UDP, ICMP, fragments) is a datagram of its size.

use crate::net::NodeId;
use crate::engine::Time;
use crate::net::packet::{Body, Packet, SackBlocks, SynOptions, TcpFlags, TcpHeader, IPV4_HEADER};

/// IPv4 protocol number of TCP.
const PROTO_TCP: u8 = 6;

/// The IP and TCP header lengths of a whole, unfragmented IPv4 TCP segment.
fn tcp_offsets(b: &[u8]) -> Option<(usize, usize)> {
    if b.len() < 20 || b[0] >> 4 != 4 || b[9] != PROTO_TCP {
        return None;
    }
    let ihl = (b[0] & 0x0f) as usize * 4;
    // More fragments, or a fragment offset: not a whole segment.
    if ihl < 20 || u16::from_be_bytes([b[6], b[7]]) & 0x3fff != 0 || b.len() < ihl + 20 {
        return None;
    }
    let thl = (b[ihl + 12] >> 4) as usize * 4;
    (thl >= 20 && b.len() >= ihl + thl).then_some((ihl, thl))
}

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// The TCP header of the segment at `t` (TCP header bytes, options included).
fn tcp_header(t: &[u8], payload: u32) -> TcpHeader {
    let flags = TcpFlags(t[13]);
    let mut h = TcpHeader {
        seq: be32(t, 4) as u64,
        ack: be32(t, 8) as u64,
        len: payload,
        flags,
        wnd: u16::from_be_bytes([t[14], t[15]]) as u64,
        ..Default::default()
    };
    let mut syn = SynOptions::default();
    let mut syn_seen = false;
    let mut i = 20;
    while i < t.len() {
        match t[i] {
            0 => break,
            1 => i += 1,
            kind => {
                let Some(&len) = t.get(i + 1) else { break };
                let len = len as usize;
                if len < 2 || i + len > t.len() {
                    break;
                }
                let o = &t[i..i + len];
                match (kind, len) {
                    (2, 4) => (syn.mss, syn_seen) = (u16::from_be_bytes([o[2], o[3]]), true),
                    (3, 3) => (syn.wscale, syn_seen) = (o[2], true),
                    (4, 2) => (syn.sack_permitted, syn_seen) = (true, true),
                    (8, 10) => h.ts = Some((be32(o, 2), be32(o, 6))),
                    (5, _) => {
                        let mut sack = SackBlocks::default();
                        for b in o[2..].chunks_exact(8).take(4) {
                            let (s, e) = (be32(b, 0) as u64, be32(b, 4) as u64);
                            // A block across the 32-bit wrap is left out.
                            if s < e {
                                sack.push((s, e));
                            }
                        }
                        h.sack = sack;
                    }
                    _ => {}
                }
                i += len;
            }
        }
    }
    // The model lays a SYN's options out as Linux does (MSS, window scale,
    // SACK-permitted): only a SYN that carries some is given them.
    if flags.has(TcpFlags::SYN) && syn_seen {
        h.syn_opts = Some(syn);
    }
    h
}

/// The packet the hops see for the real datagram `b`, and its header: its
/// TCP segment with its header if it is one, else a datagram of its size.
/// `flow` names the connection for a compressor's table, `forward` its
/// direction.
pub fn packet_of(b: &[u8], uid: u64, flow: u32, forward: bool, from: NodeId, to: NodeId, now: Time) -> (Packet, Body) {
    let (mut pkt, body) = match tcp_offsets(b) {
        Some((ihl, thl)) => {
            let payload = (b.len() - ihl - thl) as u32;
            Packet::tcp(uid, flow, forward, from, to, now, tcp_header(&b[ihl..ihl + thl], payload))
        }
        // 28 bytes of headers in a UDP body: only the size matters.
        None => Packet::udp(uid, flow, from, to, now, uid, (b.len() as u32).max(IPV4_HEADER + 8) - IPV4_HEADER - 8),
    };
    pkt.size = b.len() as u32;
    (pkt, body)
}

/// The connection a TCP segment belongs to, the same both ways, among one
/// user's: its two ports (a compressor keys its table by it).
pub fn connection_of(b: &[u8], user: usize) -> u32 {
    let Some((ihl, _)) = tcp_offsets(b) else { return 0 };
    let (sp, dp) = (u16::from_be_bytes([b[ihl], b[ihl + 1]]), u16::from_be_bytes([b[ihl + 2], b[ihl + 3]]));
    let (lo, hi) = (sp.min(dp) as u32, sp.max(dp) as u32);
    // FNV-1a over the user and the ports.
    [user as u32, lo, hi].iter().flat_map(|x| x.to_be_bytes()).fold(0x811c_9dc5u32, |h, byte| (h ^ byte as u32).wrapping_mul(0x0100_0193))
}

/// A packet came out of the network corrupt (a decompressor rebuilt its
/// header wrong, `rebuilt`): write what was rebuilt into its real bytes `b`, checksum
/// untouched, so the receiver's check fails as it would on the real link.
/// If the rebuilt fields happen to be the sent ones (the differences were
/// applied to another connection's header), the checksum is inverted
/// instead, which no correct segment carries.
pub fn write_rebuilt(b: &mut [u8], rebuilt: &Body) {
    let (Some((ihl, _)), Body::Tcp(h)) = (tcp_offsets(b), rebuilt) else { return };
    let t = &mut b[ihl..];
    let before: [u8; 16] = t[..16].try_into().expect("a TCP header");
    t[4..8].copy_from_slice(&(h.seq as u32).to_be_bytes());
    t[8..12].copy_from_slice(&(h.ack as u32).to_be_bytes());
    if h.wnd <= 0xffff {
        t[14..16].copy_from_slice(&(h.wnd as u16).to_be_bytes());
    }
    if t[..16] == before {
        // Not inverted: 0x0000 and 0xffff are the same one's-complement
        // sum, so an inverted zero would still pass. One more is wrong.
        let c = u16::from_be_bytes([t[16], t[17]]).wrapping_add(1);
        t[16..18].copy_from_slice(&c.to_be_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::NodeId;

    /// An IPv4 TCP segment: 10.0.0.1:5201 → 10.0.0.2:40000, with options
    /// NOP NOP TS and `payload` bytes.
    fn segment(seq: u32, ack: u32, payload: usize, ts: bool) -> Vec<u8> {
        let opts: Vec<u8> = if ts { vec![1, 1, 8, 10, 0, 0, 0, 7, 0, 0, 0, 9] } else { vec![] };
        let thl = 20 + opts.len();
        let total = 20 + thl + payload;
        let mut b = vec![0x45, 0, (total >> 8) as u8, total as u8, 0, 1, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2];
        b.extend_from_slice(&5201u16.to_be_bytes());
        b.extend_from_slice(&40000u16.to_be_bytes());
        b.extend_from_slice(&seq.to_be_bytes());
        b.extend_from_slice(&ack.to_be_bytes());
        b.push(((thl / 4) as u8) << 4);
        b.push(0x18); // PSH ACK
        b.extend_from_slice(&29200u16.to_be_bytes());
        b.extend_from_slice(&[0xab, 0xcd, 0, 0]); // checksum, urgent pointer
        b.extend_from_slice(&opts);
        b.resize(total, 0x5a);
        b
    }

    #[test]
    fn a_real_segment_becomes_a_packet_with_its_header() {
        let b = segment(3_000_000_000, 12345, 1448, true);
        let (p, body) = packet_of(&b, 7, 9, true, NodeId(1), NodeId(2), Time::ZERO);
        assert_eq!(p.size as usize, b.len());
        let Body::Tcp(h) = body else { panic!("not TCP") };
        assert_eq!((h.seq, h.ack, h.len, h.wnd), (3_000_000_000, 12345, 1448, 29200));
        assert_eq!(h.ts, Some((7, 9)));
        assert!(h.flags.has(TcpFlags::ACK) && !h.flags.has(TcpFlags::SYN));
        assert_eq!((p.flow, p.forward), (9, true));
        // Not TCP: a datagram of its size.
        let mut udp = b.clone();
        udp[9] = 17;
        assert!(matches!(packet_of(&udp, 7, 0, true, NodeId(1), NodeId(2), Time::ZERO).1, Body::Udp { .. }));
    }

    #[test]
    fn both_directions_of_a_connection_share_its_number() {
        let down = segment(1, 1, 0, false);
        let mut up = down.clone();
        up[20..22].copy_from_slice(&40000u16.to_be_bytes());
        up[22..24].copy_from_slice(&5201u16.to_be_bytes());
        assert_eq!(connection_of(&down, 3), connection_of(&up, 3));
        assert_ne!(connection_of(&down, 3), connection_of(&down, 4));
    }

    #[test]
    fn a_rebuilt_header_goes_into_the_bytes_and_the_checksum_no_longer_fits() {
        let mut b = segment(1000, 1, 100, false);
        let (_, mut rebuilt) = packet_of(&b, 1, 0, true, NodeId(1), NodeId(2), Time::ZERO);
        let Body::Tcp(h) = &mut rebuilt else { panic!() };
        h.seq = 900; // rebuilt one segment behind
        write_rebuilt(&mut b, &rebuilt);
        assert_eq!(be32(&b, 24), 900);
        assert_eq!(&b[36..38], &[0xab, 0xcd], "checksum as sent");
        // The same fields as sent: the checksum is changed by one.
        let mut c = segment(1000, 1, 100, false);
        let (_, sent) = packet_of(&c, 1, 0, true, NodeId(1), NodeId(2), Time::ZERO);
        write_rebuilt(&mut c, &sent);
        assert_eq!(&c[36..38], &[0xab, 0xce]);
    }
}
