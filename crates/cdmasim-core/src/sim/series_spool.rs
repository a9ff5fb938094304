//! Where series points go when a run streams them (`RunOptions::series_spool`):
//! a file of chunks, each holding up to `CHUNK_POINTS` points of one series
//! (their times, then their values, as little-endian f64), so that a run's
//! memory follows the number of series and not the simulated time or the
//! sampling interval. The periodic samples are written as they are taken;
//! the per-event series the endpoints keep (cwnd, ssthresh, rwnd, pacing
//! rate, CBR one-way delays) are moved here every 65,536 events
//! (`Hosts::drain_series`, called where `run_world` looks for Ctrl-C).
//! `RunResult::spooled` indexes the chunks per series, in the order
//! `RunResult::series` would list them, so a reader that concatenates a
//! series' chunks sees exactly the in-memory series.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

/// Points of one series held before they go to the file as a chunk: at
/// most 32 KB held per series (a 100-mobile cell samples about 900 series:
/// 29 MB), and an index entry of 16 bytes per 2048 points (an hour of that
/// cell at 100 ms: 24.5 M points, 190 KB of index).
pub const CHUNK_POINTS: usize = 2048;

pub use crate::result::Spooled;

struct Pending {
    series: Spooled,
    t: Vec<f64>,
    v: Vec<f64>,
}

pub struct SeriesSpool {
    out: BufWriter<File>,
    path: PathBuf,
    error: Option<std::io::Error>,
    offset: u64,
    series: Vec<Pending>,
    ids: HashMap<(String, String), usize>,
}

impl SeriesSpool {
    pub fn create(path: PathBuf) -> std::io::Result<Self> {
        Ok(Self { out: BufWriter::new(File::create(&path)?), path, error: None, offset: 0, series: Vec::new(), ids: HashMap::new() })
    }

    /// The series named (metric, subject), made on first use.
    pub fn id(&mut self, metric: &str, subject: &str) -> usize {
        let next = self.series.len();
        let id = *self.ids.entry((metric.to_string(), subject.to_string())).or_insert(next);
        if id == next {
            let series = Spooled { metric: metric.to_string(), subject: subject.to_string(), chunks: Vec::new() };
            self.series.push(Pending { series, t: Vec::new(), v: Vec::new() });
        }
        id
    }

    /// The series if any point of it was pushed.
    pub fn find(&self, metric: &str, subject: &str) -> Option<usize> {
        self.ids.get(&(metric.to_string(), subject.to_string())).copied()
    }

    pub fn push(&mut self, id: usize, t_s: f64, value: f64) {
        let p = &mut self.series[id];
        p.t.push(t_s);
        p.v.push(value);
        if p.t.len() == CHUNK_POINTS {
            self.flush(id);
        }
    }

    fn flush(&mut self, id: usize) {
        let p = &mut self.series[id];
        if p.t.is_empty() {
            return;
        }
        let n = p.t.len() as u64;
        if self.error.is_none() {
            let bytes: Vec<u8> = p.t.iter().chain(&p.v).flat_map(|x| x.to_le_bytes()).collect();
            if let Err(e) = self.out.write_all(&bytes) {
                self.error = Some(e);
            }
        }
        p.series.chunks.push((self.offset, n));
        self.offset += 16 * n;
        p.t.clear();
        p.v.clear();
    }

    /// Write what is held and flush the file; the first write error with the path.
    pub fn finish(&mut self) -> Result<(), (PathBuf, std::io::Error)> {
        for id in 0..self.series.len() {
            self.flush(id);
        }
        if let Some(e) = self.error.take() {
            return Err((self.path.clone(), e));
        }
        self.out.flush().map_err(|e| (self.path.clone(), e))
    }

    /// The index of series `id` (after `finish`).
    pub fn spooled(&self, id: usize) -> Spooled {
        self.series[id].series.clone()
    }

    pub fn path(&self) -> &PathBuf {
        &self.path
    }
}
