//! The validated, typed form of a scenario: what the TOML parser produces and
//! the world builder consumes. Every quantity is already in engine units
//! (ns, bit/s, bytes), every reference is already resolved to an index, and
//! every value has passed validation, so the builder cannot fail on it.

use crate::engine::Time;
use serde::{Deserialize, Serialize};

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
    /// Bernoulli loss probability applied to each packet as it leaves the wire.
    pub loss: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum QueueLimit {
    Packets(u64),
    Bytes(u64),
    Unlimited,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum QueueSpec {
    DropTail { limit: QueueLimit },
    Red(RedSpec),
}

/// RED parameters (Floyd & Jacobson 1993). Thresholds and limit are in packets
/// in packet mode and in bytes in byte mode.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RedSpec {
    pub limit: QueueLimit,
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    /// EWMA weight w_q.
    pub w_q: f64,
    /// Gentle mode: drop probability rises from max_p to 1 between max_th and 2 max_th.
    pub gentle: bool,
    /// Byte mode: thresholds in bytes and drop probability scaled by packet size / mean_pkt_size.
    pub byte_mode: bool,
    /// Typical packet size (bytes), used for the idle-time correction and byte mode.
    pub mean_pkt_size: u32,
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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CcAlgo {
    Reno,
    NewReno,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DelAck {
    /// ACK every segment at once.
    EverySegment,
    /// ACK every second full segment, or when the timer expires (RFC 5681 §4.2).
    EverySecond { timeout: Time },
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TcpSpec {
    pub cc: CcAlgo,
    pub sack: bool,
    pub timestamps: bool,
    /// Maximum segment size: payload bytes per segment.
    pub mss: u32,
    /// Initial congestion window in segments (RFC 6928 allows 10; RFC 5681 says 2–4).
    pub initial_window: u32,
    /// Receiver buffer (bytes): the advertised window is what is free of it.
    pub rcv_buffer: u64,
    pub delayed_ack: DelAck,
    pub min_rto: Time,
    pub initial_rto: Time,
    pub max_rto: Time,
    /// Duplicate ACKs that trigger fast retransmit.
    pub dupack_threshold: u32,
    /// Limited Transmit (RFC 3042): a new segment on each of the first two
    /// duplicate ACKs, so that small windows still reach fast retransmit.
    pub limited_transmit: bool,
    /// Record cwnd and ssthresh every time they change.
    pub trace_cwnd: bool,
}

impl Default for TcpSpec {
    fn default() -> Self {
        Self {
            cc: CcAlgo::NewReno,
            sack: false,
            timestamps: false,
            mss: 1460,
            initial_window: 2,
            rcv_buffer: 1 << 20,
            delayed_ack: DelAck::EverySegment,
            min_rto: crate::engine::NS_PER_SEC,
            initial_rto: crate::engine::NS_PER_SEC,
            max_rto: 60 * crate::engine::NS_PER_SEC,
            dupack_threshold: 3,
            limited_transmit: true,
            trace_cwnd: false,
        }
    }
}
