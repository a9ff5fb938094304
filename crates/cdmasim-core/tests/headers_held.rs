//! The network keeps a packet's header from its send to its delivery or
//! drop and no longer (docs/packet.md): after every event, the headers
//! held equal the packets inside the hops. A header kept past its packet
//! would grow the store with simulated time; one given back early would
//! be read after its slot is reused (which a debug build's generation
//! check also catches). Every example scenario the simulator runs (its
//! first minute), and two made to drop packets in many of the ways a hop
//! can, run event by event with the check.

use cdmasim_core::engine::{Time, NS_PER_SEC};
use cdmasim_core::scenario::parse_str;
use cdmasim_core::sim::build::build;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Run `text` for at most `limit` of simulated time, checking after every
/// event. Returns (events, the drops' reasons, most headers held at once).
fn run_checked(name: &str, text: &str, limit: Time) -> (u64, BTreeMap<&'static str, u64>, u64) {
    let spec = parse_str(text, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut w = build(&spec).unwrap_or_else(|e| panic!("{name}: {e}"));
    let end = w.hosts.horizon.min(limit);
    let (mut events, mut most) = (0u64, 0u64);
    while let Some(t) = w.hosts.q.peek_time() {
        if t > end {
            break;
        }
        let (now, ev) = w.hosts.q.pop().expect("peeked");
        w.handle(now, ev);
        events += 1;
        let (held, inside) = (w.net.headers_held(), w.net.packets_inside());
        assert_eq!(held, inside, "{name}: headers held against packets inside, after event {events} at {now:?}");
        most = most.max(held);
    }
    let mut reasons = BTreeMap::new();
    for d in w.hosts.drop_log.records() {
        *reasons.entry(d.reason.as_str()).or_insert(0) += 1;
    }
    (events, reasons, most)
}

#[test]
fn every_example_holds_a_header_for_each_packet_inside_and_no_other() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../python/cdmasim/examples");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir).expect("the examples").map(|e| e.expect("entry").path()).collect();
    paths.sort();
    let mut ran = 0;
    for p in paths {
        let name = p.file_name().expect("a name").to_string_lossy().into_owned();
        // Sweeps are not scenarios; the emulator's scenarios carry no flows
        // (its traffic is real).
        if !name.ends_with(".toml") || name.starts_with("sweep_") || name.starts_with("emulate_") {
            continue;
        }
        let text = std::fs::read_to_string(&p).expect("readable");
        let (events, drops, most) = run_checked(&name, &text, 60 * NS_PER_SEC);
        println!("{name}: {events} events, drops {drops:?}, at most {most} headers held");
        assert!(events > 500, "{name}: too short a run to tell anything");
        ran += 1;
    }
    assert!(ran >= 8, "only {ran} examples found in {}", dir.display());
}

/// An EV-DO sector pair whose users lose frames to RLP and PPP, hand off
/// every few seconds with their queues dropped, and have small queues that
/// overflow: drops by overflow, random loss, RLP, decompression (VJ with
/// losses), checksum failures and hand-offs, uploads and downloads.
const LOSSY_SECTORS: &str = r#"
[simulation]
duration = "30s"
seed = 11

[[node]]
name = "host"
[[node]]
name = "bts"

[[link]]
name = "backhaul"
from = "host"
to = "bts"
rate = "50Mbps"
delay = "15ms"
queue = { kind = "droptail", limit = "500pkt" }

[[sector]]
name = "east"
node = "bts"
handoff_queue = "drop"

[[sector]]
name = "west"
node = "bts"
handoff_queue = "drop"

[[user]]
name = "ann"
sector = "east"
drc = { preset = "mobile" }
ppp = "vj"
loss = 0.02
reverse_loss = 0.02
rlp = { frame_error = 0.15 }
queue = { kind = "droptail", limit = "8pkt" }
handoff = { every = ["1s", "2s"] }

[[user]]
name = "bob"
sector = "west"
drc = { preset = "stationary" }
ppp = "rohc"
loss = 0.03
queue = { kind = "droptail", limit = "5pkt" }
handoff = { every = ["0.5s", "1.5s"] }

[[flow]]
name = "down-ann"
from = "host"
to = "ann"
tcp = { cc = "reno", sack = true, timestamps = false }

[[flow]]
name = "up-ann"
from = "ann"
to = "host"
tcp = { cc = "cubic", sack = false, timestamps = false }

[[flow]]
name = "down-bob"
from = "host"
to = "bob"
tcp = { cc = "newreno", sack = true, timestamps = true }
"#;

/// A PPP path with VJ both ways, loss below PPP, a queue that overflows
/// and a datagram stream beside the TCP flows.
const LOSSY_PPP_PATH: &str = r#"
[simulation]
duration = "30s"
seed = 4

[[node]]
name = "far"
[[node]]
name = "gw"
[[node]]
name = "near"

[[link]]
name = "core"
from = "far"
to = "gw"
rate = "20Mbps"
delay = "10ms"

[[link]]
name = "access"
from = "gw"
to = "near"
rate = "768kbps"
delay = "40ms"
queue = { kind = "droptail", limit = "6pkt" }
ppp = "vj"
loss = 0.02
reverse_loss = 0.01

[[flow]]
name = "get"
from = "far"
to = "near"
tcp = { cc = "reno", sack = false, timestamps = false }

[[flow]]
name = "put"
from = "near"
to = "far"
tcp = { cc = "cubic", sack = true, timestamps = true }

[[flow]]
name = "voice"
from = "far"
to = "near"
kind = "cbr"
packet_size = "160B"
rate = "64kbps"
"#;

/// An RLP3 air link in deep fades with a single NAK round: RLP gives up
/// on frames, and the IP packets they carried are dropped inside the hop.
const RLP_GIVING_UP: &str = r#"
[simulation]
duration = "40s"
seed = 8

[[node]]
name = "pdsn"
[[node]]
name = "phone"

[[radio_link]]
name = "air"
bsc = "pdsn"
mobile = "phone"
rate_down = "76.8kbps"
rate_up = "19.2kbps"
delay = "80ms"
fer = 0.2
fading = "rayleigh"
rlp = { naks = [1] }

[[flow]]
name = "fetch"
from = "pdsn"
to = "phone"
tcp = { cc = "reno", sack = true }

[[flow]]
name = "send"
from = "phone"
to = "pdsn"
tcp = { cc = "newreno", sack = false }
"#;

#[test]
fn packets_dropped_every_way_give_their_headers_back() {
    let mut ways = BTreeMap::new();
    for (name, text) in [("lossy_sectors", LOSSY_SECTORS), ("lossy_ppp_path", LOSSY_PPP_PATH), ("rlp_giving_up", RLP_GIVING_UP)] {
        let (events, drops, most) = run_checked(name, text, Time::MAX);
        println!("{name}: {events} events, drops {drops:?}, at most {most} headers held");
        assert!(drops.values().sum::<u64>() >= 20, "{name}: too few drops: {drops:?}");
        ways.extend(drops);
    }
    // A queue's overflow, loss below PPP, a VJ header rebuilt wrong (the
    // checksum at the destination), a hand-off's dropped queue, RLP giving up.
    for way in ["overflow", "random_loss", "checksum", "handoff", "rlp_abort"] {
        assert!(ways.contains_key(way), "no packet left by {way}: {ways:?}");
    }
}
