//! Bindings for cdmasim_core::channel: conversion only. Long computations
//! release the GIL. Input errors arrive as ValueError with the core's
//! `FILE:LINE: FIELD: what` message (python/cdmasim/channel.py turns them
//! into cdmasim.InputError).

use cdmasim_core::channel::day_scales::DayScales;
use cdmasim_core::channel::{self, markov, presets, regime_markov, stats, ChannelError, DrcTrace, Format};
use cdmasim_core::engine::RngStreams;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

fn err(e: ChannelError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn parse_format(f: Option<&str>) -> PyResult<Option<Format>> {
    match f {
        None | Some("auto") => Ok(None),
        Some(s) => Format::parse(s).map(Some).ok_or_else(|| PyValueError::new_err(format!("format: unknown '{s}' (text, binary, mahimahi)"))),
    }
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Read a trace: (drc bytes, sinr f32-LE bytes or None, hand-off slots).
#[pyfunction]
#[pyo3(signature = (path, format=None, mahimahi_window_ms=100))]
fn channel_read(py: Python<'_>, path: &str, format: Option<&str>, mahimahi_window_ms: u32) -> PyResult<PyObject> {
    let fmt = parse_format(format)?;
    let t = py.allow_threads(|| channel::read_trace(path, fmt, mahimahi_window_ms)).map_err(err)?;
    trace_tuple(py, &t)
}

fn trace_tuple(py: Python<'_>, t: &DrcTrace) -> PyResult<PyObject> {
    let drc = PyBytes::new_bound(py, &t.drc);
    let sinr = t.sinr.as_ref().map(|s| PyBytes::new_bound(py, &f32_bytes(s)));
    Ok((drc, sinr, t.handoffs.clone()).into_py(py))
}

fn stats_json((whole, windows): (stats::Stats, Vec<stats::Stats>), window: u64) -> String {
    let corr = stats::window_mean_corr(&windows);
    serde_json::to_string(&serde_json::json!({
        "whole": whole, "windows": windows, "window_slots": window, "window_sinr_rate_corr": corr,
    }))
    .unwrap()
}

/// The statistics' limits (channel::stats::check_limits) for `slots` slots.
fn check_limits(slots: u64, windows: &[u64], cfg: &stats::StatsConfig) -> PyResult<()> {
    stats::check_limits(slots, windows, cfg).map_err(PyValueError::new_err)
}

/// Statistics of a trace file as JSON: {"whole": {...}, "windows": [...]}.
#[pyfunction]
#[pyo3(signature = (path, format=None, mahimahi_window_ms=100, window_slots=2_160_000, max_order=4, max_lag=200))]
fn channel_stats_file(
    py: Python<'_>,
    path: &str,
    format: Option<&str>,
    mahimahi_window_ms: u32,
    window_slots: u64,
    max_order: usize,
    max_lag: usize,
) -> PyResult<String> {
    let fmt = parse_format(format)?;
    let cfg = stats::StatsConfig { max_order, max_lag };
    // The trace's length is known only once it is read: checked there.
    check_limits(0, &[window_slots], &cfg)?;
    py.allow_threads(|| Ok(stats_json(channel::stats_of_file(path, fmt, mahimahi_window_ms, window_slots, &cfg)?, window_slots)))
        .map_err(err)
}

/// Statistics of an in-memory sequence (DRC bytes, optional f32-LE SINR bytes).
#[pyfunction]
#[pyo3(signature = (drc, sinr=None, window_slots=0, max_order=4, max_lag=200))]
fn channel_stats_bytes(py: Python<'_>, drc: &[u8], sinr: Option<&[u8]>, window_slots: u64, max_order: usize, max_lag: usize) -> PyResult<String> {
    let cfg = stats::StatsConfig { max_order, max_lag };
    check_limits(drc.len() as u64, &[window_slots], &cfg)?;
    if let Some(bad) = drc.iter().position(|&d| d as usize >= cdmasim_core::channel::drc::NUM_DRC) {
        return Err(PyValueError::new_err(format!("drc[{bad}]: {} out of range 0-14", drc[bad])));
    }
    let sinr = match sinr {
        Some(b) if b.len() != 4 * drc.len() => return Err(PyValueError::new_err("sinr: length differs from drc")),
        Some(b) => Some(b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect::<Vec<f32>>()),
        None => None,
    };
    Ok(py.allow_threads(|| {
        let mut acc = stats::TraceStats::new(window_slots, &cfg);
        acc.push(drc, sinr.as_deref());
        stats_json(acc.finish(), window_slots)
    }))
}

/// Statistics of `slots` slots drawn from a preset, `constant:N` or a model
/// file, computed as they are drawn, one JSON per window length of
/// `windows` (each of `channel_stats_bytes`'s shape over `channel_sample`'s
/// trace).
#[pyfunction]
#[pyo3(signature = (source, slots, seed, windows, max_order=4, max_lag=200))]
fn channel_stats_source(
    py: Python<'_>,
    source: &str,
    slots: u64,
    seed: u64,
    windows: Vec<u64>,
    max_order: usize,
    max_lag: usize,
) -> PyResult<Vec<String>> {
    let cfg = stats::StatsConfig { max_order, max_lag };
    check_limits(slots, &windows, &cfg)?;
    // Ctrl-C stops the drawing; nothing is returned then.
    let (whole, per_window) = crate::interrupt::allow_threads_interruptible(py, || {
        let mut s = make_source(source, seed)?;
        Ok(channel::stats_of_source(s.as_mut(), slots, &windows, &cfg))
    })?
    .map_err(err)?;
    Ok(windows.iter().zip(per_window).map(|(&w, ws)| stats_json((whole.clone(), ws), w)).collect())
}

/// Statistics of windows of a drawn source placed in its time: `at` holds
/// (first slot, slots) pairs in order (`channel::stats_at`); one JSON per
/// window, each of `channel_stats_bytes`'s whole-trace shape.
#[pyfunction]
#[pyo3(signature = (source, seed, at, max_order=4, max_lag=200))]
fn channel_stats_at(
    py: Python<'_>,
    source: &str,
    seed: u64,
    at: Vec<(u64, u64)>,
    max_order: usize,
    max_lag: usize,
) -> PyResult<Vec<String>> {
    let cfg = stats::StatsConfig { max_order, max_lag };
    channel::check_windows_at(&at).map_err(PyValueError::new_err)?;
    check_limits(at.iter().map(|w| w.1).max().unwrap_or(0), &[], &cfg)?;
    let per = crate::interrupt::allow_threads_interruptible(py, || {
        let mut s = make_source(source, seed)?;
        Ok(channel::stats_at(s.as_mut(), &at, &cfg))
    })?
    .map_err(err)?;
    Ok(per.into_iter().map(|w| stats_json((w, Vec::new()), 0)).collect())
}

/// `channel_stats_at` for one stationary preset under several day-scale
/// offsets at once (`channel::day_scales`): one list per day scale.
#[pyfunction]
#[pyo3(signature = (preset, seed, at, day_sd_db, max_order=4, max_lag=200))]
fn channel_stats_at_day_scales(
    py: Python<'_>,
    preset: &str,
    seed: u64,
    at: Vec<(u64, u64)>,
    day_sd_db: Vec<f64>,
    max_order: usize,
    max_lag: usize,
) -> PyResult<Vec<Vec<String>>> {
    let cfg = stats::StatsConfig { max_order, max_lag };
    channel::check_windows_at(&at).map_err(PyValueError::new_err)?;
    check_limits(at.iter().map(|w| w.1).max().unwrap_or(0), &[], &cfg)?;
    let per = crate::interrupt::allow_threads_interruptible(py, || {
        let mut d = DayScales::new(preset, seed, &day_sd_db).map_err(|e| ChannelError::new(preset, e))?;
        Ok(d.stats_at(&at, &cfg))
    })?
    .map_err(err)?;
    Ok(per.into_iter().map(|scale| scale.into_iter().map(|w| stats_json((w, Vec::new()), 0)).collect()).collect())
}

/// Fit a Markov chain of `order` to a trace (with `regimes` > 1, a chain per
/// regime of `window_slots` windows); returns the model JSON.
#[pyfunction]
#[pyo3(signature = (path, order, format=None, mahimahi_window_ms=100, regimes=1, window_slots=6000))]
fn channel_fit(
    py: Python<'_>,
    path: &str,
    order: usize,
    format: Option<&str>,
    mahimahi_window_ms: u32,
    regimes: usize,
    window_slots: u64,
) -> PyResult<String> {
    if order > markov::MAX_ORDER {
        return Err(PyValueError::new_err(format!("order: {order} above {}", markov::MAX_ORDER)));
    }
    if regimes == 0 || window_slots == 0 {
        return Err(PyValueError::new_err("regimes and the regime window must be at least 1"));
    }
    let fmt = parse_format(format)?;
    py.allow_threads(|| {
        let t = channel::read_trace(path, fmt, mahimahi_window_ms)?;
        if t.len() <= order {
            return Err(ChannelError::new(path, format!("{} slots: too short for order {order}", t.len())));
        }
        if regimes == 1 {
            return Ok(markov::MarkovModel::fit(&t.drc, order).to_json());
        }
        let windows = t.len() as u64 / window_slots;
        if windows < regimes as u64 {
            return Err(ChannelError::new(
                path,
                format!("{} slots: {windows} whole windows of {window_slots} slots, fewer than the {regimes} regimes", t.len()),
            ));
        }
        Ok(regime_markov::RegimeMarkovModel::fit(&t.drc, order, regimes, window_slots).to_json())
    })
    .map_err(err)
}

fn make_source(src: &str, seed: u64) -> Result<Box<dyn channel::ChannelSource>, ChannelError> {
    if let Some(s) = presets::source_checked(src, seed).map_err(|e| ChannelError::new(src, e))? {
        return Ok(s);
    }
    if let Some(d) = src.strip_prefix("constant:") {
        let drc: u8 = d.parse().ok().filter(|&v: &u8| (v as usize) < 15).ok_or_else(|| ChannelError::new(src, "constant:N needs N in 0-14"))?;
        return Ok(Box::new(channel::constant::Constant { drc }));
    }
    if !std::path::Path::new(src).exists() && !std::path::Path::new(src).is_symlink() {
        return Err(ChannelError::new(
            src,
            format!("neither a preset ({}, constant:N) nor an existing model file", presets::PRESETS.join(", ")),
        ));
    }
    let streams = RngStreams::new(seed);
    regime_markov::read_source(src, |name| streams.stream(name))
}

/// Generate `slots` slots from a preset, `constant:N` or a model file into
/// `out` (binary when it ends in .drc). Returns (slots, has_sinr, hand-offs).
#[pyfunction]
#[pyo3(signature = (source, slots, seed, out, drc_only=false))]
fn channel_generate(py: Python<'_>, source: &str, slots: u64, seed: u64, out: &str, drc_only: bool) -> PyResult<(u64, bool, usize)> {
    channel::check_slots_in_memory(slots, "slots").map_err(PyValueError::new_err)?;
    // Ctrl-C stops the drawing; nothing is written then.
    let t = crate::interrupt::allow_threads_interruptible(py, || {
        let mut s = make_source(source, seed)?;
        Ok(channel::collect(s.as_mut(), slots))
    })?
    .map_err(err)?;
    py.allow_threads(|| {
        let mut t = t;
        if drc_only {
            t.sinr = None;
        }
        channel::write_trace(out, &t, false)?;
        Ok((t.len() as u64, t.sinr.is_some(), t.handoffs.len()))
    })
    .map_err(err)
}

/// Draw from a source in memory: (drc bytes, sinr bytes or None, hand-offs).
#[pyfunction]
fn channel_sample(py: Python<'_>, source: &str, slots: u64, seed: u64) -> PyResult<PyObject> {
    channel::check_slots_in_memory(slots, "slots").map_err(PyValueError::new_err)?;
    let t = py
        .allow_threads(|| {
            let mut s = make_source(source, seed)?;
            Ok(channel::collect(s.as_mut(), slots))
        })
        .map_err(err)?;
    trace_tuple(py, &t)
}

#[pyfunction]
fn channel_presets() -> Vec<&'static str> {
    presets::PRESETS.to_vec()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("MAX_SLOTS_IN_MEMORY", channel::MAX_SLOTS_IN_MEMORY)?;
    m.add("MAX_LAG", stats::MAX_LAG)?;
    m.add("MAX_MARKOV_ORDER", markov::MAX_ORDER)?;
    m.add_function(wrap_pyfunction!(channel_read, m)?)?;
    m.add_function(wrap_pyfunction!(channel_stats_file, m)?)?;
    m.add_function(wrap_pyfunction!(channel_stats_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(channel_stats_source, m)?)?;
    m.add_function(wrap_pyfunction!(channel_stats_at, m)?)?;
    m.add_function(wrap_pyfunction!(channel_stats_at_day_scales, m)?)?;
    m.add_function(wrap_pyfunction!(channel_fit, m)?)?;
    m.add_function(wrap_pyfunction!(channel_generate, m)?)?;
    m.add_function(wrap_pyfunction!(channel_sample, m)?)?;
    m.add_function(wrap_pyfunction!(channel_presets, m)?)?;
    Ok(())
}
