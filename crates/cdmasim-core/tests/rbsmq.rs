//! Jung et al. (RBSMQ) on a CDMA2000-1X-like downlink: one flow
//! keeps the base-station queue short at the throughput of a fixed 64-segment
//! window (§V, Fig. 4: 96 %), and two and five flows share fairly where the
//! fixed window starves the late ones (Figs. 3, 5, 6).
//!
//! The network:
//! - server —100 Mb/s, 40 ms— pdsn —153.6 kb/s, 110 ms— mobile, the radio
//!   link being the bottleneck, both directions (ACKs return over a 153.6
//!   kb/s reverse link). One-way 150 ms, so with a 1500 B packet's 78 ms
//!   radio transmission the base RTT is ≈ 0.38 s and the bandwidth-delay
//!   product N ≈ 0.38 / 0.078 ≈ 4.9 segments. Jung et al. Fig. 2(a) shows ~60
//!   of a 64-segment window queued, i.e. N ≈ 4.
//! - The per-mobile buffer is a 120-packet DropTail queue: deeper than a
//!   64-segment window, as Fig. 2 shows no loss at window 64.
//! - §III's periodic delay spikes ("periodic checking for incoming call"):
//!   a 300 ms outage (rate 0) every 2.56 s (the 1X paging slot cycle 1.28 s
//!   × 2). Shorter than the 1 s minimum RTO, so they delay but do not time out.
//! - MSS 1460 B: the paper's fixed host is Windows XP on Ethernet and the
//!   phone's PPP MTU is 1500 B, so both ends announce 1460 (the 1000 B of
//!   Fig. 1 are UDP probes). Reno without delayed ACKs, as the paper compares
//!   with "TCP Reno". The fixed window is rcv_buffer = 64 × MSS.

mod common;
use cdmasim_core::models::jain::jain_index;
use cdmasim_core::scenario::*;
use cdmasim_core::sim::RunResult;
use cdmasim_core::scenario::{load, parse_str};
use common::*;

const RADIO_BPS: u64 = 153_600;
const MSS: u32 = 1460;
const PKT: f64 = 1500.0;
const OUTAGE_PERIOD_S: f64 = 2.56;
const OUTAGE_S: f64 = 0.3;

fn rbsmq() -> RwndAlgo {
    RwndAlgo::Rbsmq(RbsmqParams::default())
}

fn net(duration_s: f64, starts_s: &[f64], rwnd: RwndAlgo) -> Net {
    let mut net = Net::new(s(duration_s), 1);
    let server = net.node("server");
    let pdsn = net.node("pdsn");
    let mobile = net.node("mobile");
    net.duplex(server, pdsn, 100_000_000, ms(40.0), droptail_pkts(1000));
    let down = net.link(pdsn, mobile, RADIO_BPS, ms(110.0), droptail_pkts(120));
    net.link(mobile, pdsn, RADIO_BPS, ms(110.0), droptail_pkts(120));
    let mut t = OUTAGE_PERIOD_S;
    while t < duration_s {
        net.spec.link_mut(down).rate_changes.schedule_mut().extend([(s(t), 0), (s(t + OUTAGE_S), RADIO_BPS)]);
        t += OUTAGE_PERIOD_S;
    }
    let rcv_buffer = match rwnd {
        RwndAlgo::Fixed => 64 * MSS as u64,
        RwndAlgo::Rbsmq(_) => 1 << 20,
    };
    let tcp = TcpSpec { cc: CcAlgo::Reno, mss: MSS, rcv_buffer, rwnd, ..Default::default() };
    for (i, st) in starts_s.iter().enumerate() {
        net.bulk(&format!("flow{i}"), server, mobile, s(*st), None, tcp.clone());
    }
    net.spec.sample_interval = Some(s(1.0));
    net
}

/// Per flow: payload bytes delivered after `from_s` (from the 1 s samples).
fn delivered_since(r: &RunResult, from_s: f64) -> Vec<f64> {
    r.series
        .iter()
        .filter(|x| x.metric == "goodput_bps")
        .map(|g| g.t_s.iter().zip(&g.value).filter(|(t, _)| **t > from_s).map(|(_, v)| *v / 8.0).sum())
        .collect()
}

