//! The `[flow.tcp]` / `[dumbbell.tcp]` table → [`TcpSpec`]; absent keys keep
//! `TcpSpec::default()`.

use crate::input::reader::{Res, Table, Val};
use super::cc::{parse_cc, parse_rwnd, CC_KEYS};
use super::spec::{DelAck, LossResponse, RtoRule, RttSampling, SpuriousDetection, TcpSpec};
use crate::engine::NS_PER_MS;

const TCP_KEYS: &[&str] = &[
    "sack",
    "timestamps",
    "mss",
    "initial_window",
    "rcv_buffer",
    "snd_buffer",
    "delayed_ack",
    "delack_timeout",
    "min_rto",
    "initial_rto",
    "max_rto",
    "dupack_threshold",
    "limited_transmit",
    "spurious_detection",
    "eifel_response",
    "rto_rule",
    "loss_response",
    "trace_cwnd",
    "handshake",
    "rtt_sampling",
    "timer_granularity",
    "cwnd_validation",
];

/// Largest TCP payload in one IPv4 datagram (65535 - 20 IP - 20 TCP).
const MAX_MSS: u64 = 65_495;

pub(crate) fn parse_tcp(v: &Val) -> Res<TcpSpec> {
    parse_tcp_over(v, &TcpSpec::default())
}

/// The table's keys over `d` (a flow kind's or preset's own defaults).
pub(crate) fn parse_tcp_over(v: &Val, d: &TcpSpec) -> Res<TcpSpec> {
    let keys: Vec<&str> = TCP_KEYS.iter().chain(CC_KEYS).copied().collect();
    let t = v.table(&keys)?;
    let d = d.clone();
    let cc = parse_cc(&t, d.cc)?;
    let rwnd = parse_rwnd(&t)?;
    let mss = t.or("mss", d.mss as u64, |v| v.size())?;
    if mss == 0 || mss > MAX_MSS {
        return Err(t.get("mss").unwrap().err(format!("mss must be between 1 B and {MAX_MSS} B (got {mss} B)")));
    }
    let initial_window = t.or("initial_window", d.initial_window, |v| v.count_u32())?;
    if initial_window == 0 {
        return Err(t.get("initial_window").unwrap().err("initial_window must be at least 1 segment"));
    }
    let rcv_buffer = t.or("rcv_buffer", d.rcv_buffer, |v| v.size())?;
    if rcv_buffer < mss {
        let v = t.get("rcv_buffer").unwrap_or_else(|| t.get("mss").unwrap());
        return Err(v.err(format!("rcv_buffer ({rcv_buffer} B) must hold at least one segment of mss {mss} B")));
    }
    let snd_buffer = t.opt("snd_buffer", |v| v.size())?.or(d.snd_buffer);
    if let Some(b) = snd_buffer.filter(|&b| b < mss) {
        let v = t.get("snd_buffer").unwrap_or_else(|| t.get("mss").unwrap());
        return Err(v.err(format!("snd_buffer ({b} B) must hold at least one segment of mss {mss} B")));
    }
    let delayed_ack = parse_delack(&t)?;
    let min_rto = t.or("min_rto", d.min_rto, |v| v.time())?;
    let initial_rto = t.or("initial_rto", d.initial_rto, |v| v.time())?;
    let max_rto = t.or("max_rto", d.max_rto, |v| v.time())?;
    if initial_rto == 0 {
        return Err(t.get("initial_rto").unwrap().err("initial_rto must be positive"));
    }
    if min_rto > max_rto {
        let v = t.get("min_rto").or_else(|| t.get("max_rto")).unwrap();
        return Err(v.err("min_rto must not exceed max_rto"));
    }
    if initial_rto > max_rto {
        let v = t.get("initial_rto").or_else(|| t.get("max_rto")).unwrap();
        return Err(v.err("initial_rto must not exceed max_rto"));
    }
    let dupack_threshold = t.or("dupack_threshold", d.dupack_threshold, |v| v.count_u32())?;
    if dupack_threshold == 0 {
        return Err(t.get("dupack_threshold").unwrap().err("dupack_threshold must be at least 1"));
    }
    let timestamps = t.or("timestamps", d.timestamps, |v| v.bool())?;
    let spurious_detection = t.or("spurious_detection", d.spurious_detection, |v| {
        use SpuriousDetection::*;
        let s = v.one_of(&[("off", Off), ("eifel", Eifel), ("frto", Frto)])?;
        if s == Eifel && !timestamps {
            return Err(v.err("Eifel detection (RFC 3522) needs timestamps = true"));
        }
        Ok(s)
    })?;
    let rtt_sampling =
        t.or("rtt_sampling", d.rtt_sampling, |v| v.one_of(&[("every_ack", RttSampling::EveryAck), ("one_per_rtt", RttSampling::OnePerRtt)]))?;
    let rto_rule = t.or("rto_rule", d.rto_rule, |v| v.one_of(&[("rfc6298", RtoRule::Rfc6298), ("linux", RtoRule::Linux)]))?;
    let loss_response = t.or("loss_response", d.loss_response, |v| v.one_of(&[("rfc", LossResponse::Rfc), ("ns2", LossResponse::Ns2)]))?;
    let timer_granularity = t.opt("timer_granularity", |v| v.time())?;
    if timer_granularity == Some(0) {
        return Err(t.get("timer_granularity").unwrap().err("timer_granularity must be positive"));
    }
    Ok(TcpSpec {
        cc,
        sack: t.or("sack", d.sack, |v| v.bool())?,
        timestamps,
        mss: mss as u32,
        initial_window,
        rcv_buffer,
        snd_buffer,
        delayed_ack,
        min_rto,
        initial_rto,
        max_rto,
        dupack_threshold,
        limited_transmit: t.or("limited_transmit", d.limited_transmit, |v| v.bool())?,
        spurious_detection,
        eifel_response: t.or("eifel_response", d.eifel_response, |v| v.bool())?,
        rwnd,
        trace_cwnd: t.or("trace_cwnd", d.trace_cwnd, |v| v.bool())?,
        handshake: t.or("handshake", d.handshake, |v| v.bool())?,
        rtt_sampling,
        rto_rule,
        loss_response,
        timer_granularity,
        cwnd_validation: t.or("cwnd_validation", d.cwnd_validation, |v| v.bool())?,
    })
}

/// delayed_ack = "off" (ACK every segment) | "on" / "every2" (RFC 5681 §4.2:
/// ACK every second full segment, or when delack_timeout, default 200 ms, expires).
/// true / false are accepted as "on" / "off".
fn parse_delack(t: &Table) -> Res<DelAck> {
    let on = match t.get("delayed_ack") {
        None => false,
        Some(v) => match v.bool() {
            Ok(b) => b,
            Err(_) => match v.str()? {
                "off" => false,
                "on" | "every2" => true,
                other => return Err(v.err(format!("unknown delayed_ack '{other}' (expected \"off\", \"on\" or \"every2\")"))),
            },
        },
    };
    let timeout = t.opt("delack_timeout", |v| v.time())?;
    match (on, timeout) {
        (false, Some(_)) => Err(t.get("delack_timeout").unwrap().err("delack_timeout needs delayed_ack = \"on\"")),
        (false, None) => Ok(DelAck::EverySegment),
        (true, Some(0)) => Err(t.get("delack_timeout").unwrap().err("delack_timeout must be positive")),
        (true, timeout) => Ok(DelAck::EverySecond { timeout: timeout.unwrap_or(200 * NS_PER_MS) }),
    }
}
