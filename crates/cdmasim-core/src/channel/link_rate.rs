//! A DRC sequence as a link-rate schedule: the rate a single full-buffer
//! user would be served at, slot by slot (every slot is that user's, so the
//! link carries the nominal DRC rate of the slot). Runs of equal rate become
//! one step, drawn lazily as the link reaches them. A sector
//! (`evdo::ran`) schedules packets slot by slot itself instead.

use super::drc::{RATE_BPS, SLOTS_PER_SEC};
use super::source::SlotReader;
use super::ChannelSource;
use crate::engine::Time;

/// Start of slot `n` in ns (a slot is 1/600 s; exact, no drift).
pub fn slot_start(n: u64) -> Time {
    Time((n as u128 * crate::engine::NS_PER_SEC.0 as u128 / SLOTS_PER_SEC as u128) as u64)
}

/// The first slot starting at or after `t`.
pub fn slot_at_or_after(t: Time) -> u64 {
    (t.0 as u128 * SLOTS_PER_SEC as u128).div_ceil(crate::engine::NS_PER_SEC.0 as u128) as u64
}

/// (time, bit/s) steps of a DRC source, slot 0 at time 0, until `until`.
pub struct RateSteps {
    reader: SlotReader,
    until: Time,
    rate: Option<u64>,
}

impl RateSteps {
    pub fn new(src: Box<dyn ChannelSource>, until: Time) -> Self {
        RateSteps { reader: SlotReader::new(src), until, rate: None }
    }
}

impl Iterator for RateSteps {
    type Item = (Time, u64);

    fn next(&mut self) -> Option<(Time, u64)> {
        loop {
            let t = slot_start(self.reader.slot);
            if t >= self.until {
                return None;
            }
            let rate = RATE_BPS[self.reader.next() as usize];
            if self.rate != Some(rate) {
                self.rate = Some(rate);
                return Some((t, rate));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::{DrcTrace, TraceSource};
    use std::sync::Arc;

    #[test]
    fn runs_merge_and_the_trace_loops() {
        // DRC 1 = 38.4 kb/s, 2 = 76.8 kb/s.
        let t = Arc::new(DrcTrace { drc: vec![1, 1, 2], ..Default::default() });
        let s: Vec<(Time, u64)> = RateSteps::new(Box::new(TraceSource::new(t, 0, true)), slot_start(7)).collect();
        assert_eq!(
            s,
            vec![(Time::ZERO, 38_400), (slot_start(2), 76_800), (slot_start(3), 38_400), (slot_start(5), 76_800), (slot_start(6), 38_400)]
        );
        assert_eq!(slot_start(600), crate::engine::NS_PER_SEC);
        assert_eq!(slot_at_or_after(slot_start(5)), 5);
        assert_eq!(slot_at_or_after(slot_start(5) + Time(1)), 6);
    }
}

/// The steps of an in-memory DRC sequence (looped), as a list.
pub fn rate_schedule(drc: &[u8], until: Time) -> Vec<(Time, u64)> {
    if drc.is_empty() {
        return Vec::new();
    }
    let t = std::sync::Arc::new(super::DrcTrace { drc: drc.to_vec(), ..Default::default() });
    RateSteps::new(Box::new(super::TraceSource::new(t, 0, true)), until).collect()
}
