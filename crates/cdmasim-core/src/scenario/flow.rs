//! `[[flow]]` tables → [`RawFlow`]: kind = "bulk" (TCP), "cbr" (UDP) or
//! "http" (a web-browsing user: `from` is the server, `to` the browser).

use crate::engine::Time;
use super::raw::{RawFlow};
use crate::input::reader::Named;
use crate::input::reader::{Res, Val};
use super::spec::{AppSpec, CcAlgo, TcpSpec};
use super::tcp::{self, parse_tcp, parse_tcp_over};
use super::web::{self, parse_http};
use crate::input::keys::{self, Key};

/// `kind`'s values, the default first.
const KINDS: &[&str] = &["bulk", "cbr", "http"];

/// Every flow's keys.
pub(crate) const FLOW: &[Key] = &[
    Key::required("name", "The flow (unique)."),
    Key::required("from", "Where it starts (an http flow's web server)."),
    Key::required("to", "Where it ends (an http flow's browser): not `from`, and reachable from it (a bulk or http flow needs a path back for its ACKs)."),
    Key::value("start", || keys::time(Time::ZERO), "The application starts; before the end of the run."),
    Key::value("start_jitter", || keys::time(Time::ZERO), "The flow starts at a uniform time in [start, start + start_jitter), drawn from the scenario's seed and the flow's name: the same seed, the same starts; another seed, others."),
    Key::absent("stop", "none", "The application stops offering data; after `start` (+ `start_jitter`)."),
    Key::value("kind", || format!("\"{}\"", KINDS[0]), "`\"bulk\"`: a TCP transfer; `\"cbr\"`: constant-bit-rate UDP; `\"http\"`: a web-browsing user (below)."),
];

pub(crate) const BULK: &[Key] = &[
    Key::absent("bytes", "unbounded", "Transfer exactly this much; > 0."),
    Key::value("tcp", || tcp::shown(&TcpSpec::default()), "A TCP table (below)."),
];

pub(crate) const CBR: &[Key] = &[
    Key::required("packet_size", "The UDP payload of each datagram (1 B to 65507 B)."),
    Key::required("rate", "The payload rate; > 0."),
];

/// Dziong et al., Table 1: Reno, MSS 576 B, a 32 KB receiver buffer.
pub(crate) fn http_tcp() -> TcpSpec {
    TcpSpec { cc: CcAlgo::Reno, mss: 576, rcv_buffer: 32 * 1024, ..TcpSpec::default() }
}

/// A browsing user's TCP table; the browser's own keys are `web::HTTP`.
pub(crate) const HTTP_TCP_KEY: Key =
    Key::value("tcp", || tcp::shown(&http_tcp()), "A TCP table over Dziong et al.'s Table 1 TCP (the keys shown; any other a TCP table's default).");
pub(crate) const HTTP: &[Key] = &[HTTP_TCP_KEY];

/// Largest UDP payload in one IPv4 datagram (65535 - 20 IP - 8 UDP).
const MAX_UDP_PAYLOAD: u64 = 65_507;

pub(crate) fn parse_flow(v: &Val) -> Res<RawFlow> {
    let kind = match v.keys_of(&[FLOW, BULK, CBR, HTTP, web::HTTP])?.get("kind") {
        None => KINDS[0],
        Some(k) => match k.str()? {
            s if KINDS.contains(&s) => s,
            other => return Err(k.err(format!("unknown flow kind '{other}' (expected \"bulk\", \"cbr\" or \"http\")"))),
        },
    };
    let t = match kind {
        "bulk" => v.keys_of(&[FLOW, BULK])?,
        "cbr" => v.keys_of(&[FLOW, CBR])?,
        _ => v.keys_of(&[FLOW, HTTP, web::HTTP])?,
    };
    let app = if kind == "http" {
        let default = http_tcp();
        AppSpec::Http { http: parse_http(&t)?, tcp: t.or("tcp", default.clone(), |v| parse_tcp_over(v, &default))? }
    } else if kind == "bulk" {
        let bytes = t.opt("bytes", |v| v.size())?;
        if bytes == Some(0) {
            return Err(t.get("bytes").unwrap().err("bytes must be positive (leave it out for an unbounded transfer)"));
        }
        AppSpec::Bulk { bytes, tcp: t.or("tcp", TcpSpec::default(), parse_tcp)? }
    } else {
        let size_v = t.req("packet_size")?;
        let packet_size = size_v.size()?;
        if packet_size == 0 || packet_size > MAX_UDP_PAYLOAD {
            return Err(size_v.err(format!("packet_size must be between 1 B and {MAX_UDP_PAYLOAD} B")));
        }
        AppSpec::Cbr { packet_size: packet_size as u32, rate_bps: t.req("rate")?.positive_rate()? }
    };
    let start_v = t.get("start");
    let start = t.or("start", Time::ZERO, |v| v.time())?;
    let start_jitter = t.or("start_jitter", Time::ZERO, |v| v.time())?;
    let stop = t.opt("stop", |v| v.time())?;
    if let Some(stop) = stop {
        if stop <= start.saturating_add(start_jitter) {
            return Err(t.get("stop").unwrap().err("stop must come after start"));
        }
    }
    let from = Named::new(t.name("from")?);
    let to = Named::new(t.name("to")?);
    Ok(RawFlow {
        name: Named::new(t.name("name")?),
        start_at: start_v.map(|v| v.at()).unwrap_or_else(|| t.at()),
        from,
        to,
        start,
        start_jitter,
        stop,
        app,
    })
}
