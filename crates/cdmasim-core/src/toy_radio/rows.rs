//! The toy radio's result table, `toy_users`.

use crate::result::{rows, HopTable};
use serde::{Deserialize, Serialize};

rows! {
/// One user of a toy radio over the run.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct ToyUserResult {
    /// The user (`[[toy_user]]`).
    pub name: String,
    /// Its radio (`[[toy_radio]]`).
    pub radio: String,
    /// IP packets delivered to it.
    pub packets_delivered: u64,
    /// IP bytes delivered to it × 8 / run time, bit/s.
    pub throughput_bps: f64,
    /// Its radio's delay, seconds.
    pub delay_s: f64,
}
}

impl HopTable for ToyUserResult {
    const DOC: &'static str = "one row per user of a toy radio (a test-only kind)";
}
