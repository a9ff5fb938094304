//! Queue tables: `{kind = "droptail", limit = "100pkt"}` or
//! `{kind = "red", limit, min_th, max_th, ...}` (`DROPTAIL`, `RED`).

use super::reader::{Res, Val};
use crate::net::queue::red::RedSpec;
use crate::net::queue::{QueueLimit, QueueSpec};
use crate::net::queue::red::RedVariant;
use super::keys::{self, Described, Key};
use super::units::Amount;

/// RED's defaults where the table leaves a key out: Floyd & Jacobson's
/// suggested max_p and w_q, ns-2's mean packet size, the gentle variant.
const RED_MAX_P: f64 = 0.1;
const RED_W_Q: f64 = 0.002;
const RED_MEAN_PKT_SIZE: u64 = 500;
const RED_GENTLE: bool = true;
/// `variant`'s values, the default first.
const RED_VARIANTS: &[(&str, RedVariant)] = &[("floyd", RedVariant::Floyd), ("ns2", RedVariant::Ns2)];
/// `mode`'s values.
const RED_MODES: &[(&str, bool)] = &[("packets", false), ("bytes", true)];

pub(crate) const DROPTAIL: &[Key] = &[
    Key::required("kind", "`\"droptail\"`."),
    Key::value("limit", || keys::limit(&default_limit()), "Packets (`\"100pkt\"`), bytes (`\"64KB\"`) or `\"unlimited\"`."),
];

pub(crate) const RED: &[Key] = &[
    Key::required("kind", "`\"red\"`."),
    Key::required("limit", "The hard limit, in the unit of the thresholds (packets or a size), or `\"unlimited\"`."),
    Key::required("min_th", "The lower threshold on the average queue: packets (`\"5pkt\"`, fractional allowed) or a size (`\"20kB\"`); below `max_th`."),
    Key::required("max_th", "The upper threshold, in the unit of `min_th`; at most `limit`."),
    Key::absent("mode", "the unit of `min_th`", "`\"packets\"` or `\"bytes\"`. Byte mode: thresholds in bytes, and the drop probability scaled by size / `mean_pkt_size`."),
    Key::value("max_p", || RED_MAX_P.to_string(), "The drop probability at `max_th`; > 0."),
    Key::value("w_q", || RED_W_Q.to_string(), "The weight of the newest sample in the average queue (EWMA); > 0."),
    Key::value("gentle", || RED_GENTLE.to_string(), "The probability rises from `max_p` to 1 between `max_th` and 2·`max_th` (else it jumps to 1 at `max_th`)."),
    Key::value("mean_pkt_size", || keys::size(RED_MEAN_PKT_SIZE), "A typical packet, for the idle-time correction of the average and for byte mode."),
    Key::value("variant", || format!("\"{}\"", RED_VARIANTS[0].0), "Whose drop rule: `\"floyd\"`, Floyd & Jacobson 1993 (p_a = p_b/(1 − count·p_b)), or `\"ns2\"`, ns-2.35's REDQueue with its default `wait_` (no drop while count·p_b < 1, then p_b/(2 − count·p_b); no drop decision with one packet or none queued; count restarts at 1 when the average crosses `min_th`). ns-2's rule spaces drops 1/p_b to 2/p_b arrivals apart, about a third as many at a steady average. Paliwal et al. ran ns-2: its scenarios use `\"ns2\"`."),
];

pub(crate) const TABLES: &[Described] = &[
    Described::new("queue.droptail", "a DropTail queue table", DROPTAIL),
    Described::new("queue.red", "a RED queue table, Floyd & Jacobson 1993", RED),
];

/// The queue a link gets when its table names none: DropTail, 100 packets.
pub(crate) fn default_queue() -> QueueSpec {
    QueueSpec::default()
}

/// A DropTail table's limit when it gives none: the default queue's.
fn default_limit() -> QueueLimit {
    match default_queue() {
        QueueSpec::DropTail { limit } => limit,
        QueueSpec::Red(_) => unreachable!("the default queue is DropTail"),
    }
}

pub(crate) fn parse_queue(v: &Val) -> Res<QueueSpec> {
    let kind_v = v.keys_of(&[DROPTAIL, RED])?.req("kind")?;
    match kind_v.str()? {
        "droptail" => {
            let t = v.keys(DROPTAIL)?;
            Ok(QueueSpec::DropTail { limit: t.or("limit", default_limit(), |v| v.limit())? })
        }
        "red" => parse_red(v).map(QueueSpec::Red),
        other => Err(kind_v.err(format!("unknown queue kind '{other}' (expected \"droptail\" or \"red\")"))),
    }
}

/// RED (Floyd & Jacobson 1993). Thresholds carry their unit: packets in
/// packet mode, bytes in byte mode; `mode` defaults to the unit of min_th.
fn parse_red(v: &Val) -> Res<RedSpec> {
    let t = v.keys(RED)?;
    let min_v = t.req("min_th")?;
    let max_v = t.req("max_th")?;
    let (min_a, max_a) = (min_v.amount()?, max_v.amount()?);
    let byte_mode = t.or("mode", matches!(min_a, Amount::Bytes(_)), |m| m.one_of(RED_MODES))?;
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
    let max_p = t.or("max_p", RED_MAX_P, |v| v.probability())?;
    if max_p == 0.0 {
        return Err(t.get("max_p").unwrap().err("max_p must be positive"));
    }
    let w_q = t.or("w_q", RED_W_Q, |v| v.probability())?;
    if w_q == 0.0 {
        return Err(t.get("w_q").unwrap().err("w_q must be positive"));
    }
    let mean_pkt_size = t.or("mean_pkt_size", RED_MEAN_PKT_SIZE, |v| v.size())?;
    if mean_pkt_size == 0 || mean_pkt_size > u32::MAX as u64 {
        return Err(t.get("mean_pkt_size").unwrap().err("mean_pkt_size must be between 1 B and 4 GB"));
    }
    Ok(RedSpec {
        limit,
        min_th,
        max_th,
        max_p,
        w_q,
        gentle: t.or("gentle", RED_GENTLE, |v| v.bool())?,
        byte_mode,
        mean_pkt_size: mean_pkt_size as u32,
        variant: t.or("variant", RED_VARIANTS[0].1, |v| v.one_of(RED_VARIANTS))?,
    })
}
