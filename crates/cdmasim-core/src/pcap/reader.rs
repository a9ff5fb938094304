//! Streaming reader for classic pcap (both byte orders, micro- or nanosecond
//! stamps) and pcapng (SHB/IDB/EPB/SPB/PB, any byte order, `if_tsresol`).
//!
//! One parser, two ways to feed it: [`Reader`] walks a buffer in memory and
//! [`FileReader`] reads a file in pieces of a few megabytes, so memory is a
//! piece and the largest record, whatever the capture's size. The file is
//! read, never mapped: a capture truncated while it is read (a second run
//! rewriting it) ends the stream early with a warning instead of a SIGBUS.
//! A record borrows its bytes from the buffer: reading allocates nothing per
//! packet. A file cut short in the middle of a record ends the stream with a
//! warning naming that record; a header that cannot be right (absurd
//! lengths, bad block trailers) is a typed [`PcapError`] naming the record
//! and its byte offset.

use super::error::PcapError;
use std::io::Read;
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

/// One captured packet, borrowed from the reader's bytes.
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

/// A source of records: a capture in memory or a file read in pieces.
pub trait Records {
    /// The next record; None at the end (or after an error).
    fn next_record(&mut self) -> Option<Result<Record<'_>, PcapError>>;
    /// Non-fatal problems met so far, each naming its record.
    fn take_warnings(&mut self) -> Vec<String>;
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

/// A record found by the parser: where its bytes are, not the bytes.
struct Head {
    index: u64,
    offset: u64,
    ts_ns: u64,
    linktype: u32,
    /// Absolute offset and length of the captured bytes.
    data_at: u64,
    data_len: usize,
    orig_len: u32,
}

/// What the parser needs next.
enum Step {
    Record(Head),
    /// At least this many bytes from the current position (the window holds
    /// fewer and the file may have more).
    More(usize),
    End,
    Fail(PcapError),
}

/// The parse state of a capture, fed a window of its bytes at a time:
/// `win` holds the file's bytes from offset `base` on, and `eof` says
/// whether the file ends where the window does.
struct Parser {
    pos: u64,
    /// Packets returned so far.
    packets: u64,
    /// pcapng blocks seen so far (errors in pcapng name the block number).
    blocks: u64,
    kind: Kind,
    done: bool,
    warnings: Vec<String>,
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

/// Bytes a file header needs (pcap's is 24; pcapng's first block is read as
/// a block).
const FILE_HEADER: usize = 24;

impl Parser {
    /// From the file's first bytes (at least FILE_HEADER of them unless the
    /// file is shorter; `len` is then the file's length).
    fn new(head: &[u8], len: u64) -> Result<Parser, PcapError> {
        if head.len() < 4 {
            return Err(PcapError::TooShort { len });
        }
        let magic_le = rd_u32(head, false);
        let magic_be = rd_u32(head, true);
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
            if head.len() < FILE_HEADER {
                return Err(PcapError::TooShort { len });
            }
            let snaplen = rd_u32(&head[16..], be);
            // The link type field's upper bits carry FCS info (pcap spec,
            // "LinkType and additional information"); the type is 16 bits.
            let linktype = rd_u32(&head[20..], be) & 0x0fff_ffff;
            if snaplen == 0 {
                warnings.push("file header: snaplen 0 (treated as unlimited)".to_string());
            }
            (Kind::Pcap { be, nanos, linktype, snaplen }, FILE_HEADER as u64)
        };
        Ok(Parser { pos, packets: 0, blocks: 0, kind, done: false, warnings })
    }

    fn linktype(&self) -> Option<u32> {
        match &self.kind {
            Kind::Pcap { linktype, .. } => Some(*linktype),
            Kind::Ng { ifaces, .. } => ifaces.first().map(|i| i.linktype),
        }
    }

    #[inline]
    fn next(&mut self, win: &[u8], base: u64, eof: bool) -> Step {
        if self.done {
            return Step::End;
        }
        let rest = &win[(self.pos - base) as usize..];
        let step = match self.kind {
            Kind::Pcap { .. } => self.next_pcap(rest, eof),
            Kind::Ng { .. } => self.next_ng(rest, eof),
        };
        if matches!(step, Step::End | Step::Fail(_)) {
            self.done = true;
        }
        step
    }

