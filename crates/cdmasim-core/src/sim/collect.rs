//! Turn a finished World into a RunResult.

use super::result::*;
use super::delay::DelayStats;
use super::sampler::delivered_bytes;
use super::hops::AnyHop;
use super::web::WebFlow;
use super::world::{Flow, FlowKind, World};
use crate::cdma2000::cell::Cell;
use crate::evdo::ran::EvdoRan;
use crate::rlp::link::RlpLink;
use crate::rlp::meter::Meter;
use crate::engine::time::secs;
use crate::engine::Time;
use crate::net::queue::{Queue, QueueMeter};
use crate::net::{DropReason, Link};
use std::collections::BTreeMap;

fn ts(v: impl Iterator<Item = Time>) -> Vec<f64> {
    v.map(secs).collect()
}

fn set_owd(r: &mut FlowResult, d: &DelayStats) {
    r.owd_min_s = d.min_s();
    r.owd_avg_s = d.mean_s();
    r.owd_max_s = d.max_s();
    r.excess_owd_mean_s = d.excess_mean_s();
    r.excess_owd_std_s = d.std_s();
}

pub fn collect(w: &World, seed: u64) -> RunResult {
    let horizon = w.horizon;
    let mut series = Vec::new();
    let (mut objects, mut pages) = (Vec::new(), Vec::new());
    let flows = w.flows[..w.spec_flows]
        .iter()
        .map(|f| {
            let mut r = FlowResult { name: f.name.clone(), bytes_delivered: delivered_bytes(f), ..Default::default() };
            // The flow is active from its start until it completes, or until its last
            // delivery after the application stopped, or until the end of the run.
            let end = match &f.kind {
                FlowKind::Tcp(t) => {
                    let s = &t.sender.stats;
                    r.kind = "tcp".into();
                    r.packets_sent = s.segments_sent;
                    r.retransmits = s.retransmits;
                    r.retransmitted_fraction = if s.segments_sent > 0 { s.retransmits as f64 / s.segments_sent as f64 } else { 0.0 };
                    r.timeouts = s.timeouts;
                    r.spurious_timeouts = s.spurious_timeouts;
                    set_owd(&mut r, &t.owd);
                    r.packets_received = t.owd.count();
                    r.fast_recoveries = s.fast_recoveries;
                    r.rtt_min_s = s.rtt_min.map(secs);
                    r.rtt_max_s = s.rtt_max.map(secs);
                    r.rtt_avg_s = (s.rtt_samples > 0).then(|| s.rtt_sum / s.rtt_samples as f64 / 1e9);
                    r.completed_at_s = s.completed_at.map(secs);
                    if !t.sender.cwnd_trace.is_empty() {
                        let tr = &t.sender.cwnd_trace;
                        let t_s = ts(tr.iter().map(|x| x.0));
                        series.push(Series { metric: "cwnd".into(), subject: f.name.clone(), t_s: t_s.clone(), value: tr.iter().map(|x| x.1 as f64).collect() });
                        series.push(Series { metric: "ssthresh".into(), subject: f.name.clone(), t_s, value: tr.iter().map(|x| x.2.min(u32::MAX as u64) as f64).collect() });
                    }
                    if !t.receiver.rwnd_trace.is_empty() {
                        let tr = &t.receiver.rwnd_trace;
                        series.push(Series { metric: "rwnd".into(), subject: f.name.clone(), t_s: ts(tr.iter().map(|x| x.0)), value: tr.iter().map(|x| x.1 as f64).collect() });
                    }
                    if !t.sender.pacing_trace.is_empty() {
                        let tr = &t.sender.pacing_trace;
                        series.push(Series { metric: "pacing_rate_bps".into(), subject: f.name.clone(), t_s: ts(tr.iter().map(|x| x.0)), value: tr.iter().map(|x| x.1 as f64 * 8.0).collect() });
                    }
                    s.completed_at.unwrap_or(if f.stop.is_some_and(|st| st < horizon) { t.receiver.last_delivery } else { horizon })
                }
                FlowKind::Cbr { source, sink } => {
                    r.kind = "cbr".into();
                    r.packets_sent = source.next_seq;
                    r.packets_received = sink.received;
                    let mut owd = DelayStats::default();
                    sink.delays.iter().for_each(|d| owd.add(d.1));
                    set_owd(&mut r, &owd);
                    series.push(Series {
                        metric: "owd".into(),
                        subject: f.name.clone(),
                        t_s: ts(sink.delays.iter().map(|d| d.0)),
                        value: sink.delays.iter().map(|d| secs(d.1)).collect(),
                    });
                    if f.stop.is_some_and(|st| st < horizon) { sink.last_arrival } else { horizon }
                }
                FlowKind::Web(web) => {
                    web_results(w, f, web, &mut r, &mut objects, &mut pages);
                    horizon
                }
                FlowKind::Free => unreachable!("the scenario's flows are never freed"),
            };
            let active = end.saturating_sub(f.start);
            r.goodput_bps = if active > 0 { r.bytes_delivered as f64 * 8.0 / secs(active) } else { 0.0 };
            r
        })
        .collect();
    let mut queues = Vec::new();
    let (mut users, mut sectors) = (Vec::new(), Vec::new());
    let (mut cells, mut mobiles) = (Vec::new(), Vec::new());
    let (mut radio_links, mut is2000) = (Vec::new(), Vec::new());
    for h in &w.hops {
        match h {
            AnyHop::Link(l) => queues.push(link_queue(l, horizon)),
            AnyHop::Evdo(r) => evdo_results(r, horizon, &mut queues, &mut users, &mut sectors),
            AnyHop::Cell(c) => cell_results(c, horizon, &mut queues, &mut cells, &mut mobiles),
            AnyHop::Rlp(r) => radio_links.extend(radio_link_results(r)),
            AnyHop::Is2000(s) => {
                for u in &s.users {
                    let mut rows = radio_link_results(&u.link);
                    rows[0].sector = Some(s.name.clone());
                    rows[0].sch_grants = Some(u.grants);
                    rows[0].active_s = Some(secs(u.active_time));
                    radio_links.extend(rows);
                }
                is2000.push(is2000_result(s));
            }
        }
    }
    let sm = &w.samples;
    if !sm.t.is_empty() {
        let t_s = ts(sm.t.iter().copied());
        for ((metric, subject), v) in sm.names.iter().zip(&sm.hop_values) {
            series.push(Series { metric: metric.to_string(), subject: subject.clone(), t_s: t_s.clone(), value: v.clone() });
        }
        let dt = sm.interval.map_or(1.0, secs);
        for (f, v) in w.flows[..w.spec_flows].iter().zip(&sm.delivered) {
            let value = v.iter().scan(0u64, |prev, x| {
                let g = (x - *prev) as f64 * 8.0 / dt;
                *prev = *x;
                Some(g)
            });
            series.push(Series { metric: "goodput_bps".into(), subject: f.name.clone(), t_s: t_s.clone(), value: value.collect() });
        }
    }
    let drops = w
        .drop_log
        .records()
        .iter()
        .map(|d| DropEvent {
            t_s: secs(d.t),
            place: if d.hop == crate::net::routing::NO_ROUTE {
                format!("node:{}", d.node)
            } else {
                w.hops[d.hop as usize].place(d.port)
            },
            reason: d.reason.as_str().into(),
            flow: w.flows[d.pkt.flow as usize].name.clone(),
            sent_s: secs(d.pkt.created),
            seq: super::drop_log::seq_of(&d.pkt),
        })
        .collect();
    RunResult {
        seed,
        drops,
        duration_s: secs(horizon),
        events: w.q.events_processed(),
        flows,
        queues,
        conservation: Conservation {
            sent: w.counters.created,
            delivered: w.counters.delivered,
            dropped: w.drops_total(),
            in_network: w.in_network(),
        },
        series,
        users,
        sectors,
        cells,
        mobiles,
        objects,
        pages,
        radio_links,
        is2000,
        stopped_at_s: None,
    }
}

