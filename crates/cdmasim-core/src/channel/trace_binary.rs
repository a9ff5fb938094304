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
//! One byte per slot keeps a day at about 52 MB; `stream` reads the DRC and
//! SINR sections side by side in pieces, so the statistics never hold a day.

use super::error::{ChannelError, Result};
use super::DrcTrace;
use crate::channel::drc::NUM_DRC;

pub const MAGIC: &[u8; 8] = b"CDMADRC\x01";
const HEADER: usize = 24;

fn le_u64(b: &[u8]) -> u64 {
    u64::from_le_bytes(b[..8].try_into().unwrap())
}

/// Where a binary trace's sections lie: `n` slots of DRC at byte 24, the
/// SINR section (if any) and the hand-offs (at, count), every count checked
/// against the file's size.
struct Layout {
    n: usize,
    sinr_at: Option<usize>,
    handoffs: Option<(usize, usize)>,
}

/// The layout of a trace of `total` bytes whose first bytes are `head`;
/// `u64_at` reads the hand-off count where the layout puts it.
fn layout(name: &str, head: &[u8], total: usize, u64_at: impl Fn(usize) -> Result<u64>) -> Result<Layout> {
    if head.len() < HEADER || total < HEADER || &head[..8] != MAGIC {
        return Err(ChannelError::new(name, "not a cdmasim binary DRC trace (bad magic)"));
    }
    let flags = u32::from_le_bytes(head[8..12].try_into().unwrap());
    if flags & !3 != 0 {
        return Err(ChannelError::at(name, 0, "flags", format!("unknown flags {flags:#x}")));
    }
    // Counts come from the file: check them against its size with checked
    // arithmetic before anything is allocated or sliced (a header claiming
    // 2^64 - 1 slots, or 2^61 hand-offs whose 8-byte entries wrap to 0 bytes).
    let n64 = le_u64(&head[16..]);
    let need = |at: usize, count: u64, each: u64, field: &str| -> Result<usize> {
        let fits = count.checked_mul(each).and_then(|k| usize::try_from(k).ok()).filter(|&k| at.checked_add(k).is_some_and(|e| e <= total));
        fits.ok_or_else(|| ChannelError::at(name, 0, field, format!("{count} claimed, but the file has {} bytes after byte {at}", total.saturating_sub(at))))
    };
    let n = need(HEADER, n64, 1, "slots")?;
    let mut at = HEADER + n;
    let sinr_at = if flags & 1 != 0 {
        need(at, n64, 2, "sinr")?;
        at += 2 * n;
        Some(at - 2 * n)
    } else {
        None
    };
    let handoffs = if flags & 2 != 0 {
        need(at, 1, 8, "handoffs")?;
        let h64 = u64_at(at)?;
        at += 8;
        let len = need(at, h64, 8, "handoffs")?;
        at += len;
        Some((at - len, len / 8))
    } else {
        None
    };
    if at != total {
        return Err(ChannelError::new(name, format!("{} trailing bytes after the trace", total - at)));
    }
    Ok(Layout { n, sinr_at, handoffs })
}

/// DRC indices must be 0..=14; `first` is the slot number of `drc[0]`.
fn check_drc(name: &str, drc: &[u8], first: usize) -> Result<()> {
    // One max() pass is far cheaper than checking per byte while copying.
    if drc.iter().copied().max().unwrap_or(0) as usize >= NUM_DRC {
        let bad = drc.iter().position(|&d| d as usize >= NUM_DRC).unwrap();
        return Err(ChannelError::new(name, format!("slot {}: drc: value {} out of range 0-14", first + bad, drc[bad])));
    }
    Ok(())
}

fn sinr_db(bytes: &[u8]) -> impl Iterator<Item = f32> + '_ {
    bytes.chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]]) as f32 / 100.0)
}

pub fn decode(name: &str, bytes: &[u8]) -> Result<DrcTrace> {
    let l = layout(name, bytes, bytes.len(), |at| Ok(le_u64(&bytes[at..])))?;
    let drc = bytes[HEADER..HEADER + l.n].to_vec();
    check_drc(name, &drc, 0)?;
    let sinr = l.sinr_at.map(|at| sinr_db(&bytes[at..at + 2 * l.n]).collect());
    let handoffs = l.handoffs.map_or_else(Vec::new, |(at, h)| bytes[at..at + 8 * h].chunks_exact(8).map(le_u64).collect());
    Ok(DrcTrace { drc, sinr, handoffs })
}

