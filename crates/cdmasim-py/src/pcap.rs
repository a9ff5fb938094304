//! Bindings for the capture analyzer: JSON strings across the boundary
//! (python/cdmasim/pcap.py turns them into DataFrames); the GIL is released
//! while the core reads the capture.
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::path::PathBuf;

#[pyfunction]
#[pyo3(signature = (path, series=false, checksums=true, mtu=1500.0, b=2.0, fit_connections=None, fit_min_packets=100))]
#[allow(clippy::too_many_arguments)]
fn pcap_analyze_json(
    py: Python<'_>,
    path: PathBuf,
    series: bool,
    checksums: bool,
    mtu: f64,
    b: f64,
    fit_connections: Option<Vec<usize>>,
    fit_min_packets: u64,
) -> PyResult<String> {
    let opts = cdmasim_core::pcap::AnalyzeOptions { series, checksums, mtu, b, fit_connections, fit_min_packets };
    py.allow_threads(|| cdmasim_core::pcap::analyze_file_json(&path, &opts)).map_err(|e| {
        // Every error names the file (an I/O error's own text does already).
        PyValueError::new_err(match e {
            cdmasim_core::pcap::PcapError::Io { .. } => e.to_string(),
            e => format!("{}: {e}", path.display()),
        })
    })
}

#[pyfunction]
fn pcap_owd_json(py: Python<'_>, a: PathBuf, b: PathBuf) -> PyResult<String> {
    py.allow_threads(|| cdmasim_core::pcap::owd_files_json(&a, &b)).map_err(PyValueError::new_err)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(pcap_analyze_json, m)?)?;
    m.add_function(wrap_pyfunction!(pcap_owd_json, m)?)?;
    Ok(())
}