/// A CDF as (upper edge of each occupied bin, scaled by `unit`, fraction at or below).
fn cdf(m: &Meter, unit: f64) -> Vec<(f64, f64)> {
    let total: f64 = m.weights.iter().sum();
    let mut acc = 0.0;
    let w = m.bin_width() as f64;
    m.weights
        .iter()
        .enumerate()
        .filter_map(|(i, &x)| {
            acc += x;
            (x > 0.0).then(|| ((i as f64 + 1.0) * w * unit, acc / total))
        })
        .collect()
}

/// Both directions of an RLP radio link.
fn radio_link_results(r: &RlpLink) -> Vec<RadioLinkResult> {
    r.dirs
        .iter()
        .zip(["down", "up"])
        .map(|(d, dir)| {
            let s = &d.arq.stats;
            RadioLinkResult {
                name: r.name.clone(),
                direction: dir.into(),
                rate_bps: d.rate_bps as f64,
                packets_in: s.ip_in,
                packets_delivered: s.ip_delivered,
                packets_aborted: s.ip_aborted,
                frames_sent: d.frames_sent,
                frames_new: s.frames_new,
                frames_retransmitted: s.frames_retransmitted,
                frames_idle: s.frames_idle,
                frames_lost: d.frames_lost,
                fer: if d.frames_sent > 0 { d.frames_lost as f64 / d.frames_sent as f64 } else { 0.0 },
                naks_sent: s.naks_sent,
                new_data_mean_bytes: d.new_data.mean(),
                new_data_max_bytes: d.new_data.max,
                rtx_mean_bytes: d.rtx_buffer.mean(),
                rtx_max_bytes: d.rtx_buffer.max,
                new_data_cdf: cdf(&d.new_data, 1.0),
                rtx_cdf: cdf(&d.rtx_buffer, 1.0),
                on_periods: d.on_runs.weights.iter().sum::<f64>() as u64,
                on_time_cdf: cdf(&d.on_runs, secs(crate::rlp::link::FRAME)),
                sector: None,
                sch_grants: None,
                active_s: None,
            }
        })
        .collect()
}

