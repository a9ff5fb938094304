//! TCP endpoint configuration: what a scenario's `[flow.tcp]` table sets,
//! owned by the TCP model (scenario/ parses into it).

use super::cc::CcAlgo;
use super::rwnd::RwndAlgo;
use crate::engine::Time;
use serde::{Deserialize, Serialize};

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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DelAck {
    /// ACK every segment at once.
    EverySegment,
    /// ACK every second full segment, or when the timer expires (RFC 5681 §4.2).
    EverySecond { timeout: Time },
}

/// Which acknowledgements give the retransmission timer an RTT sample.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum RttSampling {
    /// Every new ACK of never-retransmitted data (Karn's rule), or, with
    /// timestamps, every new ACK through its TSecr (RFC 7323 §4).
    #[default]
    EveryAck,
    /// The classic BSD / ns-2 scheme: one segment timed at a time, the first
    /// new one sent while no timing runs; the ACK that covers it gives the
    /// sample; any retransmission (timeout or fast retransmit) before that
    /// cancels the timing (Karn's rule). Timestamps, when on, do not add
    /// samples: still one per round trip (ns-2's TcpAgent instead samples
    /// every ACK when its timestamps are on).
    OnePerRtt,
}

/// Whose rules set the window after a loss and guard fast retransmit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum LossResponse {
    /// The RFCs': ssthresh from FlightSize (RFC 5681 eq. 4), held at a
    /// timeout of an already retransmitted segment (§3.1); the timer runs
    /// on through fast retransmit (RFC 6298 §5); Reno may fast-retransmit
    /// again within a window (RFC 5681 §3.2).
    #[default]
    Rfc,
    /// ns-2.35's TcpAgent / RenoTcpAgent (tcp.cc slowdown and timeout,
    /// tcp-reno.cc dupack_action): ssthresh = max(floor(min(cwnd, wnd) / 2),
    /// 2) segments at every timeout and fast retransmit (so 2 after a
    /// backed-off timeout); fast retransmit restarts the retransmission
    /// timer (`reset_rtx_timer`); with its default `bugFix_`, no fast
    /// retransmit until the cumulative ACK passes the highest segment sent
    /// at the last timeout or fast retransmit (`highest_ack_ > recover_`).
    Ns2,
}

/// How the retransmission timeout follows from SRTT and RTTVAR.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum RtoRule {
    /// RFC 6298 §2: RTO = SRTT + max(G, 4 RTTVAR), then at least min_rto.
    #[default]
    Rfc6298,
    /// Linux (tcp_input.c tcp_set_rto since 2.6.x): RTO = SRTT + max(4
    /// RTTVAR, min_rto): the minimum is a floor on the variance term, not on
    /// the sum, so the timer always allows min_rto beyond the smoothed RTT.
    /// (Linux's mdev_max, a per-round maximum of the deviation, is not
    /// modelled: RTTVAR is RFC 6298's.)
    Linux,
}

fn yes() -> bool {
    true
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
    /// Sender socket buffer (bytes): every byte sent stays in it until it is
    /// acknowledged, so it caps the data in flight. None: no cap (the
    /// application keeps the buffer full, as Linux's autotuning does).
    #[serde(default)]
    pub snd_buffer: Option<u64>,
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
    /// Open the connection with SYN / SYN-ACK. Without it the connection
    /// starts established, as ns-2's one-way TCP agents do: data at the start
    /// time, no handshake RTT sample (the RTO stays at `initial_rto` until
    /// the first data sample).
    #[serde(default = "yes")]
    pub handshake: bool,
    #[serde(default)]
    pub rtt_sampling: RttSampling,
    #[serde(default)]
    pub rto_rule: RtoRule,
    /// The RFCs' loss response or ns-2.35's agents' (`LossResponse`).
    #[serde(default)]
    pub loss_response: LossResponse,
    /// RFC 7661 §4.3: grow cwnd only while the sender uses it (not while the
    /// receiver's window or the application is the limit), as Linux does.
    /// Off: cwnd grows on every ACK, as ns-2's agents do.
    #[serde(default = "yes")]
    pub cwnd_validation: bool,
    /// The retransmission timer's clock tick. None: RFC 6298 arithmetic on
    /// nanosecond samples with G = 1 ms. Some(tick): ns-2's TcpAgent
    /// arithmetic (tcp.cc rtt_update / rtt_timeout) in whole ticks.
    #[serde(default)]
    pub timer_granularity: Option<Time>,
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
            snd_buffer: None,
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
            handshake: true,
            rtt_sampling: RttSampling::EveryAck,
            rto_rule: RtoRule::Rfc6298,
            loss_response: LossResponse::Rfc,
            timer_granularity: None,
            cwnd_validation: true,
        }
    }
}

