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

/// The congestion-control algorithm and its parameters, each defaulting to
/// the value of its paper or RFC (`[flow.tcp.<name>]` overrides them).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum CcAlgo {
    Reno,
    NewReno,
    Vegas(VegasParams),
    Westwood(WestwoodParams),
    Cubic(CubicParams),
    Bbr(BbrParams),
}

impl CcAlgo {
    pub fn name(&self) -> &'static str {
        match self {
            CcAlgo::Reno => "reno",
            CcAlgo::NewReno => "newreno",
            CcAlgo::Vegas(_) => "vegas",
            CcAlgo::Westwood(_) => "westwood",
            CcAlgo::Cubic(_) => "cubic",
            CcAlgo::Bbr(_) => "bbr",
        }
    }
}

/// TCP Vegas (Brakmo & Peterson, IEEE JSAC 1995 §3.2–3.3): thresholds on
/// Diff = (Expected − Actual) · BaseRTT, in segments queued in the network.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct VegasParams {
    /// Below alpha segments queued, grow cwnd by one segment per RTT (paper: 1).
    pub alpha: f64,
    /// Above beta, shrink by one segment per RTT (paper: 3).
    pub beta: f64,
    /// Leave slow start when Diff exceeds gamma (paper: 1).
    pub gamma: f64,
}

impl Default for VegasParams {
    fn default() -> Self {
        Self { alpha: 1.0, beta: 3.0, gamma: 1.0 }
    }
}

/// TCP Westwood+ (Grieco & Mascolo, CCR 2004): one bandwidth sample per RTT,
/// low-pass filtered; after a loss ssthresh = BWE · RTTmin.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct WestwoodParams {
    /// Weight of the old estimate in the EWMA filter (7/8 as in Westwood+).
    pub filter_gain: f64,
    /// Shortest interval for one bandwidth sample (Linux: 50 ms).
    pub min_sample_interval: Time,
}

impl Default for WestwoodParams {
    fn default() -> Self {
        Self { filter_gain: 0.875, min_sample_interval: 50 * crate::engine::NS_PER_MS }
    }
}

/// CUBIC (RFC 9438).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CubicParams {
    /// C of W_cubic(t) = C (t − K)^3 + W_max, segments/s^3 (RFC 9438 §5: 0.4).
    pub c: f64,
    /// Multiplicative decrease factor beta_cubic (RFC 9438 §4.6: 0.7).
    pub beta: f64,
    /// Fast convergence (RFC 9438 §4.7).
    pub fast_convergence: bool,
    /// The Reno-friendly region (RFC 9438 §4.3).
    pub reno_friendly: bool,
    /// HyStart++ (RFC 9406) in slow start.
    pub hystart: bool,
}

impl Default for CubicParams {
    fn default() -> Self {
        Self { c: 0.4, beta: 0.7, fast_convergence: true, reno_friendly: true, hystart: false }
    }
}

/// BBR v1 (Cardwell et al., ACM Queue 2016; draft-cardwell-iccrg-bbr-congestion-control-00).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BbrParams {
    /// Startup pacing and cwnd gain (2/ln 2).
    pub high_gain: f64,
    /// cwnd gain in ProbeBW (2).
    pub cwnd_gain: f64,
    /// Max filter window for the bottleneck bandwidth, in round trips (10).
    pub bw_window_rounds: u32,
    /// Min filter window for RTprop (10 s).
    pub min_rtt_window: Time,
    /// Time spent in ProbeRTT at 4 packets in flight (200 ms).
    pub probe_rtt_duration: Time,
    /// Startup ends when bandwidth grew less than this factor (1.25) ...
    pub full_bw_growth: f64,
    /// ... for this many round trips in a row (3).
    pub full_bw_rounds: u32,
}

impl Default for BbrParams {
    fn default() -> Self {
        Self {
            high_gain: 2.0 / std::f64::consts::LN_2,
            cwnd_gain: 2.0,
            bw_window_rounds: 10,
            min_rtt_window: 10 * crate::engine::NS_PER_SEC,
            probe_rtt_duration: 200 * crate::engine::NS_PER_MS,
            full_bw_growth: 1.25,
            full_bw_rounds: 3,
        }
    }
}

/// How the sender tells a spurious retransmission timeout from a real one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SpuriousDetection {
    Off,
    /// Eifel detection (RFC 3522): the timestamp echoed by the first ACK
    /// after the retransmission predates it. Needs timestamps.
    Eifel,
    /// F-RTO (RFC 5682): new data after the retransmission; two new ACKs
    /// in a row mean the original segments were only delayed.
    Frto,
}

/// The receiver's advertised-window policy.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum RwndAlgo {
    /// Advertise all free receive-buffer space.
    Fixed,
    /// Seed 003 §IV: receiver-based stable and minimum queueing.
    Rbsmq(RbsmqParams),
}

/// RBSMQ (seed 003 §IV). Windows are in segments of the connection's MSS.
/// The defaults are justified in docs/tcp.md (## RBSMQ).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RbsmqParams {
    /// Runs of short inter-arrival times shorter than alpha grow the window by one.
    pub alpha: u32,
    /// Runs longer than beta shrink it by one; None: beta is the quotient
    /// longtime_base / shorttime_base, as the paper defines it.
    pub beta: Option<u32>,
    /// Weight of the old base (7/8) and of the old variance (3/4).
    pub base_gain: f64,
    pub variance_gain: f64,
    /// Starting values of the bases after a reset. Each base adapts freely
    /// downwards but only slowly upwards (a sample beyond its boundary is not
    /// taken), so these must lie above the values to be learnt.
    pub initial_short_base: Time,
    pub initial_long_base: Time,
    /// Window at the start of a connection, and its bounds (segments). A
    /// decrease phase lasts until the receiver sees the queue run dry, one
    /// RTT after the sender went quiet, so it ends at min_window: the floor
    /// should cover the path's bandwidth-delay product (5 × 1500 B on 1X).
    pub initial_window: u32,
    pub min_window: u32,
    pub max_window: u32,
    /// Whether the inter-arrival estimator belongs to each connection or is
    /// shared by all RBSMQ connections arriving at the same node.
    pub scope: RbsmqScope,
}

/// Who owns RBSMQ's inter-arrival estimator (bases, variances, run count).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RbsmqScope {
    /// One estimator per receiving node: every data segment arriving there
    /// (of any RBSMQ connection with the same parameters) is one arrival.
    Host,
    /// One estimator per connection: only its own segments count.
    Connection,
}

impl Default for RbsmqParams {
    fn default() -> Self {
        Self {
            alpha: 3,
            beta: None,
            base_gain: 0.875,
            variance_gain: 0.75,
            initial_short_base: 200 * crate::engine::NS_PER_MS,
            initial_long_base: crate::engine::NS_PER_SEC,
            initial_window: 5,
            min_window: 5,
            max_window: 64,
            scope: RbsmqScope::Host,
        }
    }
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
    /// Spurious-timeout detection (RFC 3522 Eifel or RFC 5682 F-RTO).
    pub spurious_detection: SpuriousDetection,
    /// On a detected spurious timeout, respond as RFC 4015 (Eifel response):
    /// restore the window, resume with new data, adapt the RTO. Without it
    /// the detection only counts.
    pub eifel_response: bool,
    /// The receiver's advertised-window policy.
    pub rwnd: RwndAlgo,
    /// Record cwnd and ssthresh (and the advertised window, and a pacing
    /// algorithm's rate) every time they change.
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
            spurious_detection: SpuriousDetection::Off,
            eifel_response: true,
            rwnd: RwndAlgo::Fixed,
            trace_cwnd: false,
        }
    }
}
