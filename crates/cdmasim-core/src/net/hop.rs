//! The one interface every hop of the packet world implements: a
//! point-to-point link, a 1xEV-DO radio access network, and the cdma2000
//! cell and RLP link to come.
//!
//! A hop is a state machine driven only by time and packets (sans I/O, like
//! the TCP endpoints and like quinn-proto): the world offers it packets,
//! polls what it has to hand on, asks for its next deadline and calls it
//! back then. Nothing inside reads a clock or schedules an event, so the
//! simulator and a real-time emulator can drive the same code.
//!
//! A hop has one entry node and one or more exits, its *ports*: a link has
//! port 0 (its far end), a radio access network one port per user.

use super::{DropReason, Packet};
use crate::engine::Time;

/// An exit of a hop (a link: 0; a radio access network: the user's index).
pub type Port = u32;

/// What a hop hands back to the world.
#[derive(Clone, Copy, Debug)]
pub enum HopEvent {
    /// The packet reached the node behind `port`: forward it from there.
    Deliver { port: Port, pkt: Packet },
    /// The hop dropped the packet for `reason`.
    Drop { port: Port, pkt: Packet, reason: DropReason },
    /// The packet's transmission started (reported only by hops that are
    /// tapped for a capture: tcpdump stamps outgoing packets then).
    Transmit { port: Port, pkt: Packet },
}

pub trait Hop {
    /// A packet for `port` enters the hop at `now`.
    fn offer(&mut self, now: Time, port: Port, pkt: Packet);

    /// The next thing the hop hands on, oldest first.
    fn poll(&mut self) -> Option<HopEvent>;

    /// When the hop next needs `on_timer` (None: nothing pending). Calling
    /// it earlier is harmless: nothing that is not due happens.
    fn deadline(&self) -> Option<Time>;

    /// Do everything due at or before `now`.
    fn on_timer(&mut self, now: Time);

    /// Packets inside the hop: queued, in service or in propagation.
    fn packets_inside(&self) -> u64;

    /// Close the time-integrated statistics at the end of the run.
    fn finish(&mut self, now: Time);
}
