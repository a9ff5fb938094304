//! The world's hops: one enum over the kinds, dispatched by `match` (no
//! virtual call on the per-packet path; measured on the dumbbell benchmark).

use crate::cdma2000::cell::Cell;
use crate::engine::Time;
use crate::evdo::ran::EvdoRan;
use crate::is2000::sector::Is2000Sector;
use crate::rlp::link::RlpLink;
use crate::net::{Hop, HopEvent, Link, Packet, Port};

pub enum AnyHop {
    Link(Link),
    Evdo(Box<EvdoRan>),
    Cell(Box<Cell>),
    Rlp(Box<RlpLink>),
    Is2000(Box<Is2000Sector>),
}

macro_rules! each {
    ($self:expr, $h:ident => $e:expr) => {
        match $self {
            AnyHop::Link($h) => $e,
            AnyHop::Evdo($h) => $e,
            AnyHop::Cell($h) => $e,
            AnyHop::Rlp($h) => $e,
            AnyHop::Is2000($h) => $e,
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
            AnyHop::Rlp(r) => r.entry_node(0),
            AnyHop::Is2000(s) => s.node,
        }
    }

    /// The node behind `port`.
    #[inline]
    pub fn exit_node(&self, port: Port) -> u32 {
        match self {
            AnyHop::Link(l) => l.to,
            AnyHop::Evdo(r) => r.user_node(port),
            AnyHop::Cell(c) => c.user_node(port),
            AnyHop::Rlp(r) => r.user_node(port),
            AnyHop::Is2000(s) => s.user_node(port),
        }
    }

    /// The name a drop at `port` is reported under: the link, or the user's
    /// forward queue (`USER.down`).
    pub fn place(&self, port: Port) -> String {
        match self {
            AnyHop::Link(l) => l.name.clone(),
            AnyHop::Evdo(r) => r.queue_name(port),
            AnyHop::Cell(c) => c.place(port),
            AnyHop::Rlp(r) => r.place(port),
            AnyHop::Is2000(s) => s.place(port),
        }
    }

    pub fn drops_total(&self) -> u64 {
        match self {
            AnyHop::Link(l) => l.stats.queue.drops.iter().sum(),
            AnyHop::Evdo(r) => r.drops_total(),
            AnyHop::Cell(c) => c.drops_total(),
            AnyHop::Rlp(r) => r.drops_total(),
            AnyHop::Is2000(s) => s.drops_total(),
        }
    }

    pub fn as_link(&self) -> Option<&Link> {
        match self {
            AnyHop::Link(l) => Some(l),
            _ => None,
        }
    }
}

/// The radio hops, out of line: the point-to-point link is the hop of the
/// per-packet hot path (every wired hop of every scenario), so its arm is
/// the one inlined into the world's loop; a radio hop does slots, schedulers
/// and grants per call, beside which a call costs nothing.
macro_rules! radio {
    ($self:expr, $h:ident => $e:expr) => {
        match $self {
            AnyHop::Link(_) => unreachable!("links take the inlined arm"),
            AnyHop::Evdo($h) => $e,
            AnyHop::Cell($h) => $e,
            AnyHop::Rlp($h) => $e,
            AnyHop::Is2000($h) => $e,
        }
    };
}

impl AnyHop {
    #[inline(never)]
    fn radio_offer(&mut self, now: Time, port: Port, pkt: Packet) {
        radio!(self, h => h.offer(now, port, pkt))
    }
    #[inline(never)]
    fn radio_poll(&mut self) -> Option<HopEvent> {
        radio!(self, h => h.poll())
    }
    #[inline(never)]
    fn radio_deadline(&self) -> Option<Time> {
        radio!(self, h => h.deadline())
    }
    #[inline(never)]
    fn radio_on_timer(&mut self, now: Time) {
        radio!(self, h => h.on_timer(now))
    }
}

impl Hop for AnyHop {
    #[inline(always)]
    fn offer(&mut self, now: Time, port: Port, pkt: Packet) {
        match self {
            AnyHop::Link(l) => l.offer(now, port, pkt),
            _ => self.radio_offer(now, port, pkt),
        }
    }
    #[inline(always)]
    fn poll(&mut self) -> Option<HopEvent> {
        match self {
            AnyHop::Link(l) => l.poll(),
            _ => self.radio_poll(),
        }
    }
    #[inline(always)]
    fn deadline(&self) -> Option<Time> {
        match self {
            AnyHop::Link(l) => l.deadline(),
            _ => self.radio_deadline(),
        }
    }
    #[inline(always)]
    fn on_timer(&mut self, now: Time) {
        match self {
            AnyHop::Link(l) => l.on_timer(now),
            _ => self.radio_on_timer(now),
        }
    }
    fn packets_inside(&self) -> u64 {
        each!(self, h => h.packets_inside())
    }
    fn finish(&mut self, now: Time) {
        each!(self, h => h.finish(now))
    }
}
