//! `drc = {...}` on a link: its forward rate follows a 1xEV-DO DRC sequence,
//! slot by slot (`channel::link_rate`), from a synthetic channel preset or a
//! recorded trace. The key is checked where it is written (`parse_drc`); the
//! sequence is drawn or read only once the run's duration and seed are known:
//! `resolve` checks the preset or reads the trace, and the world opens the
//! channel (`DrcSpec::open`) with the run's seed.

use crate::engine::Time;
use super::keys::Key;
use super::reader::{At, Res, Val};
use crate::channel::{self, presets, DrcSpec, Format};
use crate::engine::NS_PER_MS;
use std::path::Path;

/// Default rate of the reverse direction of a DRC link: 153.6 kb/s, the
/// highest reverse traffic channel rate of 1xEV-DO Rev. 0 (C.S0024-0; the
/// rates are 9.6, 19.2, 38.4, 76.8 and 153.6 kb/s). It carries the ACKs of a
/// downlink TCP flow with room to spare: at the top DRC rate (3.072 Mb/s) a
/// flow of 1500-byte packets gets 256 packets/s, whose 52-byte ACKs (with
/// timestamps, one per segment) need 256 × 52 × 8 = 106.5 kb/s.
pub(crate) const REVERSE_RATE_BPS: u64 = 153_600;

/// Mahimahi traces are mapped onto slots with this window unless the key
/// `window` says otherwise (the same default as `cdmasim channel`).
const MAHIMAHI_WINDOW_MS: u32 = 100;

#[derive(Clone, Debug)]
pub(crate) enum DrcFrom {
    /// A synthetic preset of `channel::presets`; `seed` None = the
    /// scenario's seed; `vehicle`: the terminals with the same number ride
    /// in one vehicle (`presets::source_in_vehicle`).
    Preset { name: String, seed: Option<u64>, vehicle: Option<u64> },
    /// A trace file, as written (relative paths are taken from the scenario's folder).
    Trace { path: String, format: Option<Format>, window_ms: Option<u32> },
    /// One DRC index throughout.
    Constant { drc: u8 },
}

/// A `drc` key as read, with where to blame what goes wrong later.
#[derive(Clone, Debug)]
pub(crate) struct RawDrc {
    pub from: DrcFrom,
    /// The `preset` or `trace` value.
    pub at: At,
    /// The `window` value, if any (checked against the detected format).
    pub window_at: Option<At>,
}

pub(crate) const DRC: &[Key] = &[
    Key::absent("preset", "one of `preset`, `trace` and `constant` is required", "Draw the sequence from a synthetic channel: `\"stationary\"`, `\"mobile\"`, `\"location1\"`, `\"location2\"` or `\"location3\"` (docs/channel.md). A stationary preset takes settings after a colon: `\"location1:day_sd_db=4,day_corr_days=7\"`, a day-scale offset of the mean SINR (its standard deviation in dB, its correlation time in days, one when left out)."),
    Key::absent("seed", "the scenario's seed (a `[[user]]`'s: its own stream of it)", "The preset's seed (an integer): give it to pin the channel whatever `--seed` says. Two links with the same preset and seed get the same sequence: give each its own for independent links."),
    Key::absent("vehicle", "none", "With the `mobile` preset, the terminals with the same vehicle number V ride in one vehicle, as Liu et al.'s four laptops in one car (§7.2): they share the route (its cells and dwell times, so their hand-offs come at the same instants) and the 3 dB shadowing, drawn from the run's seed and V; each keeps its own fading and SINR estimate."),
    Key::absent("trace", "(see `preset`)", "Play a recorded trace, looped if shorter than the run: a file relative to the scenario file's folder (to the working directory for TOML given as a string or dict)."),
    Key::absent("format", "detected", "The trace's format: `\"text\"`, `\"binary\"` or `\"mahimahi\"`; when absent, the binary magic, then `.up`/`.down` for Mahimahi, else text."),
    Key::absent("window", "`\"100ms\"` (as `cdmasim channel`)", "How a Mahimahi trace is mapped onto slots: a multiple of `\"5ms\"`; for that format only."),
    Key::absent("constant", "(see `preset`)", "Hold one DRC rate throughout: one of the DRC table's rates (`\"2457.6kbps\"`)."),
];

