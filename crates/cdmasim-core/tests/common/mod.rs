//! Scenario builders for the integration tests (the TOML front is tested
//! separately; these build ScenarioSpecs directly).
#![allow(dead_code)]

pub use cdmasim_core::engine::Time;
use cdmasim_core::engine::{NS_PER_MS, NS_PER_SEC};
pub use cdmasim_core::net::NodeId;
use cdmasim_core::scenario::*;
use cdmasim_core::sim::{self, RunOptions, RunResult};

pub fn ms(x: f64) -> Time {
    Time((x * NS_PER_MS.0 as f64).round() as u64)
}
pub fn s(x: f64) -> Time {
    Time((x * NS_PER_SEC.0 as f64).round() as u64)
}

pub struct Net {
    pub spec: ScenarioSpec,
}

impl Net {
    pub fn new(duration: Time, seed: u64) -> Self {
        Net {
            spec: ScenarioSpec::new(duration, seed),
        }
    }

    pub fn node(&mut self, name: &str) -> NodeId {
        self.spec.nodes.push(NodeSpec { name: name.into() });
        NodeId::new(self.spec.nodes.len() - 1)
    }

    /// A one-way link.
    pub fn link(&mut self, from: NodeId, to: NodeId, rate_bps: u64, delay: Time, queue: QueueSpec) -> usize {
        let name = format!("{}-{}", self.spec.nodes[from.index()].name, self.spec.nodes[to.index()].name);
        self.spec.add_link(LinkSpec { name, from, to, rate_bps, delay, queue, ..Default::default() })
    }

    /// Both directions, same queue.
    pub fn duplex(&mut self, a: NodeId, b: NodeId, rate_bps: u64, delay: Time, queue: QueueSpec) -> (usize, usize) {
        (self.link(a, b, rate_bps, delay, queue.clone()), self.link(b, a, rate_bps, delay, queue))
    }

    pub fn bulk(&mut self, name: &str, from: NodeId, to: NodeId, start: Time, bytes: Option<u64>, tcp: TcpSpec) {
        self.spec.flows.push(FlowSpec {
            name: name.into(),
            from,
            to,
            start,
            start_jitter: Time::ZERO,
            stop: None,
            app: AppSpec::Bulk { bytes, tcp },
        });
    }

    pub fn cbr(&mut self, name: &str, from: NodeId, to: NodeId, start: Time, packet_size: u32, rate_bps: u64) {
        self.spec.flows.push(FlowSpec { name: name.into(), from, to, start, start_jitter: Time::ZERO, stop: None, app: AppSpec::Cbr { packet_size, rate_bps } });
    }

    pub fn run(&self) -> RunResult {
        let r = sim::run(&self.spec, RunOptions::default()).expect("run");
        assert_conserved(&r);
        r
    }
}

pub fn droptail_pkts(n: u64) -> QueueSpec {
    QueueSpec::DropTail { limit: QueueLimit::Packets(n) }
}
pub fn droptail_bytes(n: u64) -> QueueSpec {
    QueueSpec::DropTail { limit: QueueLimit::Bytes(n) }
}
pub fn unlimited() -> QueueSpec {
    QueueSpec::DropTail { limit: QueueLimit::Unlimited }
}

/// Every packet sent is delivered, dropped with a reason, or still inside the network.
pub fn assert_conserved(r: &RunResult) {
    let c = &r.conservation;
    assert_eq!(c.sent, c.delivered + c.dropped + c.in_network, "conservation: {c:?}");
    assert_eq!(c.dropped as usize, r.drops.len(), "every drop is recorded with its reason");
}

/// Sender —access— r1 —bottleneck— r2 —access— receiver, `n` flows.
pub fn dumbbell(n: usize, rate_bps: u64, delay: Time, queue: QueueSpec, duration: Time, tcp: TcpSpec) -> Net {
    let mut net = Net::new(duration, 1);
    let r1 = net.node("r1");
    let r2 = net.node("r2");
    net.duplex(r1, r2, rate_bps, delay, queue);
    for i in 0..n {
        let a = net.node(&format!("s{i}"));
        let b = net.node(&format!("d{i}"));
        net.duplex(a, r1, 100_000_000, ms(1.0), droptail_pkts(1000));
        net.duplex(r2, b, 100_000_000, ms(1.0), droptail_pkts(1000));
        net.bulk(&format!("flow{i}"), a, b, ms(10.0) * i as u64, None, tcp.clone());
    }
    net
}
