//! A bulk transfer: as many bytes as the scenario says (or without end),
//! written at once, so the TCP sender is never short of data until the
//! transfer's last byte; the application limit is the sender's own
//! (`TcpSender::new`'s `bytes`). Its row and series are its connection's.

use crate::net::NodeId;
use super::{Application, Sockets};
use crate::engine::time::secs;
use crate::engine::Time;
use crate::result::{FlowResult, Series};
use crate::scenario::TcpSpec;
use crate::sim::collect::ts;
use crate::sim::flows::{Flow, TcpFlow, Transport};
use crate::sim::series_spool::SeriesSpool;
use crate::sim::world::Hosts;
use crate::tcp::{cc, rwnd, TcpReceiver, TcpSender};

/// Nothing of its own: the transfer is its flow's TCP connection.
pub struct Bulk;

impl Bulk {
    /// Its connection: a sender with `bytes` to send (None: without end) and
    /// a receiver at node `to`, whose window policy may be shared with the
    /// node's other connections (`rwnd_hosts`).
    pub fn transport(bytes: Option<u64>, tcp: &TcpSpec, rwnd_hosts: &mut rwnd::Hosts, to: NodeId) -> Transport {
        let sender = TcpSender::new(tcp.clone(), cc::by_name(tcp.cc), bytes);
        let receiver = TcpReceiver::new(tcp.clone(), rwnd_hosts.policy(tcp.rwnd, tcp.mss, to));
        Transport::Tcp(Box::new(TcpFlow::new(sender, receiver, tcp.rcv_buffer, tcp.handshake)))
    }
}

fn tcp(flow: &Flow) -> &TcpFlow {
    match &flow.transport {
        Transport::Tcp(t) => t,
        _ => unreachable!("a bulk flow's transport is TCP"),
    }
}

// A series' values, whether streamed to the spool or kept for the result.
fn ssthresh_value(ssthresh: u64) -> f64 {
    ssthresh.min(u32::MAX as u64) as f64
}

fn pacing_bps(bytes_per_s: u64) -> f64 {
    bytes_per_s as f64 * 8.0
}

impl Application for Bulk {
    const KIND: &'static str = "tcp";
    const SERIES: &'static [&'static str] = &["cwnd", "ssthresh", "rwnd", "pacing_rate_bps"];

    fn start<S: Sockets>(s: &mut S, now: Time, me: u32) {
        s.start(now, me);
    }

    fn stop<S: Sockets>(s: &mut S, _now: Time, me: u32) {
        s.stop_writing(me);
    }

    fn delivered_bytes(&self, me: u32, flows: &[Flow]) -> u64 {
        tcp(&flows[me as usize]).receiver.delivered
    }

    fn drain_series(&mut self, flow: &mut Flow, spool: &mut SeriesSpool, end: bool) {
        let Transport::Tcp(t) = &mut flow.transport else { unreachable!("a bulk flow's transport is TCP") };
        let name = &flow.name;
        if !t.sender.cwnd_trace.is_empty() {
            let (c, s) = (spool.id("cwnd", name), spool.id("ssthresh", name));
            for (at, cwnd, ssthresh) in t.sender.cwnd_trace.drain(..) {
                spool.push(c, secs(at), cwnd as f64);
                spool.push(s, secs(at), ssthresh_value(ssthresh));
            }
        }
        // Until the end the receiver keeps its last point, which it
        // compares the next one with.
        let keep = usize::from(!end).min(t.receiver.rwnd_trace.len());
        let upto = t.receiver.rwnd_trace.len() - keep;
        if upto > 0 {
            let r = spool.id("rwnd", name);
            for (at, w) in t.receiver.rwnd_trace.drain(..upto) {
                spool.push(r, secs(at), w as f64);
            }
        }
        if !t.sender.pacing_trace.is_empty() {
            let p = spool.id("pacing_rate_bps", name);
            for (at, rate) in t.sender.pacing_trace.drain(..) {
                spool.push(p, secs(at), pacing_bps(rate));
            }
        }
    }

    /// Active from its start until it completes, or until its last delivery
    /// after it stopped, or until the end of the run.
    fn fill_row(&self, me: u32, hosts: &Hosts, r: &mut FlowResult, series: &mut Vec<Series>) -> Time {
        let f = &hosts.flows[me as usize];
        let t = tcp(f);
        let s = &t.sender.stats;
        r.packets_sent = s.segments_sent;
        r.retransmits = s.retransmits;
        r.retransmitted_fraction = if s.segments_sent > 0 { s.retransmits as f64 / s.segments_sent as f64 } else { 0.0 };
        r.timeouts = s.timeouts;
        r.spurious_timeouts = s.spurious_timeouts;
        super::set_owd(r, &t.owd);
        r.packets_received = t.owd.count();
        r.fast_recoveries = s.fast_recoveries;
        r.rtt_min_s = s.rtt_min.map(secs);
        r.rtt_max_s = s.rtt_max.map(secs);
        r.rtt_avg_s = (s.rtt_samples > 0).then(|| s.rtt_sum / s.rtt_samples as f64 / 1e9);
        r.completed_at_s = s.completed_at.map(secs);
        let subject = || f.name.clone();
        if !t.sender.cwnd_trace.is_empty() {
            let tr = &t.sender.cwnd_trace;
            let t_s = ts(tr.iter().map(|x| x.0));
            series.push(Series { metric: "cwnd".into(), subject: subject(), t_s: t_s.clone(), value: tr.iter().map(|x| x.1 as f64).collect() });
            series.push(Series { metric: "ssthresh".into(), subject: subject(), t_s, value: tr.iter().map(|x| ssthresh_value(x.2)).collect() });
        }
        if !t.receiver.rwnd_trace.is_empty() {
            let tr = &t.receiver.rwnd_trace;
            series.push(Series { metric: "rwnd".into(), subject: subject(), t_s: ts(tr.iter().map(|x| x.0)), value: tr.iter().map(|x| x.1 as f64).collect() });
        }
        if !t.sender.pacing_trace.is_empty() {
            let tr = &t.sender.pacing_trace;
            series.push(Series { metric: "pacing_rate_bps".into(), subject: subject(), t_s: ts(tr.iter().map(|x| x.0)), value: tr.iter().map(|x| pacing_bps(x.1)).collect() });
        }
        s.completed_at.unwrap_or(if f.stop.is_some_and(|st| st < hosts.horizon) { t.receiver.last_delivery } else { hosts.horizon })
    }
}
