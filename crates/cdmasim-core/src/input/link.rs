//! `[[link]]` tables: point-to-point links, a duplex link being two (the
//! reverse one `NAME/rev`), each a hop of its own.

use super::drc::{self, parse_drc, RawDrc, REVERSE_RATE_BPS};
use super::error::ScenarioError;
use super::keys::{self, Described, Key};
use super::kind::{KindTables, Resolver};
use super::queue::{default_queue, parse_queue};
use super::reader::Named;
use super::reader::{Res, Val};
use crate::net::link::{LinkSpec, RateChanges};
use crate::net::queue::QueueSpec;
use crate::net::ppp::Compression;
use crate::engine::Time;

#[derive(Clone, Debug)]
pub(crate) struct RawLink {
    pub name: Named,
    pub from: Named,
    pub to: Named,
    /// Forward rate at time 0; 0 (a placeholder) when `drc` is set, whose
    /// schedule `resolve` builds once the duration is known.
    pub rate_bps: u64,
    /// Rate of the reverse link "<name>/rev" (constant).
    pub reverse_rate_bps: u64,
    pub delay: Time,
    /// Also create the reverse link "<name>/rev".
    pub duplex: bool,
    pub queue: QueueSpec,
    pub reverse_queue: QueueSpec,
    pub loss: f64,
    pub reverse_loss: f64,
    /// PPP on both directions, with this header compression.
    pub ppp: Option<Compression>,
    /// Captures see packets as they are offered (both directions).
    pub capture_at_entry: bool,
    /// Forward direction only.
    pub rate_schedule: Vec<(Time, u64)>,
    /// The schedule repeats: (first start, period).
    pub rate_period: Option<(Time, Time)>,
    /// Forward rate from a DRC sequence (then `rate_schedule` is empty).
    pub drc: Option<RawDrc>,
}

/// The `[[link]]` tables (and the links presets add).
#[derive(Default)]
pub(crate) struct LinkTables {
    pub links: Vec<RawLink>,
}

impl<H: From<LinkSpec>> KindTables<H> for LinkTables {
    fn tables(&self) -> &'static [&'static str] {
        &["link"]
    }

    fn keys(&self) -> &'static [Described] {
        TABLES
    }

    fn parse(&mut self, _table: &str, v: &Val) -> Res<()> {
        self.links.push(parse_link(v)?);
        Ok(())
    }

    /// Each link a hop; a duplex link's reverse `NAME/rev` right after it.
    fn resolve(&self, cx: &mut Resolver<H>) -> Result<(), ScenarioError> {
        for l in &self.links {
            let from = cx.node(&l.from)?;
            let to = cx.node(&l.to)?;
            let rate_changes = match (&l.drc, l.rate_period) {
                // A DRC link's channel is described here and drawn as the run goes.
                (Some(d), _) => RateChanges::Channel(drc::resolve(d, &cx.file, None).map_err(|(at, m)| cx.err(&at, m.replace('\n', "; ")))?),
                (None, Some((start, period))) => RateChanges::Periodic { steps: l.rate_schedule.clone(), start, period },
                (None, None) if l.rate_schedule.is_empty() => RateChanges::None,
                (None, None) => RateChanges::Schedule(l.rate_schedule.clone()),
            };
            let fwd = LinkSpec {
                name: l.name.name.clone(),
                from,
                to,
                rate_bps: l.rate_bps,
                delay: l.delay,
                queue: l.queue.clone(),
                rate_changes,
                loss: l.loss,
                ppp: l.ppp,
                capture_at_entry: l.capture_at_entry,
            };
            cx.add_link(&l.name, fwd)?;
            if l.duplex {
                let rev = LinkSpec {
                    name: format!("{}/rev", l.name.name),
                    from: to,
                    to: from,
                    rate_bps: l.reverse_rate_bps,
                    delay: l.delay,
                    queue: l.reverse_queue.clone(),
                    loss: l.reverse_loss,
                    ppp: l.ppp,
                    capture_at_entry: l.capture_at_entry,
                    ..Default::default()
                };
                cx.add_link(&l.name, rev)?;
            }
        }
        Ok(())
    }
}

