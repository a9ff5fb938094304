//! The forward link's slot mechanics around a slot scheduler of `sched`:
//! the server of interlaces and multi-slot packets (`server.rs`), and the
//! full-buffer study of Liu et al. section 6 (`study.rs`).

pub mod server;
pub mod study;

pub use server::{SlotOutcome, SlotServer};

use crate::channel::drc::RATE_BPS;
use crate::sched::{rate_table, RateTable};

/// The forward link's rate table: DRC index to bit/s (C.S0024-A).
pub fn drc_rates() -> RateTable {
    rate_table(&RATE_BPS)
}
