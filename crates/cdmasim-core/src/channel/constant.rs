//! A channel that always asks for the same DRC.

use super::ChannelSource;

pub struct Constant {
    pub drc: u8,
}

impl ChannelSource for Constant {
    fn fill(&mut self, drc: &mut [u8], sinr: Option<&mut [f32]>) -> usize {
        drc.fill(self.drc);
        if let Some(s) = sinr {
            s.fill(f32::NAN);
        }
        drc.len()
    }
}
