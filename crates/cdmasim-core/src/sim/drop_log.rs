//! Where drops go. In memory (the default of `sim::run`, for tests and
//! small runs, turned into `RunResult.drops`), or streamed to a CSV file as
//! they happen, so that a run's memory follows the network's state and not
//! the number of drops (a 1 Gb/s source into a 100 Mb/s link drops 110,000
//! packets a second). The summary keeps the counts either way (per queue
//! and reason, and in the conservation line).

use crate::network::{DropAt, DropRecord};
use crate::engine::time::secs;
use crate::engine::Time;
use crate::net::DropReason;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

/// The CSV header: one row per dropped packet, as the `drops` table.
pub const CSV_HEADER: &str = "t_s,place,reason,flow,sent_s,seq";

/// A drop as the in-memory log keeps it: what the `drops` table reads,
/// without the packet (about a third of a `DropRecord`, and no packet
/// held past its drop: docs/packet.md).
#[derive(Clone, Copy, Debug)]
pub struct DropEntry {
    pub t: Time,
    pub at: DropAt,
    pub reason: DropReason,
    pub flow: u32,
    /// When the packet entered the network.
    pub created: Time,
    /// Its TCP sequence number or datagram number (`Body::seq`).
    pub seq: u64,
}

impl DropEntry {
    fn of(d: &DropRecord) -> Self {
        DropEntry { t: d.t, at: d.at, reason: d.reason, flow: d.pkt.flow, created: d.pkt.created, seq: d.header.seq() }
    }
}

pub enum DropLog {
    Memory(Vec<DropEntry>),
    File { out: BufWriter<File>, path: PathBuf, error: Option<std::io::Error> },
}

impl Default for DropLog {
    fn default() -> Self {
        DropLog::Memory(Vec::new())
    }
}

/// Quote a name for CSV if it needs it (names are the scenario's: they may hold commas).
pub(crate) fn csv_field(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\"")).into()
    } else {
        s.into()
    }
}

impl DropLog {
    pub fn to_file(path: PathBuf) -> std::io::Result<Self> {
        let mut out = BufWriter::new(File::create(&path)?);
        writeln!(out, "{CSV_HEADER}")?;
        Ok(DropLog::File { out, path, error: None })
    }

    /// Log one drop; `place` and `flow` name it (asked only when streaming:
    /// in memory the record keeps indices).
    pub fn push(&mut self, d: DropRecord, place: impl FnOnce() -> String, flow: impl FnOnce() -> String) {
        // What a row holds, taken from the record once for both stores.
        let e = DropEntry::of(&d);
        match self {
            DropLog::Memory(v) => v.push(e),
            DropLog::File { out, error, .. } => {
                if error.is_some() {
                    return;
                }
                // Full precision (Rust's shortest round-trip float formatting).
                let r = writeln!(
                    out,
                    "{},{},{},{},{},{}",
                    secs(e.t),
                    csv_field(&place()),
                    e.reason.as_str(),
                    csv_field(&flow()),
                    secs(e.created),
                    e.seq
                );
                if let Err(err) = r {
                    *error = Some(err);
                }
            }
        }
    }

    /// In-memory records (empty when streamed).
    pub fn records(&self) -> &[DropEntry] {
        match self {
            DropLog::Memory(v) => v,
            DropLog::File { .. } => &[],
        }
    }

    /// Flush the file; the first write error, if any, with its path.
    pub fn finish(&mut self) -> Result<(), (PathBuf, std::io::Error)> {
        if let DropLog::File { out, path, error } = self {
            if let Some(e) = error.take() {
                return Err((path.clone(), e));
            }
            out.flush().map_err(|e| (path.clone(), e))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{NodeId, Packet};

    /// The in-memory log keeps what the drops table reads, and a third of
    /// the memory a record with its packet took.
    #[test]
    fn a_kept_drop_is_small_and_reads_as_its_record() {
        assert!(std::mem::size_of::<DropEntry>() <= 48, "{}", std::mem::size_of::<DropEntry>());
        assert!(3 * std::mem::size_of::<DropEntry>() <= std::mem::size_of::<DropRecord>());
        let (pkt, header) = Packet::udp(9, 4, NodeId(1), NodeId(2), Time(1_500), 77, 100);
        let d = DropRecord { t: Time(2_000), at: DropAt::Hop { hop: 3, port: 1 }, reason: DropReason::Overflow, pkt, header };
        let mut log = DropLog::default();
        log.push(d, || unreachable!("named only when streamed"), || unreachable!());
        let e = log.records()[0];
        assert_eq!((e.t, e.at, e.reason, e.flow, e.created, e.seq), (Time(2_000), d.at, d.reason, 4, Time(1_500), 77));
    }
}
