//! Engine speed on the benchmark dumbbell: `cargo run --release --example dumbbell_speed -- N [none|vj|rohc]`
//! (the second argument runs PPP with that header compression on the bottleneck, both ways).
use cdmasim_core::net::NodeId;
use cdmasim_core::engine::{Time, NS_PER_MS, NS_PER_SEC};
use cdmasim_core::scenario::*;
use cdmasim_core::sim::{run, RunOptions};

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(10);
    let mut spec = ScenarioSpec::new(60 * NS_PER_SEC, 1);
    let node = |spec: &mut ScenarioSpec, name: String| {
        spec.nodes.push(NodeSpec { name });
        spec.nodes.len() - 1
    };
    let duplex = |spec: &mut ScenarioSpec, a: usize, b: usize, rate: u64, delay: Time, q: QueueSpec| {
        for (f, t) in [(a, b), (b, a)] {
            let name = format!("{}-{}", spec.nodes[f].name, spec.nodes[t].name);
            spec.add_link(LinkSpec { name, from: NodeId::new(f), to: NodeId::new(t), rate_bps: rate, delay, queue: q.clone(), ..Default::default() });
        }
    };
    let r1 = node(&mut spec, "r1".into());
    let r2 = node(&mut spec, "r2".into());
    duplex(&mut spec, r1, r2, 10_000_000, 20 * NS_PER_MS, QueueSpec::DropTail { limit: QueueLimit::Packets(100) });
    let ppp = std::env::args().nth(2).map(|a| match a.as_str() {
        "none" => cdmasim_core::net::ppp::Compression::None,
        "vj" => cdmasim_core::net::ppp::Compression::Vj,
        "rohc" => cdmasim_core::net::ppp::Compression::Rohc,
        _ => panic!("ppp: none, vj or rohc"),
    });
    for hop in [0, 1] {
        spec.link_mut(hop).ppp = ppp;
    }
    let tcp = TcpSpec { rcv_buffer: 1 << 20, ..Default::default() };
    for i in 0..n {
        let a = node(&mut spec, format!("s{i}"));
        let b = node(&mut spec, format!("d{i}"));
        let access = QueueSpec::DropTail { limit: QueueLimit::Packets(1000) };
        duplex(&mut spec, a, r1, 100_000_000, NS_PER_MS, access.clone());
        duplex(&mut spec, r2, b, 100_000_000, NS_PER_MS, access);
        spec.flows.push(FlowSpec { name: format!("flow{i}"), from: NodeId::new(a), to: NodeId::new(b), start: 10 * NS_PER_MS * i as u64, start_jitter: Time::ZERO, stop: None, app: AppSpec::Bulk { bytes: None, tcp: tcp.clone() } });
    }
    let t = std::time::Instant::now();
    let r = run(&spec, RunOptions::default()).unwrap();
    let dt = t.elapsed().as_secs_f64();
    let total: f64 = r.flows.iter().map(|f| f.goodput_bps).sum();
    let drops: u64 = r.hops.queues[0].drops.values().sum();
    println!(
        "flows {n}: goodput {:.3} Mb/s, drops {drops}, events {}, packets {}, {:.3} s, {:.1} M events/s",
        total / 1e6,
        r.events,
        r.conservation.sent,
        dt,
        r.events as f64 / dt / 1e6
    );
}
