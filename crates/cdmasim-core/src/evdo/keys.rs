//! The keys of the `[[sector]]` and `[[user]]` tables and of the tables
//! inside them, each described once (`input::keys`): the parser
//! (`evdo::tables`) accepts these and no other, takes its defaults from the
//! same values, and docs/scenario.md's tables of them are generated.

use super::air::AirOverhead;
use super::config::{default_user_queue, HandoffPf, HandoffQueue};
use super::reverse::{RabConfig, ReverseConfig, RATE_BPS};
use super::rlp::RlpConfig;
use crate::engine::{Time, NS_PER_SEC};
use crate::input::drc::REVERSE_RATE_BPS;
use crate::input::keys::{self, Described, Key};
use crate::sched::pf::PfConfig;

/// The forward-link scheduler when `scheduler` is not given.
pub(crate) const DEFAULT_SCHEDULER: &str = "pf";
/// C.S0024's four-slot interlace.
pub(crate) const DEFAULT_INTERLACE: u8 = 4;
/// One-way delay between the end of a physical-layer packet and the user,
/// and of the reverse links, when `delay` is not given.
pub(crate) const DEFAULT_AIR_DELAY: Time = Time::from_millis(10);
/// Background users a sector may hold: each costs the scheduler a look
/// every slot.
pub(crate) const MAX_BACKGROUND_USERS: u32 = 1000;
/// A background user's busy period's mean when `busy_period` is not given.
pub(crate) const DEFAULT_BUSY_PERIOD: Time = NS_PER_SEC;

/// `handoff_pf`'s values, the default first.
pub(crate) const HANDOFF_PF: &[(&str, HandoffPf)] = &[("reset", HandoffPf::Reset), ("keep", HandoffPf::Keep)];
/// `handoff_queue`'s values, the default first.
pub(crate) const HANDOFF_QUEUE: &[(&str, HandoffQueue)] = &[("forward", HandoffQueue::Forward), ("drop", HandoffQueue::Drop)];
/// Residual loss below PPP, each way, when not given.
pub(crate) const DEFAULT_LOSS: f64 = 0.0;
/// Whether background users upload when `upload` is not given.
pub(crate) const DEFAULT_UPLOAD: bool = false;
/// Background users' channel when their `drc` is not given.
pub(crate) const BACKGROUND_PRESET: &str = "stationary";

/// The first of a key's values, its default, as the file writes it.
fn first<T>(values: &[(&str, T)]) -> String {
    format!("\"{}\"", values[0].0)
}

/// Probabilities, exactly (they read back as the same numbers).
fn probabilities(p: [f64; 4]) -> String {
    format!("[{}]", p.map(|x| format!("{x:?}")).join(", "))
}

pub(crate) const SECTOR: &[Key] = &[
    Key::required("name", "The sector."),
    Key::required("node", "The base-station node packets for its users enter at. The sectors of one node are one radio access network, within which users can be handed off."),
    Key::value("scheduler", || format!("\"{DEFAULT_SCHEDULER}\""), "The forward link's scheduler: `\"pf\"` (Proportional Fair, Liu et al. eqs. 5-6), `\"rr\"` (Round Robin) or `\"maxci\"` (the best channel)."),
    Key::value("alpha", || PfConfig::default().alpha.to_string(), "The PF averaging constant, in (0, 1) (with `scheduler = \"pf\"` only)."),
    Key::value("interlace", || DEFAULT_INTERLACE.to_string(), "4: C.S0024's four-slot interlace (a multi-slot packet takes slots n, n+4, ...); 1: consecutive slots; 0: every slot carries its own DRC's rate (the per-slot model of Liu et al.'s Fig. 6 trace study)."),
    Key::value("delay", || keys::time(DEFAULT_AIR_DELAY), "One-way delay from the end of a physical-layer packet to the user, and of the reverse links (equal for the sectors of one node)."),
    Key::value("overhead", || "\"default\"".into(), "The air's overheads: `\"default\"` (the `overhead` table's defaults below), `\"none\"`, or an `overhead` table (sources in crates/cdmasim-core/src/evdo/air.rs)."),
    Key::value("handoff_pf", || first(HANDOFF_PF), "What this sector does with the PF average of a user handed to it: serve it as new (`\"reset\"`, as Liu et al. §6 say real sectors do) or take over the old sector's (`\"keep\"`)."),
    Key::value("handoff_queue", || first(HANDOFF_QUEUE), "The user's queued data follows it (`\"forward\"`) or is dropped with reason `handoff` (`\"drop\"`)."),
    Key::value("rab", || {
        let d = RabConfig::default();
        format!("{{threshold = {:?}, pilot = {:?}, other_cell = {:?}}}", d.threshold_db, d.pilot_db, d.other_cell)
    }, "How the sector's reverse-link load sets its Reverse Activity Bit, when a user of its node has `reverse_mac` (docs/evdo_reverse.md): a `rab` table, below."),
    Key::absent("background", "none", "Users loading the sector whose packets are not simulated: a `background` table, below."),
];

