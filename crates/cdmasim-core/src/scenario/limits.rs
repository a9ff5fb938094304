//! Limits on what a scenario may ask for, checked when it is read so that
//! a typo is refused before a run exhausts memory.

/// Most nodes in a scenario: the router keeps a next hop for every pair of
/// nodes (4·N² bytes, 400 MB here), found before anything is built.
pub const MAX_NODES: usize = 10_000;

/// Most samples per series a run may take.
pub const MAX_SAMPLES: u64 = 10_000_000;
/// Most sampled values (samples x series) a run may keep: 8 bytes each in
/// the core and about 40 bytes a row in the long series table, so the
/// bound keeps a run's series within a few GB (checked in resolve, once
/// the series are known).
pub const MAX_SAMPLE_VALUES: u64 = 50_000_000;
