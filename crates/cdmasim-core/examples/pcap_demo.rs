//! Write the captures of a small lossy run: `cargo run --example pcap_demo -- DIR`.
use cdmasim_core::engine::{NS_PER_MS, NS_PER_SEC};
use cdmasim_core::scenario::*;
use cdmasim_core::sim::{run, RunOptions};

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "/tmp/cdmasim-pcap".into());
    let q = QueueSpec::DropTail { limit: QueueLimit::Packets(20) };
    let mut spec = ScenarioSpec { duration: 10 * NS_PER_SEC, seed: 3, sample_interval: None, nodes: vec![NodeSpec { name: "a".into() }, NodeSpec { name: "b".into() }], links: vec![], routes: vec![], flows: vec![], rans: vec![], cells: vec![], radio_links: vec![], is2000: vec![] };
    for (f, t, name) in [(0, 1, "a-b"), (1, 0, "b-a")] {
        spec.links.push(LinkSpec { name: name.into(), from: f, to: t, rate_bps: 2_000_000, delay: 30 * NS_PER_MS, queue: q.clone(), rate_schedule: vec![], rate_period: None, drc: None, loss: if f == 0 { 0.01 } else { 0.0 } });
    }
    let tcp = TcpSpec { sack: true, timestamps: true, rcv_buffer: 256 * 1024, ..Default::default() };
    spec.flows.push(FlowSpec { name: "bulk".into(), from: 0, to: 1, start: 0, stop: None, app: AppSpec::Bulk { bytes: Some(1_000_000), tcp } });
    let r = run(&spec, RunOptions { pcap_dir: Some(dir.into()), ..Default::default() }).unwrap();
    println!("{}", serde_json::to_string(&r.flows).unwrap());
}