pub(crate) fn parse_drc(v: &Val) -> Res<RawDrc> {
    let t = v.keys(DRC)?;
    if let Some(c) = t.get("constant") {
        for key in ["preset", "trace", "seed", "vehicle", "format", "window"] {
            if let Some(k) = t.get(key) {
                return Err(k.err(format!("{key} cannot be combined with constant")));
            }
        }
        let rate = c.rate()?;
        let drc = channel::drc::index_of_rate(rate).filter(|&d| d != 0).ok_or_else(|| {
            let mut rates = channel::drc::RATE_BPS[1..].to_vec();
            rates.sort_unstable();
            rates.dedup();
            let known: Vec<String> = rates.iter().map(|r| format!("{}kbps", *r as f64 / 1000.0)).collect();
            c.err(format!("{rate} bit/s is not a DRC rate (known: {})", known.join(", ")))
        })?;
        return Ok(RawDrc { from: DrcFrom::Constant { drc }, at: c.at(), window_at: None });
    }
    match (t.get("preset"), t.get("trace")) {
        (Some(p), None) => {
            for key in ["format", "window"] {
                if let Some(k) = t.get(key) {
                    return Err(k.err(format!("{key} is for trace files, not for a preset")));
                }
            }
            let name = p.str()?;
            // A preset's name, with its settings after a colon
            // (`location1:day_sd_db=2`, presets::parse).
            match presets::parse(name, 0) {
                Ok(Some(_)) => {}
                Ok(None) => {
                    return Err(p.err(format!("unknown DRC preset '{name}' (known: {})", presets::PRESETS.join(", "))))
                }
                Err(e) => return Err(p.err(format!("DRC preset '{name}': {e}"))),
            }
            let seed = t.opt("seed", |v| v.count())?;
            let vehicle = t.opt("vehicle", |v| v.count())?;
            if let (Some(_), Some(k)) = (vehicle, t.get("vehicle")) {
                if !presets::VEHICLE_PRESETS.contains(&name) {
                    return Err(k.err(format!(
                        "vehicle shares a route's cells and shadowing among terminals: for the {} preset, not '{name}'",
                        presets::VEHICLE_PRESETS.join(", ")
                    )));
                }
            }
            Ok(RawDrc { from: DrcFrom::Preset { name: name.to_string(), seed, vehicle }, at: p.at(), window_at: None })
        }
        (None, Some(tr)) => {
            for key in ["seed", "vehicle"] {
                if let Some(s) = t.get(key) {
                    return Err(s.err(format!("{key} is for a preset; a trace file is played as recorded")));
                }
            }
            let path = tr.str()?;
            if path.trim().is_empty() {
                return Err(tr.err("the trace path is empty"));
            }
            let format = match t.get("format") {
                Some(f) => {
                    let name = f.str()?;
                    Some(Format::parse(name).ok_or_else(|| f.err(format!("unknown trace format '{name}' (known: text, binary, mahimahi)")))?)
                }
                None => None,
            };
            let window_ms = match t.get("window") {
                Some(w) => {
                    let ns = w.time()?;
                    if ns == Time::ZERO || ns % (5 * NS_PER_MS) != Time::ZERO || ns / NS_PER_MS > u32::MAX as u64 {
                        return Err(w.err("the Mahimahi window must be a positive multiple of 5ms (3 slots)"));
                    }
                    Some((ns / NS_PER_MS) as u32)
                }
                None => None,
            };
            let from = DrcFrom::Trace { path: path.to_string(), format, window_ms };
            Ok(RawDrc { from, at: tr.at(), window_at: t.get("window").map(|w| w.at()) })
        }
        (Some(p), Some(_)) => Err(p.err("give either preset or trace, not both")),
        (None, None) => Err(v.err("a drc table needs preset = \"stationary\" | \"mobile\", trace = \"FILE\" or constant = RATE")),
    }
}

/// The channel the world will draw: the preset, whose seed is its own
/// `seed` if the scenario pins one, else the run's (for EV-DO terminal
/// `user`, that terminal's stream of it), or the trace file, read once here
/// so that a bad file is reported with the line of its key. `scenario_file`
/// is the scenario's path as given, whose folder relative trace paths start
/// from. On error: where to blame it, and the message.
pub(crate) fn resolve(d: &RawDrc, scenario_file: &str, user: Option<u64>) -> Result<DrcSpec, (At, String)> {
    match &d.from {
        DrcFrom::Preset { name, seed, vehicle } => {
            if !matches!(presets::parse(name, 0), Ok(Some(_))) {
                return Err((d.at.clone(), format!("unknown DRC preset '{name}'")));
            }
            let user = if seed.is_some() { None } else { user };
            Ok(DrcSpec::Preset { name: name.clone(), seed: *seed, user, vehicle: *vehicle })
        }
        DrcFrom::Constant { drc } => Ok(DrcSpec::Constant { drc: *drc }),
        DrcFrom::Trace { path, format, window_ms } => {
            let dir = Path::new(scenario_file).parent().unwrap_or(Path::new(""));
            let full = dir.join(path);
            let full = full.to_string_lossy().into_owned();
            let fmt = format.unwrap_or_else(|| Format::detect(&full));
            if let (Some(at), true) = (&d.window_at, fmt != Format::Mahimahi) {
                return Err((at.clone(), format!("window is for Mahimahi traces; '{path}' is read as {fmt:?} (set format = \"mahimahi\")")));
            }
            let window = window_ms.unwrap_or(MAHIMAHI_WINDOW_MS);
            let t = channel::read_trace(&full, Some(fmt), window)
                .map_err(|e| (d.at.clone(), format!("cannot use DRC trace: {}", crate::files::reason(&e.to_string()))))?;
            if t.is_empty() {
                return Err((d.at.clone(), format!("DRC trace '{full}' holds no slots")));
            }
            if t.drc.iter().all(|&x| x == 0) {
                return Err((d.at.clone(), "the DRC sequence is null (DRC 0) throughout: the channel would never carry data".into()));
            }
            Ok(DrcSpec::Trace { path: full, format: fmt, mahimahi_window_ms: window, start_slot: 0 })
        }
    }
}


