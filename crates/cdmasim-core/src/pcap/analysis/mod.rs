//! TCP connection analysis of a capture: the connection table and the
//! streaming driver. Memory is bounded by the connections (each keeps
//! fixed-size counters plus a sequence list about one window long; lists of
//! connections superseded by a new one on the same endpoints are freed), not
//! by the number of packets, unless time series for plots are requested.

pub mod conn;
pub mod direction;
pub mod loss;
pub mod model;
pub mod owd;
pub mod report;
pub mod seqspace;
pub mod series;
pub mod table;

use super::decode::{decode, Decoded, TcpPacket};
use super::error::PcapError;
use super::reader::{FileReader, Reader, Records};
use conn::Conn;
use table::ConnTable;
use serde::Serialize;
use std::hash::Hasher;
use std::path::Path;

#[derive(Debug, Clone)]
pub struct AnalyzeOptions {
    /// Collect per-packet time series (for plots).
    pub series: bool,
    /// Verify TCP checksums of segments captured whole.
    pub checksums: bool,
    /// Throughput-model constants (Lee: MTU 1500 B, b = 2).
    pub mtu: f64,
    pub b: f64,
    /// Which connections the model is fitted to: these indices (None: all)
    /// with at least `fit_min_packets` data packets in their main direction
    /// (a tool's tiny control connection, iperf3's, would otherwise drag C).
    pub fit_connections: Option<Vec<usize>>,
    pub fit_min_packets: u64,
}

/// Data packets a connection needs to be fitted by default.
pub const FIT_MIN_PACKETS: u64 = 100;

impl Default for AnalyzeOptions {
    fn default() -> Self {
        AnalyzeOptions { series: false, checksums: true, mtu: 1500.0, b: 2.0, fit_connections: None, fit_min_packets: FIT_MIN_PACKETS }
    }
}

/// A multiply-and-rotate hash over the key eight bytes at a time (the
/// key is 36 bytes of addresses and ports from a trusted-enough source;
/// SipHash costs more than the rest of the per-packet work, and FNV-1a's
/// byte at a time more than a hundred instructions a key). The connection
/// table only finds a connection's index with it; `owd` keeps a packet's
/// 64-bit hash of its options and payload as part of its identity, where
/// two packets alike in every other field would have to collide.
#[derive(Default)]
pub struct KeyHash(u64);
impl Hasher for KeyHash {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().expect("eight bytes"));
            h = (h ^ w).wrapping_mul(K).rotate_left(29);
        }
        let mut tail = [0u8; 8];
        let rest = chunks.remainder();
        if !rest.is_empty() {
            tail[..rest.len()].copy_from_slice(rest);
            h = (h ^ u64::from_le_bytes(tail) ^ rest.len() as u64).wrapping_mul(K).rotate_left(29);
        }
        self.0 = h;
    }
}

pub type Key = ([u8; 16], u16, [u8; 16], u16);

/// Canonical (direction-independent) key of a packet's connection.
pub fn conn_key(p: &TcpPacket) -> Key {
    if (p.src, p.sport) <= (p.dst, p.dport) {
        (p.src, p.sport, p.dst, p.dport)
    } else {
        (p.dst, p.dport, p.src, p.sport)
    }
}

#[derive(Debug, Default)]
pub struct Analysis {
    pub packets_seen: u64,
    pub tcp_packets: u64,
    /// TCP packets captured too short to read the TCP header.
    pub too_short: u64,
    pub conns: Vec<Conn>,
    pub warnings: Vec<String>,
    pub first_us: u64,
    pub last_us: u64,
}

#[derive(Debug, Serialize)]
pub struct Report {
    pub packets_seen: u64,
    pub tcp_packets: u64,
    pub too_short: u64,
    pub first_us: u64,
    pub last_us: u64,
    pub connections: Vec<report::ConnReport>,
    /// CCDF of retransmissions per loss period, pooled over all directions.
    pub loss_ccdf: Vec<(u64, f64)>,
    pub model: Option<model::ModelFit>,
    pub warnings: Vec<String>,
    /// Per connection [a2b, b2a] series, when requested.
    pub series: Option<Vec<[series::DirSeries; 2]>>,
}

pub fn analyze_file(path: &Path, opts: &AnalyzeOptions) -> Result<Analysis, PcapError> {
    analyze_records(FileReader::open(path)?, opts)
}

pub fn analyze_bytes(buf: &[u8], opts: &AnalyzeOptions) -> Result<Analysis, PcapError> {
    analyze_records(Reader::new(buf)?, opts)
}

