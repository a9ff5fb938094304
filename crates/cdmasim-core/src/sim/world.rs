//! The world: the network (hops and routes) and the hosts at its edge
//! (flows in a flat arena addressed by index, the event queue that drives
//! them, the captures and the drop log). Events are small Copy values
//! carrying indices; endpoint timers are lazy (an event fires at the
//! earliest armed deadline and the endpoint decides whether anything is
//! due), so re-arming a timer costs nothing and cancelling is free.
//!
//! The network calls the hosts back (`Endpoints`) when a packet arrives or
//! is dropped and when a hop wants waking; the hosts send through the
//! network they are handed. Each scenario flow's application (`apps/`)
//! hears of its flow's start, stop and timers, and of the segments of the
//! connections it opened, and reaches the transport through `Sockets`.

use crate::net::NodeId;
use super::apps::{App, HalfTotals, OfApp, Owner, Sockets};
use super::drop_log::DropLog;
use super::flows::{Counters, Flow, TcpFlow, Transport};
use super::sampler::Sampler;
use super::series_spool::SeriesSpool;
use crate::engine::{EventQueue, Slow, Time};
use crate::net::packet::{Body, Packet, TcpHeader};
use crate::net::{DropReason, Hop, Port};
use crate::network::{DropAt, DropRecord, Endpoints, Network, Seen};
use crate::pcap::write::PcapWriter;
use crate::scenario::TcpSpec;
use crate::tcp::rwnd;
use crate::tcp::{cc, TcpReceiver, TcpSender};

#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// A hop's deadline (lazy, like the endpoints' timers: the hop does
    /// whatever is due, possibly nothing).
    HopTimer { hop: u32 },
    FlowStart { flow: u32 },
    FlowStop { flow: u32 },
    /// An endpoint deadline (side 0: sender, 1: receiver).
    Timer { flow: u32, side: u8 },
    /// A time a flow's application asked for (`Sockets::wake_at`).
    AppTimer { flow: u32 },
    Sample,
}

/// A hop's wake-up and an application's timer come soon and are not pushed
/// back (a CBR flow's next datagram, scheduled by the one before it, takes
/// the queue's held front; a browsing user's think timer is one per user);
/// the endpoints' timers (mostly retransmission timers, pushed back by every
/// ACK), starts, stops and samples wait in the event queue's slow heap.
impl Slow for Event {
    #[inline]
    fn slow(&self) -> bool {
        !matches!(self, Event::HopTimer { .. } | Event::AppTimer { .. })
    }
}

/// A capture on the interface of `node` towards one neighbour: outgoing
/// packets are written when their transmission starts, incoming ones when
/// they have arrived, as tcpdump on that host would see them.
pub struct Capture {
    pub writer: PcapWriter<crate::files::Output>,
    pub node: NodeId,
    /// The first write that failed (a full disk): the capture is then not
    /// put in place, and the run says why.
    pub error: Option<std::io::Error>,
}

pub struct World {
    pub net: Network,
    pub hosts: Hosts,
}

/// Everything at the network's edge.
pub struct Hosts {
    pub q: EventQueue<Event>,
    pub horizon: Time,
    /// The scenario's flows first (`spec_flows` of them), then the halves
    /// of the connections applications open, made and freed at run time.
    pub flows: Vec<Flow>,
    /// Each scenario flow's application (flow i's is `apps[i]`).
    pub apps: Vec<App>,
    pub spec_flows: usize,
    pub free_flows: Vec<u32>,
    pub counters: Counters,
    pub drop_log: DropLog,
    /// Finished web pages and their objects (`web_log`).
    pub web_log: super::web_log::WebLog,
    pub pcaps: Vec<Capture>,
    /// Capture of each hop's ports (index into `pcaps`, u32::MAX: none):
    /// hop h's port p at `pcap_of_port[pcap_base[h] + p]`.
    pub pcap_of_port: Vec<u32>,
    pub pcap_base: Vec<u32>,
    /// Per hop: captured as packets are offered to it, as tcpdump on the
    /// sending node sees them, because it does not report when their
    /// transmissions start (`Hop::tap`).
    pub pcap_at_offer: Vec<bool>,
    /// Sampled series: (time, value) per (metric, subject) slot.
    pub samples: Sampler,
    /// Where series go when they stream (RunOptions::series_spool).
    pub spool: Option<SeriesSpool>,
}

