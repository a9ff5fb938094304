//! Parser tests: the shipped examples, the dumbbell expansion, and that
//! errors land on the right line and field.

use crate::engine::Time;
use super::*;
use crate::net::link::RateChanges;
use crate::engine::{RngStreams, NS_PER_MS, NS_PER_SEC};

const DUMBBELL: &str = include_str!("../../../../examples/dumbbell.toml");
const GENERIC: &str = include_str!("../../../../examples/generic.toml");
const CDMA2000: &str = include_str!("../../../../examples/cdma2000_switch.toml");

fn err(text: &str) -> ScenarioError {
    parse_str(text, "t.toml").expect_err("scenario should be rejected")
}

fn link<'s>(s: &'s ScenarioSpec, name: &str) -> &'s LinkSpec {
    s.links().into_iter().find(|l| l.name == name).unwrap_or_else(|| panic!("no link {name}"))
}

#[test]
fn dumbbell_expands_to_the_documented_topology() {
    let s = parse_str(DUMBBELL, "dumbbell.toml").unwrap();
    assert_eq!(s.duration, 60 * NS_PER_SEC);
    assert_eq!(s.sample_interval, Some(100 * NS_PER_MS));
    // s0..s9, r1, r2, d0..d9.
    assert_eq!(s.nodes.len(), 22);
    // 10 + 10 access links and the bottleneck, each duplex.
    assert_eq!(s.links().len(), 42);
    let b = link(&s, "r1-r2");
    assert_eq!((b.rate_bps, b.delay), (10_000_000, 20 * NS_PER_MS));
    assert!(matches!(b.queue, QueueSpec::DropTail { limit: QueueLimit::Packets(100) }));
    let back = link(&s, "r1-r2/rev");
    assert_eq!((s.nodes[back.from.index()].name.as_str(), s.nodes[back.to.index()].name.as_str()), ("r2", "r1"));
    assert!(matches!(back.queue, QueueSpec::DropTail { limit: QueueLimit::Packets(100) }));
    let a = link(&s, "s3-r1");
    assert_eq!((a.rate_bps, a.delay), (100_000_000, NS_PER_MS));
    assert!(matches!(a.queue, QueueSpec::DropTail { limit: QueueLimit::Packets(1000) }));
    assert_eq!(s.flows.len(), 10);
    let f = &s.flows[7];
    assert_eq!((f.name.as_str(), s.nodes[f.from.index()].name.as_str(), s.nodes[f.to.index()].name.as_str()), ("flow7", "s7", "d7"));
    // i × 10 ms plus up to 10 ms of start jitter (the example's), drawn
    // when the run is built.
    assert_eq!((f.start, f.start_jitter), (70 * NS_PER_MS, 10 * NS_PER_MS));
    let start = f.start_in(&RngStreams::new(s.seed));
    assert!((70 * NS_PER_MS..80 * NS_PER_MS).contains(&start), "{start:?}");
    match &f.app {
        AppSpec::Bulk { bytes, tcp } => {
            assert_eq!(*bytes, None);
            assert_eq!((tcp.cc, tcp.mss), (CcAlgo::NewReno, 1460));
        }
        other => panic!("unexpected app {other:?}"),
    }
}

#[test]
fn generic_example_red_cbr_and_tcp_options() {
    let s = parse_str(GENERIC, "generic.toml").unwrap();
    assert_eq!(s.seed, 7);
    let red = match &link(&s, "r1-r2").queue {
        QueueSpec::Red(r) => r.clone(),
        q => panic!("expected RED, got {q:?}"),
    };
    assert_eq!((red.min_th, red.max_th, red.max_p, red.w_q), (5.0, 15.0, 0.1, 0.002));
    assert!(red.gentle && !red.byte_mode);
    assert_eq!(red.mean_pkt_size, 500);
    assert!(matches!(link(&s, "r1-r2/rev").queue, QueueSpec::DropTail { .. }));
    assert_eq!(link(&s, "r2-b").loss, 0.001);
    assert_eq!(link(&s, "r2-b/rev").loss, 0.0);
    assert_eq!(s.routes.len(), 1);
    assert_eq!(s.links()[s.routes[0].link].name, "r1-r2");
    match &s.flows[0].app {
        AppSpec::Bulk { tcp, .. } => {
            assert!(tcp.sack && tcp.timestamps);
            assert_eq!(tcp.initial_window, 4);
            assert_eq!(tcp.rcv_buffer, 256_000);
            assert_eq!(tcp.delayed_ack, DelAck::EverySecond { timeout: 100 * NS_PER_MS });
            assert_eq!(tcp.min_rto, 200 * NS_PER_MS);
            // Untouched keys keep TcpSpec::default().
            assert_eq!(tcp.max_rto, TcpSpec::default().max_rto);
        }
        other => panic!("unexpected app {other:?}"),
    }
    let v = &s.flows[1];
    assert!(matches!(v.app, AppSpec::Cbr { packet_size: 160, rate_bps: 64_000 }));
    assert_eq!((v.start, v.stop), (5 * NS_PER_SEC, Some(25 * NS_PER_SEC)));
}

