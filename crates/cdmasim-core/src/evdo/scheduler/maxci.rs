//! Max C/I: always the user with the highest requested rate. It maximises
//! sector throughput and ignores fairness; an upper bound for PF.

use super::{Scheduler, SlotView};
use crate::channel::drc::RATE_BPS;

pub struct MaxCi {
    _users: usize,
}

impl MaxCi {
    pub fn new(users: usize) -> Self {
        Self { _users: users }
    }
}

impl Scheduler for MaxCi {
    fn name(&self) -> &'static str {
        "maxci"
    }

    fn pick(&mut self, view: &SlotView) -> Option<usize> {
        let mut best = (0u64, None);
        for u in 0..view.drc.len() {
            let r = RATE_BPS[view.drc[u] as usize];
            if view.eligible(u) && r > best.0 {
                best = (r, Some(u));
            }
        }
        best.1
    }

    fn end_slot(&mut self, _served: Option<(usize, u64)>) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_highest_rate() {
        let drc = [3u8, 14, 13];
        assert_eq!(MaxCi::new(3).pick(&SlotView { slot: 0, drc: &drc, backlog_bits: None }), Some(1));
    }
}
