//! Streaming reader for classic pcap (both byte orders, micro- or nanosecond
//! stamps) and pcapng (SHB/IDB/EPB/SPB/PB, any byte order, `if_tsresol`).
//!
//! The file is memory-mapped (memmap2) and every [`Record`] borrows its bytes
//! from the map: reading allocates nothing per packet. A file cut short in the
//! middle of a record ends the stream with a warning naming that record; a
//! header that cannot be right (absurd lengths, bad block trailers) is a
//! typed [`PcapError`] naming the record and its byte offset.

use super::error::PcapError;
use std::path::Path;

/// Largest record we believe in. libpcap refuses captured lengths above
/// max(snaplen, 262144); we allow more (pcapng jumbo captures) but not
/// the gigabytes a random 32-bit field usually claims.
const MAX_RECORD: u64 = 64 * 1024 * 1024;

pub const LINKTYPE_NULL: u32 = 0;
pub const LINKTYPE_ETHERNET: u32 = 1;
pub const LINKTYPE_RAW_12: u32 = 12;
pub const LINKTYPE_RAW_14: u32 = 14;
pub const LINKTYPE_RAW: u32 = 101;
pub const LINKTYPE_LOOP: u32 = 108;
pub const LINKTYPE_LINUX_SLL: u32 = 113;
pub const LINKTYPE_IPV4: u32 = 228;
pub const LINKTYPE_IPV6: u32 = 229;
pub const LINKTYPE_LINUX_SLL2: u32 = 276;

/// One captured packet, borrowed from the capture's bytes.
#[derive(Debug, Clone, Copy)]
pub struct Record<'a> {
    /// 1-based packet number (as tcpdump -# and tcptrace count them).
    pub index: u64,
    /// Byte offset of the record (pcap) or block (pcapng) header.
    pub offset: u64,
    /// Timestamp in nanoseconds since the epoch.
    pub ts_ns: u64,
    pub linktype: u32,
    /// The captured bytes (possibly cut by the snaplen).
    pub data: &'a [u8],
    /// The packet's length on the wire.
    pub orig_len: u32,
}

enum Backing {
    Map(memmap2::Mmap),
    Owned(Vec<u8>),
}

/// A capture file held in memory (mapped) for zero-copy reading.
pub struct Capture {
    backing: Backing,
}

impl Capture {
    pub fn open(path: &Path) -> Result<Capture, PcapError> {
        let io = |e: std::io::Error| PcapError::Io { path: path.display().to_string(), msg: e.to_string() };
        let file = std::fs::File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        if len == 0 {
            return Ok(Capture { backing: Backing::Owned(Vec::new()) });
        }
        // SAFETY: the map is read-only; a capture truncated underneath us by
        // another process would fault, which is the same hazard every
        // mmap-based reader (tcpdump -r with libpcap mmap, tshark) accepts.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
        #[cfg(unix)]
        {
            let _ = map.advise(memmap2::Advice::Sequential);
        }
        Ok(Capture { backing: Backing::Map(map) })
    }

    /// Tell the kernel the bytes before `offset` will not be read again, so
    /// the resident set stays bounded (the pages stay in the page cache and
    /// would be faulted back in, unchanged, if touched).
    pub fn release_before(&self, offset: usize) {
        if let Backing::Map(m) = &self.backing {
            let page = 4096;
            let len = offset / page * page;
            if len > 0 {
                // SAFETY: a read-only, file-backed mapping: MADV_DONTNEED
                // only drops our page-table entries; any later access
                // re-reads the same file contents, so no borrowed slice can
                // observe a change.
                #[cfg(unix)]
                unsafe {
                    let _ = m.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, 0, len);
                }
            }
        }
    }

    pub fn from_bytes(bytes: Vec<u8>) -> Capture {
        Capture { backing: Backing::Owned(bytes) }
    }

    pub fn bytes(&self) -> &[u8] {
        match &self.backing {
            Backing::Map(m) => m,
            Backing::Owned(v) => v,
        }
    }

    pub fn reader(&self) -> Result<Reader<'_>, PcapError> {
        Reader::new(self.bytes())
    }
}

