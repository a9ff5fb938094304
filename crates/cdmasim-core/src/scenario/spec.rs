//! The validated, typed form of a scenario: what the TOML parser produces and
//! the world builder consumes. Every quantity is already in engine units
//! (ns, bit/s, bytes), every reference is already resolved to an index, and
//! every value has passed validation, so the builder cannot fail on it.

use crate::net::NodeId;
use crate::engine::{RngStreams, Time};
use crate::net::routing::{Edge, Explicit, Routes, TooManyRoutes};
use serde::{Deserialize, Serialize};

// Each model owns its configuration; the scenario names them here so that
// `scenario::TcpSpec` etc. keep working for the parser and for users.
pub use crate::net::queue::red::RedSpec;
pub use crate::net::link::LinkSpec;
pub use crate::network::HopSpec;
pub use crate::net::queue::{QueueLimit, QueueSpec};
pub use crate::tcp::cc::bbr::BbrParams;
pub use crate::tcp::cc::cubic::CubicParams;
pub use crate::tcp::cc::vegas::VegasParams;
pub use crate::tcp::cc::westwood::WestwoodParams;
pub use crate::tcp::cc::CcAlgo;
pub use crate::tcp::config::{DelAck, LossResponse, RtoRule, RttSampling, SpuriousDetection, TcpSpec};
pub use crate::tcp::rwnd::rbsmq::{RbsmqParams, RbsmqScope};
pub use crate::tcp::rwnd::RwndAlgo;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ScenarioSpec {
    /// Simulated duration: the run stops at this time.
    pub duration: Time,
    pub seed: u64,
    /// Period of the sampled time series (queue lengths, goodput); None = no sampling.
    pub sample_interval: Option<Time>,
    pub nodes: Vec<NodeSpec>,
    /// Every hop, in one order: hop i here is hop i of the built network
    /// and of the router's edges. The file's links first (a duplex link is
    /// two), then each kind's hops with the reverse links of its terminals
    /// before them (`network::kinds::Kinds`).
    pub hops: Vec<HopSpec>,
    /// Explicit static routes; any (node, destination) pair not listed here is
    /// filled in with a fewest-hops route.
    pub routes: Vec<RouteSpec>,
    pub flows: Vec<FlowSpec>,
}

impl ScenarioSpec {
    /// A scenario of nodes only (hops, routes and flows to add).
    pub fn new(duration: Time, seed: u64) -> Self {
        ScenarioSpec { duration, seed, sample_interval: None, nodes: Vec::new(), hops: Vec::new(), routes: Vec::new(), flows: Vec::new() }
    }

    /// The graph the router works on: every port of every hop, in hop order.
    pub fn edges(&self) -> Vec<Edge> {
        let mut edges = Vec::new();
        for (h, hop) in self.hops.iter().enumerate() {
            for (port, e) in hop.config().ports().into_iter().enumerate() {
                edges.push(Edge { from: e.from, to: e.to, hop: h as u32, port: port as u32 });
            }
        }
        edges
    }

    /// How many series a run with `sample_interval` samples at every tick:
    /// what each hop samples (`HopConfig::sampled_series`; a test in
    /// sim::sampler holds the two equal) and every flow's goodput, so that
    /// validation can bound samples x series before the run.
    pub fn sampled_series(&self) -> u64 {
        self.hops.iter().map(|h| h.config().sampled_series()).sum::<u64>() + self.flows.len() as u64
    }

    /// The routing table every packet follows (validation walks the same
    /// one), refused past `input::limits::MAX_ROUTE_ENTRIES`.
    pub fn routes(&self) -> Result<Routes, TooManyRoutes> {
        let edges = self.edges();
        // An explicit route names a link hop: its edge is that hop's port 0,
        // the first edge of the hop.
        let mut first_edge = vec![usize::MAX; self.hops.len()];
        for (i, e) in edges.iter().enumerate().rev() {
            first_edge[e.hop as usize] = i;
        }
        let explicit: Vec<Explicit> =
            self.routes.iter().map(|r| Explicit { node: r.node, dest: r.dest, edge: first_edge[r.link] }).collect();
        Routes::build(self.nodes.len(), edges, &explicit, crate::input::limits::MAX_ROUTE_ENTRIES)
    }

    /// The point-to-point links among the hops, in hop order.
    pub fn links(&self) -> Vec<&LinkSpec> {
        self.hops
            .iter()
            .filter_map(|h| match h {
                HopSpec::Link(l) => Some(l),
                _ => None,
            })
            .collect()
    }

    /// The links, to adjust them (tests and tools).
    pub fn links_mut(&mut self) -> impl Iterator<Item = &mut LinkSpec> {
        self.hops.iter_mut().filter_map(|h| match h {
            HopSpec::Link(l) => Some(l),
            _ => None,
        })
    }

    /// Hop `hop`, which must be a link (tests and tools that adjust one).
    pub fn link_mut(&mut self, hop: usize) -> &mut LinkSpec {
        match &mut self.hops[hop] {
            HopSpec::Link(l) => l,
            _ => panic!("hop {hop} is not a link"),
        }
    }

    /// Add a link as the next hop; returns its index.
    pub fn add_link(&mut self, l: LinkSpec) -> usize {
        self.hops.push(HopSpec::Link(l));
        self.hops.len() - 1
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct NodeSpec {
    pub name: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RouteSpec {
    pub node: NodeId,
    pub dest: NodeId,
    /// The link's hop index; the link must start at `node`.
    pub link: usize,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FlowSpec {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    /// The flow starts at `start` plus a uniform time in [0, start_jitter)
    /// that the run's seed draws (`start_in`).
    pub start: Time,
    pub start_jitter: Time,
    /// The application stops offering data at this time (None: runs to the end).
    pub stop: Option<Time>,
    pub app: AppSpec,
}

impl FlowSpec {
    /// When the flow starts in a run whose seed makes `run`: the draw is
    /// from the flow's own stream, named after it, so the same seed gives
    /// the same starts and another seed others.
    pub fn start_in(&self, run: &RngStreams) -> Time {
        self.start
            + match self.start_jitter {
                Time::ZERO => Time::ZERO,
                j => Time(run.stream(&format!("start/{}", self.name)).below(j.0)),
            }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum AppSpec {
    /// Bulk transfer over TCP: unbounded (None) or exactly this many bytes.
    Bulk { bytes: Option<u64>, tcp: TcpSpec },
    /// Constant-bit-rate datagrams (IPv4 + UDP headers added to `packet_size` payload bytes).
    Cbr { packet_size: u32, rate_bps: u64 },
    /// A web-browsing user (Dziong et al.): pages of objects over TCP connections
    /// opened and closed at run time; `from` is the server, `to` the browser.
    Http { http: crate::app::http::HttpSpec, tcp: TcpSpec },
}
