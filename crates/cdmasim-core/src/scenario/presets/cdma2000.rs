//! Paliwal et al.'s cdma2000 system (Fig. 2, Table I) from a few lines:
//! m BTSs × n mobiles `ms{i}_{j}` (i, j from 1), each with a fixed host
//! `fh{i}_{j}` behind a core router, a BSC `bsc` whose cell `cell` serves
//! them, and one bulk Reno flow `ftp{i}_{j}` per mobile. Every hop has
//! Table I's 37.5 ms (300 ms round trip) and the wired links 100 Mb/s.

use crate::cdma2000::keys as cell_keys;
use crate::input::keys::{self, Key};
use crate::cdma2000::tables::{parse_rate_change, parse_sch_of, RawCell, RawMobile};
use crate::input::queue::parse_queue;
use crate::input::link::RawLink;
use super::super::raw::{RawFlow, RawScenario};
use crate::input::reader::Named;
use crate::input::reader::{Res, Val};
use super::super::spec::{AppSpec, DelAck, QueueLimit, QueueSpec, TcpSpec};
use super::super::tcp::{parse_tcp, shown};
use crate::cdma2000::config::{default_bsc_queue, default_link_queue, BASE_RATE_BPS, TABLE1_DELAY};
use crate::engine::{Time, NS_PER_MS, NS_PER_SEC};
use crate::tcp::config::{LossResponse, RttSampling};
use crate::tcp::cc::CcAlgo;

/// Table I's wired links and the spread of the flows' starts.
const WIRED_RATE_BPS: u64 = 100_000_000;
const START_JITTER: Time = NS_PER_SEC;

pub(crate) const KEYS: &[Key] = &[
    Key::required("m", "BTSs (m·n from 1 to 10000)."),
    Key::required("n", "Mobiles per BTS."),
    cell_keys::BSC_RATE,
    cell_keys::BSC_QUEUE,
    Key::value("link_queue", || keys::queue(&default_link_queue()), "Every mobile's link buffer B^dl (Table I: no limit); any queue table."),
    cell_keys::FCH_RATE,
    Key::value("reverse_rate", || keys::rate(BASE_RATE_BPS), "Every mobile's reverse link."),
    Key::value("delay", || keys::time(TABLE1_DELAY), "Every hop: d^s, d^c, d^t, d^m (a 300 ms round trip)."),
    Key::value("wired_rate", || keys::rate(WIRED_RATE_BPS), "The fixed hosts' and the core's links."),
    cell_keys::RATE_CHANGE_KEY,
    cell_keys::SCH,
    Key::value("tcp", || shown(&table1_tcp(None).expect("Table I's TCP")), "A TCP table; the keys it leaves out take Table I's values (Reno, 1000-byte IP packets, a 32-segment receiver buffer (`rcv_buffer` = 32 × `mss` when only `mss` is given), one segment per ACK, minimum RTO 1 s) and ns-2.35's agents' (which the paper ran: initial window 1, initial RTO 3 s, one timed segment per round trip, a 10 ms tick, no cwnd validation, ns-2's loss response)."),
    Key::value("start_jitter", || keys::time(START_JITTER), "Flows start at uniform times in [0, start_jitter) (with `join`, in [at, at + start_jitter))."),
    Key::absent("join", "none", "`{at = \"50s\", initial = 6}`: only the first `initial` flows start at 0; the others start at `at` (plus the spread), as in the paper's Fig. 6 (a `join` table, below)."),
];

pub(crate) const JOIN: &[Key] = &[
    Key::required("at", "When the other flows start; before the end of the run."),
    Key::required("initial", "How many flows start at 0; below m·n."),
];

/// Table I's TCP, where the `tcp` table leaves a key out: Reno, 1000-byte
/// IP packets (960 B of payload), a 32-packet receiver window, one segment
/// per ACK, minimum RTO 1 s; and ns-2.35's TCP agents (which the paper ran)
/// besides: an initial window of 1, an initial RTO of 3 s (`rtxcur_init_`),
/// one timed segment per round trip, a 10 ms timer tick (`tcpTick_`),
/// cwnd growth on every ACK (no RFC 7661 validation) and ns-2's loss
/// response and per-ACK growth (`loss_response = "ns2"`).
/// The handshake stays on: its RTT sample (small packets) gives every flow
/// a spurious timeout at about 1.3 s at 9.6 kb/s, after which it grows in
/// congestion avoidance, which is what gives the paper's pre-switch window
/// of about 9 packets per flow (without it every flow reaches its 32-packet
/// receiver window by 50 s; docs/reproduce.md has the measurements).
fn table1_tcp(v: Option<&Val>) -> Res<TcpSpec> {
    let mut tcp = match v {
        Some(v) => parse_tcp(v)?,
        None => TcpSpec::default(),
    };
    let given = |k: &str| v.is_some_and(|v| v.has(k));
    if !given("cc") {
        tcp.cc = CcAlgo::Reno;
    }
    if !given("mss") {
        tcp.mss = 960;
    }
    if !given("rcv_buffer") {
        tcp.rcv_buffer = 32 * tcp.mss as u64;
    }
    if !given("initial_window") {
        tcp.initial_window = 1;
    }
    if !given("delayed_ack") {
        tcp.delayed_ack = DelAck::EverySegment;
    }
    if !given("min_rto") {
        tcp.min_rto = NS_PER_SEC;
    }
    if !given("initial_rto") {
        tcp.initial_rto = 3 * NS_PER_SEC;
    }
    if !given("rtt_sampling") {
        tcp.rtt_sampling = RttSampling::OnePerRtt;
    }
    // ns-2's agents grow cwnd on every ACK, used or not (no RFC 7661).
    if !given("cwnd_validation") {
        tcp.cwnd_validation = false;
    }
    if !given("timer_granularity") {
        tcp.timer_granularity = Some(10 * NS_PER_MS);
    }
    // ns-2's Reno agent after a loss and its per-ACK window growth: with
    // RFC 3465 byte counting instead, this cell delivers 5-6 % fewer bytes
    // than ns-2.35 with 15-20 % more BSC drops (docs/reproduce.md).
    if !given("loss_response") {
        tcp.loss_response = LossResponse::Ns2;
    }
    Ok(tcp)
}