#[derive(Clone, Copy)]
struct Iface {
    linktype: u32,
    /// Timestamp units: ticks per second is 10^n (dec) or 2^n (!dec).
    resol: u8,
    dec: bool,
}

impl Iface {
    fn ticks_to_ns(&self, ticks: u64) -> u64 {
        if self.dec {
            let n = self.resol as u32;
            if n <= 9 {
                ticks.saturating_mul(10u64.pow(9 - n))
            } else if n < 20 {
                ticks / 10u64.pow(n - 9)
            } else {
                0
            }
        } else {
            let n = self.resol as u32;
            if n >= 64 {
                return 0;
            }
            ((ticks as u128 * 1_000_000_000u128) >> n) as u64
        }
    }
}

enum Kind {
    Pcap { be: bool, nanos: bool, linktype: u32, snaplen: u32 },
    Ng { be: bool, ifaces: Vec<Iface> },
}

/// Iterator over the packet records of a pcap or pcapng byte buffer.
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    /// Packets returned so far.
    packets: u64,
    /// pcapng blocks seen so far (errors in pcapng name the block number).
    blocks: u64,
    kind: Kind,
    done: bool,
    /// Non-fatal problems (truncated last record, snaplen 0, ...), each
    /// naming the record.
    pub warnings: Vec<String>,
}

fn rd_u16(b: &[u8], be: bool) -> u16 {
    let a = [b[0], b[1]];
    if be { u16::from_be_bytes(a) } else { u16::from_le_bytes(a) }
}
fn rd_u32(b: &[u8], be: bool) -> u32 {
    let a = [b[0], b[1], b[2], b[3]];
    if be { u32::from_be_bytes(a) } else { u32::from_le_bytes(a) }
}