/// An IS-2000 sector's row: power, grants, and the ON periods of every user's forward link.
fn is2000_result(s: &crate::is2000::sector::Is2000Sector) -> Is2000Result {
    let mut on = Meter::new(1);
    for u in &s.users {
        let w = &u.link.dirs[0].on_runs.weights;
        for (i, &x) in w.iter().enumerate() {
            on.add_weight(i as u64, x);
        }
    }
    Is2000Result {
        name: s.name.clone(),
        users: s.users.len() as u64,
        power_mean: s.power.mean() / 10_000.0,
        power_max: s.power.max as f64 / 10_000.0,
        power_cdf: cdf(&s.power, 1.0 / 10_000.0),
        sch_grants: s.mac.grants_made,
        codes_max: s.codes_max as u64,
        admissions_deferred: s.admissions_deferred,
        active_s: s.users.iter().map(|u| secs(u.active_time)).sum(),
        on_periods: on.weights.iter().sum::<f64>() as u64,
        on_time_cdf: cdf(&on, secs(crate::rlp::link::FRAME)),
    }
}

/// A browsing user's row (its connections summed: the closed ones' totals
/// and the halves still open) and its objects and pages.
fn web_results(w: &World, f: &Flow, web: &WebFlow, r: &mut FlowResult, objects: &mut Vec<ObjectResult>, pages: &mut Vec<PageResult>) {
    r.kind = "http".into();
    let s = &web.stats;
    let (mut segs, mut rtx, mut tos, mut frs, mut pkts) = (s.segments_sent, s.retransmits, s.timeouts, s.fast_recoveries, s.packets_sent);
    for fi in web.live_flows() {
        let h = &w.flows[fi as usize];
        pkts += h.packets_sent;
        if let FlowKind::Tcp(t) = &h.kind {
            let st = &t.sender.stats;
            (segs, rtx, tos, frs) = (segs + st.segments_sent, rtx + st.retransmits, tos + st.timeouts, frs + st.fast_recoveries);
            if h.from == f.from {
                r.bytes_delivered += t.receiver.delivered;
            }
        }
    }
    r.packets_sent = pkts;
    r.connections_opened = Some(s.connections);
    r.connections_open = Some(web.open_connections());
    r.retransmits = rtx;
    r.retransmitted_fraction = if segs > 0 { rtx as f64 / segs as f64 } else { 0.0 };
    r.timeouts = tos;
    r.fast_recoveries = frs;
    let per_kb = |d: f64, bytes: u64| d / (bytes as f64 / 1000.0);
    for o in &web.client.objects {
        let delay = o.finish.zip(o.start).map(|(f, s)| secs(f - s));
        objects.push(ObjectResult {
            flow: f.name.clone(),
            page: o.page,
            index: o.index,
            request_bytes: o.request,
            size_bytes: o.size,
            start_s: o.start.map(secs),
            finish_s: o.finish.map(secs),
            delay_s: delay,
            normalized_s_per_kb: delay.map(|d| per_kb(d, o.size)),
        });
    }
    for (i, p) in web.client.pages.iter().enumerate() {
        let delay = p.finish.map(|t| secs(t - p.start));
        pages.push(PageResult {
            flow: f.name.clone(),
            page: i as u32,
            objects: p.objects,
            size_bytes: p.size,
            start_s: secs(p.start),
            finish_s: p.finish.map(secs),
            delay_s: delay,
            normalized_s_per_kb: delay.map(|d| per_kb(d, p.size)),
        });
    }
}

/// A link's row of the queues table.
fn link_queue(l: &Link, horizon: Time) -> QueueResult {
    let s = &l.stats;
    let utilization = if s.capacity_bit_ns > 0 { s.bytes_sent as f64 * 8.0 / s.capacity_bits() } else { 0.0 };
    queue_result(l.name.clone(), l.queue.as_ref(), &s.queue, horizon, utilization, s.bytes_sent)
}

