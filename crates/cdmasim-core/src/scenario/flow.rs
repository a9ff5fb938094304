//! `[[flow]]` tables → [`RawFlow`]: kind = "bulk" (TCP), "cbr" (UDP) or
//! "http" (a web-browsing user: `from` is the server, `to` the browser).

use super::raw::{RawFlow};
use crate::input::reader::Named;
use crate::input::reader::{Res, Val};
use super::spec::{AppSpec, CcAlgo, TcpSpec};
use super::tcp::{parse_tcp, parse_tcp_over};
use super::web::{parse_http, HTTP_KEYS};

const BULK_KEYS: &[&str] = &["name", "from", "to", "start", "start_jitter", "stop", "kind", "bytes", "tcp"];
const CBR_KEYS: &[&str] = &["name", "from", "to", "start", "start_jitter", "stop", "kind", "packet_size", "rate"];
const COMMON_KEYS: &[&str] = &["name", "from", "to", "start", "start_jitter", "stop", "kind"];
const ALL_KEYS: &[&str] = &[
    "name", "from", "to", "start", "start_jitter", "stop", "kind", "bytes", "tcp", "packet_size", "rate",
    "parallel", "persistent", "pages", "request_size", "objects_per_page", "object_size", "think_time",
];

/// Largest UDP payload in one IPv4 datagram (65535 - 20 IP - 8 UDP).
const MAX_UDP_PAYLOAD: u64 = 65_507;

pub(crate) fn parse_flow(v: &Val) -> Res<RawFlow> {
    let kind = match v.table(ALL_KEYS)?.get("kind") {
        None => "bulk",
        Some(k) => match k.str()? {
            s @ ("bulk" | "cbr" | "http") => s,
            other => return Err(k.err(format!("unknown flow kind '{other}' (expected \"bulk\", \"cbr\" or \"http\")"))),
        },
    };
    let http_keys: Vec<&str> = COMMON_KEYS.iter().chain(&["tcp"]).chain(HTTP_KEYS).copied().collect();
    let t = v.table(match kind {
        "bulk" => BULK_KEYS,
        "cbr" => CBR_KEYS,
        _ => &http_keys,
    })?;
    let app = if kind == "http" {
        // Dziong et al., Table 1: Reno, MSS 576 B, a 32 KB receiver buffer.
        let default = TcpSpec { cc: CcAlgo::Reno, mss: 576, rcv_buffer: 32 * 1024, ..TcpSpec::default() };
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
    let start = t.or("start", 0, |v| v.time())?;
    let start_jitter = t.or("start_jitter", 0, |v| v.time())?;
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