const PCAP_US: u32 = 0xa1b2_c3d4;
const PCAP_NS: u32 = 0xa1b2_3c4d;
const NG_SHB: u32 = 0x0a0d_0d0a;
const NG_BOM: u32 = 0x1a2b_3c4d;

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Result<Reader<'a>, PcapError> {
        if buf.len() < 4 {
            return Err(PcapError::TooShort { len: buf.len() as u64 });
        }
        let magic_le = rd_u32(buf, false);
        let magic_be = rd_u32(buf, true);
        let mut warnings = Vec::new();
        let (kind, pos) = if magic_le == NG_SHB {
            // The SHB is parsed as an ordinary block by next(); it sets the
            // byte order of its section.
            (Kind::Ng { be: false, ifaces: Vec::new() }, 0)
        } else {
            let (be, nanos) = match (magic_le, magic_be) {
                (PCAP_US, _) => (false, false),
                (PCAP_NS, _) => (false, true),
                (_, PCAP_US) => (true, false),
                (_, PCAP_NS) => (true, true),
                _ => return Err(PcapError::BadMagic { magic: magic_be }),
            };
            if buf.len() < 24 {
                return Err(PcapError::TooShort { len: buf.len() as u64 });
            }
            let snaplen = rd_u32(&buf[16..], be);
            // The link type field's upper bits carry FCS info (pcap spec,
            // "LinkType and additional information"); the type is 16 bits.
            let linktype = rd_u32(&buf[20..], be) & 0x0fff_ffff;
            if snaplen == 0 {
                warnings.push("file header: snaplen 0 (treated as unlimited)".to_string());
            }
            (Kind::Pcap { be, nanos, linktype, snaplen }, 24)
        };
        Ok(Reader { buf, pos, packets: 0, blocks: 0, kind, done: false, warnings })
    }

    /// Link type of a classic pcap file (pcapng: of its first interface, if seen).
    pub fn linktype(&self) -> Option<u32> {
        match &self.kind {
            Kind::Pcap { linktype, .. } => Some(*linktype),
            Kind::Ng { ifaces, .. } => ifaces.first().map(|i| i.linktype),
        }
    }

    fn next_pcap(&mut self) -> Option<Result<Record<'a>, PcapError>> {
        let Kind::Pcap { be, nanos, linktype, snaplen } = self.kind else { unreachable!() };
        let rest = &self.buf[self.pos..];
        if rest.is_empty() {
            return None;
        }
        let index = self.packets + 1;
        let offset = self.pos as u64;
        if rest.len() < 16 {
            self.warnings.push(format!(
                "record {index} at byte {offset}: file ends inside the record header ({} of 16 bytes); record ignored",
                rest.len()
            ));
            return None;
        }
        let sec = rd_u32(rest, be) as u64;
        let frac = rd_u32(&rest[4..], be) as u64;
        let incl = rd_u32(&rest[8..], be) as u64;
        let orig = rd_u32(&rest[12..], be);
        let limit = MAX_RECORD.max(snaplen as u64);
        if incl > limit {
            return Some(Err(PcapError::AbsurdLength { record: index, offset, len: incl, what: "captured length" }));
        }
        if 16 + incl > rest.len() as u64 {
            self.warnings.push(format!(
                "record {index} at byte {offset}: file ends inside the record ({} of {} captured bytes present); record ignored",
                rest.len() - 16,
                incl
            ));
            return None;
        }
        let frac_ns = if nanos { frac } else { frac * 1000 };
        if frac_ns >= 1_000_000_000 {
            self.warnings.push(format!(
                "record {index} at byte {offset}: sub-second timestamp field {frac} out of range"
            ));
        }
        let data = &rest[16..16 + incl as usize];
        self.pos += 16 + incl as usize;
        self.packets = index;
        Some(Ok(Record { index, offset, ts_ns: sec * 1_000_000_000 + frac_ns, linktype, data, orig_len: orig }))
    }

    fn next_ng(&mut self) -> Option<Result<Record<'a>, PcapError>> {
        loop {
            let rest = &self.buf[self.pos..];
            if rest.is_empty() {
                return None;
            }
            let offset = self.pos as u64;
            let block = self.blocks + 1;
            if rest.len() < 12 {
                self.warnings.push(format!(
                    "block {block} at byte {offset}: file ends inside the block header ({} bytes left); ignored",
                    rest.len()
                ));
                return None;
            }
            let btype_le = rd_u32(rest, false);
            if btype_le == NG_SHB {
                // Byte order of the new section comes from its BOM.
                let bom_le = rd_u32(&rest[8..], false);
                let be = if bom_le == NG_BOM {
                    false
                } else if rd_u32(&rest[8..], true) == NG_BOM {
                    true
                } else {
                    return Some(Err(PcapError::BadBlock { record: block, offset, what: "section header byte-order magic is not 0x1A2B3C4D" }));
                };
                if let Kind::Ng { be: b, ifaces } = &mut self.kind {
                    *b = be;
                    ifaces.clear();
                }
            }
            let Kind::Ng { be, .. } = self.kind else { unreachable!() };
            let btype = rd_u32(rest, be);
            let blen = rd_u32(&rest[4..], be) as u64;
            if blen < 12 || !blen.is_multiple_of(4) || blen > MAX_RECORD {
                return Some(Err(PcapError::AbsurdLength { record: block, offset, len: blen, what: "pcapng block length" }));
            }
            if blen > rest.len() as u64 {
                self.warnings.push(format!(
                    "block {block} at byte {offset}: file ends inside the block ({} of {blen} bytes present); ignored",
                    rest.len()
                ));
                return None;
            }
            let blen = blen as usize;
            if rd_u32(&rest[blen - 4..], be) as usize != blen {
                return Some(Err(PcapError::BadBlock { record: block, offset, what: "pcapng block trailer length differs from header length" }));
            }
            let body = &rest[8..blen - 4];
            self.pos += blen;
            self.blocks = block;
            match btype {
                1 => {
                    if body.len() < 8 {
                        return Some(Err(PcapError::BadBlock { record: block, offset, what: "interface description block too short" }));
                    }
                    let linktype = rd_u16(body, be) as u32;
                    let mut iface = Iface { linktype, resol: 6, dec: true };
                    let mut opts = &body[8..];
                    while opts.len() >= 4 {
                        let code = rd_u16(opts, be);
                        let olen = rd_u16(&opts[2..], be) as usize;
                        if code == 0 {
                            break;
                        }
                        let padded = (olen + 3) & !3;
                        if 4 + padded > opts.len() {
                            break;
                        }
                        if code == 9 && olen >= 1 {
                            let v = opts[4];
                            iface.dec = v & 0x80 == 0;
                            iface.resol = v & 0x7f;
                        }
                        opts = &opts[4 + padded..];
                    }
                    if let Kind::Ng { ifaces, .. } = &mut self.kind {
                        ifaces.push(iface);
                    }
                }
                6 | 2 | 3 => {
                    let index = self.packets + 1;
                    let (iface_id, ts_ticks, caplen, orig, data_off) = match btype {
                        6 => {
                            if body.len() < 20 {
                                return Some(Err(PcapError::BadBlock { record: block, offset, what: "enhanced packet block too short" }));
                            }
                            let hi = rd_u32(&body[4..], be) as u64;
                            let lo = rd_u32(&body[8..], be) as u64;
                            (rd_u32(body, be), (hi << 32) | lo, rd_u32(&body[12..], be) as usize, rd_u32(&body[16..], be), 20)
                        }
                        2 => {
                            if body.len() < 20 {
                                return Some(Err(PcapError::BadBlock { record: block, offset, what: "packet block too short" }));
                            }
                            let hi = rd_u32(&body[4..], be) as u64;
                            let lo = rd_u32(&body[8..], be) as u64;
                            (rd_u16(body, be) as u32, (hi << 32) | lo, rd_u32(&body[12..], be) as usize, rd_u32(&body[16..], be), 20)
                        }
                        _ => {
                            if body.len() < 4 {
                                return Some(Err(PcapError::BadBlock { record: block, offset, what: "simple packet block too short" }));
                            }
                            let orig = rd_u32(body, be);
                            // RFC-draft pcapng §4.4: captured length is the
                            // smaller of the original length and the room
                            // in the block.
                            let cap = (orig as usize).min(body.len() - 4);
                            (0, 0, cap, orig, 4)
                        }
                    };
                    if data_off + caplen > body.len() {
                        return Some(Err(PcapError::AbsurdLength { record: block, offset, len: caplen as u64, what: "captured length" }));
                    }
                    let Kind::Ng { ifaces, .. } = &self.kind else { unreachable!() };
                    let Some(iface) = ifaces.get(iface_id as usize).copied() else {
                        return Some(Err(PcapError::BadBlock { record: block, offset, what: "packet refers to an interface that was not described" }));
                    };
                    self.packets = index;
                    return Some(Ok(Record {
                        index,
                        offset,
                        ts_ns: iface.ticks_to_ns(ts_ticks),
                        linktype: iface.linktype,
                        data: &body[data_off..data_off + caplen],
                        orig_len: orig,
                    }));
                }
                _ => {} // SHB (handled above), name resolution, statistics, custom: skip.
            }
        }
    }
}

impl<'a> Iterator for Reader<'a> {
    type Item = Result<Record<'a>, PcapError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let r = match self.kind {
            Kind::Pcap { .. } => self.next_pcap(),
            Kind::Ng { .. } => self.next_ng(),
        };
        if !matches!(r, Some(Ok(_))) {
            self.done = true;
        }
        r
    }
}
