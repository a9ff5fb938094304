//! A terminal's reverse link in the radio access network: its rate control
//! (`evdo::reverse`), what it sends, and the frame it has on the air.
//!
//! A user with `reverse_mac` sends its IP packets through a `Bearer` (its
//! buffer, PPP and the reverse RLP, whose erased frames are NAKed and sent
//! once more, as on the forward link). A background user carries no
//! packets; its reverse link carries the TCP acknowledgements of its
//! download, one 40-byte ACK per two 1500-byte segments (delayed ACK,
//! RFC 1122 §4.2.3.2), so that it loads the sector's reverse link in
//! proportion to what the forward link gave it.

use super::air::AirOverhead;
use super::bearer::Bearer;
use super::reverse::{Limit, RateControl, ReverseConfig, RATE_BPS};
use super::rlp::Load;
use crate::channel::sinr_mapper::DEFAULT_THRESHOLDS_DB;
use crate::engine::Time;
use crate::net::queue::QueueSpec;
use serde::{Deserialize, Serialize};

/// A user's reverse link with its own MAC (`[[user]] reverse_mac`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct UplinkConfig {
    pub mac: ReverseConfig,
    /// The terminal's buffer in front of the air.
    pub queue: QueueSpec,
    /// A capture sees the packets as the terminal sends them, before its buffer.
    pub capture_at_entry: bool,
}

/// What the reverse link carries.
pub enum Carries {
    Packets(Bearer),
    /// A background user's ACKs: PPP octets owed.
    Acks { owed: f64 },
    /// A background user that also uploads all the time (`background.upload`):
    /// it always has data, as a full-buffer download always has slots to fill.
    Backlog,
}

/// Counts over the run.
#[derive(Clone, Copy, Debug, Default)]
pub struct UplinkStats {
    /// Frames sent, by rate index.
    pub frames: [u64; 6],
    /// Frames sent while the serving sector's RAB was set, and those whose
    /// rate the terminal's power capped.
    pub busy_frames: u64,
    pub power_limited: u64,
    /// PPP octets carried.
    pub air_bytes: u64,
    pub packets_delivered: u64,
    pub ip_bytes_delivered: u64,
}

impl UplinkStats {
    pub fn frames_sent(&self) -> u64 {
        self.frames[1..].iter().sum()
    }

    /// Mean rate of the frames sent, bit/s.
    pub fn mean_rate_bps(&self) -> f64 {
        let n = self.frames_sent();
        let sum: u64 = self.frames.iter().zip(RATE_BPS).map(|(&k, r)| k * r).sum();
        if n > 0 { sum as f64 / n as f64 } else { 0.0 }
    }
}

pub struct Uplink {
    pub mac: RateControl,
    pub carries: Carries,
    pub capture_at_entry: bool,
    /// The frame on the air: what RLP learns the fate of when it ends.
    pub on_air: Option<Load>,
    /// The forward link's SINR (dB, by its DRC's threshold) summed over the
    /// slots of the frame in progress: the next frame's power headroom
    /// follows its mean, the path loss the two links share.
    sinr_sum: f64,
    sinr_slots: u32,
    /// Its mean over the last whole frame (5 dB until there is one).
    sinr_db: f64,
    pub stats: UplinkStats,
}

/// The forward SINR a null DRC stands for: 3 dB under the lowest DRC's threshold.
const NULL_DRC_SINR_DB: f64 = -15.0;

impl Uplink {
    pub fn new(mac: RateControl, carries: Carries, capture_at_entry: bool) -> Uplink {
        Uplink { mac, carries, capture_at_entry, on_air: None, sinr_sum: 0.0, sinr_slots: 0, sinr_db: 5.0, stats: UplinkStats::default() }
    }

    /// The bearer of a user's packets (None for a background user).
    pub fn bearer(&self) -> Option<&Bearer> {
        match &self.carries {
            Carries::Packets(b) => Some(b),
            _ => None,
        }
    }

    pub fn bearer_mut(&mut self) -> Option<&mut Bearer> {
        match &mut self.carries {
            Carries::Packets(b) => Some(b),
            _ => None,
        }
    }

    /// The forward link's DRC in one more slot.
    pub fn observe(&mut self, drc: u8) {
        let db = if drc == 0 { NULL_DRC_SINR_DB } else { DEFAULT_THRESHOLDS_DB[drc as usize] };
        self.sinr_sum += db;
        self.sinr_slots += 1;
    }

    /// A frame boundary: the SINR the next frame's headroom follows.
    fn close_sinr(&mut self) -> f64 {
        if self.sinr_slots > 0 {
            self.sinr_db = self.sinr_sum / self.sinr_slots as f64;
        }
        self.sinr_sum = 0.0;
        self.sinr_slots = 0;
        self.sinr_db
    }

    /// Whether it has anything to send or on its way.
    pub fn busy(&self) -> bool {
        self.on_air.is_some()
            || match &self.carries {
                Carries::Packets(b) => b.backlogged() || b.rlp.len() > 0,
                Carries::Acks { owed } => *owed >= 1.0,
                Carries::Backlog => true,
            }
    }

    /// A background user's forward link carried `octets`: its ACKs are owed.
    pub fn acks_for(&mut self, octets: u64, air: &AirOverhead) {
        if let Carries::Acks { owed } = &mut self.carries {
            *owed += octets as f64 * air.air_bytes(40) as f64 / (2 * air.air_bytes(1500)) as f64;
        }
    }

    /// Choose the next frame's rate at its start `t` with the sector's RAB
    /// `busy`: returns the rate index (0: no frame) and the PPP octets it
    /// can carry.
    pub fn start_frame(&mut self, t: Time, busy: bool, air: &AirOverhead) -> (u8, u64) {
        let sinr = self.close_sinr();
        let pending = match &self.carries {
            Carries::Packets(b) => b.pending(t, air),
            Carries::Acks { owed } => owed.floor() as u64,
            Carries::Backlog => u64::MAX,
        };
        let (rate, limit) = self.mac.next_frame(busy, sinr, pending);
        if rate > 0 {
            self.stats.frames[rate as usize] += 1;
            self.stats.busy_frames += busy as u64;
            self.stats.power_limited += (limit == Limit::Power) as u64;
        }
        (rate, super::reverse::payload_bytes(rate))
    }
}
