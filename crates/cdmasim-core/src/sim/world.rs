//! The world: links, routes and flows in flat arenas addressed by index,
//! driven by one event queue. Events are small Copy values carrying
//! indices; endpoint timers are lazy (an event fires at the earliest armed
//! deadline and the endpoint decides whether anything is due), so re-arming
//! a timer costs nothing and cancelling is free.

use super::delay::DelayStats;
use crate::app::{CbrSink, CbrSource};
use crate::engine::{EventQueue, Time};
use crate::net::packet::{Body, Packet};
use super::hops::AnyHop;
use super::web::{Owner, WebFlow};
use crate::net::routing::{Routes, NO_ROUTE};
use crate::net::{DropReason, Hop, HopEvent, Port};
use crate::pcap::write::PcapWriter;

use crate::tcp::receiver::wscale_for;
use crate::tcp::{TcpReceiver, TcpSender};
use std::fs::File;

#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// A hop's deadline (lazy, like the endpoints' timers: the hop does
    /// whatever is due, possibly nothing).
    HopTimer { hop: u32 },
    FlowStart { flow: u32 },
    FlowStop { flow: u32 },
    /// An endpoint deadline (side 0: sender, 1: receiver).
    Timer { flow: u32, side: u8 },
    CbrSend { flow: u32 },
    /// A web flow's think time may be over.
    AppTimer { flow: u32 },
    Sample,
}

/// A capture on the interface of `node` towards one neighbour: outgoing
/// packets are written when their transmission starts, incoming ones when
/// they have arrived, as tcpdump on that host would see them.
pub struct Capture {
    pub writer: PcapWriter<File>,
    pub node: u32,
}

/// The earliest pending `HopTimer` of each hop. Hop timers are lazy, like
/// the endpoints': a new event is scheduled only when a hop's deadline moves
/// earlier than the one pending, and an event that finds nothing due is a
/// no-op.
pub struct HopTimers {
    armed: Vec<Time>,
}

impl HopTimers {
    pub fn new(hops: usize) -> Self {
        HopTimers { armed: vec![Time::MAX; hops] }
    }

    /// Schedule a wake-up of hop `h` at `deadline` unless one is pending by then.
    #[inline]
    pub fn arm(&mut self, q: &mut EventQueue<Event>, h: u32, deadline: Option<Time>) {
        if let Some(d) = deadline {
            let armed = &mut self.armed[h as usize];
            if d < *armed {
                *armed = d;
                q.schedule(d, Event::HopTimer { hop: h });
            }
        }
    }

    /// Hop `h`'s timer fired at `now`: if it was the pending one, none is pending.
    #[inline]
    pub fn fired(&mut self, h: u32, now: Time) {
        if self.armed[h as usize] == now {
            self.armed[h as usize] = Time::MAX;
        }
    }
}

pub struct TcpFlow {
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    /// Earliest pending Timer event per side.
    armed: [Option<Time>; 2],
    /// Window-scale shift the receiver announced (for the pcap window field).
    pub rcv_wscale: u8,
    /// One-way delay of every data segment that reached the receiver.
    pub owd: DelayStats,
    /// The web connection this is a half of (None: a scenario's bulk flow).
    pub owner: Option<Owner>,
}

pub enum FlowKind {
    Tcp(Box<TcpFlow>),
    Cbr { source: CbrSource, sink: CbrSink },
    /// A browsing user; its connections' halves are `Tcp` flows made at run time.
    Web(Box<WebFlow>),
    /// A slot on the free list (a closed connection's half).
    Free,
}

pub struct Flow {
    pub name: String,
    pub from: u32,
    pub to: u32,
    pub start: Time,
    pub stop: Option<Time>,
    pub kind: FlowKind,
    pub packets_sent: u64,
    /// Its packets now in the network (a closed connection's slot is reused
    /// only once none is left, so no late packet reaches a new connection).
    pub inflight: u32,
    /// A closed connection's half waiting for `inflight` to reach 0.
    pub retired: bool,
}

impl Flow {
    pub fn new(name: String, from: u32, to: u32, start: Time, kind: FlowKind) -> Self {
        Flow { name, from, to, start, stop: None, kind, packets_sent: 0, inflight: 0, retired: false }
    }
}