impl World {
    /// Inlined into the run's loop for the hops' wake-ups (most events);
    /// the other kinds go out of line.
    #[inline(always)]
    pub fn handle(&mut self, now: Time, ev: Event) {
        match ev {
            Event::HopTimer { hop } => self.net.on_hop_timer(now, hop, &mut self.hosts),
            _ => self.handle_other(now, ev),
        }
    }

    #[inline(never)]
    fn handle_other(&mut self, now: Time, ev: Event) {
        let (net, hosts) = (&mut self.net, &mut self.hosts);
        match ev {
            Event::HopTimer { hop } => net.on_hop_timer(now, hop, hosts),
            Event::FlowStart { flow } => hosts.on_flow_start(net, now, flow),
            Event::FlowStop { flow } => hosts.on_flow_stop(net, now, flow),
            Event::Timer { flow, side } => hosts.on_timer(net, now, flow, side),
            Event::AppTimer { flow } => {
                let kind = hosts.apps[flow as usize].kind();
                kind.on_timer(&mut Stack { hosts, net }, now, flow);
            }
            Event::Sample => {
                net.wake_lazy(now, hosts);
                hosts.samples.sample(now, net, &hosts.flows, &hosts.apps, hosts.spool.as_mut());
                if let Some(i) = hosts.samples.interval {
                    hosts.q.schedule(now + i, Event::Sample);
                }
            }
        }
    }

    /// Packets dropped anywhere.
    pub fn drops_total(&self) -> u64 {
        self.net.drops() + self.hosts.counters.node_drops
    }

    pub fn in_network(&self) -> u64 {
        self.net.packets_inside()
    }
}

impl Hosts {
    /// Move the scenario flows' per-event series to the spool, when
    /// series stream; `end`: everything (else what an endpoint still
    /// compares the next point with stays).
    pub fn drain_series(&mut self, end: bool) {
        let Some(spool) = self.spool.as_mut() else { return };
        for (f, app) in self.flows[..self.spec_flows].iter_mut().zip(self.apps.iter_mut()) {
            app.drain_series(f, spool, end);
        }
    }
}

impl Endpoints for Hosts {
    fn arrive(&mut self, net: &mut Network, now: Time, pkt: &Packet, header: &Body) {
        self.deliver(net, now, pkt, header);
    }

    /// Off the per-packet path: kept out of the network's loop.
    #[inline(never)]
    fn dropped(&mut self, net: &mut Network, d: DropRecord) {
        if let DropAt::Node(_) = d.at {
            self.counters.node_drops += 1;
        }
        if d.reason == DropReason::ChecksumFailure {
            let fi = self.scenario_flow(&d.pkt);
            self.flows[fi as usize].checksum_failures += 1;
        }
        self.log_drop(net, d);
        self.gone(net, &d.pkt, &d.header);
    }

    /// Without captures (the usual run) one comparison.
    #[inline(always)]
    fn seen(&mut self, net: &Network, now: Time, h: u32, port: Port, pkt: &Packet, header: Option<&Body>, how: Seen) {
        if !self.pcaps.is_empty() && self.captures(net, h, port, how) {
            self.capture(now, h, port, pkt, header.unwrap_or_else(|| net.header(pkt)));
        }
    }

    #[inline]
    fn wake(&mut self, h: u32, at: Time) {
        self.q.schedule(at, Event::HopTimer { hop: h });
    }
}

impl Hosts {
    /// The scenario's flow a packet belongs to: an application's
    /// connection half belongs to that application's flow (the half's slot
    /// may be reused by the end of the run).
    fn scenario_flow(&self, pkt: &Packet) -> u32 {
        match &self.flows[pkt.flow as usize].transport {
            Transport::Tcp(t) => t.owner.map_or(pkt.flow, |o| o.app),
            _ => pkt.flow,
        }
    }

