//! The packet network: a scenario's hops (`kinds`: every kind listed once)
//! and routes, and the one loop that moves packets through them. The
//! simulator's world and the emulator's relay both drive a `Network`; what
//! lies at its edge (the simulator's endpoints and event queue, the
//! emulator's devices and clock) implements `Endpoints` and is handed in
//! with every call, so the network never owns what it reports to.
//!
//! An endpoint sends a packet with `send`, which keeps its header in the
//! network's store (`net::Headers`) until the packet leaves: the hops pass
//! only the small `Packet` (docs/packet.md), and the header is copied out
//! to the endpoint the packet reaches or the one told of its drop.
//!
//! A packet at a node for another node enters the hop the router names, at
//! the port the router names; whatever the hop hands on at once (a drop on
//! a full queue) is handled before the call returns, and a delivery is
//! forwarded on from the node behind the port, depth first, until the
//! packet rests in a hop, reaches its destination or is dropped. After
//! every offer and every timer the hop's deadline is re-armed: the network
//! asks its endpoints for a wake-up only when the deadline moved earlier
//! than the one pending (lazy, like the TCP timers).

pub mod kinds;

pub use kinds::{hop_tables, AnyHop, HopRows, HopSpec};

use crate::net::NodeId;
use crate::engine::Time;
use crate::net::hop::{BuildContext, BuildError, Ends, Samples};
use crate::net::routing::Routes;
use crate::net::{Body, DropReason, Headers, Hop, HopEvent, Packet, Port};
use crate::result::Rows;

/// Where a packet was dropped: at a hop's port, or at a node (that has no
/// route for it, or whose stack discarded it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropAt {
    Hop { hop: u32, port: Port },
    Node(NodeId),
}

/// One dropped packet, with its header (out of the network's store).
#[derive(Clone, Copy, Debug)]
pub struct DropRecord {
    pub t: Time,
    pub at: DropAt,
    pub reason: DropReason,
    pub pkt: Packet,
    pub header: Body,
}

/// What lies at the network's edge and hears from it.
pub trait Endpoints {
    /// `pkt`, with its header, reached its destination node at `now`. The
    /// endpoints may send on through `net` from here (an ACK, a response).
    fn arrive(&mut self, net: &mut Network, now: Time, pkt: &Packet, header: &Body);

    /// A packet left the network by a drop.
    fn dropped(&mut self, net: &mut Network, d: DropRecord);

    /// Whether a segment whose header was rebuilt wrong (`Packet::corrupt`)
    /// is dropped at its destination as a checksum failure. The simulated
    /// stacks check here; a real one (the emulator's) gets the bytes and
    /// checks them itself.
    fn checks_checksums(&self) -> bool {
        true
    }

    /// Hop `h` took `pkt` at `port`, started its transmission (a tapped
    /// hop: `Hop::tap`) or handed it on: `how`, for captures. `header`:
    /// the header as sent, where it differs from the one in the network's
    /// store (`Network::header`), which is fetched only if needed.
    fn seen(&mut self, _net: &Network, _now: Time, _h: u32, _port: Port, _pkt: &Packet, _header: Option<&Body>, _how: Seen) {}

    /// Call `Network::on_hop_timer(at, h)` at `at` (asked only when hop
    /// `h`'s deadline moved earlier than the wake-up pending).
    fn wake(&mut self, h: u32, at: Time);
}

/// Where a capture may see a packet at a hop's port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    /// Offered to the hop, before its queue (every hop).
    Offered,
    /// Its transmission started (a tapped hop only: `Hop::tap`).
    Sent,
    /// Handed on at the far end.
    Arrived,
}

pub struct Network {
    /// The hops, in the scenario's order: hop i is built from `HopSpec` i.
    pub hops: Vec<AnyHop>,
    routes: Routes,
    /// Each hop's earliest wake-up asked for (Time::MAX: none).
    armed: Vec<Time>,
    /// The headers of the packets inside.
    headers: Headers,
}

