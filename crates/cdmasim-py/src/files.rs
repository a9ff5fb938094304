//! Bindings for crate::files: the core's one rule for reading a file a user
//! names and for turning a scenario's names into file names, so Python
//! keeps no second copy of either.
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;

/// The whole of a regular file of at most `limit` bytes; ValueError with
/// the reason otherwise (not a regular file, too large, unreadable).
#[pyfunction]
fn read_input<'py>(py: Python<'py>, path: PathBuf, limit: u64, what: &str) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = py.allow_threads(|| cdmasim_core::files::read_input(&path, limit, what)).map_err(|e| {
        let s = e.to_string();
        // The OS's words without Rust's " (os error N)", after "cannot
        // read"; the rule's own refusals ("a FIFO, not a regular file") as
        // they are.
        let s = s.split(" (os error").next().unwrap_or(&s);
        PyValueError::new_err(if e.kind() == std::io::ErrorKind::InvalidInput { s.to_string() } else { format!("cannot read: {s}") })
    })?;
    Ok(PyBytes::new_bound(py, &bytes))
}

/// A scenario's name as one file name component (files::file_component).
#[pyfunction]
fn file_component(name: &str) -> String {
    cdmasim_core::files::file_component(name)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(read_input, m)?)?;
    m.add_function(wrap_pyfunction!(file_component, m)?)?;
    m.add("MAX_TRACE_BYTES", cdmasim_core::files::MAX_TRACE_BYTES)?;
    m.add("MAX_SMALL_INPUT_BYTES", cdmasim_core::files::MAX_SMALL_INPUT_BYTES)?;
    Ok(())
}