/// Slots per piece when a trace streams from its file (1 MB of DRC).
pub const STREAM_SLOTS: usize = 1 << 20;

/// Read a binary trace's slots in pieces of at most `piece` slots, in order,
/// handing each to `f` with its SINR (when the trace has it): memory is one
/// piece whatever the trace's length (a day is 51.8 million slots). The
/// file is checked as `read` checks it; an error stops the reading.
pub fn stream(path: &str, piece: usize, mut f: impl FnMut(&[u8], Option<&[f32]>)) -> Result<()> {
    use std::os::unix::fs::FileExt;

    let io = |e| ChannelError::io(path, e);
    let (file, len) = crate::files::open_input(std::path::Path::new(path)).map_err(io)?;
    let total = usize::try_from(len).unwrap_or(usize::MAX);
    let mut head = [0u8; HEADER];
    let got = file.read_at(&mut head, 0).map_err(io)?;
    let read_u64 = |at: usize| -> Result<u64> {
        let mut b = [0u8; 8];
        file.read_exact_at(&mut b, at as u64).map_err(io)?;
        Ok(u64::from_le_bytes(b))
    };
    let l = layout(path, &head[..got], total, read_u64)?;
    let piece = piece.max(1);
    let (mut drc, mut raw, mut sinr) = (vec![0u8; piece.min(l.n)], Vec::new(), Vec::new());
    let mut at = 0;
    while at < l.n {
        let k = piece.min(l.n - at);
        file.read_exact_at(&mut drc[..k], (HEADER + at) as u64).map_err(io)?;
        check_drc(path, &drc[..k], at)?;
        let s = match l.sinr_at {
            Some(s_at) => {
                raw.resize(2 * k, 0);
                file.read_exact_at(&mut raw, (s_at + 2 * at) as u64).map_err(io)?;
                sinr.clear();
                sinr.extend(sinr_db(&raw));
                Some(&sinr[..])
            }
            None => None,
        };
        f(&drc[..k], s);
        at += k;
    }
    Ok(())
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
    let bytes = crate::files::read_input(std::path::Path::new(path), crate::files::MAX_TRACE_BYTES, "binary DRC trace read whole")
        .map_err(|e| ChannelError::io(path, e))?;
    decode(path, &bytes)
}

pub fn write(path: &str, t: &DrcTrace) -> Result<()> {
    crate::files::write_output(std::path::Path::new(path), &encode(t)).map_err(|e| ChannelError::io(path, e))
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

    /// A trace streamed in pieces is the trace `read` returns, and the
    /// same file errors reach it (a DRC out of range by its slot number,
    /// a truncated file) with no piece after the bad one handed out.
    #[test]
    fn streaming_pieces_are_the_decoded_trace() {
        let dir = std::env::temp_dir().join(format!("cdmasim-stream-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.drc");
        let p = path.to_str().unwrap();
        let drc: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 15) as u8).collect();
        let sinr: Vec<f32> = (0..1000).map(|i| i as f32 / 10.0 - 30.0).collect();
        let t = DrcTrace { drc, sinr: Some(sinr), handoffs: vec![10, 500] };
        write(p, &t).unwrap();
        let want = read(p).unwrap();
        for piece in [1, 64, 999, 1000, 5000] {
            let (mut d, mut s) = (Vec::new(), Vec::new());
            stream(p, piece, |a, b| {
                assert!(a.len() <= piece);
                d.extend_from_slice(a);
                s.extend_from_slice(b.unwrap());
            })
            .unwrap();
            assert_eq!((d.as_slice(), Some(s)), (want.drc.as_slice(), want.sinr.clone()), "piece {piece}");
        }
        let mut bad = encode(&t);
        bad[24 + 700] = 15;
        std::fs::write(&path, &bad).unwrap();
        let mut seen = 0;
        let e = stream(p, 64, |a, _| seen += a.len()).unwrap_err().to_string();
        assert!(e.contains("slot 700: drc: value 15"), "{e}");
        assert_eq!(seen, 640, "pieces before the bad one only");
        std::fs::write(&path, &encode(&t)[..100]).unwrap();
        assert!(stream(p, 64, |_, _| panic!("no piece of a truncated file")).unwrap_err().to_string().contains("claimed"));
        std::fs::remove_dir_all(&dir).unwrap();
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
