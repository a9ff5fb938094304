//! Web browsing in the world: the TCP connection lifecycle under an
//! [`HttpClient`] (seed 004 §3.1–3.2).
//!
//! A connection is two TCP halves, each a flow of the world's arena made
//! at run time: the *request* half (browser → server: SYN, SYN-ACK, the
//! requests) and the *response* half (server → browser: the objects), which
//! starts when the first request has arrived, already established. Both
//! carry their ACKs back, so data goes both ways on one connection; what
//! this does not model is an ACK riding on a data segment of the other half
//! (the server's ACK of a request is a separate 40-byte packet).
//!
//! Closing (HTTP/1.0: the server closes): once both halves have every byte
//! acknowledged, the server sends FIN, the browser answers FIN+ACK, the
//! server ACKs. These three are sent once; one lost on the way closes the
//! connection at once (what a FIN retransmission would have repaired does
//! not delay the page: the object is already in).
//!
//! A connection's flows go back to the arena's free list once closed and
//! with no packet of theirs left in the network, so memory follows the
//! connections open at once, not the run's length.

use super::world::{Event, Flow, FlowKind, TcpFlow, World};
use crate::app::http::HttpClient;
use crate::engine::Time;
use crate::net::packet::{Body, Packet, TcpFlags, TcpHeader};
use crate::scenario::TcpSpec;
use crate::tcp::rwnd;
use crate::tcp::{cc, TcpReceiver, TcpSender};
use std::collections::VecDeque;

/// The web flow and connection a connection half belongs to.
#[derive(Clone, Copy, Debug)]
pub struct Owner {
    pub web: u32,
    pub conn: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Close {
    /// Carrying objects.
    Open,
    /// No more objects: FIN as soon as both halves are fully acknowledged.
    Draining,
    /// Server sent FIN; browser will answer FIN+ACK.
    FinSent,
    /// Browser sent FIN+ACK; the server's last ACK is on its way.
    LastAck,
}

struct Conn {
    req: u32,
    resp: Option<u32>,
    /// Its objects in request order, with the cumulative request and
    /// response byte counts that end each.
    objects: VecDeque<(u32, u64, u64)>,
    req_written: u64,
    resp_written: u64,
    /// Objects whose response the server has written / the browser has whole.
    served: usize,
    done: usize,
    close: Close,
}

/// Totals over the connections that have closed (the open ones are added
/// when the run is collected).
#[derive(Clone, Debug, Default)]
pub struct WebStats {
    pub connections: u64,
    pub segments_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub packets_sent: u64,
    /// Response bytes delivered in order to the browser.
    pub bytes_delivered: u64,
}

pub struct WebFlow {
    pub client: HttpClient,
    tcp: TcpSpec,
    /// Connection slots (None: free).
    conns: Vec<Option<Conn>>,
    /// Open connections (not yet closing): at most C.
    open: u32,
    armed: Option<Time>,
    pub stats: WebStats,
}

impl WebFlow {
    pub fn new(client: HttpClient, tcp: TcpSpec) -> Self {
        WebFlow { client, tcp, conns: Vec::new(), open: 0, armed: None, stats: WebStats::default() }
    }

    /// Connections not yet closed (open or in their closing exchange).
    pub fn open_connections(&self) -> u64 {
        self.conns.iter().flatten().count() as u64
    }

    /// The connection halves still in the arena.
    pub fn live_flows(&self) -> impl Iterator<Item = u32> + '_ {
        self.conns.iter().flatten().flat_map(|c| std::iter::once(c.req).chain(c.resp))
    }
}

fn tcp_half(spec: &TcpSpec, bytes: u64, handshake: bool, owner: Owner) -> FlowKind {
    let spec = TcpSpec { handshake, ..spec.clone() };
    let sender = TcpSender::new(spec.clone(), cc::by_name(spec.cc), Some(bytes));
    let receiver = TcpReceiver::new(spec.clone(), rwnd::by_spec(spec.rwnd, spec.mss));
    let mut t = TcpFlow::new(sender, receiver, spec.rcv_buffer, handshake);
    t.owner = Some(owner);
    FlowKind::Tcp(Box::new(t))
}

impl World {
    fn web(&mut self, web: u32) -> &mut WebFlow {
        match &mut self.flows[web as usize].kind {
            FlowKind::Web(w) => w,
            _ => unreachable!("flow {web} is not a web flow"),
        }
    }

    fn conn(&mut self, o: Owner) -> &mut Conn {
        self.web(o.web).conns[o.conn as usize].as_mut().expect("a live connection")
    }