/// One dropped packet.
#[derive(Clone, Copy, Debug)]
pub struct DropRecord {
    pub t: Time,
    /// Hop index and port, or hop NO_ROUTE for a drop at `node` for want of a route.
    pub hop: u32,
    pub port: Port,
    pub node: u32,
    pub reason: DropReason,
    pub pkt: Packet,
}

#[derive(Default)]
pub struct Counters {
    pub created: u64,
    pub delivered: u64,
    pub no_route: u64,
}

pub struct World {
    pub q: EventQueue<Event>,
    pub horizon: Time,
    /// Links first (in the spec's order), then radio access networks.
    pub hops: Vec<AnyHop>,
    pub hop_timers: HopTimers,
    pub routes: Routes,
    /// The scenario's flows first (`spec_flows` of them), then web
    /// connections' halves, made and freed at run time.
    pub flows: Vec<Flow>,
    pub spec_flows: usize,
    pub free_flows: Vec<u32>,
    pub counters: Counters,
    pub drop_log: super::drop_log::DropLog,
    pub pcaps: Vec<Capture>,
    /// Capture of each hop (index into `pcaps`; links only).
    pub pcap_of_hop: Vec<u32>,
    /// Sampled series: (time, value) per (metric, subject) slot.
    pub samples: super::sampler::Sampler,
}

impl TcpFlow {
    /// A segment reached this connection: data to the receiver, ACKs to the sender.
    #[inline]
    fn on_packet(&mut self, now: Time, pkt: &Packet, h: &crate::net::packet::TcpHeader) {
        if pkt.forward {
            if h.len > 0 {
                self.owd.add(now - pkt.created);
            }
            self.receiver.on_segment(now, h);
        } else {
            self.sender.on_segment(now, h);
        }
    }

    /// Without a handshake no SYN-ACK announces a window scale: the capture
    /// shows windows unscaled (capped at 65535, as such a TCP could offer no more).
    pub fn new(sender: TcpSender, receiver: TcpReceiver, rcv_buffer: u64, handshake: bool) -> Self {
        let rcv_wscale = if handshake { wscale_for(rcv_buffer) } else { 0 };
        TcpFlow { sender, receiver, armed: [None, None], rcv_wscale, owd: DelayStats::default(), owner: None }
    }
}

impl World {
    fn new_uid(&mut self) -> u64 {
        self.counters.created += 1;
        self.counters.created - 1
    }

    /// Inject a packet at `node` (from a local endpoint or off a hop).
    /// (By reference: a packet is copied only into the hop that takes it.)
    pub(super) fn forward(&mut self, now: Time, node: u32, pkt: &Packet) {
        if node == pkt.dst {
            self.deliver(now, pkt);
            return;
        }
        let Some(e) = self.routes.next(node, pkt.dst) else {
            self.counters.no_route += 1;
            self.log_drop(DropRecord { t: now, hop: NO_ROUTE, port: 0, node, reason: DropReason::NoRoute, pkt: *pkt });
            self.gone(pkt);
            return;
        };
        let (h, port) = (e.hop, e.port);
        self.hops[h as usize].offer(now, port, *pkt);
        self.drain(now, h);
    }

    /// Hand on what hop `h` has for the world, then re-arm its timer.
    /// Small and inlined into its two callers (after an offer, after a
    /// timer): usually the hop has nothing to hand on, and this is one poll,
    /// one deadline and one comparison; the handing on is out of line.
    #[inline(always)]
    fn drain(&mut self, now: Time, h: u32) {
        loop {
            let hop = &mut self.hops[h as usize];
            match hop.poll() {
                Some(ev) => self.hand_on(now, h, ev),
                None => {
                    let d = hop.deadline();
                    self.hop_timers.arm(&mut self.q, h, d);
                    return;
                }
            }
        }
    }

