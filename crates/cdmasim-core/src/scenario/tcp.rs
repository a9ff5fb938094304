//! The `[flow.tcp]` / `[dumbbell.tcp]` table → [`TcpSpec`]; absent keys keep
//! `TcpSpec::default()`.

use crate::input::reader::{Res, Table, Val};
use super::cc::{parse_cc, parse_rwnd, RWND};
use crate::input::keys::{self, Key};
use super::spec::{DelAck, LossResponse, RtoRule, RttSampling, RwndAlgo, SpuriousDetection, TcpSpec};
use crate::engine::Time;

/// The delayed-ACK timer when `delayed_ack` is on and no `delack_timeout` is given.
const DELACK_TIMEOUT: Time = Time::from_millis(200);

const SPURIOUS: &[(&str, SpuriousDetection)] =
    &[("off", SpuriousDetection::Off), ("eifel", SpuriousDetection::Eifel), ("frto", SpuriousDetection::Frto)];
const RTT_SAMPLING: &[(&str, RttSampling)] = &[("every_ack", RttSampling::EveryAck), ("one_per_rtt", RttSampling::OnePerRtt)];
const RTO_RULE: &[(&str, RtoRule)] = &[("rfc6298", RtoRule::Rfc6298), ("linux", RtoRule::Linux)];
const LOSS_RESPONSE: &[(&str, LossResponse)] = &[("rfc", LossResponse::Rfc), ("ns2", LossResponse::Ns2)];