fn analyze_records(mut reader: impl Records, opts: &AnalyzeOptions) -> Result<Analysis, PcapError> {
    let mut an = Analysis::default();
    let mut table = ConnTable::default();
    let mut unknown_link_warned = false;
    while let Some(rec) = reader.next_record() {
        let rec = rec?;
        an.packets_seen += 1;
        // tcptrace works in microseconds (struct timeval): truncate.
        let now = rec.ts_ns / 1000;
        if an.first_us == 0 {
            an.first_us = now;
        }
        an.last_us = now;
        let p = match decode(rec.linktype, rec.data) {
            Decoded::Tcp(p) => p,
            Decoded::Truncated => {
                an.too_short += 1;
                continue;
            }
            Decoded::Other => continue,
            Decoded::UnknownLink => {
                if !unknown_link_warned {
                    an.warnings.push(format!(
                        "record {} at byte {}: unsupported link type {}; such records are skipped",
                        rec.index, rec.offset, rec.linktype
                    ));
                    unknown_link_warned = true;
                }
                continue;
            }
        };
        an.tcp_packets += 1;
        let mut found = table.find(&an.conns, &p);
        if let Some((i, dir)) = found {
            let c = &mut an.conns[i];
            if c.is_new_connection(dir, &p, now) {
                c.inactive = true;
                c.release();
                found = None;
            }
        }
        let (i, dir) = match found {
            Some(f) => f,
            None => {
                an.conns.push(Conn::new(&p, opts.series));
                let i = an.conns.len() - 1;
                table.insert(i, &p);
                (i, 0)
            }
        };
        let c = &mut an.conns[i];
        c.on_packet(dir, &p, now, opts.checksums);
    }
    an.warnings.append(&mut reader.take_warnings());
    let end = an.last_us;
    for c in &mut an.conns {
        c.finish(end);
    }
    Ok(an)
}

impl Analysis {
    pub fn report(&mut self, opts: &AnalyzeOptions) -> Report {
        let connections: Vec<_> = self.conns.iter().enumerate().map(|(i, c)| report::conn_report(i + 1, c)).collect();
        let periods: Vec<_> =
            connections.iter().flat_map(|c| c.a2b.loss_periods.iter().chain(c.b2a.loss_periods.iter()).copied()).collect();
        let chosen: Vec<report::ConnReport> = connections
            .iter()
            .filter(|c| opts.fit_connections.as_ref().is_none_or(|only| only.contains(&c.index)))
            .filter(|c| c.a2b.actual_data_pkts.max(c.b2a.actual_data_pkts) >= opts.fit_min_packets)
            .cloned()
            .collect();
        let model = model::fit(&chosen, opts.mtu, opts.b);
        let series = if opts.series {
            Some(self.conns.iter_mut().map(|c| c.series.take().map(|b| *b).unwrap_or_default()).collect())
        } else {
            None
        };
        Report {
            packets_seen: self.packets_seen,
            tcp_packets: self.tcp_packets,
            too_short: self.too_short,
            first_us: self.first_us,
            last_us: self.last_us,
            loss_ccdf: loss::ccdf(&periods),
            connections,
            model,
            warnings: self.warnings.clone(),
            series,
        }
    }
}

/// Analyse a file and return the report as JSON (for the Python binding,
/// which then needs no serde of its own).
pub fn analyze_file_json(path: &Path, opts: &AnalyzeOptions) -> Result<String, PcapError> {
    let mut a = analyze_file(path, opts)?;
    Ok(serde_json::to_string(&a.report(opts)).expect("report serialises"))
}

/// One-way delay report of two captures of the same connections, as JSON.
/// Errors name the file they concern.
pub fn owd_files_json(a: &Path, b: &Path) -> Result<String, String> {
    fn named(p: &Path) -> impl Fn(PcapError) -> String + '_ {
        move |e| format!("{}: {e}", p.display())
    }
    // Check each file on its own first so an error names the right one.
    for p in [a, b] {
        let mut r = FileReader::open(p).map_err(named(p))?;
        while let Some(rec) = r.next_record() {
            rec.map_err(named(p))?;
        }
    }
    let r = owd::one_way_delay(FileReader::open(a).map_err(named(a))?, FileReader::open(b).map_err(named(b))?)
        .map_err(|e| e.to_string())?;
    Ok(serde_json::to_string(&r).expect("report serialises"))
}
