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

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RunResult {
    pub seed: u64,
    /// Simulated seconds.
    pub duration_s: f64,
    /// Events the engine processed.
    pub events: u64,
    pub flows: Vec<FlowResult>,
    /// The hops' tables (queues, users, sectors, ...: `HOP_TABLES`), at the
    /// top level of the JSON, after the flows.
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

/// The hops' result tables: `HopRows` (what `Hop::report` fills) and their
/// entries in the schema, from one list. A table added here reaches the
/// JSON summary, Python's `Result.<table>` and `to_dir`, and the README's
/// list of output files, with no edit anywhere else.
macro_rules! hop_tables {
    ($( $f:ident : $t:ty, $doc:literal $(, $long:expr)? ; )*) => {
        /// The rows the hops add to the result tables (`Hop::report`), in
        /// the order of the hops.
        #[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
        pub struct HopRows {
            $( #[serde(default)] pub $f: Vec<$t>, )*
        }

        /// The hops' tables, in `HopRows`' order.
        pub const HOP_TABLES: &[Table] = &[
            $( Table { name: stringify!($f), doc: $doc, columns: <$t as Row>::COLUMNS, column_docs: <$t as Row>::DOCS, long: hop_tables!(@long $($long)?) }, )*
        ];
    };
    (@long) => { None };
    (@long $long:expr) => { Some($long) };
}

hop_tables! {
    queues: QueueResult, "one row per queue (links, base-station queues, a cell's buffers): drops in all and by reason, lengths, utilization";
    users: UserResult, "one row per 1xEV-DO user: throughput, DRC, slots, hand-offs; its forward RLP (`[[user]] rlp`) and reverse MAC (`reverse_mac`; empty without)";
    sectors: SectorResult, "one row per 1xEV-DO sector: scheduler, slot utilisation, throughput, Jain's index, RAB busy share (with `reverse_mac`)";
    cells: CellResult, "one row per cdma2000 1X cell (dead_periods: their number)",
        Long { name: "dead_periods", doc: "one row per dead interval of a cell (Paliwal et al. §IV-E)",
               key: &[("cell", "name")], fields: &[("dead_periods", "dead_periods")], point: ["start_s", "end_s"] };
    mobiles: MobileResult, "one row per mobile of a cdma2000 1X cell";
    radio_links: RadioLinkResult, "one row per RLP3 radio link and direction; an IS-2000 user's forward row also its sector, SCH grants and active time",
        Long { name: "rlp_cdf", doc: "the RLP buffers' and ON periods' distributions (fraction of the time, or of the periods, at or below value)",
               key: &[("name", "name"), ("direction", "direction")],
               fields: &[("new_data_cdf", "new_data_bytes"), ("rtx_cdf", "rtx_bytes"), ("on_time_cdf", "on_time_s")],
               point: ["value", "cdf"] };
    is2000: Is2000Result, "one row per IS-2000 sector",
        Long { name: "is2000_cdf", doc: "the IS-2000 sectors' power in use and ON periods, as distributions",
               key: &[("name", "name")], fields: &[("power_cdf", "power_fraction"), ("on_time_cdf", "on_time_s")],
               point: ["value", "cdf"] };
    ppp: PppResult, "one row per direction of a link that runs PPP: frames, header compression, and what lost frames cost (docs/ppp.md)";
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
/// DataFrames from (`schema`), so that the tables' columns and types are
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
            impl Row for $name {
                const COLUMNS: &'static [(&'static str, &'static str)] = &[$( (stringify!($f), <$t as Column>::KIND) ),*];
                const DOCS: &'static [&'static str] = &[$( field_doc!($([$($fa)*])*) ),*];
            }
        )*
    };
}

/// The doc lines among a field's attributes, joined (each `///` line is a
/// `doc = "..."` attribute).
macro_rules! field_doc {
    () => { "" };
    ([doc = $d:literal] $($rest:tt)*) => { concat!($d, "\n", field_doc!($($rest)*)) };
    ([$($other:tt)*] $($rest:tt)*) => { field_doc!($($rest)*) };
}

/// The series table's columns: one row per sample (`Series` holds a
/// series' samples as two arrays).
const SERIES_COLUMNS: &[(&str, &str)] = &[("metric", "str"), ("subject", "str"), ("t_s", "float"), ("value", "float")];
const SERIES_DOCS: &[&str] = &[
    "What is sampled: a hop's (`queue_pkts`, `drc_bps`, ...; each kind's section of docs/scenario.md names its own) or a flow's (`goodput_bps`, `cwnd`, `ssthresh`, `rwnd`, `pacing_rate_bps`, `owd`).",
    "The link, user, cell or flow it belongs to.",
    "Simulated time of the sample, seconds.",
    "The sample, in the unit its metric names (packets, bytes, bit/s, seconds).",
];

