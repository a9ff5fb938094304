//! A pcap writer for the simulator: classic pcap (microsecond stamps),
//! link type RAW (101: packets start at the IPv4 header), headers only
//! (128 bytes of each: the payload is not simulated, so it is cut as
//! tcpdump -s would cut it, while the IP total length keeps the real size).
//! A segment whose header was rebuilt wrong below IP (`Packet::corrupt`)
//! is written whole, payload zeros, with a checksum that fails, so that a
//! reader can verify it (Lee §3.3 found its bursts that way); the
//! file's snaplen is therefore 65535.
//! Node i has address 10.0.i/250.(i%250 + 1); flow i uses source port
//! 10000 + i and destination port 5001. Sequence numbers are the simulator's
//! 64-bit ones taken modulo 2^32; windows are scaled by the shift announced
//! in the SYN, as on the wire.

use crate::net::NodeId;
use super::checksum::{checksum, ones_sum};
use crate::engine::Time;
use crate::net::packet::{Body, Packet, TcpFlags, TcpHeader, IPV4_HEADER, UDP_HEADER};
use std::io::{self, BufWriter, Write};

pub const LINKTYPE_RAW: u32 = 101;
/// Bytes kept of each intact packet.
pub const SNAPLEN: u32 = 128;
/// The file header's snaplen: corrupted segments are kept whole.
pub const FILE_SNAPLEN: u32 = 65535;

pub fn node_addr(node: NodeId) -> [u8; 4] {
    [10, 0, (node.0 / 250) as u8, (node.0 % 250 + 1) as u8]
}

pub fn flow_ports(flow: u32) -> (u16, u16) {
    (10_000u16.wrapping_add(flow as u16), 5001)
}

pub struct PcapWriter<W: Write> {
    out: BufWriter<W>,
    buf: Vec<u8>,
}

impl<W: Write> PcapWriter<W> {
    pub fn new(w: W) -> io::Result<Self> {
        let mut out = BufWriter::with_capacity(1 << 16, w);
        out.write_all(&0xa1b2_c3d4u32.to_le_bytes())?;
        out.write_all(&2u16.to_le_bytes())?;
        out.write_all(&4u16.to_le_bytes())?;
        out.write_all(&0i32.to_le_bytes())?;
        out.write_all(&0u32.to_le_bytes())?;
        out.write_all(&FILE_SNAPLEN.to_le_bytes())?;
        out.write_all(&LINKTYPE_RAW.to_le_bytes())?;
        Ok(PcapWriter { out, buf: Vec::with_capacity(256) })
    }

    /// Write one packet seen at `now`, with its header `body`. `wscale` is
    /// the shift to apply to this packet's window field (0 for SYNs and for
    /// the direction that announced none).
    pub fn write(&mut self, now: Time, p: &Packet, body: &Body, wscale: u8) -> io::Result<()> {
        self.buf.clear();
        let (proto, l4_len) = match body {
            Body::Tcp(h) => (6u8, h.header_len() + h.len),
            Body::Udp { len, .. } => (17u8, UDP_HEADER + len),
        };
        let (src, dst) = (node_addr(p.src), node_addr(p.dst));
        // IPv4 header (RFC 791), no options.
        let total = IPV4_HEADER + l4_len;
        let ip_start = self.buf.len();
        self.buf.extend_from_slice(&[0x45, 0]);
        self.buf.extend_from_slice(&(total as u16).to_be_bytes());
        self.buf.extend_from_slice(&(p.uid as u16).to_be_bytes());
        self.buf.extend_from_slice(&[0x40, 0, 64, proto, 0, 0]);
        self.buf.extend_from_slice(&src);
        self.buf.extend_from_slice(&dst);
        let c = checksum(ones_sum(&self.buf[ip_start..]));
        self.buf[ip_start + 10..ip_start + 12].copy_from_slice(&c.to_be_bytes());
        let l4_start = self.buf.len();
        let (sport, dport) = if p.forward { flow_ports(p.flow) } else { (flow_ports(p.flow).1, flow_ports(p.flow).0) };
        match body {
            Body::Tcp(h) => self.tcp(h, sport, dport, wscale),
            Body::Udp { len, .. } => {
                self.buf.extend_from_slice(&sport.to_be_bytes());
                self.buf.extend_from_slice(&dport.to_be_bytes());
                self.buf.extend_from_slice(&((UDP_HEADER + len) as u16).to_be_bytes());
                self.buf.extend_from_slice(&[0, 0]);
            }
        }
        // Transport checksum over the pseudo-header and the segment; the
        // payload is zeros, which add nothing to the sum.
        let sum = ones_sum(&src) + ones_sum(&dst) + proto as u64 + l4_len as u64 + ones_sum(&self.buf[l4_start..]);
        // A corrupted segment carries its sender's checksum over a header
        // that is no longer the one written: off by 256, which no one's-
        // complement equivalence hides.
        let ck = checksum(sum) ^ if p.corrupt { 0x0100 } else { 0 };
        let off = l4_start + if proto == 6 { 16 } else { 6 };
        self.buf[off..off + 2].copy_from_slice(&ck.to_be_bytes());
        let caplen = if p.corrupt { total } else { (self.buf.len() as u32).min(SNAPLEN) };
        let padded = (caplen as usize).saturating_sub(self.buf.len());
        self.buf.extend(std::iter::repeat_n(0u8, padded));
        let us = now.0 / 1_000;
        self.out.write_all(&((us / 1_000_000) as u32).to_le_bytes())?;
        self.out.write_all(&((us % 1_000_000) as u32).to_le_bytes())?;
        self.out.write_all(&caplen.to_le_bytes())?;
        self.out.write_all(&total.to_le_bytes())?;
        self.out.write_all(&self.buf[..caplen as usize])
    }

