//! The figures of one connection as tcptrace's long output defines them
//! (output.c of 6.6.7: averages divide by count+0.0001, standard deviations
//! are the n-1 sample form and 0 for n <= 2, throughput is unique bytes over
//! the connection's elapsed time), plus Lee's figures.

use super::conn::Conn;
use super::direction::Dir;
use super::loss::LossPeriod;
use serde::Serialize;
use std::net::{Ipv4Addr, Ipv6Addr};

#[derive(Debug, Clone, Serialize)]
pub struct DirReport {
    pub total_packets: u64,
    pub resets_sent: u64,
    pub ack_pkts_sent: u64,
    pub pure_acks_sent: u64,
    pub sack_pkts_sent: u64,
    pub dsack_pkts_sent: u64,
    pub max_sack_blks_ack: u64,
    pub unique_bytes_sent: u64,
    pub actual_data_pkts: u64,
    pub actual_data_bytes: u64,
    pub rexmt_data_pkts: u64,
    pub rexmt_data_bytes: u64,
    pub zwnd_probe_pkts: u64,
    pub zwnd_probe_bytes: u64,
    pub outoforder_pkts: u64,
    pub pushed_data_pkts: u64,
    pub syn_pkts_sent: u64,
    pub fin_pkts_sent: u64,
    pub req_1323_ws: bool,
    pub req_1323_ts: bool,
    pub adv_wind_scale: u64,
    pub req_sack: bool,
    pub sacks_sent: u64,
    pub urgent_data_pkts: u64,
    pub urgent_data_bytes: u64,
    pub mss_requested: u64,
    pub max_segm_size: u64,
    pub min_segm_size: u64,
    pub avg_segm_size: u64,
    pub max_win_adv: u64,
    pub min_win_adv: u64,
    pub zero_win_adv: u64,
    pub avg_win_adv: u64,
    pub initial_window_bytes: u64,
    pub initial_window_pkts: u64,
    pub ttl_stream_length: Option<u64>,
    pub missed_data: Option<u64>,
    pub truncated_data: u64,
    pub truncated_packets: u64,
    pub hardware_dups: u64,
    pub data_xmit_time_s: f64,
    pub idletime_max_ms: Option<f64>,
    pub throughput_bps: Option<f64>,
    pub rtt_samples: u64,
    pub rtt_min_ms: f64,
    pub rtt_max_ms: f64,
    pub rtt_avg_ms: f64,
    pub rtt_stdev_ms: f64,
    pub rtt_from_3whs_ms: f64,
    pub rtt_full_sz_smpls: u64,
    pub rtt_full_sz_min_ms: f64,
    pub rtt_full_sz_max_ms: f64,
    pub rtt_full_sz_avg_ms: f64,
    pub rtt_full_sz_stdev_ms: f64,
    /// ACKs of segments sent more than once, and tcptrace's RTT statistics
    /// over them timed from the last transmission ("RTT ... (last)").
    #[serde(default)]
    pub ambiguous_acks: u64,
    #[serde(default)]
    pub rtt_min_last_ms: f64,
    #[serde(default)]
    pub rtt_max_last_ms: f64,
    #[serde(default)]
    pub rtt_avg_last_ms: f64,
    #[serde(default)]
    pub rtt_sdv_last_ms: f64,
    pub post_loss_acks: u64,
    pub segs_cum_acked: u64,
    pub duplicate_acks: u64,
    pub triple_dupacks: u64,
    pub max_retrans: u64,
    pub min_retr_time_ms: f64,
    pub max_retr_time_ms: f64,
    pub avg_retr_time_ms: f64,
    pub sdv_retr_time_ms: f64,
    // --- Lee figures ---
    /// Retransmitted data packets / data packets (Lee Table 1).
    pub retrans_rate: f64,
    pub loss_periods: Vec<LossPeriod>,
    pub cksum_checked: u64,
    pub cksum_bad: u64,
    pub first_data_us: u64,
    pub last_data_us: u64,
    /// First and last packet of this direction (µs since the epoch; 0 = none).
    pub first_packet_us: u64,
    pub last_packet_us: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct ConnReport {
    /// 1-based, in order of first packet (tcptrace's numbering).
    pub index: usize,
    pub host_a: String,
    pub host_b: String,
    pub port_a: u16,
    pub port_b: u16,
    /// "yes", "no" or "RESET" as tcptrace prints "complete conn".
    pub complete: String,
    pub syns: u32,
    pub fins: u32,
    pub first_packet_us: u64,
    pub last_packet_us: u64,
    pub elapsed_us: u64,
    pub total_packets: u64,
    pub a2b: DirReport,
    pub b2a: DirReport,
}

fn average(sum: f64, n: u64) -> f64 {
    sum / (n as f64 + 0.0001)
}

fn stdev(sum: f64, sum2: f64, n: u64) -> f64 {
    if n <= 2 {
        return 0.0;
    }
    let n = n as f64;
    let v = (sum2 - sum * sum / n) / (n - 1.0);
    if v > 0.0 { v.sqrt() } else { 0.0 }
}

pub fn addr_string(a: &[u8; 16], v6: bool) -> String {
    if v6 { Ipv6Addr::from(*a).to_string() } else { Ipv4Addr::new(a[0], a[1], a[2], a[3]).to_string() }
}

/// Stream length from SYN to FIN (tcptrace: last - syn - 1, modulo 2^32;
/// after a reset the latest sequence number stands in for the FIN).
fn stream_length(d: &Dir) -> Option<u64> {
    if d.syn_count == 0 || d.fin_count == 0 {
        return None;
    }
    let last = if d.reset_count > 0 { d.latest_seq } else { d.fin };
    let (l, s) = (last as u64, d.syn as u64);
    Some(if l > s { l - s - 1 } else { (1u64 << 32) + l - s - 1 })
}

fn dir_report(d: &Dir, both_scaled: bool, etime_s: f64) -> DirReport {
    let a = &d.acc;
    let ms = |us: u64| us as f64 / 1000.0;
    let stream = stream_length(d);
    DirReport {
        total_packets: d.packets,
        resets_sent: d.reset_count,
        ack_pkts_sent: d.ack_pkts,
        pure_acks_sent: d.pureack_pkts,
        sack_pkts_sent: d.num_sacks,
        dsack_pkts_sent: d.num_dsacks,
        max_sack_blks_ack: d.max_sack_blocks,
        unique_bytes_sent: d.unique_bytes,
        actual_data_pkts: d.data_pkts,
        actual_data_bytes: d.data_bytes,
        rexmt_data_pkts: d.rexmit_pkts,
        rexmt_data_bytes: d.rexmit_bytes,
        zwnd_probe_pkts: d.zwnd_probes,
        zwnd_probe_bytes: d.zwnd_probe_bytes,
        outoforder_pkts: d.out_order_pkts,
        pushed_data_pkts: d.data_pkts_push,
        syn_pkts_sent: d.syn_count,
        fin_pkts_sent: d.fin_count,
        req_1323_ws: d.f1323_ws,
        req_1323_ts: d.f1323_ts,
        adv_wind_scale: d.window_scale as u64,
        req_sack: d.fsack_req,
        sacks_sent: d.sacks_sent,
        urgent_data_pkts: d.urg_data_pkts,
        urgent_data_bytes: d.urg_data_bytes,
        mss_requested: d.mss,
        max_segm_size: d.max_seg_size,
        min_segm_size: d.min_seg_size,
        avg_segm_size: (d.data_bytes as f64 / (d.data_pkts as f64 + 0.001)) as u64,
        max_win_adv: d.win_max,
        min_win_adv: d.win_min,
        zero_win_adv: d.win_zero_ct,
        avg_win_adv: if both_scaled { d.win_tot.checked_div(d.win_scaled_pkts) } else { d.win_tot.checked_div(d.packets) }
            .unwrap_or(0),
        initial_window_bytes: d.initialwin_bytes,
        initial_window_pkts: d.initialwin_segs,
        ttl_stream_length: stream,
        missed_data: stream.map(|s| s.wrapping_sub(d.unique_bytes)),
        truncated_data: d.trunc_bytes,
        truncated_packets: d.trunc_segs,
        hardware_dups: d.hw_dups,
        data_xmit_time_s: d.last_data_time.saturating_sub(d.first_data_time) as f64 / 1e6,
        idletime_max_ms: if d.last_time == 0 { None } else { Some(d.idle_max as f64 / 1000.0) },
        throughput_bps: if etime_s == 0.0 { None } else { Some(d.unique_bytes as f64 / etime_s) },
        rtt_samples: a.rtt.count,
        rtt_min_ms: ms(a.rtt.min),
        rtt_max_ms: ms(a.rtt.max),
        rtt_avg_ms: average(a.rtt.sum, a.rtt.count) / 1000.0,
        rtt_stdev_ms: stdev(a.rtt.sum, a.rtt.sum2, a.rtt.count) / 1000.0,
        rtt_from_3whs_ms: ms(d.rtt_3whs),
        rtt_full_sz_smpls: a.rtt_full.count,
        rtt_full_sz_min_ms: ms(a.rtt_full.min),
        rtt_full_sz_max_ms: ms(a.rtt_full.max),
        rtt_full_sz_avg_ms: average(a.rtt_full.sum, a.rtt_full.count) / 1000.0,
        rtt_full_sz_stdev_ms: stdev(a.rtt_full.sum, a.rtt_full.sum2, a.rtt_full.count) / 1000.0,
        ambiguous_acks: a.rtt_amback,
        rtt_min_last_ms: ms(a.rtt_last_samples.min),
        rtt_max_last_ms: ms(a.rtt_last_samples.max),
        rtt_avg_last_ms: average(a.rtt_last_samples.sum, a.rtt_last_samples.count) / 1000.0,
        rtt_sdv_last_ms: stdev(a.rtt_last_samples.sum, a.rtt_last_samples.sum2, a.rtt_last_samples.count) / 1000.0,
        post_loss_acks: a.rtt_nosample,
        segs_cum_acked: a.rtt_cumack,
        duplicate_acks: a.rtt_dupack,
        triple_dupacks: a.rtt_triple_dupack,
        max_retrans: a.retr_max,
        min_retr_time_ms: ms(a.retr_time.min),
        max_retr_time_ms: ms(a.retr_time.max),
        avg_retr_time_ms: average(a.retr_time.sum, a.retr_time.count) / 1000.0,
        sdv_retr_time_ms: stdev(a.retr_time.sum, a.retr_time.sum2, a.retr_time.count) / 1000.0,
        retrans_rate: if d.data_pkts == 0 { 0.0 } else { d.rexmit_pkts as f64 / d.data_pkts as f64 },
        loss_periods: d.loss.periods.clone(),
        cksum_checked: d.cksum_checked,
        cksum_bad: d.cksum_bad,
        first_data_us: d.first_data_time,
        last_data_us: d.last_data_time,
        first_packet_us: d.first_time,
        last_packet_us: d.last_time,
    }
}

pub fn conn_report(index: usize, c: &Conn) -> ConnReport {
    let elapsed = c.last_time.saturating_sub(c.first_time);
    let etime_s = elapsed as f64 / 1e6;
    let both = c.d[0].win_scaled && c.d[1].win_scaled;
    let syns = (c.d[0].syn_count > 0) as u32 + (c.d[1].syn_count > 0) as u32;
    let fins = (c.d[0].fin_count > 0) as u32 + (c.d[1].fin_count > 0) as u32;
    let complete = if c.d[0].reset_count + c.d[1].reset_count > 0 {
        "RESET"
    } else if syns >= 2 && fins >= 2 {
        "yes"
    } else {
        "no"
    };
    ConnReport {
        index,
        host_a: addr_string(&c.a.0, c.v6),
        host_b: addr_string(&c.b.0, c.v6),
        port_a: c.a.1,
        port_b: c.b.1,
        complete: complete.to_string(),
        syns,
        fins,
        first_packet_us: c.first_time,
        last_packet_us: c.last_time,
        elapsed_us: elapsed,
        total_packets: c.packets,
        a2b: dir_report(&c.d[0], both, etime_s),
        b2a: dir_report(&c.d[1], both, etime_s),
    }
}
