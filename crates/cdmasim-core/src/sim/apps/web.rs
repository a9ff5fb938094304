//! Web browsing in the world: the TCP connection lifecycle under an
//! [`HttpClient`] (Dziong et al. §3.1–3.2).
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
//!
//! The browser and server reach TCP only through [`Sockets`] (open a
//! connection half, start it, write to it, close it, and read how far it
//! got); the world behind them is not named here, except to read its
//! arena for the row.

use super::{Application, Owner, Sockets};
use crate::app::http::{HttpClient, HttpSpec};
use crate::engine::{RngStreams, Time};
use crate::net::packet::{Body, TcpFlags, TcpHeader};
use crate::result::{FlowResult, Series};
use crate::scenario::TcpSpec;
use crate::sim::flows::{Flow, Transport};
use crate::sim::web_log::WebLog;
use crate::sim::world::Hosts;
use std::collections::VecDeque;

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

/// A browsing user: its HTTP client and its connections.
pub struct Web {
    pub client: HttpClient,
    tcp: TcpSpec,
    /// Connection slots (None: free).
    conns: Vec<Option<Conn>>,
    /// Open connections (not yet closing): at most C.
    open: u32,
    armed: Option<Time>,
    pub stats: WebStats,
}

impl Web {
    /// A user browsing as `http` says, over TCP as `tcp` says; its draws
    /// from its own stream of the run's (named after the flow).
    pub fn new(http: &HttpSpec, tcp: &TcpSpec, rng: &RngStreams, name: &str) -> Self {
        let client = HttpClient::new(http.clone(), rng.stream(&format!("web/{name}")));
        let tcp = tcp.clone();
        Web { client, tcp, conns: Vec::new(), open: 0, armed: None, stats: WebStats::default() }
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

/// Application `me`'s state.
fn state<S: Sockets>(s: &mut S, me: u32) -> &mut Web {
    s.app(me)
}

fn conn<S: Sockets>(s: &mut S, o: Owner) -> &mut Conn {
    state(s, o.app).conns[o.conn as usize].as_mut().expect("a live connection")
}

/// Give waiting objects to idle kept-alive connections, then open new
/// connections up to C; re-arm the think timer.
fn open_objects<S: Sockets>(s: &mut S, now: Time, web: u32) {
    if state(s, web).client.spec().persistent {
        let idle: Vec<u32> = {
            let w = state(s, web);
            (0..w.conns.len() as u32)
                .filter(|&c| w.conns[c as usize].as_ref().is_some_and(|c| c.close == Close::Open && c.done == c.objects.len()))
                .collect()
        };
        for conn in idle {
            let Some(o) = state(s, web).client.next_object(now) else { break };
            request_on(s, now, Owner { app: web, conn }, o);
        }
    }
    loop {
        let w = state(s, web);
        if w.open >= w.client.spec().parallel || !w.client.has_next() {
            break;
        }
        let o = w.client.next_object(now).expect("has_next");
        open_connection(s, now, web, o);
    }
    let w = state(s, web);
    if let Some(d) = w.client.deadline() {
        if w.armed.is_none_or(|a| d < a) {
            w.armed = Some(d);
            s.wake_at(web, d);
        }
    }
}

fn open_connection<S: Sockets>(s: &mut S, now: Time, web: u32, o: u32) {
    let (server, browser) = s.endpoints(web);
    let w = state(s, web);
    w.open += 1;
    w.stats.connections += 1;
    let conn = match w.conns.iter().position(Option::is_none) {
        Some(c) => c as u32,
        None => {
            w.conns.push(None);
            (w.conns.len() - 1) as u32
        }
    };
    let owner = Owner { app: web, conn };
    let request = w.client.object(o).request;
    let name = format!("{}.c{}", s.name(web), conn);
    let tcp = state(s, web).tcp.clone();
    // The request half carries the handshake: the browser's SYN opens the connection.
    let req = s.open(now, owner, name, browser, server, &tcp, request, tcp.handshake);
    let w = state(s, web);
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
    s.start(now, req);
}

/// The next request on a kept-alive connection.
fn request_on<S: Sockets>(s: &mut S, now: Time, owner: Owner, o: u32) {
    let (request, size) = {
        let c = state(s, owner.app).client.object(o);
        (c.request, c.size)
    };
    let c = conn(s, owner);
    c.req_written += request;
    let (req_end, resp_end) = (c.req_written, c.objects.back().map_or(0, |x| x.2) + size);
    c.objects.push_back((o, req_end, resp_end));
    let req = c.req;
    s.write(now, req, request);
}

/// Something happened on one of `owner`'s halves: serve requests that
/// are in, finish objects that are in, keep or close the connection.
fn step<S: Sockets>(s: &mut S, now: Time, owner: Owner) {
    let Some(c) = state(s, owner.app).conns[owner.conn as usize].as_ref() else { return };
    if c.close != Close::Open && c.close != Close::Draining {
        return;
    }
    let (req, resp) = (c.req, c.resp);
    // The server writes each response once its request is whole.
    loop {
        let c = conn(s, owner);
        let Some(&(_, req_end, resp_end)) = c.objects.get(c.served) else { break };
        let (req, resp_flow) = (c.req, c.resp);
        if s.delivered(req) < req_end {
            break;
        }
        let c = conn(s, owner);
        let size = resp_end - c.resp_written;
        c.resp_written = resp_end;
        c.served += 1;
        match resp_flow {
            Some(r) => s.write(now, r, size),
            None => {
                let (server, browser) = s.endpoints(owner.app);
                let tcp = state(s, owner.app).tcp.clone();
                let name = s.name(req);
                let r = s.open(now, owner, name, server, browser, &tcp, size, false);
                conn(s, owner).resp = Some(r);
                s.start(now, r);
            }
        }
    }
    // The browser has an object when its last byte is in.
    let resp = resp.or(conn(s, owner).resp);
    let mut finished = false;
    if let Some(r) = resp {
        let got = s.delivered(r);
        loop {
            let c = conn(s, owner);
            if c.done >= c.served || got < c.objects[c.done].2 {
                break;
            }
            let o = c.objects[c.done].0;
            c.done += 1;
            if let Some(page) = state(s, owner.app).client.on_object_done(now, o) {
                s.page_done(owner.app, page);
            }
            finished = true;
        }
    }
    if finished {
        let c = conn(s, owner);
        let idle = c.done == c.objects.len() && c.close == Close::Open;
        let w = state(s, owner.app);
        if idle {
            if w.client.spec().persistent && w.client.has_next() {
                let o = w.client.next_object(now).expect("has_next");
                request_on(s, now, owner, o);
            } else {
                w.open -= 1;
                conn(s, owner).close = Close::Draining;
            }
        }
        open_objects(s, now, owner.app);
    }
    // HTTP/1.0: the server closes once everything is acknowledged.
    let c = conn(s, owner);
    if c.close == Close::Draining {
        if let Some(r) = c.resp {
            if s.all_acked(req) && s.all_acked(r) {
                conn(s, owner).close = Close::FinSent;
                s.send_control(now, r, true, TcpFlags::FIN | TcpFlags::ACK);
            }
        }
    }
}

/// Whether a packet for a connection half belongs to the closing exchange;
/// if so it is handled here and not by the TCP endpoints.
fn closing_packet<S: Sockets>(s: &mut S, now: Time, owner: Owner, half: u32, forward: bool, h: &TcpHeader) -> bool {
    let Some(c) = state(s, owner.app).conns[owner.conn as usize].as_ref() else { return true };
    match c.close {
        Close::Open | Close::Draining => false,
        Close::FinSent if forward && h.flags.has(TcpFlags::FIN) => {
            conn(s, owner).close = Close::LastAck;
            s.send_control(now, half, false, TcpFlags::FIN | TcpFlags::ACK);
            true
        }
        Close::LastAck if !forward && h.flags.has(TcpFlags::FIN) => {
            s.send_control(now, half, true, TcpFlags::ACK);
            close_connection(s, owner);
            true
        }
        // A late duplicate of either half after the data is all in.
        _ => true,
    }
}

/// A packet of a connection half was dropped: a lost closing segment ends
/// the exchange (see the module comment).
fn dropped<S: Sockets>(s: &mut S, owner: Owner, header: &Body) {
    let Some(c) = state(s, owner.app).conns[owner.conn as usize].as_ref() else { return };
    let closing = matches!(c.close, Close::FinSent | Close::LastAck);
    if closing && matches!(header, Body::Tcp(h) if h.len == 0 && h.flags.has(TcpFlags::FIN)) {
        close_connection(s, owner);
    }
}

/// The connection is gone: its halves close, their counts go into the web
/// flow's totals.
fn close_connection<S: Sockets>(s: &mut S, owner: Owner) {
    let c = state(s, owner.app).conns[owner.conn as usize].take().expect("live");
    for half in std::iter::once(c.req).chain(c.resp) {
        let t = s.close(half);
        let st = &mut state(s, owner.app).stats;
        st.segments_sent += t.segments_sent;
        st.retransmits += t.retransmits;
        st.timeouts += t.timeouts;
        st.fast_recoveries += t.fast_recoveries;
        st.packets_sent += t.packets_sent;
        if Some(half) == c.resp {
            st.bytes_delivered += t.delivered;
        }
    }
}

impl Application for Web {
    const KIND: &'static str = "http";

    /// The browsing user starts reading.
    fn start<S: Sockets>(s: &mut S, now: Time, me: u32) {
        state(s, me).client.start(now);
        open_objects(s, now, me);
    }

    /// The browsing user stops asking for pages.
    fn stop<S: Sockets>(s: &mut S, _now: Time, me: u32) {
        state(s, me).client.stop();
    }

    /// The think timer may be over.
    fn on_timer<S: Sockets>(s: &mut S, now: Time, me: u32) {
        let w = state(s, me);
        if w.armed == Some(now) {
            w.armed = None;
        }
        w.client.on_timer(now);
        open_objects(s, now, me);
    }

    fn on_half<S: Sockets>(s: &mut S, now: Time, owner: Owner) {
        step(s, now, owner);
    }

    fn takes_segment<S: Sockets>(s: &mut S, now: Time, owner: Owner, half: u32, forward: bool, h: &TcpHeader) -> bool {
        closing_packet(s, now, owner, half, forward, h)
    }

    fn half_dropped<S: Sockets>(s: &mut S, owner: Owner, header: &Body) {
        dropped(s, owner, header);
    }

    /// Its closed connections' (the open ones are added to its row).
    fn delivered_bytes(&self, _me: u32, _flows: &[Flow]) -> u64 {
        self.stats.bytes_delivered
    }

    /// The page under way goes to the web log, unfinished.
    fn at_end(&mut self, me: u32, name: &str, web_log: &mut WebLog) {
        if let Some(p) = self.client.open_page() {
            web_log.push(me, name, &p);
        }
    }

    /// Its connections summed: the closed ones' totals and the halves
    /// still open. Active for the whole run.
    fn fill_row(&self, me: u32, hosts: &Hosts, r: &mut FlowResult, _series: &mut Vec<Series>) -> Time {
        let f = &hosts.flows[me as usize];
        let s = &self.stats;
        let (mut segs, mut rtx, mut tos, mut frs, mut pkts) = (s.segments_sent, s.retransmits, s.timeouts, s.fast_recoveries, s.packets_sent);
        for fi in self.live_flows() {
            let h = &hosts.flows[fi as usize];
            pkts += h.packets_sent;
            if let Transport::Tcp(t) = &h.transport {
                let st = &t.sender.stats;
                (segs, rtx, tos, frs) = (segs + st.segments_sent, rtx + st.retransmits, tos + st.timeouts, frs + st.fast_recoveries);
                if h.from == f.from {
                    r.bytes_delivered += t.receiver.delivered;
                }
            }
        }
        r.packets_sent = pkts;
        r.connections_opened = Some(s.connections);
        r.connections_open = Some(self.open_connections());
        r.retransmits = rtx;
        r.retransmitted_fraction = if segs > 0 { rtx as f64 / segs as f64 } else { 0.0 };
        r.timeouts = tos;
        r.fast_recoveries = frs;
        hosts.web_log.totals(me).fill(r);
        hosts.horizon
    }
}
