//! Max C/I: always the user with the highest requested rate. It maximises
//! sector throughput and ignores fairness; an upper bound for PF.

use super::{RateTable, Scheduler, SlotView, RATE_INDICES};

pub struct MaxCi {
    rate: RateTable,
}

impl MaxCi {
    /// `rates`: the radio's rate (bit/s) of each rate index.
    pub fn new(_users: usize, rates: &RateTable) -> Self {
        Self { rate: *rates }
    }
}

impl Scheduler for MaxCi {
    fn name(&self) -> &'static str {
        "maxci"
    }

    fn pick(&mut self, view: &SlotView) -> Option<usize> {
        let mut best = (0.0, None);
        for u in 0..view.request.len() {
            let r = self.rate[view.request[u] as usize & (RATE_INDICES - 1)];
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
        assert_eq!(MaxCi::new(3, &super::super::rate_table(&crate::channel::drc::RATE_BPS)).pick(&SlotView { slot: 0, request: &drc, backlog_bits: None }), Some(1));
    }
}
