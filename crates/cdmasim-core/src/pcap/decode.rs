//! Link-layer, IPv4/IPv6 and TCP header decoding into a borrowed view.
//! Nothing is copied but the addresses (32 bytes on the stack).
//!
//! Lengths follow the IP headers, not the captured length, so a capture cut
//! by a small snaplen still reports the true segment sizes (RFC 791 total
//! length, RFC 8200 payload length minus extension headers), as tcptrace does.

use super::checksum::{fold, ones_sum};
use super::reader::*;

pub const TH_FIN: u8 = 0x01;
pub const TH_SYN: u8 = 0x02;
pub const TH_RST: u8 = 0x04;
pub const TH_PUSH: u8 = 0x08;
pub const TH_ACK: u8 = 0x10;
pub const TH_URG: u8 = 0x20;

/// A TCP segment as seen in a capture.
#[derive(Debug, Clone, Copy)]
pub struct TcpPacket<'a> {
    pub v6: bool,
    /// Addresses; IPv4 uses the first 4 bytes, the rest zero.
    pub src: [u8; 16],
    pub dst: [u8; 16],
    /// IPv4 identification (0 for IPv6).
    pub ip_id: u16,
    pub sport: u16,
    pub dport: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub win: u16,
    pub urp: u16,
    /// TCP header length in bytes (data offset * 4).
    pub hdr_len: u32,
    /// TCP header + data length according to the IP header.
    pub tcp_len: u32,
    /// The captured bytes from the first TCP header byte on.
    pub tcp: &'a [u8],
}

impl<'a> TcpPacket<'a> {
    /// Payload length per the IP header (tcptrace's tcp_data_length); a
    /// header claiming more than the IP length gives 0.
    pub fn data_len(&self) -> u32 {
        self.tcp_len.saturating_sub(self.hdr_len)
    }
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
    /// The captured part of the option bytes.
    pub fn options(&self) -> &'a [u8] {
        let end = (self.hdr_len as usize).min(self.tcp.len());
        if end <= 20 { &[] } else { &self.tcp[20..end] }
    }
    /// The captured part of the payload.
    pub fn payload(&self) -> &'a [u8] {
        let h = self.hdr_len as usize;
        if self.tcp.len() <= h {
            return &[];
        }
        let end = self.tcp.len().min(self.tcp_len as usize).max(h);
        &self.tcp[h..end]
    }

    /// Verify the TCP checksum (RFC 793 §3.1 pseudo-header; RFC 8200 §8.1
    /// for IPv6). None when the segment was not captured whole: inlined,
    /// as that is the usual answer where the capture cut the payload.
    #[inline(always)]
    pub fn checksum_ok(&self) -> Option<bool> {
        let n = self.tcp_len as usize;
        if self.tcp.len() < n || n < 20 {
            return None;
        }
        Some(self.checksum_of_whole(n))
    }

    #[inline(never)]
    fn checksum_of_whole(&self, n: usize) -> bool {
        let mut sum = if self.v6 {
            ones_sum(&self.src) + ones_sum(&self.dst)
        } else {
            // An IPv4 address is one of `ones_sum`'s 32-bit words, read
            // here directly: a call per address cost more than the sum.
            let word = |a: &[u8; 16]| u32::from_be_bytes([a[0], a[1], a[2], a[3]]) as u64;
            word(&self.src) + word(&self.dst)
        };
        sum += 6 + n as u64;
        sum += ones_sum(&self.tcp[..n]);
        fold(sum) == 0xffff
    }
}


/// Result of decoding one record.
#[derive(Debug)]
pub enum Decoded<'a> {
    Tcp(TcpPacket<'a>),
    /// Not IP, not TCP, or a non-first IPv4 fragment.
    Other,
    /// TCP, but too little was captured to read the 20-byte TCP header
    /// (tcptrace's "too short to trace").
    Truncated,
    /// The link type is not one we decode.
    UnknownLink,
}

