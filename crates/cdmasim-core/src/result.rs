//! What a run produces. Plain data, serialisable to JSON; the Python front
//! turns it into DataFrames and tables.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One series a run streamed to its spool file (`sim::series_spool`): its
/// name and its chunks there (byte offset, points).
#[derive(Clone, Debug, PartialEq)]
pub struct Spooled {
    pub metric: String,
    pub subject: String,
    pub chunks: Vec<(u64, u64)>,
}

/// One result table as the schema describes it: its name, what a row is,
/// its columns (the row type's fields, `Row`), and the long table its
/// distributions or intervals are shown in.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Table {
    pub name: &'static str,
    pub doc: &'static str,
    pub columns: &'static [(&'static str, &'static str)],
    /// What each column holds, in `columns`' order.
    pub column_docs: &'static [&'static str],
    /// The core's source file that defines its row type (in the JSON:
    /// from the repository's root, `crates/cdmasim-core/src/...`).
    #[serde(serialize_with = "from_repository_root")]
    pub source: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub long: Option<Long>,
}

/// A long table made from a wide table's `cdf` or `intervals` fields: one
/// row per point, its first columns copied from the wide row (`key`: the
/// long column and the wide field), then a `quantity` column naming the
/// field (only when it shows more than one), then the point's two numbers.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Long {
    pub name: &'static str,
    pub doc: &'static str,
    pub key: &'static [(&'static str, &'static str)],
    /// (wide field, the name its points go by in `quantity`).
    pub fields: &'static [(&'static str, &'static str)],
    /// The columns of a point: (value, cdf) for a distribution, (start_s,
    /// end_s) for an interval.
    pub point: [&'static str; 2],
}

impl Table {
    /// The table of `R`'s rows, under `name`.
    pub fn of<R: HopTable>(name: &'static str) -> Table {
        Table { name, doc: R::DOC, columns: R::COLUMNS, column_docs: R::DOCS, source: R::FILE, long: R::LONG }
    }
}

/// A row type of a hop's result table, described where it is defined (in
/// its technology's folder): what a row is, and the long table its
/// distributions or intervals are shown in. Its name and its place among
/// the tables are its line in the registry of kinds (`network::kinds`).
pub trait HopTable: Row + 'static {
    const DOC: &'static str;
    const LONG: Option<Long> = None;
}

/// The rows hops report (`Hop::report`), kept by row type: a hop adds
/// rows of the types it knows, and the registry of kinds takes each
/// type's rows out into its table (`network::HopRows`). So no module below
/// the registry names every table, and a row type the registry does not
/// list is caught (`assert_taken`), not silently left out.
#[derive(Default)]
pub struct Rows {
    /// Each type's rows (a `Vec` of it), with the type's name for the
    /// message when one is left.
    tables: Vec<(&'static str, Box<dyn std::any::Any>)>,
}

impl Rows {
    /// Add a row to the table of its type, after the rows already there.
    pub fn push<R: HopTable>(&mut self, row: R) {
        self.table_mut::<R>().push(row);
    }

    pub fn extend<R: HopTable>(&mut self, rows: impl IntoIterator<Item = R>) {
        self.table_mut::<R>().extend(rows);
    }

    /// The rows of type `R` so far.
    pub fn get<R: HopTable>(&self) -> &[R] {
        self.tables.iter().find_map(|(_, t)| t.downcast_ref::<Vec<R>>()).map_or(&[], |v| v.as_slice())
    }

    /// Take the rows of type `R` out, in the order they were added.
    pub fn take<R: HopTable>(&mut self) -> Vec<R> {
        match self.position::<R>() {
            Some(i) => *self.tables.remove(i).1.downcast::<Vec<R>>().expect("the type just found"),
            None => Vec::new(),
        }
    }

    /// Every row was taken: a hop reported no row of a type outside the
    /// registry's tables.
    pub fn assert_taken(&self) {
        let left: Vec<&str> = self.tables.iter().map(|(name, _)| *name).collect();
        assert!(left.is_empty(), "rows of {left:?} reported but in no table of network::kinds");
    }

