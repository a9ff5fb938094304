//! Scheduled SCH allocation: every mobile's switch times come from a plan
//! (Paliwal et al. §IV-B, D, E) and are drawn lazily, one step ahead per
//! mobile, so a 220 s run of 20 ms bursts costs no list of a million steps.

use super::config::{BurstOrder, MobileConfig, SchPlan};
use super::sch::{Grant, SchAllocator};
use crate::engine::{Rng, RngStreams, Time};
use crate::net::link::RateSteps;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub struct ScheduledAllocator {
    /// Each mobile's steps still to come: (time, SCH bit/s).
    steps: Vec<RateSteps>,
    /// The next step of each mobile that has one: (time, mobile, SCH bit/s).
    next: BinaryHeap<Reverse<(Time, usize, u64)>>,
}

impl ScheduledAllocator {
    pub fn new(plan: &SchPlan, mobiles: &[MobileConfig], rng: &RngStreams) -> Self {
        let n = mobiles.len();
        let mut steps: Vec<RateSteps> = (0..n).map(|k| plan_steps(plan, k, n, &mobiles[k].name, rng)).collect();
        let mut next = BinaryHeap::new();
        for (k, s) in steps.iter_mut().enumerate() {
            if let Some((t, r)) = s.next() {
                next.push(Reverse((t, k, r)));
            }
        }
        ScheduledAllocator { steps, next }
    }
}

/// Mobile `k` of `n`'s steps under `plan`.
fn plan_steps(plan: &SchPlan, k: usize, n: usize, name: &str, rng: &RngStreams) -> RateSteps {
    match *plan {
        SchPlan::None | SchPlan::Demand(_) => Box::new(std::iter::empty()),
        SchPlan::At { at, until, sch_bps } => Box::new(std::iter::once((at, sch_bps)).chain(until.map(|u| (u, 0)))),
        SchPlan::Rise { start, rise, sch_bps } => {
            // §IV-D: consecutive mobiles switch T_r/(m·n) apart.
            let offset = Time((rise.0 as u128 * k as u128 / n as u128) as u64);
            Box::new(std::iter::once((start + offset, sch_bps)))
        }
        SchPlan::Bursts { burst, gap, start, spread, order, sch_bps } => Box::new(Bursts {
            burst,
            gap,
            spread,
            sch_bps,
            cycle_start: start,
            down: None,
            place: match order {
                BurstOrder::Sequential => Place::Sequential { k, n },
                BurstOrder::Random => Place::Random(rng.stream(&format!("sch/{name}"))),
            },
        }),
        SchPlan::List(ref list) => {
            let mine: Vec<(Time, u64)> = list.iter().filter(|s| s.1 == k).map(|s| (s.0, s.2)).collect();
            Box::new(mine.into_iter())
        }
    }
}

/// One mobile's finite bursts: up within the first spread·T_B of each
/// cycle, down within the first spread·T_D after the burst (so
/// up < down < next up for spread < 1), at a point its `Place` gives.
struct Bursts {
    burst: Time,
    gap: Time,
    spread: f64,
    sch_bps: u64,
    cycle_start: Time,
    /// The down-switch of the current cycle, once its up-switch was given.
    down: Option<Time>,
    place: Place,
}

/// Where in the rise (fall) time a mobile switches.
enum Place {
    /// Mobile k of n at k/n of it, every cycle (§IV-D, E).
    Sequential { k: usize, n: usize },
    /// At a uniform point, drawn per cycle.
    Random(Rng),
}

impl Bursts {
    /// The offset of this mobile's switch into a rise (fall) of
    /// spread·`span`.
    fn offset(&mut self, span: Time) -> Time {
        let rise = self.spread * span.0 as f64;
        match &mut self.place {
            Place::Sequential { k, n } => Time((rise * *k as f64 / *n as f64) as u64),
            Place::Random(rng) => Time((rng.uniform() * rise) as u64),
        }
    }
}

impl Iterator for Bursts {
    type Item = (Time, u64);
    fn next(&mut self) -> Option<(Time, u64)> {
        match self.down.take() {
            None => {
                let up = self.cycle_start + self.offset(self.burst);
                let down = self.cycle_start + self.burst + self.offset(self.gap);
                self.down = Some(down);
                Some((up, self.sch_bps))
            }
            Some(down) => {
                self.cycle_start += self.burst + self.gap;
                Some((down, 0))
            }
        }
    }
}

impl SchAllocator for ScheduledAllocator {
    fn deadline(&self) -> Option<Time> {
        self.next.peek().map(|r| r.0 .0)
    }

