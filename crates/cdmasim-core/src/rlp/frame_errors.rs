//! Frame errors on a radio channel, one draw per 20 ms frame slot: the
//! slot's index is its time, so a correlated model can jump over idle
//! time. One trait, one file per model: `iid.rs` (independent, Bernoulli
//! at the FER) and `rayleigh.rs` (single-path Rayleigh fading at a speed,
//! a frame lost when the fade is deeper than a threshold set for the FER).

use super::iid::Iid;
use super::rayleigh::Rayleigh;
use crate::engine::Rng;
use serde::{Deserialize, Serialize};

pub trait FrameErrors: Send {
    /// Whether the frame sent in slot `slot` (20 ms each, from t = 0) is lost.
    /// Called with increasing slots, each at most once.
    fn lost(&mut self, slot: u64) -> bool;
}

/// How a channel's frame errors are drawn (the scenario's `fading`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ErrorModel {
    Iid,
    /// Clarke's single-path Rayleigh fading: speed in m/s, carrier in Hz.
    Rayleigh { speed_mps: f64, carrier_hz: f64 },
}

/// The model at frame error rate `fer`, drawing from `rng`.
pub fn build(model: &ErrorModel, fer: f64, rng: Rng) -> Box<dyn FrameErrors> {
    match *model {
        ErrorModel::Iid => Box::new(Iid::new(fer, rng)),
        ErrorModel::Rayleigh { speed_mps, carrier_hz } => Box::new(Rayleigh::new(fer, speed_mps, carrier_hz, rng)),
    }
}
