//! Write the captures of a small lossy run: `cargo run --example pcap_demo -- DIR`.
use cdmasim_core::engine::{Time, NS_PER_MS, NS_PER_SEC};
use cdmasim_core::scenario::*;
use cdmasim_core::sim::{run, RunOptions};

use cdmasim_core::net::NodeId;

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "/tmp/cdmasim-pcap".into());
    let q = QueueSpec::DropTail { limit: QueueLimit::Packets(20) };
    let mut spec = ScenarioSpec::new(10 * NS_PER_SEC, 3);
    spec.nodes = vec![NodeSpec { name: "a".into() }, NodeSpec { name: "b".into() }];
    for (f, t, name) in [(0, 1, "a-b"), (1, 0, "b-a")] {
        spec.add_link(LinkSpec { name: name.into(), from: NodeId(f), to: NodeId(t), rate_bps: 2_000_000, delay: 30 * NS_PER_MS, queue: q.clone(), loss: if f == 0 { 0.01 } else { 0.0 }, ..Default::default() });
    }
    let tcp = TcpSpec { sack: true, timestamps: true, rcv_buffer: 256 * 1024, ..Default::default() };
    spec.flows.push(FlowSpec { name: "bulk".into(), from: NodeId(0), to: NodeId(1), start: Time::ZERO, start_jitter: Time::ZERO, stop: None, app: AppSpec::Bulk { bytes: Some(1_000_000), tcp } });
    let r = run(&spec, RunOptions { pcap_dir: Some(dir.into()), ..Default::default() }).unwrap();
    println!("{}", serde_json::to_string(&r.flows).unwrap());
}
