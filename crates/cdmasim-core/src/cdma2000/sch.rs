//! Supplemental-channel allocation behind one trait: the allocator decides
//! when each mobile's SCH rate changes; the cell applies it (the mobile's
//! radio rate R_ij is its FCH plus its SCH, Paliwal et al. Table I).
//!
//! Implementations, one file each: `sch_scheduled` (switch times drawn from
//! a plan) and `sch_demand` (grants on backlog, the BSC's budget permitting).

use super::config::{MobileConfig, SchPlan};
use super::sch_demand::DemandAllocator;
use super::sch_scheduled::ScheduledAllocator;
use crate::engine::{RngStreams, Time};

/// A change of one mobile's SCH: (mobile index, SCH bit/s; 0 = released).
pub type Grant = (usize, u64);

/// What an allocator sees of a mobile's link buffer after every change.
#[derive(Clone, Copy, Debug)]
pub struct Backlog {
    /// Bytes waiting (the packet in transmission not counted).
    pub waiting_bytes: u64,
    /// When the buffer goes idle if nothing more arrives (`Link::busy_until`:
    /// Time::MAX while packets wait).
    pub busy_until: Time,
}

pub trait SchAllocator: Send {
    /// When it next acts on its own (None: not until told of a backlog).
    fn deadline(&self) -> Option<Time>;

    /// Do what is due at `now`, pushing the changes to `grants`.
    fn on_timer(&mut self, now: Time, grants: &mut Vec<Grant>);

    /// Whether it wants `on_backlog` (the cell skips the calls otherwise).
    fn wants_backlog(&self) -> bool {
        false
    }

    /// Mobile `mobile`'s link buffer changed at `now`.
    fn on_backlog(&mut self, _now: Time, _mobile: usize, _b: Backlog, _grants: &mut Vec<Grant>) {}
}

/// The allocator a plan describes; `rng` gives each mobile's stream.
pub fn build(plan: &SchPlan, mobiles: &[MobileConfig], rng: &RngStreams) -> Box<dyn SchAllocator> {
    match plan {
        SchPlan::Demand(d) => Box::new(DemandAllocator::new(d.clone(), mobiles)),
        _ => Box::new(ScheduledAllocator::new(plan, mobiles, rng)),
    }
}