struct Outcome {
    delivered: Vec<f64>,
    jain: f64,
    queue_avg: f64,
    queue_max: u64,
    drops: u64,
}

fn outcome(label: &str, r: &RunResult, from_s: f64) -> Outcome {
    let q = r.hops.queues.iter().find(|q| q.link == "pdsn-mobile").unwrap();
    let delivered = delivered_since(r, from_s);
    let o = Outcome {
        jain: jain_index(&delivered).unwrap(),
        queue_avg: q.avg_packets,
        queue_max: q.max_packets,
        drops: q.drops.values().sum(),
        delivered,
    };
    println!(
        "{label}: kB after {from_s} s {:?}, Jain {:.3}, radio queue avg {:.1} max {} pkts, drops {}",
        o.delivered.iter().map(|x| (x / 1000.0).round()).collect::<Vec<_>>(),
        o.jain,
        o.queue_avg,
        o.queue_max,
        o.drops
    );
    o
}

#[test]
fn one_flow_short_queue_at_the_fixed_windows_throughput() {
    let (dur, from) = (60.0, 5.0);
    let fixed = outcome("fixed 64", &net(dur, &[0.0], RwndAlgo::Fixed).run(), from);
    let rb = outcome("rbsmq", &net(dur, &[0.0], rbsmq()).run(), from);

    // The fixed window fills the radio link whenever it is up: payload
    // capacity 153.6 kb/s × (1 − 0.3/2.56) up-time × 1460/1500 over 55 s
    // ≈ 907 kB. Within 2 % (the 1 s sampling grid and the outage phase).
    let capacity = RADIO_BPS as f64 / 8.0 * (1.0 - OUTAGE_S / OUTAGE_PERIOD_S) * MSS as f64 / PKT * (dur - from);
    assert!((fixed.delivered[0] / capacity - 1.0).abs() < 0.02, "fixed {} vs capacity {capacity}", fixed.delivered[0]);
    // ...and queues what the path cannot hold: 64 − N ≈ 59 segments (Fig. 2(a): ~60).
    assert!((55..=64).contains(&fixed.queue_max) && fixed.queue_avg > 45.0);

    // RBSMQ: at least 90 % of the fixed window's throughput (paper: 96 %;
    // measured here 100 %, the window's floor of 5 segments covering N).
    let ratio = rb.delivered[0] / fixed.delivered[0];
    println!("rbsmq / fixed throughput = {ratio:.3}");
    assert!(ratio >= 0.90, "rbsmq reached {ratio:.3} of the fixed window");
    // A short, stable queue: the window grows by α = 3 per run from its
    // floor N and falls once a run exceeds β = ⌊l_base / s_base⌋ (≈ 5–9
    // here), so at most about α + β ≈ 12 segments ever wait (measured: max
    // 6, average 1.3), against 59 for the fixed window.
    assert!(rb.queue_max <= 12 && rb.queue_avg < 5.0, "rbsmq queue avg {} max {}", rb.queue_avg, rb.queue_max);
    assert_eq!(rb.drops, 0);
}

#[test]
fn two_flows_share_fairly_where_the_fixed_window_starves_the_second() {
    // Fig. 3 / Fig. 5: flow 2 starts 10 s after flow 1; shares from 20 s on.
    let starts = [0.0, 10.0];
    let fixed = outcome("fixed 64, 2 flows", &net(60.0, &starts, RwndAlgo::Fixed).run(), 20.0);
    let rb = outcome("rbsmq, 2 flows", &net(60.0, &starts, rbsmq()).run(), 20.0);
    // Fixed: flow 2's SYN and first segments wait behind ~59 of flow 1's
    // (4.6 s at 78 ms each, beyond the 1 s initial RTO), and its slow start
    // runs at that RTT: it gets a small fraction (measured Jain 0.58).
    assert!(fixed.jain < 0.7, "fixed-window Jain {:.3}", fixed.jain);
    assert!(fixed.delivered[1] < 0.25 * fixed.delivered[0]);
    // RBSMQ: Jain ≥ 0.9 (measured 1.000), and the pair together carries at
    // least what the fixed windows carry (paper: over 100 %).
    assert!(rb.jain >= 0.9, "rbsmq Jain {:.3}", rb.jain);
    let total = |o: &Outcome| o.delivered.iter().sum::<f64>();
    assert!(total(&rb) >= 0.95 * total(&fixed), "rbsmq {} vs fixed {}", total(&rb), total(&fixed));
    assert!(rb.queue_max <= 15 && rb.drops == 0);
}

