//! What a run produces: its own tables (`result`) and the hops' (`network::HopRows`).

use crate::network::{hop_tables, HopRows};
use crate::result::{run_tables, Conservation, DropEvent, FlowResult, ObjectResult, PageResult, Series, Spooled, Table};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RunResult {
    pub seed: u64,
    /// Simulated seconds.
    pub duration_s: f64,
    /// Events the engine processed.
    pub events: u64,
    pub flows: Vec<FlowResult>,
    /// The hops' tables (queues, users, sectors, ...: `network::kinds`), at
    /// the top level of the JSON, after the flows.
    #[serde(flatten)]
    pub hops: HopRows,
    pub conservation: Conservation,
    /// Sampled and per-event time series (left out of the JSON when empty:
    /// the Python front receives them separately, as arrays).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub series: Vec<Series>,
    /// When the run streamed its series (`RunOptions::series_spool`): the
    /// spool file and each series' chunks there, in the order `series`
    /// would list them (`series` is then empty). Not part of the JSON.
    #[serde(skip)]
    pub spooled: Option<(std::path::PathBuf, Vec<Spooled>)>,
    /// Every drop: when, where, why, and which flow's packet; empty when the
    /// run streamed them to a file (`RunOptions::drop_log`), and then left
    /// out of the JSON (the counts are in `queues` and `conservation`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drops: Vec<DropEvent>,
    /// The run was stopped early (by its progress callback) at this time:
    /// everything covers [0, stopped_at_s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_at_s: Option<f64>,
    /// Web objects and pages of `kind = "http"` flows (Dziong et al.
    /// §5.1); empty when the run streamed them to files
    /// (`RunOptions::web_log_dir`), and then left out of the JSON (each
    /// flow's totals are in `flows`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub objects: Vec<ObjectResult>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages: Vec<PageResult>,
}

/// Every table of a run's results: the run's own (flows, series, drops,
/// objects, pages), then the hops' (`network::kinds`).
pub fn schema() -> Vec<Table> {
    let mut tables = run_tables();
    tables.extend(hop_tables());
    tables
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every long table names real fields of its wide table: its key
    /// columns are plain columns there, its fields are the table's
    /// distributions or intervals, and every distribution or interval of a
    /// table is shown in its long table (none is silently left out of the
    /// outputs). Table names are unique across wide and long tables.
    #[test]
    fn the_schema_holds_together() {
        let mut names = std::collections::BTreeSet::new();
        for t in schema() {
            // Every column says what it holds (its field's doc comment).
            assert_eq!(t.column_docs.len(), t.columns.len(), "{}", t.name);
            for (c, d) in t.columns.iter().zip(t.column_docs) {
                assert!(!d.trim().is_empty(), "{}.{}: no doc comment", t.name, c.0);
            }
            assert!(names.insert(t.name), "{} twice", t.name);
            assert!(t.doc.len() > 20, "{}: say what a row is", t.name);
            let kind = |f: &str| t.columns.iter().find(|c| c.0 == f).map(|c| c.1);
            let shown: Vec<&str> = t.columns.iter().filter(|c| c.1 == "cdf" || c.1 == "intervals").map(|c| c.0).collect();
            let Some(long) = t.long else {
                assert!(shown.is_empty(), "{}: {shown:?} shown nowhere", t.name);
                continue;
            };
            assert!(names.insert(long.name), "{} twice", long.name);
            for (column, field) in long.key {
                assert!(matches!(kind(field), Some("str" | "int")), "{}: key {column} from {field}", long.name);
            }
            let fields: Vec<&str> = long.fields.iter().map(|f| f.0).collect();
            assert_eq!(fields, shown, "{}: the fields it shows", long.name);
            let kinds: std::collections::BTreeSet<_> = fields.iter().map(|f| kind(f)).collect();
            assert_eq!(kinds.len(), 1, "{}: distributions and intervals in one long table", long.name);
        }
    }
}