#[test]
fn cdma2000_example_matches_paliwal_table_1() {
    let s = parse_str(CDMA2000, "cdma2000_switch.toml").unwrap();
    let bsc = link(&s, "bsc-bts");
    assert_eq!(bsc.rate_bps, 38_400);
    assert!(matches!(bsc.queue, QueueSpec::DropTail { limit: QueueLimit::Bytes(5_000) }));
    let radio = link(&s, "bts-mobile");
    assert_eq!(radio.rate_bps, 9_600);
    assert_eq!(radio.rate_changes, RateChanges::Schedule(vec![(Time::ZERO, 9_600), (50 * NS_PER_SEC, 163_200)]));
    assert!(matches!(radio.queue, QueueSpec::DropTail { limit: QueueLimit::Unlimited }));
    // Four 37.5 ms hops: 150 ms one way, the paper's 300 ms round trip.
    let one_way: Time = ["host-core", "core-bsc", "bsc-bts", "bts-mobile"].iter().map(|n| link(&s, n).delay).sum();
    assert_eq!(one_way, 150 * NS_PER_MS);
    match &s.flows[0].app {
        AppSpec::Bulk { tcp, .. } => {
            assert_eq!((tcp.cc, tcp.mss, tcp.rcv_buffer, tcp.min_rto), (CcAlgo::Reno, 460, 32_000, NS_PER_SEC));
            assert_eq!(tcp.delayed_ack, DelAck::EverySegment);
        }
        other => panic!("unexpected app {other:?}"),
    }
}

const BASE: &str = "[simulation]\nduration = \"10s\"\n[[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n";

#[test]
fn errors_name_line_and_field() {
    // Line 9 is `rate = 10` inside the first [[link]].
    let e = err(&format!("{BASE}[[link]]\nname = \"l\"\nrate = 10\nfrom = \"a\"\nto = \"b\"\ndelay = \"1ms\"\n"));
    assert_eq!((e.line, e.field.as_str()), (9, "link[0].rate"));
    assert!(e.message.contains("unit"), "{e}");

    let e = err(&format!("{BASE}[[link]]\nname = \"l\"\nfrom = \"a\"\nto = \"b\"\ndelay = \"1ms\"\n"));
    assert_eq!((e.line, e.field.as_str()), (7, "link[0].rate"), "{e}");
    assert!(e.message.contains("missing"));

    let e = err(&format!("{BASE}[[link]]\nname = \"l\"\nfrom = \"a\"\nto = \"zz\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n"));
    assert_eq!((e.line, e.field.as_str()), (10, "link[0].to"));
    assert_eq!(e.to_string(), "t.toml:10: link[0].to: no node named 'zz'");

    let e = err("[simulation]\nduration = \"0s\"\n");
    assert_eq!((e.line, e.field.as_str()), (2, "simulation.duration"));

    let e = err("[simulation]\nduration = \"1s\"\ncolour = \"red\"\n");
    assert_eq!((e.line, e.field.as_str()), (3, "simulation.colour"));

    let e = err("[simulation\nduration = \"1s\"\n");
    assert_eq!((e.line, e.field.as_str()), (1, ""));
    assert!(!e.to_string().contains('\n'));
}

#[test]
fn flows_need_a_forward_and_an_ack_path() {
    let one_way = format!("{BASE}[[link]]\nname = \"l\"\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\nduplex = false\n");
    let cbr = format!("{one_way}[[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\nkind = \"cbr\"\npacket_size = \"100B\"\nrate = \"10kbps\"\n");
    assert!(parse_str(&cbr, "t.toml").is_ok());
    let e = err(&format!("{one_way}[[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\n"));
    assert_eq!((e.line, e.field.as_str()), (17, "flow[0].to"));
    assert!(e.message.contains("return path"), "{e}");
    let e = err(&format!("{one_way}[[flow]]\nname = \"f\"\nfrom = \"b\"\nto = \"a\"\nkind = \"cbr\"\npacket_size = \"100B\"\nrate = \"10kbps\"\n"));
    assert!(e.message.contains("no path from 'b' to 'a'"), "{e}");
}

