//! Quantities with units: "9.6kbps", "37.5ms", "64KB", "100pkt".
//!
//! Numbers are read as exact decimals (mantissa × 10^exponent) and converted
//! with integer arithmetic, so "37.5ms" is exactly 37_500_000 ns and "9.6kbps"
//! exactly 9_600 bit/s; a value that does not land on a whole base unit is
//! rounded to the nearest one (halves away from zero).
//!
//! Prefixes are decimal SI for both rates and sizes: k = K = 1000, so
//! "5kB" = 5000 bytes and "64KB" = 64000 bytes, as in the cdma2000 papers
//! (Paliwal et al.'s 5 kB shared buffer holds exactly ten 500-byte packets).
//! Binary sizes have their own units: KiB, MiB, GiB (1024-based).
//! A bare number is always an error: the unit is what says what it means.

use crate::net::queue::QueueLimit;
use crate::engine::time::secs;
use crate::engine::{Time, NS_PER_MS, NS_PER_SEC, NS_PER_US};

/// Exact decimal: `mantissa × 10^exp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Decimal {
    mantissa: u128,
    exp: i32,
}

/// Split "37.5ms" into the number and the unit (spaces between are allowed).
fn split(text: &str) -> Result<(Decimal, &str), String> {
    let s = text.trim();
    if s.is_empty() {
        return Err("empty quantity".into());
    }
    if s.starts_with('-') {
        return Err(format!("'{text}' is negative"));
    }
    let s = s.strip_prefix('+').unwrap_or(s);
    let b = s.as_bytes();
    let mut i = 0;
    let mut mantissa: u128 = 0;
    let mut exp: i32 = 0;
    let mut digits = 0;
    let mut seen_dot = false;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_digit() {
            mantissa = mantissa
                .checked_mul(10)
                .and_then(|m| m.checked_add((c - b'0') as u128))
                .ok_or_else(|| format!("'{text}' has too many digits"))?;
            if seen_dot {
                exp -= 1;
            }
            digits += 1;
        } else if c == b'.' && !seen_dot {
            seen_dot = true;
        } else if c == b'_' && digits > 0 {
            // TOML-style digit separators: "1_000kbps".
        } else {
            break;
        }
        i += 1;
    }
    if digits == 0 {
        return Err(format!("'{text}' does not start with a number"));
    }
    // Optional exponent "e6" / "E-3", only if digits follow (no unit starts with e).
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        let neg = j < b.len() && b[j] == b'-';
        if j < b.len() && (b[j] == b'-' || b[j] == b'+') {
            j += 1;
        }
        let start = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > start {
            let e: i32 = s[start..j].parse().map_err(|_| format!("'{text}' has a bad exponent"))?;
            exp += if neg { -e } else { e };
            i = j;
        }
    }
    let unit = s[i..].trim();
    if unit.is_empty() {
        return Err(format!("'{text}' has no unit"));
    }
    Ok((Decimal { mantissa, exp }, unit))
}

/// `d × factor / divisor`, rounded to the nearest integer; None on overflow.
fn scale(d: Decimal, factor: u128, divisor: u128) -> Option<u128> {
    let mut num = d.mantissa.checked_mul(factor)?;
    let mut den = divisor;
    if d.exp >= 0 {
        num = num.checked_mul(10u128.checked_pow(d.exp as u32)?)?;
    } else {
        // 10^39 overflows u128; such tiny values round to zero anyway.
        match 10u128.checked_pow((-d.exp) as u32).and_then(|p| den.checked_mul(p)) {
            Some(v) => den = v,
            None => return Some(0),
        }
    }
    Some((num + den / 2) / den)
}

fn to_u64(d: Decimal, factor: u128, divisor: u128, text: &str) -> Result<u64, String> {
    scale(d, factor, divisor)
        .and_then(|v| u64::try_from(v).ok())
        .ok_or_else(|| format!("'{text}' is too large"))
}

