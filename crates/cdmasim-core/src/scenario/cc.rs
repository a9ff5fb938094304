//! `cc = "<name>"` with its optional parameter table `[…tcp.<name>]`, and
//! `rwnd = "fixed" | "rbsmq"` with `[…tcp.rbsmq]`. A parameter table for an
//! algorithm that is not the one chosen is an error: it would be ignored.

use crate::engine::Time;
use crate::input::keys::{self, Key};
use crate::input::reader::{Res, Table, Val};
use super::spec::{BbrParams, CcAlgo, CubicParams, RbsmqParams, RbsmqScope, RwndAlgo, VegasParams, WestwoodParams};

pub(crate) const CC_NAMES: &[&str] = &["reno", "newreno", "vegas", "westwood", "cubic", "bbr"];

/// `rwnd`'s values, the default first.
pub(crate) const RWND: &[&str] = &["fixed", "rbsmq"];

fn vegas() -> VegasParams {
    VegasParams::default()
}
fn westwood() -> WestwoodParams {
    WestwoodParams::default()
}
fn cubic() -> CubicParams {
    CubicParams::default()
}
fn bbr() -> BbrParams {
    BbrParams::default()
}
fn rbsmq() -> RbsmqParams {
    RbsmqParams::default()
}

/// `scope`'s values.
const SCOPE: &[(&str, RbsmqScope)] = &[("host", RbsmqScope::Host), ("connection", RbsmqScope::Connection)];

pub(crate) const VEGAS: &[Key] = &[
    Key::value("alpha", || vegas().alpha.to_string(), "Below alpha segments queued, cwnd + 1 per RTT (docs/tcp.md); > 0."),
    Key::value("beta", || vegas().beta.to_string(), "Above beta segments queued, cwnd − 1 per RTT; ≥ alpha."),
    Key::value("gamma", || vegas().gamma.to_string(), "Above gamma segments queued, leave slow start; > 0."),
];

pub(crate) const WESTWOOD: &[Key] = &[
    Key::value("filter_gain", || westwood().filter_gain.to_string(), "The weight of the old bandwidth estimate in the per-RTT EWMA, in (0, 1)."),
    Key::value("min_sample_interval", || keys::time(westwood().min_sample_interval), "The shortest span of one bandwidth sample."),
    Key::value("linux", || westwood().linux.to_string(), "Westwood+ as Linux 2.6.21's tcp_westwood.c: two filter stages, RTTmin from the smoothed RTT, Reno's ssthresh at a timeout (docs/tcp.md)."),
];

pub(crate) const CUBIC: &[Key] = &[
    Key::value("c", || cubic().c.to_string(), "C of W_cubic(t) = C(t − K)³ + W_max, in segments/s³ (docs/tcp.md); > 0."),
    Key::value("beta", || cubic().beta.to_string(), "The multiplicative decrease, ssthresh = beta × FlightSize, in (0, 1)."),
    Key::value("fast_convergence", || cubic().fast_convergence.to_string(), "Lower W_max to W·(1 + beta)/2 when a loss comes below the previous W_max."),
    Key::value("reno_friendly", || cubic().reno_friendly.to_string(), "Follow the Reno estimate W_est when it is ahead of the cubic."),
    Key::value("hystart", || cubic().hystart.to_string(), "HyStart++ (RFC 9406) in the initial slow start."),
    Key::value("linux", || cubic().linux.to_string(), "Linux 2.6.21's tcp_cubic.c instead of RFC 9438 (look-ahead by the minimum RTT, ssthresh from cwnd, the counted Reno estimate; docs/tcp.md)."),
];

pub(crate) const BBR: &[Key] = &[
    Key::value("high_gain", || bbr().high_gain.to_string(), "The Startup pacing and cwnd gain (2/ln 2); Drain paces at its inverse (docs/tcp.md); > 0."),
    Key::value("cwnd_gain", || bbr().cwnd_gain.to_string(), "The ProbeBW cwnd gain (× BDP, plus 3 send quanta of one segment); > 0."),
    Key::value("bw_window_rounds", || bbr().bw_window_rounds.to_string(), "The BtlBw max-filter window, in packet-timed round trips (≥ 1)."),
    Key::value("min_rtt_window", || keys::time(bbr().min_rtt_window), "The RTprop min-filter window (> 0); ProbeRTT when it passes without a refresh."),
    Key::value("probe_rtt_duration", || keys::time(bbr().probe_rtt_duration), "The time at 4 segments in ProbeRTT (and at least one round); > 0."),
    Key::value("full_bw_growth", || bbr().full_bw_growth.to_string(), "Startup ends when BtlBw grew by less than this factor (> 1) ..."),
    Key::value("full_bw_rounds", || bbr().full_bw_rounds.to_string(), "... for this many round trips in a row (≥ 1)."),
];

