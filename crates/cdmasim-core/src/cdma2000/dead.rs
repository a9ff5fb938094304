//! Dead periods (Paliwal et al. §IV-E): times when the BSC's output buffer
//! and every mobile's link buffer are all empty, a packet in transmission
//! counting as busy. ρ_dead = T_dead / T_sim.
//!
//! The cell tells the meter, around each of its operations, until when its
//! links are busy. Between two operations nothing enters a link, so the
//! system goes idle exactly at that time; the next operation that leaves a
//! link busy ends the dead interval. Exact, with no event of its own.

use crate::engine::Time;

#[derive(Clone, Debug, Default)]
pub struct DeadMeter {
    /// Until when the system is busy, as of the last operation.
    busy_until: Time,
    /// Start of the dead interval in progress.
    since: Option<Time>,
    /// Closed intervals [start, end), in time order.
    pub intervals: Vec<(Time, Time)>,
    pub total: Time,
}

impl DeadMeter {
    /// Before an operation at `now`.
    pub fn enter(&mut self, now: Time) {
        if self.since.is_none() && self.busy_until <= now {
            self.since = Some(self.busy_until);
        }
    }

    /// After it: the links are busy until `until` if nothing more arrives.
    pub fn leave(&mut self, now: Time, until: Time) {
        if until > now {
            if let Some(s) = self.since.take() {
                self.close(s, now);
            }
        } else if self.since.is_none() {
            // Busy beyond `now` before the operation, idle after it.
            self.since = Some(now);
        }
        self.busy_until = until;
    }

    /// The run ends at `end`.
    pub fn finish(&mut self, end: Time) {
        self.enter(end);
        if let Some(s) = self.since.take() {
            self.close(s, end);
        }
        self.busy_until = end;
    }

    fn close(&mut self, start: Time, end: Time) {
        if end > start {
            self.intervals.push((start, end));
            self.total += end - start;
        }
    }

    /// Dead time inside [t0, t1).
    pub fn within(&self, t0: Time, t1: Time) -> Time {
        self.intervals.iter().map(|&(a, b)| b.min(t1).saturating_sub(a.max(t0))).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_from_the_start_until_the_first_packet() {
        let mut d = DeadMeter::default();
        d.enter(Time(5));
        d.leave(Time(5), Time(12));
        d.enter(Time(20));
        d.leave(Time(20), Time(30));
        d.finish(Time(40));
        assert_eq!(d.intervals, [(0, 5), (12, 20), (30, 40)].map(|(a, b)| (Time(a), Time(b))));
        assert_eq!(d.total, Time(23));
        assert_eq!(d.within(Time(10), Time(35)), Time(8 + 5));
    }

    #[test]
    fn operations_while_idle_keep_the_interval_open() {
        let mut d = DeadMeter::default();
        d.enter(Time::ZERO);
        d.leave(Time::ZERO, Time(10));
        // A packet dropped at 15 (nothing becomes busy), then one served at 18.
        d.enter(Time(15));
        d.leave(Time(15), Time(10));
        d.enter(Time(18));
        d.leave(Time(18), Time::MAX);
        d.enter(Time(25));
        d.leave(Time(25), Time(26));
        d.finish(Time(26));
        assert_eq!(d.intervals, [(Time(10), Time(18))]);
    }
}
