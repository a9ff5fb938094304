//! Scenario files: TOML with a unit on every quantity, parsed and validated
//! once into a [`spec::ScenarioSpec`].

pub mod spec;
pub use spec::*;
