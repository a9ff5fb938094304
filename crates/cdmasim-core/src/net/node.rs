//! `NodeId`: a node of the network, the one type every layer names a node
//! by (a scenario's configurations, the hops' ends, packets, routes, hosts).
//! Nodes are numbered from 0 in the scenario's order; the scenario reader
//! bounds their number (`input::limits::MAX_NODES`), so a `u32` holds any.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The node numbered `i` (from 0, in the scenario's order).
    pub fn new(i: usize) -> NodeId {
        NodeId(u32::try_from(i).expect("a scenario's nodes are bounded by input::limits::MAX_NODES"))
    }

    /// Its number, to index a table of nodes.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl std::fmt::Display for NodeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}