/// A rate in bit/s: bps, kbps, Mbps, Gbps, or the b/s and bit/s forms
/// (kb/s, Kb/s, Mbit/s, ...). k and K both mean 1000.
pub fn parse_rate(text: &str) -> Result<u64, String> {
    let (d, unit) = split(text)?;
    let (prefix, base) = match unit.find(|c: char| c == 'b') {
        Some(p) => unit.split_at(p),
        None => ("", unit),
    };
    let mult: u128 = match prefix {
        "" => 1,
        "k" | "K" => 1_000,
        "M" => 1_000_000,
        "G" => 1_000_000_000,
        _ => 0,
    };
    let base_ok = matches!(base, "bps" | "b/s" | "bit/s");
    if mult == 0 || !base_ok {
        return Err(format!(
            "unknown rate unit '{unit}' in '{text}' (rates are bits per second: bps, kbps, Mbps, Gbps, or kb/s, Mbit/s, ...)"
        ));
    }
    to_u64(d, mult, 1, text)
}

/// A time in ns: ns, us (or µs), ms, s, min, h.
pub fn parse_time(text: &str) -> Result<Time, String> {
    let (d, unit) = split(text)?;
    let mult: u128 = match unit {
        "ns" => 1,
        "us" | "µs" | "μs" => NS_PER_US.0 as u128,
        "ms" => NS_PER_MS.0 as u128,
        "s" => NS_PER_SEC.0 as u128,
        "min" => 60 * NS_PER_SEC.0 as u128,
        "h" => 3600 * NS_PER_SEC.0 as u128,
        _ => {
            return Err(format!("unknown time unit '{unit}' in '{text}' (use ns, us, ms, s, min or h)"));
        }
    };
    to_u64(d, mult, 1, text).map(Time)
}

fn size_multiplier(unit: &str) -> Option<u128> {
    Some(match unit {
        "B" | "byte" | "bytes" => 1,
        "kB" | "KB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        _ => return None,
    })
}

const SIZE_UNITS: &str = "B, kB/KB (1000 B), MB, GB, KiB (1024 B), MiB, GiB";

/// A size in bytes: B, kB = KB = 1000 B, MB, GB, KiB = 1024 B, MiB, GiB.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let (d, unit) = split(text)?;
    match size_multiplier(unit) {
        Some(m) => to_u64(d, m, 1, text),
        None => Err(format!("unknown size unit '{unit}' in '{text}' (use {SIZE_UNITS})")),
    }
}

fn is_packet_unit(unit: &str) -> bool {
    matches!(unit, "pkt" | "pkts" | "packet" | "packets" | "p")
}

/// An amount that is either packets ("100pkt") or bytes ("64KB"), as queue
/// thresholds are. Packets may be fractional here (RED thresholds are reals).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Amount {
    Packets(f64),
    Bytes(u64),
}

pub fn parse_amount(text: &str) -> Result<Amount, String> {
    let (d, unit) = split(text)?;
    if is_packet_unit(unit) {
        // Thousandths of a packet are plenty for a threshold.
        let milli = to_u64(d, 1000, 1, text)?;
        return Ok(Amount::Packets(milli as f64 / 1000.0));
    }
    match size_multiplier(unit) {
        Some(m) => Ok(Amount::Bytes(to_u64(d, m, 1, text)?)),
        None => Err(format!("unknown unit '{unit}' in '{text}' (use packets: pkt, packets; or bytes: {SIZE_UNITS})")),
    }
}

/// A queue limit: "100pkt" / "100packets", a size ("64KB"), or "unlimited".
pub fn parse_limit(text: &str) -> Result<QueueLimit, String> {
    if text.trim() == "unlimited" {
        return Ok(QueueLimit::Unlimited);
    }
    let (d, unit) = split(text)?;
    if is_packet_unit(unit) {
        if d.exp < 0 && d.mantissa % 10u128.pow((-d.exp) as u32) != 0 {
            return Err(format!("'{text}': a queue limit is a whole number of packets"));
        }
        let n = to_u64(d, 1, 1, text)?;
        return if n == 0 { Err(format!("'{text}': a queue limit must be at least 1 packet")) } else { Ok(QueueLimit::Packets(n)) };
    }
    match parse_amount(text)? {
        Amount::Bytes(0) => Err(format!("'{text}': a queue limit must be positive")),
        Amount::Bytes(b) => Ok(QueueLimit::Bytes(b)),
        Amount::Packets(_) => unreachable!("packet units handled above"),
    }
}

