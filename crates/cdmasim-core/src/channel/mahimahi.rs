//! Mahimahi delivery traces mapped onto a per-slot DRC.
//!
//! A Mahimahi trace lists, one per line, the millisecond at which one
//! 1500-byte packet may cross the link (repeated for several packets in the
//! same millisecond). It records what one saturating flow obtained, not the
//! DRC the terminal asked for, so the mapping is a model:
//!
//! 1. cut time into windows of `window_ms` (a multiple of 5 ms, i.e. of 3 slots);
//! 2. the window's rate is `1500 * 8 * packets / window`;
//! 3. every slot of the window gets the highest DRC whose nominal rate is at
//!    or below that rate (the null DRC 0 below 38.4 kb/s).
//!
//! Limits: the rate is quantised to one packet per window (120 kb/s for
//! 100 ms windows), the DRC is constant within a window (sojourns are
//! multiples of the window), the measured rate is one user's share after the
//! sector's scheduler and the flow's own dynamics, and rates above
//! 3.072 Mb/s saturate at the top DRC. Statistics of a mapped trace describe
//! the delivery process at the window's time scale, not slot-level DRC.

use super::error::{ChannelError, Result};
use super::DrcTrace;
use crate::channel::drc::{floor_index, Revision};

pub const PACKET_BYTES: u64 = 1500;

/// Longest trace: 24 hours. The mapped trace holds a DRC byte per slot
/// (600 a second), so memory follows the last timestamp, not the file's
/// size: a 15-byte file ending at 10^9 ms would ask for 600 MB. A day is
/// 51.8 million slots, 52 MB.
pub const MAX_MS: u64 = 24 * 3600 * 1000;

/// Parse the millisecond timestamps.
pub fn parse_ms(name: &str, text: &str) -> Result<Vec<u64>> {
    let mut out = Vec::new();
    let mut last = 0u64;
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.is_empty() {
            continue;
        }
        let v: u64 = l
            .parse()
            .map_err(|_| ChannelError::at(name, i as u64 + 1, "timestamp", format!("'{l}' is not a whole number of milliseconds")))?;
        if v < last {
            return Err(ChannelError::at(name, i as u64 + 1, "timestamp", format!("{v} ms goes back in time (previous {last} ms)")));
        }
        if v >= MAX_MS {
            return Err(ChannelError::at(name, i as u64 + 1, "timestamp", format!("{v} ms is beyond 24 hours ({MAX_MS} ms), the longest trace")));
        }
        last = v;
        out.push(v);
    }
    if out.is_empty() {
        return Err(ChannelError::new(name, "no timestamps in the Mahimahi trace"));
    }
    Ok(out)
}

/// Map timestamps onto per-slot DRC indices (see the module notes).
pub fn map_to_slots(ms: &[u64], window_ms: u32) -> DrcTrace {
    assert!(window_ms > 0 && window_ms.is_multiple_of(5), "window must be a positive multiple of 5 ms");
    let duration_ms = ms.last().copied().unwrap_or(0) + 1;
    let windows = duration_ms.div_ceil(window_ms as u64) as usize;
    let mut count = vec![0u64; windows];
    for &t in ms {
        count[(t / window_ms as u64) as usize] += 1;
    }
    let slots_per_window = (window_ms as usize * 3) / 5;
    let mut drc = Vec::with_capacity(windows * slots_per_window);
    for c in count {
        let rate = (c * PACKET_BYTES * 8) as f64 * 1000.0 / window_ms as f64;
        let d = floor_index(rate, Revision::RevA);
        drc.extend(std::iter::repeat_n(d, slots_per_window));
    }
    DrcTrace { drc, sinr: None, handoffs: Vec::new() }
}