    /// Where the rows of type `R` are.
    fn position<R: HopTable>(&self) -> Option<usize> {
        self.tables.iter().position(|(_, t)| t.is::<Vec<R>>())
    }

    fn table_mut<R: HopTable>(&mut self) -> &mut Vec<R> {
        let i = self.position::<R>().unwrap_or_else(|| {
            self.tables.push((std::any::type_name::<R>(), Box::new(Vec::<R>::new())));
            self.tables.len() - 1
        });
        self.tables[i].1.downcast_mut().expect("the table of its type")
    }
}

/// A distribution: (value, fraction at or below it), at the upper edge of
/// each occupied bin. In the tables, a long table of its own (rlp_cdf,
/// is2000_cdf).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(transparent)]
pub struct Cdf(pub Vec<(f64, f64)>);

/// Intervals [start, end) in seconds, in time order. In the tables, their
/// number (and a long table of their own: dead_periods).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(transparent)]
pub struct Intervals(pub Vec<(f64, f64)>);

impl std::ops::Deref for Cdf {
    type Target = Vec<(f64, f64)>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::Deref for Intervals {
    type Target = Vec<(f64, f64)>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

/// How a field appears in the result tables: the schema Python builds its
/// DataFrames from (`sim::schema`), so that the tables' columns and types are
/// written once, here.
pub trait Column {
    const KIND: &'static str;
}

macro_rules! column {
    ($($t:ty => $k:literal),* $(,)?) => { $( impl Column for $t { const KIND: &'static str = $k; } )* };
}

column! {
    u64 => "int", u32 => "int", f64 => "float", String => "str",
    Option<u64> => "int?", Option<f64> => "float?", Option<String> => "str?",
    BTreeMap<String, u64> => "counts", Cdf => "cdf", Intervals => "intervals",
}

/// A row of a result table: its columns and their kinds, in field order,
/// and what each column holds (the field's doc comment).
pub trait Row {
    /// The file the row type is defined in, as the compiler named it.
    const FILE: &'static str;
    const COLUMNS: &'static [(&'static str, &'static str)];
    const DOCS: &'static [&'static str];
}

/// The row structs, each with its `Row` columns taken from its fields and
/// their docs from the fields' doc comments, so that a column is described
/// once, where it is defined. (Attributes are taken as tokens, not as
/// `meta`, so that `field_doc!` can pick the docs out.)
macro_rules! rows {
    ($( $(#[$m:meta])* pub struct $name:ident { $( $(#[$($fa:tt)*])* pub $f:ident : $t:ty ),* $(,)? } )*) => {
        $(
            $(#[$m])*
            pub struct $name { $( $(#[$($fa)*])* pub $f: $t ),* }
            impl $crate::result::Row for $name {
                const FILE: &'static str = file!();
                const COLUMNS: &'static [(&'static str, &'static str)] = &[$( (stringify!($f), <$t as $crate::result::Column>::KIND) ),*];
                const DOCS: &'static [&'static str] = &[$( $crate::result::field_doc!($([$($fa)*])*) ),*];
            }
        )*
    };
}
pub(crate) use rows;

/// The doc lines among a field's attributes, joined (each `///` line is a
/// `doc = "..."` attribute).
macro_rules! field_doc {
    () => { "" };
    ([doc = $d:literal] $($rest:tt)*) => { concat!($d, "\n", $crate::result::field_doc!($($rest)*)) };
    ([$($other:tt)*] $($rest:tt)*) => { $crate::result::field_doc!($($rest)*) };
}
pub(crate) use field_doc;

/// The series table's columns: one row per sample (`Series` holds a
/// series' samples as two arrays).
const SERIES_COLUMNS: &[(&str, &str)] = &[("metric", "str"), ("subject", "str"), ("t_s", "float"), ("value", "float")];
const SERIES_DOCS: &[&str] = &[
    "What is sampled: a hop's (`queue_pkts`, `drc_bps`, ...; each kind's section of docs/scenario.md names its own) or a flow's (`goodput_bps`, `cwnd`, `ssthresh`, `rwnd`, `pacing_rate_bps`, `owd`).",
    "The link, user, cell or flow it belongs to.",
    "Simulated time of the sample, seconds.",
    "The sample, in the unit its metric names (packets, bytes, bit/s, seconds).",
];

/// A source file as the compiler named it, from the repository's root:
/// it names the file from wherever the crate was built (the workspace, or
/// an unpacked source distribution), and the part from the crate's `src/`
/// on is the same in all of them.
fn from_repository_root<S: serde::Serializer>(file: &&'static str, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&repository_path(file))
}

/// `file` from the repository's root: the part from the core's `src/` on
/// (the `src/` at the start, or the one inside a folder named after the
/// crate: `cdmasim-core`, or `cdmasim-core-VERSION` as cargo unpacks it),
/// under `crates/cdmasim-core/`; any other path as it is.
fn repository_path(file: &str) -> String {
    let file_unix = file.replace('\\', "/");
    let from_src = if file_unix.starts_with("src/") {
        Some(0)
    } else {
        file_unix.rmatch_indices("/src/").map(|(i, _)| i).find(|&i| {
            let folder = file_unix[..i].rsplit('/').next().unwrap_or("");
            folder == "cdmasim-core" || folder.starts_with("cdmasim-core-")
        }).map(|i| i + 1)
    };
    match from_src {
        Some(i) => format!("crates/cdmasim-core/{}", &file_unix[i..]),
        None => file.to_string(),
    }
}

/// The run's own tables (flows, series, drops, objects, pages); the hops'
/// follow them in the schema (`sim::schema`).
pub fn run_tables() -> Vec<Table> {
    let own = |name, doc, (columns, column_docs)| Table { name, doc, columns, column_docs, source: file!(), long: None };
    let tables = vec![
        own("flows", "one row per flow: goodput, RTTs, one-way delays, retransmissions, timeouts; http flows also their connections, pages and objects", (FlowResult::COLUMNS, FlowResult::DOCS)),
        own("series", "one row per sample of a time series (e.g. `queue_pkts` of a link, `cwnd` of a flow, `drc_bps` of a 1xEV-DO user)", (SERIES_COLUMNS, SERIES_DOCS)),
        own("drops", "one row per dropped packet: when, where (a link, a user's base-station queue `USER.down`, or `node:N` for a missing route or a failed TCP checksum), why, whose", (DropEvent::COLUMNS, DropEvent::DOCS)),
        own("objects", "one row per web object of `kind = \"http\"` flows (unfinished: finish_s empty)", (ObjectResult::COLUMNS, ObjectResult::DOCS)),
        own("pages", "one row per web page of `kind = \"http\"` flows", (PageResult::COLUMNS, PageResult::DOCS)),
    ];
    tables
}

rows! {

/// One web object: requested at `start_s`, whole at the browser at
/// `finish_s` (None: not by the end of the run).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct ObjectResult {
    /// The browsing user's flow (`kind = "http"`).
    pub flow: String,
    /// Page number within its flow, from 0.
    pub page: u32,
    /// 0: the page's main object (the response to the page request).
    pub index: u32,
    /// The request's size, bytes.
    pub request_bytes: u64,
    /// The object's size, bytes.
    pub size_bytes: u64,
    /// When the browser requested it, seconds; None: the run ended before.
    pub start_s: Option<f64>,
    /// When it was whole at the browser, seconds; None: not by the end of the run.
    pub finish_s: Option<f64>,
    /// finish_s − start_s, seconds.
    pub delay_s: Option<f64>,
    /// Dziong et al. §5.1.1's normalized delay: delay over size, seconds per KB (1000 bytes).
    pub normalized_s_per_kb: Option<f64>,
}

/// One web page: its main object and its embedded objects.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct PageResult {
    /// The browsing user's flow (`kind = "http"`).
    pub flow: String,
    /// Page number within its flow, from 0.
    pub page: u32,
    /// Its objects, the main one included.
    pub objects: u32,
    /// Its objects' sizes summed, bytes.
    pub size_bytes: u64,
    /// When the browser requested its main object, seconds.
    pub start_s: f64,
    /// When its last object was whole at the browser, seconds; None: not by the end of the run.
    pub finish_s: Option<f64>,
    /// finish_s − start_s, seconds.
    pub delay_s: Option<f64>,
    /// Dziong et al. §5.1.2: page delay over page size, seconds per KB (1000 bytes).
    pub normalized_s_per_kb: Option<f64>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct DropEvent {
    /// When it was dropped, seconds.
    pub t_s: f64,
    /// The link whose queue or wire dropped it, or "node:N" (the node's
    /// index) for a missing route or a segment failing its TCP checksum.
    pub place: String,
    /// Why (`net::DropReason`): "overflow", "red_early", "red_forced", "random_loss", "no_route", "handoff", "rlp_abort", "checksum" or "decompression".
    pub reason: String,
    /// The scenario's flow it belonged to (a web connection's: its browsing user's).
    pub flow: String,
    /// When the packet entered the network, seconds.
    pub sent_s: f64,
    /// TCP sequence number or datagram number.
    pub seq: u64,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct FlowResult {
    /// The flow (`[[flow]]`, or a preset's).
    pub name: String,
    /// "tcp", "cbr" or "http" (a browsing user: its connections summed).
    pub kind: String,
    /// Payload bytes delivered in order to the receiving application.
    pub bytes_delivered: u64,
    /// bytes_delivered * 8 / active time, bit/s; the flow is active from its
    /// start until it completes, or (if its application stops early) until its
    /// last delivery, or else until the end of the run.
    pub goodput_bps: f64,
    /// Packets sent: TCP, the data segments its sender sent (retransmissions
    /// included); http, every packet of its connections, both ends; CBR, datagrams.
    pub packets_sent: u64,
    /// TCP: segments retransmitted (fast retransmit, SACK recovery and RTO).
    pub retransmits: u64,
    /// TCP: retransmits / data segments sent.
    #[serde(default)]
    pub retransmitted_fraction: f64,
    /// TCP: retransmission timeouts.
    pub timeouts: u64,
    /// TCP: timeouts the sender found spurious (Eifel or F-RTO detection on).
    #[serde(default)]
    pub spurious_timeouts: u64,
    /// TCP: fast recoveries entered.
    pub fast_recoveries: u64,
    /// TCP: segments (data or ACKs) this flow's ends discarded because
    /// their checksum failed (headers rebuilt wrong below IP: `net::ppp`).
    #[serde(default)]
    pub checksum_failures: u64,
    /// TCP: the smallest RTT sample the sender took, seconds (CBR: none, one-way).
    pub rtt_min_s: Option<f64>,
    /// TCP: the mean RTT sample, seconds.
    pub rtt_avg_s: Option<f64>,
    /// TCP: the largest RTT sample, seconds.
    pub rtt_max_s: Option<f64>,
    /// The smallest one-way delay of the packets that arrived (TCP: data
    /// segments, each transmission counted), seconds.
    #[serde(default)]
    pub owd_min_s: Option<f64>,
    /// Their mean one-way delay, seconds.
    #[serde(default)]
    pub owd_avg_s: Option<f64>,
    /// Their largest one-way delay, seconds.
    #[serde(default)]
    pub owd_max_s: Option<f64>,
    /// Liu et al. §7's excess delay (one-way delay minus owd_min_s): mean, seconds.
    #[serde(default)]
    pub excess_owd_mean_s: Option<f64>,
    /// Its standard deviation, seconds.
    #[serde(default)]
    pub excess_owd_std_s: Option<f64>,
    /// Packets that reached the receiver (TCP: data segments, each
    /// transmission counted; CBR: datagrams).
    pub packets_received: u64,
    /// Time the transfer completed (bulk with a byte count), seconds.
    pub completed_at_s: Option<f64>,
    /// HTTP flows (this and the rest; None for others): TCP connections opened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connections_opened: Option<u64>,
    /// Connections still open (or closing) at the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connections_open: Option<u64>,
    /// Pages begun (Dziong et al. §5.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<u64>,
    /// Pages finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages_done: Option<u64>,
    /// Objects requested or due.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub objects: Option<u64>,
    /// Objects finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub objects_done: Option<u64>,
    /// The finished pages' mean delay, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_delay_mean_s: Option<f64>,
    /// The finished objects' mean delay, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_delay_mean_s: Option<f64>,
    /// Mean over finished objects of delay / size, seconds per KB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_s_per_kb_mean: Option<f64>,
}

}

/// Packet accounting: sent == delivered + dropped + in_network at the end.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Conservation {
    pub sent: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub in_network: u64,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Series {
    /// e.g. "queue_pkts", "cwnd", "ssthresh", "owd", "goodput".
    pub metric: String,
    /// The link or flow it belongs to.
    pub subject: String,
    pub t_s: Vec<f64>,
    pub value: Vec<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    rows! {
        #[derive(Debug, PartialEq)]
        pub struct A {
            /// A number.
            pub x: u64,
        }
        #[derive(Debug, PartialEq)]
        pub struct B {
            /// A name.
            pub s: String,
        }
    }
    impl HopTable for A {
        const DOC: &'static str = "a test table of numbers";
    }
    impl HopTable for B {
        const DOC: &'static str = "a test table of names";
    }

    /// Rows of each type come out in the order they went in, whatever
    /// other types came between; a type with no row gives an empty table.
    #[test]
    fn rows_are_kept_by_type_in_order() {
        let mut rows = Rows::default();
        rows.push(A { x: 1 });
        rows.push(B { s: "b".into() });
        rows.extend([A { x: 2 }, A { x: 3 }]);
        assert_eq!(rows.get::<A>().len(), 3);
        assert_eq!(rows.take::<A>(), vec![A { x: 1 }, A { x: 2 }, A { x: 3 }]);
        assert_eq!(rows.take::<A>(), vec![]);
        assert_eq!(rows.take::<B>(), vec![B { s: "b".into() }]);
        rows.assert_taken();
        let t = Table::of::<A>("a");
        assert_eq!((t.name, t.doc, t.columns, t.column_docs), ("a", "a test table of numbers", &[("x", "int")][..], &[" A number.\n"][..]));
    }

    /// A row type's file, however the compiler named it, from the
    /// repository's root.
    #[test]
    fn a_source_is_named_from_the_repository_root() {
        for (file, shown) in [
            ("crates/cdmasim-core/src/evdo/rows.rs", "crates/cdmasim-core/src/evdo/rows.rs"),
            ("src/evdo/rows.rs", "crates/cdmasim-core/src/evdo/rows.rs"),
            ("/tmp/build/crates/cdmasim-core/src/net/queue/rows.rs", "crates/cdmasim-core/src/net/queue/rows.rs"),
            ("/home/u/.cargo/registry/src/index-1/cdmasim-core-0.1.0/src/result.rs", "crates/cdmasim-core/src/result.rs"),
            ("C:\\w\\crates\\cdmasim-core\\src\\rlp\\rows.rs", "crates/cdmasim-core/src/rlp/rows.rs"),
            ("/elsewhere/src/x.rs", "/elsewhere/src/x.rs"),
        ] {
            assert_eq!(repository_path(file), shown, "{file}");
        }
    }

    /// A row whose type no table takes is not lost without a word.
    #[test]
    #[should_panic(expected = "result::tests::B")]
    fn a_row_no_table_takes_is_caught() {
        let mut rows = Rows::default();
        rows.push(A { x: 1 });
        rows.push(B { s: "b".into() });
        rows.take::<A>();
        rows.assert_taken();
    }
}