pub(crate) fn expand(v: &Val, raw: &mut RawScenario) -> Res<()> {
    let t = v.keys(KEYS)?;
    let m_v = t.req("m")?;
    let n_v = t.req("n")?;
    let (m, n) = (m_v.count()?, n_v.count()?);
    if m == 0 || n == 0 {
        let bad = if m == 0 { &m_v } else { &n_v };
        return Err(bad.err(format!("a cell needs at least one BTS and one mobile per BTS (m = {m}, n = {n})")));
    }
    if m.saturating_mul(n) > 10_000 {
        return Err(m_v.err(format!("m·n = {} mobiles: at most 10000 in one cell", m.saturating_mul(n))));
    }
    let delay = t.or("delay", TABLE1_DELAY, |v| v.time())?;
    let wired = t.or("wired_rate", WIRED_RATE_BPS, |v| v.positive_rate())?;
    let fch = t.or("fch_rate", BASE_RATE_BPS, |v| v.positive_rate())?;
    let reverse = t.or("reverse_rate", BASE_RATE_BPS, |v| v.positive_rate())?;
    let link_queue = t.or("link_queue", default_link_queue(), parse_queue)?;
    let rate_change = parse_rate_change(&t)?;
    let (sch, sch_at) = parse_sch_of(&t)?;
    let tcp = table1_tcp(t.get("tcp").as_ref())?;
    let jitter: Time = t.or("start_jitter", START_JITTER, |v| v.time())?;
    let (join_at, initial) = match t.get("join") {
        None => (Time::ZERO, m * n),
        Some(j) => {
            let jt = j.keys(JOIN)?;
            let initial_v = jt.req("initial")?;
            let initial = initial_v.count()?;
            if initial >= m * n {
                return Err(initial_v.err(format!("initial ({initial}) must be below the number of mobiles m·n = {}", m * n)));
            }
            (jt.req("at")?.time()?, initial)
        }
    };
    if join_at >= raw.duration {
        return Err(t.get("join").unwrap().err("the users join at or after the end of the run"));
    }

    let at = t.at();
    let named = |s: String| Named { name: s, at: at.clone() };
    let wired_link = |name: String, from: String, to: String| RawLink {
        name: named(name),
        from: named(from),
        to: named(to),
        rate_bps: wired,
        reverse_rate_bps: wired,
        delay,
        duplex: true,
        queue: QueueSpec::DropTail { limit: QueueLimit::Unlimited },
        reverse_queue: QueueSpec::DropTail { limit: QueueLimit::Unlimited },
        loss: 0.0,
        reverse_loss: 0.0,
        ppp: None,
        capture_at_entry: false,
        rate_schedule: Vec::new(),
        rate_period: None,
        drc: None,
    };
    raw.nodes.push(named("core".into()));
    raw.nodes.push(named("bsc".into()));
    raw.kinds.link.links.push(wired_link("core-bsc".into(), "core".into(), "bsc".into()));
    raw.kinds.cell.cells.push(RawCell {
        name: named("cell".into()),
        node: named("bsc".into()),
        bsc_rate_bps: t.opt("bsc_rate", |v| v.positive_rate())?,
        bsc_queue: t.or("bsc_queue", default_bsc_queue(), parse_queue)?,
        bts_delay: delay,
        radio_delay: delay,
        fch_bps: fch,
        rate_change,
        sch,
        sch_at,
    });
    // Flows start at uniform times within `start_jitter` (drawn from the
    // run's seed when the world is built), so that 100 senders do not leave slow
    // start in lock-step.
    let mut k = 0;
    for i in 1..=m {
        for j in 1..=n {
            let (ms, fh) = (format!("ms{i}_{j}"), format!("fh{i}_{j}"));
            raw.nodes.push(named(fh.clone()));
            raw.kinds.link.links.push(wired_link(format!("{fh}-core"), fh.clone(), "core".into()));
            raw.kinds.cell.mobiles.push(RawMobile {
                name: named(ms.clone()),
                cell: named("cell".into()),
                bts: (i - 1) as u32,
                queue: link_queue.clone(),
                reverse_rate_bps: reverse,
                reverse_queue: default_link_queue(),
            });
            let start = if k < initial { Time::ZERO } else { join_at };
            raw.flows.push(RawFlow {
                name: named(format!("ftp{i}_{j}")),
                from: named(fh),
                to: named(ms),
                start,
                start_at: at.clone(),
                start_jitter: jitter,
                stop: None,
                app: AppSpec::Bulk { bytes: None, tcp: tcp.clone() },
            });
            k += 1;
        }
    }
    Ok(())
}
