//! Closed-form models the packet simulator is checked against; formulas,
//! sources, units and validity ranges are listed in docs/models.md.

pub mod fluid_loss;
pub mod jain;
pub mod markov;
pub mod reno_buffer;
pub mod rlp_buffer;
pub mod tcp_throughput;