/// The TCP table's keys (`[flow.tcp]`, `[dumbbell.tcp]`, a preset's); the
/// congestion control's and RBSMQ's parameter tables are `cc`'s.
pub(crate) const TCP: &[Key] = &[
    Key::value("cc", || default_written("cc"), "The congestion control: `\"reno\"`, `\"newreno\"`, `\"vegas\"`, `\"westwood\"`, `\"cubic\"` or `\"bbr\"` (docs/tcp.md). Its parameters go in a table named after it, `[flow.tcp.cubic]` (below); a table for another algorithm is an error."),
    Key::absent("vegas", "the defaults below", "Vegas's parameters (with `cc = \"vegas\"`)."),
    Key::absent("westwood", "the defaults below", "Westwood+'s parameters (with `cc = \"westwood\"`)."),
    Key::absent("cubic", "the defaults below", "Cubic's parameters (with `cc = \"cubic\"`)."),
    Key::absent("bbr", "the defaults below", "BBR's parameters (with `cc = \"bbr\"`)."),
    Key::value("rwnd", || default_written("rwnd"), "The receiver's advertised-window policy: `\"fixed\"`, all its free buffer, or `\"rbsmq\"`, Jung et al.'s RBSMQ (docs/tcp.md)."),
    Key::absent("rbsmq", "the defaults below", "RBSMQ's parameters (with `rwnd = \"rbsmq\"`)."),
    Key::value("sack", || default_written("sack"), "Selective acknowledgements."),
    Key::value("timestamps", || default_written("timestamps"), "The TCP timestamps option."),
    Key::value("mss", || default_written("mss"), "Payload bytes per segment (1 to 65495)."),
    Key::value("initial_window", || default_written("initial_window"), "The initial cwnd, in segments (≥ 1)."),
    Key::value("rcv_buffer", || default_written("rcv_buffer"), "The receiver's buffer; the advertised window is what is free of it; ≥ `mss`."),
    Key::absent("snd_buffer", "none (no cap)", "The sender's socket buffer: every byte sent is held until acknowledged, so the data in flight never exceeds it, whatever cwnd and the advertised window allow (Windows XP's default `SO_SNDBUF` was 8 KiB); ≥ `mss`."),
    Key::value("delayed_ack", || default_written("delayed_ack"), "`\"off\"`: ACK every segment; `\"on\"` (or `\"every2\"`): every second full segment or when `delack_timeout` expires (RFC 5681 §4.2). `true` and `false` are `\"on\"` and `\"off\"`."),
    Key::value("delack_timeout", || keys::time(DELACK_TIMEOUT), "The delayed-ACK timer (with `delayed_ack` on only)."),
    Key::value("min_rto", || default_written("min_rto"), "The lower bound of the RTO (RFC 6298)."),
    Key::value("initial_rto", || default_written("initial_rto"), "The RTO before the first RTT sample; > 0."),
    Key::value("max_rto", || default_written("max_rto"), "The upper bound of the RTO; ≥ `min_rto` and `initial_rto`."),
    Key::value("dupack_threshold", || default_written("dupack_threshold"), "Duplicate ACKs that trigger fast retransmit (≥ 1)."),
    Key::value("limited_transmit", || default_written("limited_transmit"), "Limited Transmit (RFC 3042): one new segment on each of the first two duplicate ACKs, as Linux, ns-2 and ns-3 do by default."),
    Key::value("spurious_detection", || default_written("spurious_detection"), "Detect spurious retransmission timeouts: `\"eifel\"` (RFC 3522, needs `timestamps = true`) or `\"frto\"` (RFC 5682); counted in `spurious_timeouts`."),
    Key::value("eifel_response", || default_written("eifel_response"), "On a detected spurious timeout, respond as RFC 4015 (no go-back-N, window restored, RTO restarted); `false`: only count it."),
    Key::value("rto_rule", || default_written("rto_rule"), "`\"rfc6298\"`: RTO = max(min_rto, SRTT + max(1 ms, 4·RTTVAR)); `\"linux\"`: RTO = SRTT + max(4·RTTVAR, min_rto), as Linux's tcp_set_rto, so the timer always allows min_rto beyond SRTT (fewer spurious timeouts behind a standing queue)."),
    Key::value("loss_response", || default_written("loss_response"), "Whose loss response. `\"rfc\"`: RFC 5681/6298 (ssthresh from FlightSize, held at a timeout of an already retransmitted segment; the retransmission timer runs on through fast retransmit; Reno may fast-retransmit again within one window). `\"ns2\"`: ns-2.35's Agent/TCP/Reno (tcp.cc `slowdown`, `timeout`; tcp-reno.cc `dupack_action`): ssthresh = max(⌊min(cwnd, rwnd)/2⌋, 2) whole segments at every fast retransmit and every timeout (2 after a backed-off one), for `cc` reno and newreno; fast retransmit restarts the retransmission timer; with ns-2's default `bugFix_`, no fast retransmit until the cumulative ACK passes the highest segment sent at the last timeout or fast retransmit; and ns-2's window growth (tcp.cc `opencwnd`): once per new ACK, whatever it covers (one segment below ssthresh, MSS²/cwnd above), also on the ACK that ends fast recovery, instead of RFC 3465's byte counting. `preset = \"cdma2000\"` uses `\"ns2\"`."),
    Key::value("trace_cwnd", || default_written("trace_cwnd"), "Record cwnd and ssthresh at every change (series `cwnd`, `ssthresh`), the receiver's advertised window (`rwnd`, bytes), and for a pacing algorithm `pacing_rate_bps` (wire bits/s)."),
    Key::value("handshake", || default_written("handshake"), "Open with SYN / SYN-ACK. `false`: the connection starts established, as ns-2's one-way TCP agents (`Agent/TCP` without `syn_`): data leaves at the flow's start, the receiver accepts it without a SYN, there is no handshake RTT sample (the RTO stays at `initial_rto` until the first data sample), and no window scale is negotiated (captures show windows unscaled, at most 65535)."),
    Key::value("rtt_sampling", || default_written("rtt_sampling"), "Which ACKs give RTT samples (for the RTO and the congestion control). `\"every_ack\"`: every new ACK of never-retransmitted data (Karn), or with timestamps every new ACK through TSecr. `\"one_per_rtt\"`: the classic BSD / ns-2 scheme: one segment timed at a time (the first new segment sent while none is timed), sampled when an ACK covers it, the timing cancelled by any retransmission before that (Karn); with timestamps still one sample per round trip, from the send time (ns-2 would sample every ACK with its timestamps on)."),
    Key::absent("timer_granularity", "none (RFC 6298 with G = 1 ms)", "The retransmission timer's clock tick (> 0). Absent: RFC 6298 arithmetic on nanosecond samples, RTO = SRTT + max(1 ms, 4·RTTVAR). Given (any value, 1 ms included): ns-2's TcpAgent arithmetic (tcp.cc rtt_update / rtt_timeout; its `tcpTick_`, 10 ms in ns-2.35, 500 ms in classic BSD): samples counted in whole ticks (the tick boundaries crossed between sending and the ACK, ticks falling on multiples of the tick from t = 0; a timestamp sample rounded), at least 1; SRTT and RTTVAR in fixed point (3 and 2 fraction bits); RTO = ⌊SRTT + 4·RTTVAR⌋ ticks, raised to `min_rto` before the backoff, lowered to `max_rto` after it, and at least 2 ticks; after 4 backoffs the next sample restarts the estimate."),
    Key::value("cwnd_validation", || default_written("cwnd_validation"), "RFC 7661 §4.3, as Linux's `tcp_is_cwnd_limited`: Reno, NewReno, Westwood+ and Vegas grow cwnd only while the window is in use (slow start: at least half of it in flight before the ACK; congestion avoidance: all but one segment), so a flow held back by the receiver's window or its application keeps cwnd within about twice what it sends. Cubic keeps its own §5.8 test, BBR sets cwnd itself. `false`: cwnd grows on every ACK, as ns-2's agents do (`preset = \"cdma2000\"`)."),
];

