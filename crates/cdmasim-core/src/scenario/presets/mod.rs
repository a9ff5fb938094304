//! Presets: a top-level `preset = "NAME"` plus a `[NAME]` table expand into
//! the generic nodes, links and flows (which the file may then extend).

pub(crate) mod cdma2000;
pub(crate) mod dumbbell;
pub(crate) mod is2000;

use super::raw::RawScenario;
use crate::input::reader::{Res, Table};

/// Names of the presets, for the top-level key list and error messages.
pub(crate) const PRESETS: &[&str] = &["dumbbell", "cdma2000", "is2000"];

/// Expand the preset named by `root.preset`, if any.
pub(crate) fn expand(root: &Table, raw: &mut RawScenario) -> Res<()> {
    let Some(p) = root.get("preset") else {
        for name in PRESETS {
            if let Some(t) = root.get(name) {
                return Err(t.err(format!("a [{name}] table needs preset = \"{name}\"")));
            }
        }
        return Ok(());
    };
    match p.str()? {
        "dumbbell" => dumbbell::expand(&root.req("dumbbell")?, raw),
        "cdma2000" => cdma2000::expand(&root.req("cdma2000")?, raw),
        "is2000" => is2000::expand(&root.req("is2000")?, raw),
        other => Err(p.err(format!("unknown preset '{other}' (known: {})", PRESETS.join(", ")))),
    }
}
