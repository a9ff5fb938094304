//! 1xEV-DO forward link: the DRC table and the slot scheduler.

pub mod drc;
pub mod scheduler;
