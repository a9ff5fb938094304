//! 1xEV-DO forward link: the slot scheduler, and the radio access network
//! (sectors, users, per-user queues, hand-offs) as a hop of the packet world.
//! The DRC table is the channel's, in `channel::drc`.

pub mod air;
pub mod config;
pub mod framing;
pub mod ran;
pub mod rlp;
pub mod scheduler;