pub(crate) const OVERHEAD: &[Key] = &[
    Key::value("ppp_bytes", || AirOverhead::default().ppp_bytes.to_string(), "PPP/HDLC framing bytes per IP packet."),
    Key::value("escape_every", || AirOverhead::default().escape_every.to_string(), "One byte of HDLC stuffing per this many bytes."),
    Key::value("payload_bits_per_1024", || AirOverhead::default().payload_bits_per_1024.to_string(), "Bits of PPP octets per 1024-bit physical-layer block (the rest: RLP, stream and MAC headers), 1 to 1024."),
    Key::value("control_slots", || AirOverhead::default().control_slots.to_string(), "Control-channel slots per 256 (below 64)."),
];

pub(crate) const RAB: &[Key] = &[
    Key::value("threshold", || format!("{:?}", RabConfig::default().threshold_db), "The sector sets the RAB for the next 26.67 ms frame when the rise over thermal of the last frame's terminals passes this many dB (0.1 to 30; an operator's setting, unsourced)."),
    Key::value("pilot", || format!("{:?}", RabConfig::default().pilot_db), "Each terminal is received at this pilot Ec/Nt, dB (-40 to 0), times its frame's power over the pilot (an operator's setting, unsourced)."),
    Key::value("other_cell", || format!("{:?}", RabConfig::default().other_cell), "The other sectors add this many times this sector's interference (0 to 10; 0.55 is Viterbi et al.'s other-cell ratio)."),
];

pub(crate) const BACKGROUND: &[Key] = &[
    Key::required("users", "N users loading the sector (1 to 1,000), named `SECTOR.bg1`.., each on its own draw of the channel (seeded after the `[[user]]`s). The scheduler serves them by their channels like any backlogged user, but no packet of theirs is simulated: a measured user's throughput and delay come from sharing the slots. They are rows of the `users` table (throughput: the PPP octets they were given), not of `queues`. tests/test_background_load.py: two users busy half the time in 200 ms periods load 0.754 of the slots (closed form 0.75)."),
    Key::value("drc", || format!("{{preset = \"{BACKGROUND_PRESET}\"}}"), "Their channel, as a user's `drc`."),
    Key::absent("busy", "none (full buffers, always backlogged, as with 1)", "F in (0, 1]: each alternates busy and idle periods, exponentially distributed with means T (`busy_period`) and T·(1 − F)/F, independently of the others and starting from the stationary state: it has data a share F of the time, as a web user whose page downloads alternate with reading, or as a sector's measured share of busy slots."),
    Key::value("busy_period", || keys::time(DEFAULT_BUSY_PERIOD), "T, the mean busy period (at least a slot, 1.667 ms); with `busy` below 1 only."),
    Key::value("upload", || DEFAULT_UPLOAD.to_string(), "When a user of the node has `reverse_mac`, background users' reverse links run the same MAC carrying their downloads' ACKs; with `upload = true` they also upload all the time (a full buffer on the reverse link too), loading the sector's reverse link and its RAB."),
];

