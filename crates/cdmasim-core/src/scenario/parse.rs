//! TOML text → [`ScenarioSpec`]: syntax, then each table, then presets, then
//! cross-references (see `resolve`).

use crate::engine::Time;
use crate::input::error::ScenarioError;
use super::flow::parse_flow;
use crate::input::limits::MAX_SAMPLES;
use super::presets;
use super::raw::{RawRoute, RawScenario};
use crate::input::reader::Named;
use crate::input::reader::{Res, Source, Table, Val};
use super::resolve::resolve;
use super::spec::ScenarioSpec;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// The top-level keys besides the hop kinds' tables (`kinds::Kinds`).
const TOP_KEYS: &[&str] = &["simulation", "preset", "node", "route", "flow"];


/// Seed used when the file gives none.
pub const DEFAULT_SEED: u64 = 1;

/// Parse and validate scenario text; `path` is used in error messages and
/// as the folder that relative DRC trace paths start from.
pub fn parse_str(text: &str, path: &str) -> Result<ScenarioSpec, ScenarioError> {
    parse_str_seeded(text, path, None)
}

/// `parse_str` with `seed` (when given) in place of `[simulation].seed`:
/// what `--seed` does. The spec holds the seed and nothing drawn from it
/// (flow start jitter, preset channels and vehicles are drawn when the
/// world is built), so setting `ScenarioSpec::seed` afterwards is the same.
pub fn parse_str_seeded(text: &str, path: &str, seed: Option<u64>) -> Result<ScenarioSpec, ScenarioError> {
    let src = Source::new(path, text);
    let doc = DeTable::parse(text).map_err(|e| {
        let line = e.span().map(|s| src.line(s.start)).unwrap_or(0);
        let mut message = e.message().trim().to_string();
        // The TOML parser's span covers the offending key: name it.
        if message == "duplicate key" {
            if let Some(key) = e.span().and_then(|s| text.get(s)).map(str::trim).filter(|k| !k.is_empty()) {
                message = format!("duplicate key '{key}' (a key may appear once in a table)");
            }
        }
        src.error(line, "", format!("invalid TOML: {message}"))
    })?;
    let span = doc.span();
    let root_value = Spanned::new(span, DeValue::Table(doc.into_inner()));
    let root_val = Val::root(&src, &root_value);
    // `preset = "x"` allows an [x] table, so that an unknown preset is reported
    // as such rather than as an unknown [x] table.
    let mut raw = RawScenario::default();
    let mut allowed = top_level_tables();
    allowed.extend(root_val.peek_str("preset"));
    let root = root_val.table(&allowed)?;

    parse_simulation(&root, &mut raw)?;
    if let Some(seed) = seed {
        raw.seed = seed;
    }
    presets::expand(&root, &mut raw)?;
    for v in each(&root, "node")? {
        let t = v.keys(super::keys::NODE)?;
        raw.nodes.push(Named::new(t.name("name")?));
    }
    for v in each(&root, "route")? {
        let t = v.keys(super::keys::ROUTE)?;
        raw.routes.push(RawRoute {
            node: Named::new(t.name("node")?),
            dest: Named::new(t.name("dest")?),
            link: Named::new(t.name("link")?),
        });
    }
    for v in each(&root, "flow")? {
        raw.flows.push(parse_flow(&v)?);
    }
    for kind in raw.kinds.all() {
        for &table in kind.tables() {
            for v in each(&root, table)? {
                kind.parse(table, &v)?;
            }
        }
    }
    resolve(raw, path)
}

/// The top-level keys and tables a scenario file may hold: the scenario's
/// own, every hop kind's and every preset's.
pub fn top_level_tables() -> Vec<&'static str> {
    let mut all = TOP_KEYS.to_vec();
    for kind in RawScenario::default().kinds.all() {
        all.extend(kind.tables());
    }
    all.extend(presets::PRESETS);
    all
}

/// `parse_str_seeded` for a scenario given as a JSON object (a Python
/// dict): turned into TOML here and read as a file would be, so that a
/// dict and a file say the same things of the same mistakes. A JSON that
/// is no table, or has no TOML form, is refused as the whole scenario's.
pub fn parse_json_seeded(json: &str, path: &str, seed: Option<u64>) -> Result<ScenarioSpec, ScenarioError> {
    let text = super::json::toml_from_json(json)
        .map_err(|message| ScenarioError::of_file(path, message))?;
    parse_str_seeded(&text, path, seed)
}

/// How the text handed to `parse_form` is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// A scenario file's TOML.
    Toml,
    /// A JSON object (a Python dict), read as its TOML (`parse_json_seeded`).
    Json,
    /// A spec that parsing already made, as JSON (`serde_json` of
    /// `ScenarioSpec`): read back, not parsed again, so that what a caller
    /// keyed or inspected is what runs.
    Spec,
}

/// A scenario in any `Form`, with `seed` (when given) in place of its own.
pub fn parse_form(text: &str, path: &str, form: Form, seed: Option<u64>) -> Result<ScenarioSpec, ScenarioError> {
    match form {
        Form::Toml => parse_str_seeded(text, path, seed),
        Form::Json => parse_json_seeded(text, path, seed),
        Form::Spec => {
            let mut spec: ScenarioSpec = serde_json::from_str(text)
                .map_err(|e| ScenarioError::of_file(path, format!("not a parsed scenario's spec: {e}")))?;
            if let Some(seed) = seed {
                spec.seed = seed;
            }
            Ok(spec)
        }
    }
}

/// Read and parse a scenario file.
pub fn load(path: impl AsRef<std::path::Path>) -> Result<ScenarioSpec, ScenarioError> {
    let path = path.as_ref();
    let shown = path.display().to_string();
    let text = crate::files::read_input_text(path, crate::files::MAX_SMALL_INPUT_BYTES, "scenario file")
        .map_err(|e| ScenarioError::of_file(&shown, format!("cannot read: {}", crate::files::reason(&e.to_string()))))?;
    parse_str(&text, &shown)
}

/// The elements of an array of tables (`[[link]]`), or none if absent.
fn each<'a>(root: &Table<'a>, key: &str) -> Res<Vec<Val<'a>>> {
    match root.get(key) {
        Some(v) => v.array(),
        None => Ok(Vec::new()),
    }
}

fn parse_simulation(root: &Table, raw: &mut RawScenario) -> Res<()> {
    let t = root.req("simulation")?.keys(super::keys::SIMULATION)?;
    let dur = t.req("duration")?;
    raw.duration = dur.time()?;
    if raw.duration == Time::ZERO {
        return Err(dur.err("duration must be positive"));
    }
    raw.seed = t.or("seed", DEFAULT_SEED, |v| v.count())?;
    raw.sample_interval = t.opt("sample_interval", |v| v.time())?;
    raw.sample_interval_at = t.get("sample_interval").map(|v| v.at());
    if raw.sample_interval == Some(Time::ZERO) {
        return Err(t.get("sample_interval").unwrap().err("sample_interval must be positive"));
    }
    // Every sample keeps a value per series: bound their number so that a
    // typo ("1ns") is refused here instead of exhausting memory in the run.
    if let Some(i) = raw.sample_interval.filter(|&i| raw.duration / i > MAX_SAMPLES) {
        return Err(t.get("sample_interval").unwrap().err(format!(
            "{} samples over the run (at most {MAX_SAMPLES}): give a longer sample_interval",
            raw.duration / i
        )));
    }
    Ok(())
}
