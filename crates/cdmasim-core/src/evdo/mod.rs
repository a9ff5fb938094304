//! 1xEV-DO: the forward link's slot scheduler, the Rev. 0 reverse link's
//! MAC, and the radio access network (sectors, users, per-user queues and
//! RLP, hand-offs) as a hop of the packet world. The DRC table is the
//! channel's, in `channel::drc`.

pub mod air;
pub mod bearer;
pub mod config;
pub mod framing;
pub mod keys;
pub mod ran;
pub mod reverse;
pub mod rows;
pub mod rlp;
pub mod scheduler;
pub mod uplink;
pub(crate) mod tables;
