//! The keys of the `[[cell]]` and `[[mobile]]` tables, each described once
//! (`input::keys`): the parser (`cdma2000::tables`) accepts these and no
//! other, takes its defaults from the same values, and docs/scenario.md's
//! tables of them are generated. A cell's `sch` table has keys by its `kind`.

use super::config::{default_bsc_queue, default_link_queue, BurstOrder, RateChange, BASE_RATE_BPS, TABLE1_DELAY};
use crate::engine::Time;
use crate::input::keys::{self, Described, Key};

/// `rate_change`'s values, the default first.
pub(crate) const RATE_CHANGE: &[(&str, RateChange)] = &[("exact", RateChange::Exact), ("next_packet", RateChange::NextPacket)];
/// A mobile's BTS when `bts` is not given (1-based, as the paper's i).
pub(crate) const DEFAULT_BTS: u32 = 1;

/// The cell's keys the `cdma2000` preset's table takes too.
pub(crate) const BSC_RATE: Key = Key::absent("bsc_rate", "38.4 kb/s × its mobiles", "The service rate of the shared buffer (Paliwal et al. Table I: m·n·38.4 kb/s).");
pub(crate) const BSC_QUEUE: Key = Key::value("bsc_queue", || keys::queue(&default_bsc_queue()), "The shared buffer; any queue table (Table I's RED as ns-2 ran it: `{kind = \"red\", limit = \"300pkt\", min_th = \"20pkt\", max_th = \"60pkt\", gentle = false, mean_pkt_size = \"1000B\", variant = \"ns2\"}`).");
pub(crate) const FCH_RATE: Key = Key::value("fch_rate", || keys::rate(BASE_RATE_BPS), "The fundamental channel every mobile always has (Rate Set 1).");
pub(crate) const RATE_CHANGE_KEY: Key = Key::value("rate_change", || format!("\"{}\"", RATE_CHANGE[0].0), "`\"exact\"`: a rate change acts in the middle of the packet in transmission, bit for bit; `\"next_packet\"`: from the next packet on, as ns-2's links (which the paper used).");
pub(crate) const SCH: Key = Key::value("sch", || "{kind = \"none\"}".into(), "How supplemental channels are allocated: an `sch` table by its `kind` (with `[[cell]]`).");

pub(crate) const CELL: &[Key] = &[
    Key::required("name", "The cell."),
    Key::required("node", "The BSC node packets for its mobiles enter at."),
    BSC_RATE,
    BSC_QUEUE,
    Key::value("bts_delay", || keys::time(TABLE1_DELAY), "d^t, BSC to BTS (Table I)."),
    Key::value("radio_delay", || keys::time(TABLE1_DELAY), "d^m, BTS to mobile (Table I)."),
    FCH_RATE,
    RATE_CHANGE_KEY,
    SCH,
];

pub(crate) const MOBILE: &[Key] = &[
    Key::required("name", "The mobile: a node of its own (name it in flows)."),
    Key::required("cell", "Its cell."),
    Key::value("bts", || DEFAULT_BTS.to_string(), "Its BTS, numbered from 1 (the paper's i)."),
    Key::value("queue", || keys::queue(&default_link_queue()), "Its link buffer B^dl (Table I: no limit); any queue table."),
    Key::value("reverse_rate", || keys::rate(BASE_RATE_BPS), "The rate of its reverse link `MOBILE.up` (the reverse FCH)."),
    Key::value("reverse_queue", || keys::queue(&default_link_queue()), "The buffer of its reverse link `MOBILE.up`; any queue table."),
];

/// The `bursts` plan's spread and order, and the `demand` plan's
/// settings, where the table leaves them out (ours: the paper gives a
/// spread of about a tenth in §IV-D's figures and no demand rule).
pub(crate) const BURSTS_SPREAD: f64 = 0.1;
pub(crate) const BURST_ORDER: &[(&str, BurstOrder)] = &[("sequential", BurstOrder::Sequential), ("random", BurstOrder::Random)];
pub(crate) const DEMAND_THRESHOLD: u64 = 2_000;
pub(crate) const DEMAND_GRANT_DELAY: Time = Time::from_millis(100);
pub(crate) const DEMAND_BURST: Time = Time::from_millis(5_120);
pub(crate) const DEMAND_MAX_RATE_BPS: u64 = 16 * BASE_RATE_BPS;

const fn kind(help: &'static str) -> Key {
    Key::required("kind", help)
}
const SCH_RATE: Key = Key::required("rate", "The SCH rate: `\"1x\"`, `\"2x\"`, `\"4x\"`, `\"8x\"` or `\"16x\"` (9.6 to 153.6 kb/s; a rate such as `\"153.6kbps\"` is taken if it is one of them).");