    #[inline]
    fn next_pcap(&mut self, rest: &[u8], eof: bool) -> Step {
        let Kind::Pcap { be, nanos, linktype, snaplen } = self.kind else { unreachable!() };
        if rest.is_empty() {
            return if eof { Step::End } else { Step::More(16) };
        }
        let index = self.packets + 1;
        let offset = self.pos;
        if rest.len() < 16 {
            if !eof {
                return Step::More(16);
            }
            self.warnings.push(format!(
                "record {index} at byte {offset}: file ends inside the record header ({} of 16 bytes); record ignored",
                rest.len()
            ));
            return Step::End;
        }
        let sec = rd_u32(rest, be) as u64;
        let frac = rd_u32(&rest[4..], be) as u64;
        let incl = rd_u32(&rest[8..], be) as u64;
        let orig = rd_u32(&rest[12..], be);
        let limit = MAX_RECORD.max(snaplen as u64);
        if incl > limit {
            return Step::Fail(PcapError::AbsurdLength { record: index, offset, len: incl, what: "captured length" });
        }
        if 16 + incl > rest.len() as u64 {
            if !eof {
                return Step::More(16 + incl as usize);
            }
            self.warnings.push(format!(
                "record {index} at byte {offset}: file ends inside the record ({} of {} captured bytes present); record ignored",
                rest.len() - 16,
                incl
            ));
            return Step::End;
        }
        let frac_ns = if nanos { frac } else { frac * 1000 };
        if frac_ns >= 1_000_000_000 {
            self.warnings.push(format!(
                "record {index} at byte {offset}: sub-second timestamp field {frac} out of range"
            ));
        }
        self.pos += 16 + incl;
        self.packets = index;
        Step::Record(Head {
            index,
            offset,
            ts_ns: sec * 1_000_000_000 + frac_ns,
            linktype,
            data_at: offset + 16,
            data_len: incl as usize,
            orig_len: orig,
        })
    }

    fn next_ng(&mut self, mut rest: &[u8], eof: bool) -> Step {
        loop {
            if rest.is_empty() {
                return if eof { Step::End } else { Step::More(12) };
            }
            let offset = self.pos;
            let block = self.blocks + 1;
            if rest.len() < 12 {
                if !eof {
                    return Step::More(12);
                }
                self.warnings.push(format!(
                    "block {block} at byte {offset}: file ends inside the block header ({} bytes left); ignored",
                    rest.len()
                ));
                return Step::End;
            }
            let btype_le = rd_u32(rest, false);
            // Byte order of a new section comes from its BOM.
            let section_be = if btype_le == NG_SHB {
                let bom_le = rd_u32(&rest[8..], false);
                if bom_le == NG_BOM {
                    Some(false)
                } else if rd_u32(&rest[8..], true) == NG_BOM {
                    Some(true)
                } else {
                    return Step::Fail(PcapError::BadBlock { record: block, offset, what: "section header byte-order magic is not 0x1A2B3C4D" });
                }
            } else {
                None
            };
            let Kind::Ng { be: current, .. } = self.kind else { unreachable!() };
            let be = section_be.unwrap_or(current);
            let btype = rd_u32(rest, be);
            let blen = rd_u32(&rest[4..], be) as u64;
            if blen < 12 || !blen.is_multiple_of(4) || blen > MAX_RECORD {
                return Step::Fail(PcapError::AbsurdLength { record: block, offset, len: blen, what: "pcapng block length" });
            }
            if blen > rest.len() as u64 {
                if !eof {
                    return Step::More(blen as usize);
                }
                self.warnings.push(format!(
                    "block {block} at byte {offset}: file ends inside the block ({} of {blen} bytes present); ignored",
                    rest.len()
                ));
                return Step::End;
            }
            if let (Some(be), Kind::Ng { be: b, ifaces }) = (section_be, &mut self.kind) {
                *b = be;
                ifaces.clear();
            }
            let blen = blen as usize;
            if rd_u32(&rest[blen - 4..], be) as usize != blen {
                return Step::Fail(PcapError::BadBlock { record: block, offset, what: "pcapng block trailer length differs from header length" });
            }
            let body = &rest[8..blen - 4];
            rest = &rest[blen..];
            self.pos += blen as u64;
            self.blocks = block;
            match btype {
                1 => {
                    if body.len() < 8 {
                        return Step::Fail(PcapError::BadBlock { record: block, offset, what: "interface description block too short" });
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
                                return Step::Fail(PcapError::BadBlock { record: block, offset, what: "enhanced packet block too short" });
                            }
                            let hi = rd_u32(&body[4..], be) as u64;
                            let lo = rd_u32(&body[8..], be) as u64;
                            (rd_u32(body, be), (hi << 32) | lo, rd_u32(&body[12..], be) as usize, rd_u32(&body[16..], be), 20)
                        }
                        2 => {
                            if body.len() < 20 {
                                return Step::Fail(PcapError::BadBlock { record: block, offset, what: "packet block too short" });
                            }
                            let hi = rd_u32(&body[4..], be) as u64;
                            let lo = rd_u32(&body[8..], be) as u64;
                            (rd_u16(body, be) as u32, (hi << 32) | lo, rd_u32(&body[12..], be) as usize, rd_u32(&body[16..], be), 20)
                        }
                        _ => {
                            if body.len() < 4 {
                                return Step::Fail(PcapError::BadBlock { record: block, offset, what: "simple packet block too short" });
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
                        return Step::Fail(PcapError::AbsurdLength { record: block, offset, len: caplen as u64, what: "captured length" });
                    }
                    let Kind::Ng { ifaces, .. } = &self.kind else { unreachable!() };
                    let Some(iface) = ifaces.get(iface_id as usize).copied() else {
                        return Step::Fail(PcapError::BadBlock { record: block, offset, what: "packet refers to an interface that was not described" });
                    };
                    self.packets = index;
                    return Step::Record(Head {
                        index,
                        offset,
                        ts_ns: iface.ticks_to_ns(ts_ticks),
                        linktype: iface.linktype,
                        data_at: offset + 8 + data_off as u64,
                        data_len: caplen,
                        orig_len: orig,
                    });
                }
                _ => {} // SHB (handled above), name resolution, statistics, custom: skip.
            }
        }
    }
}

#[inline]
fn record<'w>(h: Head, win: &'w [u8], base: u64) -> Record<'w> {
    let at = (h.data_at - base) as usize;
    Record { index: h.index, offset: h.offset, ts_ns: h.ts_ns, linktype: h.linktype, data: &win[at..at + h.data_len], orig_len: h.orig_len }
}

