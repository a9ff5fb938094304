//! The world: builds components from a [`ScenarioSpec`] and runs the engine.

pub mod build;
pub mod collect;
pub mod result;
pub mod sampler;
pub mod world;
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

/// Events between two calls of the progress callback.
const PROGRESS_EVERY: u32 = 1 << 16;

fn pcap_name(link: &str) -> String {
    link.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect::<String>() + ".pcap"
}

/// Run a scenario to its horizon.
pub fn run(spec: &ScenarioSpec, opts: RunOptions) -> Result<RunResult, RunError> {
    let mut w = build::build(spec);
    if let Some(dir) = &opts.pcap_dir {
        let io = |path: &std::path::Path, error| RunError::Io { path: path.to_path_buf(), error };
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        for l in &w.links {
            let path = dir.join(pcap_name(&l.name));
            let f = std::fs::File::create(&path).map_err(|e| io(&path, e))?;
            w.pcaps.push(crate::pcap::write::PcapWriter::new(f).map_err(|e| io(&path, e))?);
        }
    }
    run_world(&mut w, opts.progress)?;
    if let Some(dir) = &opts.pcap_dir {
        for (p, l) in w.pcaps.iter_mut().zip(&w.links) {
            let path = dir.join(pcap_name(&l.name));
            p.flush().map_err(|error| RunError::Io { path, error })?;
        }
    }
    Ok(collect::collect(&w, spec.seed))
}

/// Run a built world to its horizon and close its statistics. Tests that
/// need the endpoints' internals call this and then inspect the world.
pub fn run_world(w: &mut world::World, mut progress: Option<Box<dyn FnMut(Time, Time) -> bool>>) -> Result<(), RunError> {
    let mut countdown = PROGRESS_EVERY;
    while let Some(t) = w.q.peek_time() {
        if t > w.horizon {
            break;
        }
        let (now, ev) = w.q.pop().expect("peeked");
        w.handle(now, ev);
        countdown -= 1;
        if countdown == 0 {
            countdown = PROGRESS_EVERY;
            if let Some(p) = progress.as_mut() {
                if !p(now, w.horizon) {
                    return Err(RunError::Interrupted);
                }
            }
        }
    }
    let horizon = w.horizon;
    for l in &mut w.links {
        l.finish_stats(horizon);
    }
    Ok(())
}
