//! The applications at the scenario's flows, behind one trait: a bulk
//! transfer, a constant-bit-rate datagram stream, a browsing user. The
//! world hands each flow's start, stop and timers to its application, and
//! every segment of a connection an application opened; it matches on no
//! application kind. Adding one is a file here (its state and its
//! `impl Application`), a line in `app_kinds!` and its scenario table.
//!
//! An application reaches the transport through [`Sockets`], and its own
//! state through them too (`Sockets::app`), holding neither across a call:
//! a send can deliver or drop a packet at once (a hop without delay, a
//! full queue), and that calls the application back.

mod bulk;
mod cbr;
mod web;

pub use bulk::Bulk;
pub use cbr::Cbr;
pub use web::{Web, WebStats};

use crate::net::NodeId;
use super::delay::DelayStats;
use super::flows::{Flow, Transport};
use super::series_spool::SeriesSpool;
use super::web_log::WebLog;
use super::world::Hosts;
use crate::app::http::FinishedPage;
use crate::engine::{RngStreams, Time};
use crate::net::packet::{Body, TcpHeader};
use crate::result::{FlowResult, Series};
use crate::scenario::{AppSpec, FlowSpec, TcpSpec};
use crate::tcp::rwnd;

/// The application and connection a connection half belongs to.
#[derive(Clone, Copy, Debug)]
pub struct Owner {
    pub app: u32,
    pub conn: u32,
}

/// A closed half's counts, for its application's totals.
#[derive(Clone, Copy, Debug, Default)]
pub struct HalfTotals {
    pub segments_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub packets_sent: u64,
    /// Bytes its receiver has in order.
    pub delivered: u64,
}

/// What an application has of the hosts: its own state, its flow's TCP
/// half or datagrams, the TCP connection halves it opens, starts, writes
/// to and closes, and a timer. The world implements it.
pub trait Sockets {
    /// Application `me`'s state (it is of kind `A`).
    fn app<A: OfApp>(&mut self, me: u32) -> &mut A;
    /// Flow `me`'s (sending, receiving) nodes.
    fn endpoints(&self, me: u32) -> (NodeId, NodeId);
    /// A flow's name.
    fn name(&self, flow: u32) -> String;
    /// Application `me` finished a page: its record and its objects' go to
    /// the run's web log.
    fn page_done(&mut self, me: u32, page: FinishedPage);
    /// A new connection half from `from` to `to` that will carry `bytes`
    /// (with the SYN exchange if `handshake`), not yet sending.
    #[allow(clippy::too_many_arguments)]
    fn open(&mut self, now: Time, owner: Owner, name: String, from: NodeId, to: NodeId, tcp: &TcpSpec, bytes: u64, handshake: bool) -> u32;
    /// The half starts: it sends what it may.
    fn start(&mut self, now: Time, half: u32);
    /// The half's application writes `bytes` more: it sends what it may.
    fn write(&mut self, now: Time, half: u32, bytes: u64);
    /// The half's application writes nothing more (what it wrote still goes).
    fn stop_writing(&mut self, half: u32);
    /// Bytes the half's receiver has in order.
    fn delivered(&self, half: u32) -> u64;
    /// Whether everything the half sent is acknowledged.
    fn all_acked(&self, half: u32) -> bool;
    /// A segment of the closing exchange on `half` with `flags`, from its
    /// sending end (`forward`) or from its receiving end.
    fn send_control(&mut self, now: Time, half: u32, forward: bool, flags: u8);
    /// The half is closed: its counts; its slot is reused once no packet of
    /// it is left in the network.
    fn close(&mut self, half: u32) -> HalfTotals;
    /// A datagram of flow `me` (sequence number `seq`, `len` payload bytes)
    /// from its sending node to its receiving one.
    fn send_datagram(&mut self, now: Time, me: u32, seq: u64, len: u32);
    /// Call application `me`'s `on_timer` at `at`.
    fn wake_at(&mut self, me: u32, at: Time);
}

/// One kind of application. The functions that act reach their state
/// through the sockets (see the module comment); those that only read or
/// count take it.
pub trait Application: OfApp {
    /// The flows table's `kind` of its rows.
    const KIND: &'static str;
    /// Its per-event series, in the order it lists them.
    const SERIES: &'static [&'static str] = &[];

    /// Its flow starts.
    fn start<S: Sockets>(s: &mut S, now: Time, me: u32);
    /// Its flow stops: nothing new is sent (what is under way finishes).
    fn stop<S: Sockets>(s: &mut S, now: Time, me: u32);
    /// A time it asked for (`Sockets::wake_at`) has come: every one it
    /// asked for fires, also one it no longer needs.
    fn on_timer<S: Sockets>(_s: &mut S, _now: Time, _me: u32) {}
    /// A datagram it sent arrived (sent at `sent`, `len` payload bytes).
    fn on_datagram(&mut self, _now: Time, _sent: Time, _len: u32) {}
    /// A segment of a half it owns was delivered, or a timer of one fired.
    fn on_half<S: Sockets>(_s: &mut S, _now: Time, _owner: Owner) {}
    /// Whether a segment for a half it owns is its own to handle (a
    /// connection's closing exchange), not the TCP endpoints'.
    fn takes_segment<S: Sockets>(_s: &mut S, _now: Time, _owner: Owner, _half: u32, _forward: bool, _h: &TcpHeader) -> bool {
        false
    }
    /// A packet of a half it owns was dropped.
    fn half_dropped<S: Sockets>(_s: &mut S, _owner: Owner, _header: &Body) {}

    /// Payload bytes delivered so far (`flows`: the world's arena, where
    /// its transport is; `me`: its flow's slot).
    fn delivered_bytes(&self, me: u32, flows: &[Flow]) -> u64;
    /// Move its per-event series to the spool (`end`: all of them).
    fn drain_series(&mut self, _flow: &mut Flow, _spool: &mut SeriesSpool, _end: bool) {}
    /// The run is over: what it has under way goes to the logs.
    fn at_end(&mut self, _me: u32, _name: &str, _web_log: &mut WebLog) {}
    /// Fill its row of the flows table (name, kind and bytes delivered are
    /// set) and add its series kept in memory; returns when it stopped
    /// being active (the end of its goodput's interval).
    fn fill_row(&self, me: u32, hosts: &Hosts, r: &mut FlowResult, series: &mut Vec<Series>) -> Time;
}

