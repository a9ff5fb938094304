//! Per-direction state of a TCP connection: the counters of tcptrace's long
//! output (`tcptrace -l -r`), the loss-period tracker of Lee §3.3 and
//! checksum tallies. Times are µs (tcptrace's resolution).

use super::loss::LossTracker;
use super::seqspace::{RttAcc, SeqSpace};

#[derive(Debug, Default)]
pub struct Dir {
    pub packets: u64,
    pub ack_pkts: u64,
    pub pureack_pkts: u64,
    pub num_sacks: u64,
    pub num_dsacks: u64,
    pub max_sack_blocks: u64,
    pub unique_bytes: u64,
    pub data_pkts: u64,
    pub data_bytes: u64,
    pub rexmit_pkts: u64,
    pub rexmit_bytes: u64,
    pub zwnd_probes: u64,
    pub zwnd_probe_bytes: u64,
    pub out_order_pkts: u64,
    pub data_pkts_push: u64,
    pub syn_count: u64,
    pub fin_count: u64,
    pub reset_count: u64,
    pub f1323_ws: bool,
    pub f1323_ts: bool,
    pub window_scale: u8,
    pub fsack_req: bool,
    pub sacks_sent: u64,
    pub urg_data_pkts: u64,
    pub urg_data_bytes: u64,
    pub mss: u64,
    pub max_seg_size: u64,
    pub min_seg_size: u64,
    pub win_max: u64,
    pub win_min: u64,
    pub win_zero_ct: u64,
    pub win_tot: u64,
    pub win_scaled_pkts: u64,
    pub win_scaled: bool,
    pub win_last: u64,
    pub initialwin_bytes: u64,
    pub initialwin_segs: u64,
    pub data_acked: bool,
    /// Last ACK number sent by this side (raw 32-bit; 0 = none yet).
    pub ack: u32,
    pub syn: u32,
    pub fin: u32,
    pub latest_seq: u32,
    pub windowend: u32,
    pub trunc_bytes: u64,
    pub trunc_segs: u64,
    pub first_data_time: u64,
    pub last_data_time: u64,
    pub first_time: u64,
    pub last_time: u64,
    pub idle_max: u64,
    /// Wrapping sum of tcptrace's "outstanding window" samples; only its
    /// being non-zero matters (BSD duplicate-ACK rule).
    pub owin_tot: u64,
    pub rtt_3whs: u64,
    pub acc: RttAcc,
    pub ss: SeqSpace,
    /// Unwrapped (64-bit) position of the latest sequence number sent.
    pub seq_ref: Option<u64>,
    pub loss: LossTracker,
    pub cksum_checked: u64,
    pub cksum_bad: u64,
    /// tcptrace's "hardware duplicates": the same (TCP seq, IPv4 id) as one
    /// of the last 8 segments, i.e. the same IP packet seen twice.
    pub hw_ring: [(u32, u16); 8],
    pub hw_ix: usize,
    pub hw_dups: u64,
}

/// Unwrap a 32-bit sequence number near a 64-bit reference (RFC 1982
/// serial-number arithmetic: the nearer of the two candidates).
pub fn unwrap(reference: u64, v: u32) -> u64 {
    let d = v.wrapping_sub(reference as u32) as i32 as i64;
    (reference as i64 + d) as u64
}

/// Offset for the first unwrapped position: a multiple of 2^32, so quadrant
/// numbers keep tcptrace's alignment, and large enough that nothing before
/// the first packet goes negative.
pub const SEQ_BASE: u64 = 1 << 34;

impl Dir {
    pub fn unwrap_seq(&mut self, v: u32) -> u64 {
        match self.seq_ref {
            Some(r) => unwrap(r, v),
            None => SEQ_BASE + v as u64,
        }
    }
}
