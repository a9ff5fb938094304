//! `[[link]]` tables → [`RawLink`].

use super::drc::{parse_drc, REVERSE_RATE_BPS};
use super::queue::{default_queue, parse_queue};
use super::raw::{Named, RawLink};
use super::reader::{Res, Val};
use crate::engine::Time;

const LINK_KEYS: &[&str] = &[
    "name",
    "from",
    "to",
    "rate",
    "delay",
    "duplex",
    "queue",
    "reverse_queue",
    "loss",
    "reverse_loss",
    "rate_schedule",
    "drc",
    "reverse_rate",
];

pub(crate) fn parse_link(v: &Val) -> Res<RawLink> {
    let t = v.table(LINK_KEYS)?;
    let name = Named::new(t.name("name")?);
    let from = Named::new(t.name("from")?);
    let to = Named::new(t.name("to")?);
    if from.name == to.name {
        return Err(t.req("to")?.err(format!("a link must join two different nodes (both ends are '{}')", to.name)));
    }
    let drc = t.opt("drc", parse_drc)?;
    if drc.is_some() {
        for key in ["rate", "rate_schedule"] {
            if let Some(v) = t.get(key) {
                return Err(v.err(format!("{key} cannot be combined with drc: the DRC sequence sets the forward rate")));
            }
        }
    }
    let rate_schedule = match t.get("rate_schedule") {
        Some(s) => parse_schedule(&s)?,
        None => Vec::new(),
    };
    // The rate at time 0: `rate`, or the schedule's step at 0 s.
    let step0 = rate_schedule.first().filter(|(at, _)| *at == 0).map(|&(_, r)| r);
    let rate_bps = match (t.get("rate"), step0) {
        (Some(r), None) => r.positive_rate()?,
        (Some(r), Some(s0)) => {
            let r0 = r.positive_rate()?;
            if r0 != s0 {
                return Err(r.err(format!("rate ({r0} bit/s) disagrees with rate_schedule at 0s ({s0} bit/s): give one of them")));
            }
            r0
        }
        (None, Some(s0)) => s0,
        (None, None) if drc.is_some() => 0,
        (None, None) => return Err(t.missing_with("rate", "give rate, rate_schedule or drc")),
    };
    let reverse_rate_bps = t.or("reverse_rate", if drc.is_some() { REVERSE_RATE_BPS } else { rate_bps }, |v| v.positive_rate())?;
    let duplex = t.or("duplex", true, |v| v.bool())?;
    let queue = t.or("queue", default_queue(), parse_queue)?;
    let loss = t.or("loss", 0.0, |v| v.probability())?;
    if !duplex {
        for key in ["reverse_queue", "reverse_loss", "reverse_rate"] {
            if let Some(v) = t.get(key) {
                return Err(v.err(format!("{key} needs duplex = true")));
            }
        }
    }
    Ok(RawLink {
        name,
        from,
        to,
        rate_bps,
        reverse_rate_bps,
        delay: t.req("delay")?.time()?,
        duplex,
        reverse_queue: t.or("reverse_queue", queue.clone(), parse_queue)?,
        queue,
        reverse_loss: t.or("reverse_loss", loss, |v| v.probability())?,
        loss,
        rate_schedule,
        drc,
    })
}

/// `rate_schedule = [{at = "0s", rate = "9.6kbps"}, ...]`: strictly increasing
/// times; a rate of 0 is an outage.
fn parse_schedule(v: &Val) -> Res<Vec<(Time, u64)>> {
    let mut steps: Vec<(Time, u64)> = Vec::new();
    for item in v.array()? {
        let t = item.table(&["at", "rate"])?;
        let at_v = t.req("at")?;
        let at = at_v.time()?;
        let rate = t.req("rate")?.rate()?;
        if let Some(&(prev, _)) = steps.last() {
            if at <= prev {
                return Err(at_v.err(format!(
                    "rate_schedule times must be strictly increasing ({} s after {} s)",
                    crate::engine::time::secs(at),
                    crate::engine::time::secs(prev)
                )));
            }
        }
        steps.push((at, rate));
    }
    if steps.is_empty() {
        return Err(v.err("rate_schedule is empty: remove it or give at least one step"));
    }
    Ok(steps)
}