/// The other way: Mahimahi delivery opportunities from per-slot DRC rates.
/// Slot k (1/600 s) adds its rate's bits; each time 12,000 bits (one
/// 1500-byte packet) are in, a line gives the millisecond the slot ends in.
/// Exact for the bits (no rounding drift: whole bits per slot are counted
/// in units of 1/600 bit); a rate below one packet per millisecond simply
/// gives fewer lines.
pub fn to_mahimahi(t: &DrcTrace) -> String {
    use std::fmt::Write;
    let per_packet = PACKET_BYTES * 8 * 600; // bits × 600, so a slot adds its rate
    let (mut acc, mut out) = (0u64, String::new());
    for (k, &d) in t.drc.iter().enumerate() {
        acc += crate::channel::drc::RATE_BPS[d as usize];
        while acc >= per_packet {
            acc -= per_packet;
            let _ = writeln!(out, "{}", ((k as u64 + 1) * 5).div_ceil(3) - 1);
        }
    }
    out
}

pub fn write(path: &str, t: &DrcTrace) -> Result<()> {
    let text = to_mahimahi(t);
    if text.is_empty() {
        return Err(ChannelError::new(path, "no delivery opportunity: every slot's rate is 0 (Mahimahi needs at least one)"));
    }
    crate::files::write_output(std::path::Path::new(path), text.as_bytes()).map_err(|e| ChannelError::io(path, e))
}

pub fn read(path: &str, window_ms: u32) -> Result<DrcTrace> {
    if window_ms == 0 || !window_ms.is_multiple_of(5) {
        return Err(ChannelError::new(path, format!("Mahimahi window {window_ms} ms is not a positive multiple of 5 ms")));
    }
    let text = crate::files::read_input_text(std::path::Path::new(path), crate::files::MAX_TRACE_BYTES, "Mahimahi trace")
        .map_err(|e| ChannelError::io(path, e))?;
    Ok(map_to_slots(&parse_ms(path, &text)?, window_ms))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_map_to_floor_rates() {
        // Window 0 (0-99 ms): 20 packets = 2.4 Mb/s -> 1843.2 kb/s (DRC 11).
        // Window 1: none -> null. Window 2: 1 packet = 120 kb/s -> 76.8 kb/s (DRC 2).
        let mut ms: Vec<u64> = vec![5; 20];
        ms.push(250);
        let t = map_to_slots(&ms, 100);
        assert_eq!(t.len(), 180);
        assert!(t.drc[..60].iter().all(|&d| d == 11));
        assert!(t.drc[60..120].iter().all(|&d| d == 0));
        assert!(t.drc[120..].iter().all(|&d| d == 2));
        assert!(parse_ms("m", "3\n2\n").unwrap_err().to_string().starts_with("m:2: timestamp"));
    }

    #[test]
    fn export_gives_the_rate_and_maps_back() {
        // 3.072 Mb/s (DRC 14) for 6 s: 256 packets a second, stamped within the run.
        let t = DrcTrace { drc: vec![14; 3600], sinr: None, handoffs: Vec::new() };
        let ms = parse_ms("x", &to_mahimahi(&t)).unwrap();
        assert_eq!(ms.len(), 6 * 256);
        assert!(*ms.last().unwrap() <= 5999);
        // Mapped back at 100 ms windows (25 or 26 packets: quantised to one
        // packet a window, see the module notes): 3.072 Mb/s or the rate below.
        let back = map_to_slots(&ms, 100);
        let rate = |d: u8| crate::channel::drc::RATE_BPS[d as usize];
        assert!(back.drc[..3540].iter().all(|&d| rate(d) >= 2_457_600), "{:?}", &back.drc[..60]);
        assert!(back.drc.iter().filter(|&&d| d == 14).count() > 1000);
        // 38.4 kb/s: 3.2 packets a second, one every 312.5 ms.
        let slow = DrcTrace { drc: vec![1; 6000], sinr: None, handoffs: Vec::new() };
        assert_eq!(parse_ms("x", &to_mahimahi(&slow)).unwrap().len(), 32);
    }

    #[test]
    fn a_huge_timestamp_is_refused_not_allocated() {
        for text in ["0\n18446744073709551615\n", "1\n86400000\n"] {
            let e = parse_ms("m", text).unwrap_err().to_string();
            assert!(e.starts_with("m:2: timestamp") && e.contains("beyond 24 hours"), "{e}");
        }
        assert_eq!(parse_ms("m", "0\n86399999\n").unwrap().len(), 2);
    }
}