/// How a file writes key `key` of a TCP table to get `t`'s value; None
/// for a key `t` leaves unset (`snd_buffer` without a cap, `delack_timeout`
/// without delayed ACKs, `timer_granularity` without a tick) and for the
/// parameter tables, which are shown by the algorithm's name only.
fn written(key: &str, t: &TcpSpec) -> Option<String> {
    let quoted = |s: &str| format!("\"{s}\"");
    Some(match key {
        "cc" => quoted(t.cc.name()),
        "rwnd" => quoted(if t.rwnd == RwndAlgo::Fixed { RWND[0] } else { RWND[1] }),
        "sack" => t.sack.to_string(),
        "timestamps" => t.timestamps.to_string(),
        "mss" => keys::size(t.mss as u64),
        "initial_window" => t.initial_window.to_string(),
        "rcv_buffer" => keys::size(t.rcv_buffer),
        "snd_buffer" => keys::size(t.snd_buffer?),
        "delayed_ack" => quoted(if t.delayed_ack == DelAck::EverySegment { "off" } else { "on" }),
        "delack_timeout" => match t.delayed_ack {
            DelAck::EverySecond { timeout } => keys::time(timeout),
            DelAck::EverySegment => return None,
        },
        "min_rto" => keys::time(t.min_rto),
        "initial_rto" => keys::time(t.initial_rto),
        "max_rto" => keys::time(t.max_rto),
        "dupack_threshold" => t.dupack_threshold.to_string(),
        "limited_transmit" => t.limited_transmit.to_string(),
        "spurious_detection" => keys::named(SPURIOUS, t.spurious_detection),
        "eifel_response" => t.eifel_response.to_string(),
        "rto_rule" => keys::named(RTO_RULE, t.rto_rule),
        "loss_response" => keys::named(LOSS_RESPONSE, t.loss_response),
        "trace_cwnd" => t.trace_cwnd.to_string(),
        "handshake" => t.handshake.to_string(),
        "rtt_sampling" => keys::named(RTT_SAMPLING, t.rtt_sampling),
        "timer_granularity" => keys::time(t.timer_granularity?),
        "cwnd_validation" => t.cwnd_validation.to_string(),
        _ => return None,
    })
}

/// A key's default as `TcpSpec::default()` writes it.
fn default_written(key: &str) -> String {
    written(key, &TcpSpec::default()).expect("a TCP key with a default is written")
}

/// A TCP table as a file writes it: the keys where `t` differs from
/// `TcpSpec::default()`, which is what a flow kind's or preset's own TCP
/// sets (`{}` for the default). Congestion-control and RBSMQ parameters
/// are shown by the algorithm's name only: an own TCP that changed them
/// would show a table that does not give it (the defaults tests say so).
pub(crate) fn shown(t: &TcpSpec) -> String {
    let d = TcpSpec::default();
    let set: Vec<String> = TCP
        .iter()
        .filter_map(|k| {
            let mine = written(k.name, t)?;
            (Some(&mine) != written(k.name, &d).as_ref()).then(|| format!("{} = {mine}", k.name))
        })
        .collect();
    format!("{{{}}}", set.join(", "))
}

