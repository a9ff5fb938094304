//! The validated, typed form of a scenario: what the TOML parser produces and
//! the world builder consumes. Every quantity is already in engine units
//! (ns, bit/s, bytes), every reference is already resolved to an index, and
//! every value has passed validation, so the builder cannot fail on it.

use crate::engine::Time;
use crate::net::routing::{Edge, Explicit, Routes};
use serde::{Deserialize, Serialize};

// Each model owns its configuration; the scenario names them here so that
// `scenario::TcpSpec` etc. keep working for the parser and for users.
pub use crate::net::queue::red::RedSpec;
pub use crate::net::queue::{QueueLimit, QueueSpec};
pub use crate::tcp::cc::bbr::BbrParams;
pub use crate::tcp::cc::cubic::CubicParams;
pub use crate::tcp::cc::vegas::VegasParams;
pub use crate::tcp::cc::westwood::WestwoodParams;
pub use crate::tcp::cc::CcAlgo;
pub use crate::tcp::config::{DelAck, RttSampling, SpuriousDetection, TcpSpec};
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
    /// Unidirectional links; a duplex link in the file becomes two entries here.
    pub links: Vec<LinkSpec>,
    /// Explicit static routes; any (node, destination) pair not listed here is
    /// filled in with a fewest-hops route.
    pub routes: Vec<RouteSpec>,
    pub flows: Vec<FlowSpec>,
    /// 1xEV-DO radio access networks: the sectors of one base-station node
    /// each, with their users.
    #[serde(default)]
    pub rans: Vec<crate::evdo::config::RanConfig>,
    /// cdma2000 1X cells: one BSC node each, with its mobiles.
    #[serde(default)]
    pub cells: Vec<crate::cdma2000::config::CellConfig>,
    /// IS-2000 radio links with RLP3: one hop each, port 0 forward, 1 reverse.
    #[serde(default)]
    pub radio_links: Vec<crate::rlp::link::RadioLinkConfig>,
    /// IS-2000 sectors (preset "is2000"): one hop each, ports 2k / 2k + 1
    /// user k's forward and reverse links.
    #[serde(default)]
    pub is2000: Vec<crate::is2000::config::Is2000Config>,
}

impl ScenarioSpec {
    /// The graph the router works on: each link is hop i (its index), then
    /// each radio access network is one hop with a port per user, then each
    /// cdma2000 cell is one hop with a port per mobile, then each radio link
    /// one hop with two ports (forward, reverse).
    pub fn edges(&self) -> Vec<Edge> {
        let links = self.links.iter().enumerate().map(|(i, l)| Edge { from: l.from as u32, to: l.to as u32, hop: i as u32, port: 0 });
        let rans = self.rans.iter().enumerate().flat_map(|(r, ran)| {
            let hop = (self.links.len() + r) as u32;
            ran.users.iter().enumerate().map(move |(u, user)| Edge { from: ran.node as u32, to: user.node as u32, hop, port: u as u32 })
        });
        let first_cell = self.links.len() + self.rans.len();
        let cells = self.cells.iter().enumerate().flat_map(move |(c, cell)| {
            let hop = (first_cell + c) as u32;
            cell.mobiles.iter().enumerate().map(move |(k, m)| Edge { from: cell.node as u32, to: m.node as u32, hop, port: k as u32 })
        });
        let first_radio = first_cell + self.cells.len();
        let radios = self.radio_links.iter().enumerate().flat_map(move |(k, r)| {
            let hop = (first_radio + k) as u32;
            [
                Edge { from: r.bsc as u32, to: r.mobile as u32, hop, port: 0 },
                Edge { from: r.mobile as u32, to: r.bsc as u32, hop, port: 1 },
            ]
        });
        let first_sector = first_radio + self.radio_links.len();
        let sectors = self.is2000.iter().enumerate().flat_map(move |(s, sec)| {
            let hop = (first_sector + s) as u32;
            sec.users.iter().enumerate().flat_map(move |(k, u)| {
                [
                    Edge { from: sec.node as u32, to: u.node as u32, hop, port: 2 * k as u32 },
                    Edge { from: u.node as u32, to: sec.node as u32, hop, port: 2 * k as u32 + 1 },
                ]
            })
        });
        links.chain(rans).chain(cells).chain(radios).chain(sectors).collect()
    }

    /// How many series a run with `sample_interval` samples at every tick:
    /// what `sim::sampler` visits (a test there holds the two equal), so
    /// that validation can bound samples x series before the run.
    pub fn sampled_series(&self) -> u64 {
        let red = |q: &QueueSpec| matches!(q, QueueSpec::Red(_)) as u64;
        let links: u64 = self.links.iter().map(|l| 1 + red(&l.queue)).sum();
        let rans: u64 = self.rans.iter().map(|r| 3 * r.users.len() as u64).sum();
        let cells: u64 = self.cells.iter().map(|c| 2 + red(&c.bsc_queue) + 2 * c.mobiles.len() as u64).sum();
        let radios = 6 * self.radio_links.len() as u64;
        let sectors = self.is2000.len() as u64;
        links + rans + cells + radios + sectors + self.flows.len() as u64
    }

    /// The routing table every packet follows (validation walks the same one).
    pub fn routes(&self) -> Routes {
        let explicit: Vec<Explicit> =
            self.routes.iter().map(|r| Explicit { node: r.node as u32, dest: r.dest as u32, edge: r.link }).collect();
        Routes::build(self.nodes.len(), self.edges(), &explicit)
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct NodeSpec {
    pub name: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LinkSpec {
    pub name: String,
    pub from: usize,
    pub to: usize,
    /// Bits per second at time 0 (the first step of `rate_schedule` if it has one at 0).
    pub rate_bps: u64,
    pub delay: Time,
    pub queue: QueueSpec,
    /// Piecewise-constant rate: (time, bit/s) steps in increasing time. A rate
    /// of 0 is an outage: service pauses and resumes where it stopped.
    pub rate_schedule: Vec<(Time, u64)>,
    /// `rate_schedule` repeats every `.1` from `.0` until the end of the run
    /// (its times lie in [0, period), the first at 0), drawn as the run goes.
    #[serde(default)]
    pub rate_period: Option<(Time, Time)>,
    /// The forward rate follows this channel's DRC sequence slot by slot
    /// (drawn as the run goes; `rate_schedule` is then empty).
    #[serde(default)]
    pub drc: Option<crate::channel::DrcSpec>,
    /// Bernoulli loss probability applied to each packet as it leaves the wire.
    pub loss: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RouteSpec {
    pub node: usize,
    pub dest: usize,
    /// Index into `links`; the link must start at `node`.
    pub link: usize,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FlowSpec {
    pub name: String,
    pub from: usize,
    pub to: usize,
    pub start: Time,
    /// The application stops offering data at this time (None: runs to the end).
    pub stop: Option<Time>,
    pub app: AppSpec,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum AppSpec {
    /// Bulk transfer over TCP: unbounded (None) or exactly this many bytes.
    Bulk { bytes: Option<u64>, tcp: TcpSpec },
    /// Constant-bit-rate datagrams (IPv4 + UDP headers added to `packet_size` payload bytes).
    Cbr { packet_size: u32, rate_bps: u64 },
    /// A web-browsing user (seed 004): pages of objects over TCP connections
    /// opened and closed at run time; `from` is the server, `to` the browser.
    Http { http: crate::app::http::HttpSpec, tcp: TcpSpec },
}
