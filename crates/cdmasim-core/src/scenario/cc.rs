//! `cc = "<name>"` with its optional parameter table `[…tcp.<name>]`, and
//! `rwnd = "fixed" | "rbsmq"` with `[…tcp.rbsmq]`. A parameter table for an
//! algorithm that is not the one chosen is an error: it would be ignored.

use crate::input::reader::{Res, Table, Val};
use super::spec::{BbrParams, CcAlgo, CubicParams, RbsmqParams, RbsmqScope, RwndAlgo, VegasParams, WestwoodParams};

pub(crate) const CC_NAMES: &[&str] = &["reno", "newreno", "vegas", "westwood", "cubic", "bbr"];

/// The keys of a `[tcp]` table this module reads.
pub(crate) const CC_KEYS: &[&str] = &["cc", "vegas", "westwood", "cubic", "bbr", "rwnd", "rbsmq"];

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

fn time_pos(v: &Val) -> Res<u64> {
    match v.time()? {
        0 => Err(v.err("must be positive")),
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
fn params_table<'a>(t: &Table<'a>, chosen: &str, tables: &[&str], keys: &[&str]) -> Res<Option<Table<'a>>> {
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
    t.get(chosen).map(|v| v.table(keys)).transpose()
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
            let d = VegasParams::default();
            let p = match params_table(t, name, tables, &["alpha", "beta", "gamma"])? {
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
            let d = WestwoodParams::default();
            CcAlgo::Westwood(match params_table(t, name, tables, &["filter_gain", "min_sample_interval", "linux"])? {
                None => d,
                Some(p) => WestwoodParams {
                    filter_gain: p.or("filter_gain", d.filter_gain, |v| fraction(v, false))?,
                    min_sample_interval: p.or("min_sample_interval", d.min_sample_interval, |v| v.time())?,
                    linux: p.or("linux", d.linux, |v| v.bool())?,
                },
            })
        }
        "cubic" => {
            let d = CubicParams::default();
            let keys = ["c", "beta", "fast_convergence", "reno_friendly", "hystart", "linux"];
            CcAlgo::Cubic(match params_table(t, name, tables, &keys)? {
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
            let d = BbrParams::default();
            let keys = [
                "high_gain",
                "cwnd_gain",
                "bw_window_rounds",
                "min_rtt_window",
                "probe_rtt_duration",
                "full_bw_growth",
                "full_bw_rounds",
            ];
            CcAlgo::Bbr(match params_table(t, name, tables, &keys)? {
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

pub(crate) fn parse_rwnd(t: &Table) -> Res<RwndAlgo> {
    let name = match t.get("rwnd") {
        Some(v) => match v.str()? {
            s @ ("fixed" | "rbsmq") => s,
            other => return Err(v.err(format!("unknown rwnd policy '{other}' (expected \"fixed\" or \"rbsmq\")"))),
        },
        None => "fixed",
    };
    let keys = [
        "alpha",
        "beta",
        "base_gain",
        "variance_gain",
        "initial_short_base",
        "initial_long_base",
        "initial_window",
        "min_window",
        "max_window",
        "scope",
    ];
    let p = params_table(t, name, &["rbsmq"], &keys)?;
    if name == "fixed" {
        return Ok(RwndAlgo::Fixed);
    }
    let d = RbsmqParams::default();
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
        scope: p.or("scope", d.scope, |v| match v.str()? {
            "host" => Ok(RbsmqScope::Host),
            "connection" => Ok(RbsmqScope::Connection),
            other => Err(v.err(format!("unknown scope '{other}' (expected \"host\" or \"connection\")"))),
        })?,
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
