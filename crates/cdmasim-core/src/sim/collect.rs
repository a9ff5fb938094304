//! Turn a finished World into a RunResult.

use super::world::{Hosts, World};
use crate::engine::time::secs;
use crate::engine::Time;
use crate::result::*;
use super::RunResult;

/// Times in seconds, for a series' `t_s`.
pub(super) fn ts(v: impl Iterator<Item = Time>) -> Vec<f64> {
    v.map(secs).collect()
}

pub fn collect(world: &mut World, seed: u64) -> RunResult {
    // The pages still under way go to the web log too (unfinished), then
    // its rows (kept in memory) come out in flow order.
    let w = &mut world.hosts;
    for (fi, app) in w.apps.iter_mut().enumerate() {
        app.at_end(fi as u32, &w.flows[fi].name, &mut w.web_log);
    }
    let (objects, pages) = w.web_log.rows();
    // The kept samples move into the result rather than being copied
    // (the run is over; a cell samples hundreds of series).
    let hop_values = std::mem::take(&mut w.samples.hop_values);
    let world: &World = world;
    let w = &world.hosts;
    let horizon = w.horizon;
    let mut series = Vec::new();
    let flows = w.flows[..w.spec_flows]
        .iter()
        .zip(&w.apps)
        .enumerate()
        .map(|(i, (f, app))| {
            let me = i as u32;
            let mut r = FlowResult {
                name: f.name.clone(),
                kind: app.kind_name().into(),
                bytes_delivered: app.delivered_bytes(me, &w.flows),
                checksum_failures: f.checksum_failures,
                ..Default::default()
            };
            let end = app.fill_row(me, w, &mut r, &mut series);
            let active = end.saturating_sub(f.start);
            r.goodput_bps = if active > Time::ZERO { r.bytes_delivered as f64 * 8.0 / secs(active) } else { 0.0 };
            r
        })
        .collect();
    let sm = &w.samples;
    if !sm.t.is_empty() {
        let t_s = ts(sm.t.iter().copied());
        for ((metric, subject), value) in sm.names.iter().zip(hop_values) {
            series.push(Series { metric: metric.to_string(), subject: subject.clone(), t_s: t_s.clone(), value });
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
    for (f, app) in w.flows[..w.spec_flows].iter().zip(&w.apps) {
        order.extend(app.series().iter().map(|m| (*m, f.name.as_str())));
    }
    if w.samples.taken > 0 {
        order.extend(w.samples.names.iter().map(|(m, s)| (*m, s.as_str())));
        order.extend(w.flows[..w.spec_flows].iter().map(|f| ("goodput_bps", f.name.as_str())));
    }
    order.into_iter().filter_map(|(m, s)| sp.find(m, s)).map(|id| sp.spooled(id)).collect()
}