    fn tcp(&mut self, fi: u32) -> &mut TcpFlow {
        match &mut self.flows[fi as usize].kind {
            FlowKind::Tcp(t) => t,
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

    pub(super) fn web_start(&mut self, now: Time, web: u32) {
        self.web(web).client.start(now);
        self.web_open(now, web);
    }

    pub(super) fn web_stop(&mut self, web: u32) {
        self.web(web).client.stop();
    }

    pub(super) fn on_app_timer(&mut self, now: Time, web: u32) {
        let w = self.web(web);
        if w.armed == Some(now) {
            w.armed = None;
        }
        w.client.on_timer(now);
        self.web_open(now, web);
    }

    /// Give waiting objects to idle kept-alive connections, then open new
    /// connections up to C; re-arm the think timer.
    fn web_open(&mut self, now: Time, web: u32) {
        if self.web(web).client.spec().persistent {
            let idle: Vec<u32> = {
                let w = self.web(web);
                (0..w.conns.len() as u32)
                    .filter(|&c| w.conns[c as usize].as_ref().is_some_and(|c| c.close == Close::Open && c.done == c.objects.len()))
                    .collect()
            };
            for conn in idle {
                let Some(o) = self.web(web).client.next_object(now) else { break };
                self.request_on(now, Owner { web, conn }, o);
            }
        }
        loop {
            let w = self.web(web);
            if w.open >= w.client.spec().parallel || !w.client.has_next() {
                break;
            }
            let o = w.client.next_object(now).expect("has_next");
            self.open_connection(now, web, o);
        }
        let w = self.web(web);
        if let Some(d) = w.client.deadline() {
            if w.armed.is_none_or(|a| d < a) {
                w.armed = Some(d);
                self.q.schedule(d, Event::AppTimer { flow: web });
            }
        }
    }

    fn open_connection(&mut self, now: Time, web: u32, o: u32) {
        let (server, browser) = (self.flows[web as usize].from, self.flows[web as usize].to);
        let w = self.web(web);
        w.open += 1;
        w.stats.connections += 1;
        let conn = match w.conns.iter().position(Option::is_none) {
            Some(c) => c as u32,
            None => {
                w.conns.push(None);
                (w.conns.len() - 1) as u32
            }
        };
        let owner = Owner { web, conn };
        let (request, name) = (w.client.object(o).request, format!("{}.c{}", self.flows[web as usize].name, conn));
        let tcp = self.web(web).tcp.clone();
        // The request half carries the handshake: the browser's SYN opens the connection.
        let kind = tcp_half(&tcp, request, tcp.handshake, owner);
        let req = self.alloc_flow(Flow::new(name, browser, server, now, kind));
        let w = self.web(web);
        w.conns[conn as usize] = Some(Conn {
            req,
            resp: None,
            objects: VecDeque::from([(o, request, w.client.object(o).size)]),
            req_written: request,
            resp_written: 0,
            served: 0,
            done: 0,
            close: Close::Open,
        });
        self.tcp(req).sender.start();
        self.pump(now, req);
    }

    /// The next request on a kept-alive connection.
    fn request_on(&mut self, now: Time, owner: Owner, o: u32) {
        let (request, size) = {
            let c = self.web(owner.web).client.object(o);
            (c.request, c.size)
        };
        let c = self.conn(owner);
        c.req_written += request;
        let (req_end, resp_end) = (c.req_written, c.objects.back().map_or(0, |x| x.2) + size);
        c.objects.push_back((o, req_end, resp_end));
        let req = c.req;
        self.tcp(req).sender.write(request);
        self.pump(now, req);
    }

    /// Something happened on one of `owner`'s halves: serve requests that
    /// are in, finish objects that are in, keep or close the connection.
    pub(super) fn web_step(&mut self, now: Time, owner: Owner) {
        let Some(c) = self.web(owner.web).conns[owner.conn as usize].as_ref() else { return };
        if c.close != Close::Open && c.close != Close::Draining {
            return;
        }
        let (req, resp) = (c.req, c.resp);
        // The server writes each response once its request is whole.
        loop {
            let c = self.conn(owner);
            let Some(&(_, req_end, resp_end)) = c.objects.get(c.served) else { break };
            let (req, mut resp_flow) = (c.req, c.resp);
            if self.tcp(req).receiver.delivered < req_end {
                break;
            }
            let c = self.conn(owner);
            let size = resp_end - c.resp_written;
            c.resp_written = resp_end;
            c.served += 1;
            match resp_flow {
                Some(r) => self.tcp(r).sender.write(size),
                None => {
                    let (server, browser) = (self.flows[owner.web as usize].from, self.flows[owner.web as usize].to);
                    let tcp = self.web(owner.web).tcp.clone();
                    let name = self.flows[req as usize].name.clone();
                    let kind = tcp_half(&tcp, size, false, owner);
                    let r = self.alloc_flow(Flow::new(name, server, browser, now, kind));
                    self.conn(owner).resp = Some(r);
                    self.tcp(r).sender.start();
                    resp_flow = Some(r);
                }
            }
            self.pump(now, resp_flow.expect("set"));
        }
        // The browser has an object when its last byte is in.
        let resp = resp.or(self.conn(owner).resp);
        let mut finished = false;
        if let Some(r) = resp {
            let got = self.tcp(r).receiver.delivered;
            loop {
                let c = self.conn(owner);
                if c.done >= c.served || got < c.objects[c.done].2 {
                    break;
                }
                let o = c.objects[c.done].0;
                c.done += 1;
                self.web(owner.web).client.on_object_done(now, o);
                finished = true;
            }
        }
        if finished {
            let c = self.conn(owner);
            let idle = c.done == c.objects.len() && c.close == Close::Open;
            let w = self.web(owner.web);
            if idle {
                if w.client.spec().persistent && w.client.has_next() {
                    let o = w.client.next_object(now).expect("has_next");
                    self.request_on(now, owner, o);
                } else {
                    w.open -= 1;
                    self.conn(owner).close = Close::Draining;
                }
            }
            self.web_open(now, owner.web);
        }
        // HTTP/1.0: the server closes once everything is acknowledged.
        let c = self.conn(owner);
        if c.close == Close::Draining {
            if let Some(r) = c.resp {
                if self.tcp(req).sender.all_acked() && self.tcp(r).sender.all_acked() {
                    self.conn(owner).close = Close::FinSent;
                    self.send_control(now, r, true, TcpFlags::FIN | TcpFlags::ACK);
                }
            }
        }
    }

    /// A closing segment of a response half (`forward`: server → browser).
    fn send_control(&mut self, now: Time, fi: u32, forward: bool, flags: u8) {
        let f = &self.flows[fi as usize];
        let (src, dst) = if forward { (f.from, f.to) } else { (f.to, f.from) };
        let h = TcpHeader { flags: TcpFlags(flags), ..Default::default() };
        let uid = self.counters.created;
        self.counters.created += 1;
        let f = &mut self.flows[fi as usize];
        f.packets_sent += 1;
        f.inflight += 1;
        self.forward(now, src, &Packet::tcp(uid, fi, forward, src, dst, now, h));
    }

    /// Whether a packet for a connection half belongs to the closing
    /// exchange; if so it is handled here and not by the TCP endpoints.
    pub(super) fn web_closing_packet(&mut self, now: Time, owner: Owner, fi: u32, pkt: &Packet) -> bool {
        let Some(c) = self.web(owner.web).conns[owner.conn as usize].as_ref() else { return true };
        let Body::Tcp(h) = &pkt.body else { return false };
        match c.close {
            Close::Open | Close::Draining => false,
            Close::FinSent if pkt.forward && h.flags.has(TcpFlags::FIN) => {
                self.conn(owner).close = Close::LastAck;
                self.send_control(now, fi, false, TcpFlags::FIN | TcpFlags::ACK);
                true
            }
            Close::LastAck if !pkt.forward && h.flags.has(TcpFlags::FIN) => {
                self.send_control(now, fi, true, TcpFlags::ACK);
                self.close_connection(owner);
                true
            }
            // A late duplicate of either half after the data is all in.
            _ => true,
        }
    }

    /// A packet of a connection half was dropped: a lost closing segment
    /// ends the exchange (see the module comment).
    pub(super) fn web_dropped(&mut self, owner: Owner, pkt: &Packet) {
        let Some(c) = self.web(owner.web).conns[owner.conn as usize].as_ref() else { return };
        let closing = matches!(c.close, Close::FinSent | Close::LastAck);
        if closing && matches!(&pkt.body, Body::Tcp(h) if h.len == 0 && h.flags.has(TcpFlags::FIN)) {
            self.close_connection(owner);
        }
    }

    /// The connection is gone: add its halves' counts to the web flow's
    /// totals, and give the halves back once no packet of theirs is left.
    fn close_connection(&mut self, owner: Owner) {
        let c = self.web(owner.web).conns[owner.conn as usize].take().expect("live");
        let halves = std::iter::once(c.req).chain(c.resp);
        for fi in halves {
            let f = &mut self.flows[fi as usize];
            f.retired = true;
            let packets = f.packets_sent;
            let FlowKind::Tcp(t) = &f.kind else { unreachable!() };
            let s = t.sender.stats.clone();
            let delivered = if Some(fi) == c.resp { t.receiver.delivered } else { 0 };
            let w = self.web(owner.web);
            w.stats.segments_sent += s.segments_sent;
            w.stats.retransmits += s.retransmits;
            w.stats.timeouts += s.timeouts;
            w.stats.fast_recoveries += s.fast_recoveries;
            w.stats.packets_sent += packets;
            w.stats.bytes_delivered += delivered;
            self.free_if_done(fi);
        }
    }

    /// A retired half with nothing left in the network returns to the free list.
    pub(super) fn free_if_done(&mut self, fi: u32) {
        let f = &mut self.flows[fi as usize];
        if f.retired && f.inflight == 0 {
            f.kind = FlowKind::Free;
            f.retired = false;
            self.free_flows.push(fi);
        }
    }
}