pub(crate) const USER: &[Key] = &[
    Key::required("name", "The user: a node of its own (name it in flows), with a queue at the base station and a reverse link `USER.up` to the sector's node."),
    Key::required("sector", "The sector serving it at the start."),
    Key::required("drc", "Its channel: `{preset = ..., seed = N}` (default seed: one of its own, drawn from the scenario's seed and the user's position, so co-located users differ), `{trace = ...}`, `{constant = RATE}`, as for DRC links."),
    Key::value("queue", || keys::queue(&default_user_queue()), "Its queue at the base station (Liu et al. §4); any queue table."),
    Key::value("reverse_rate", || keys::rate(REVERSE_RATE_BPS), "The rate of its reverse link `USER.up` (not with `reverse_mac`)."),
    Key::value("reverse_queue", || keys::queue(&default_user_queue()), "The buffer of its reverse link `USER.up`; any queue table."),
    Key::absent("handoff", "none", "When the user is handed off: a list of `{at = \"20s\", to = \"s2\"}`, or a `handoff` table (`{every = \"25s\"}`, `{channel = true}`), below."),
    Key::absent("ppp", "none (framing only, as `overhead` counts it)", "`\"none\"`, `\"vj\"` or `\"rohc\"`: the user's PPP link (both ways: the air and `USER.up`) compresses TCP/IP headers (docs/ppp.md); the air carries the compressed packets."),
    Key::value("loss", || DEFAULT_LOSS.to_string(), "IP packets lost below PPP on the air after the air link's own error recovery (residual loss, per packet); under `ppp = \"vj\"` each can cost a burst of checksum failures."),
    Key::value("reverse_loss", || DEFAULT_LOSS.to_string(), "The same on `USER.up` (not with `reverse_mac`)."),
    Key::absent("rlp", "none (no erasures)", "The forward link's RLP (docs/ppp.md, \"RLP below PPP\"): an `rlp` table, below. Counted in the users table: `physical_packets`, `erased_packets`, `rlp_retransmitted_bytes`, `rlp_aborts`, `rlp_lost_packets`."),
    Key::value("uplink_capture", || first(crate::input::link::CAPTURE), "`\"entry\"`: a capture sees the user's uplink packets as the user sends them, before `USER.up`'s buffer (where tcpdump on a laptop sees them, the modem's buffer below it); `\"wire\"`: as they start on the reverse link."),
    Key::absent("reverse_mac", "none (a constant-rate link `USER.up`)", "The reverse link goes through the radio access network with the 1xEV-DO Rev. 0 reverse traffic channel MAC (docs/evdo_reverse.md): a `reverse_mac` table, below (`{}` for all defaults). Its buffer is `reverse_queue`, its drops and queue row are still `USER.up`; PPP (`ppp`) runs over it. Background users of the node then send their downloads' ACKs (one 40-byte ACK per two 1500-byte segments) through the same MAC, loading the sector. Columns `reverse_*` in the users table, `rab_busy` in sectors; series `queue_pkts` (`USER.up`) and `reverse_rate_bps`. See `examples/evdo_reverse_link.toml`."),
];

pub(crate) const RLP: &[Key] = &[
    Key::value("frame_error", || RlpConfig::DEFAULT_FRAME_ERROR.to_string(), "Each physical-layer packet is erased with this probability (the DRC's 1 % target frame error rate), below 1."),
    Key::value("nak_delay", || keys::time(RlpConfig::DEFAULT_NAK_DELAY), "RLP NAKs the hole and resends its octets once, this much later, ahead of new data; if that copy is erased too the IP packets with octets in it are lost below PPP. Packets are handed up in order (a hole holds the ones behind it)."),
];