    /// Log a drop under the scenario's flow.
    fn log_drop(&mut self, net: &Network, mut d: DropRecord) {
        d.pkt.flow = self.scenario_flow(&d.pkt);
        let flows = &self.flows;
        self.drop_log.push(d, || net.place(d.at), || flows[d.pkt.flow as usize].name.clone());
    }

    /// A packet left the network by a drop: its flow has one fewer inside;
    /// an application's connection hears of it.
    fn gone(&mut self, net: &mut Network, pkt: &Packet, header: &Body) {
        let f = &mut self.flows[pkt.flow as usize];
        f.inflight -= 1;
        if f.retired {
            self.free_if_done(pkt.flow);
        } else if let Transport::Tcp(t) = &f.transport {
            if let Some(o) = t.owner {
                let kind = self.apps[o.app as usize].kind();
                kind.half_dropped(&mut Stack { hosts: self, net }, o, header);
            }
        }
    }

    fn deliver(&mut self, net: &mut Network, now: Time, pkt: &Packet, header: &Body) {
        self.counters.delivered += 1;
        let fi = pkt.flow;
        let f = &mut self.flows[fi as usize];
        f.inflight -= 1;
        match (&mut f.transport, header) {
            (Transport::Tcp(t), Body::Tcp(h)) => {
                if let Some(o) = t.owner {
                    return self.deliver_to_connection(net, now, o, pkt, h);
                }
                t.on_packet(now, pkt, h);
                self.pump(net, now, fi);
            }
            (Transport::Udp, &Body::Udp { len, .. }) => self.apps[fi as usize].on_datagram(now, pkt.created, len),
            _ => unreachable!("packet body does not match its flow"),
        }
    }

    /// A packet of an application's connection half (out of line: the
    /// bulk path above stays short).
    #[inline(never)]
    fn deliver_to_connection(&mut self, net: &mut Network, now: Time, o: Owner, pkt: &Packet, h: &TcpHeader) {
        let fi = pkt.flow;
        if self.flows[fi as usize].retired {
            // A late packet of a closed connection.
            return self.free_if_done(fi);
        }
        let kind = self.apps[o.app as usize].kind();
        if kind.takes_segment(&mut Stack { hosts: self, net }, now, o, fi, pkt.forward, h) {
            return;
        }
        self.tcp(fi).on_packet(now, pkt, h);
        self.pump(net, now, fi);
        kind.on_half(&mut Stack { hosts: self, net }, now, o);
    }

    /// Send whatever a TCP flow's endpoints have to send, then re-arm their timers.
    fn pump(&mut self, net: &mut Network, now: Time, fi: u32) {
        let (from, to) = (self.flows[fi as usize].from, self.flows[fi as usize].to);
        // One segment at a time, without a buffer: forwarding only puts the
        // packet on a link, so the endpoints are polled again unchanged.
        loop {
            let Transport::Tcp(t) = &mut self.flows[fi as usize].transport else { return };
            let ((pkt, header), node) = if let Some(h) = t.sender.poll(now) {
                (Packet::tcp(self.counters.created, fi, true, from, to, now, h), from)
            } else if let Some(h) = t.receiver.poll(now) {
                (Packet::tcp(self.counters.created, fi, false, to, from, now, h), to)
            } else {
                break;
            };
            self.counters.created += 1;
            let f = &mut self.flows[fi as usize];
            f.packets_sent += 1;
            f.inflight += 1;
            net.send(now, node, pkt, header, self);
        }
        let Transport::Tcp(t) = &mut self.flows[fi as usize].transport else { return };
        let deadlines = [t.sender.deadline(), t.receiver.deadline()];
        for (side, d) in deadlines.into_iter().enumerate() {
            if let Some(d) = d {
                if t.armed[side].is_none_or(|a| d < a) {
                    t.armed[side] = Some(d);
                    self.q.schedule(d, Event::Timer { flow: fi, side: side as u8 });
                }
            }
        }
    }

