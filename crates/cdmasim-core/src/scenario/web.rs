//! The keys of a `kind = "http"` flow → [`HttpSpec`]: C, persistence, a page
//! limit and the four laws of the web workload, each a plain quantity (a
//! fixed value) or a table `{ dist = "exponential", mean = ... }` /
//! `{ dist = "lognormal", median = ..., sigma = ..., max = ... }`.

use crate::engine::Time;
use crate::input::reader::{Res, Table, Val};
use crate::app::http::HttpSpec;
use crate::app::workload::{Dist, MAX_OBJECTS_PER_PAGE};
use crate::engine::time::secs;
use crate::engine::NS_PER_SEC;
use crate::input::keys::{self, Key};

fn http() -> HttpSpec {
    HttpSpec::default()
}

/// A law as a file writes it, its quantities by `unit` (a law the table
/// cannot write, a mixture, is never a default shown this way).
fn law(d: &Dist, unit: fn(f64) -> String) -> String {
    match *d {
        Dist::Fixed(x) => unit(x),
        Dist::Exponential { mean } => format!("{{dist = \"exponential\", mean = {}}}", unit(mean)),
        Dist::Lognormal { median, sigma, max } => {
            format!("{{dist = \"lognormal\", median = {}, sigma = {sigma}, max = {}}}", unit(median), unit(max))
        }
        Dist::Mixture(_) => unreachable!("a mixture has no table form"),
    }
}
fn shown_bytes(x: f64) -> String {
    keys::size(x as u64)
}
fn shown_seconds(x: f64) -> String {
    keys::time(Time((x * NS_PER_SEC.0 as f64) as u64))
}
fn shown_count(x: f64) -> String {
    x.to_string()
}

/// The keys of a browsing user (`kind = "http"` flows, `[is2000.web]`).
pub(crate) const HTTP: &[Key] = &[
    Key::value("parallel", || http().parallel.to_string(), "C: the connections open at once (Dziong et al. Table 1: 1; §5.1.1 also 4); 1 to 1000."),
    Key::value("persistent", || http().persistent.to_string(), "Keep a page's connections for its next objects."),
    Key::absent("pages", "unbounded", "Stop after this many pages."),
    Key::absent("request_size", "two peaks (below)", "The HTTP request's bytes: a size law."),
    Key::value("objects_per_page", || law(&http().workload.objects_per_page, shown_count), "Embedded objects per page (⌈x⌉, at least 1): a count law."),
    Key::value("object_size", || law(&http().workload.object_size, shown_bytes), "The bytes of an object and of the main response: a size law."),
    Key::value("think_time", || law(&http().workload.think_time, shown_seconds), "The reading time between pages: a time law."),
];

/// A law's table, by its `dist`.
pub(crate) const EXPONENTIAL: &[Key] = &[
    Key::required("dist", "`\"exponential\"`."),
    Key::required("mean", "The mean, in the law's unit (a count law's may be fractional); > 0."),
];

pub(crate) const LOGNORMAL: &[Key] = &[
    Key::required("dist", "`\"lognormal\"`: ln x is normal."),
    Key::required("median", "The median, in the law's unit (a count law's may be fractional); > 0."),
    Key::required("sigma", "σ of ln x, from 0 to 10."),
    Key::absent("max", "none", "Draws are clamped to it; not below the median."),
];

/// Largest C: browsers open a handful; a thousand is already absurd.
const MAX_PARALLEL: u32 = 1_000;

fn bytes(v: &Val) -> Res<f64> {
    Ok(v.size()? as f64)
}

fn seconds(v: &Val) -> Res<f64> {
    Ok(secs(v.time()?))
}

fn objects(v: &Val) -> Res<f64> {
    Ok(v.count_u32()? as f64)
}

/// A count law's parameters (a mean, a median, a max) need not be whole:
/// the count drawn is ⌈x⌉ (the default law's median is 1.5).
fn objects_param(v: &Val) -> Res<f64> {
    v.number()
}