/// Find the IP header in a link-layer frame: returns (ethertype-like
/// version hint, offset) or None.
#[inline(always)]
fn link_payload(linktype: u32, d: &[u8]) -> Option<Result<usize, ()>> {
    const ETH_IP4: u16 = 0x0800;
    const ETH_IP6: u16 = 0x86dd;
    let ip_or_other = |et: u16, off: usize| -> Option<Result<usize, ()>> {
        if et == ETH_IP4 || et == ETH_IP6 { Some(Ok(off)) } else { Some(Err(())) }
    };
    match linktype {
        LINKTYPE_ETHERNET => {
            if d.len() < 14 {
                return Some(Err(()));
            }
            let mut et = u16::from_be_bytes([d[12], d[13]]);
            let mut off = 14;
            // IEEE 802.1Q / 802.1ad tags (possibly stacked).
            while et == 0x8100 || et == 0x88a8 || et == 0x9100 {
                if d.len() < off + 4 {
                    return Some(Err(()));
                }
                et = u16::from_be_bytes([d[off + 2], d[off + 3]]);
                off += 4;
            }
            ip_or_other(et, off)
        }
        LINKTYPE_LINUX_SLL => {
            // 16-byte cooked header, protocol at bytes 14..16.
            if d.len() < 16 {
                return Some(Err(()));
            }
            ip_or_other(u16::from_be_bytes([d[14], d[15]]), 16)
        }
        LINKTYPE_LINUX_SLL2 => {
            // 20-byte cooked v2 header, protocol at bytes 0..2.
            if d.len() < 20 {
                return Some(Err(()));
            }
            ip_or_other(u16::from_be_bytes([d[0], d[1]]), 20)
        }
        LINKTYPE_RAW | LINKTYPE_RAW_12 | LINKTYPE_RAW_14 | LINKTYPE_IPV4 | LINKTYPE_IPV6 => Some(Ok(0)),
        LINKTYPE_NULL | LINKTYPE_LOOP => {
            // 4-byte address family: host order for NULL, network order
            // for LOOP; accept either (the values do not collide).
            if d.len() < 4 {
                return Some(Err(()));
            }
            let le = u32::from_le_bytes([d[0], d[1], d[2], d[3]]);
            let be = u32::from_be_bytes([d[0], d[1], d[2], d[3]]);
            let af = if le < 256 { le } else { be };
            match af {
                2 | 10 | 24 | 28 | 30 => Some(Ok(4)),
                _ => Some(Err(())),
            }
        }
        _ => None,
    }
}

#[inline(always)]
pub fn decode(linktype: u32, d: &[u8]) -> Decoded<'_> {
    let off = match link_payload(linktype, d) {
        None => return Decoded::UnknownLink,
        Some(Err(())) => return Decoded::Other,
        Some(Ok(o)) => o,
    };
    let ip = &d[off..];
    if ip.is_empty() {
        return Decoded::Other;
    }
    match ip[0] >> 4 {
        4 => decode_v4(ip),
        6 => decode_v6(ip),
        _ => Decoded::Other,
    }
}

#[inline(always)]
fn decode_v4(ip: &[u8]) -> Decoded<'_> {
    if ip.len() < 20 {
        return Decoded::Other;
    }
    let ihl = ((ip[0] & 0x0f) as usize) * 4;
    if ihl < 20 || ip[9] != 6 {
        return Decoded::Other;
    }
    let frag = u16::from_be_bytes([ip[6], ip[7]]);
    if frag & 0x1fff != 0 {
        return Decoded::Other; // not the first fragment: no TCP header
    }
    let total = u16::from_be_bytes([ip[2], ip[3]]) as u32;
    let mut src = [0u8; 16];
    let mut dst = [0u8; 16];
    src[..4].copy_from_slice(&ip[12..16]);
    dst[..4].copy_from_slice(&ip[16..20]);
    let id = u16::from_be_bytes([ip[4], ip[5]]);
    if ip.len() < ihl {
        return Decoded::Truncated;
    }
    tcp_view(false, src, dst, id, &ip[ihl..], total.saturating_sub(ihl as u32))
}

fn decode_v6(ip: &[u8]) -> Decoded<'_> {
    if ip.len() < 40 {
        return Decoded::Other;
    }
    let plen = u16::from_be_bytes([ip[4], ip[5]]) as u32;
    let mut next = ip[6];
    let mut src = [0u8; 16];
    let mut dst = [0u8; 16];
    src.copy_from_slice(&ip[8..24]);
    dst.copy_from_slice(&ip[24..40]);
    let mut off = 40usize;
    let mut ext = 0u32;
    // RFC 8200 §4: walk hop-by-hop, routing, fragment, destination options
    // and AH headers to the upper-layer header.
    loop {
        match next {
            6 => break,
            0 | 43 | 60 | 51 | 44 => {
                if ip.len() < off + 8 {
                    return Decoded::Other;
                }
                let len = match next {
                    44 => {
                        let fo = u16::from_be_bytes([ip[off + 2], ip[off + 3]]);
                        if fo & 0xfff8 != 0 {
                            return Decoded::Other;
                        }
                        8
                    }
                    51 => (ip[off + 1] as usize + 2) * 4,
                    _ => (ip[off + 1] as usize + 1) * 8,
                };
                next = ip[off];
                off += len;
                ext += len as u32;
            }
            _ => return Decoded::Other,
        }
    }
    if ip.len() < off {
        return Decoded::Truncated;
    }
    tcp_view(true, src, dst, 0, &ip[off..], plen.saturating_sub(ext))
}

