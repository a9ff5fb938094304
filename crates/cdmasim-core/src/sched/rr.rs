//! Round Robin: users take turns to start packets, whatever their channel
//! (the channel-blind baseline of Liu et al. section 6). A user with a null
//! DRC or an empty queue is skipped and keeps its place for the next turn.

use super::{Scheduler, SlotView};

pub struct RoundRobin {
    next: usize,
    users: usize,
}

impl RoundRobin {
    pub fn new(users: usize) -> Self {
        Self { next: 0, users }
    }
}

impl Scheduler for RoundRobin {
    fn name(&self) -> &'static str {
        "rr"
    }

    #[inline]
    fn pick(&mut self, view: &SlotView) -> Option<usize> {
        for k in 0..self.users {
            let mut u = self.next + k;
            if u >= self.users {
                u -= self.users;
            }
            if view.eligible(u) {
                self.next = if u + 1 == self.users { 0 } else { u + 1 };
                return Some(u);
            }
        }
        None
    }

    fn end_slot(&mut self, _served: Option<(usize, u64)>) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_turns_and_skips_ineligible() {
        let mut rr = RoundRobin::new(3);
        let drc = [3u8, 0, 5];
        let v = SlotView { slot: 0, request: &drc, backlog_bits: None };
        let picks: Vec<_> = (0..4).map(|_| rr.pick(&v).unwrap()).collect();
        assert_eq!(picks, vec![0, 2, 0, 2]);
    }
}