/// A law in `unit` (a parser of the quantity); `positive`: a fixed value
/// must be > 0. `param`: the parser of a law's parameters (`unit` but for
/// counts, whose parameters may be fractional).
fn parse_dist(v: &Val, unit: fn(&Val) -> Res<f64>, param: fn(&Val) -> Res<f64>, positive: bool) -> Res<Dist> {
    if !v.is_table() {
        let x = unit(v)?;
        if positive && x <= 0.0 {
            return Err(v.err("must be positive"));
        }
        return Ok(Dist::Fixed(x));
    }
    let kind_v = v.keys_of(&[EXPONENTIAL, LOGNORMAL])?.req("dist")?;
    let d = match kind_v.str()? {
        "exponential" => {
            let t = v.keys(EXPONENTIAL)?;
            let mean_v = t.req("mean")?;
            let mean = param(&mean_v)?;
            if mean <= 0.0 {
                return Err(mean_v.err("mean must be positive"));
            }
            Dist::Exponential { mean }
        }
        "lognormal" => {
            let t = v.keys(LOGNORMAL)?;
            let median_v = t.req("median")?;
            let median = param(&median_v)?;
            if median <= 0.0 {
                return Err(median_v.err("median must be positive"));
            }
            let sigma_v = t.req("sigma")?;
            let sigma = sigma_v.number()?;
            if !(0.0..=10.0).contains(&sigma) {
                return Err(sigma_v.err("sigma must be between 0 and 10"));
            }
            let max = match t.get("max") {
                Some(m) => {
                    let x = param(&m)?;
                    if x < median {
                        return Err(m.err("max must not be below the median"));
                    }
                    x
                }
                None => f64::INFINITY,
            };
            Dist::Lognormal { median, sigma, max }
        }
        other => return Err(kind_v.err(format!("unknown dist '{other}' (expected \"exponential\" or \"lognormal\")"))),
    };
    Ok(d)
}

pub(crate) fn parse_http(t: &Table) -> Res<HttpSpec> {
    let mut s = http();
    if let Some(v) = t.get("parallel") {
        s.parallel = v.count_u32()?;
        if !(1..=MAX_PARALLEL).contains(&s.parallel) {
            return Err(v.err(format!("parallel must be between 1 and {MAX_PARALLEL} connections")));
        }
    }
    s.persistent = t.or("persistent", s.persistent, |v| v.bool())?;
    if let Some(v) = t.get("pages") {
        let n = v.count()?;
        if n == 0 {
            return Err(v.err("pages must be at least 1 (leave it out to browse until the end)"));
        }
        s.pages = Some(n);
    }
    let w = &mut s.workload;
    if let Some(v) = t.get("request_size") {
        w.request_size = parse_dist(&v, bytes, bytes, true)?;
    }
    if let Some(v) = t.get("objects_per_page") {
        w.objects_per_page = parse_dist(&v, objects, objects_param, true)?;
        // A page holds a record per object while it loads: bound the count
        // here rather than meet it as an allocation in the run.
        let most = MAX_OBJECTS_PER_PAGE as f64;
        let reach = match &w.objects_per_page {
            Dist::Fixed(x) => Some(*x),
            Dist::Exponential { mean } => Some(*mean),
            Dist::Lognormal { max, .. } if max.is_finite() => Some(*max),
            _ => None,
        };
        if reach.is_some_and(|x| x > most) {
            return Err(v.err(format!("at most {MAX_OBJECTS_PER_PAGE} objects per page (for a law: its mean or max)")));
        }
    }
    if let Some(v) = t.get("object_size") {
        w.object_size = parse_dist(&v, bytes, bytes, true)?;
    }
    if let Some(v) = t.get("think_time") {
        w.think_time = parse_dist(&v, seconds, seconds, false)?;
    }
    Ok(s)
}