    fn on_timer(&mut self, net: &mut Network, now: Time, fi: u32, side: u8) {
        let Transport::Tcp(t) = &mut self.flows[fi as usize].transport else { return };
        if t.armed[side as usize] == Some(now) {
            t.armed[side as usize] = None;
        }
        if side == 0 {
            t.sender.on_timer(now);
        } else {
            t.receiver.on_timer(now);
        }
        let owner = t.owner;
        self.pump(net, now, fi);
        if let Some(o) = owner {
            let kind = self.apps[o.app as usize].kind();
            kind.on_half(&mut Stack { hosts: self, net }, now, o);
        }
    }

    /// Whether hop `h`'s capture sees this packet: as it leaves the
    /// capturing node (when its transmission starts, or as it is offered
    /// to a hop that does not say when that is) or as it arrives there.
    #[inline(never)]
    fn captures(&self, net: &Network, h: u32, port: Port, how: Seen) -> bool {
        let Some(c) = self.capture_of(h, port) else { return false };
        let ends = net.hops[h as usize].ends(port);
        let at = match how {
            Seen::Arrived => ends.to,
            Seen::Sent => ends.from,
            Seen::Offered if self.pcap_at_offer[h as usize] => ends.from,
            Seen::Offered => return false,
        };
        self.pcaps[c as usize].node == at
    }

    /// The capture of hop `h`'s port, if it has one.
    fn capture_of(&self, h: u32, port: Port) -> Option<u32> {
        let base = *self.pcap_base.get(h as usize)?;
        Some(self.pcap_of_port[(base + port) as usize]).filter(|&c| c != u32::MAX)
    }

    #[inline(never)]
    fn capture(&mut self, now: Time, h: u32, port: Port, pkt: &Packet, header: &Body) {
        let wscale = match &self.flows[pkt.flow as usize].transport {
            Transport::Tcp(t) if !pkt.forward => t.rcv_wscale,
            _ => 0,
        };
        // A failed capture write must not change the simulation; the error
        // surfaces when the capture would be put in place, at the end.
        let i = self.capture_of(h, port).expect("a captured port") as usize;
        let c = &mut self.pcaps[i];
        if let Err(e) = c.writer.write(now, pkt, header, wscale) {
            c.error.get_or_insert(e);
        }
    }

    fn on_flow_start(&mut self, net: &mut Network, now: Time, fi: u32) {
        let kind = self.apps[fi as usize].kind();
        kind.start(&mut Stack { hosts: self, net }, now, fi);
    }

    fn on_flow_stop(&mut self, net: &mut Network, now: Time, fi: u32) {
        let kind = self.apps[fi as usize].kind();
        kind.stop(&mut Stack { hosts: self, net }, now, fi);
    }

    fn tcp_ref(&self, fi: u32) -> &TcpFlow {
        match &self.flows[fi as usize].transport {
            Transport::Tcp(t) => t,
            _ => unreachable!("flow {fi} is not a TCP half"),
        }
    }

    fn tcp(&mut self, fi: u32) -> &mut TcpFlow {
        match &mut self.flows[fi as usize].transport {
            Transport::Tcp(t) => t,
            _ => unreachable!("flow {fi} is not a TCP half"),
        }
    }

    /// A flow slot from the free list, or a new one.
    fn alloc_flow(&mut self, f: Flow) -> u32 {
        match self.free_flows.pop() {
            Some(i) => {
                self.flows[i as usize] = f;
                i
            }
            None => {
                self.flows.push(f);
                (self.flows.len() - 1) as u32
            }
        }
    }

    /// A retired half with nothing left in the network returns to the free list.
    fn free_if_done(&mut self, fi: u32) {
        let f = &mut self.flows[fi as usize];
        if f.retired && f.inflight == 0 {
            f.transport = Transport::Free;
            f.retired = false;
            self.free_flows.push(fi);
        }
    }
}

/// The hosts with the network they send through: what an application's
/// `Sockets` are.
struct Stack<'a> {
    hosts: &'a mut Hosts,
    net: &'a mut Network,
}