pub(crate) const SCH_NONE: &[Key] = &[kind("`\"none\"`: the FCH only.")];
pub(crate) const SCH_AT: &[Key] = &[
    kind("`\"at\"`: every mobile gets `rate` at `at` (the worst case of §IV-B)."),
    Key::required("at", "When; before the end of the run."),
    Key::absent("until", "the end of the run", "When the SCHs are released; after `at`."),
    SCH_RATE,
];
pub(crate) const SCH_RISE: &[Key] = &[
    kind("`\"rise\"`: mobile k (of N, in file order) switches up at start + k·rise_time/N (§IV-D)."),
    Key::required("start", "When the first mobile switches."),
    Key::required("rise_time", "Over how long the mobiles switch; start + rise_time before the end of the run."),
    SCH_RATE,
];
pub(crate) const SCH_BURSTS: &[Key] = &[
    kind("`\"bursts\"`: finite bursts (§IV-E) from `start` (the mobiles run on the FCH alone before it), each cycle T_B + T_D."),
    Key::required("burst", "T_B, the burst; > 0."),
    Key::required("gap", "T_D, the time between bursts; > 0."),
    Key::value("start", || keys::time(Time::ZERO), "The first burst; before the end of the run."),
    Key::value("spread", || BURSTS_SPREAD.to_string(), "The up-switches spread over the first spread·T_B of a burst, the down-switches over the first spread·T_D after it; in [0, 1)."),
    Key::value("order", || format!("\"{}\"", BURST_ORDER[0].0), "`\"sequential\"` is §IV-D's rule: mobile k of N switches at k/N of that time, in the same order every cycle (the last of N (N − 1)/N · spread·T_B after the first); `\"random\"` draws a uniform point per mobile and cycle from the seed."),
    SCH_RATE,
];
pub(crate) const SCH_FILE: &[Key] = &[
    kind("`\"file\"`: a schedule of lines `TIME_S,MOBILE,RATE` (`RATE` 1x-16x or `off`; `#` comments; times not decreasing)."),
    Key::required("path", "The file, relative to the scenario file."),
];
pub(crate) const SCH_DEMAND: &[Key] = &[
    kind("`\"demand\"`: a mobile whose link buffer holds more than `threshold` requests an SCH; `grant_delay` later the BSC grants the highest rate up to `max_rate` its BTS's budget still allows (requests wait first come first served), for at most `burst`, released when the link buffer idles; a mobile still backlogged at the end of a burst asks again."),
    Key::value("threshold", || keys::size(DEMAND_THRESHOLD), "The link buffer's backlog that makes a request."),
    Key::value("grant_delay", || keys::time(DEMAND_GRANT_DELAY), "From a request to its grant."),
    Key::value("burst", || keys::time(DEMAND_BURST), "The longest grant; > 0."),
    Key::value("max_rate", || format!("\"{}x\"", DEMAND_MAX_RATE_BPS / BASE_RATE_BPS), "The highest rate granted."),
    Key::absent("budget", "its share of `bsc_rate`", "The SCH rate each BTS may grant in all (at least 9.6 kb/s)."),
];

pub(crate) const TABLES: &[Described] = &[
    Described::new("cell", "`[[cell]]`", CELL),
    Described::new("sch.none", "`sch`, `kind = \"none\"`", SCH_NONE),
    Described::new("sch.at", "`sch`, `kind = \"at\"`", SCH_AT),
    Described::new("sch.rise", "`sch`, `kind = \"rise\"`", SCH_RISE),
    Described::new("sch.bursts", "`sch`, `kind = \"bursts\"`", SCH_BURSTS),
    Described::new("sch.file", "`sch`, `kind = \"file\"`", SCH_FILE),
    Described::new("sch.demand", "`sch`, `kind = \"demand\"`", SCH_DEMAND),
    Described::new("mobile", "`[[mobile]]`", MOBILE),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::keys::testing::assert_defaults_taken;

    /// Every default shown is the one the parser takes (as for 1xEV-DO's).
    #[test]
    fn the_defaults_shown_are_the_defaults_taken() {
        let checked = assert_defaults_taken(TABLES, |table, _key, line| {
            let line = line.unwrap_or("");
            let sch;
            let (cell, mobile) = match table {
                "cell" => (line, ""),
                "mobile" => ("", line),
                _ => {
                    let kind = table.rsplit('.').next().unwrap();
                    let required = match kind {
                        "bursts" => ", burst = \"100ms\", gap = \"100ms\", rate = \"2x\"",
                        _ => "",
                    };
                    sch = format!("sch = {{kind = \"{kind}\"{required}, {line}}}").replace(", }", "}");
                    (sch.as_str(), "")
                }
            };
            format!(
                "[simulation]\nduration = \"1s\"\n[[node]]\nname = \"bsc\"\n[[cell]]\nname = \"c\"\nnode = \"bsc\"\n{cell}\n[[mobile]]\nname = \"m\"\ncell = \"c\"\n{mobile}\n"
            )
        });
        assert_eq!(checked, 10 + 3 + 4);
    }
}
