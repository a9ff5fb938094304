//! cdmasim-core: everything that runs per packet or per slot, in pure Rust.
//!
//! Layers (see docs/ARCHITECTURE.md): `engine` (time, events, random streams)
//! → `net` (packets, links, queues, routes) → `tcp` and `app` (endpoints) →
//! `sim` (the world that wires them and runs a scenario). `scenario` turns
//! TOML into a validated `ScenarioSpec`; `models` holds closed forms the
//! simulator is checked against; `pcap` reads and writes captures.

pub mod engine;
pub mod files;
pub mod input;
pub mod models;
pub mod net;
pub mod network;
pub mod pcap;
pub mod result;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod app;
pub mod evdo;
pub mod channel;
pub mod cdma2000;
pub mod is2000;
pub mod rlp;
pub mod sched;
pub mod emu;
#[cfg(test)]
mod toy_radio;