    fn tcp(&mut self, h: &TcpHeader, sport: u16, dport: u16, wscale: u8) {
        let b = &mut self.buf;
        b.extend_from_slice(&sport.to_be_bytes());
        b.extend_from_slice(&dport.to_be_bytes());
        b.extend_from_slice(&(h.seq as u32).to_be_bytes());
        b.extend_from_slice(&(h.ack as u32).to_be_bytes());
        let doff = (h.header_len() / 4) as u8;
        b.push(doff << 4);
        b.push(h.flags.0);
        let shift = if h.flags.has(TcpFlags::SYN) { 0 } else { wscale };
        b.extend_from_slice(&((h.wnd >> shift).min(65_535) as u16).to_be_bytes());
        b.extend_from_slice(&[0, 0, 0, 0]); // checksum (filled in later), urgent pointer
        // Options in the order and padding that TcpHeader::options_len assumes.
        if let Some(o) = h.syn_opts {
            b.extend_from_slice(&[2, 4]);
            b.extend_from_slice(&o.mss.to_be_bytes());
            if o.sack_permitted {
                if h.ts.is_some() {
                    b.extend_from_slice(&[4, 2]);
                } else {
                    b.extend_from_slice(&[1, 1, 4, 2]);
                }
            } else if h.ts.is_some() {
                b.extend_from_slice(&[1, 1]);
            }
        } else if h.ts.is_some() {
            b.extend_from_slice(&[1, 1]);
        }
        if let Some((val, ecr)) = h.ts {
            b.extend_from_slice(&[8, 10]);
            b.extend_from_slice(&val.to_be_bytes());
            b.extend_from_slice(&ecr.to_be_bytes());
        }
        if let Some(o) = h.syn_opts {
            b.extend_from_slice(&[1, 3, 3, o.wscale]);
        }
        if !h.sack.is_empty() {
            b.extend_from_slice(&[1, 1, 5, 2 + 8 * h.sack.len() as u8]);
            for (s, e) in h.sack.wire() {
                b.extend_from_slice(&s.to_be_bytes());
                b.extend_from_slice(&e.to_be_bytes());
            }
        }
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    pub fn get_ref(&self) -> &W {
        self.out.get_ref()
    }

    /// The underlying writer, everything written to it.
    pub fn into_inner(self) -> io::Result<W> {
        self.out.into_inner().map_err(|e| e.into_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{SynOptions, TcpHeader};

    #[test]
    fn tcp_header_bytes_match_declared_lengths() {
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        for (ts, sackp, blocks) in [(true, true, 0u8), (false, true, 0), (true, false, 2), (false, false, 3)] {
            let mut h = TcpHeader { seq: 1, ack: 1, len: 1000, flags: TcpFlags(TcpFlags::ACK), wnd: 1 << 20, ..Default::default() };
            h.ts = ts.then_some((5, 6));
            for i in 0..blocks {
                h.sack.push((100 * i as u64, 100 * i as u64 + 50));
            }
            let (p, body) = Packet::tcp(1, 0, true, NodeId(0), NodeId(1), Time::ZERO, h);
            w.write(Time::ZERO, &p, &body, 5).unwrap();
            assert_eq!(w.buf.len() as u32, 20 + h.header_len(), "ts={ts} blocks={blocks}");
            let syn = TcpHeader {
                flags: TcpFlags(TcpFlags::SYN),
                ts: ts.then_some((1, 0)),
                syn_opts: Some(SynOptions { mss: 1460, sack_permitted: sackp, wscale: 7 }),
                ..Default::default()
            };
            let (p, body) = Packet::tcp(2, 0, true, NodeId(0), NodeId(1), Time::ZERO, syn);
            w.write(Time::ZERO, &p, &body, 0).unwrap();
            assert_eq!(w.buf.len() as u32, 20 + syn.header_len());
            // The IPv4 header checksum verifies to zero.
            assert_eq!(checksum(ones_sum(&w.buf[..20])), 0);
        }
    }
}