pub(crate) const REVERSE_MAC: &[Key] = &[
    Key::value("rate_limit", || keys::rate(RATE_BPS[ReverseConfig::default().rate_limit as usize]), "Every 16-slot frame (26.67 ms) the terminal picks 9.6, 19.2, 38.4, 76.8 or 153.6 kb/s: one step up or down from its last (`up`, `down`), from 9.6 kb/s after a frame with nothing to send; never above this (one of them), nor above what its transmit power allows (`headroom`), nor above what its queued data needs."),
    Key::value("up", || probabilities(ReverseConfig::DEFAULT_UP), "The probabilities of one step up from each of the four lower rates while its sector's RAB is clear (C.S0024's defaults: 48/255, 16/255, 8/255, 8/255)."),
    Key::value("down", || probabilities(ReverseConfig::DEFAULT_DOWN), "The probabilities of one step down from each of the four higher rates while the RAB is set (C.S0024's defaults: 16/255, 16/255, 32/255, 1)."),
    Key::value("headroom", || format!("{:?}", ReverseConfig::DEFAULT_HEADROOM_DB), "dB of transmit power over the pilot at a forward SINR of 0 dB (within ±60), following the forward DRC's SINR dB for dB; `\"none\"`: no cap."),
    Key::value("frame_error", || ReverseConfig::DEFAULT_FRAME_ERROR.to_string(), "Frames are erased with this probability (below 1) and resent once by the reverse RLP `nak_delay` later; a second erasure loses the IP packets in them."),
    Key::value("nak_delay", || keys::time(ReverseConfig::DEFAULT_NAK_DELAY), "The reverse RLP's resend delay."),
];

/// A hand-off of a list.
pub(crate) const HANDOFF_AT: &[Key] = &[
    Key::required("at", "When; strictly after the one before."),
    Key::required("to", "The sector the user is handed to."),
];

/// A `handoff` table: hand-offs every so often, or when the channel reports one.
pub(crate) const HANDOFF: &[Key] = &[
    Key::absent("every", "(one of `every` and `channel` is required)", "The time between hand-offs, > 0: a time, or a pair `[min, max]` (uniform)."),
    Key::absent("channel", "(see `every`)", "`true`: when the channel reports one (the `mobile` preset crosses a cell edge every 20-30 s)."),
    Key::absent("sectors", "every sector of the node, in order", "The sectors handed to in turn (a single one: a hand-off into an equally loaded sector)."),
];

/// The tables whose keys these are, as the reference names them.
pub(crate) const TABLES: &[Described] = &[
    Described::new("sector", "`[[sector]]`", SECTOR),
    Described::new("sector.overhead", "`overhead` of `[[sector]]`", OVERHEAD),
    Described::new("sector.rab", "`rab` of `[[sector]]`", RAB),
    Described::new("sector.background", "`background` of `[[sector]]`", BACKGROUND),
    Described::new("user", "`[[user]]`", USER),
    Described::new("user.rlp", "`rlp` of `[[user]]`", RLP),
    Described::new("user.reverse_mac", "`reverse_mac` of `[[user]]`", REVERSE_MAC),
    Described::new("user.handoff", "a `handoff` table of `[[user]]`", HANDOFF),
    Described::new("user.handoff.at", "a hand-off of a `handoff` list", HANDOFF_AT),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::keys::testing::assert_defaults_taken;

    const BASE: &str = r#"
[simulation]
duration = "1s"
[[node]]
name = "bs"
[[sector]]
name = "s1"
node = "bs"
SECTOR
[[user]]
name = "u1"
sector = "s1"
drc = { constant = "1228.8kbps" }
USER
"#;

    /// Every default the reference shows is the one the parser takes:
    /// writing it gives the spec that leaving it out gives. A table inside
    /// one is written with only that key (and what it requires).
    #[test]
    fn the_defaults_shown_are_the_defaults_taken() {
        let checked = assert_defaults_taken(TABLES, |table, _key, line| {
            let inner = if table == "sector.background" {
                // busy below 1: otherwise busy_period sets nothing.
                format!("background = {{users = 2, busy = 0.5{}}}", line.map(|l| format!(", {l}")).unwrap_or_default())
            } else {
                format!("{} = {{{}}}", table.split('.').nth(1).unwrap_or(""), line.unwrap_or(""))
            };
            let line = line.unwrap_or("").to_string();
            let (sector, user) = match table {
                "sector" => (line, String::new()),
                "user" => (String::new(), line),
                "user.rlp" | "user.reverse_mac" => (String::new(), inner),
                _ => (inner, String::new()),
            };
            BASE.replace("SECTOR", &sector).replace("USER", &user)
        });
        assert!(checked >= 25, "{checked} defaults checked");
    }
}
