//! Simulated time is a u64 count of nanoseconds since the start of the run.
//! 2^64 ns is 584 years, so overflow is not a concern for any scenario.

pub type Time = u64;

pub const NS_PER_US: Time = 1_000;
pub const NS_PER_MS: Time = 1_000_000;
pub const NS_PER_SEC: Time = 1_000_000_000;

/// Seconds (as f64) from nanoseconds, for reports only: never feed it back into the engine.
pub fn secs(t: Time) -> f64 {
    t as f64 / NS_PER_SEC as f64
}

/// Nanoseconds from seconds drawn by a model (think times and the like):
/// rounded to the nanosecond, negative and NaN as 0, saturating.
pub fn from_secs(s: f64) -> Time {
    (s * NS_PER_SEC as f64).round() as Time
}

/// Time to serialise `bytes` at `rate_bps`, rounded up to the next nanosecond
/// so that a link never transmits faster than its rate.
pub fn tx_time(bytes: u64, rate_bps: u64) -> Time {
    debug_assert!(rate_bps > 0);
    let bits = bytes as u128 * 8 * NS_PER_SEC as u128;
    bits.div_ceil(rate_bps as u128) as Time
}

/// Bits that a link at `rate_bps` serialises in `dt` nanoseconds (rounded down).
pub fn bits_in(dt: Time, rate_bps: u64) -> u64 {
    (dt as u128 * rate_bps as u128 / NS_PER_SEC as u128) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_rounds_up() {
        // 1500 B at 10 Mb/s is exactly 1.2 ms.
        assert_eq!(tx_time(1500, 10_000_000), 1_200_000);
        // 1 B at 3 b/s is 8/3 s: rounded up to the next nanosecond.
        assert_eq!(tx_time(1, 3), 2_666_666_667);
        assert_eq!(bits_in(NS_PER_SEC, 9_600), 9_600);
    }
}
