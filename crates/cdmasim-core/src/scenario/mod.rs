//! Scenario files: TOML with a unit on every quantity, parsed and validated
//! once into a [`spec::ScenarioSpec`]. The reference for every key is
//! docs/scenario.md.

pub mod spec;
pub use spec::*;

mod cc;
mod cell;
mod drc;
mod error;
mod flow;
mod json;
mod link;
mod parse;
mod presets;
mod queue;
mod radio_link;
mod raw;
mod reader;
mod resolve;
mod sector;
mod tcp;
mod web;
pub mod units;

pub use error::ScenarioError;
pub use json::toml_from_json;
pub use parse::{load, parse_str, parse_str_seeded, DEFAULT_SEED};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod drc_tests;
