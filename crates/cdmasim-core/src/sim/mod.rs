//! The world: builds components from a [`ScenarioSpec`] and runs the engine.

pub mod result;
pub use result::*;