/// A probability given as "1%" (the only unit probabilities take).
pub fn parse_percent(text: &str) -> Result<f64, String> {
    let (d, unit) = split(text)?;
    if unit != "%" {
        return Err(format!("'{text}': a probability is a plain number in [0, 1] or a percentage like \"1%\""));
    }
    // Divide by an exact power of ten so that "0.5%" is the double nearest 0.005.
    let exp = d.exp - 2;
    let v = if exp >= 0 { d.mantissa as f64 * 10f64.powi(exp) } else { d.mantissa as f64 / 10f64.powi(-exp) };
    Ok(v)
}

/// What a quantity measures, named by its base unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dimension {
    /// bit/s
    Rate,
    /// seconds
    Time,
    /// bytes
    Size,
    /// packets
    Packets,
    /// a fraction (a percentage divided by 100)
    Fraction,
}

impl Dimension {
    /// The base unit's name, as sweep tables label their numeric columns.
    pub fn unit(self) -> &'static str {
        match self {
            Dimension::Rate => "bps",
            Dimension::Time => "s",
            Dimension::Size => "bytes",
            Dimension::Packets => "pkts",
            Dimension::Fraction => "fraction",
        }
    }
}

/// Any quantity a scenario file takes ("9.6kbps", "37.5ms", "64KB",
/// "100pkt", "1%"), in its base unit: its unit names its dimension, so
/// there is at most one reading. Seconds and bit/s as f64 (a time is exact
/// to the nanosecond first), bytes and packets as read.
pub fn parse_quantity(text: &str) -> Result<(Dimension, f64), String> {
    let (_, unit) = split(text)?;
    if is_packet_unit(unit) {
        return match parse_amount(text)? {
            Amount::Packets(p) => Ok((Dimension::Packets, p)),
            Amount::Bytes(_) => unreachable!("a packet unit"),
        };
    }
    if unit == "%" {
        return Ok((Dimension::Fraction, parse_percent(text)?));
    }
    if size_multiplier(unit).is_some() {
        return Ok((Dimension::Size, parse_size(text)? as f64));
    }
    if let Ok(ns) = parse_time(text) {
        return Ok((Dimension::Time, secs(ns)));
    }
    if let Ok(bps) = parse_rate(text) {
        return Ok((Dimension::Rate, bps as f64));
    }
    Err(format!("'{text}': unknown unit '{unit}'"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quantity_names_its_dimension_by_its_unit() {
        assert_eq!(parse_quantity("9.6kbps"), Ok((Dimension::Rate, 9600.0)));
        assert_eq!(parse_quantity("37.5ms"), Ok((Dimension::Time, 0.0375)));
        assert_eq!(parse_quantity("64KiB"), Ok((Dimension::Size, 65536.0)));
        assert_eq!(parse_quantity("5kB"), Ok((Dimension::Size, 5000.0)));
        assert_eq!(parse_quantity("100pkt"), Ok((Dimension::Packets, 100.0)));
        assert_eq!(parse_quantity("2.5packets"), Ok((Dimension::Packets, 2.5)));
        assert_eq!(parse_quantity("1%"), Ok((Dimension::Fraction, 0.01)));
        assert_eq!(parse_quantity("2min"), Ok((Dimension::Time, 120.0)));
        assert!(parse_quantity("5 apples").is_err());
        assert!(parse_quantity("reno").is_err());
        assert!(parse_quantity("10").is_err());
    }

    #[test]
    fn rates_every_unit() {
        assert_eq!(parse_rate("100bps"), Ok(100));
        assert_eq!(parse_rate("9.6kbps"), Ok(9_600));
        assert_eq!(parse_rate("9.6Kbps"), Ok(9_600));
        assert_eq!(parse_rate("38.4kb/s"), Ok(38_400));
        assert_eq!(parse_rate("163.2 Kb/s"), Ok(163_200));
        assert_eq!(parse_rate("10Mbps"), Ok(10_000_000));
        assert_eq!(parse_rate("2.4Mbit/s"), Ok(2_400_000));
        assert_eq!(parse_rate("1.5Gbps"), Ok(1_500_000_000));
        assert_eq!(parse_rate("3.072Mb/s"), Ok(3_072_000));
        assert_eq!(parse_rate("1e6bps"), Ok(1_000_000));
        assert_eq!(parse_rate("1_000kbps"), Ok(1_000_000));
    }

    #[test]
    fn rates_reject_bytes_and_bare_numbers() {
        assert!(parse_rate("10MBps").unwrap_err().contains("unknown rate unit"));
        assert!(parse_rate("10mbps").is_err());
        assert!(parse_rate("10").unwrap_err().contains("no unit"));
        assert!(parse_rate("-5Mbps").unwrap_err().contains("negative"));
        assert!(parse_rate("Mbps").unwrap_err().contains("number"));
        assert!(parse_rate("").is_err());
        assert!(parse_rate("99999999999Gbps").unwrap_err().contains("too large"));
    }

    #[test]
    fn times_every_unit_and_exact_decimals() {
        assert_eq!(parse_time("10ns"), Ok(Time(10)));
        assert_eq!(parse_time("100us"), Ok(Time(100_000)));
        assert_eq!(parse_time("100µs"), Ok(Time(100_000)));
        assert_eq!(parse_time("20ms"), Ok(Time(20_000_000)));
        assert_eq!(parse_time("37.5ms"), Ok(Time(37_500_000)));
        assert_eq!(parse_time("1.5s"), Ok(Time(1_500_000_000)));
        assert_eq!(parse_time("2min"), Ok(Time(120_000_000_000)));
        assert_eq!(parse_time("1h"), Ok(Time(3_600_000_000_000)));
        assert_eq!(parse_time("0s"), Ok(Time::ZERO));
        // 1/600 s written out to 10 digits is 1666666.6667 ns: rounds to the nearest ns.
        assert_eq!(parse_time("1.6666666667ms"), Ok(Time(1_666_667)));
        assert!(parse_time("5").is_err());
        assert!(parse_time("5 sec").unwrap_err().contains("unknown time unit"));
    }

    #[test]
    fn rounding_is_to_nearest_half_away_from_zero() {
        assert_eq!(parse_time("1.5ns"), Ok(Time(2)));
        assert_eq!(parse_time("1.49ns"), Ok(Time(1)));
        assert_eq!(parse_time("0.4ns"), Ok(Time::ZERO));
        assert_eq!(parse_rate("0.5bps"), Ok(1));
        assert_eq!(parse_size("1.0005kB"), Ok(1001));
        assert_eq!(parse_time("1e-30s"), Ok(Time::ZERO));
    }

    #[test]
    fn sizes_decimal_and_binary() {
        assert_eq!(parse_size("500B"), Ok(500));
        assert_eq!(parse_size("5kB"), Ok(5_000));
        assert_eq!(parse_size("64KB"), Ok(64_000));
        assert_eq!(parse_size("1MB"), Ok(1_000_000));
        assert_eq!(parse_size("1GB"), Ok(1_000_000_000));
        assert_eq!(parse_size("1KiB"), Ok(1024));
        assert_eq!(parse_size("1.5MiB"), Ok(1_572_864));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("460 bytes"), Ok(460));
        assert!(parse_size("64Kb").unwrap_err().contains("unknown size unit"));
        assert!(parse_size("64").is_err());
    }

    #[test]
    fn limits_packets_bytes_unlimited() {
        assert!(matches!(parse_limit("100pkt"), Ok(QueueLimit::Packets(100))));
        assert!(matches!(parse_limit("100packets"), Ok(QueueLimit::Packets(100))));
        assert!(matches!(parse_limit("5kB"), Ok(QueueLimit::Bytes(5000))));
        assert!(matches!(parse_limit("unlimited"), Ok(QueueLimit::Unlimited)));
        assert!(parse_limit("2.5pkt").unwrap_err().contains("whole number"));
        assert!(parse_limit("0pkt").is_err());
        assert!(parse_limit("0B").is_err());
        assert!(parse_limit("100").is_err());
        assert_eq!(parse_amount("20.5pkt"), Ok(Amount::Packets(20.5)));
        assert_eq!(parse_amount("20kB"), Ok(Amount::Bytes(20_000)));
    }

    #[test]
    fn percentages() {
        assert_eq!(parse_percent("1%"), Ok(0.01));
        assert_eq!(parse_percent("0.5 %"), Ok(0.005));
        assert!(parse_percent("1").is_err());
    }
}
