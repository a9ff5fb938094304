//! The scenario as read from the file, before names are resolved: every item
//! remembers where it came from so that cross-reference errors (unknown node,
//! route to nowhere, no path) can still name the line and field.

use super::drc::RawDrc;
use super::reader::At;
use super::spec::{AppSpec, QueueSpec};
use crate::engine::Time;

/// A name as written, with its position.
#[derive(Clone, Debug)]
pub(crate) struct Named {
    pub name: String,
    pub at: At,
}

impl Named {
    pub fn new((name, at): (String, At)) -> Self {
        Named { name, at }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct RawLink {
    pub name: Named,
    pub from: Named,
    pub to: Named,
    /// Forward rate at time 0; 0 (a placeholder) when `drc` is set, whose
    /// schedule `resolve` builds once the duration is known.
    pub rate_bps: u64,
    /// Rate of the reverse link "<name>/rev" (constant).
    pub reverse_rate_bps: u64,
    pub delay: Time,
    /// Also create the reverse link "<name>/rev".
    pub duplex: bool,
    pub queue: QueueSpec,
    pub reverse_queue: QueueSpec,
    pub loss: f64,
    pub reverse_loss: f64,
    /// Forward direction only.
    pub rate_schedule: Vec<(Time, u64)>,
    /// The schedule repeats: (first start, period).
    pub rate_period: Option<(Time, Time)>,
    /// Forward rate from a DRC sequence (then `rate_schedule` is empty).
    pub drc: Option<RawDrc>,
}

#[derive(Clone, Debug)]
pub(crate) struct RawRoute {
    pub node: Named,
    pub dest: Named,
    pub link: Named,
}

#[derive(Clone, Debug)]
pub(crate) struct RawFlow {
    pub name: Named,
    pub from: Named,
    pub to: Named,
    pub start: Time,
    /// The flow starts at a uniform time in [start, start + start_jitter),
    /// drawn from the scenario's seed and the flow's name.
    pub start_jitter: Time,
    /// Where to blame a start time beyond the end of the run.
    pub start_at: At,
    pub stop: Option<Time>,
    pub app: AppSpec,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct RawScenario {
    pub duration: Time,
    pub seed: u64,
    pub sample_interval: Option<Time>,
    /// Where `sample_interval` is written (for the samples x series bound).
    pub sample_interval_at: Option<At>,
    pub nodes: Vec<Named>,
    pub links: Vec<RawLink>,
    pub routes: Vec<RawRoute>,
    pub flows: Vec<RawFlow>,
    pub sectors: Vec<super::sector::RawSector>,
    pub users: Vec<super::sector::RawUser>,
    pub cells: Vec<super::cell::RawCell>,
    pub mobiles: Vec<super::cell::RawMobile>,
    pub radio_links: Vec<super::radio_link::RawRadioLink>,
    pub is2000: Vec<super::presets::is2000::RawIs2000>,
}