    fn on_timer(&mut self, now: Time, grants: &mut Vec<Grant>) {
        while let Some(&Reverse((t, k, r))) = self.next.peek() {
            if t > now {
                break;
            }
            self.next.pop();
            grants.push((k, r));
            if let Some((t2, r2)) = self.steps[k].next() {
                self.next.push(Reverse((t2, k, r2)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_SEC;

    fn mobiles(n: usize) -> Vec<MobileConfig> {
        (0..n)
            .map(|i| MobileConfig { name: format!("ms{i}"), node: crate::net::NodeId::new(i as usize), bts: 0, queue: super::super::config::default_link_queue() })
            .collect()
    }

    fn run(plan: &SchPlan, n: usize, until: Time) -> Vec<(Time, usize, u64)> {
        let mut a = ScheduledAllocator::new(plan, &mobiles(n), &RngStreams::new(7));
        let mut out = Vec::new();
        while let Some(t) = a.deadline().filter(|&t| t <= until) {
            let mut g = Vec::new();
            a.on_timer(t, &mut g);
            out.extend(g.into_iter().map(|(k, r)| (t, k, r)));
        }
        out
    }

    #[test]
    fn rise_spaces_mobiles_by_rise_over_n() {
        let plan = SchPlan::Rise { start: 50 * NS_PER_SEC, rise: 2 * NS_PER_SEC, sch_bps: 153_600 };
        let out = run(&plan, 4, Time::MAX);
        let times: Vec<Time> = out.iter().map(|x| x.0).collect();
        assert_eq!(times, vec![50 * NS_PER_SEC, Time(50_500_000_000), 51 * NS_PER_SEC, Time(51_500_000_000)]);
        assert!(out.iter().all(|x| x.2 == 153_600));
    }

    #[test]
    fn bursts_alternate_within_their_spread() {
        let (tb, td) = (2 * NS_PER_SEC, 3 * NS_PER_SEC);
        let plan = SchPlan::Bursts { burst: tb, gap: td, start: Time::ZERO, spread: 0.1, order: BurstOrder::Random, sch_bps: 153_600 };
        let out = run(&plan, 3, 100 * NS_PER_SEC);
        for k in 0..3 {
            let mine: Vec<_> = out.iter().filter(|x| x.1 == k).collect();
            assert!(mine.len() >= 38, "{} switches", mine.len());
            for (i, s) in mine.iter().enumerate() {
                let cycle = (tb + td) * (i / 2) as u64;
                if i % 2 == 0 {
                    assert_eq!(s.2, 153_600);
                    assert!(s.0 >= cycle && s.0 < cycle + tb / 10, "up at {:?}", s.0);
                } else {
                    assert_eq!(s.2, 0);
                    assert!(s.0 >= cycle + tb && s.0 < cycle + tb + td / 10, "down at {:?}", s.0);
                }
            }
        }
        // Drawn per mobile: the three mobiles do not switch in lock-step.
        let first_up: Vec<Time> = (0..3).map(|k| out.iter().find(|x| x.1 == k).unwrap().0).collect();
        assert!(first_up[0] != first_up[1] || first_up[1] != first_up[2]);
    }

    #[test]
    fn a_burst_cycle_switches_its_mobiles_in_the_papers_order_at_the_papers_spacing() {
        // §IV-D/E with 100 mobiles, T_B = 8 s, T_D = 5 s, rise and fall 10 %
        // of them, the first burst at 50 s after the FCH-only phase: mobile
        // k up at 50 + k·0.8/100 s and down at 58 + k·0.5/100 s, every cycle.
        let (tb, td, start) = (8 * NS_PER_SEC, 5 * NS_PER_SEC, 50 * NS_PER_SEC);
        let plan = SchPlan::Bursts { burst: tb, gap: td, start, spread: 0.1, order: BurstOrder::Sequential, sch_bps: 153_600 };
        let out = run(&plan, 100, start + 3 * (tb + td) - Time(1));
        assert!(out.iter().all(|s| s.0 >= start), "nothing before the first burst");
        for cycle in 0..3u64 {
            let c = start + cycle * (tb + td);
            let ups: Vec<_> = out.iter().filter(|s| s.2 > 0 && s.0 >= c && s.0 < c + tb).collect();
            let downs: Vec<_> = out.iter().filter(|s| s.2 == 0 && s.0 >= c + tb && s.0 < c + tb + td).collect();
            assert_eq!(ups.len(), 100);
            assert_eq!(downs.len(), 100);
            for (k, s) in ups.iter().enumerate() {
                assert_eq!((s.0, s.1), (c + Time(8_000_000) * k as u64, k), "cycle {cycle}: mobile {k}'s up-switch");
            }
            for (k, s) in downs.iter().enumerate() {
                assert_eq!((s.0, s.1), (c + tb + Time(5_000_000) * k as u64, k), "cycle {cycle}: mobile {k}'s down-switch");
            }
            // The last mobile switches 99/100 of 0.1·T_B after the first.
            assert_eq!(ups.last().unwrap().0 - ups[0].0, Time(99 * 8_000_000));
        }
    }

    #[test]
    fn at_with_until_switches_up_and_down() {
        let plan = SchPlan::At { at: 5 * NS_PER_SEC, until: Some(9 * NS_PER_SEC), sch_bps: 76_800 };
        let out = run(&plan, 2, Time::MAX);
        assert_eq!(out, vec![(5 * NS_PER_SEC, 0, 76_800), (5 * NS_PER_SEC, 1, 76_800), (9 * NS_PER_SEC, 0, 0), (9 * NS_PER_SEC, 1, 0)]);
    }
}