/// Every table of a run's results: the run's own (flows, series, drops,
/// objects, pages), then the hops' (`HOP_TABLES`).
pub fn schema() -> Vec<Table> {
    let own = |name, doc, (columns, column_docs)| Table { name, doc, columns, column_docs, long: None };
    let mut tables = vec![
        own("flows", "one row per flow: goodput, RTTs, one-way delays, retransmissions, timeouts; http flows also their connections, pages and objects", (FlowResult::COLUMNS, FlowResult::DOCS)),
        own("series", "one row per sample of a time series (e.g. `queue_pkts` of a link, `cwnd` of a flow, `drc_bps` of a 1xEV-DO user)", (SERIES_COLUMNS, SERIES_DOCS)),
        own("drops", "one row per dropped packet: when, where (a link, a user's base-station queue `USER.down`, or `node:N` for a missing route or a failed TCP checksum), why, whose", (DropEvent::COLUMNS, DropEvent::DOCS)),
        own("objects", "one row per web object of `kind = \"http\"` flows (unfinished: finish_s empty)", (ObjectResult::COLUMNS, ObjectResult::DOCS)),
        own("pages", "one row per web page of `kind = \"http\"` flows", (PageResult::COLUMNS, PageResult::DOCS)),
    ];
    tables.extend_from_slice(HOP_TABLES);
    tables
}

rows! {
/// One direction of a radio link over the run (Dziong et al. §3.3, §5.1.4).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RadioLinkResult {
    /// The radio link (`[[radio_link]]`, or an IS-2000 user's).
    pub name: String,
    /// "down" (forward, to the mobile) or "up".
    pub direction: String,
    /// The rate at the end of the run, bit/s.
    pub rate_bps: f64,
    /// IP packets handed to its RLP sender.
    pub packets_in: u64,
    /// IP packets its RLP receiver delivered whole.
    pub packets_delivered: u64,
    /// IP packets dropped because RLP gave up on one of their frames.
    pub packets_aborted: u64,
    /// 20 ms RLP frames sent (new data, retransmissions and idle frames).
    pub frames_sent: u64,
    /// Frames that carried new data.
    pub frames_new: u64,
    /// Frames that carried retransmitted data.
    pub frames_retransmitted: u64,
    /// Frames sent with no data to carry.
    pub frames_idle: u64,
    /// Frames the channel erased.
    pub frames_lost: u64,
    /// frames_lost / frames_sent.
    pub fer: f64,
    /// NAKs the receiver of this direction sent (in the other direction's frames).
    pub naks_sent: u64,
    /// The RLP sender's buffer of new data, bytes: its time-average.
    pub new_data_mean_bytes: f64,
    /// The same buffer's largest content, bytes.
    pub new_data_max_bytes: u64,
    /// The RLP sender's retransmission buffer, bytes: its time-average.
    pub rtx_mean_bytes: f64,
    /// The retransmission buffer's largest content, bytes.
    pub rtx_max_bytes: u64,
    /// The new-data buffer's distribution over the run: (bytes, fraction of
    /// the time at or below), at the upper edge of each occupied 24-byte bin.
    pub new_data_cdf: Cdf,
    /// The retransmission buffer's distribution, as new_data_cdf.
    pub rtx_cdf: Cdf,
    /// Channel ON periods (consecutive frames carrying data, §5.2.3).
    pub on_periods: u64,
    /// Their lengths' distribution: (seconds, fraction of periods at or below).
    pub on_time_cdf: Cdf,
    /// An IS-2000 sector's user, on the forward ("down") row: its sector.
    /// None on "up" rows and stand-alone links, as the next two.
    pub sector: Option<String>,
    /// The SCH grants it received.
    pub sch_grants: Option<u64>,
    /// The time it held a traffic channel (active state), seconds.
    pub active_s: Option<f64>,
}

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

