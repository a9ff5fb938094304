//! Demand-driven SCH allocation: a mobile whose link buffer holds more than
//! a threshold requests a supplemental channel; after the grant delay the
//! BSC grants the highest of 1X–16X that its BTS's budget still allows, for
//! at most one burst, and takes it back as soon as the buffer idles.
//!
//! The life cycle (request → delay → grant → burst or idle → release) is
//! this file's; what a grant costs, whether it fits and in which order
//! waiting requests are served is a [`Budget`]: per BTS in bit/s here
//! (`BtsBudget`, Paliwal et al.), power and Walsh codes with a priority
//! order in the IS-2000 MAC (`is2000::budget`, Dziong et al.).

use super::config::{DemandConfig, MobileConfig, BASE_RATE_BPS, SCH_MULTIPLES};
use super::sch::{Backlog, Grant, SchAllocator};
use crate::engine::Time;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

#[derive(Clone, Copy, Debug, PartialEq)]
enum State {
    Idle,
    /// Asked; waiting for the grant delay or for budget.
    Requested,
    Granted { sch_bps: u64, until: Time, release_at: Option<Time> },
}

/// Why a request gets no SCH in this pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Nothing fits this mobile now; the pass goes on to the next request
    /// (another BTS's budget may still have room).
    NotNow,
    /// Denied for lack of the resource every request draws on (Dziong et
    /// al. §2: power, or Walsh codes). With `end_pass` the pass ends here
    /// and this request and every later one wait for the next (users are
    /// served in priority order "as long as the power resource is
    /// available"); without, the pass goes on.
    Denied { end_pass: bool },
    /// The mobile no longer qualifies (its backlog went): the request is
    /// withdrawn, and a new backlog makes a new one.
    Withdrawn,
}

/// What SCH grants cost and who is served first.
pub trait Budget: Send {
    /// The SCH bit/s mobile `k` gets now (at most `max_bps`; `waiting`:
    /// bytes in its buffer), charged to the budget; or why it gets none.
    fn take(&mut self, k: usize, waiting: u64, max_bps: u64) -> Result<u64, Refusal>;

    /// Mobile `k` gives back an SCH of `sch_bps`.
    fn give_back(&mut self, k: usize, sch_bps: u64);

    /// The order to serve waiting requests in (`ready` holds mobiles,
    /// oldest request first; `waiting` is every mobile's backlog). First
    /// come first served unless overridden.
    fn order(&self, _ready: &mut [usize], _waiting: &[u64]) {}
}

/// Paliwal et al.'s BSC: SCH bit/s per BTS up to a budget, first come first served.
pub struct BtsBudget {
    budget_bps: u64,
    bts: Vec<u32>,
    used: Vec<u64>,
}

impl BtsBudget {
    pub fn new(budget_bps: u64, mobiles: &[MobileConfig]) -> Self {
        let n_bts = mobiles.iter().map(|m| m.bts + 1).max().unwrap_or(0) as usize;
        BtsBudget { budget_bps, bts: mobiles.iter().map(|m| m.bts).collect(), used: vec![0; n_bts] }
    }
}

impl Budget for BtsBudget {
    /// The highest SCH rate up to the maximum that the BTS's budget allows.
    fn take(&mut self, k: usize, _waiting: u64, max_bps: u64) -> Result<u64, Refusal> {
        let used = &mut self.used[self.bts[k] as usize];
        let left = self.budget_bps.saturating_sub(*used);
        let r = SCH_MULTIPLES.iter().rev().map(|x| x * BASE_RATE_BPS).find(|&r| r <= max_bps && r <= left);
        let r = r.ok_or(Refusal::NotNow)?;
        *used += r;
        Ok(r)
    }

    fn give_back(&mut self, k: usize, sch_bps: u64) {
        self.used[self.bts[k] as usize] -= sch_bps;
    }
}

pub struct DemandAllocator<B: Budget = BtsBudget> {
    cfg: DemandConfig,
    pub budget: B,
    state: Vec<State>,
    /// The last backlog each mobile reported.
    waiting: Vec<u64>,
    /// Requests in the order made, with the time they may be granted.
    delayed: VecDeque<(Time, usize)>,
    /// Requests past their delay, waiting for budget (oldest first).
    ready: Vec<usize>,
    /// `on_timer`'s emptied list of the last pass, kept for its room.
    spare_ready: Vec<usize>,
    /// When each grant ends (burst over or buffer idle): a heap whose entries
    /// count only while they match the grant's current end (`ends`), kept
    /// clean at the top, so that the deadline is O(1) with many mobiles.
    releases: BinaryHeap<Reverse<(Time, usize)>>,
    pub grants_made: u64,
    /// Requests denied at least once.
    pub denials: u64,
    /// Whether each mobile's pending request has been denied.
    denied: Vec<bool>,
}