/// An application kind's state within [`App`] (generated by `app_kinds!`).
pub trait OfApp: Sized {
    fn of(app: &mut App) -> Option<&mut Self>;
}

/// The applications: generates `App` (one boxed variant per kind), `Kind`
/// (which one, to dispatch the functions that reach their state through
/// the sockets) and the dispatch itself.
macro_rules! app_kinds {
    ($($kind:ident),* $(,)?) => {
        /// A scenario flow's application.
        pub enum App { $($kind(Box<$kind>),)* }

        /// Which application a flow has.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Kind { $($kind,)* }

        $(impl OfApp for $kind {
            #[inline]
            fn of(app: &mut App) -> Option<&mut Self> {
                #[allow(unreachable_patterns)]
                match app { App::$kind(a) => Some(a), _ => None }
            }
        })*

        impl App {
            #[inline]
            pub fn kind(&self) -> Kind {
                match self { $(App::$kind(_) => Kind::$kind,)* }
            }
            pub fn kind_name(&self) -> &'static str {
                match self { $(App::$kind(_) => <$kind as Application>::KIND,)* }
            }
            pub fn series(&self) -> &'static [&'static str] {
                match self { $(App::$kind(_) => <$kind as Application>::SERIES,)* }
            }
            #[inline]
            pub fn on_datagram(&mut self, now: Time, sent: Time, len: u32) {
                match self { $(App::$kind(a) => a.on_datagram(now, sent, len),)* }
            }
            pub fn delivered_bytes(&self, me: u32, flows: &[Flow]) -> u64 {
                match self { $(App::$kind(a) => a.delivered_bytes(me, flows),)* }
            }
            pub fn drain_series(&mut self, flow: &mut Flow, spool: &mut SeriesSpool, end: bool) {
                match self { $(App::$kind(a) => a.drain_series(flow, spool, end),)* }
            }
            pub fn at_end(&mut self, me: u32, name: &str, web_log: &mut WebLog) {
                match self { $(App::$kind(a) => a.at_end(me, name, web_log),)* }
            }
            pub fn fill_row(&self, me: u32, hosts: &Hosts, r: &mut FlowResult, series: &mut Vec<Series>) -> Time {
                match self { $(App::$kind(a) => a.fill_row(me, hosts, r, series),)* }
            }
        }

        impl Kind {
            pub fn start<S: Sockets>(self, s: &mut S, now: Time, me: u32) {
                match self { $(Kind::$kind => $kind::start(s, now, me),)* }
            }
            pub fn stop<S: Sockets>(self, s: &mut S, now: Time, me: u32) {
                match self { $(Kind::$kind => $kind::stop(s, now, me),)* }
            }
            pub fn on_timer<S: Sockets>(self, s: &mut S, now: Time, me: u32) {
                match self { $(Kind::$kind => $kind::on_timer(s, now, me),)* }
            }
            pub fn on_half<S: Sockets>(self, s: &mut S, now: Time, owner: Owner) {
                match self { $(Kind::$kind => $kind::on_half(s, now, owner),)* }
            }
            pub fn takes_segment<S: Sockets>(self, s: &mut S, now: Time, owner: Owner, half: u32, forward: bool, h: &TcpHeader) -> bool {
                match self { $(Kind::$kind => $kind::takes_segment(s, now, owner, half, forward, h),)* }
            }
            pub fn half_dropped<S: Sockets>(self, s: &mut S, owner: Owner, header: &Body) {
                match self { $(Kind::$kind => $kind::half_dropped(s, owner, header),)* }
            }
        }
    };
}

app_kinds!(Bulk, Cbr, Web);

/// The one-way delay columns of a row from its flow's delays.
fn set_owd(r: &mut FlowResult, d: &DelayStats) {
    r.owd_min_s = d.min_s();
    r.owd_avg_s = d.mean_s();
    r.owd_max_s = d.max_s();
    r.excess_owd_mean_s = d.excess_mean_s();
    r.excess_owd_std_s = d.std_s();
}

/// A scenario flow's application and the transport of its own slot.
/// `rwnd_hosts`: the receive-window state shared by the connections
/// arriving at one node (RBSMQ's host scope).
pub fn build(f: &FlowSpec, rng: &RngStreams, rwnd_hosts: &mut rwnd::Hosts) -> (App, Transport) {
    match &f.app {
        AppSpec::Bulk { bytes, tcp } => (App::Bulk(Box::new(Bulk)), Bulk::transport(*bytes, tcp, rwnd_hosts, f.to)),
        AppSpec::Cbr { packet_size, rate_bps } => (App::Cbr(Box::new(Cbr::new(*packet_size, *rate_bps))), Transport::Udp),
        AppSpec::Http { http, tcp } => (App::Web(Box::new(Web::new(http, tcp, rng, &f.name))), Transport::None),
    }
}
