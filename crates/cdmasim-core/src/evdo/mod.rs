//! 1xEV-DO forward link: the slot scheduler and the sector (the DRC table is
//! the channel's, in `channel::drc`).

pub mod scheduler;
