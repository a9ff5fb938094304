//! What a forward-link rate costs a user of an IS-2000 sector: transmit
//! power, which grows with the user's distance from the base station, and
//! Walsh codes, which grow with the rate.
//!
//! Dziong et al. (seed 004, §4.2) take the power a rate needs at a location
//! from link-level simulations they do not publish; this is the usual
//! system-level stand-in, with our parameters (defaults below):
//! - users are uniform over a circular cell, so the normalised distance is
//!   d = √U (U uniform in [0, 1));
//! - the fraction of the sector's maximum power a 9.6 kb/s FCH needs at d
//!   is max(p_min, p_edge · d^γ), with the path-loss exponent γ (power
//!   control compensates the mean path loss; fast fading is in the frame
//!   errors), and a rate of k × 9.6 kb/s needs k times that;
//! - pilot, sync and paging take a fixed share (`overhead`) of the power
//!   and `reserved_codes` of the 64 Walsh codes of length 64 (radio
//!   configuration 3); an FCH takes one code, an SCH of k × 9.6 kb/s a code
//!   of length 64/k, which blocks k of them (the code tree).

use crate::cdma2000::config::BASE_RATE_BPS;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RadioConfig {
    /// Power fraction a 9.6 kb/s channel needs at the cell edge (d = 1).
    pub p_edge: f64,
    /// ... and at least, near the base station.
    pub p_min: f64,
    /// Path-loss exponent γ.
    pub exponent: f64,
    /// Share of the power for pilot, sync and paging.
    pub overhead: f64,
    /// Walsh codes of length 64 in the sector, and those the common channels take.
    pub codes: u32,
    pub reserved_codes: u32,
}

impl Default for RadioConfig {
    /// p_edge 6 %: a 16X SCH (96 %) cannot reach the cell edge, an 8X can
    /// (48 %), as §2 says of the peak rate at some locations; γ = 3.5; 20 %
    /// of the power and 3 codes (pilot, sync, one paging channel) for the
    /// common channels.
    fn default() -> Self {
        RadioConfig { p_edge: 0.06, p_min: 0.005, exponent: 3.5, overhead: 0.20, codes: 64, reserved_codes: 3 }
    }
}

impl RadioConfig {
    /// Power fraction a 9.6 kb/s channel needs at normalised distance `d`.
    pub fn unit_power(&self, d: f64) -> f64 {
        (self.p_edge * d.powf(self.exponent)).max(self.p_min)
    }

    /// Power fraction for `bps` (a multiple of 9.6 kb/s) at distance `d`.
    pub fn power(&self, d: f64, bps: u64) -> f64 {
        self.unit_power(d) * (bps / BASE_RATE_BPS) as f64
    }

    /// Length-64 Walsh codes a channel of `bps` blocks.
    pub fn codes_for(&self, bps: u64) -> u32 {
        (bps / BASE_RATE_BPS) as u32
    }

    /// Power and codes the traffic channels may use.
    pub fn traffic_power(&self) -> f64 {
        1.0 - self.overhead
    }
    pub fn traffic_codes(&self) -> u32 {
        self.codes - self.reserved_codes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_grows_with_distance_and_rate() {
        let r = RadioConfig::default();
        assert_eq!(r.unit_power(0.0), 0.005);
        assert!((r.power(1.0, 153_600) - 0.96).abs() < 1e-12);
        assert!(r.power(1.0, 153_600) > r.traffic_power() && r.power(1.0, 76_800) < r.traffic_power());
        assert!((r.unit_power(0.5) - 0.06 * 0.5f64.powf(3.5)).abs() < 1e-12);
        assert_eq!(r.codes_for(153_600), 16);
        assert_eq!(r.traffic_codes(), 61);
    }
}
