//! Queue tables: `{kind = "droptail", limit = "100pkt"}` or
//! `{kind = "red", limit, min_th, max_th, max_p, w_q, gentle, mode, mean_pkt_size}`.

use super::reader::{Res, Val};
use crate::net::queue::red::RedSpec;
use crate::net::queue::{QueueLimit, QueueSpec};
use crate::net::queue::red::RedVariant;
use super::units::Amount;

const DROPTAIL_KEYS: &[&str] = &["kind", "limit"];
const RED_KEYS: &[&str] = &["kind", "limit", "min_th", "max_th", "max_p", "w_q", "gentle", "mode", "mean_pkt_size", "variant"];

/// The queue a link gets when its table names none: DropTail, 100 packets.
pub(crate) fn default_queue() -> QueueSpec {
    QueueSpec::default()
}

pub(crate) fn parse_queue(v: &Val) -> Res<QueueSpec> {
    let kind_v = v.table(RED_KEYS)?.req("kind")?;
    match kind_v.str()? {
        "droptail" => {
            let t = v.table(DROPTAIL_KEYS)?;
            Ok(QueueSpec::DropTail { limit: t.or("limit", QueueLimit::Packets(100), |v| v.limit())? })
        }
        "red" => parse_red(v).map(QueueSpec::Red),
        other => Err(kind_v.err(format!("unknown queue kind '{other}' (expected \"droptail\" or \"red\")"))),
    }
}

/// RED (Floyd & Jacobson 1993). Thresholds carry their unit: packets in
/// packet mode, bytes in byte mode; `mode` defaults to the unit of min_th.
fn parse_red(v: &Val) -> Res<RedSpec> {
    let t = v.table(RED_KEYS)?;
    let min_v = t.req("min_th")?;
    let max_v = t.req("max_th")?;
    let (min_a, max_a) = (min_v.amount()?, max_v.amount()?);
    let byte_mode = match t.get("mode") {
        Some(m) => match m.str()? {
            "packets" => false,
            "bytes" => true,
            other => return Err(m.err(format!("unknown RED mode '{other}' (expected \"packets\" or \"bytes\")"))),
        },
        None => matches!(min_a, Amount::Bytes(_)),
    };
    let value = |a: Amount, v: &Val| -> Res<f64> {
        match (a, byte_mode) {
            (Amount::Packets(p), false) => Ok(p),
            (Amount::Bytes(b), true) => Ok(b as f64),
            (_, false) => Err(v.err("in packet mode a RED threshold is in packets, e.g. \"20pkt\"")),
            (_, true) => Err(v.err("in byte mode a RED threshold is a size, e.g. \"20kB\"")),
        }
    };
    let min_th = value(min_a, &min_v)?;
    let max_th = value(max_a, &max_v)?;
    if min_th >= max_th {
        return Err(min_v.err(format!("min_th must be below max_th ({min_th} >= {max_th})")));
    }
    let limit_v = t.req("limit")?;
    let limit = limit_v.limit()?;
    let cap = match (&limit, byte_mode) {
        (QueueLimit::Packets(n), false) => Some(*n as f64),
        (QueueLimit::Bytes(n), true) => Some(*n as f64),
        (QueueLimit::Unlimited, _) => None,
        _ => return Err(limit_v.err("the limit must be in the same unit as the thresholds (packets or bytes)")),
    };
    if let Some(cap) = cap {
        if max_th > cap {
            return Err(max_v.err(format!("max_th must not exceed the queue limit ({max_th} > {cap})")));
        }
    }
    let max_p = t.or("max_p", 0.1, |v| v.probability())?;
    if max_p == 0.0 {
        return Err(t.get("max_p").unwrap().err("max_p must be positive"));
    }
    let w_q = t.or("w_q", 0.002, |v| v.probability())?;
    if w_q == 0.0 {
        return Err(t.get("w_q").unwrap().err("w_q must be positive"));
    }
    let mean_pkt_size = t.or("mean_pkt_size", 500, |v| v.size())?;
    if mean_pkt_size == 0 || mean_pkt_size > u32::MAX as u64 {
        return Err(t.get("mean_pkt_size").unwrap().err("mean_pkt_size must be between 1 B and 4 GB"));
    }
    Ok(RedSpec {
        limit,
        min_th,
        max_th,
        max_p,
        w_q,
        gentle: t.or("gentle", true, |v| v.bool())?,
        byte_mode,
        mean_pkt_size: mean_pkt_size as u32,
        variant: t.or("variant", RedVariant::Floyd, |v| v.one_of(&[("floyd", RedVariant::Floyd), ("ns2", RedVariant::Ns2)]))?,
    })
}
