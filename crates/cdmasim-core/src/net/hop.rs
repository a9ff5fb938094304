//! The one interface every hop of the packet world implements: a
//! point-to-point link, a 1xEV-DO radio access network, a cdma2000 cell, an
//! RLP3 radio link and an IS-2000 sector.
//!
//! A hop is a state machine driven only by time and packets (sans I/O, like
//! the TCP endpoints and like quinn-proto): the network offers it packets,
//! polls what it has to hand on, asks for its next deadline and calls it
//! back then. Nothing inside reads a clock or schedules an event, so the
//! simulator and the real-time emulator drive the same code
//! (`network::Network`).
//!
//! A hop also says what it is: its *ports* (the ways through it, each from
//! one node to another: a link has one, a radio access network one per
//! user, an RLP link two, forward and reverse), the name a drop is reported
//! under, what it samples and the rows it adds to the result tables. The
//! simulator's sampler and collector, and the emulator's report, ask these
//! and never look inside a hop.

use super::{Body, DropReason, Headers, NodeId, Packet};
use crate::channel::ChannelError;
use crate::net::routing::TooManyRoutes;
use crate::engine::{RngStreams, Time};
use crate::result::Rows;

/// A way through a hop (a link: 0; a radio access network: the user's index).
pub type Port = u32;

/// The nodes a port joins: a packet offered for the port enters the hop at
/// `from` and is handed on at `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ends {
    pub from: NodeId,
    pub to: NodeId,
}

/// What a hop hands back to the network.
#[derive(Clone, Debug)]
pub enum HopEvent {
    /// The packet reached the node behind `port`: forward it from there.
    Deliver { port: Port, pkt: Packet },
    /// The hop dropped the packet for `reason`.
    Drop { port: Port, pkt: Packet, reason: DropReason },
    /// The packet's transmission started (reported only by hops that are
    /// tapped for a capture: tcpdump stamps outgoing packets then), with
    /// its header as sent: a decompressor may rewrite the one in the store
    /// before the event is handed on (docs/packet.md). Boxed, as captures
    /// are rare and every other event stays small.
    Transmit { port: Port, pkt: Packet, header: Box<Body> },
}

impl HopEvent {
    /// `pkt`'s transmission at `port` started, its header as it is in
    /// `headers` now (a copy: see `Transmit`).
    pub fn transmit(port: Port, pkt: Packet, headers: &Headers) -> HopEvent {
        HopEvent::Transmit { port, pkt, header: Box::new(*headers.get(pkt.hdr)) }
    }
}

/// Where a hop's sampled quantities go: (metric, the subject's name, asked
/// for only when the series is first named, value). A type parameter, not
/// a trait object, so that what the sampler does with a value is compiled
/// into each hop's loop (a Table II cell samples 400 series every 100 ms).
pub trait Samples: FnMut(&'static str, &dyn Fn() -> String, f64) {}

impl<F: FnMut(&'static str, &dyn Fn() -> String, f64)> Samples for F {}

/// The calls that may run PPP take the network's headers (`net::Headers`):
/// only PPP, on links and in the EV-DO RAN, reads or rewrites a header
/// inside a hop; a hop made of others passes them on.
pub trait Hop {
    /// A packet for `port` enters the hop at `now`.
    fn offer(&mut self, now: Time, port: Port, pkt: Packet, headers: &mut Headers);

    /// The next thing the hop hands on, oldest first.
    fn poll(&mut self) -> Option<HopEvent>;

    /// When the hop next needs `on_timer` (None: nothing pending). Calling
    /// it earlier is harmless: nothing that is not due happens.
    fn deadline(&self) -> Option<Time>;

    /// Do everything due at or before `now`.
    fn on_timer(&mut self, now: Time, headers: &mut Headers);

    /// How many ports it has: they are 0..ports().
    fn ports(&self) -> Port;

    /// The nodes port `port` joins.
    fn ends(&self, port: Port) -> Ends;

    /// The name a drop at `port` is reported under (a link's name, a
    /// user's base-station queue `USER.down`, ...).
    fn place(&self, port: Port) -> String;

    /// Packets it has dropped.
    fn drops(&self) -> u64;

    /// Packets inside the hop: queued, in service or in propagation.
    fn packets_inside(&self) -> u64;

    /// Its sampled quantities now, always in the same order and as many as
    /// its spec's `sampled_series` counts.
    fn sample(&self, out: &mut impl Samples);

    /// Its rows of the result tables, for a run that ended at `horizon`.
    fn report(&self, horizon: Time, rows: &mut Rows);

    /// Close the time-integrated statistics at the end of the run.
    fn finish(&mut self, now: Time, headers: &mut Headers);

    /// Whether it runs its idle time only when woken (a sleeping radio
    /// network): it is then woken before every sample, so that what it
    /// samples is current.
    fn lazy(&self) -> bool {
        false
    }

    /// Report transmissions (`HopEvent::Transmit`) from now on, for a
    /// capture; false if it cannot, and a capture then sees its packets as
    /// they are offered to it (as tcpdump on the sending node would, above
    /// the hop's buffer) and as it hands them on. A capture is per pair of
    /// nodes: each port joins one pair (a link's single port; a sector's
    /// port per user).
    fn tap(&mut self) -> bool {
        false
    }

    /// The port whose sending node takes the capture of `port`'s pair of
    /// nodes, and whose place names it: by default the first port of the
    /// pair (a link's; a radio link's forward one). A terminal's own
    /// reverse link names it after the terminal, where tcpdump ran.
    fn capture_port(&self, port: Port) -> Port {
        port
    }
}

/// What a hop kind's configuration (as the scenario holds it) says before
/// any hop is built: validation routes and bounds a run with these.
pub trait HopConfig {
    /// Its ports in order, as the router's edges (the built hop's `ends`
    /// give the same: `network::Network::build` checks).
    fn ports(&self) -> Vec<Ends>;

    /// How many series its hop samples at every tick (`Hop::sample`): the
    /// scenario bounds samples x series with this before the run.
    fn sampled_series(&self) -> u64;

    /// For a radio hop: the network-side node and, in order, the nodes of
    /// the terminals it serves (users, mobiles), where the emulator
    /// attaches its server and its users. None for a wired hop.
    fn terminals(&self) -> Option<(NodeId, Vec<NodeId>)> {
        None
    }
}

/// What building a hop may draw on: the run's random streams, its length
/// (lazily drawn rate steps stop there) and the number of nodes.
pub struct BuildContext<'a> {
    pub rng: &'a RngStreams,
    pub duration: Time,
    pub nodes: usize,
}

/// Why a hop could not be built from a validated configuration, naming
/// the part it was building (`link 'ab'`, `user 'u1'`): its channel could
/// not be opened (a trace file that went away or changed since the
/// scenario was read). The hop layer's error: the channel layer's below
/// it is its cause, the run's (`sim::RunError::Build`) holds it above.
#[derive(Debug)]
pub enum BuildError {
    Channel { of: String, error: ChannelError },
    /// The routing table is larger than the limit (a scenario the reader
    /// did not check).
    Routes(TooManyRoutes),
}

impl BuildError {
    /// The channel of `of` could not be opened.
    pub fn channel(of: String) -> impl FnOnce(ChannelError) -> BuildError {
        move |error| BuildError::Channel { of, error }
    }
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::Channel { of, error } => write!(f, "{of}: {error}"),
            BuildError::Routes(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for BuildError {}

/// A hop kind: the hop built from its configuration.
pub trait HopKind: Hop + Sized {
    type Config: HopConfig;
    fn build(cfg: &Self::Config, cx: &BuildContext) -> Result<Self, BuildError>;
}