/// One 1xEV-DO user (access terminal) over the run.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct UserResult {
    /// The user (`[[user]]`).
    pub name: String,
    /// The sector serving it at the end.
    pub sector: String,
    /// IP bytes delivered to it × 8 / run time, bit/s.
    pub throughput_bps: f64,
    /// Mean nominal DRC rate over every slot of the run, bit/s.
    pub mean_drc_bps: f64,
    /// throughput_bps / mean_drc_bps (Liu et al. §7.3's utilisation, at the IP layer).
    pub utilisation: f64,
    /// Slots that carried its data.
    pub slots_served: u64,
    /// slots_served as a fraction of its sectors' traffic slots.
    pub slot_share: f64,
    /// IP packets delivered to it.
    pub packets_delivered: u64,
    /// Times it moved to another sector.
    pub handoffs: u64,
    /// Physical-layer packets that carried its data on the forward link.
    /// This and the next four come from its forward RLP (`[[user]] rlp`);
    /// without it, zeros but this count.
    #[serde(default)]
    pub physical_packets: u64,
    /// Those the channel erased.
    #[serde(default)]
    pub erased_packets: u64,
    /// Octets RLP sent again.
    #[serde(default)]
    pub rlp_retransmitted_bytes: u64,
    /// Holes RLP gave up on after its one retransmission.
    #[serde(default)]
    pub rlp_aborts: u64,
    /// IP packets lost with them.
    #[serde(default)]
    pub rlp_lost_packets: u64,
    /// Its reverse link with the Rev. 0 MAC (`[[user]] reverse_mac`; this
    /// and the next seven None without): IP bytes delivered × 8 / run
    /// time, bit/s.
    #[serde(default)]
    pub reverse_throughput_bps: Option<f64>,
    /// The mean rate of its reverse frames, bit/s.
    #[serde(default)]
    pub reverse_mean_rate_bps: Option<f64>,
    /// Reverse frames sent.
    #[serde(default)]
    pub reverse_frames: Option<u64>,
    /// Those sent at 153.6 kb/s.
    #[serde(default)]
    pub reverse_frames_153k6: Option<u64>,
    /// Those sent while its sector's RAB was set.
    #[serde(default)]
    pub reverse_busy_frames: Option<u64>,
    /// Those whose rate its transmit power capped.
    #[serde(default)]
    pub reverse_power_limited_frames: Option<u64>,
    /// Reverse frames erased.
    #[serde(default)]
    pub reverse_erased_frames: Option<u64>,
    /// IP packets lost when a resend was erased too.
    #[serde(default)]
    pub reverse_rlp_lost_packets: Option<u64>,
}

/// One 1xEV-DO sector over the run.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct SectorResult {
    /// The sector (`[[sector]]`).
    pub name: String,
    /// Its forward-link scheduler (`sched::SCHEDULERS`: "pf", "rr", "maxci").
    pub scheduler: String,
    /// Slots the traffic channel had (control-channel slots left out).
    pub traffic_slots: u64,
    /// Fraction of those that carried data.
    pub utilisation: f64,
    /// Sum of the octets carried × 8 / run time, bit/s.
    pub throughput_bps: f64,
    /// Jain's index of the octets carried per user, over the users it served at some time.
    pub jain: f64,
    /// Share of the reverse frames for which it set the RAB (None when no
    /// user of its RAN has a reverse MAC).
    #[serde(default)]
    pub rab_busy: Option<f64>,
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

/// One direction of a link that runs PPP (Lee §3.3).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct PppResult {
    /// The link (or the EV-DO user's forward or reverse link) running PPP.
    pub link: String,
    /// "none", "vj" (RFC 1144) or "rohc" (RFC 6846).
    pub compression: String,
    /// Frames the compressor wrote (an EV-DO user's at the PDSN, those the
    /// base station's queue then dropped included: `dropped_in_queue`).
    pub frames: u64,
    /// Frames whose TCP/IP header went compressed.
    pub compressed: u64,
    /// Header bytes the frames were written with.
    pub header_bytes: u64,
    /// Header bytes they would have had uncompressed.
    pub full_header_bytes: u64,
    /// Frames lost below PPP (the link's residual loss).
    pub lost: u64,
    /// Frames the decompressor rebuilt with a wrong TCP header (they fail
    /// the checksum at their destination).
    pub corrupted: u64,
    /// Frames the decompressor discarded.
    pub discarded: u64,
    /// Frames written by the compressor whose packets a queue between it
    /// and the link dropped (the EV-DO base station's: `evdo::framing`):
    /// the decompressor misses them as it misses lost ones.
    #[serde(default)]
    pub dropped_in_queue: u64,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct QueueResult {
    /// Name of the link whose queue this is.
    pub link: String,
    /// Its discipline: "droptail" or "red".
    pub kind: String,
    /// Drops by reason ("overflow", "red_early", "red_forced", "random_loss", ...).
    pub drops: BTreeMap<String, u64>,
    /// Packets it accepted.
    pub enqueued: u64,
    /// Its longest length, packets.
    pub max_packets: u64,
    /// Its longest length, bytes.
    pub max_bytes: u64,
    /// Time-average queue length, packets.
    pub avg_packets: f64,
    /// Time-average queue length, bytes.
    pub avg_bytes: f64,
    /// Bytes sent over the link / (rate-integral over the run): utilisation in [0, 1].
    pub utilization: f64,
    /// Bytes sent over the link.
    pub bytes_sent: u64,
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
