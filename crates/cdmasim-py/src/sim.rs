//! Scenario parsing and running for Python: type conversion, the GIL and
//! panics are handled here; everything else is cdmasim-core.
#![allow(unexpected_cfgs)] // pyo3 0.22 create_exception! checks a "gil-refs" feature this crate does not declare

use cdmasim_core::engine::{interrupt, Time};
use cdmasim_core::scenario::{self, ScenarioSpec};
use cdmasim_core::sim::{self, RunError, RunOptions, RunResult};
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

create_exception!(
    cdmasim._core,
    ScenarioError,
    PyValueError,
    "A scenario that cannot be parsed or validated; str() is `FILE:LINE: FIELD: message` and the attributes file, line, field and message hold the parts."
);

/// How often a run looks at Python's signals (Ctrl-C), in wall time: this
/// only decides how soon an interrupted run stops, never what it computes.
const SIGNALS_EVERY: Duration = Duration::from_millis(200);

fn scenario_error(py: Python<'_>, e: scenario::ScenarioError) -> PyErr {
    let err = ScenarioError::new_err(e.to_string());
    let v = err.value_bound(py);
    // Setting attributes on a fresh exception instance cannot fail in practice;
    // if it did, the message alone still says everything.
    let _ = v.setattr("file", &e.file);
    let _ = v.setattr("line", e.line);
    let _ = v.setattr("field", &e.field);
    let _ = v.setattr("message", &e.message);
    err
}

/// Run `f`, turning a Rust panic into a Python RuntimeError: a panic must
/// never unwind into the interpreter.
fn guarded<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(PyRuntimeError::new_err(format!("internal error in cdmasim core (please report): {msg}")))
        }
    }
}

/// The `form` argument of the functions that take a scenario: "toml" (a
/// file's text), "json" (a Python dict as a JSON object, which the core
/// turns into TOML itself, so Python hands it over once) or "spec" (what
/// `parse_scenario` returned, run as it is).
pub(crate) fn form(form: &str) -> PyResult<scenario::Form> {
    match form {
        "toml" => Ok(scenario::Form::Toml),
        "json" => Ok(scenario::Form::Json),
        "spec" => Ok(scenario::Form::Spec),
        _ => Err(PyValueError::new_err(format!("form: expected toml, json or spec, got {form:?}"))),
    }
}

/// Parse a scenario in any form, with `seed` (when given) in place of its own.
fn parse(py: Python<'_>, text: &str, path: &str, seed: Option<u64>, form_: &str) -> PyResult<ScenarioSpec> {
    let form_ = form(form_)?;
    let parsed = guarded(|| Ok(scenario::parse_form(text, path, form_, seed)))?;
    match parsed {
        Ok(spec) => Ok(spec),
        Err(e) => Err(scenario_error(py, e)),
    }
}

/// Parse and validate a scenario (`form` as for `run_scenario`), with
/// `seed` in place of its own; returns the ScenarioSpec as JSON, which
/// `run_scenario` takes back with form "spec".
#[pyfunction]
#[pyo3(signature = (text, path = "<string>", form = "toml", seed = None))]
fn parse_scenario(py: Python<'_>, text: &str, path: &str, form: &str, seed: Option<u64>) -> PyResult<String> {
    let spec = parse(py, text, path, seed, form)?;
    serde_json::to_string(&spec).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// Every scenario table with its keys, as JSON: [{name, heading, keys:
/// [{key, default, is_value, help}]}] (`cdmasim_core::scenario::documented_keys`).
#[pyfunction]
fn scenario_keys() -> String {
    serde_json::to_string(&cdmasim_core::scenario::documented_keys()).expect("the keys are plain data")
}

/// The result tables, from the core's row types: a JSON list of {name,
/// doc, columns: [[column, kind], ...], column_docs, source, long?: {name,
/// doc, key, fields, point}} (`cdmasim_core::result::Table`), kind one of
/// int, float, str, int?, float?, str?, counts, cdf, intervals.
#[pyfunction]
fn result_schema() -> String {
    serde_json::to_string(&cdmasim_core::sim::schema()).expect("the schema is plain data")
}

/// The top-level keys and tables a scenario file may hold.
#[pyfunction]
fn scenario_tables() -> Vec<&'static str> {
    cdmasim_core::scenario::top_level_tables()
}