#[test]
fn explicit_routes_are_checked_and_followed() {
    // a <-> b <-> c, with a route at a towards c that points back... to nowhere useful.
    let text = "[simulation]\nduration = \"10s\"\n\
        [[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n[[node]]\nname = \"c\"\n\
        [[link]]\nname = \"ab\"\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
        [[link]]\nname = \"bc\"\nfrom = \"b\"\nto = \"c\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n";
    let flow = "[[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"c\"\n";
    assert!(parse_str(&format!("{text}{flow}"), "t.toml").is_ok());
    // b sends traffic for c back to a: a loop.
    let lp = format!("{text}[[route]]\nnode = \"b\"\ndest = \"c\"\nlink = \"ab/rev\"\n{flow}");
    assert!(err(&lp).message.contains("routing loop"), "{}", err(&lp));
    // The link must start at the route's node.
    let e = err(&format!("{text}[[route]]\nnode = \"a\"\ndest = \"c\"\nlink = \"bc\"\n"));
    assert_eq!(e.field, "route[0].link");
    assert!(e.message.contains("starts at node 'b'"), "{e}");
    let e = err(&format!("{text}[[route]]\nnode = \"a\"\ndest = \"mars\"\nlink = \"ab\"\n"));
    assert!(e.message.starts_with("route to nowhere"), "{e}");
}