/// The time a grant ends: its burst, or earlier the buffer's idling.
fn end_of(s: State) -> Option<Time> {
    match s {
        State::Granted { until, release_at, .. } => Some(release_at.map_or(until, |r| r.min(until))),
        _ => None,
    }
}

impl DemandAllocator<BtsBudget> {
    pub fn new(cfg: DemandConfig, mobiles: &[MobileConfig]) -> Self {
        let budget = BtsBudget::new(cfg.bts_budget_bps, mobiles);
        DemandAllocator::with_budget(cfg, budget, mobiles.len())
    }
}

impl<B: Budget> DemandAllocator<B> {
    pub fn with_budget(cfg: DemandConfig, budget: B, mobiles: usize) -> Self {
        DemandAllocator {
            cfg,
            budget,
            state: vec![State::Idle; mobiles],
            waiting: vec![0; mobiles],
            delayed: VecDeque::new(),
            ready: Vec::new(),
            spare_ready: Vec::new(),
            releases: BinaryHeap::new(),
            grants_made: 0,
            denials: 0,
            denied: vec![false; mobiles],
        }
    }

    /// Mobile `k`'s SCH bit/s now (0: none).
    pub fn sch_bps(&self, k: usize) -> u64 {
        match self.state[k] {
            State::Granted { sch_bps, .. } => sch_bps,
            _ => 0,
        }
    }

    /// Mobile `k`'s state became `s`.
    fn set(&mut self, k: usize, s: State) {
        let before = end_of(self.state[k]);
        self.state[k] = s;
        if let Some(t) = end_of(s).filter(|&t| Some(t) != before) {
            self.releases.push(Reverse((t, k)));
        }
        if self.releases.len() > 4 * self.state.len() + 64 {
            let live = self.state.iter().enumerate().filter_map(|(k, &s)| end_of(s).map(|t| Reverse((t, k))));
            self.releases = live.collect();
        }
        while let Some(&Reverse((t, k))) = self.releases.peek() {
            if end_of(self.state[k]) == Some(t) {
                break;
            }
            self.releases.pop();
        }
    }

    fn request(&mut self, now: Time, k: usize) {
        self.set(k, State::Requested);
        self.delayed.push_back((now + self.cfg.grant_delay, k));
    }

    fn release(&mut self, now: Time, k: usize, sch_bps: u64, grants: &mut Vec<Grant>) {
        self.budget.give_back(k, sch_bps);
        self.set(k, State::Idle);
        grants.push((k, 0));
        // Still backlogged at the end of a burst: ask again.
        if self.waiting[k] > self.cfg.threshold_bytes {
            self.request(now, k);
        }
    }
}

impl<B: Budget> SchAllocator for DemandAllocator<B> {
    fn deadline(&self) -> Option<Time> {
        let release = self.releases.peek().map(|r| r.0 .0);
        release.into_iter().chain(self.delayed.front().map(|d| d.0)).min()
    }

    fn on_timer(&mut self, now: Time, grants: &mut Vec<Grant>) {
        // Grants that end by now, in time order (then mobile order).
        while let Some(&Reverse((t, k))) = self.releases.peek() {
            if t > now {
                break;
            }
            let State::Granted { sch_bps, .. } = self.state[k] else { unreachable!("the top is kept valid") };
            self.release(now, k, sch_bps, grants);
        }
        while self.delayed.front().is_some_and(|d| d.0 <= now) {
            let (_, k) = self.delayed.pop_front().expect("checked");
            self.ready.push(k);
        }
        if self.ready.is_empty() {
            return;
        }
        // This pass's list, swapped with an empty one that keeps its room
        // (the mobiles left waiting go back there): no allocation a pass.
        let mut ready = std::mem::replace(&mut self.ready, std::mem::take(&mut self.spare_ready));
        self.budget.order(&mut ready, &self.waiting);
        let mut spent = false;
        for k in ready.drain(..) {
            if spent {
                self.ready.push(k);
                continue;
            }
            match self.budget.take(k, self.waiting[k], self.cfg.max_sch_bps) {
                Ok(r) => {
                    self.set(k, State::Granted { sch_bps: r, until: now + self.cfg.burst, release_at: None });
                    self.grants_made += 1;
                    self.denied[k] = false;
                    grants.push((k, r));
                }
                Err(Refusal::NotNow) => self.ready.push(k),
                Err(Refusal::Denied { end_pass }) => {
                    if !std::mem::replace(&mut self.denied[k], true) {
                        self.denials += 1;
                    }
                    spent = end_pass;
                    self.ready.push(k);
                }
                Err(Refusal::Withdrawn) => {
                    self.denied[k] = false;
                    self.set(k, State::Idle);
                }
            }
        }
        self.spare_ready = ready;
    }