/// Parse, validate and run a scenario.
///
/// Returns `(summary_json, series)`: the RunResult without its series as
/// pretty JSON, and a list of `(metric, subject, t_bytes, value_bytes)` whose
/// byte strings are little-endian float64 arrays (for numpy.frombuffer).
/// `progress(now_s, horizon_s)` is offered at every multiple of
/// `progress_every_ns` of simulated time (default: a thousandth of the run);
/// returning False stops the run there and the result covers it up to then
/// (`stopped_at_s` in the summary), at the same simulated time on any
/// machine. An exception in it, or Ctrl-C (looked at every 0.2 s of wall
/// time), is raised. `drop_log`: stream drops to this CSV file instead of
/// the summary. `series_spool`: stream the series to this file in chunks;
/// the series list then holds `(metric, subject, chunks)` per series, chunks
/// being (byte offset, points) pairs as little-endian u64 bytes (each chunk
/// in the file: the points' times, then their values, f64 LE).
/// `web_log_dir`: stream web objects and pages to objects.csv and pages.csv
/// there instead of the summary. `form`: how `text` is written, "toml",
/// "json" (a Python dict) or "spec" (what `parse_scenario` returned).
#[pyfunction]
#[pyo3(signature = (text, path = "<string>", seed_override = None, pcap_dir = None, progress = None, drop_log = None, progress_every_ns = None, series_spool = None, web_log_dir = None, form = "toml"))]
#[allow(clippy::too_many_arguments)]
fn run_scenario(
    py: Python<'_>,
    text: &str,
    path: &str,
    seed_override: Option<u64>,
    pcap_dir: Option<PathBuf>,
    progress: Option<PyObject>,
    drop_log: Option<PathBuf>,
    progress_every_ns: Option<u64>,
    series_spool: Option<PathBuf>,
    web_log_dir: Option<PathBuf>,
    form: &str,
) -> PyResult<(String, Py<PyList>)> {
    let spec = parse(py, text, path, seed_override, form)?;
    if progress_every_ns == Some(0) {
        return Err(PyValueError::new_err("progress_every must be positive"));
    }
    // An exception raised while the GIL was re-taken (Ctrl-C, or the callback
    // itself failing), re-raised once the run has stopped.
    let pending: Arc<Mutex<Option<PyErr>>> = Arc::new(Mutex::new(None));
    let pending_cb = Arc::clone(&pending);
    let pending_sig = Arc::clone(&pending);
    let outcome = py.allow_threads(move || {
        guarded(|| {
            let mut last = Instant::now();
            let _guard = interrupt::install(move || {
                if last.elapsed() < SIGNALS_EVERY {
                    return false;
                }
                last = Instant::now();
                match Python::with_gil(|py| py.check_signals()) {
                    Ok(()) => false,
                    Err(e) => {
                        *pending_sig.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                        true
                    }
                }
            });
            let hook = progress.map(|cb| {
                Box::new(move |now: Time, horizon: Time| -> bool {
                    Python::with_gil(|py| {
                        // Seconds as the nearest double (60 s is 60.0, not 60.00000000000001).
                        let secs = cdmasim_core::engine::time::secs;
                        let step = cb.call1(py, (secs(now), secs(horizon))).map(|r| {
                            // Only an explicit False stops the run.
                            !r.bind(py).is(&*pyo3::types::PyBool::new_bound(py, false))
                        });
                        match step {
                            Ok(go_on) => go_on,
                            Err(e) => {
                                *pending_cb.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                                false
                            }
                        }
                    })
                }) as Box<dyn FnMut(Time, Time) -> bool>
            });
            let opts = RunOptions { pcap_dir, progress: hook, progress_every: progress_every_ns.map(Time), drop_log, series_spool, web_log_dir };
            Ok(sim::run(&spec, opts))
        })
    })?;
    // Ctrl-C or a failing callback: raise that; a callback's False gave a partial result.
    if let Some(e) = pending.lock().unwrap_or_else(|p| p.into_inner()).take() {
        return Err(e);
    }
    let result = match outcome {
        Ok(r) => r,
        Err(RunError::Interrupted) => return Err(PyKeyboardInterrupt::new_err("run interrupted")),
        Err(e @ (RunError::Io { .. } | RunError::Build(_))) => return Err(PyOSError::new_err(e.to_string())),
        // What the scenario asks cannot be run within the limits (docs/files.md).
        Err(e @ RunError::Overflow(_)) => return Err(PyValueError::new_err(e.to_string())),
    };
    convert(py, result)
}