/// The records of a pcap or pcapng capture held in memory.
pub struct Reader<'a> {
    buf: &'a [u8],
    parser: Parser,
    /// Non-fatal problems (truncated last record, snaplen 0, ...), each
    /// naming the record.
    pub warnings: Vec<String>,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Result<Reader<'a>, PcapError> {
        Ok(Reader { buf, parser: Parser::new(buf, buf.len() as u64)?, warnings: Vec::new() })
    }

    /// Link type of a classic pcap file (pcapng: of its first interface, if seen).
    pub fn linktype(&self) -> Option<u32> {
        self.parser.linktype()
    }
}

impl<'a> Iterator for Reader<'a> {
    type Item = Result<Record<'a>, PcapError>;

    fn next(&mut self) -> Option<Self::Item> {
        let step = self.parser.next(self.buf, 0, true);
        self.warnings.append(&mut self.parser.warnings);
        match step {
            Step::Record(h) => Some(Ok(record(h, self.buf, 0))),
            Step::Fail(e) => Some(Err(e)),
            Step::End | Step::More(_) => None,
        }
    }
}

impl Records for Reader<'_> {
    fn next_record(&mut self) -> Option<Result<Record<'_>, PcapError>> {
        self.next()
    }
    fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }
}

/// Bytes read from a capture file at a time.
const PIECE: usize = 4 << 20;

/// The records of a capture file, read in pieces of PIECE bytes (more when
/// one record is larger): memory is bounded by a piece and the largest
/// record, whatever the file's size. The file must be a regular file
/// (crate::files::open_input): a FIFO or a device is refused at the open.
pub struct FileReader {
    file: std::fs::File,
    path: String,
    parser: Parser,
    /// The file's bytes from offset `base` on.
    buf: Vec<u8>,
    base: u64,
    eof: bool,
    /// Bytes read at a time (PIECE; smaller in tests).
    piece: usize,
}

impl FileReader {
    pub fn open(path: &Path) -> Result<FileReader, PcapError> {
        Self::open_in_pieces(path, PIECE)
    }

    fn open_in_pieces(path: &Path, piece: usize) -> Result<FileReader, PcapError> {
        let shown = path.display().to_string();
        let (file, len) =
            crate::files::open_input(path).map_err(|e| PcapError::Io { path: shown.clone(), msg: crate::files::reason(&e.to_string()).into() })?;
        let mut buf = Vec::new();
        let eof = read_more(&file, &mut buf, piece.max(FILE_HEADER)).map_err(|e| PcapError::Io { path: shown.clone(), msg: e.to_string() })?;
        let parser = Parser::new(&buf, len.max(buf.len() as u64))?;
        Ok(FileReader { file, path: shown, parser, buf, base: 0, eof, piece })
    }