    fn wants_backlog(&self) -> bool {
        true
    }

    fn on_backlog(&mut self, now: Time, k: usize, b: Backlog, _grants: &mut Vec<Grant>) {
        self.waiting[k] = b.waiting_bytes;
        match self.state[k] {
            State::Idle if b.waiting_bytes > self.cfg.threshold_bytes => self.request(now, k),
            // The buffer idles when its last packet has been sent: release then.
            State::Granted { sch_bps, until, .. } => {
                let release_at = (b.busy_until != Time::MAX).then_some(b.busy_until.max(now));
                self.set(k, State::Granted { sch_bps, until, release_at });
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_MS;

    fn alloc(budget: u64) -> DemandAllocator {
        let mobiles: Vec<MobileConfig> = (0..3)
            .map(|i| MobileConfig { name: format!("m{i}"), node: crate::net::NodeId::new(i as usize), bts: 0, queue: super::super::config::default_link_queue() })
            .collect();
        let cfg = DemandConfig {
            threshold_bytes: 1000,
            grant_delay: 100 * NS_PER_MS,
            burst: 2000 * NS_PER_MS,
            max_sch_bps: 153_600,
            bts_budget_bps: budget,
        };
        DemandAllocator::new(cfg, &mobiles)
    }

    const BUSY: Time = Time::MAX;

    #[test]
    fn grant_after_delay_highest_rate_the_budget_allows() {
        let mut a = alloc(153_600 + 76_800);
        let mut g = Vec::new();
        a.on_backlog(Time::ZERO, 0, Backlog { waiting_bytes: 500, busy_until: BUSY }, &mut g);
        assert_eq!(a.deadline(), None, "below the threshold: no request");
        a.on_backlog(Time::ZERO, 0, Backlog { waiting_bytes: 3000, busy_until: BUSY }, &mut g);
        a.on_backlog(Time(10), 1, Backlog { waiting_bytes: 3000, busy_until: BUSY }, &mut g);
        a.on_backlog(Time(20), 2, Backlog { waiting_bytes: 3000, busy_until: BUSY }, &mut g);
        assert_eq!(a.deadline(), Some(100 * NS_PER_MS));
        a.on_timer(100 * NS_PER_MS, &mut g);
        assert_eq!(g, vec![(0, 153_600)]);
        g.clear();
        a.on_timer(100 * NS_PER_MS + Time(10), &mut g);
        // 76.8 kb/s left: 8X for the second, nothing for the third.
        assert_eq!(g, vec![(1, 76_800)]);
        g.clear();
        a.on_timer(100 * NS_PER_MS + Time(20), &mut g);
        assert!(g.is_empty());
        // The first mobile's buffer empties at 1.5 s: its SCH goes back then
        // and the third mobile, which waited, gets 16X.
        a.on_backlog(NS_PER_MS * 1000, 0, Backlog { waiting_bytes: 0, busy_until: 1500 * NS_PER_MS }, &mut g);
        assert_eq!(a.deadline(), Some(1500 * NS_PER_MS));
        a.on_timer(1500 * NS_PER_MS, &mut g);
        assert_eq!(g, vec![(0, 0), (2, 153_600)]);
    }

    #[test]
    fn burst_ends_and_a_backlogged_mobile_asks_again() {
        let mut a = alloc(1_000_000);
        let mut g = Vec::new();
        a.on_backlog(Time::ZERO, 0, Backlog { waiting_bytes: 5000, busy_until: BUSY }, &mut g);
        a.on_timer(100 * NS_PER_MS, &mut g);
        assert_eq!(g, vec![(0, 153_600)]);
        g.clear();
        assert_eq!(a.deadline(), Some(2100 * NS_PER_MS));
        a.on_timer(2100 * NS_PER_MS, &mut g);
        assert_eq!(g, vec![(0, 0)]);
        assert_eq!(a.deadline(), Some(2200 * NS_PER_MS), "re-requested, granted after the delay");
    }
}