#[test]
fn five_flows_share_fairly_where_the_fixed_window_serves_only_the_first() {
    // Fig. 6: five flows, started 10 s apart; shares once all run (from 50 s).
    let starts = [0.0, 10.0, 20.0, 30.0, 40.0];
    let fixed = outcome("fixed 64, 5 flows", &net(90.0, &starts, RwndAlgo::Fixed).run(), 50.0);
    let rb = outcome("rbsmq, 5 flows", &net(90.0, &starts, rbsmq()).run(), 50.0);
    // Fixed: the first flow keeps most of the link (measured Jain 0.36).
    assert!(fixed.jain < 0.5, "fixed-window Jain {:.3}", fixed.jain);
    assert!(fixed.delivered[1..].iter().all(|d| *d < 0.25 * fixed.delivered[0]));
    // RBSMQ: Jain ≥ 0.9 (measured 0.99). Five windows at their floor of 5
    // hold 25 segments against N ≈ 5, so about 20 queue: still well under
    // the fixed windows' queue and the 120-packet buffer (no loss).
    assert!(rb.jain >= 0.9, "rbsmq Jain {:.3}", rb.jain);
    assert!(rb.queue_max <= 40 && rb.queue_avg < 0.5 * fixed.queue_avg && rb.drops == 0);
}

#[test]
fn a_shared_estimator_is_what_keeps_many_flows_in_check() {
    // The estimator's scope (docs/tcp.md): per connection, each flow sees
    // only its own gaps, which the other flows' packets in between stretch
    // past its short boundary: back-to-back service looks like an empty
    // queue, runs keep restarting below α and every window grows, so the
    // five flows fill the buffer and share unfairly (measured Jain 0.84,
    // queue max 117). Shared by the
    // host, the run is that of the base-station queue itself.
    let starts = [0.0, 10.0, 20.0, 30.0, 40.0];
    let per_conn = RwndAlgo::Rbsmq(RbsmqParams { scope: RbsmqScope::Connection, ..Default::default() });
    let conn = outcome("rbsmq per connection, 5 flows", &net(90.0, &starts, per_conn).run(), 50.0);
    let host = outcome("rbsmq per host, 5 flows", &net(90.0, &starts, rbsmq()).run(), 50.0);
    assert!(conn.queue_max >= 3 * host.queue_max, "per connection {} vs per host {}", conn.queue_max, host.queue_max);
    assert!(conn.jain < host.jain);
}

#[test]
fn the_window_floor_must_cover_the_bandwidth_delay_product() {
    // Each decrease phase runs until the receiver sees the queue run dry,
    // which is one RTT after its shrinking window silenced the sender: the
    // window always ends it at min_window. So the link stays full only if
    // min_window ≥ N = base RTT / 78 ms; with the floor at 2 the window
    // cycles between 2 and about N + α and the link idles after each fall
    // (measured 0.85, 0.73, 0.65 of the fixed window for the three delays).
    for radio_ms in [60.0, 160.0, 250.0] {
        // Base RTT: propagation 2 × (40 + d), one 1500 B packet and one 40 B ACK at 153.6 kb/s.
        let rtt_s = 2.0 * (0.040 + radio_ms / 1000.0) + (PKT + 40.0) * 8.0 / RADIO_BPS as f64;
        let n = rtt_s / (PKT * 8.0 / RADIO_BPS as f64);
        let run = |a: RwndAlgo| {
            let mut net = net(60.0, &[0.0], a);
            for l in net.spec.links_mut().filter(|l| l.rate_bps == RADIO_BPS) {
                l.delay = ms(radio_ms);
            }
            delivered_since(&net.run(), 5.0)[0]
        };
        let fixed = run(RwndAlgo::Fixed);
        let with_floor = |w: u32| run(RwndAlgo::Rbsmq(RbsmqParams { min_window: w, initial_window: w, ..Default::default() })) / fixed;
        let (covered, low) = (with_floor(n.ceil() as u32), with_floor(2));
        println!("radio {radio_ms} ms: N = {n:.2}; floor ⌈N⌉ → {covered:.3}, floor 2 → {low:.3} of the fixed window");
        assert!(covered >= 0.95, "floor {} reached {covered:.3}", n.ceil());
        assert!(low < 0.9, "floor 2 reached {low:.3}");
    }
}

