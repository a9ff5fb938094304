//! Configuration of a 1xEV-DO radio access network: the sectors of one
//! base station, its users (access terminals) and their hand-offs. Owned
//! by the model; scenario/ parses `[[sector]]` and `[[user]]` tables into it.

use crate::net::NodeId;
use crate::net::ppp::Compression;
use super::air::AirOverhead;
use crate::sched::pf::PfConfig;
use crate::channel::DrcSpec;
use crate::engine::Time;
use crate::net::hop::{Ends, HopConfig};
use crate::net::queue::{QueueLimit, QueueSpec};
use serde::{Deserialize, Serialize};

/// Liu et al. §4: "The per-user buffer at the base station was configured to
/// be 64 Kbytes".
pub fn default_user_queue() -> QueueSpec {
    QueueSpec::DropTail { limit: QueueLimit::Bytes(64 * 1024) }
}

/// What a sector does with the PF average of a user handed to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum HandoffPf {
    /// Serve the user as a new user (Liu et al. §6: what a real sector does).
    Reset,
    /// Take over the average the old sector had (the paper's better option).
    Keep,
}

/// What happens to the data queued for a user when it is handed off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum HandoffQueue {
    /// The queue follows the user to the new sector (forwarded by the RNC).
    Forward,
    /// The old sector discards it (drop reason `handoff`).
    Drop,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SectorConfig {
    pub name: String,
    /// "pf", "rr" or "maxci" (`sched::SCHEDULERS`).
    pub scheduler: String,
    pub pf: PfConfig,
    /// 4: the C.S0024 four-slot interlace; 1: multi-slot packets in
    /// consecutive slots; 0: every slot carries its DRC's rate / 600 bits
    /// (the per-slot rate model of Liu et al.'s Fig. 6 trace study).
    pub interlace: u8,
    pub handoff_pf: HandoffPf,
    pub handoff_queue: HandoffQueue,
    /// How the sector's reverse-link load sets its RAB (used when a user
    /// of the RAN has a reverse MAC).
    #[serde(default)]
    pub rab: super::reverse::RabConfig,
}

/// When a user changes sector.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum HandoffPlan {
    Never,
    /// At these times, to these sectors (indices into the RAN's sectors).
    At(Vec<(Time, usize)>),
    /// Every `min..=max` (uniform, drawn per user), to the next sector of
    /// `sectors` after the current one (cyclically).
    Every { min: Time, max: Time, sectors: Vec<usize> },
    /// When the user's DRC source reports a hand-off (the `mobile` preset
    /// crosses a cell edge every 20–30 s), to the next sector of `sectors`.
    Channel { sectors: Vec<usize> },
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct UserConfig {
    pub name: String,
    /// The user's node (created for it).
    pub node: NodeId,
    /// The sector serving it at the start.
    pub sector: usize,
    pub drc: DrcSpec,
    /// Its queue at the base station.
    pub queue: QueueSpec,
    pub handoff: HandoffPlan,
    /// The user's PPP link runs this header compression (`net::ppp`); None:
    /// PPP framing only, as `air` counts it.
    #[serde(default)]
    pub ppp: Option<Compression>,
    /// IP packets lost below PPP after the air link's own error recovery
    /// (its residual loss, per packet).
    #[serde(default)]
    pub loss: f64,
    /// The forward link's RLP with physical-layer erasures (`evdo::rlp`);
    /// None: no erasures.
    #[serde(default)]
    pub rlp: Option<super::rlp::RlpConfig>,
    /// Its reverse link through the RAN with the Rev. 0 MAC (None: a link
    /// `NAME.up` of its own).
    #[serde(default)]
    pub reverse: Option<super::uplink::UplinkConfig>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RanConfig {
    /// The base-station node: packets for the users enter here.
    pub node: NodeId,
    /// One-way delay from the end of a physical-layer packet to the user
    /// (decoding, RLP reassembly, the terminal's stack).
    pub delay: Time,
    pub air: AirOverhead,
    pub sectors: Vec<SectorConfig>,
    pub users: Vec<UserConfig>,
    /// Users that load the sectors (`[[sector]] background`): backlogged all
    /// the time or a share of it, scheduled like any user, carrying no packets.
    #[serde(default)]
    pub background: Vec<BackgroundUser>,
}

/// A user that loads a sector: it always has data at the base station, so
/// the scheduler serves it by its channel as it would a bulk download's
/// user (Liu et al. §6's full-buffer model), but no packet of it is
/// simulated. Its slots are what a measured user's sharing costs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BackgroundUser {
    pub name: String,
    pub sector: usize,
    pub drc: DrcSpec,
    /// Backlogged only part of the time (None: always, a full buffer).
    #[serde(default)]
    pub activity: Option<Activity>,
    /// It also uploads all the time, through the reverse MAC (when a user
    /// of its RAN has one); otherwise its reverse link carries its ACKs.
    #[serde(default)]
    pub upload: bool,
}

/// A background user that has data only part of the time: busy and idle
/// periods alternate, each exponentially distributed (a two-state Markov
/// chain in continuous time), so the share of time it is backlogged is
/// `busy`. It stands for a web user, whose page downloads (busy) alternate
/// with reading (idle), or for a sector whose measured share of busy slots
/// is known but not its traffic.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Activity {
    /// Long-run share of the time it has data, in (0, 1).
    pub busy: f64,
    /// Mean length of a busy period; idle periods have mean
    /// busy_period · (1 − busy) / busy.
    pub busy_period: Time,
}

impl Activity {
    /// Mean length of an idle period.
    pub fn idle_period(&self) -> Time {
        Time((self.busy_period.0 as f64 * (1.0 - self.busy) / self.busy).round() as u64)
    }
}

/// Port k: the base station to user k; then, for each user with a
/// reverse MAC in order, the user to the base station.
impl HopConfig for RanConfig {
    fn ports(&self) -> Vec<Ends> {
        let down = self.users.iter().map(|u| Ends { from: self.node, to: u.node });
        let up = self.users.iter().filter(|u| u.reverse.is_some()).map(|u| Ends { from: u.node, to: self.node });
        down.chain(up).collect()
    }

    /// Per user (background users too): the queue, the PF average and the
    /// DRC rate; per user with a reverse MAC, its buffer and frame rate.
    fn sampled_series(&self) -> u64 {
        3 * (self.users.len() + self.background.len()) as u64 + 2 * self.users.iter().filter(|u| u.reverse.is_some()).count() as u64
    }

    fn terminals(&self) -> Option<(NodeId, Vec<NodeId>)> {
        Some((self.node, self.users.iter().map(|u| u.node).collect()))
    }
}