impl Network {
    /// Build every hop of `specs` and take the routes. Each built hop says
    /// the same ports its spec gave the router (checked: the router's
    /// edges and the hops come from the one list).
    pub fn new(specs: &[HopSpec], routes: Routes, cx: &BuildContext) -> Result<Network, BuildError> {
        let hops = specs.iter().map(|s| s.build(cx)).collect::<Result<Vec<_>, _>>()?;
        for (h, s) in hops.iter().zip(specs) {
            let ends: Vec<Ends> = (0..h.ports()).map(|p| h.ends(p)).collect();
            assert_eq!(ends, s.config().ports(), "a hop's ports differ from its spec's");
        }
        Ok(Network { armed: vec![Time::MAX; hops.len()], hops, routes, headers: Headers::default() })
    }

    /// Ask for every hop's first wake-up, in hop order.
    pub fn start<E: Endpoints>(&mut self, e: &mut E) {
        for h in 0..self.hops.len() as u32 {
            self.arm(h, e);
        }
    }

    /// An endpoint at `node` sends `pkt` with its header at `now`.
    #[inline]
    pub fn send<E: Endpoints>(&mut self, now: Time, node: NodeId, mut pkt: Packet, header: Body, e: &mut E) {
        pkt.hdr = self.headers.put(header);
        self.forward(now, node, &pkt, e);
    }

    /// A packet is at `node` at `now` (sent from there, or handed on to it
    /// by a hop): deliver it, or put it into the hop towards its
    /// destination.
    #[inline]
    fn forward<E: Endpoints>(&mut self, now: Time, node: NodeId, pkt: &Packet, e: &mut E) {
        if node == pkt.dst {
            if pkt.corrupt && e.checks_checksums() {
                // The destination's stack checks the TCP checksum first.
                return self.drop_at(now, DropAt::Node(node), DropReason::ChecksumFailure, *pkt, e);
            }
            let header = self.headers.take(pkt.hdr);
            e.arrive(self, now, pkt, &header);
            return;
        }
        let Some(edge) = self.routes.next(node, pkt.dst) else {
            self.drop_at(now, DropAt::Node(node), DropReason::NoRoute, *pkt, e);
            return;
        };
        let (h, port) = (edge.hop, edge.port);
        e.seen(self, now, h, port, pkt, None, Seen::Offered);
        self.hops[h as usize].offer(now, port, *pkt, &mut self.headers);
        self.drain(now, h, e);
    }

    /// `pkt` leaves the network by a drop: its endpoints hear of it, with
    /// the header out of the store.
    fn drop_at<E: Endpoints>(&mut self, now: Time, at: DropAt, reason: DropReason, pkt: Packet, e: &mut E) {
        let header = self.headers.take(pkt.hdr);
        e.dropped(self, DropRecord { t: now, at, reason, pkt, header });
    }

    /// Hop `h`'s wake-up at `now` has come.
    pub fn on_hop_timer<E: Endpoints>(&mut self, now: Time, h: u32, e: &mut E) {
        if self.armed[h as usize] == now {
            self.armed[h as usize] = Time::MAX;
        }
        self.run_hop(now, h, e);
    }

    /// Run hop `h`'s timer at `now` and hand on what it has.
    #[inline(always)]
    fn run_hop<E: Endpoints>(&mut self, now: Time, h: u32, e: &mut E) {
        self.hops[h as usize].on_timer(now, &mut self.headers);
        self.drain(now, h, e);
    }

    /// Wake the hops that run their idle time only when woken (`Hop::lazy`),
    /// so that what they sample at `now` is current.
    pub fn wake_lazy<E: Endpoints>(&mut self, now: Time, e: &mut E) {
        for h in 0..self.hops.len() as u32 {
            if self.hops[h as usize].lazy() {
                self.on_hop_timer(now, h, e);
            }
        }
    }

    /// For a driver without an event queue (the emulator): run every hop
    /// whose deadline has come by `now`, telling `late` how late each was.
    pub fn run_due<E: Endpoints>(&mut self, now: Time, e: &mut E, late: &mut dyn FnMut(Time)) {
        for h in 0..self.hops.len() as u32 {
            if let Some(d) = self.hops[h as usize].deadline().filter(|&d| d <= now) {
                late(now - d);
                self.armed[h as usize] = Time::MAX;
                self.run_hop(now, h, e);
            }
        }
    }