#[inline(always)]
fn tcp_view(v6: bool, src: [u8; 16], dst: [u8; 16], ip_id: u16, t: &[u8], tcp_len: u32) -> Decoded<'_> {
    if t.len() < 20 {
        return Decoded::Truncated;
    }
    let be16 = |i: usize| u16::from_be_bytes([t[i], t[i + 1]]);
    let be32 = |i: usize| u32::from_be_bytes([t[i], t[i + 1], t[i + 2], t[i + 3]]);
    Decoded::Tcp(TcpPacket {
        v6,
        src,
        dst,
        ip_id,
        sport: be16(0),
        dport: be16(2),
        seq: be32(4),
        ack: be32(8),
        flags: t[13],
        win: be16(14),
        urp: be16(18),
        hdr_len: ((t[12] >> 4) as u32) * 4,
        tcp_len,
        tcp: t,
    })
}

/// The TCP options tcptrace looks at, parsed from the captured option bytes
/// (RFC 793 MSS, RFC 7323 window scale and timestamps, RFC 2018 SACK).
#[derive(Debug, Default, Clone, Copy)]
pub struct TcpOptions {
    pub mss: Option<u16>,
    pub ws: Option<u8>,
    pub tsval: Option<(u32, u32)>,
    pub sack_permitted: bool,
    /// Number of SACK blocks (None when there is no SACK option).
    pub sack_count: Option<u8>,
    /// The first two SACK blocks (left, right), for D-SACK detection.
    pub sacks: [(u32, u32); 2],
}

/// Inlined for the two usual cases (no options; NOP, NOP, timestamps on
/// an established connection, RFC 7323 Appendix A); any other layout goes
/// through the general walk.
#[inline(always)]
pub fn parse_options(opts: &[u8]) -> TcpOptions {
    if opts.is_empty() {
        return TcpOptions::default();
    }
    if opts.len() == 12 && opts[..4] == [1, 1, 8, 10] {
        let tsval = Some((
            u32::from_be_bytes([opts[4], opts[5], opts[6], opts[7]]),
            u32::from_be_bytes([opts[8], opts[9], opts[10], opts[11]]),
        ));
        return TcpOptions { tsval, ..TcpOptions::default() };
    }
    walk_options(opts)
}

#[inline(never)]
fn walk_options(opts: &[u8]) -> TcpOptions {
    let mut o = TcpOptions::default();
    let mut i = 0;
    while i < opts.len() {
        let kind = opts[i];
        match kind {
            0 | 1 => {
                i += 1;
                continue;
            }
            _ => {}
        }
        if i + 1 >= opts.len() {
            break;
        }
        let len = opts[i + 1] as usize;
        if len == 0 || i + len > opts.len() {
            break; // zero-length or truncated option: stop, as tcptrace does
        }
        // A length of 1 is malformed; tcptrace steps over it, so do we.
        let v = if len >= 2 { &opts[i + 2..i + len] } else { &[][..] };
        match kind {
            2 if v.len() >= 2 => o.mss = Some(u16::from_be_bytes([v[0], v[1]])),
            3 if !v.is_empty() => o.ws = Some(v[0]),
            4 => o.sack_permitted = true,
            5 => {
                let n = v.len() / 8;
                o.sack_count = Some(n.min(255) as u8);
                for (k, b) in v.chunks_exact(8).take(2).enumerate() {
                    o.sacks[k] = (
                        u32::from_be_bytes([b[0], b[1], b[2], b[3]]),
                        u32::from_be_bytes([b[4], b[5], b[6], b[7]]),
                    );
                }
            }
            8 if v.len() >= 8 => {
                o.tsval = Some((
                    u32::from_be_bytes([v[0], v[1], v[2], v[3]]),
                    u32::from_be_bytes([v[4], v[5], v[6], v[7]]),
                ))
            }
            _ => {}
        }
        i += len;
    }
    o
}
