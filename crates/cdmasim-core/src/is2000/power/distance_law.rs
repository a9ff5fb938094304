//! The distance law: the share a 9.6 kb/s channel needs at normalised
//! distance d from the base station is max(p_min, p_edge·d^γ), users being
//! uniform over a circular cell (d = √U), and a rate of k × 9.6 kb/s needs
//! k times that. Its constants are assumptions without a source; it is kept
//! as `model = "distance"` for comparison with the link budget.

use super::PowerModel;
use crate::cdma2000::config::BASE_RATE_BPS;
use crate::engine::Rng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DistanceLaw {
    /// Share a 9.6 kb/s channel needs at the cell edge (d = 1).
    pub p_edge: f64,
    /// ... and at least, near the base station.
    pub p_min: f64,
    /// Path-loss exponent γ.
    pub exponent: f64,
    /// Share of the power for pilot, sync and paging.
    pub overhead: f64,
}

impl Default for DistanceLaw {
    /// p_edge 6 %: a 16X SCH (96 %) cannot reach the cell edge, an 8X can
    /// (48 %); γ = 3.5; 20 % for the common channels.
    fn default() -> Self {
        DistanceLaw { p_edge: 0.06, p_min: 0.005, exponent: 3.5, overhead: 0.20 }
    }
}

impl DistanceLaw {
    /// The unit share at normalised distance `d`.
    pub fn unit_share(&self, d: f64) -> f64 {
        (self.p_edge * d.powf(self.exponent)).max(self.p_min)
    }
}

impl PowerModel for DistanceLaw {
    fn draw_unit_share(&self, rng: &mut Rng) -> f64 {
        self.unit_share(rng.uniform().sqrt())
    }

    fn rate_factor(&self, bps: u64) -> f64 {
        (bps / BASE_RATE_BPS) as f64
    }

    fn overhead(&self) -> f64 {
        self.overhead
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_share_grows_with_distance_and_rate() {
        let m = DistanceLaw::default();
        assert_eq!(m.unit_share(0.0), 0.005);
        assert!((m.unit_share(1.0) * m.rate_factor(153_600) - 0.96).abs() < 1e-12);
        assert!((m.unit_share(0.5) - 0.06 * 0.5f64.powf(3.5)).abs() < 1e-12);
    }
}