/// A link is duplex unless its table says otherwise.
const DUPLEX: bool = true;

pub(crate) const LINK: &[Key] = &[
    Key::required("name", "The link (unique); its reverse link is `\"NAME/rev\"`."),
    Key::required("from", "The node it leaves."),
    Key::required("to", "The node it reaches (not `from`)."),
    Key::absent("rate", "required, unless `rate_schedule` starts at `\"0s\"` or `drc` is given", "The serialisation rate; > 0. Not with `drc`."),
    Key::required("delay", "The propagation delay (`\"0s\"` allowed)."),
    Key::value("duplex", || DUPLEX.to_string(), "Also create `\"NAME/rev\"` from `to` to `from`, with the same delay and, unless `reverse_rate` says otherwise, the same rate."),
    Key::value("queue", || keys::queue(&default_queue()), "The queue in front of the forward link: a queue table, below."),
    Key::absent("reverse_queue", "`queue`'s", "The queue of the reverse link (duplex only)."),
    Key::value("loss", || 0.0f64.to_string(), "The probability that a packet leaving the forward link is lost (Bernoulli)."),
    Key::absent("reverse_loss", "`loss`'s", "The same on the reverse link (duplex only)."),
    Key::absent("ppp", "no PPP", "`\"none\"` (no header compression), `\"vj\"` or `\"rohc\"`: the link runs PPP (both directions of a duplex link) with that TCP/IP header compression: it serialises frames (5 bytes of framing, compressed headers), `loss` drops frames below PPP, and a lost frame can put a VJ decompressor out of step, so the segments after it fail the checksum at their destination (docs/ppp.md)."),
    Key::value("capture", || format!("\"{}\"", CAPTURE[0].0), "Where a capture (`--pcap`) sees the link's packets: `\"wire\"`, as they start on the wire, or `\"entry\"`, as they are offered, before the queue (as tcpdump on the sending host sees them, packets the queue then drops included); both directions of a duplex link."),
    Key::absent("rate_schedule", "none", "The forward rate, piecewise constant: an array of `{at = TIME, rate = RATE}` (from `at` on, the rate is `rate`; times strictly increasing; `\"0bps\"` is an outage), or a periodic schedule (below). With a step at `\"0s\"`, `rate` may be left out (if both are given they must agree). The reverse link keeps the rate at time 0."),
    Key::absent("drc", "none", "The forward rate follows a 1xEV-DO DRC sequence, slot by slot: a `drc` table, below. It replaces `rate` and `rate_schedule` (giving either as well is an error)."),
    Key::absent("reverse_rate", "`rate` (the rate at time 0); `\"153.6kbps\"` with `drc`", "The constant rate of `\"NAME/rev\"` (duplex only); > 0."),
];

pub(crate) const PERIODIC: &[Key] = &[
    Key::required("every", "The period; > 0."),
    Key::required("steps", "The steps of one period, as an array of `{at, rate}`: the first at `\"0s\"`, all within the period."),
    Key::value("start", || keys::time(Time::ZERO), "The first period starts here; before it the link has `rate`."),
];

pub(crate) const STEP: &[Key] = &[
    Key::required("at", "From this time on (within a period, from its start)..."),
    Key::required("rate", "... the link sends at this rate (`\"0bps\"`: an outage)."),
];

pub(crate) const TABLES: &[Described] = &[
    Described::new("link", "`[[link]]`", LINK),
    Described::new("link.rate_schedule", "a periodic `rate_schedule` of `[[link]]`", PERIODIC),
    Described::new("link.rate_schedule.step", "a step of a `rate_schedule`", STEP),
    Described::new("drc", "a `drc` table", drc::DRC),
];

/// `capture = "wire" | "entry"`: where a capture sees the link's packets
/// (as they start on the wire, or as they are offered, before the queue).
pub(crate) fn parse_capture(v: &Val) -> Res<bool> {
    v.one_of(CAPTURE)
}

/// Where a capture sees packets (true: at the link's entry), the default first.
pub(crate) const CAPTURE: &[(&str, bool)] = &[("wire", false), ("entry", true)];

