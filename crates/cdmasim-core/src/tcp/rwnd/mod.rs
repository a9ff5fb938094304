//! Receiver advertised-window policies behind one trait. The receiver asks
//! the policy how much window to offer; the policy sees every arriving
//! segment (delay-based policies such as seed 003's RBSMQ need that).

pub mod fixed;

use crate::engine::Time;
use crate::scenario::RwndAlgo;

pub trait RwndPolicy {
    fn name(&self) -> &'static str;
    /// The connection was (re)established: a SYN arrived.
    fn on_connection(&mut self, _now: Time) {}
    /// A data segment arrived (time, its sequence number, payload length).
    fn on_segment(&mut self, _now: Time, _seq: u64, _len: u32) {}
    /// The window to advertise in bytes, given the free receive-buffer space.
    fn window(&mut self, now: Time, free_space: u64) -> u64;
}

/// Build the policy a scenario names, for a connection with this MSS.
pub fn by_spec(algo: RwndAlgo, _mss: u32) -> Box<dyn RwndPolicy> {
    match algo {
        RwndAlgo::Fixed => Box::new(fixed::FixedBuffer),
        // Lands with its own file (issue 3).
        RwndAlgo::Rbsmq(_) => todo!("rbsmq is not implemented yet"),
    }
}
