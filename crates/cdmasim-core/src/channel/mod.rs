//! Channel sources for the 1xEV-DO forward link: where each slot's DRC comes from.
//!
//! Every source implements [`ChannelSource`]: it fills a buffer with the DRC
//! index (0..=14, see `channel::drc`) of the next slots, optionally with the SINR
//! the terminal measured. Sources: recorded per-slot traces (text
//! [`trace_text`], compact binary [`trace_binary`]), Mahimahi delivery traces
//! mapped onto DRC rates ([`mahimahi`]), Markov chains of any order fitted from
//! a trace ([`markov`]), a constant rate ([`constant`]), a synthetic SINR
//! process ([`fading`]) and the SINR→DRC mapper that wraps a SINR source
//! ([`sinr_mapper`], its frame errors from [`waterfall`]). [`presets`]
//! combines them into calibrated scenarios and [`stats`] computes the
//! statistics of Liu et al. section 5.

pub mod constant;
pub mod day_scales;
pub mod drc;
pub mod error;
pub mod fading;
pub mod link_rate;
pub mod mahimahi;
pub mod markov;
pub mod presets;
pub mod regime;
pub mod regime_markov;
pub mod sinr_mapper;
pub mod slot_block;
pub mod source;
pub mod stats;
pub mod trace;
pub mod trace_binary;
pub mod trace_text;
pub mod waterfall;

pub use error::{ChannelError, Result};
pub use source::DrcSpec;
pub use trace::{DrcTrace, TraceSource};

/// A per-slot DRC process.
pub trait ChannelSource: Send {
    /// Fill `drc` with the DRC indices of the next `drc.len()` slots, and
    /// `sinr` (same length, dB, NaN where unknown) when it is given. Returns
    /// the number of slots written: fewer than asked only when a finite
    /// source ends.
    fn fill(&mut self, drc: &mut [u8], sinr: Option<&mut [f32]>) -> usize;

    /// True when the source produces a SINR value per slot.
    fn has_sinr(&self) -> bool {
        false
    }

    /// Fill `sinr` alone (a source with SINR): `fill`'s SINR for the same
    /// slots, without the DRC, for a wrapper that maps SINR to DRC itself
    /// (`SinrMapper`: the fading source's own mapping was a tenth of a
    /// preset's drawing, thrown away). An override must leave the source
    /// as `fill` would (the same draws, the same hand-offs). Returns the
    /// slots written, as `fill`.
    fn fill_sinr(&mut self, sinr: &mut [f32]) -> usize {
        let mut drc = vec![0u8; sinr.len()];
        self.fill(&mut drc, Some(sinr))
    }

    /// Hand-offs (slot numbers counted from the source's first slot) produced
    /// since the last call. Only mobile synthetic sources have them.
    fn take_handoffs(&mut self) -> Vec<u64> {
        Vec::new()
    }

    /// Move `n` slots on, as if they had been drawn and thrown away. This
    /// default draws them; a source whose law allows it jumps instead (the
    /// presets' stationary processes, `FadingSinr`), so a campaign of short
    /// traces days apart costs its traces, not its days.
    fn skip(&mut self, n: u64) {
        let mut drc = vec![0u8; n.min(1 << 16) as usize];
        let mut left = n;
        while left > 0 {
            let k = left.min(drc.len() as u64) as usize;
            if self.fill(&mut drc[..k], None) < k {
                return;
            }
            left -= k as u64;
        }
    }
}

/// Draw up to `n` slots from `src` in pieces of 2^16, handing each piece
/// to `take` as it is drawn. Returns the slots drawn: fewer than `n` when
/// a finite source ends, or when Ctrl-C asks (the caller then discards
/// what it made).
fn draw(src: &mut dyn ChannelSource, n: u64, mut take: impl FnMut(&[u8], Option<&[f32]>)) -> u64 {
    const CHUNK: u64 = 1 << 16;
    let mut drc = vec![0u8; CHUNK.min(n) as usize];
    let mut sinr = src.has_sinr().then(|| vec![0f32; drc.len()]);
    let mut at = 0;
    while at < n {
        if crate::engine::interrupt::requested() {
            break;
        }
        let want = (n - at).min(CHUNK) as usize;
        let got = src.fill(&mut drc[..want], sinr.as_mut().map(|s| &mut s[..want]));
        take(&drc[..got], sinr.as_ref().map(|s| &s[..got]));
        at += got as u64;
        if got < want {
            break;
        }
    }
    at
}

/// The most slots a trace drawn into memory may have (`collect`, and the
/// users' channels of the scheduler study together): 10^9 slots, 19 days,
/// 5 GB with SINR. Callers check a count a user typed against it before
/// drawing, so a mistyped count is one line, not an aborted allocation.
pub const MAX_SLOTS_IN_MEMORY: u64 = 1_000_000_000;

/// `n` slots as a count to hold in memory, or why not.
pub fn check_slots_in_memory(n: u64, what: &str) -> std::result::Result<(), String> {
    if n > MAX_SLOTS_IN_MEMORY {
        return Err(format!("{what}: {n} slots is more than the {MAX_SLOTS_IN_MEMORY} held in memory at once"));
    }
    Ok(())
}

/// Draw `n` slots from a source into an in-memory trace (SINR kept when the
/// source has it, hand-offs kept).
pub fn collect(src: &mut dyn ChannelSource, n: u64) -> DrcTrace {
    let mut drc = Vec::with_capacity(n as usize);
    let mut sinr = src.has_sinr().then(|| Vec::with_capacity(n as usize));
    let at = draw(src, n, |d, s| {
        drc.extend_from_slice(d);
        if let (Some(v), Some(s)) = (sinr.as_mut(), s) {
            v.extend_from_slice(s);
        }
    });
    let handoffs = src.take_handoffs().into_iter().filter(|&h| h < at).collect();
    DrcTrace { drc, sinr, handoffs }
}

