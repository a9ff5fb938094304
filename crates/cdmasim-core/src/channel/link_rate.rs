//! A DRC sequence as a link-rate schedule: the rate a single full-buffer
//! user would be served at, slot by slot (every slot is that user's, so the
//! link carries the nominal DRC rate of the slot). Runs of equal rate become
//! one step. This is how a packet scenario's bottleneck "varies like a DRC
//! sequence" until the sector model schedules packets itself.

use crate::engine::Time;
use crate::channel::drc::{RATE_BPS, SLOTS_PER_SEC};

/// Start of slot `n` in ns (a slot is 1/600 s; exact, no drift).
pub fn slot_start(n: u64) -> Time {
    n * crate::engine::NS_PER_SEC / SLOTS_PER_SEC
}

/// Piecewise-constant (time, bit/s) steps for `drc`, slot 0 at time 0,
/// repeated from the start until `until` (a trace shorter than the run loops).
pub fn rate_schedule(drc: &[u8], until: Time) -> Vec<(Time, u64)> {
    let mut out: Vec<(Time, u64)> = Vec::new();
    if drc.is_empty() {
        return out;
    }
    let mut n = 0u64;
    loop {
        let t = slot_start(n);
        if t >= until {
            break;
        }
        let rate = RATE_BPS[drc[(n % drc.len() as u64) as usize] as usize];
        if out.last().is_none_or(|&(_, r)| r != rate) {
            out.push((t, rate));
        }
        n += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_merge_and_the_trace_loops() {
        // DRC 1 = 38.4 kb/s, 2 = 76.8 kb/s.
        let s = rate_schedule(&[1, 1, 2], slot_start(7));
        let at: Vec<(u64, u64)> = s.iter().map(|&(t, r)| (t, r)).collect();
        assert_eq!(
            at,
            vec![(0, 38_400), (slot_start(2), 76_800), (slot_start(3), 38_400), (slot_start(5), 76_800), (slot_start(6), 38_400)]
        );
        assert_eq!(slot_start(600), crate::engine::NS_PER_SEC);
    }
}
