//! The keys of the `[[radio_link]]` table and of its `rlp` table, each
//! described once (`input::keys`): the parser (`rlp::tables`) accepts
//! these and no other, takes its defaults from the same values, and
//! docs/scenario.md's tables of them are generated.

use super::link::{Control, RlpConfig};
use crate::engine::Time;
use crate::input::keys::{self, Described, Key};

/// D, one way, when `delay` is not given (Dziong et al., Table 1).
pub(crate) const DEFAULT_DELAY: Time = Time::from_millis(100);
/// The frame error rate when neither `fer` nor a direction's is given.
pub(crate) const DEFAULT_FER: f64 = 0.0;
/// `fading`'s values, the default first.
pub(crate) const FADING: &[&str] = &["iid", "rayleigh"];
/// The mobile's speed and the carrier under Rayleigh fading when not given.
pub(crate) const DEFAULT_SPEED_KMH: f64 = 3.0;
pub(crate) const DEFAULT_CARRIER_MHZ: f64 = 1900.0;
/// `rlp.control`'s values.
pub(crate) const CONTROL: &[(&str, Control)] = &[("frames", Control::Frames), ("piggyback", Control::Piggyback)];

pub(crate) const RADIO_LINK: &[Key] = &[
    Key::required("name", "The link; drops are reported at `NAME.down` / `NAME.up`."),
    Key::required("bsc", "Its network-side node."),
    Key::required("mobile", "Its mobile's node (not `bsc`)."),
    Key::required("rate_down", "The forward rate (a MAC may change it); a frame carries rate × 20 ms / 8 bytes, so at least 400 bit/s."),
    Key::absent("rate_up", "`rate_down`'s", "The reverse rate."),
    Key::value("delay", || keys::time(DEFAULT_DELAY), "D: from a frame's slot to its arrival, at least one 20 ms frame."),
    Key::value("fer", || DEFAULT_FER.to_string(), "The frame error rate, both ways."),
    Key::absent("fer_down", "`fer`'s", "The forward frame error rate."),
    Key::absent("fer_up", "`fer`'s", "The reverse frame error rate."),
    Key::value("fading", || format!("\"{}\"", FADING[0]), "`\"iid\"`: i.i.d. frame errors; `\"rayleigh\"`: single-path Rayleigh fading, Clarke's sum of sinusoids at Doppler f_d = v·f_c/c (5.3 Hz at 3 km/h, 1.9 GHz), a frame lost when the power at its middle is below −ln(1 − FER) times the mean (so the mean FER is exact; fades last about a frame at 3 km/h)."),
    Key::value("speed_kmh", || format!("{DEFAULT_SPEED_KMH:?}"), "The mobile's speed, km/h, > 0 (with `fading = \"rayleigh\"` only)."),
    Key::value("carrier_mhz", || format!("{DEFAULT_CARRIER_MHZ:?}"), "The carrier, MHz, > 0 (with `fading = \"rayleigh\"` only)."),
    Key::value("rlp", || {
        let d = RlpConfig::default();
        format!("{{naks = {}, guard = {}, control = {}}}", naks(&d.naks), keys::time(d.guard), control(d.control))
    }, "RLP3 (Dziong et al., Table 1): an `rlp` table, below; `naks = [2, 3]` is their §3.3 scheme, `naks = []` turns RLP off."),
    Key::absent("queue", "none", "The network side's per-mobile buffer in front of the forward RLP sender, any queue table (Jung et al. §III: 120 packets at their PDSN). Packets wait in it whole, in its discipline (DropTail or RED), and RLP takes the next one when less than a frame of new data is left, so a burst longer than the buffer is dropped here (reason `overflow`, at `NAME.down`). Its row in the `queues` table and its `queue_pkts` series carry the link's name. Without it RLP's new-data buffer takes every packet (Dziong et al.'s model)."),
];

pub(crate) const RLP: &[Key] = &[
    Key::value("naks", || naks(&RlpConfig::default().naks), "NAKs per round (1 to 8 each), at most 8 rounds; `[]`: no retransmission."),
    Key::value("guard", || keys::time(RlpConfig::default().guard), "G, added to each round's 2D."),
    Key::value("control", || control(RlpConfig::default().control), "Where the other direction's control goes. `\"frames\"` (Dziong et al. §5.1.4): a NAK is a control frame of 24 B (the 1X RLP frame: the whole slot at 9.6 kb/s, a quarter of it at 38.4 kb/s) ahead of data (control, then retransmissions, then new data), and V(N) rides only in room the data leaves, so a run of full frames (an HTTP request on the reverse link) delays it and the forward retransmission buffer grows past 2D of data; a 40-byte ACK in a 96-byte frame leaves room. `\"piggyback\"`: V(N) and one NAK ride free in every frame (an idealisation)."),
];

pub(crate) const TABLES: &[Described] = &[Described::new("radio_link", "`[[radio_link]]`", RADIO_LINK), Described::new("radio_link.rlp", "`rlp` of `[[radio_link]]`", RLP)];

fn naks(n: &[u32]) -> String {
    format!("[{}]", n.iter().map(|k| k.to_string()).collect::<Vec<_>>().join(", "))
}

fn control(c: Control) -> String {
    let name = CONTROL.iter().find(|(_, x)| *x == c).expect("every control has a name").0;
    format!("\"{name}\"")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::keys::testing::assert_defaults_taken;

    /// Every default shown is the one the parser takes (as for 1xEV-DO's).
    #[test]
    fn the_defaults_shown_are_the_defaults_taken() {
        let checked = assert_defaults_taken(TABLES, |table, key, line| {
            let line = line.unwrap_or("");
            let link = match table {
                // Rayleigh fading's settings set nothing without it.
                "radio_link" if key == "speed_kmh" || key == "carrier_mhz" => format!("fading = \"rayleigh\"\n{line}"),
                "radio_link" => line.to_string(),
                _ => format!("rlp = {{{line}}}"),
            };
            format!(
                "[simulation]\nduration = \"1s\"\n[[node]]\nname = \"b\"\n[[node]]\nname = \"m\"\n[[radio_link]]\nname = \"air\"\nbsc = \"b\"\nmobile = \"m\"\nrate_down = \"38.4kbps\"\n{link}\n"
            )
        });
        assert_eq!(checked, 9);
    }
}