/// Statistics of `n` slots drawn from a source, for each window length of
/// `windows`, computed as the slots are drawn (nothing the size of the
/// trace is held): what `stats::TraceStats` gives over `collect(src, n)`.
/// Returns the whole trace's statistics and the windows' per length.
pub fn stats_of_source(
    src: &mut dyn ChannelSource,
    n: u64,
    windows: &[u64],
    cfg: &stats::StatsConfig,
) -> (stats::Stats, Vec<Vec<stats::Stats>>) {
    let mut acc = stats::TraceStats::for_windows(windows, cfg);
    draw(src, n, |d, s| acc.push(d, s));
    acc.finish_windows()
}

/// Statistics of windows of a drawn source placed anywhere in its time:
/// `at` holds (first slot, slots) pairs in order, none overlapping the
/// next; the source jumps the gaps (`ChannelSource::skip`), so 50 half
/// hours spread over five weeks cost the half hours. One result per
/// window; an empty list when Ctrl-C asks.
pub fn stats_at(src: &mut dyn ChannelSource, at: &[(u64, u64)], cfg: &stats::StatsConfig) -> Vec<stats::Stats> {
    let mut out = Vec::with_capacity(at.len());
    let mut now = 0;
    for &(first, len) in at {
        src.skip(first - now);
        let mut acc = stats::Accumulator::new(cfg.clone());
        if draw(src, len, |d, s| acc.push(d, s)) < len {
            return Vec::new();
        }
        out.push(acc.finish());
        now = first + len;
    }
    out
}

/// Whether `at` is a list of windows `stats_at` takes: each at least one
/// slot long and starting at or after the end of the one before.
pub fn check_windows_at(at: &[(u64, u64)]) -> std::result::Result<(), String> {
    let mut end = 0u64;
    for (i, &(first, len)) in at.iter().enumerate() {
        if len == 0 {
            return Err(format!("at[{i}]: a window of 0 slots"));
        }
        if first < end {
            return Err(format!("at[{i}]: starts at slot {first}, before the window before it ends ({end})"));
        }
        end = first.checked_add(len).ok_or_else(|| format!("at[{i}]: ends past the last slot there is"))?;
    }
    Ok(())
}

/// Trace file formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Format {
    Text,
    Binary,
    Mahimahi,
}

impl Format {
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "text" => Some(Format::Text),
            "binary" => Some(Format::Binary),
            "mahimahi" => Some(Format::Mahimahi),
            _ => None,
        }
    }

    /// Guess from the content and name: the binary magic, then Mahimahi's
    /// `.up`/`.down` names, else text.
    pub fn detect(path: &str) -> Format {
        use std::io::Read;
        let mut magic = [0u8; 8];
        // Not a regular file: the reader that follows says so.
        if let Ok((mut fh, _)) = crate::files::open_input(std::path::Path::new(path)) {
            if fh.read_exact(&mut magic).is_ok() && &magic == trace_binary::MAGIC {
                return Format::Binary;
            }
        }
        if path.ends_with(".up") || path.ends_with(".down") {
            return Format::Mahimahi;
        }
        Format::Text
    }
}

/// Read a trace file in any format (`None`: detect it). Mahimahi traces are
/// mapped with `mahimahi_window_ms`.
pub fn read_trace(path: &str, format: Option<Format>, mahimahi_window_ms: u32) -> Result<DrcTrace> {
    match format.unwrap_or_else(|| Format::detect(path)) {
        Format::Text => trace_text::read(path),
        Format::Binary => trace_binary::read(path),
        Format::Mahimahi => mahimahi::read(path, mahimahi_window_ms),
    }
}

/// The statistics of a trace file, whole and per window of `window` slots
/// (stats::TraceStats): a binary trace streams in pieces, so a day of slots
/// takes a few megabytes; text and Mahimahi traces are read whole.
pub fn stats_of_file(
    path: &str,
    format: Option<Format>,
    mahimahi_window_ms: u32,
    window: u64,
    cfg: &stats::StatsConfig,
) -> Result<(stats::Stats, Vec<stats::Stats>)> {
    let limits = |slots: u64| stats::check_limits(slots, &[window], cfg).map_err(|m| ChannelError::new(path, m));
    match format.unwrap_or_else(|| Format::detect(path)) {
        Format::Binary => {
            // A binary trace has at most a slot per byte.
            let (_, len) = crate::files::open_input(std::path::Path::new(path)).map_err(|e| ChannelError::io(path, e))?;
            limits(len)?;
            let mut acc = stats::TraceStats::new(window, cfg);
            trace_binary::stream(path, trace_binary::STREAM_SLOTS, |d, s| acc.push(d, s))?;
            Ok(acc.finish())
        }
        _ => {
            let t = read_trace(path, format, mahimahi_window_ms)?;
            limits(t.len() as u64)?;
            let mut acc = stats::TraceStats::new(window, cfg);
            acc.push(&t.drc, t.sinr.as_deref());
            Ok(acc.finish())
        }
    }
}

/// Write a trace: binary for `.drc` (or when asked), Mahimahi delivery
/// opportunities for `.down` / `.up` (what `mm-link` replays), else text.
pub fn write_trace(path: &str, t: &DrcTrace, binary: bool) -> Result<()> {
    if binary || path.ends_with(".drc") {
        trace_binary::write(path, t)
    } else if path.ends_with(".down") || path.ends_with(".up") {
        mahimahi::write(path, t)
    } else {
        trace_text::write(path, t)
    }
}
