//! The discrete-event engine: integer time, a deterministic event queue and
//! named random streams. Nothing here knows about packets.

pub mod interrupt;
pub mod queue;
pub mod rng;
pub mod time;
pub mod ziggurat;

pub use queue::{EventQueue, Slow};
pub use rng::{Rng, RngStreams};
pub use time::{Time, NS_PER_MS, NS_PER_SEC, NS_PER_US};