    /// One thing hop `h` handed on: forward a delivered packet from the node
    /// behind its port, log a drop, capture a transmission.
    #[inline(never)]
    fn hand_on(&mut self, now: Time, h: u32, ev: HopEvent) {
        match &ev {
            HopEvent::Deliver { port, pkt } => {
                if self.captures(h, true) {
                    self.capture(now, h, pkt);
                }
                let node = self.hops[h as usize].exit_node(*port);
                self.forward(now, node, pkt);
            }
            &HopEvent::Drop { port, pkt, reason } => {
                let node = self.hops[h as usize].entry_node();
                self.log_drop(DropRecord { t: now, hop: h, port, node, reason, pkt });
                self.gone(&pkt);
            }
            // Outgoing packets are captured as their transmission starts,
            // as tcpdump stamps them when the driver takes them.
            HopEvent::Transmit { pkt, .. } => {
                if self.captures(h, false) {
                    self.capture(now, h, pkt);
                }
            }
        }
    }

    fn on_hop_timer(&mut self, now: Time, h: u32) {
        self.hop_timers.fired(h, now);
        self.hops[h as usize].on_timer(now);
        self.drain(now, h);
    }

    /// Log a drop under the scenario's flow: a web connection's half under
    /// its web flow (the half's slot may be reused by the end of the run).
    fn log_drop(&mut self, mut d: DropRecord) {
        if let FlowKind::Tcp(t) = &self.flows[d.pkt.flow as usize].kind {
            if let Some(o) = t.owner {
                d.pkt.flow = o.web;
            }
        }
        let (hops, flows) = (&self.hops, &self.flows);
        let place = || if d.hop == NO_ROUTE { format!("node:{}", d.node) } else { hops[d.hop as usize].place(d.port) };
        self.drop_log.push(d, place, || flows[d.pkt.flow as usize].name.clone());
    }

    /// A packet left the network by a drop: its flow has one fewer inside;
    /// a web connection hears of it.
    fn gone(&mut self, pkt: &Packet) {
        let f = &mut self.flows[pkt.flow as usize];
        f.inflight -= 1;
        if f.retired {
            self.free_if_done(pkt.flow);
        } else if let FlowKind::Tcp(t) = &f.kind {
            if let Some(o) = t.owner {
                self.web_dropped(o, pkt);
            }
        }
    }

    fn deliver(&mut self, now: Time, pkt: &Packet) {
        self.counters.delivered += 1;
        let fi = pkt.flow;
        let f = &mut self.flows[fi as usize];
        f.inflight -= 1;
        match (&mut f.kind, &pkt.body) {
            (FlowKind::Tcp(t), Body::Tcp(h)) => {
                if let Some(o) = t.owner {
                    return self.deliver_to_connection(now, o, pkt);
                }
                t.on_packet(now, pkt, h);
                self.pump(now, fi);
            }
            (FlowKind::Cbr { sink, .. }, &Body::Udp { len, .. }) => sink.on_packet(now, pkt.created, len),
            _ => unreachable!("packet body does not match its flow"),
        }
    }

    /// A packet of a web connection's half (out of line: the bulk path
    /// above stays one branch longer than it was).
    #[inline(never)]
    fn deliver_to_connection(&mut self, now: Time, o: Owner, pkt: &Packet) {
        let fi = pkt.flow;
        if self.flows[fi as usize].retired {
            // A late packet of a closed connection.
            return self.free_if_done(fi);
        }
        if self.web_closing_packet(now, o, fi, pkt) {
            return;
        }
        let (FlowKind::Tcp(t), Body::Tcp(h)) = (&mut self.flows[fi as usize].kind, &pkt.body) else { unreachable!() };
        t.on_packet(now, pkt, h);
        self.pump(now, fi);
        self.web_step(now, o);
    }

