//! Hand-built packets and capture files for the unit tests (checksums
//! computed, both byte orders, every supported link type).

use super::reader::*;

pub fn csum(data: &[u8], init: u32) -> u16 {
    super::checksum::checksum(init as u64 + super::checksum::ones_sum(data))
}

pub struct Seg<'a> {
    pub sport: u16,
    pub dport: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub win: u16,
    pub opts: &'a [u8],
    pub payload: &'a [u8],
}

impl Default for Seg<'_> {
    fn default() -> Self {
        Seg { sport: 1000, dport: 80, seq: 1, ack: 0, flags: 0x10, win: 65535, opts: &[], payload: &[] }
    }
}

fn tcp_bytes(s: &Seg, pseudo: u32) -> Vec<u8> {
    let hl = 20 + s.opts.len();
    assert!(hl % 4 == 0);
    let mut t = Vec::new();
    t.extend_from_slice(&s.sport.to_be_bytes());
    t.extend_from_slice(&s.dport.to_be_bytes());
    t.extend_from_slice(&s.seq.to_be_bytes());
    t.extend_from_slice(&s.ack.to_be_bytes());
    t.push(((hl / 4) as u8) << 4);
    t.push(s.flags);
    t.extend_from_slice(&s.win.to_be_bytes());
    t.extend_from_slice(&[0, 0, 0, 0]);
    t.extend_from_slice(s.opts);
    t.extend_from_slice(s.payload);
    let c = csum(&t, pseudo + 6 + t.len() as u32);
    t[16..18].copy_from_slice(&c.to_be_bytes());
    t
}

fn sum_words(b: &[u8]) -> u32 {
    b.chunks(2).map(|c| u16::from_be_bytes([c[0], c[1]]) as u32).sum()
}

pub fn ipv4(src: [u8; 4], dst: [u8; 4], id: u16, s: &Seg) -> Vec<u8> {
    let t = tcp_bytes(s, sum_words(&src) + sum_words(&dst));
    let mut ip = vec![0x45, 0];
    ip.extend_from_slice(&((20 + t.len()) as u16).to_be_bytes());
    ip.extend_from_slice(&id.to_be_bytes());
    ip.extend_from_slice(&[0x40, 0, 64, 6, 0, 0]);
    ip.extend_from_slice(&src);
    ip.extend_from_slice(&dst);
    let c = csum(&ip, 0);
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    ip.extend_from_slice(&t);
    ip
}

pub fn ipv6(src: [u8; 16], dst: [u8; 16], s: &Seg) -> Vec<u8> {
    let t = tcp_bytes(s, sum_words(&src) + sum_words(&dst));
    let mut ip = vec![0x60, 0, 0, 0];
    ip.extend_from_slice(&(t.len() as u16).to_be_bytes());
    ip.extend_from_slice(&[6, 64]);
    ip.extend_from_slice(&src);
    ip.extend_from_slice(&dst);
    ip.extend_from_slice(&t);
    ip
}

/// Wrap an IP packet in the given link layer.
pub fn link(linktype: u32, ip: &[u8]) -> Vec<u8> {
    let v6 = ip[0] >> 4 == 6;
    let et: [u8; 2] = if v6 { [0x86, 0xdd] } else { [0x08, 0x00] };
    let mut f = Vec::new();
    match linktype {
        LINKTYPE_ETHERNET => {
            f.extend_from_slice(&[2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2]);
            f.extend_from_slice(&[0x81, 0x00, 0x00, 0x05]); // a VLAN tag
            f.extend_from_slice(&et);
        }
        LINKTYPE_LINUX_SLL => {
            f.extend_from_slice(&[0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0]);
            f.extend_from_slice(&et);
        }
        LINKTYPE_LINUX_SLL2 => {
            f.extend_from_slice(&et);
            f.extend_from_slice(&[0, 0, 0, 0, 0, 3, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0]);
        }
        LINKTYPE_NULL => f.extend_from_slice(&(if v6 { 30u32 } else { 2u32 }).to_le_bytes()),
        LINKTYPE_LOOP => f.extend_from_slice(&(if v6 { 30u32 } else { 2u32 }).to_be_bytes()),
        _ => {}
    }
    f.extend_from_slice(ip);
    f
}

