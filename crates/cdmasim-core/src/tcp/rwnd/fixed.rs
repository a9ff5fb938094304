//! The ordinary receiver: advertise all free buffer space.

use super::RwndPolicy;
use crate::engine::Time;

pub struct FixedBuffer;

impl RwndPolicy for FixedBuffer {
    fn name(&self) -> &'static str {
        "fixed"
    }
    fn window(&mut self, _now: Time, free_space: u64) -> u64 {
        free_space
    }
}