    /// The earliest deadline of any hop.
    pub fn next_deadline(&self) -> Option<Time> {
        self.hops.iter().filter_map(|h| h.deadline()).min()
    }

    /// Hand on what hop `h` has, then re-arm its wake-up. Small and inlined
    /// into its two callers (after an offer, after a timer): usually the hop
    /// has nothing to hand on, and this is one poll, one deadline and one
    /// comparison; the handing on is out of line.
    #[inline(always)]
    fn drain<E: Endpoints>(&mut self, now: Time, h: u32, e: &mut E) {
        while let Some(ev) = self.hops[h as usize].poll() {
            self.hand_on(now, h, ev, e);
        }
        self.arm(h, e);
    }

    #[inline(always)]
    fn arm<E: Endpoints>(&mut self, h: u32, e: &mut E) {
        if let Some(d) = self.hops[h as usize].deadline() {
            let armed = &mut self.armed[h as usize];
            if d < *armed {
                *armed = d;
                e.wake(h, d);
            }
        }
    }

    /// One thing hop `h` handed on: forward a delivery from the node behind
    /// its port, report a drop or a transmission.
    #[inline(never)]
    fn hand_on<E: Endpoints>(&mut self, now: Time, h: u32, ev: HopEvent, e: &mut E) {
        match ev {
            HopEvent::Deliver { port, pkt } => {
                e.seen(self, now, h, port, &pkt, None, Seen::Arrived);
                let node = self.hops[h as usize].ends(port).to;
                self.forward(now, node, &pkt, e);
            }
            HopEvent::Drop { port, pkt, reason } => self.drop_at(now, DropAt::Hop { hop: h, port }, reason, pkt, e),
            HopEvent::Transmit { port, pkt, header } => e.seen(self, now, h, port, &pkt, Some(&header), Seen::Sent),
        }
    }

    /// The name a drop is reported under: the hop's place, or `node:N`.
    pub fn place(&self, at: DropAt) -> String {
        match at {
            DropAt::Hop { hop, port } => self.hops[hop as usize].place(port),
            DropAt::Node(node) => format!("node:{node}"),
        }
    }

    /// Bring every hop up to `now` outside the loop (the emulator's last
    /// step: a sleeping sector runs its idle slots); whatever they hand on
    /// is left in them.
    pub fn timers_at_end(&mut self, now: Time) {
        for h in &mut self.hops {
            h.on_timer(now, &mut self.headers);
        }
    }

    /// Close every hop's statistics at `now` (the end of the run). What a
    /// hop hands on from here is never polled, and its headers stay held.
    pub fn finish(&mut self, now: Time) {
        for h in &mut self.hops {
            h.finish(now, &mut self.headers);
        }
    }

    /// Packets the hops dropped.
    pub fn drops(&self) -> u64 {
        self.hops.iter().map(|h| h.drops()).sum()
    }

    /// Packets inside the hops.
    pub fn packets_inside(&self) -> u64 {
        self.hops.iter().map(|h| h.packets_inside()).sum()
    }

    /// The header of a packet inside the network.
    pub fn header(&self, pkt: &Packet) -> &Body {
        self.headers.get(pkt.hdr)
    }

    /// Headers held in the store: one per packet sent and not yet gone.
    /// Between events (every hop drained) it equals `packets_inside`.
    pub fn headers_held(&self) -> u64 {
        self.headers.held()
    }

    /// Every hop's sampled quantities, in hop order.
    pub fn sample(&self, out: &mut impl Samples) {
        for h in &self.hops {
            h.sample(out);
        }
    }

    /// Every hop's rows of the result tables, in hop order.
    pub fn report(&self, horizon: Time) -> HopRows {
        let mut rows = Rows::default();
        for h in &self.hops {
            h.report(horizon, &mut rows);
        }
        HopRows::take(&mut rows)
    }
}
