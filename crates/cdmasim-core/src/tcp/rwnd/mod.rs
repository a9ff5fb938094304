//! Receiver advertised-window policies behind one trait. The receiver asks
//! the policy how much window to offer; the policy sees every arriving
//! segment (delay-based policies such as seed 003's RBSMQ need that).

pub mod fixed;

use crate::engine::Time;

pub trait RwndPolicy {
    fn name(&self) -> &'static str;
    /// A data segment arrived (time, its sequence number, payload length).
    fn on_segment(&mut self, _now: Time, _seq: u64, _len: u32) {}
    /// The window to advertise, given the free receive-buffer space.
    fn window(&mut self, now: Time, free_space: u64) -> u64;
}
