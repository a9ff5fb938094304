//! The world: builds components from a [`ScenarioSpec`] and runs the engine.

pub mod result;
pub use result::*;

use crate::engine::Time;
use crate::scenario::ScenarioSpec;
use std::path::PathBuf;

/// How to run (as opposed to what to run, which is the spec).
#[derive(Default)]
pub struct RunOptions {
    /// Write one pcap file per link (raw IPv4 link type) into this folder.
    pub pcap_dir: Option<PathBuf>,
    /// Called now and then with (simulated now, horizon), for progress bars.
    /// Returning false stops the run early (e.g. on Ctrl-C).
    pub progress: Option<Box<dyn FnMut(Time, Time) -> bool>>,
}

#[derive(Debug)]
pub enum RunError {
    Io { path: PathBuf, error: std::io::Error },
    Interrupted,
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Io { path, error } => write!(f, "{}: {}", path.display(), error),
            RunError::Interrupted => write!(f, "interrupted"),
        }
    }
}

impl std::error::Error for RunError {}

/// Run a scenario to its horizon.
/// PLACEHOLDER until the world lands: returns an empty result.
pub fn run(spec: &ScenarioSpec, _opts: RunOptions) -> Result<RunResult, RunError> {
    Ok(RunResult { seed: spec.seed, duration_s: crate::engine::time::secs(spec.duration), ..Default::default() })
}
