//! The world: builds components from a [`ScenarioSpec`] and runs the engine.

pub mod apps;
pub mod build;
pub mod collect;
pub mod delay;
pub mod drop_log;
pub mod flows;
pub mod run_result;
pub mod sampler;
pub mod series_spool;
pub mod web_log;
pub mod world;
pub use crate::result::{self, *};
pub use run_result::{schema, RunResult};
pub use crate::network::HopRows;

use crate::net::NodeId;
use crate::engine::Time;
use crate::net::hop::BuildError;
use crate::net::Hop;
use crate::input::limits::MAX_PACKETS_IN_NETWORK;
use crate::scenario::ScenarioSpec;
use std::path::PathBuf;

/// How to run (as opposed to what to run, which is the spec).
#[derive(Default)]
pub struct RunOptions {
    /// Write pcap files into this folder: one per pair of adjacent nodes, named
    /// after the first link between them and captured at that link's sending
    /// node, both directions in it.
    pub pcap_dir: Option<PathBuf>,
    /// Offered (simulated now, horizon) at every multiple of `progress_every`
    /// of simulated time, once the events up to it are done (for progress
    /// bars). Returning false stops the run there: the result covers the run
    /// up to that time (`RunResult.stopped_at_s`), the same on any machine.
    pub progress: Option<Box<dyn FnMut(Time, Time) -> bool>>,
    /// Simulated time between two offers of `progress`; None: a thousandth
    /// of the run.
    pub progress_every: Option<Time>,
    /// Stream drops to this CSV file (`drop_log::CSV_HEADER`) instead of
    /// keeping them in memory for `RunResult.drops`.
    pub drop_log: Option<PathBuf>,
    /// Stream every series to this file in chunks (`series_spool`) instead of
    /// keeping them for `RunResult.series`; `RunResult.spooled` indexes them.
    pub series_spool: Option<PathBuf>,
    /// Stream web pages and objects to `objects.csv` and `pages.csv` in this
    /// folder (`web_log`) as pages finish, instead of keeping them for
    /// `RunResult.objects` and `.pages`.
    pub web_log_dir: Option<PathBuf>,
}

#[derive(Debug)]
pub enum RunError {
    Io { path: PathBuf, error: std::io::Error },
    /// The world could not be built: the hop layer's error, naming the
    /// link or user whose channel (a DRC trace) could not be opened.
    Build(BuildError),
    /// The network holds more packets than a run may (a queue without a
    /// limit under a flood): what filled it.
    Overflow(String),
    Interrupted,
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Io { path, error } => write!(f, "{}: {}", path.display(), error),
            RunError::Build(e) => write!(f, "{e}"),
            RunError::Overflow(m) => write!(f, "{m}"),
            RunError::Interrupted => write!(f, "interrupted"),
        }
    }
}

impl std::error::Error for RunError {}

/// Events between two looks at `engine::interrupt` (Ctrl-C): often enough
/// to stop within a fraction of a second, rarely enough to cost nothing.
const INTERRUPT_EVERY: u32 = 1 << 16;

/// Run a scenario to its horizon.
pub fn run(spec: &ScenarioSpec, opts: RunOptions) -> Result<RunResult, RunError> {
    let mut w = build::build(spec).map_err(RunError::Build)?;
    if let Some(path) = &opts.drop_log {
        w.hosts.drop_log = drop_log::DropLog::to_file(path.clone()).map_err(|error| RunError::Io { path: path.clone(), error })?;
    }
    if let Some(dir) = &opts.web_log_dir {
        w.hosts.web_log = web_log::WebLog::to_dir(dir).map_err(|error| RunError::Io { path: dir.clone(), error })?;
    }
    if let Some(path) = &opts.series_spool {
        w.hosts.spool = Some(series_spool::SeriesSpool::create(path.clone()).map_err(|error| RunError::Io { path: path.clone(), error })?);
    }
    if let Some(dir) = &opts.pcap_dir {
        // One capture per pair of nodes, both directions in it, as tcpdump on
        // a point-to-point interface would see them; each port of a hop
        // joins one pair (a sector's port: the base station and a user).
        let io = |path: &std::path::Path, error| RunError::Io { path: path.to_path_buf(), error };
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        // Each capture's pair of nodes and its file's name (without .pcap).
        let mut pairs: Vec<(NodeId, NodeId, String)> = Vec::new();
        let (net, hosts) = (&mut w.net, &mut w.hosts);
        for hop in net.hops.iter_mut() {
            hosts.pcap_base.push(hosts.pcap_of_port.len() as u32);
            // A hop that cannot report when a transmission starts is
            // captured as packets are offered to it.
            hosts.pcap_at_offer.push(!hop.tap());
            for port in 0..hop.ports() {
                let at = hop.capture_port(port);
                let (ends, name) = (hop.ends(at), hop.place(at));
                let (a, b) = (ends.from, ends.to);
                let idx = match pairs.iter().position(|&(x, y, _)| (x, y) == (a, b) || (x, y) == (b, a)) {
                    Some(i) => i,
                    None => {
                        // Named after the place, escaped so that no two
                        // places share a file (`x/y` and `x_y`); a place
                        // another pair's capture already named (a link
                        // called `air.up` beside a radio link `air`) takes
                        // the first free `-2`, `-3`, ... after it.
                        let base = crate::files::file_component(&name);
                        let taken = |s: &String| pairs.iter().any(|p| &p.2 == s);
                        let stem = std::iter::once(base.clone()).chain((2..).map(|k| format!("{base}-{k}"))).find(|s| !taken(s)).expect("a free name");
                        let path = dir.join(format!("{stem}.pcap"));
                        let f = crate::files::Output::create(&path).map_err(|e| io(&path, e))?;
                        let writer = crate::pcap::write::PcapWriter::new(f).map_err(|e| io(&path, e))?;
                        hosts.pcaps.push(world::Capture { writer, node: a, error: None });
                        pairs.push((a, b, stem));
                        pairs.len() - 1
                    }
                };
                hosts.pcap_of_port.push(idx as u32);
            }
        }
    }
    let stopped = match run_world(&mut w, opts.progress, opts.progress_every) {
        Ok(()) => None,
        // Ctrl-C: the caller discards the run.
        Err(RunError::Interrupted) if crate::engine::interrupt::requested() => return Err(RunError::Interrupted),
        Err(RunError::Interrupted) => Some(w.hosts.horizon),
        Err(e) => return Err(e),
    };
    // Each capture takes its place whole, now that the run is complete.
    for c in std::mem::take(&mut w.hosts.pcaps) {
        let path = c.writer.get_ref().path().to_path_buf();
        let put = match c.error {
            Some(e) => Err(e),
            None => c.writer.into_inner().and_then(crate::files::Output::commit),
        };
        put.map_err(|error| RunError::Io { path, error })?;
    }
    w.hosts.drop_log.finish().map_err(|(path, error)| RunError::Io { path, error })?;
    w.hosts.drain_series(true);
    if let Some(s) = w.hosts.spool.as_mut() {
        s.finish().map_err(|(path, error)| RunError::Io { path, error })?;
    }
    let mut r = collect::collect(&mut w, spec.seed);
    w.hosts.web_log.finish().map_err(|(path, error)| RunError::Io { path, error })?;
    r.stopped_at_s = stopped.map(crate::engine::time::secs);
    Ok(r)
}