/// A cdma2000 cell (its shared buffer and link buffers as rows of the
/// queue table too) and its mobiles.
fn cell_results(c: &Cell, horizon: Time, queues: &mut Vec<QueueResult>, cells: &mut Vec<CellResult>, mobiles: &mut Vec<MobileResult>) {
    let run_s = secs(horizon.max(1));
    queues.push(link_queue(&c.bsc, horizon));
    for m in &c.mobiles {
        queues.push(link_queue(&m.link, horizon));
        mobiles.push(MobileResult {
            name: m.name.clone(),
            cell: c.name.clone(),
            bts: m.bts + 1,
            throughput_bps: m.stats.bytes_delivered as f64 * 8.0 / run_s,
            packets_delivered: m.stats.packets_delivered,
            sch_grants: m.stats.grants,
            sch_s: secs(m.stats.sch_time),
        });
    }
    cells.push(CellResult {
        name: c.name.clone(),
        mobiles: c.mobiles.len() as u64,
        bsc_rate_bps: c.bsc.rate_bps() as f64,
        dead_s: secs(c.dead.total),
        rho_dead: secs(c.dead.total) / run_s,
        dead_periods: c.dead.intervals.iter().map(|&(a, b)| (secs(a), secs(b))).collect(),
        sch_grants: c.mobiles.iter().map(|m| m.stats.grants).sum(),
    });
}

/// A queue's row of the queues table.
fn queue_result(link: String, q: &dyn Queue, m: &QueueMeter, horizon: Time, utilization: f64, bytes_sent: u64) -> QueueResult {
    QueueResult {
        link,
        kind: q.kind().into(),
        drops: drop_counts(&m.drops),
        enqueued: m.enqueued,
        max_packets: m.max_pkts,
        max_bytes: m.max_bytes,
        avg_packets: m.area_pkts / horizon.max(1) as f64,
        avg_bytes: m.area_bytes / horizon.max(1) as f64,
        utilization,
        bytes_sent,
    }
}

/// Drops by reason, overflow always listed.
fn drop_counts(drops: &[u64]) -> BTreeMap<String, u64> {
    DropReason::ALL
        .iter()
        .filter(|r| drops[r.index()] > 0 || **r == DropReason::Overflow)
        .map(|r| (r.as_str().to_string(), drops[r.index()]))
        .collect()
}

/// A radio access network's users (as rows of the queue table too: their
/// base-station queues) and sectors.
fn evdo_results(r: &EvdoRan, horizon: Time, queues: &mut Vec<QueueResult>, users: &mut Vec<UserResult>, sectors: &mut Vec<SectorResult>) {
    let run_s = secs(horizon.max(1));
    for (i, u) in r.users.iter().enumerate() {
        let s = &u.stats;
        let mean_drc = if s.slots_seen > 0 { s.drc_rate_sum / s.slots_seen as f64 } else { 0.0 };
        let throughput = s.ip_bytes_delivered as f64 * 8.0 / run_s;
        let slots: u64 = r.sectors.iter().filter(|sec| sec.stats.attached[i]).map(|sec| sec.stats.traffic_slots).sum();
        // Octets carried / what the user's channel offered over the run.
        let utilization = if s.drc_rate_sum > 0.0 { s.air_bytes as f64 * 8.0 * 600.0 / s.drc_rate_sum } else { 0.0 };
        queues.push(queue_result(r.queue_name(i as u32), u.queue.as_ref(), &s.queue, horizon, utilization, s.air_bytes));
        users.push(UserResult {
            name: u.name.clone(),
            sector: r.sectors[u.sector].name.clone(),
            throughput_bps: throughput,
            mean_drc_bps: mean_drc,
            utilisation: if mean_drc > 0.0 { throughput / mean_drc } else { 0.0 },
            slots_served: s.slots_served,
            slot_share: if slots > 0 { s.slots_served as f64 / slots as f64 } else { 0.0 },
            packets_delivered: s.packets_delivered,
            handoffs: s.handoffs,
        });
    }
    for sec in &r.sectors {
        let st = &sec.stats;
        let served: Vec<f64> = st.air_bytes.iter().zip(&st.attached).filter(|(_, &a)| a).map(|(&b, _)| b as f64).collect();
        sectors.push(SectorResult {
            name: sec.name.clone(),
            scheduler: sec.sched.name().into(),
            traffic_slots: st.traffic_slots,
            utilisation: if st.traffic_slots > 0 { st.busy_slots as f64 / st.traffic_slots as f64 } else { 0.0 },
            throughput_bps: st.air_bytes.iter().sum::<u64>() as f64 * 8.0 / run_s,
            jain: crate::models::jain::jain_index(&served).unwrap_or(1.0),
        });
    }
}
