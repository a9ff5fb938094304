//! The 1xEV-DO result tables' rows: `users` and `sectors`.

use crate::result::{rows, HopTable};
use serde::{Deserialize, Serialize};

rows! {
/// One 1xEV-DO user (access terminal) over the run.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct UserResult {
    /// The user (`[[user]]`).
    pub name: String,
    /// The sector serving it at the end.
    pub sector: String,
    /// IP bytes delivered to it × 8 / run time, bit/s.
    pub throughput_bps: f64,
    /// Mean nominal DRC rate over every slot of the run, bit/s.
    pub mean_drc_bps: f64,
    /// throughput_bps / mean_drc_bps (Liu et al. §7.3's utilisation, at the IP layer).
    pub utilisation: f64,
    /// Slots that carried its data.
    pub slots_served: u64,
    /// slots_served as a fraction of its sectors' traffic slots.
    pub slot_share: f64,
    /// Those of slots_served in which another user of the serving sector
    /// had packets queued (a slot that goes on with a multi-slot packet
    /// counts too). When the same users are backlogged throughout, as two
    /// bulk downloads, these are split as a full-buffer study predicts.
    #[serde(default)]
    pub slots_contended: u64,
    /// IP packets delivered to it.
    pub packets_delivered: u64,
    /// Times it moved to another sector.
    pub handoffs: u64,
    /// Physical-layer packets that carried its data on the forward link.
    /// This and the next four come from its forward RLP (`[[user]] rlp`);
    /// without it, zeros but this count.
    #[serde(default)]
    pub physical_packets: u64,
    /// Those the channel erased.
    #[serde(default)]
    pub erased_packets: u64,
    /// Octets RLP sent again.
    #[serde(default)]
    pub rlp_retransmitted_bytes: u64,
    /// Holes RLP gave up on after its one retransmission.
    #[serde(default)]
    pub rlp_aborts: u64,
    /// IP packets lost with them.
    #[serde(default)]
    pub rlp_lost_packets: u64,
    /// Its reverse link with the Rev. 0 MAC (`[[user]] reverse_mac`; this
    /// and the next seven None without): IP bytes delivered × 8 / run
    /// time, bit/s.
    #[serde(default)]
    pub reverse_throughput_bps: Option<f64>,
    /// The mean rate of its reverse frames, bit/s.
    #[serde(default)]
    pub reverse_mean_rate_bps: Option<f64>,
    /// Reverse frames sent.
    #[serde(default)]
    pub reverse_frames: Option<u64>,
    /// Those sent at 153.6 kb/s.
    #[serde(default)]
    pub reverse_frames_153k6: Option<u64>,
    /// Those sent while its sector's RAB was set.
    #[serde(default)]
    pub reverse_busy_frames: Option<u64>,
    /// Those whose rate its transmit power capped.
    #[serde(default)]
    pub reverse_power_limited_frames: Option<u64>,
    /// Reverse frames erased.
    #[serde(default)]
    pub reverse_erased_frames: Option<u64>,
    /// IP packets lost when a resend was erased too.
    #[serde(default)]
    pub reverse_rlp_lost_packets: Option<u64>,
}

/// One 1xEV-DO sector over the run.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct SectorResult {
    /// The sector (`[[sector]]`).
    pub name: String,
    /// Its forward-link scheduler (`sched::SCHEDULERS`: "pf", "rr", "maxci").
    pub scheduler: String,
    /// Slots the traffic channel had (control-channel slots left out).
    pub traffic_slots: u64,
    /// Fraction of those that carried data.
    pub utilisation: f64,
    /// Sum of the octets carried × 8 / run time, bit/s.
    pub throughput_bps: f64,
    /// Jain's index of the octets carried per user, over the users it served at some time.
    pub jain: f64,
    /// Share of the reverse frames for which it set the RAB (None when no
    /// user of its RAN has a reverse MAC).
    #[serde(default)]
    pub rab_busy: Option<f64>,
}
}

impl HopTable for UserResult {
    const DOC: &'static str = "one row per 1xEV-DO user: throughput, DRC, slots, hand-offs; its forward RLP (`[[user]] rlp`) and reverse MAC (`reverse_mac`; empty without)";
}

impl HopTable for SectorResult {
    const DOC: &'static str = "one row per 1xEV-DO sector: scheduler, slot utilisation, throughput, Jain's index, RAB busy share (with `reverse_mac`)";
}