/// RBSMQ's parameters; windows in segments of the flow's MSS (why these
/// defaults: docs/tcp.md, "RBSMQ").
pub(crate) const RBSMQ: &[Key] = &[
    Key::value("alpha", || rbsmq().alpha.to_string(), "A run of fewer than alpha back-to-back arrivals grows the window by one segment per segment (≥ 1)."),
    Key::absent("beta", "longtime_base / shorttime_base", "A run longer than beta shrinks it by one segment per segment; ≥ alpha."),
    Key::value("base_gain", || rbsmq().base_gain.to_string(), "The weight of the old short and long base, in [0, 1)."),
    Key::value("variance_gain", || rbsmq().variance_gain.to_string(), "The weight of the old variance, in [0, 1)."),
    Key::value("initial_short_base", || keys::time(rbsmq().initial_short_base), "The short base after a reset; > 0, and above the back-to-back spacing for it to be learnt."),
    Key::value("initial_long_base", || keys::time(rbsmq().initial_long_base), "The long base after a reset; > 0, and above the RTT-scale gaps for it to be learnt."),
    Key::value("initial_window", || rbsmq().initial_window.to_string(), "The window at the connection's start; min_window ≤ initial_window ≤ max_window."),
    Key::value("min_window", || rbsmq().min_window.to_string(), "The window's floor (≥ 1); it should cover the path's bandwidth-delay product."),
    Key::value("max_window", || rbsmq().max_window.to_string(), "The window's ceiling."),
    Key::value("scope", || keys::named(SCOPE, rbsmq().scope), "`\"host\"`: one inter-arrival estimator per receiving node (shared by its RBSMQ flows with equal parameters); `\"connection\"`: one per connection."),
];

fn positive(v: &Val, x: f64) -> Res<f64> {
    if x > 0.0 {
        Ok(x)
    } else {
        Err(v.err(format!("must be positive (got {x})")))
    }
}

fn number_pos(v: &Val) -> Res<f64> {
    positive(v, v.number()?)
}

fn time_pos(v: &Val) -> Res<Time> {
    match v.time()? {
        Time::ZERO => Err(v.err("must be positive")),
        t => Ok(t),
    }
}

fn count_pos(v: &Val) -> Res<u32> {
    match v.count_u32()? {
        0 => Err(v.err("must be at least 1")),
        n => Ok(n),
    }
}

/// The chosen algorithm's parameter table, or None; errors on a table for another one.
fn params_table<'a>(t: &Table<'a>, chosen: &str, tables: &[&str], keys: &[Key]) -> Res<Option<Table<'a>>> {
    for name in tables {
        if *name != chosen {
            if let Some(v) = t.get(name) {
                return Err(v.err(format!("parameters for '{name}' but the algorithm chosen is '{chosen}'")));
            }
        }
    }
    // An algorithm without parameters has no table of them to read.
    if !tables.contains(&chosen) {
        return Ok(None);
    }
    t.get(chosen).map(|v| v.keys(keys)).transpose()
}

