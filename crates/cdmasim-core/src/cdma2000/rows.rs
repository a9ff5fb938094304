//! The cdma2000 1X result tables' rows: `cells` (with their dead periods)
//! and `mobiles`.

use crate::result::{rows, HopTable, Intervals, Long};
use serde::{Deserialize, Serialize};

rows! {
/// One cdma2000 1X cell over the run.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct CellResult {
    /// The cell (`[[cell]]`).
    pub name: String,
    /// Its mobiles.
    pub mobiles: u64,
    /// The rate the base-station controller's shared buffer drains at, bit/s.
    pub bsc_rate_bps: f64,
    /// Paliwal et al. §IV-E: time with the shared buffer and every link
    /// buffer empty and nothing in transmission, seconds.
    pub dead_s: f64,
    /// dead_s as a fraction of the run.
    pub rho_dead: f64,
    /// The dead intervals, [start, end) in seconds, in time order.
    pub dead_periods: Intervals,
    /// SCH grants over all mobiles.
    pub sch_grants: u64,
}

/// One mobile of a cdma2000 cell.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct MobileResult {
    /// The mobile (`[[mobile]]`).
    pub name: String,
    /// Its cell.
    pub cell: String,
    /// 1-based, as in the file.
    pub bts: u32,
    /// IP bytes delivered to it × 8 / run time, bit/s.
    pub throughput_bps: f64,
    /// IP packets delivered to it.
    pub packets_delivered: u64,
    /// SCH grants it received.
    pub sch_grants: u64,
    /// Time it held an SCH, seconds.
    pub sch_s: f64,
}
}

impl HopTable for CellResult {
    const DOC: &'static str = "one row per cdma2000 1X cell (dead_periods: their number)";
    const LONG: Option<Long> = Some(Long {
        name: "dead_periods",
        doc: "one row per dead interval of a cell (Paliwal et al. §IV-E)",
        key: &[("cell", "name")],
        fields: &[("dead_periods", "dead_periods")],
        point: ["start_s", "end_s"],
    });
}

impl HopTable for MobileResult {
    const DOC: &'static str = "one row per mobile of a cdma2000 1X cell";
}
