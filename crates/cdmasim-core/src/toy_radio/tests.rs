use crate::engine::{RngStreams, Time, NS_PER_MS};
use crate::net::NodeId;
use crate::net::hop::BuildContext;
use crate::net::{Body, Packet};
use crate::network::{DropRecord, Endpoints, Network};
use crate::scenario;
use crate::sim::{self, RunOptions};

const SCENARIO: &str = r#"
[simulation]
duration = "20s"
sample_interval = "1s"
[[node]]
name = "server"
[[node]]
name = "bs"
[[link]]
name = "wire"
from = "server"
to = "bs"
rate = "100Mbps"
delay = "1ms"
[[toy_radio]]
name = "r1"
node = "bs"
delay = "40ms"
up_rate = "2Mbps"
[[toy_user]]
name = "u1"
radio = "r1"
[[toy_user]]
name = "u2"
radio = "r1"
[[flow]]
name = "voice"
from = "bs"
to = "u1"
kind = "cbr"
rate = "64kbps"
packet_size = "160B"
[[flow]]
name = "bulk"
from = "server"
to = "u2"
bytes = "200kB"
"#;

fn spec() -> scenario::ScenarioSpec {
    scenario::parse_str(SCENARIO, "toy.toml").expect("parses")
}

/// The users are nodes of their own with reverse links, the radio one hop
/// with a port per user; every datagram from the base station takes
/// exactly the radio's delay, TCP's smallest RTT from the server is the
/// wire and the radio both ways plus the handshake's transmissions, and
/// every packet is accounted for.
#[test]
fn a_scenario_of_a_toy_radio_runs() {
    let spec = spec();
    let names: Vec<&str> = spec.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["server", "bs", "u1", "u2"]);
    assert_eq!(spec.hops.len(), 5, "the wire both ways, two reverse links and the radio");
    assert_eq!(spec.sampled_series(), 4 + 1 + 2, "the links' queues, the radio, the two flows");
    let r = sim::run(&spec, RunOptions::default()).expect("runs");
    let voice = r.flows.iter().find(|f| f.name == "voice").unwrap();
    assert!(voice.packets_received > 900);
    assert_eq!((voice.owd_min_s, voice.owd_max_s), (Some(0.040), Some(0.040)));
    let bulk = r.flows.iter().find(|f| f.name == "bulk").unwrap();
    assert_eq!(bulk.bytes_delivered, 200_000);
    // The handshake's sample: the SYN down the wire and the radio, the
    // SYN-ACK up USER.up at 2 Mb/s and the wire, each 48 bytes (IPv4, TCP,
    // MSS and SACK-permitted options padded to a word).
    let syn_bits = 48.0 * 8.0;
    let rtt_min = bulk.rtt_min_s.unwrap();
    assert!((rtt_min - (0.082 + syn_bits / 1e8 + syn_bits / 2e6 + syn_bits / 1e8)).abs() < 1e-9, "{rtt_min}");
    let c = &r.conservation;
    assert_eq!((c.sent, c.dropped), (c.delivered + c.in_network, 0));
    assert!(r.series.iter().any(|s| s.metric == "queue_pkts" && s.subject == "r1" && s.value.iter().any(|&v| v > 0.0)));
    let links: Vec<&str> = r.hops.queues.iter().map(|q| q.link.as_str()).collect();
    assert_eq!(links, ["wire", "wire/rev", "u1.up", "u2.up"]);
}

/// Its own table: a row per user in `HopRows`, in the JSON summary under
/// the table's name, and in the schema Python builds its tables from,
/// which names the file the row type is defined in.
#[test]
fn its_table_reaches_the_results_and_the_schema() {
    let r = sim::run(&spec(), RunOptions::default()).expect("runs");
    let voice = r.flows.iter().find(|f| f.name == "voice").unwrap();
    let rows: Vec<(&str, &str, f64)> = r.hops.toy_users.iter().map(|u| (u.name.as_str(), u.radio.as_str(), u.delay_s)).collect();
    assert_eq!(rows, [("u1", "r1", 0.040), ("u2", "r1", 0.040)]);
    assert_eq!(r.hops.toy_users[0].packets_delivered, voice.packets_received);
    assert!(r.hops.toy_users[1].throughput_bps >= 200_000.0 * 8.0 / 20.0);
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["toy_users"].as_array().map(|a| a.len()), Some(2));
    assert_eq!(json["toy_users"][1]["name"], "u2");
    let schema = serde_json::to_value(sim::schema()).unwrap();
    let table = schema.as_array().unwrap().iter().find(|t| t["name"] == "toy_users").expect("in the schema");
    assert_eq!(table["source"], "crates/cdmasim-core/src/toy_radio/rows.rs");
    assert_eq!(table["doc"], "one row per user of a toy radio (a test-only kind)");
    let columns: Vec<(&str, &str)> =
        table["columns"].as_array().unwrap().iter().map(|c| (c[0].as_str().unwrap(), c[1].as_str().unwrap())).collect();
    assert_eq!(
        columns,
        [("name", "str"), ("radio", "str"), ("packets_delivered", "int"), ("throughput_bps", "float"), ("delay_s", "float")]
    );
    assert_eq!(table["column_docs"][0], " The user (`[[toy_user]]`).\n");
}