#[test]
fn the_shipped_example_parses_and_shares_the_radio_link() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/rbsmq_cdma1x.toml");
    let spec = load(path).expect("example parses");
    // Both flows use the defaults (the first spells them out), so they share
    // the mobile's estimator.
    for f in &spec.flows {
        let AppSpec::Bulk { tcp, .. } = &f.app else { panic!("bulk flows") };
        assert_eq!(tcp.rwnd, RwndAlgo::Rbsmq(RbsmqParams::default()));
    }
    let net = Net { spec };
    let r = net.run();
    let q = r.hops.queues.iter().find(|q| q.link == "radio").unwrap();
    let d = delivered_since(&r, 20.0);
    let j = jain_index(&d).unwrap();
    println!("example: kB after 20 s {:?}, Jain {j:.3}, radio queue avg {:.1} max {}", d.iter().map(|x| (x / 1000.0).round()).collect::<Vec<_>>(), q.avg_packets, q.max_packets);
    // As the two-flow test above: fair, a short queue, no loss.
    assert!(j >= 0.9 && q.max_packets <= 15 && q.drops.values().sum::<u64>() == 0);
}

#[test]
fn scope_is_parsed_and_checked() {
    let base = r#"
[simulation]
duration = "1s"
[[node]]
name = "a"
[[node]]
name = "b"
[[link]]
name = "l"
from = "a"
to = "b"
rate = "1Mbps"
delay = "1ms"
[[flow]]
name = "f"
from = "a"
to = "b"
[flow.tcp]
rwnd = "rbsmq"
[flow.tcp.rbsmq]
"#;
    let spec = parse_str(&format!("{base}scope = \"connection\"\nbeta = 9\n"), "t.toml").unwrap();
    let AppSpec::Bulk { tcp, .. } = &spec.flows[0].app else { panic!() };
    let RwndAlgo::Rbsmq(p) = tcp.rwnd else { panic!() };
    assert_eq!((p.scope, p.beta, p.alpha), (RbsmqScope::Connection, Some(9), 3));
    let e = parse_str(&format!("{base}scope = \"phone\"\n"), "t.toml").unwrap_err().to_string();
    assert!(e.contains("t.toml:21") && e.contains("scope") && e.contains("unknown scope 'phone'"), "{e}");
}


#[test]
fn the_advertised_window_is_traced_within_its_bounds() {
    // With trace_cwnd the receiver records every change of the window it
    // advertises (series "rwnd"): RBSMQ's steps, in whole segments, between
    // min_window and max_window (the buffer is far larger).
    let mut n = net(30.0, &[0.0], rbsmq());
    if let AppSpec::Bulk { tcp, .. } = &mut n.spec.flows[0].app {
        tcp.trace_cwnd = true;
    }
    let r = n.run();
    let w = r.series.iter().find(|x| x.metric == "rwnd" && x.subject == "flow0").expect("rwnd series");
    let p = RbsmqParams::default();
    let (lo, hi) = ((p.min_window * MSS) as f64, (p.max_window * MSS) as f64);
    for v in &w.value {
        assert!(*v >= lo && *v <= hi && v % MSS as f64 == 0.0, "window {v} outside [{lo}, {hi}] or not whole segments");
    }
    let distinct: std::collections::BTreeSet<u64> = w.value.iter().map(|v| *v as u64).collect();
    assert!(distinct.len() >= 3, "the policy moved the window: {distinct:?}");
}
