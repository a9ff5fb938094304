//! Simulated time: a count of nanoseconds since the start of the run, used
//! for instants and for durations alike (as ns-3's `Time` is). 2^64 ns is
//! 584 years, so overflow is not a concern for any scenario.
//!
//! A newtype, so that a time cannot be mixed up with a byte count, a rate or
//! a sequence number: times add and subtract, scale by plain numbers, and
//! divide into a plain ratio; anything else goes through `.0` (nanoseconds)
//! or [`secs`] on purpose. Times read from real captures (`pcap`) are wall
//! clock, not time since a run's start, and stay plain nanoseconds.

use std::ops::{Add, AddAssign, Div, Mul, Rem, Sub, SubAssign};

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Debug, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Time(pub u64);

/// One microsecond, millisecond and second: `20 * NS_PER_MS` is 20 ms.
pub const NS_PER_US: Time = Time(1_000);
pub const NS_PER_MS: Time = Time(1_000_000);
pub const NS_PER_SEC: Time = Time(1_000_000_000);

impl Time {
    pub const ZERO: Time = Time(0);
    /// "Never": later than any event of any run.
    pub const MAX: Time = Time(u64::MAX);

    /// `n` microseconds, milliseconds, seconds (for constants).
    pub const fn from_micros(n: u64) -> Time {
        Time(n * NS_PER_US.0)
    }
    pub const fn from_millis(n: u64) -> Time {
        Time(n * NS_PER_MS.0)
    }
    pub const fn from_secs(n: u64) -> Time {
        Time(n * NS_PER_SEC.0)
    }
    pub const fn saturating_sub(self, o: Time) -> Time {
        Time(self.0.saturating_sub(o.0))
    }
    pub const fn saturating_add(self, o: Time) -> Time {
        Time(self.0.saturating_add(o.0))
    }
    pub const fn saturating_mul(self, k: u64) -> Time {
        Time(self.0.saturating_mul(k))
    }
    pub const fn checked_add(self, o: Time) -> Option<Time> {
        match self.0.checked_add(o.0) {
            Some(t) => Some(Time(t)),
            None => None,
        }
    }
    pub const fn checked_mul(self, k: u64) -> Option<Time> {
        match self.0.checked_mul(k) {
            Some(t) => Some(Time(t)),
            None => None,
        }
    }
    /// How many `o` fit in `self`, rounded up.
    pub const fn div_ceil(self, o: Time) -> u64 {
        self.0.div_ceil(o.0)
    }
    pub fn abs_diff(self, o: Time) -> Time {
        Time(self.0.abs_diff(o.0))
    }
}

impl Add for Time {
    type Output = Time;
    fn add(self, o: Time) -> Time {
        Time(self.0 + o.0)
    }
}
impl Sub for Time {
    type Output = Time;
    fn sub(self, o: Time) -> Time {
        Time(self.0 - o.0)
    }
}
impl AddAssign for Time {
    fn add_assign(&mut self, o: Time) {
        self.0 += o.0
    }
}
impl SubAssign for Time {
    fn sub_assign(&mut self, o: Time) {
        self.0 -= o.0
    }
}
impl Mul<u64> for Time {
    type Output = Time;
    fn mul(self, k: u64) -> Time {
        Time(self.0 * k)
    }
}
impl Mul<Time> for u64 {
    type Output = Time;
    fn mul(self, t: Time) -> Time {
        Time(self * t.0)
    }
}
impl Div<u64> for Time {
    type Output = Time;
    fn div(self, k: u64) -> Time {
        Time(self.0 / k)
    }
}
/// A ratio of two times is a plain number (how many `o` fit in `self`, rounded down).
impl Div for Time {
    type Output = u64;
    fn div(self, o: Time) -> u64 {
        self.0 / o.0
    }
}
impl Rem for Time {
    type Output = Time;
    fn rem(self, o: Time) -> Time {
        Time(self.0 % o.0)
    }
}
impl std::iter::Sum for Time {
    fn sum<I: Iterator<Item = Time>>(it: I) -> Time {
        Time(it.map(|t| t.0).sum())
    }
}

/// Seconds (as f64) from a time, for reports and for models whose equations
/// are in seconds (Cubic's): rounded, so never turned back into a time.
pub fn secs(t: Time) -> f64 {
    t.0 as f64 / NS_PER_SEC.0 as f64
}

/// A time from seconds drawn by a model (think times and the like):
/// rounded to the nanosecond, negative and NaN as 0, saturating.
pub fn from_secs_f64(s: f64) -> Time {
    Time((s * NS_PER_SEC.0 as f64).round() as u64)
}

/// Time to serialise `bytes` at `rate_bps`, rounded up to the next nanosecond
/// so that a link never transmits faster than its rate.
pub fn tx_time(bytes: u64, rate_bps: u64) -> Time {
    debug_assert!(rate_bps > 0);
    let bits = bytes as u128 * 8 * NS_PER_SEC.0 as u128;
    Time(bits.div_ceil(rate_bps as u128) as u64)
}

/// Bits that a link at `rate_bps` serialises in `dt` (rounded down).
pub fn bits_in(dt: Time, rate_bps: u64) -> u64 {
    (dt.0 as u128 * rate_bps as u128 / NS_PER_SEC.0 as u128) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_rounds_up() {
        // 1500 B at 10 Mb/s is exactly 1.2 ms.
        assert_eq!(tx_time(1500, 10_000_000), Time(1_200_000));
        // 1 B at 3 b/s is 8/3 s: rounded up to the next nanosecond.
        assert_eq!(tx_time(1, 3), Time(2_666_666_667));
        assert_eq!(bits_in(NS_PER_SEC, 9_600), 9_600);
    }

    #[test]
    fn a_time_is_serialized_as_its_nanoseconds() {
        assert_eq!(serde_json::to_string(&Time(42)).unwrap(), "42");
        assert_eq!(serde_json::from_str::<Time>("42").unwrap(), Time(42));
    }
}