pub(crate) fn parse_cc(t: &Table, default: CcAlgo) -> Res<CcAlgo> {
    let name = match t.get("cc") {
        Some(v) => {
            let s = v.str()?;
            if !CC_NAMES.contains(&s) {
                return Err(v.err(format!("unknown congestion control '{s}' (expected one of {})", CC_NAMES.join(", "))));
            }
            s
        }
        None => default.name(),
    };
    let tables = &CC_NAMES[2..];
    Ok(match name {
        "reno" | "newreno" => {
            params_table(t, name, tables, &[])?;
            if name == "reno" { CcAlgo::Reno } else { CcAlgo::NewReno }
        }
        "vegas" => {
            let d = if let CcAlgo::Vegas(p) = default { p } else { vegas() };
            let p = match params_table(t, name, tables, VEGAS)? {
                None => d,
                Some(p) => VegasParams {
                    alpha: p.or("alpha", d.alpha, number_pos)?,
                    beta: p.or("beta", d.beta, number_pos)?,
                    gamma: p.or("gamma", d.gamma, number_pos)?,
                },
            };
            if p.alpha > p.beta {
                let v = t.get("vegas").unwrap();
                return Err(v.err(format!("alpha ({}) must not exceed beta ({})", p.alpha, p.beta)));
            }
            CcAlgo::Vegas(p)
        }
        "westwood" => {
            let d = if let CcAlgo::Westwood(p) = default { p } else { westwood() };
            CcAlgo::Westwood(match params_table(t, name, tables, WESTWOOD)? {
                None => d,
                Some(p) => WestwoodParams {
                    filter_gain: p.or("filter_gain", d.filter_gain, |v| fraction(v, false))?,
                    min_sample_interval: p.or("min_sample_interval", d.min_sample_interval, |v| v.time())?,
                    linux: p.or("linux", d.linux, |v| v.bool())?,
                },
            })
        }
        "cubic" => {
            let d = if let CcAlgo::Cubic(p) = default { p } else { cubic() };
            CcAlgo::Cubic(match params_table(t, name, tables, CUBIC)? {
                None => d,
                Some(p) => CubicParams {
                    c: p.or("c", d.c, number_pos)?,
                    beta: p.or("beta", d.beta, |v| fraction(v, false))?,
                    fast_convergence: p.or("fast_convergence", d.fast_convergence, |v| v.bool())?,
                    reno_friendly: p.or("reno_friendly", d.reno_friendly, |v| v.bool())?,
                    hystart: p.or("hystart", d.hystart, |v| v.bool())?,
                    linux: p.or("linux", d.linux, |v| v.bool())?,
                },
            })
        }
        "bbr" => {
            let d = if let CcAlgo::Bbr(p) = default { p } else { bbr() };
            CcAlgo::Bbr(match params_table(t, name, tables, BBR)? {
                None => d,
                Some(p) => BbrParams {
                    high_gain: p.or("high_gain", d.high_gain, number_pos)?,
                    cwnd_gain: p.or("cwnd_gain", d.cwnd_gain, number_pos)?,
                    bw_window_rounds: p.or("bw_window_rounds", d.bw_window_rounds, count_pos)?,
                    min_rtt_window: p.or("min_rtt_window", d.min_rtt_window, time_pos)?,
                    probe_rtt_duration: p.or("probe_rtt_duration", d.probe_rtt_duration, time_pos)?,
                    full_bw_growth: p.or("full_bw_growth", d.full_bw_growth, |v| {
                        let x = v.number()?;
                        if x > 1.0 { Ok(x) } else { Err(v.err(format!("must exceed 1 (got {x})"))) }
                    })?,
                    full_bw_rounds: p.or("full_bw_rounds", d.full_bw_rounds, count_pos)?,
                },
            })
        }
        _ => unreachable!("checked against CC_NAMES"),
    })
}

/// A number in (0, 1), or [0, 1) when `zero_ok`.
fn fraction(v: &Val, zero_ok: bool) -> Res<f64> {
    let x = v.number()?;
    if (x > 0.0 || (zero_ok && x == 0.0)) && x < 1.0 {
        Ok(x)
    } else {
        Err(v.err(format!("must be a fraction between 0 and 1 (got {x})")))
    }
}

/// `rwnd` and its table over `default` (the flow kind's or preset's).
pub(crate) fn parse_rwnd(t: &Table, default: RwndAlgo) -> Res<RwndAlgo> {
    let name = match t.get("rwnd") {
        Some(v) => match v.str()? {
            s if RWND.contains(&s) => s,
            other => return Err(v.err(format!("unknown rwnd policy '{other}' (expected \"fixed\" or \"rbsmq\")"))),
        },
        None => match default {
            RwndAlgo::Fixed => RWND[0],
            RwndAlgo::Rbsmq(_) => RWND[1],
        },
    };
    let p = params_table(t, name, &["rbsmq"], RBSMQ)?;
    if name == "fixed" {
        return Ok(RwndAlgo::Fixed);
    }
    let d = if let RwndAlgo::Rbsmq(p) = default { p } else { rbsmq() };
    let Some(p) = p else { return Ok(RwndAlgo::Rbsmq(d)) };
    let r = RbsmqParams {
        alpha: p.or("alpha", d.alpha, count_pos)?,
        beta: p.opt("beta", count_pos)?,
        base_gain: p.or("base_gain", d.base_gain, |v| fraction(v, true))?,
        variance_gain: p.or("variance_gain", d.variance_gain, |v| fraction(v, true))?,
        initial_short_base: p.or("initial_short_base", d.initial_short_base, time_pos)?,
        initial_long_base: p.or("initial_long_base", d.initial_long_base, time_pos)?,
        initial_window: p.or("initial_window", d.initial_window, count_pos)?,
        min_window: p.or("min_window", d.min_window, count_pos)?,
        max_window: p.or("max_window", d.max_window, count_pos)?,
        scope: p.or("scope", d.scope, |v| v.one_of(SCOPE))?,
    };
    if r.min_window > r.max_window || !(r.min_window..=r.max_window).contains(&r.initial_window) {
        return Err(t.get("rbsmq").unwrap().err(format!(
            "windows must satisfy min_window <= initial_window <= max_window (got {} <= {} <= {})",
            r.min_window, r.initial_window, r.max_window
        )));
    }
    if let Some(b) = r.beta {
        if b < r.alpha {
            return Err(p.get("beta").unwrap().err(format!("beta ({b}) must not be below alpha ({})", r.alpha)));
        }
    }
    Ok(RwndAlgo::Rbsmq(r))
}
