//! The world's hops: one enum over the kinds, dispatched by `match` (no
//! virtual call on the per-packet path; measured on the dumbbell benchmark).

use crate::cdma2000::cell::Cell;
use crate::engine::Time;
use crate::evdo::ran::EvdoRan;
use crate::net::{Hop, HopEvent, Link, Packet, Port};

pub enum AnyHop {
    Link(Link),
    Evdo(Box<EvdoRan>),
    Cell(Box<Cell>),
}

macro_rules! each {
    ($self:expr, $h:ident => $e:expr) => {
        match $self {
            AnyHop::Link($h) => $e,
            AnyHop::Evdo($h) => $e,
            AnyHop::Cell($h) => $e,
        }
    };
}

impl AnyHop {
    /// The node packets enter by.
    pub fn entry_node(&self) -> u32 {
        match self {
            AnyHop::Link(l) => l.from,
            AnyHop::Evdo(r) => r.node,
            AnyHop::Cell(c) => c.node,
        }
    }

    /// The node behind `port`.
    #[inline]
    pub fn exit_node(&self, port: Port) -> u32 {
        match self {
            AnyHop::Link(l) => l.to,
            AnyHop::Evdo(r) => r.user_node(port),
            AnyHop::Cell(c) => c.user_node(port),
        }
    }

    /// The name a drop at `port` is reported under: the link, or the user's
    /// forward queue (`USER.down`).
    pub fn place(&self, port: Port) -> String {
        match self {
            AnyHop::Link(l) => l.name.clone(),
            AnyHop::Evdo(r) => r.queue_name(port),
            AnyHop::Cell(c) => c.place(port),
        }
    }

    pub fn drops_total(&self) -> u64 {
        match self {
            AnyHop::Link(l) => l.stats.queue.drops.iter().sum(),
            AnyHop::Evdo(r) => r.drops_total(),
            AnyHop::Cell(c) => c.drops_total(),
        }
    }

    pub fn as_link(&self) -> Option<&Link> {
        match self {
            AnyHop::Link(l) => Some(l),
            _ => None,
        }
    }
}

impl Hop for AnyHop {
    #[inline]
    fn offer(&mut self, now: Time, port: Port, pkt: Packet) {
        each!(self, h => h.offer(now, port, pkt))
    }
    #[inline]
    fn poll(&mut self) -> Option<HopEvent> {
        each!(self, h => h.poll())
    }
    #[inline]
    fn deadline(&self) -> Option<Time> {
        each!(self, h => h.deadline())
    }
    #[inline]
    fn on_timer(&mut self, now: Time) {
        each!(self, h => h.on_timer(now))
    }
    fn packets_inside(&self) -> u64 {
        each!(self, h => h.packets_inside())
    }
    fn finish(&mut self, now: Time) {
        each!(self, h => h.finish(now))
    }
}
