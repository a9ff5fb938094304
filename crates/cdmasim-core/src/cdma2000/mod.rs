//! The cdma2000 1X (IS-2000) radio access network of Paliwal et al.: a
//! cell of m BTSs × n mobiles behind one BSC shared buffer, each mobile with
//! a fundamental channel (FCH) and, when granted, a supplemental channel
//! (SCH, 1X–16X), and the dead-period metric of §IV-E.

pub mod cell;
pub mod config;
pub mod dead;
pub mod keys;
pub mod rows;
pub mod sch;
pub mod sch_demand;
pub mod sch_scheduled;
pub(crate) mod tables;
