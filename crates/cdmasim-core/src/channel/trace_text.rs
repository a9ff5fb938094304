//! Text DRC traces: one slot per line, `DRC [SINR_DB]`.
//!
//! The first field is a DRC index (an integer 0..=14) or a nominal DRC rate:
//! a number with a unit (`307.2kbps`, `2.4576Mbps`, `38400bps`) or a bare
//! integer above 14 read as bit/s. A rate must be one of the table's rates; a
//! rate shared by two formats maps to the shorter one. The optional second
//! field is the SINR in dB. Fields are separated by blanks or a comma; blank
//! lines and lines starting with `#` are ignored.

use super::error::{ChannelError, Result};
use super::DrcTrace;
use crate::channel::drc::{index_of_rate, NUM_DRC};
use crate::files;
use std::io::Write;
use std::path::Path;

fn parse_drc(tok: &str) -> std::result::Result<u8, String> {
    if let Ok(v) = tok.parse::<u64>() {
        if v < NUM_DRC as u64 {
            return Ok(v as u8);
        }
        return index_of_rate(v).ok_or_else(|| format!("'{tok}' is neither a DRC index (0-14) nor a DRC rate in bit/s"));
    }
    let lower = tok.to_ascii_lowercase();
    let (num, scale) = if let Some(n) = lower.strip_suffix("mbps") {
        (n, 1e6)
    } else if let Some(n) = lower.strip_suffix("kbps") {
        (n, 1e3)
    } else if let Some(n) = lower.strip_suffix("bps") {
        (n, 1.0)
    } else {
        return Err(format!("'{tok}' is neither a DRC index (0-14) nor a rate with a unit (kbps, Mbps, bps)"));
    };
    let v: f64 = num.trim().parse().map_err(|_| format!("'{tok}' is not a number"))?;
    // "NaN" and "inf" parse as f64; NaN would pass the checks below and
    // cast to 0 bit/s, the null DRC.
    if !v.is_finite() {
        return Err(format!("'{tok}' is not a number"));
    }
    let bps = (v * scale).round();
    if bps < 0.0 || (bps - v * scale).abs() > 0.5 {
        return Err(format!("'{tok}' is not a DRC rate"));
    }
    index_of_rate(bps as u64).ok_or_else(|| format!("'{tok}' is not one of the DRC rates"))
}

/// Parse text already in memory (`name` is used in error messages).
pub fn parse(name: &str, text: &str) -> Result<DrcTrace> {
    let mut drc = Vec::with_capacity(text.len() / 2);
    let mut sinr: Vec<f32> = Vec::new();
    let mut with_sinr: Option<bool> = None;
    for (ln, line) in text.lines().enumerate() {
        let lno = ln as u64 + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut it = line.split(|c: char| c == ',' || c.is_ascii_whitespace()).filter(|s| !s.is_empty());
        let d = it.next().unwrap_or("");
        let d = parse_drc(d).map_err(|m| ChannelError::at(name, lno, "drc", m))?;
        let s = it.next();
        if it.next().is_some() {
            return Err(ChannelError::at(name, lno, "line", "more than two fields (expected DRC [SINR_DB])"));
        }
        let has = s.is_some();
        match with_sinr {
            None => with_sinr = Some(has),
            Some(w) if w != has => {
                return Err(ChannelError::at(
                    name,
                    lno,
                    "sinr",
                    if w { "missing (earlier lines have a SINR column)" } else { "unexpected (earlier lines have no SINR column)" },
                ))
            }
            _ => {}
        }
        if let Some(s) = s {
            let v: f32 = s.parse().map_err(|_| ChannelError::at(name, lno, "sinr", format!("'{s}' is not a number (dB)")))?;
            if !v.is_finite() {
                return Err(ChannelError::at(name, lno, "sinr", format!("'{s}' is not finite")));
            }
            sinr.push(v);
        }
        drc.push(d);
    }
    if drc.is_empty() {
        return Err(ChannelError::new(name, "no DRC samples in the file"));
    }
    Ok(DrcTrace { drc, sinr: if with_sinr == Some(true) { Some(sinr) } else { None }, handoffs: Vec::new() })
}

pub fn read(path: &str) -> Result<DrcTrace> {
    let bytes = files::read_input(Path::new(path), files::MAX_TRACE_BYTES, "DRC trace").map_err(|e| ChannelError::io(path, e))?;
    let text = std::str::from_utf8(&bytes).map_err(|e| ChannelError::new(path, format!("not UTF-8 text ({e})")))?;
    parse(path, text)
}

pub fn write(path: &str, t: &DrcTrace) -> Result<()> {
    let mut w = files::Output::create(Path::new(path)).map_err(|e| ChannelError::io(path, e))?;
    let r: std::io::Result<()> = (|| {
        writeln!(w, "# cdmasim DRC trace: one slot (1/600 s) per line: DRC index{}", if t.sinr.is_some() { ", SINR dB" } else { "" })?;
        match &t.sinr {
            Some(s) => {
                for (d, x) in t.drc.iter().zip(s) {
                    writeln!(w, "{d} {x:.2}")?;
                }
            }
            None => {
                for d in &t.drc {
                    writeln!(w, "{d}")?;
                }
            }
        }
        Ok(())
    })();
    r.and_then(|()| w.commit()).map_err(|e| ChannelError::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_rates_and_sinr() {
        let t = parse("t", "# hdr\n3, -1.5\n307.2kbps 2\n\n2457600 9.25\n2.4576Mbps 9\n").unwrap();
        assert_eq!(t.drc, vec![3, 4, 12, 12]);
        assert_eq!(t.sinr.unwrap(), vec![-1.5, 2.0, 9.25, 9.0]);
    }

    #[test]
    fn errors_name_line_and_field() {
        let e = parse("f.txt", "1\n2\n17.5\n").unwrap_err();
        assert_eq!(e.to_string().split(": ").take(2).collect::<Vec<_>>(), vec!["f.txt:3", "drc"]);
        let e = parse("f.txt", "1 2.0\n2\n").unwrap_err();
        assert!(e.to_string().starts_with("f.txt:2: sinr: missing"), "{e}");
        let e = parse("f.txt", "1 abc\n").unwrap_err();
        assert!(e.to_string().starts_with("f.txt:1: sinr:"), "{e}");
        assert!(parse("f.txt", "# only\n").is_err());
        assert!(parse("f.txt", "100000\n").is_err());
    }

    #[test]
    fn nan_and_infinite_rates_are_refused() {
        for tok in ["NaNbps", "nankbps", "infMbps", "-infbps"] {
            let e = parse("t.txt", &format!("1\n{tok}\n")).map(|_| ()).unwrap_err().to_string();
            assert!(e.starts_with("t.txt:2: drc") && e.contains("is not a number"), "{e}");
        }
    }
}