/// A classic pcap file. `records`: (timestamp ns, captured bytes, original length).
pub fn pcap_file(be: bool, nanos: bool, linktype: u32, snaplen: u32, records: &[(u64, Vec<u8>, u32)]) -> Vec<u8> {
    let w32 = |v: u32| if be { v.to_be_bytes() } else { v.to_le_bytes() };
    let w16 = |v: u16| if be { v.to_be_bytes() } else { v.to_le_bytes() };
    let mut f = Vec::new();
    f.extend_from_slice(&w32(if nanos { 0xa1b2_3c4d } else { 0xa1b2_c3d4 }));
    f.extend_from_slice(&w16(2));
    f.extend_from_slice(&w16(4));
    f.extend_from_slice(&w32(0));
    f.extend_from_slice(&w32(0));
    f.extend_from_slice(&w32(snaplen));
    f.extend_from_slice(&w32(linktype));
    for (ts, data, orig) in records {
        let sec = (ts / 1_000_000_000) as u32;
        let frac = (ts % 1_000_000_000) as u32;
        f.extend_from_slice(&w32(sec));
        f.extend_from_slice(&w32(if nanos { frac } else { frac / 1000 }));
        f.extend_from_slice(&w32(data.len() as u32));
        f.extend_from_slice(&w32(*orig));
        f.extend_from_slice(data);
    }
    f
}

/// A pcapng file with one interface (`tsresol` raw option byte, None =
/// default µs). Packets as EPBs, or SPBs when `simple`.
pub fn pcapng_file(be: bool, linktype: u16, tsresol: Option<u8>, simple: bool, records: &[(u64, Vec<u8>)]) -> Vec<u8> {
    let w32 = |v: u32| if be { v.to_be_bytes() } else { v.to_le_bytes() };
    let w16 = |v: u16| if be { v.to_be_bytes() } else { v.to_le_bytes() };
    let mut f = Vec::new();
    let block = |f: &mut Vec<u8>, t: u32, body: &[u8]| {
        let mut b = body.to_vec();
        while b.len() % 4 != 0 {
            b.push(0);
        }
        let len = 12 + b.len() as u32;
        f.extend_from_slice(&w32(t));
        f.extend_from_slice(&w32(len));
        f.extend_from_slice(&b);
        f.extend_from_slice(&w32(len));
    };
    let mut shb = Vec::new();
    shb.extend_from_slice(&w32(0x1a2b_3c4d));
    shb.extend_from_slice(&w16(1));
    shb.extend_from_slice(&w16(0));
    shb.extend_from_slice(&[0xff; 8]);
    block(&mut f, 0x0a0d_0d0a, &shb);
    let mut idb = Vec::new();
    idb.extend_from_slice(&w16(linktype));
    idb.extend_from_slice(&w16(0));
    idb.extend_from_slice(&w32(0));
    if let Some(r) = tsresol {
        idb.extend_from_slice(&w16(9));
        idb.extend_from_slice(&w16(1));
        idb.extend_from_slice(&[r, 0, 0, 0]);
        idb.extend_from_slice(&[0, 0, 0, 0]);
    }
    block(&mut f, 1, &idb);
    let per_sec: u128 = match tsresol {
        None => 1_000_000,
        Some(r) if r & 0x80 == 0 => 10u128.pow(r as u32),
        Some(r) => 1u128 << (r & 0x7f),
    };
    for (ts, data) in records {
        let mut b = Vec::new();
        if simple {
            b.extend_from_slice(&w32(data.len() as u32));
            b.extend_from_slice(data);
            block(&mut f, 3, &b);
        } else {
            let ticks = (*ts as u128 * per_sec / 1_000_000_000) as u64;
            b.extend_from_slice(&w32(0));
            b.extend_from_slice(&w32((ticks >> 32) as u32));
            b.extend_from_slice(&w32(ticks as u32));
            b.extend_from_slice(&w32(data.len() as u32));
            b.extend_from_slice(&w32(data.len() as u32));
            b.extend_from_slice(data);
            block(&mut f, 6, &b);
        }
    }
    f
}
