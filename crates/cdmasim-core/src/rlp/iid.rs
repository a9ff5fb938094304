//! Independent frame errors: each frame lost with probability FER.

use super::frame_errors::FrameErrors;
use crate::engine::Rng;

pub struct Iid {
    fer: f64,
    rng: Rng,
}

impl Iid {
    pub fn new(fer: f64, rng: Rng) -> Self {
        Iid { fer, rng }
    }
}

impl FrameErrors for Iid {
    fn lost(&mut self, _slot: u64) -> bool {
        self.rng.bernoulli(self.fer)
    }
}