/// `ppp = "none" | "vj" | "rohc"`: the link runs PPP (both directions of
/// a duplex link), with that TCP/IP header compression.
pub(crate) fn parse_ppp(v: &Val) -> Res<Compression> {
    let s = v.str()?;
    Compression::from_name(s).ok_or_else(|| {
        let names: Vec<_> = Compression::ALL.iter().map(|c| c.as_str()).collect();
        v.err(format!("unknown ppp header compression '{s}' (expected one of {})", names.join(", ")))
    })
}

fn parse_link(v: &Val) -> Res<RawLink> {
    let t = v.keys(LINK)?;
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
    let (rate_schedule, rate_period) = match t.get("rate_schedule") {
        Some(s) => parse_schedule(&s)?,
        None => (Vec::new(), None),
    };
    // The rate at time 0: `rate`, or the schedule's step at 0 s (a periodic
    // schedule's first step is at its start).
    let starts_at_0 = rate_period.map_or(true, |(start, _)| start == Time::ZERO);
    let step0 = rate_schedule.first().filter(|(at, _)| *at == Time::ZERO && starts_at_0).map(|&(_, r)| r);
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
    let duplex = t.or("duplex", DUPLEX, |v| v.bool())?;
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
        ppp: t.opt("ppp", parse_ppp)?,
        capture_at_entry: t.or("capture", CAPTURE[0].1, parse_capture)?,
        rate_schedule,
        rate_period,
        drc,
    })
}

/// `rate_schedule = [{at = "0s", rate = "9.6kbps"}, ...]`: strictly increasing
/// times; a rate of 0 is an outage. Or `{every = "2.56s", steps = [...],
/// start = "0s"}`: the steps (from 0 s, all within one period) repeat every
/// period from `start` to the end (before `start` the link has `rate`).
fn parse_schedule(v: &Val) -> Res<(Vec<(Time, u64)>, Option<(Time, Time)>)> {
    if v.array().is_ok() {
        return Ok((parse_steps(v)?, None));
    }
    let t = v.keys(PERIODIC)?;
    let start = t.or("start", Time::ZERO, |v| v.time())?;
    let every_v = t.req("every")?;
    let every = every_v.time()?;
    if every == Time::ZERO {
        return Err(every_v.err("the period must be positive"));
    }
    let steps_v = t.req("steps")?;
    let steps = parse_steps(&steps_v)?;
    if steps[0].0 != Time::ZERO {
        return Err(steps_v.err("a periodic schedule's first step must be at 0s (the rate each period starts with)"));
    }
    if let Some(&(last, _)) = steps.last().filter(|s| s.0 >= every) {
        return Err(steps_v.err(format!(
            "a step at {} s is not within the period of {} s",
            crate::engine::time::secs(last),
            crate::engine::time::secs(every)
        )));
    }
    Ok((steps, Some((start, every))))
}

fn parse_steps(v: &Val) -> Res<Vec<(Time, u64)>> {
    let mut steps: Vec<(Time, u64)> = Vec::new();
    for item in v.array()? {
        let t = item.keys(STEP)?;
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

#[cfg(test)]
mod keys_tests {
    use super::TABLES;
    use crate::input::keys::testing::assert_defaults_taken;

    /// Every default shown is the one the parser takes.
    #[test]
    fn the_defaults_shown_are_the_defaults_taken() {
        let checked = assert_defaults_taken(TABLES, |table, _key, line| {
            let line = line.unwrap_or("");
            let link = match table {
                "link" => format!("rate = \"1Mbps\"\n{line}"),
                "link.rate_schedule" => {
                    let keys = ["every = \"1s\"", "steps = [{at = \"0s\", rate = \"1Mbps\"}]", line].join(", ");
                    format!("rate = \"1Mbps\"\nrate_schedule = {{{}}}", keys.trim_end_matches(", "))
                }
                other => unreachable!("{other} shows no value"),
            };
            format!("[simulation]\nduration = \"10s\"\n[[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n[[link]]\nname = \"ab\"\nfrom = \"a\"\nto = \"b\"\ndelay = \"1ms\"\n{link}\n")
        });
        assert_eq!(checked, 5);
    }
}
