//! The scenario as read from the file, before names are resolved: every item
//! remembers where it came from so that cross-reference errors (unknown node,
//! route to nowhere, no path) can still name the line and field.

use crate::network::kinds::Kinds;
use crate::input::reader::{At, Named};
use super::spec::AppSpec;
use crate::engine::Time;

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

#[derive(Default)]
pub(crate) struct RawScenario {
    pub duration: Time,
    pub seed: u64,
    pub sample_interval: Option<Time>,
    /// Where `sample_interval` is written (for the samples x series bound).
    pub sample_interval_at: Option<At>,
    pub nodes: Vec<Named>,
    pub routes: Vec<RawRoute>,
    pub flows: Vec<RawFlow>,
    /// Every hop kind's tables, as read (links, sectors and users, cells
    /// and mobiles, radio links, IS-2000 sectors).
    pub kinds: Kinds,
}
