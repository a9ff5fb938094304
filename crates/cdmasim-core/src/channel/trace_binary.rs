//! Compact binary DRC traces, for 24-hour logs (51.8 million slots).
//!
//! Layout, little-endian:
//! ```text
//! 0   8  magic "CDMADRC\x01"
//! 8   4  flags: bit 0 = SINR present, bit 1 = hand-offs present
//! 12  4  reserved (0)
//! 16  8  n, the number of slots
//! 24  n  DRC index per slot, one byte each (0..=14)
//! ..  2n SINR per slot as i16 hundredths of a dB (if flag bit 0)
//! ..  8  h, number of hand-offs, then h u64 slot numbers (if flag bit 1)
//! ```
//! One byte per slot keeps a day at about 52 MB and lets the statistics run
//! straight over the mapped bytes.

use super::error::{ChannelError, Result};
use super::DrcTrace;
use crate::channel::drc::NUM_DRC;

pub const MAGIC: &[u8; 8] = b"CDMADRC\x01";
const HEADER: usize = 24;

fn le_u64(b: &[u8]) -> u64 {
    u64::from_le_bytes(b[..8].try_into().unwrap())
}

pub fn decode(name: &str, bytes: &[u8]) -> Result<DrcTrace> {
    if bytes.len() < HEADER || &bytes[..8] != MAGIC {
        return Err(ChannelError::new(name, "not a cdmasim binary DRC trace (bad magic)"));
    }
    let flags = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
    if flags & !3 != 0 {
        return Err(ChannelError::at(name, 0, "flags", format!("unknown flags {flags:#x}")));
    }
    // Counts come from the file: check them against its size with checked
    // arithmetic before anything is allocated or sliced (a header claiming
    // 2^64 - 1 slots, or 2^61 hand-offs whose 8-byte entries wrap to 0 bytes).
    let n64 = le_u64(&bytes[16..]);
    let mut at = HEADER;
    let need = |at: usize, count: u64, each: u64, field: &str| -> Result<usize> {
        let fits = count.checked_mul(each).and_then(|k| usize::try_from(k).ok()).filter(|&k| at.checked_add(k).is_some_and(|e| e <= bytes.len()));
        fits.ok_or_else(|| {
            ChannelError::at(name, 0, field, format!("{count} claimed, but the file has {} bytes after byte {at}", bytes.len().saturating_sub(at)))
        })
    };
    let n = need(at, n64, 1, "slots")?;
    let drc = bytes[at..at + n].to_vec();
    // One max() pass is far cheaper than checking per byte while copying.
    if drc.iter().copied().max().unwrap_or(0) as usize >= NUM_DRC {
        let bad = drc.iter().position(|&d| d as usize >= NUM_DRC).unwrap();
        return Err(ChannelError::new(name, format!("slot {bad}: drc: value {} out of range 0-14", drc[bad])));
    }
    at += n;
    let sinr = if flags & 1 != 0 {
        need(at, n64, 2, "sinr")?;
        let v = bytes[at..at + 2 * n].chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]]) as f32 / 100.0).collect();
        at += 2 * n;
        Some(v)
    } else {
        None
    };
    let mut handoffs = Vec::new();
    if flags & 2 != 0 {
        need(at, 1, 8, "handoffs")?;
        let h64 = le_u64(&bytes[at..]);
        at += 8;
        let len = need(at, h64, 8, "handoffs")?;
        handoffs = bytes[at..at + len].chunks_exact(8).map(le_u64).collect();
        at += len;
    }
    if at != bytes.len() {
        return Err(ChannelError::new(name, format!("{} trailing bytes after the trace", bytes.len() - at)));
    }
    Ok(DrcTrace { drc, sinr, handoffs })
}

pub fn encode(t: &DrcTrace) -> Vec<u8> {
    let n = t.drc.len();
    let mut out = Vec::with_capacity(HEADER + n * if t.sinr.is_some() { 3 } else { 1 } + 8 + 8 * t.handoffs.len());
    out.extend_from_slice(MAGIC);
    let flags = (t.sinr.is_some() as u32) | ((!t.handoffs.is_empty() as u32) << 1);
    out.extend_from_slice(&flags.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(n as u64).to_le_bytes());
    out.extend_from_slice(&t.drc);
    if let Some(s) = &t.sinr {
        for &x in s {
            let v = (x * 100.0).round().clamp(i16::MIN as f32, i16::MAX as f32) as i16;
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    if !t.handoffs.is_empty() {
        out.extend_from_slice(&(t.handoffs.len() as u64).to_le_bytes());
        for h in &t.handoffs {
            out.extend_from_slice(&h.to_le_bytes());
        }
    }
    out
}

pub fn read(path: &str) -> Result<DrcTrace> {
    let bytes = std::fs::read(path).map_err(|e| ChannelError::io(path, e))?;
    decode(path, &bytes)
}

pub fn write(path: &str, t: &DrcTrace) -> Result<()> {
    std::fs::write(path, encode(t)).map_err(|e| ChannelError::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_corruption() {
        let t = DrcTrace { drc: vec![0, 14, 7, 7], sinr: Some(vec![-3.25, 12.5, 0.0, 1.01]), handoffs: vec![2] };
        let b = encode(&t);
        assert_eq!(b.len(), 24 + 4 + 8 + 8 + 8);
        let u = decode("x", &b).unwrap();
        assert_eq!(u.drc, t.drc);
        assert_eq!(u.handoffs, vec![2]);
        for (a, b) in u.sinr.unwrap().iter().zip(t.sinr.unwrap()) {
            assert!((a - b).abs() <= 0.005);
        }
        assert!(decode("x", &b[..b.len() - 1]).is_err());
        let mut bad = b.clone();
        bad[25] = 15;
        assert!(decode("x", &bad).unwrap_err().to_string().contains("slot 1: drc"));
        assert!(decode("x", b"hello").is_err());
    }

    #[test]
    fn counts_beyond_the_file_are_errors_not_panics() {
        let t = DrcTrace { drc: vec![3, 4], sinr: None, handoffs: vec![1] };
        let b = encode(&t);
        // Slots: 2^64 - 1.
        let mut bad = b.clone();
        bad[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
        let e = decode("x.bin", &bad).unwrap_err().to_string();
        assert!(e.contains("slots") && e.contains("18446744073709551615 claimed"), "{e}");
        // Hand-offs: 2^64 - 1, and 2^61 (8 · 2^61 wraps to 0 in 64 bits).
        let h_at = 24 + 2;
        for h in [u64::MAX, 1u64 << 61] {
            let mut bad = b.clone();
            bad[h_at..h_at + 8].copy_from_slice(&h.to_le_bytes());
            let e = decode("x.bin", &bad).unwrap_err().to_string();
            assert!(e.contains("handoffs") && e.contains(&format!("{h} claimed")), "{e}");
        }
        assert_eq!(decode("x.bin", &b).unwrap().handoffs, vec![1]);
    }
}
