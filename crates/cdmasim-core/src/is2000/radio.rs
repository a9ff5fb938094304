//! What a forward-link rate costs a user of an IS-2000 sector: transmit
//! power, by the user's place (`power`: a model of the share each rate
//! needs there), and Walsh codes, by the rate. Pilot, sync and paging take
//! the power model's overhead and `reserved_codes` of the 64 Walsh codes
//! of length 64 (radio configuration 3); an FCH takes one code, an SCH of
//! k × 9.6 kb/s a code of length 64/k, which blocks k of them (the code
//! tree).

use super::power::PowerConfig;
use crate::cdma2000::config::BASE_RATE_BPS;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RadioConfig {
    pub power: PowerConfig,
    /// Walsh codes of length 64 in the sector, and those the common channels take.
    pub codes: u32,
    pub reserved_codes: u32,
}

impl Default for RadioConfig {
    /// Three codes for the common channels: pilot, sync, one paging channel.
    fn default() -> Self {
        RadioConfig { power: PowerConfig::default(), codes: 64, reserved_codes: 3 }
    }
}

impl RadioConfig {
    /// Length-64 Walsh codes a channel of `bps` blocks.
    pub fn codes_for(&self, bps: u64) -> u32 {
        (bps / BASE_RATE_BPS) as u32
    }

    pub fn traffic_codes(&self) -> u32 {
        self.codes - self.reserved_codes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_sch_blocks_codes_by_its_rate() {
        let r = RadioConfig::default();
        assert_eq!(r.codes_for(153_600), 16);
        assert_eq!(r.traffic_codes(), 61);
    }
}
