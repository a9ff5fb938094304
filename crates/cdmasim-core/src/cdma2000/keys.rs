//! The keys of the `[[cell]]` and `[[mobile]]` tables, each described once
//! (`input::keys`): the parser (`cdma2000::tables`) accepts these and no
//! other, takes its defaults from the same values, and docs/scenario.md's
//! tables of them are generated. (A cell's `sch` table has keys by its
//! `kind`, described in docs/scenario.md's prose.)

use super::config::{default_bsc_queue, default_link_queue, RateChange, BASE_RATE_BPS, TABLE1_DELAY};
use crate::input::keys::{self, Key};

/// `rate_change`'s values, the default first.
pub(crate) const RATE_CHANGE: &[(&str, RateChange)] = &[("exact", RateChange::Exact), ("next_packet", RateChange::NextPacket)];
/// A mobile's BTS when `bts` is not given (1-based, as the paper's i).
pub(crate) const DEFAULT_BTS: u32 = 1;

pub(crate) const CELL: &[Key] = &[
    Key::required("name", "The cell."),
    Key::required("node", "The BSC node packets for its mobiles enter at."),
    Key::absent("bsc_rate", "38.4 kb/s × its mobiles", "The service rate of the shared buffer (Paliwal et al. Table I: m·n·38.4 kb/s)."),
    Key::value("bsc_queue", || keys::queue(&default_bsc_queue()), "The shared buffer; any queue table (Table I's RED as ns-2 ran it: `{kind = \"red\", limit = \"300pkt\", min_th = \"20pkt\", max_th = \"60pkt\", gentle = false, mean_pkt_size = \"1000B\", variant = \"ns2\"}`)."),
    Key::value("bts_delay", || keys::time(TABLE1_DELAY), "d^t, BSC to BTS (Table I)."),
    Key::value("radio_delay", || keys::time(TABLE1_DELAY), "d^m, BTS to mobile (Table I)."),
    Key::value("fch_rate", || keys::rate(BASE_RATE_BPS), "The fundamental channel every mobile always has (Rate Set 1)."),
    Key::value("rate_change", || format!("\"{}\"", RATE_CHANGE[0].0), "`\"exact\"`: a rate change acts in the middle of the packet in transmission, bit for bit; `\"next_packet\"`: from the next packet on, as ns-2's links (which the paper used)."),
    Key::value("sch", || "{kind = \"none\"}".into(), "How supplemental channels are allocated: an `sch` table, below."),
];

pub(crate) const MOBILE: &[Key] = &[
    Key::required("name", "The mobile: a node of its own (name it in flows)."),
    Key::required("cell", "Its cell."),
    Key::value("bts", || DEFAULT_BTS.to_string(), "Its BTS, numbered from 1 (the paper's i)."),
    Key::value("queue", || keys::queue(&default_link_queue()), "Its link buffer B^dl (Table I: no limit); any queue table."),
    Key::value("reverse_rate", || keys::rate(BASE_RATE_BPS), "The rate of its reverse link `MOBILE.up` (the reverse FCH)."),
    Key::value("reverse_queue", || keys::queue(&default_link_queue()), "The buffer of its reverse link `MOBILE.up`; any queue table."),
];

pub(crate) const TABLES: &[(&str, &[Key])] = &[("cell", CELL), ("mobile", MOBILE)];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::keys::testing::assert_defaults_taken;

    /// Every default shown is the one the parser takes (as for 1xEV-DO's).
    #[test]
    fn the_defaults_shown_are_the_defaults_taken() {
        let checked = assert_defaults_taken(TABLES, |table, _key, line| {
            let line = line.unwrap_or("");
            let (cell, mobile) = if table == "cell" { (line, "") } else { ("", line) };
            format!(
                "[simulation]\nduration = \"1s\"\n[[node]]\nname = \"bsc\"\n[[cell]]\nname = \"c\"\nnode = \"bsc\"\n{cell}\n[[mobile]]\nname = \"m\"\ncell = \"c\"\n{mobile}\n"
            )
        });
        assert_eq!(checked, 10);
    }
}