/// Run a built world to its horizon and close its statistics. Tests that
/// need the endpoints' internals call this and then inspect the world.
/// `progress` is offered every `every` of simulated time (None: a
/// thousandth of the run); when it says stop, the statistics close at that
/// time (which becomes the world's horizon) and this says Interrupted, as
/// it does when `engine::interrupt` asks (Ctrl-C).
pub fn run_world(
    w: &mut world::World,
    mut progress: Option<Box<dyn FnMut(Time, Time) -> bool>>,
    every: Option<Time>,
) -> Result<(), RunError> {
    let tick = every.unwrap_or(w.hosts.horizon / 1000).max(Time(1));
    let mut next_tick = if progress.is_some() { tick } else { Time::MAX };
    let mut countdown = INTERRUPT_EVERY;
    loop {
        // One look at the queue's front for an event due by the horizon and
        // the next progress tick; only past a tick a second one.
        let Some((now, ev)) = w.hosts.q.pop_by(w.hosts.horizon.min(next_tick)) else {
            match w.hosts.q.peek_time() {
                Some(t) if t <= w.hosts.horizon => {
                    // Every event up to the tick is done: offer it there (once
                    // for a gap of several ticks without events, whose state
                    // is the same).
                    let at = next_tick;
                    next_tick = tick.saturating_mul(t.div_ceil(tick));
                    if let Some(p) = progress.as_mut() {
                        if !p(at, w.hosts.horizon) {
                            return Err(stop_at(w, at));
                        }
                    }
                    continue;
                }
                _ => break,
            }
        };
        w.handle(now, ev);
        countdown -= 1;
        if countdown == 0 {
            countdown = INTERRUPT_EVERY;
            // Streaming series: the endpoints' per-event points go to the spool.
            w.hosts.drain_series(false);
            if crate::engine::interrupt::requested() {
                return Err(stop_at(w, now));
            }
            if w.net.headers_held() as usize > MAX_PACKETS_IN_NETWORK {
                return Err(overflow(w, now));
            }
        }
    }
    let horizon = w.hosts.horizon;
    finish(w, horizon);
    // The run is done: the horizon is offered last (a progress bar ends at
    // 100 %; a callback that says stop changes nothing now).
    if let Some(p) = progress.as_mut() {
        p(horizon, horizon);
    }
    Ok(())
}

/// The network is full: which hop holds the most packets, and what to do.
fn overflow(w: &world::World, now: Time) -> RunError {
    let (packets, place) = w
        .net
        .hops
        .iter()
        .map(|h| (h.packets_inside(), h.place(0)))
        .max_by_key(|(n, _)| *n)
        .unwrap_or((0, String::new()));
    RunError::Overflow(format!(
        "at {:.3} s the network holds more than {MAX_PACKETS_IN_NETWORK} packets ({packets} of them in '{place}'): \
         a queue without a limit takes more than its link can carry; give it a limit (queue = {{ limit = ... }}) \
         or a lower offered load",
        crate::engine::time::secs(now)
    ))
}

/// End the run at `at`: close every hop's statistics there.
fn stop_at(w: &mut world::World, at: Time) -> RunError {
    w.hosts.horizon = at;
    finish(w, at);
    RunError::Interrupted
}

/// Close every hop's statistics at `at`. Every hop has been drained, so a
/// debug build first checks that the network holds a header for each
/// packet inside its hops and for no other (none kept past its packet's
/// delivery or drop).
fn finish(w: &mut world::World, at: Time) {
    debug_assert_eq!(w.net.headers_held(), w.net.packets_inside(), "headers held against packets inside the hops");
    w.net.finish(at);
}
