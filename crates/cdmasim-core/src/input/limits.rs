//! Limits on what a scenario may ask for, checked when it is read so that
//! a typo is refused before a run exhausts memory.

/// Most nodes in a scenario: before anything is built, the router searches
/// the whole network backwards from every node not reached by one edge
/// only, and, where some node cannot reach another, first from every node
/// (`net::routing`): time that grows as N² for a mesh and as N × base
/// stations for a cellular network linked both ways.
pub const MAX_NODES: usize = 30_000;

/// Most entries the router may keep: a row of N for each node with more
/// than one way out, an explicit route, or a node it cannot reach
/// (`net::routing`), 4 bytes each (400 MB). A cellular network linked both
/// ways keeps a row per base station; a full mesh a row per node, so every
/// scenario of up to 10,000 nodes stays within it.
pub const MAX_ROUTE_ENTRIES: u64 = 100_000_000;

/// Most BTSs in one cdmasim cell: each keeps a slot of the demand-driven
/// SCH's per-BTS budget, indexed by number (a cdma2000 BSC serves tens).
pub const MAX_BTS_PER_CELL: u32 = 1000;

/// Most packets inside the network at once: each holds its small packet and
/// its header in the network's store (about 150 bytes), so the bound keeps a
/// run within a few GB. Only a queue without a limit under a flood reaches
/// it; the run then stops with a one-line error naming the fullest hop.
pub const MAX_PACKETS_IN_NETWORK: usize = 10_000_000;

/// Most samples per series a run may take.
pub const MAX_SAMPLES: u64 = 10_000_000;
/// Most sampled values (samples x series) a run may take: they stream to
/// the run's spool file (16 bytes each: 800 MB) and become rows of the
/// series table, about 40 bytes a row when a reader loads it whole, so the
/// bound keeps both within a few GB (checked in resolve, once the series
/// are known).
pub const MAX_SAMPLE_VALUES: u64 = 50_000_000;
