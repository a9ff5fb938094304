//! A queue's row of the `queues` table: every queue reports one (a link's,
//! a 1xEV-DO user's base-station queue, a cdma2000 cell's buffers, an RLP
//! sender's).

use crate::result::{rows, HopTable};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

rows! {
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct QueueResult {
    /// Name of the link whose queue this is.
    pub link: String,
    /// Its discipline: "droptail" or "red".
    pub kind: String,
    /// Drops by reason ("overflow", "red_early", "red_forced", "random_loss", ...).
    pub drops: BTreeMap<String, u64>,
    /// Packets it accepted.
    pub enqueued: u64,
    /// Its longest length, packets.
    pub max_packets: u64,
    /// Its longest length, bytes.
    pub max_bytes: u64,
    /// Time-average queue length, packets.
    pub avg_packets: f64,
    /// Time-average queue length, bytes.
    pub avg_bytes: f64,
    /// Bytes sent over the link / (rate-integral over the run): utilisation in [0, 1].
    pub utilization: f64,
    /// Bytes sent over the link.
    pub bytes_sent: u64,
}
}

impl HopTable for QueueResult {
    const DOC: &'static str = "one row per queue (links, base-station queues, a cell's buffers): drops in all and by reason, lengths, utilization";
}
