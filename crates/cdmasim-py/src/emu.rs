//! The emulator's relay for the Python front: open the TUN devices in the
//! namespaces Python made, relay on a thread of its own, stop and report.
//! One relay per process.

use cdmasim_core::emu::{relay, tun::Tun};
use cdmasim_core::scenario;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

type Running = (Arc<AtomicBool>, JoinHandle<std::io::Result<relay::RelayReport>>);
static RUNNING: Mutex<Option<Running>> = Mutex::new(None);

/// A scenario in any form (`crate::sim::form`); its error as ValueError.
fn parse(text: &str, path: &str, form: &str) -> PyResult<scenario::ScenarioSpec> {
    scenario::parse_form(text, path, crate::sim::form(form)?, None).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Open TUN `tun_name` in the server namespace and in each user's (paths
/// like /proc/PID/ns/net, users in the scenario's order), then relay on a
/// background thread until `emulate_finish`. `form`: how the scenario is
/// written (`crate::sim::form`).
#[pyfunction]
#[pyo3(signature = (text, path, server_ns, user_ns, tun_name="cdm0", log_dir=None, form="toml"))]
#[allow(clippy::too_many_arguments)]
fn emulate_start(text: &str, path: &str, server_ns: &str, user_ns: Vec<String>, tun_name: &str, log_dir: Option<PathBuf>, form: &str) -> PyResult<()> {
    let spec = parse(text, path, form)?;
    let mut running = RUNNING.lock().unwrap_or_else(|p| p.into_inner());
    if running.is_some() {
        return Err(PyRuntimeError::new_err("a relay is already running in this process"));
    }
    let io = |what: &str, e: std::io::Error| PyOSError::new_err(format!("{what}: {e}"));
    let server = Tun::open_in(server_ns, tun_name).map_err(|e| io("server TUN", e))?;
    let users = user_ns.iter().map(|ns| Tun::open_in(ns, tun_name)).collect::<Result<Vec<_>, _>>().map_err(|e| io("user TUN", e))?;
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let handle = std::thread::spawn(move || relay::run(&spec, &server, &users, &flag, log_dir.as_deref()));
    *running = Some((stop, handle));
    Ok(())
}

/// Where `cdmasim emulate` attaches: `(network-side node, [user names])`,
/// the terminals of the scenario's radio hops in hop order (or the first
/// node and every other without one). ValueError if they are served from
/// several nodes.
#[pyfunction]
#[pyo3(signature = (text, path = "<string>", form = "toml"))]
fn emulate_attachment(text: &str, path: &str, form: &str) -> PyResult<(String, Vec<String>)> {
    let spec = parse(text, path, form)?;
    let (base, users) = relay::attachment(&spec).map_err(PyValueError::new_err)?;
    Ok((spec.nodes[base.index()].name.clone(), users.into_iter().map(|u| u.0).collect()))
}

/// Stop the relay; its report as JSON.
#[pyfunction]
fn emulate_finish(py: Python<'_>) -> PyResult<String> {
    let Some((stop, handle)) = RUNNING.lock().unwrap_or_else(|p| p.into_inner()).take() else {
        return Err(PyRuntimeError::new_err("no relay is running"));
    };
    stop.store(true, Ordering::Relaxed);
    let r = py.allow_threads(|| handle.join()).map_err(|_| PyRuntimeError::new_err("the relay thread panicked"))?;
    let report = r.map_err(|e| PyOSError::new_err(format!("relay: {e}")))?;
    serde_json::to_string(&report).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(emulate_start, m)?)?;
    m.add_function(wrap_pyfunction!(emulate_finish, m)?)?;
    m.add_function(wrap_pyfunction!(emulate_attachment, m)?)?;
    Ok(())
}
