//! The `is2000` table's row: one IS-2000 sector.

use crate::result::{rows, Cdf, HopTable, Long};
use serde::{Deserialize, Serialize};

rows! {
/// One IS-2000 sector over the run (Dziong et al. §5.2).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Is2000Result {
    /// The sector (`[[is2000_sector]]`).
    pub name: String,
    /// Its users.
    pub users: u64,
    /// Fraction of the sector's power in use (common channels included),
    /// time-average.
    pub power_mean: f64,
    /// Its maximum.
    pub power_max: f64,
    /// Its distribution as (fraction, fraction of the time at or below),
    /// in 1 % steps (Fig. 14).
    pub power_cdf: Cdf,
    /// SCH grants made.
    pub sch_grants: u64,
    /// The most Walsh codes in use at once.
    pub codes_max: u64,
    /// SCH requests denied at least once for lack of power or Walsh codes
    /// (Dziong et al. §2).
    #[serde(default)]
    pub sch_denials: u64,
    /// Users who came back to active but had to wait for an FCH's power or code.
    pub admissions_deferred: u64,
    /// Time the users held a traffic channel (active), summed, seconds.
    pub active_s: f64,
    /// Forward channel ON periods over all users (Fig. 17).
    pub on_periods: u64,
    /// Their lengths' distribution: (seconds, fraction of periods at or below).
    pub on_time_cdf: Cdf,
}
}

impl HopTable for Is2000Result {
    const DOC: &'static str = "one row per IS-2000 sector";
    const LONG: Option<Long> = Some(Long {
        name: "is2000_cdf",
        doc: "the IS-2000 sectors' power in use and ON periods, as distributions",
        key: &[("name", "name")],
        fields: &[
            ("power_cdf", "power_fraction"),
            ("on_time_cdf", "on_time_s"),
        ],
        point: ["value", "cdf"],
    });
}