#[test]
fn red_thresholds_follow_their_units() {
    let q = |q: &str| {
        format!("{BASE}[[link]]\nname = \"l\"\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\nqueue = {q}\n")
    };
    let s = parse_str(&q(r#"{kind = "red", limit = "300kB", min_th = "20kB", max_th = "60kB"}"#), "t").unwrap();
    match &s.links()[0].queue {
        QueueSpec::Red(r) => assert!(r.byte_mode && r.min_th == 20_000.0 && r.max_th == 60_000.0),
        q => panic!("{q:?}"),
    }
    let e = err(&q(r#"{kind = "red", limit = "300pkt", min_th = "20kB", max_th = "60kB"}"#));
    assert_eq!(e.field, "link[0].queue.limit");
    let e = err(&q(r#"{kind = "red", limit = "30pkt", min_th = "20pkt", max_th = "60pkt"}"#));
    assert_eq!(e.field, "link[0].queue.max_th");
    let e = err(&q(r#"{kind = "droptail", limit = "30pkt", min_th = "20pkt"}"#));
    assert_eq!(e.field, "link[0].queue.min_th");
    assert!(e.message.contains("unknown key"));
}

#[test]
fn preset_after_a_table_header_gets_a_hint() {
    let e = err("[simulation]\nduration = \"1s\"\npreset = \"dumbbell\"\n");
    assert_eq!((e.line, e.field.as_str()), (3, "simulation.preset"));
    assert!(e.message.contains("before the first [table]"), "{e}");
}

#[test]
fn spec_round_trips_through_json() {
    let s = parse_str(GENERIC, "generic.toml").unwrap();
    let json = serde_json::to_string(&s).unwrap();
    let back: ScenarioSpec = serde_json::from_str(&json).unwrap();
    assert_eq!(serde_json::to_string(&back).unwrap(), json);
}

#[test]
fn large_dumbbell_validates_quickly() {
    let text = "preset = \"dumbbell\"\n[simulation]\nduration = \"1000s\"\n[dumbbell]\nflows = 1000\n\
        bottleneck_rate = \"1Gbps\"\nbottleneck_delay = \"10ms\"\nstart_spacing = \"1ms\"\n";
    let t = std::time::Instant::now();
    let s = parse_str(text, "big.toml").unwrap();
    assert_eq!((s.nodes.len(), s.links().len(), s.flows.len()), (2002, 4002, 1000));
    // Path checks are BFS over adjacency lists: linear per flow, not quadratic.
    assert!(t.elapsed() < std::time::Duration::from_secs(2), "{:?}", t.elapsed());
}

#[test]
fn crlf_and_byte_order_mark_keep_line_numbers() {
    for text in ["[simulation]\r\nduration = \"10s\"\r\ncolour = 1\r\n", "\u{feff}[simulation]\nduration = \"10s\"\ncolour = 1\n"] {
        let e = err(text);
        assert_eq!((e.line, e.field.as_str()), (3, "simulation.colour"), "{e}");
    }
}

/// A two-node scenario whose one flow has the given `[flow.tcp]` lines (the
/// first of them on line 18).
fn with_tcp(lines: &str) -> String {
    format!("{BASE}[[link]]\nname = \"l\"\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\n[flow.tcp]\n{lines}")
}

fn tcp_of(s: &ScenarioSpec) -> &TcpSpec {
    match &s.flows[0].app {
        AppSpec::Bulk { tcp, .. } => tcp,
        other => panic!("unexpected app {other:?}"),
    }
}

#[test]
fn handshake_rtt_sampling_and_timer_granularity_parse_with_todays_defaults() {
    let s = parse_str(&with_tcp("sack = false\n"), "t.toml").unwrap();
    let t = tcp_of(&s);
    assert!(t.handshake);
    assert_eq!((t.rtt_sampling, t.timer_granularity), (RttSampling::EveryAck, None));
    let s = parse_str(&with_tcp("handshake = false\nrtt_sampling = \"one_per_rtt\"\ntimer_granularity = \"500ms\"\n"), "t.toml").unwrap();
    let t = tcp_of(&s);
    assert!(!t.handshake);
    assert_eq!((t.rtt_sampling, t.timer_granularity), (RttSampling::OnePerRtt, Some(500 * NS_PER_MS)));
    let s = parse_str(&with_tcp("rtt_sampling = \"every_ack\"\ntimer_granularity = \"10ms\"\n"), "t.toml").unwrap();
    assert_eq!((tcp_of(&s).rtt_sampling, tcp_of(&s).timer_granularity), (RttSampling::EveryAck, Some(10 * NS_PER_MS)));
}

#[test]
fn bad_tcp_timer_settings_name_line_and_field() {
    let e = err(&with_tcp("sack = false\ntimer_granularity = \"0s\"\n"));
    assert_eq!((e.line, e.field.as_str()), (19, "flow[0].tcp.timer_granularity"), "{e}");
    assert!(e.message.contains("positive"), "{e}");
    let e = err(&with_tcp("timer_granularity = 10\n"));
    assert_eq!((e.line, e.field.as_str()), (18, "flow[0].tcp.timer_granularity"), "{e}");
    let e = err(&with_tcp("rtt_sampling = \"sometimes\"\n"));
    assert_eq!((e.line, e.field.as_str()), (18, "flow[0].tcp.rtt_sampling"), "{e}");
    assert!(e.message.contains("one_per_rtt"), "{e}");
    let e = err(&with_tcp("handshake = \"no\"\n"));
    assert_eq!((e.line, e.field.as_str()), (18, "flow[0].tcp.handshake"), "{e}");
}

/// The catalogue tests/scenarios/bad/ (driven through the CLI by
/// tests/test_bad_input.py): each file's `# expect: line=N field=F` first line
/// holds for the parser too, where the parser is what rejects the file.
#[test]
fn bad_catalogue_expectations_hold_for_the_parser() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/scenarios/bad");
    let mut checked = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let first = text.lines().next().unwrap();
        let rest = first.strip_prefix("# expect: line=").unwrap_or_else(|| panic!("{}: no expect line", path.display()));
        let (line, field) = rest.split_once(" field=").unwrap();
        // Files the parser accepts fail later (e.g. at world building).
        let Err(e) = load(&path) else { continue };
        assert_eq!((e.line.to_string().as_str(), e.field.as_str()), (line, field.trim()), "{}: {e}", path.display());
        checked.push(path.file_stem().unwrap().to_string_lossy().into_owned());
    }
    for name in ["timer_granularity_zero", "rtt_sampling_unknown"] {
        assert!(checked.iter().any(|c| c == name), "{name} not checked: {checked:?}");
    }
}

#[test]
fn periodic_rate_schedule_repeats_to_the_end_of_the_run() {
    let text = r#"
[simulation]
duration = "6s"
[[node]]
name = "a"
[[node]]
name = "b"
[[link]]
name = "radio"
from = "a"
to = "b"
delay = "10ms"
rate_schedule = { every = "2.56s", steps = [{ at = "0s", rate = "153.6kbps" }, { at = "2.26s", rate = "0bps" }] }
"#;
    let s = parse_str(text, "t.toml").unwrap();
    let l = link(&s, "radio");
    let RateChanges::Periodic { steps, start: Time::ZERO, period: Time(2_560_000_000) } = &l.rate_changes else { panic!("{:?}", l.rate_changes) };
    assert_eq!(l.rate_bps, 153_600);
    let steps: Vec<_> = crate::net::link::periodic_steps(steps.clone(), Time::ZERO, Time(2_560_000_000), s.duration).collect();
    let ms = 1_000_000;
    assert_eq!(steps, vec![(Time::ZERO, 153_600), (Time(2260 * ms), 0), (Time(2560 * ms), 153_600), (Time(4820 * ms), 0), (Time(5120 * ms), 153_600)]);
    // From a start: the rate before it is `rate`.
    let late = text.replace(r#"{ every = "2.56s","#, r#"{ start = "2.56s", every = "2.56s","#).replace(r#"delay = "10ms""#, "delay = \"10ms\"\nrate = \"1Mbps\"");
    let s2 = parse_str(&late, "t.toml").unwrap();
    assert_eq!(link(&s2, "radio").rate_bps, 1_000_000);
    assert!(matches!(link(&s2, "radio").rate_changes, RateChanges::Periodic { start: Time(2_560_000_000), period: Time(2_560_000_000), .. }));
    for (bad, what) in [
        (r#"{ every = "2s", steps = [{ at = "1s", rate = "1Mbps" }] }"#, "first step must be at 0s"),
        (r#"{ every = "2s", steps = [{ at = "0s", rate = "1Mbps" }, { at = "2s", rate = "0bps" }] }"#, "not within the period"),
        (r#"{ every = "0s", steps = [{ at = "0s", rate = "1Mbps" }] }"#, "period must be positive"),
    ] {
        let e = parse_str(&text.replace(r#"{ every = "2.56s", steps = [{ at = "0s", rate = "153.6kbps" }, { at = "2.26s", rate = "0bps" }] }"#, bad), "t.toml")
            .expect_err(bad);
        assert!(e.message.contains(what) && e.line == 13 && e.field.starts_with("link[0].rate_schedule"), "{e}");
    }
}

#[test]
fn start_jitter_is_drawn_from_the_seed() {
    let text = |seed: u64| {
        format!(
            "preset = \"dumbbell\"\n[simulation]\nduration = \"10s\"\nseed = {seed}\n[dumbbell]\nflows = 4\nbottleneck_rate = \"1Mbps\"\nbottleneck_delay = \"10ms\"\nstart_spacing = \"1s\"\nstart_jitter = \"500ms\"\n"
        )
    };
    let starts = |seed| {
        let s = parse_str(&text(seed), "t.toml").unwrap();
        s.flows.iter().map(|f| f.start_in(&RngStreams::new(s.seed))).collect::<Vec<_>>()
    };
    let (a, b) = (starts(1), starts(2));
    assert_eq!(a, starts(1), "same seed, same starts");
    assert_ne!(a, b, "another seed, other starts");
    for s in [&a, &b] {
        for (i, &t) in s.iter().enumerate() {
            let base = i as u64 * NS_PER_SEC;
            assert!(t >= base && t < base + NS_PER_SEC / 2, "flow {i} at {t:?}");
        }
    }
    let late = text(1).replace("start_spacing = \"1s\"", "start_spacing = \"3s\"").replace("500ms", "2s");
    let e = parse_str(&late, "t.toml").expect_err("flow3 may start at 9 + 2 s > 10 s");
    assert!(e.message.contains("starts at or after the end"), "{e}");
}

#[test]
fn a_duplicate_key_is_named() {
    let e = parse_str("[simulation]\nduration = \"10s\"\nduration = \"20s\"\n", "t.toml").unwrap_err();
    assert_eq!(e.line, 3);
    assert!(e.message.contains("duplicate key 'duration'"), "{e}");
}

#[test]
fn too_many_nodes_is_refused_before_the_router_is_built() {
    let mut text = String::from("[simulation]\nduration = \"1s\"\n");
    for i in 0..=limits::MAX_NODES {
        text += &format!("[[node]]\nname = \"n{i}\"\n");
    }
    let e = err(&text);
    // The name of the first node past the limit: two lines per table after
    // the two of [simulation].
    assert_eq!(e.line, 4 + 2 * limits::MAX_NODES);
    let (n, most) = (limits::MAX_NODES + 1, limits::MAX_NODES);
    assert!(e.message.contains(&format!("{n} nodes")) && e.message.contains(&format!("at most {most}")), "{e}");
}
