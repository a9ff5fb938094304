//! `[[flow]]` tables → [`RawFlow`]: kind = "bulk" (TCP) or "cbr" (UDP).

use super::raw::{Named, RawFlow};
use super::reader::{Res, Val};
use super::spec::{AppSpec, TcpSpec};
use super::tcp::parse_tcp;

const BULK_KEYS: &[&str] = &["name", "from", "to", "start", "start_jitter", "stop", "kind", "bytes", "tcp"];
const CBR_KEYS: &[&str] = &["name", "from", "to", "start", "start_jitter", "stop", "kind", "packet_size", "rate"];
const ALL_KEYS: &[&str] =
    &["name", "from", "to", "start", "start_jitter", "stop", "kind", "bytes", "tcp", "packet_size", "rate"];

/// Largest UDP payload in one IPv4 datagram (65535 - 20 IP - 8 UDP).
const MAX_UDP_PAYLOAD: u64 = 65_507;

pub(crate) fn parse_flow(v: &Val) -> Res<RawFlow> {
    let kind = match v.table(ALL_KEYS)?.get("kind") {
        None => "bulk",
        Some(k) => match k.str()? {
            s @ ("bulk" | "cbr") => s,
            other => return Err(k.err(format!("unknown flow kind '{other}' (expected \"bulk\" or \"cbr\")"))),
        },
    };
    let t = v.table(if kind == "bulk" { BULK_KEYS } else { CBR_KEYS })?;
    let app = if kind == "bulk" {
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
