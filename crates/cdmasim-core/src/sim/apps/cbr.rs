//! A constant-bit-rate datagram stream (the VoIP-like flow of Liu et al.
//! §7.4): the source sends one datagram per interval while it runs, the
//! sink records each one's one-way delay (`app::cbr`).

use super::{Application, Sockets};
use crate::app::{CbrSink, CbrSource};
use crate::engine::time::secs;
use crate::engine::Time;
use crate::result::{FlowResult, Series};
use crate::sim::collect::ts;
use crate::sim::delay::DelayStats;
use crate::sim::flows::Flow;
use crate::sim::series_spool::SeriesSpool;
use crate::sim::world::Hosts;

pub struct Cbr {
    source: CbrSource,
    sink: CbrSink,
    /// The one-way delays already moved to the spool (when series stream);
    /// the row's figures are over these and the sink's.
    streamed: DelayStats,
}

impl Cbr {
    pub fn new(packet_size: u32, rate_bps: u64) -> Self {
        Cbr { source: CbrSource::new(packet_size, rate_bps), sink: CbrSink::default(), streamed: DelayStats::default() }
    }
}

impl Application for Cbr {
    const KIND: &'static str = "cbr";
    const SERIES: &'static [&'static str] = &["owd"];

    fn start<S: Sockets>(s: &mut S, now: Time, me: u32) {
        s.app::<Cbr>(me).source.running = true;
        s.wake_at(me, now);
    }

    fn stop<S: Sockets>(s: &mut S, _now: Time, me: u32) {
        s.app::<Cbr>(me).source.running = false;
    }

    /// The next datagram is due (each one schedules the next).
    fn on_timer<S: Sockets>(s: &mut S, now: Time, me: u32) {
        let source = &mut s.app::<Cbr>(me).source;
        if !source.running {
            return;
        }
        let (seq, len, interval) = (source.next_seq, source.packet_size, source.interval);
        source.next_seq += 1;
        s.wake_at(me, now + interval);
        s.send_datagram(now, me, seq, len);
    }

    #[inline]
    fn on_datagram(&mut self, now: Time, sent: Time, len: u32) {
        self.sink.on_packet(now, sent, len);
    }

    fn delivered_bytes(&self, _me: u32, _flows: &[Flow]) -> u64 {
        self.sink.bytes
    }

    fn drain_series(&mut self, flow: &mut Flow, spool: &mut SeriesSpool, _end: bool) {
        let o = spool.id("owd", &flow.name);
        for (at, d) in self.sink.delays.drain(..) {
            self.streamed.add(d);
            spool.push(o, secs(at), secs(d));
        }
    }

    /// Active from its start until its last arrival after it stopped, or
    /// until the end of the run.
    fn fill_row(&self, me: u32, hosts: &Hosts, r: &mut FlowResult, series: &mut Vec<Series>) -> Time {
        let f = &hosts.flows[me as usize];
        r.packets_sent = self.source.next_seq;
        r.packets_received = self.sink.received;
        let mut owd = self.streamed.clone();
        self.sink.delays.iter().for_each(|d| owd.add(d.1));
        super::set_owd(r, &owd);
        if hosts.spool.is_none() {
            series.push(Series {
                metric: "owd".into(),
                subject: f.name.clone(),
                t_s: ts(self.sink.delays.iter().map(|d| d.0)),
                value: self.sink.delays.iter().map(|d| secs(d.1)).collect(),
            });
        }
        if f.stop.is_some_and(|st| st < hosts.horizon) {
            self.sink.last_arrival
        } else {
            hosts.horizon
        }
    }
}
