//! Thin PyO3 bindings: type conversion only, no simulation logic.
use pyo3::prelude::*;

mod channel;
mod emu;
mod evdo;
mod files;
mod interrupt;
mod models;
mod pcap;
mod sim;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    sim::register(m)?;
    channel::register(m)?;
    evdo::register(m)?;
    pcap::register(m)?;
    models::register(m)?;
    emu::register(m)?;
    files::register(m)?;
    Ok(())
}
