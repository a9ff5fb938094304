//! The emulator (real programs through the scenario's radio network): TUN
//! devices in network namespaces (`tun`) and the real-time relay through
//! the scenario's very hops (`relay`). The namespaces and programs are set
//! up by the Python front (`cdmasim emulate`).

pub mod relay;
pub mod tun;
pub mod wire;
