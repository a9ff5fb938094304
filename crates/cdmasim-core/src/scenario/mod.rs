//! Scenario files: TOML with a unit on every quantity, parsed and validated
//! once into a [`spec::ScenarioSpec`]. The reference for every key is
//! docs/scenario.md. This folder reads the whole file (its nodes, routes,
//! flows, TCP and presets) and resolves it; each hop kind's tables are read
//! in the kind's own folder (`KindTables`, registered in `network::kinds`)
//! with the toolkit of `input`.

pub mod spec;
pub use spec::*;

mod cc;
mod flow;
mod json;
mod keys;
mod parse;
mod presets;
pub(crate) mod raw;
mod resolve;
mod tcp;
mod web;

// The reading toolkit, named here as well, where users of the crate have
// always found it.
pub use crate::input::error::{self, ScenarioError};
pub use crate::input::{limits, units};
pub use json::toml_from_json;
pub use parse::{load, parse_form, parse_json_seeded, parse_str, parse_str_seeded, top_level_tables, Form, DEFAULT_SEED};

/// Every scenario table, with its keys as the reference shows them: the
/// scenario's own tables (`scenario::keys`), then every hop kind's. What
/// `python -m cdmasim.scenario_doc` writes into docs/scenario.md.
pub fn documented_keys() -> Vec<crate::input::keys::TableDoc> {
    let mut kinds = crate::network::kinds::Kinds::default();
    let all: Vec<&mut dyn crate::input::kind::KindTables<HopSpec>> = kinds.all();
    let kinds_tables = all.iter().flat_map(|k| k.keys());
    keys::TABLES.iter().chain(crate::input::queue::TABLES).chain(kinds_tables).map(crate::input::keys::documented).collect()
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod drc_tests;
