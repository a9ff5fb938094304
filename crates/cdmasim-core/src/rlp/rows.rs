//! The `radio_links` table's row: one direction of an RLP3 radio link.

use crate::result::{rows, Cdf, HopTable, Long};
use serde::{Deserialize, Serialize};

rows! {
/// One direction of a radio link over the run (Dziong et al. §3.3, §5.1.4).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RadioLinkResult {
    /// The radio link (`[[radio_link]]`, or an IS-2000 user's).
    pub name: String,
    /// "down" (forward, to the mobile) or "up".
    pub direction: String,
    /// The rate at the end of the run, bit/s.
    pub rate_bps: f64,
    /// IP packets handed to its RLP sender.
    pub packets_in: u64,
    /// IP packets its RLP receiver delivered whole.
    pub packets_delivered: u64,
    /// IP packets dropped because RLP gave up on one of their frames.
    pub packets_aborted: u64,
    /// 20 ms RLP frames sent (new data, retransmissions and idle frames).
    pub frames_sent: u64,
    /// Frames that carried new data.
    pub frames_new: u64,
    /// Frames that carried retransmitted data.
    pub frames_retransmitted: u64,
    /// Frames sent with no data to carry.
    pub frames_idle: u64,
    /// Frames the channel erased.
    pub frames_lost: u64,
    /// frames_lost / frames_sent.
    pub fer: f64,
    /// NAKs the receiver of this direction sent (in the other direction's frames).
    pub naks_sent: u64,
    /// The RLP sender's buffer of new data, bytes: its time-average.
    pub new_data_mean_bytes: f64,
    /// The same buffer's largest content, bytes.
    pub new_data_max_bytes: u64,
    /// The RLP sender's retransmission buffer, bytes: its time-average.
    pub rtx_mean_bytes: f64,
    /// The retransmission buffer's largest content, bytes.
    pub rtx_max_bytes: u64,
    /// The new-data buffer's distribution over the run: (bytes, fraction of
    /// the time at or below), at the upper edge of each occupied 24-byte bin.
    pub new_data_cdf: Cdf,
    /// The retransmission buffer's distribution, as new_data_cdf.
    pub rtx_cdf: Cdf,
    /// Channel ON periods (consecutive frames carrying data, §5.2.3).
    pub on_periods: u64,
    /// Their lengths' distribution: (seconds, fraction of periods at or below).
    pub on_time_cdf: Cdf,
    /// An IS-2000 sector's user, on the forward ("down") row: its sector.
    /// None on "up" rows and stand-alone links, as the next two.
    pub sector: Option<String>,
    /// The SCH grants it received.
    pub sch_grants: Option<u64>,
    /// The time it held a traffic channel (active state), seconds.
    pub active_s: Option<f64>,
}
}

impl HopTable for RadioLinkResult {
    const DOC: &'static str = "one row per RLP3 radio link and direction; an IS-2000 user's forward row also its sector, SCH grants and active time";
    const LONG: Option<Long> = Some(Long {
        name: "rlp_cdf",
        doc: "the RLP buffers' and ON periods' distributions (fraction of the time, or of the periods, at or below value)",
        key: &[("name", "name"), ("direction", "direction")],
        fields: &[("new_data_cdf", "new_data_bytes"), ("rtx_cdf", "rtx_bytes"), ("on_time_cdf", "on_time_s")],
        point: ["value", "cdf"],
    });
}
