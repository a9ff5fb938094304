//! Scenario files: TOML with a unit on every quantity, parsed and validated
//! once into a [`spec::ScenarioSpec`]. The reference for every key is
//! docs/scenario.md. Each hop kind's tables are read by one file
//! implementing `kind::KindTables`.

pub mod spec;
pub use spec::*;

mod cc;
mod drc;
pub(crate) mod error;
mod flow;
mod json;
pub mod limits;
mod parse;
mod presets;
mod queue;
pub(crate) mod raw;
pub(crate) mod reader;
mod resolve;
mod tcp;
mod web;

// The hop kinds' tables: the interface and registry, then one file per kind.
pub(crate) mod kind;
mod kinds;
mod cell;
mod is2000;
mod link;
mod radio_link;
mod sector;
pub mod units;

pub use error::ScenarioError;
pub use json::toml_from_json;
pub use parse::{load, parse_str, parse_str_seeded, top_level_tables, DEFAULT_SEED};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod drc_tests;
