//! The dumbbell: N senders s0..s{N-1} → r1 → (bottleneck) → r2 → d0..d{N-1},
//! one bulk TCP flow "flow{i}" from s{i} to d{i}, started i × start_spacing
//! apart so that the flows do not all leave slow start in lock-step.

use crate::input::drc::{parse_drc, REVERSE_RATE_BPS};
use crate::input::keys::{self, Key};
use crate::input::queue::{default_queue, parse_queue};
use crate::input::link::RawLink;
use super::super::raw::{RawFlow, RawScenario};
use crate::input::reader::Named;
use crate::input::reader::{At, Res, Val};
use super::super::spec::{AppSpec, QueueLimit, QueueSpec, TcpSpec};
use super::super::tcp::parse_tcp;
use crate::engine::{Time, NS_PER_MS};

const ACCESS_RATE_BPS: u64 = 100_000_000;
const ACCESS_DELAY: Time = NS_PER_MS;
const START_SPACING: Time = Time::from_millis(10);
const ACCESS_QUEUE: QueueSpec = QueueSpec::DropTail { limit: QueueLimit::Packets(1000) };

pub(crate) const KEYS: &[Key] = &[
    Key::required("flows", "Sender/receiver pairs (1 to 14999: two hosts each, at most 30,000 nodes)."),
    Key::absent("bottleneck_rate", "required unless `bottleneck_drc`", "The rate of `r1-r2` (both directions)."),
    Key::required("bottleneck_delay", "The delay of `r1-r2`."),
    Key::absent("bottleneck_drc", "none", "The forward rate of `r1-r2` follows a DRC sequence: a `drc` table (as a link's); not with `bottleneck_rate`."),
    Key::absent("bottleneck_reverse_rate", "`bottleneck_rate`; `\"153.6kbps\"` with `bottleneck_drc`", "The rate of `r1-r2/rev`."),
    Key::value("access_rate", || keys::rate(ACCESS_RATE_BPS), "The rate of every access link."),
    Key::value("access_delay", || keys::time(ACCESS_DELAY), "The delay of every access link."),
    Key::value("start_spacing", || keys::time(START_SPACING), "Flow i starts at i × start_spacing."),
    Key::value("start_jitter", || keys::time(Time::ZERO), "Plus a uniform time in [0, start_jitter), per flow (as a `[[flow]]`'s)."),
    Key::value("queue", || keys::queue(&default_queue()), "The bottleneck's queue, both directions."),
    Key::value("access_queue", || keys::queue(&ACCESS_QUEUE), "The queue of every access link, both directions."),
    Key::absent("bytes", "unbounded", "The transfer size of every flow."),
    Key::value("tcp", || super::super::tcp::shown(&TcpSpec::default()), "A TCP table, applied to every flow."),
];

pub(crate) fn expand(v: &Val, raw: &mut RawScenario) -> Res<()> {
    let t = v.keys(KEYS)?;
    let flows_v = t.req("flows")?;
    let n = flows_v.count()?;
    // Two end hosts per flow and the two routers: the scenario's node limit.
    let most = (crate::input::limits::MAX_NODES as u64 - 2) / 2;
    if n == 0 || n > most {
        return Err(flows_v.err(format!("flows must be between 1 and {most} (two hosts each, at most {} nodes)", crate::input::limits::MAX_NODES)));
    }
    // The bottleneck's forward rate: constant, or a DRC sequence.
    let drc = t.opt("bottleneck_drc", parse_drc)?;
    let bottleneck_rate = match (t.get("bottleneck_rate"), &drc) {
        (Some(r), None) => r.positive_rate()?,
        (Some(r), Some(_)) => {
            return Err(r.err("bottleneck_rate cannot be combined with bottleneck_drc: the DRC sequence sets the forward rate"))
        }
        (None, Some(_)) => 0,
        (None, None) => return Err(t.missing_with("bottleneck_rate", "give bottleneck_rate or bottleneck_drc")),
    };
    let default_reverse = if drc.is_some() { REVERSE_RATE_BPS } else { bottleneck_rate };
    let bottleneck_reverse_rate = t.or("bottleneck_reverse_rate", default_reverse, |v| v.positive_rate())?;
    let bottleneck_delay = t.req("bottleneck_delay")?.time()?;
    let access_rate = t.or("access_rate", ACCESS_RATE_BPS, |v| v.positive_rate())?;
    let access_delay = t.or("access_delay", ACCESS_DELAY, |v| v.time())?;
    let spacing: Time = t.or("start_spacing", START_SPACING, |v| v.time())?;
    let start_jitter: Time = t.or("start_jitter", Time::ZERO, |v| v.time())?;
    let queue = t.or("queue", default_queue(), parse_queue)?;
    let access_queue = t.or("access_queue", ACCESS_QUEUE, parse_queue)?;
    let bytes = t.opt("bytes", |v| v.size())?;
    if bytes == Some(0) {
        return Err(t.get("bytes").unwrap().err("bytes must be positive (leave it out for unbounded transfers)"));
    }
    let tcp = t.or("tcp", TcpSpec::default(), parse_tcp)?;

    // Generated items are blamed on the key that made them.
    let at = |key: &str| t.get(key).map(|v| v.at()).unwrap_or_else(|| t.at());
    let named = |name: String, key: &str| Named { name, at: at(key) };
    let link = |name: String, from: String, to: String, rate_bps: u64, delay: Time, q: &QueueSpec| RawLink {
        name: named(name, "flows"),
        from: named(from, "flows"),
        to: named(to, "flows"),
        rate_bps,
        reverse_rate_bps: rate_bps,
        delay,
        duplex: true,
        queue: q.clone(),
        reverse_queue: q.clone(),
        loss: 0.0,
        reverse_loss: 0.0,
        ppp: None,
        capture_at_entry: false,
        rate_schedule: Vec::new(),
        rate_period: None,
        drc: None,
    };

    let senders: Vec<String> = (0..n).map(|i| format!("s{i}")).collect();
    let sinks: Vec<String> = (0..n).map(|i| format!("d{i}")).collect();
    for name in senders.iter().chain(["r1".to_string(), "r2".to_string()].iter()).chain(sinks.iter()) {
        raw.nodes.push(named(name.clone(), "flows"));
    }
    for (s, d) in senders.iter().zip(&sinks) {
        raw.kinds.link.links.push(link(format!("{s}-r1"), s.clone(), "r1".into(), access_rate, access_delay, &access_queue));
        raw.kinds.link.links.push(link(format!("r2-{d}"), "r2".into(), d.clone(), access_rate, access_delay, &access_queue));
    }
    raw.kinds.link.links.push(RawLink {
        reverse_rate_bps: bottleneck_reverse_rate,
        drc,
        ..link("r1-r2".into(), "r1".into(), "r2".into(), bottleneck_rate, bottleneck_delay, &queue)
    });

    let start_at: At = at("start_spacing");
    for (i, (s, d)) in senders.iter().zip(&sinks).enumerate() {
        raw.flows.push(RawFlow {
            name: named(format!("flow{i}"), "flows"),
            from: named(s.clone(), "flows"),
            to: named(d.clone(), "flows"),
            start: spacing.checked_mul(i as u64).ok_or_else(|| t.get("start_spacing").unwrap().err("too large"))?,
            start_at: start_at.clone(),
            start_jitter,
            stop: None,
            app: AppSpec::Bulk { bytes, tcp: tcp.clone() },
        });
    }
    Ok(())
}