/// Largest TCP payload in one IPv4 datagram (65535 - 20 IP - 20 TCP).
const MAX_MSS: u64 = 65_495;

pub(crate) fn parse_tcp(v: &Val) -> Res<TcpSpec> {
    parse_tcp_over(v, &TcpSpec::default())
}

/// The table's keys over `d` (a flow kind's or preset's own defaults).
pub(crate) fn parse_tcp_over(v: &Val, d: &TcpSpec) -> Res<TcpSpec> {
    let t = v.keys(TCP)?;
    let d = d.clone();
    let cc = parse_cc(&t, d.cc)?;
    let rwnd = parse_rwnd(&t, d.rwnd)?;
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
    let delayed_ack = parse_delack(&t, d.delayed_ack)?;
    let min_rto = t.or("min_rto", d.min_rto, |v| v.time())?;
    let initial_rto = t.or("initial_rto", d.initial_rto, |v| v.time())?;
    let max_rto = t.or("max_rto", d.max_rto, |v| v.time())?;
    if initial_rto == Time::ZERO {
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
        let s = v.one_of(SPURIOUS)?;
        if s == Eifel && !timestamps {
            return Err(v.err("Eifel detection (RFC 3522) needs timestamps = true"));
        }
        Ok(s)
    })?;
    let rtt_sampling =
        t.or("rtt_sampling", d.rtt_sampling, |v| v.one_of(RTT_SAMPLING))?;
    let rto_rule = t.or("rto_rule", d.rto_rule, |v| v.one_of(RTO_RULE))?;
    let loss_response = t.or("loss_response", d.loss_response, |v| v.one_of(LOSS_RESPONSE))?;
    let timer_granularity = t.opt("timer_granularity", |v| v.time())?.or(d.timer_granularity);
    if timer_granularity == Some(Time::ZERO) {
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
/// true / false are accepted as "on" / "off". Absent keys keep `d`.
fn parse_delack(t: &Table, d: DelAck) -> Res<DelAck> {
    let (on_before, timeout_before) = match d {
        DelAck::EverySegment => (false, DELACK_TIMEOUT),
        DelAck::EverySecond { timeout } => (true, timeout),
    };
    let on = match t.get("delayed_ack") {
        None => on_before,
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
        (true, Some(Time::ZERO)) => Err(t.get("delack_timeout").unwrap().err("delack_timeout must be positive")),
        (true, timeout) => Ok(DelAck::EverySecond { timeout: timeout.unwrap_or(timeout_before) }),
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::NS_PER_MS;
    use super::*;
    use crate::input::reader::Source;
    use crate::scenario::spec::{CcAlgo, CubicParams, RbsmqParams, RwndAlgo};
    use toml::de::{DeTable, DeValue};
    use toml::Spanned;

    fn over(text: &str, d: &TcpSpec) -> String {
        let src = Source::new("tcp.toml", text);
        let doc = DeTable::parse(text).unwrap();
        let root = Spanned::new(doc.span(), DeValue::Table(doc.into_inner()));
        serde_json::to_string(&parse_tcp_over(&Val::root(&src, &root), d).unwrap()).unwrap()
    }

    /// A table over a flow kind's or preset's own TCP keeps every setting
    /// of it that the table leaves out, parameter tables included.
    #[test]
    fn keys_left_out_keep_the_base_given() {
        let base = TcpSpec {
            delayed_ack: DelAck::EverySecond { timeout: 50 * NS_PER_MS },
            rwnd: RwndAlgo::Rbsmq(RbsmqParams { alpha: 4, ..Default::default() }),
            timer_granularity: Some(10 * NS_PER_MS),
            cc: CcAlgo::Cubic(CubicParams { c: 0.2, ..Default::default() }),
            ..TcpSpec::default()
        };
        let json = |t: &TcpSpec| serde_json::to_string(t).unwrap();
        assert_eq!(over("", &base), json(&base));
        let partial = TcpSpec { cc: CcAlgo::Cubic(CubicParams { c: 0.2, beta: 0.5, ..Default::default() }), ..base.clone() };
        assert_eq!(over("cubic = {beta = 0.5}", &base), json(&partial));
        let other = TcpSpec { rwnd: RwndAlgo::Fixed, ..base.clone() };
        assert_eq!(over("rwnd = \"fixed\"", &base), json(&other));
    }
}