/// What the emulator's relay does with a scenario, without its devices:
/// the users it attaches are the radio's terminals, served from its base
/// station (not the first node and every other, as without a radio hop),
/// and a `Network` driven by a clock instead of an event queue (`run_due`,
/// as the relay drives it, then `timers_at_end` and `finish`) carries a
/// packet to each user after the delay and one back over the user's
/// reverse link.
#[test]
fn the_emulator_serves_its_users() {
    let spec = spec();
    let (base, users) = crate::emu::relay::attachment(&spec).expect("attaches");
    assert_eq!((base, users), (NodeId(1), vec![("u1".to_string(), NodeId(2)), ("u2".to_string(), NodeId(3))]));

    #[derive(Default)]
    struct Edge {
        arrived: Vec<(Time, NodeId, NodeId)>,
    }
    impl Endpoints for Edge {
        fn arrive(&mut self, _net: &mut Network, now: Time, pkt: &Packet, _header: &Body) {
            self.arrived.push((now, pkt.src, pkt.dst));
        }
        fn dropped(&mut self, _net: &mut Network, d: DropRecord) {
            panic!("nothing drops here: {d:?}");
        }
        fn wake(&mut self, _h: u32, _at: Time) {}
        fn checks_checksums(&self) -> bool {
            false
        }
    }
    let rng = RngStreams::new(spec.seed);
    let cx = BuildContext { rng: &rng, duration: spec.duration, nodes: spec.nodes.len() };
    let mut net = Network::new(&spec.hops, spec.routes().expect("a small table"), &cx).expect("builds");
    let mut edge = Edge::default();
    for (uid, (src, dst)) in [(1, 2), (1, 3), (2, 1)].into_iter().enumerate() {
        let (src, dst) = (NodeId(src), NodeId(dst));
        let (pkt, body) = Packet::udp(uid as u64, 0, src, dst, Time::ZERO, uid as u64, 100);
        net.send(Time::ZERO, src, pkt, body, &mut edge);
    }
    let mut now = 0;
    while let Some(d) = net.next_deadline() {
        now = d.0;
        net.run_due(Time(now), &mut edge, &mut |_| {});
    }
    let up_ns = 40 * NS_PER_MS + Time((128 * 8 * 1_000_000_000u64).div_ceil(2_000_000));
    let mut arrived = edge.arrived;
    arrived.sort();
    assert_eq!(arrived, [(40 * NS_PER_MS, NodeId(1), NodeId(2)), (40 * NS_PER_MS, NodeId(1), NodeId(3)), (up_ns, NodeId(2), NodeId(1))]);
    assert_eq!(Time(now), up_ns);
    net.timers_at_end(Time(now));
    net.finish(Time(now));
    let rows = net.report(Time(now));
    assert_eq!(rows.toy_users.iter().map(|u| u.packets_delivered).collect::<Vec<_>>(), [1, 1]);
}

#[test]
fn a_toy_user_names_its_radio() {
    let bad = SCENARIO.replace("name = \"u2\"\nradio = \"r1\"", "name = \"u2\"\nradio = \"r9\"");
    let e = scenario::parse_str(&bad, "toy.toml").unwrap_err();
    assert_eq!((e.line, e.field.as_str(), e.message.as_str()), (25, "toy_user[1].radio", "no toy radio named 'r9'"));
}

/// Its keys are described once, and the scenario reference would show
/// them from the same lists the parser reads.
#[test]
fn its_keys_are_described() {
    let documented = crate::scenario::documented_keys();
    let toy: Vec<(&str, Vec<&str>)> = documented
        .iter()
        .filter(|t| t.name.starts_with("toy_"))
        .map(|t| (t.name, t.keys.iter().map(|k| k.key).collect()))
        .collect();
    assert_eq!(toy, [("toy_radio", vec!["name", "node", "delay", "up_rate"]), ("toy_user", vec!["name", "radio"])]);
    let up = &documented.iter().find(|t| t.name == "toy_radio").unwrap().keys[3];
    assert_eq!((up.default.as_str(), up.is_value), ("\"1Mbps\"", true));
    let bad = SCENARIO.replace("up_rate = \"2Mbps\"", "up_rate = \"2Mbps\"\nuprate = \"1Mbps\"");
    let e = scenario::parse_str(&bad, "toy.toml").unwrap_err();
    assert_eq!(e.message, "unknown key 'uprate' (expected one of: name, node, delay, up_rate)");
}