impl Sockets for Stack<'_> {
    #[inline]
    fn app<A: OfApp>(&mut self, me: u32) -> &mut A {
        A::of(&mut self.hosts.apps[me as usize]).unwrap_or_else(|| unreachable!("flow {me}'s application is of another kind"))
    }

    fn endpoints(&self, me: u32) -> (NodeId, NodeId) {
        let f = &self.hosts.flows[me as usize];
        (f.from, f.to)
    }

    fn name(&self, flow: u32) -> String {
        self.hosts.flows[flow as usize].name.clone()
    }

    fn page_done(&mut self, me: u32, page: crate::app::http::FinishedPage) {
        let hosts = &mut *self.hosts;
        hosts.web_log.push(me, &hosts.flows[me as usize].name, &page);
    }

    fn open(&mut self, now: Time, owner: Owner, name: String, from: NodeId, to: NodeId, tcp: &TcpSpec, bytes: u64, handshake: bool) -> u32 {
        let spec = TcpSpec { handshake, ..tcp.clone() };
        let sender = TcpSender::new(spec.clone(), cc::by_name(spec.cc), Some(bytes));
        let receiver = TcpReceiver::new(spec.clone(), rwnd::by_spec(spec.rwnd, spec.mss));
        let mut t = TcpFlow::new(sender, receiver, spec.rcv_buffer, handshake);
        t.owner = Some(owner);
        self.hosts.alloc_flow(Flow::new(name, from, to, now, Transport::Tcp(Box::new(t))))
    }

    fn start(&mut self, now: Time, half: u32) {
        self.hosts.tcp(half).sender.start();
        self.hosts.pump(self.net, now, half);
    }

    fn write(&mut self, now: Time, half: u32, bytes: u64) {
        self.hosts.tcp(half).sender.write(bytes);
        self.hosts.pump(self.net, now, half);
    }

    fn stop_writing(&mut self, half: u32) {
        self.hosts.tcp(half).sender.stop();
    }

    fn delivered(&self, half: u32) -> u64 {
        self.hosts.tcp_ref(half).receiver.delivered
    }

    fn all_acked(&self, half: u32) -> bool {
        self.hosts.tcp_ref(half).sender.all_acked()
    }

    fn send_control(&mut self, now: Time, half: u32, forward: bool, flags: u8) {
        let h = &mut *self.hosts;
        let f = &h.flows[half as usize];
        let (src, dst) = if forward { (f.from, f.to) } else { (f.to, f.from) };
        let header = TcpHeader { flags: crate::net::packet::TcpFlags(flags), ..Default::default() };
        let uid = h.counters.created;
        h.counters.created += 1;
        let f = &mut h.flows[half as usize];
        f.packets_sent += 1;
        f.inflight += 1;
        let (pkt, header) = Packet::tcp(uid, half, forward, src, dst, now, header);
        self.net.send(now, src, pkt, header, h);
    }

    fn close(&mut self, half: u32) -> HalfTotals {
        let f = &mut self.hosts.flows[half as usize];
        f.retired = true;
        let Transport::Tcp(t) = &f.transport else { unreachable!("flow {half} is not a TCP half") };
        let s = &t.sender.stats;
        let totals = HalfTotals {
            segments_sent: s.segments_sent,
            retransmits: s.retransmits,
            timeouts: s.timeouts,
            fast_recoveries: s.fast_recoveries,
            packets_sent: f.packets_sent,
            delivered: t.receiver.delivered,
        };
        self.hosts.free_if_done(half);
        totals
    }

    #[inline]
    fn send_datagram(&mut self, now: Time, me: u32, seq: u64, len: u32) {
        let h = &mut *self.hosts;
        let f = &mut h.flows[me as usize];
        f.packets_sent += 1;
        f.inflight += 1;
        let (from, to) = (f.from, f.to);
        let uid = h.counters.created;
        h.counters.created += 1;
        let (pkt, header) = Packet::udp(uid, me, from, to, now, seq, len);
        self.net.send(now, from, pkt, header, h);
    }

    #[inline]
    fn wake_at(&mut self, me: u32, at: Time) {
        self.hosts.q.schedule(at, Event::AppTimer { flow: me });
    }
}