    /// Make the window hold at least `need` bytes from the parser's
    /// position, or all the file has: the bytes before the position are
    /// dropped, then the file is read a piece at a time.
    fn fill(&mut self, need: usize) -> Result<(), PcapError> {
        let keep_from = (self.parser.pos - self.base) as usize;
        if keep_from > 0 {
            self.buf.drain(..keep_from);
            self.base = self.parser.pos;
        }
        if !self.eof {
            self.eof = read_more(&self.file, &mut self.buf, need.max(self.piece))
                .map_err(|e| PcapError::Io { path: self.path.clone(), msg: e.to_string() })?;
        }
        Ok(())
    }

    pub fn warnings(&self) -> &[String] {
        &self.parser.warnings
    }
}

/// Read from `file` until `buf` holds `want` bytes or the file ends;
/// returns whether it ended.
/// Reads into the vector's spare capacity (`read_to_end` on a `take`):
/// zeroing a piece before every read cost about as much as the decoding.
fn read_more(file: &std::fs::File, buf: &mut Vec<u8>, want: usize) -> std::io::Result<bool> {
    let missing = want.saturating_sub(buf.len());
    if missing == 0 {
        return Ok(false);
    }
    buf.reserve(missing);
    let got = file.take(missing as u64).read_to_end(buf)?;
    Ok(got < missing)
}

impl Records for FileReader {
    #[inline]
    fn next_record(&mut self) -> Option<Result<Record<'_>, PcapError>> {
        loop {
            match self.parser.next(&self.buf, self.base, self.eof) {
                Step::Record(h) => return Some(Ok(record(h, &self.buf, self.base))),
                Step::More(need) => {
                    if let Err(e) = self.fill(need) {
                        self.parser.done = true;
                        return Some(Err(e));
                    }
                }
                Step::Fail(e) => return Some(Err(e)),
                Step::End => return None,
            }
        }
    }
    fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.parser.warnings)
    }
}

#[cfg(test)]
mod file_tests {
    use super::*;
    use crate::pcap::testutil::*;

    fn capture(records: usize) -> Vec<u8> {
        let seg = Seg { seq: 1, ack: 2, flags: 0x18, payload: &[9u8; 300], ..Default::default() };
        let fr = link(LINKTYPE_ETHERNET, &ipv4([10, 0, 0, 1], [10, 0, 0, 2], 1, &seg));
        let recs: Vec<_> = (0..records as u64).map(|i| (i * 1000, fr.clone(), fr.len() as u32)).collect();
        pcap_file(false, false, LINKTYPE_ETHERNET, 65535, &recs)
    }

    fn scratch(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!("cdmasim-reader-{name}-{}.pcap", std::process::id()));
        std::fs::write(&p, bytes).unwrap();
        p
    }

    #[test]
    fn a_file_read_in_small_pieces_gives_the_records_a_buffer_gives() {
        for ng in [false, true] {
            let bytes = if ng {
                let ip = ipv4([10, 0, 0, 1], [10, 0, 0, 2], 1, &Seg { payload: b"abcdef", ..Default::default() });
                pcapng_file(false, 101, None, true, &(0..50).map(|i| (i, ip.clone())).collect::<Vec<_>>())
            } else {
                capture(50)
            };
            let p = scratch(if ng { "ng" } else { "pieces" }, &bytes);
            let want: Vec<_> = Reader::new(&bytes).unwrap().map(|r| r.map(|r| (r.index, r.offset, r.ts_ns, r.data.to_vec()))).collect();
            // Pieces smaller than a record, than a header, and one byte.
            for piece in [1, 7, 100, 333, PIECE] {
                let mut r = FileReader::open_in_pieces(&p, piece).unwrap();
                let mut got = Vec::new();
                while let Some(rec) = r.next_record() {
                    got.push(rec.map(|r| (r.index, r.offset, r.ts_ns, r.data.to_vec())));
                }
                assert_eq!(got, want, "piece {piece}, pcapng {ng}");
                assert!(r.buf.len() <= piece.max(400) + 400, "the window stays about a piece");
            }
            std::fs::remove_file(&p).unwrap();
        }
    }

    #[test]
    fn a_capture_truncated_while_it_is_read_ends_with_a_warning() {
        let bytes = capture(200);
        let p = scratch("truncated", &bytes);
        let mut r = FileReader::open_in_pieces(&p, 1000).unwrap();
        assert!(r.next_record().unwrap().is_ok());
        // Another program rewrites the file under the reader.
        std::fs::OpenOptions::new().write(true).open(&p).unwrap().set_len(5000).unwrap();
        let mut n = 1;
        while let Some(rec) = r.next_record() {
            rec.unwrap();
            n += 1;
        }
        assert!(n < 200, "{n} records");
        let w = r.take_warnings();
        assert!(w.len() == 1 && w[0].contains("file ends inside the record"), "{w:?}");
        std::fs::remove_file(&p).unwrap();
    }
}
