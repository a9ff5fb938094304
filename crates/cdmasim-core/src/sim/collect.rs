//! Turn a finished World into a RunResult.

use super::delay::DelayStats;
use super::flows::{Flow, FlowKind};
use super::web::WebFlow;
use super::world::{Hosts, World};
use crate::engine::time::secs;
use crate::engine::Time;
use crate::result::*;

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

pub fn collect(world: &mut World, seed: u64) -> RunResult {
    // The pages still under way go to the web log too (unfinished), then
    // its rows (kept in memory) come out in flow order.
    let w = &mut world.hosts;
    for fi in 0..w.spec_flows {
        if let FlowKind::Web(web) = &w.flows[fi].kind {
            if let Some(p) = web.client.open_page() {
                let name = w.flows[fi].name.clone();
                w.web_log.push(fi as u32, &name, &p);
            }
        }
    }
    let (objects, pages) = w.web_log.rows();
    let world: &World = world;
    let w = &world.hosts;
    let horizon = w.horizon;
    let mut series = Vec::new();
    let flows = w.flows[..w.spec_flows]
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let mut r = FlowResult { name: f.name.clone(), bytes_delivered: f.delivered_bytes(), checksum_failures: f.checksum_failures, ..Default::default() };
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
                    // Delays already streamed to the spool, then those kept.
                    let mut owd = w.cbr_owd.get(i).cloned().unwrap_or_default();
                    sink.delays.iter().for_each(|d| owd.add(d.1));
                    set_owd(&mut r, &owd);
                    if w.spool.is_none() {
                        series.push(Series {
                            metric: "owd".into(),
                            subject: f.name.clone(),
                            t_s: ts(sink.delays.iter().map(|d| d.0)),
                            value: sink.delays.iter().map(|d| secs(d.1)).collect(),
                        });
                    }
                    if f.stop.is_some_and(|st| st < horizon) { sink.last_arrival } else { horizon }
                }
                FlowKind::Web(web) => {
                    web_results(w, f, web.as_ref(), &mut r);
                    w.web_log.totals(i as u32).fill(&mut r);
                    horizon
                }
                FlowKind::Free => unreachable!("the scenario's flows are never freed"),
            };
            let active = end.saturating_sub(f.start);
            r.goodput_bps = if active > 0 { r.bytes_delivered as f64 * 8.0 / secs(active) } else { 0.0 };
            r
        })
        .collect();
    let sm = &w.samples;
    if !sm.t.is_empty() {
        let t_s = ts(sm.t.iter().copied());
        for ((metric, subject), v) in sm.names.iter().zip(&sm.hop_values) {
            series.push(Series { metric: metric.to_string(), subject: subject.clone(), t_s: t_s.clone(), value: v.clone() });
        }
        let dt = sm.interval_s();
        for (f, v) in w.flows[..w.spec_flows].iter().zip(&sm.delivered) {
            let value = v.iter().scan(0u64, |prev, &x| {
                let g = super::sampler::goodput_bps(x, *prev, dt);
                *prev = x;
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
            place: world.net.place(d.at),
            reason: d.reason.as_str().into(),
            flow: w.flows[d.flow as usize].name.clone(),
            sent_s: secs(d.created),
            seq: d.seq,
        })
        .collect();
    RunResult {
        seed,
        drops,
        duration_s: secs(horizon),
        events: w.q.events_processed(),
        flows,
        conservation: Conservation {
            sent: w.counters.created,
            delivered: w.counters.delivered,
            dropped: world.drops_total(),
            in_network: world.in_network(),
        },
        series,
        objects,
        pages,
        hops: world.net.report(horizon),
        stopped_at_s: None,
        spooled: w.spool.as_ref().map(|sp| (sp.path().clone(), spooled_index(w, sp))),
    }
}

/// The spool's series in the order the in-memory `series` lists them: per
/// scenario flow its per-event series, then the sampled hop series and each
/// flow's goodput (when a sample was taken).
fn spooled_index(w: &Hosts, sp: &super::series_spool::SeriesSpool) -> Vec<super::series_spool::Spooled> {
    let mut order: Vec<(&str, &str)> = Vec::new();
    for f in &w.flows[..w.spec_flows] {
        let metrics: &[&str] = match &f.kind {
            FlowKind::Tcp(_) => &["cwnd", "ssthresh", "rwnd", "pacing_rate_bps"],
            FlowKind::Cbr { .. } => &["owd"],
            _ => &[],
        };
        order.extend(metrics.iter().map(|m| (*m, f.name.as_str())));
    }
    if w.samples.taken > 0 {
        order.extend(w.samples.names.iter().map(|(m, s)| (*m, s.as_str())));
        order.extend(w.flows[..w.spec_flows].iter().map(|f| ("goodput_bps", f.name.as_str())));
    }
    order.into_iter().filter_map(|(m, s)| sp.find(m, s)).map(|id| sp.spooled(id)).collect()
}

/// A browsing user's row: its connections summed (the closed ones' totals
/// and the halves still open).
fn web_results(w: &Hosts, f: &Flow, web: &WebFlow, r: &mut FlowResult) {
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
}