fn f64_bytes(xs: &[f64]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn convert(py: Python<'_>, mut result: RunResult) -> PyResult<(String, Py<PyList>)> {
    // The summary keeps RunResult's field order, pretty-printed here (fast)
    // so that Python can write it out as it is; the series go as arrays.
    let series = std::mem::take(&mut result.series);
    let summary = serde_json::to_string_pretty(&result).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    if let Some((_, index)) = result.spooled.take() {
        let items: Vec<Bound<'_, PyTuple>> = index
            .into_iter()
            .map(|s| {
                // The chunks as (offset, points) u64 pairs, little-endian: compact for numpy.
                let chunks: Vec<u8> = s.chunks.iter().flat_map(|&(o, n)| o.to_le_bytes().into_iter().chain(n.to_le_bytes())).collect();
                PyTuple::new_bound(py, [s.metric.into_py(py), s.subject.into_py(py), PyBytes::new_bound(py, &chunks).into_py(py)])
            })
            .collect();
        return Ok((summary, PyList::new_bound(py, items).unbind()));
    }
    let items: Vec<Bound<'_, PyTuple>> = series
        .iter()
        .map(|s| {
            PyTuple::new_bound(
                py,
                [
                    s.metric.clone().into_py(py),
                    s.subject.clone().into_py(py),
                    PyBytes::new_bound(py, &f64_bytes(&s.t_s)).into_py(py),
                    PyBytes::new_bound(py, &f64_bytes(&s.value)).into_py(py),
                ],
            )
        })
        .collect();
    Ok((summary, PyList::new_bound(py, items).unbind()))
}

/// "37.5ms" → nanoseconds, with the scenario files' unit rules (ValueError with the reason).
#[pyfunction]
fn parse_time_ns(text: &str) -> PyResult<u64> {
    scenario::units::parse_time(text).map(|t| t.0).map_err(PyValueError::new_err)
}

/// "9.6kbps" → bit/s, with the scenario files' unit rules (ValueError with the reason).
#[pyfunction]
fn parse_rate_bps(text: &str) -> PyResult<u64> {
    scenario::units::parse_rate(text).map_err(PyValueError::new_err)
}

/// "10pkt" → ("pkts", 10.0), "1.5Mbps" → ("bps", 1.5e6): any scenario
/// quantity in its base unit, named (bps, s, bytes, pkts, fraction); ValueError
/// if it is not one.
#[pyfunction]
fn parse_quantity(text: &str) -> PyResult<(&'static str, f64)> {
    scenario::units::parse_quantity(text).map(|(d, v)| (d.unit(), v)).map_err(PyValueError::new_err)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(parse_time_ns, m)?)?;
    m.add_function(wrap_pyfunction!(parse_quantity, m)?)?;
    m.add_function(wrap_pyfunction!(parse_rate_bps, m)?)?;
    m.add("ScenarioError", m.py().get_type_bound::<ScenarioError>())?;
    m.add("DEFAULT_SEED", scenario::DEFAULT_SEED)?;
    m.add_function(wrap_pyfunction!(parse_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_tables, m)?)?;
    m.add_function(wrap_pyfunction!(result_schema, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_keys, m)?)?;
    m.add_function(wrap_pyfunction!(run_scenario, m)?)?;
    Ok(())
}
