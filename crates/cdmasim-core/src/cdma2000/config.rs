//! Configuration of a cdma2000 1X cell, owned by the model; scenario/
//! parses `[[cell]]`, `[[mobile]]` and the `cdma2000` preset into it.

use crate::net::NodeId;
use crate::engine::Time;
use crate::net::hop::{Ends, HopConfig};
use crate::net::queue::{QueueLimit, QueueSpec};
use serde::{Deserialize, Serialize};

/// Rate Set 1's base rate: the FCH, and one "X" of an SCH (IS-2000).
pub const BASE_RATE_BPS: u64 = 9_600;

/// The SCH rates IS-2000 defines for Rate Set 1: 1X, 2X, 4X, 8X, 16X.
pub const SCH_MULTIPLES: [u64; 5] = [1, 2, 4, 8, 16];

/// Paliwal et al. Table I: the BSC's buffer is served at m·n·38.4 kb/s.
pub const BSC_RATE_PER_MOBILE_BPS: u64 = 38_400;

/// Table I: d^s, d^c, d^t and d^m are 37.5 ms each (300 ms round trip).
pub const TABLE1_DELAY: Time = Time::from_micros(37_500);

/// Table I: a DropTail BSC buffer of 5 kB.
pub fn default_bsc_queue() -> QueueSpec {
    QueueSpec::DropTail { limit: QueueLimit::Bytes(5_000) }
}

/// Table I: the link buffer of a mobile has no limit.
pub fn default_link_queue() -> QueueSpec {
    QueueSpec::DropTail { limit: QueueLimit::Unlimited }
}

/// Whether a bit/s value is one of the SCH rates 1X–16X.
pub fn is_sch_rate(bps: u64) -> bool {
    sch_index(bps).is_some()
}

/// The index in `SCH_MULTIPLES` of the SCH rate `bps` (None: not one).
pub fn sch_index(bps: u64) -> Option<usize> {
    SCH_MULTIPLES.iter().position(|&x| x * BASE_RATE_BPS == bps)
}

/// When a rate change takes effect on a packet in transmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RateChange {
    /// Bit-exact: the bits already sent stay sent, the rest go at the new rate.
    Exact,
    /// From the next packet on (ns-2's links, which the paper used).
    NextPacket,
}

/// How the supplemental channels are allocated.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum SchPlan {
    /// FCH only.
    None,
    /// Every mobile gets `sch_bps` at `at` (the worst case of §IV-B), until `until`.
    At { at: Time, until: Option<Time>, sch_bps: u64 },
    /// Mobiles switch up one after another from `start`, T_r/(m·n) apart (§IV-D).
    Rise { start: Time, rise: Time, sch_bps: u64 },
    /// Finite bursts (§IV-E): on for T_B, off for T_D, from `start` (the
    /// mobiles run on the FCH alone before it); within each cycle the
    /// up-switches spread over the first `spread`·T_B and the down-switches
    /// over the first `spread`·T_D after the burst, in `order`.
    Bursts { burst: Time, gap: Time, start: Time, spread: f64, order: BurstOrder, sch_bps: u64 },
    /// (time, mobile index, SCH bit/s) from a file, in time order.
    List(Vec<(Time, usize, u64)>),
    /// Demand-driven grants by the BSC.
    Demand(DemandConfig),
}

/// How a burst cycle's switches spread over its rise (and fall) time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BurstOrder {
    /// §IV-D and E: one after another, mobile k of n at k/n of the rise
    /// time ("time between switching to higher rate of two mobiles is
    /// T_r/(m·n)"), in the same order every cycle.
    Sequential,
    /// Each mobile at a uniform point of the rise (fall) time, drawn per
    /// mobile and cycle from the seed: a variant, not the paper's rule.
    Random,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DemandConfig {
    /// A mobile requests an SCH when more than this many bytes wait in its link buffer.
    pub threshold_bytes: u64,
    /// Time from the request to the grant (signalling, IS-2000's SCRM → ESCAM).
    pub grant_delay: Time,
    /// Longest grant; released earlier when the link buffer idles.
    pub burst: Time,
    /// The highest SCH rate granted.
    pub max_sch_bps: u64,
    /// SCH bit/s one BTS may have granted at once.
    pub bts_budget_bps: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MobileConfig {
    pub name: String,
    /// The mobile's node (created for it).
    pub node: NodeId,
    /// Index of its BTS (0-based).
    pub bts: u32,
    /// Its link buffer B^dl at the BTS.
    pub queue: QueueSpec,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CellConfig {
    pub name: String,
    /// The BSC node: packets for the mobiles enter here.
    pub node: NodeId,
    /// Service rate of the shared buffer B_cum.
    pub bsc_rate_bps: u64,
    pub bsc_queue: QueueSpec,
    /// BSC → BTS (d^t) and BTS → mobile (d^m) one-way delays.
    pub bts_delay: Time,
    pub radio_delay: Time,
    pub fch_bps: u64,
    pub rate_change: RateChange,
    pub sch: SchPlan,
    pub mobiles: Vec<MobileConfig>,
}

/// Port k: the BSC to mobile k.
impl HopConfig for CellConfig {
    fn ports(&self) -> Vec<Ends> {
        self.mobiles.iter().map(|m| Ends { from: self.node, to: m.node }).collect()
    }

    /// The shared buffer (and RED's average), the sum of the link buffers,
    /// and per mobile its link buffer and rate.
    fn sampled_series(&self) -> u64 {
        2 + matches!(self.bsc_queue, QueueSpec::Red(_)) as u64 + 2 * self.mobiles.len() as u64
    }

    fn terminals(&self) -> Option<(NodeId, Vec<NodeId>)> {
        Some((self.node, self.mobiles.iter().map(|m| m.node).collect()))
    }
}
