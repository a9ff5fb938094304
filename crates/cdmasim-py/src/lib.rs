//! Thin PyO3 bindings: type conversion only, no simulation logic.
use pyo3::prelude::*;

mod pcap;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    pcap::register(m)?;
    Ok(())
}