    /// Send whatever a TCP flow's endpoints have to send, then re-arm their timers.
    pub(super) fn pump(&mut self, now: Time, fi: u32) {
        let (from, to) = (self.flows[fi as usize].from, self.flows[fi as usize].to);
        // One segment at a time, without a buffer: forwarding only puts the
        // packet on a link, so the endpoints are polled again unchanged.
        loop {
            let FlowKind::Tcp(t) = &mut self.flows[fi as usize].kind else { return };
            let (pkt, node) = if let Some(h) = t.sender.poll(now) {
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
            self.forward(now, node, &pkt);
        }
        let FlowKind::Tcp(t) = &mut self.flows[fi as usize].kind else { return };
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

    fn on_timer(&mut self, now: Time, fi: u32, side: u8) {
        let FlowKind::Tcp(t) = &mut self.flows[fi as usize].kind else { return };
        if t.armed[side as usize] == Some(now) {
            t.armed[side as usize] = None;
        }
        if side == 0 {
            t.sender.on_timer(now);
        } else {
            t.receiver.on_timer(now);
        }
        let owner = t.owner;
        self.pump(now, fi);
        if let Some(o) = owner {
            self.web_step(now, o);
        }
    }

    /// Whether hop `h`'s capture sees its packets as they leave (`arriving`
    /// false) or as they arrive (true).
    fn captures(&self, h: u32, arriving: bool) -> bool {
        let Some(&c) = self.pcap_of_hop.get(h as usize) else { return false };
        let AnyHop::Link(l) = &self.hops[h as usize] else { return false };
        self.pcaps[c as usize].node == if arriving { l.to } else { l.from }
    }

    fn capture(&mut self, now: Time, h: u32, pkt: &Packet) {
        let wscale = match &self.flows[pkt.flow as usize].kind {
            FlowKind::Tcp(t) if !pkt.forward => t.rcv_wscale,
            _ => 0,
        };
        // A failed capture write must not change the simulation; the error
        // surfaces when the file is flushed at the end.
        let c = self.pcap_of_hop[h as usize] as usize;
        let _ = self.pcaps[c].writer.write(now, pkt, wscale);
    }

    fn on_flow_start(&mut self, now: Time, fi: u32) {
        match &mut self.flows[fi as usize].kind {
            FlowKind::Tcp(t) => t.sender.start(),
            FlowKind::Cbr { source, .. } => {
                source.running = true;
                self.q.schedule(now, Event::CbrSend { flow: fi });
                return;
            }
            FlowKind::Web(_) => return self.web_start(now, fi),
            FlowKind::Free => return,
        }
        self.pump(now, fi);
    }

    fn on_flow_stop(&mut self, _now: Time, fi: u32) {
        match &mut self.flows[fi as usize].kind {
            FlowKind::Tcp(t) => t.sender.stop(),
            FlowKind::Cbr { source, .. } => source.running = false,
            FlowKind::Web(_) => self.web_stop(fi),
            FlowKind::Free => {}
        }
    }

    fn on_cbr_send(&mut self, now: Time, fi: u32) {
        let f = &mut self.flows[fi as usize];
        let (from, to) = (f.from, f.to);
        let FlowKind::Cbr { source, .. } = &mut f.kind else { return };
        if !source.running {
            return;
        }
        let (seq, len, interval) = (source.next_seq, source.packet_size, source.interval);
        source.next_seq += 1;
        f.packets_sent += 1;
        f.inflight += 1;
        self.q.schedule(now + interval, Event::CbrSend { flow: fi });
        let uid = self.new_uid();
        self.forward(now, from, &Packet::udp(uid, fi, from, to, now, seq, len));
    }

    pub fn handle(&mut self, now: Time, ev: Event) {
        match ev {
            Event::HopTimer { hop } => self.on_hop_timer(now, hop),
            Event::FlowStart { flow } => self.on_flow_start(now, flow),
            Event::FlowStop { flow } => self.on_flow_stop(now, flow),
            Event::Timer { flow, side } => self.on_timer(now, flow, side),
            Event::CbrSend { flow } => self.on_cbr_send(now, flow),
            Event::AppTimer { flow } => self.on_app_timer(now, flow),
            Event::Sample => {
                // A radio access network runs its idle slots only when woken:
                // bring each up to now so that its channels and PF averages are current.
                for h in 0..self.hops.len() {
                    if matches!(self.hops[h], AnyHop::Evdo(_)) {
                        self.on_hop_timer(now, h as u32);
                    }
                }
                self.samples.sample(now, &self.hops, &self.flows);
                if let Some(i) = self.samples.interval {
                    self.q.schedule(now + i, Event::Sample);
                }
            }
        }
    }

    /// Packets dropped anywhere.
    pub fn drops_total(&self) -> u64 {
        self.hops.iter().map(|h| h.drops_total()).sum::<u64>() + self.counters.no_route
    }

    pub fn in_network(&self) -> u64 {
        self.hops.iter().map(|h| h.packets_inside()).sum()
    }
}
