//! Periodic samples: queue length of every link and bytes delivered by every
//! flow, every `interval`. Per-event series (cwnd, one-way delays) are kept by
//! the endpoints themselves.

use super::world::{Flow, FlowKind};
use crate::engine::Time;
use crate::net::Link;

#[derive(Default)]
pub struct Sampler {
    pub interval: Option<Time>,
    pub t: Vec<Time>,
    /// Per link: packets in its queue at each sample.
    pub queue_pkts: Vec<Vec<u32>>,
    /// Per flow: payload bytes delivered so far at each sample.
    pub delivered: Vec<Vec<u64>>,
}

pub fn delivered_bytes(f: &Flow) -> u64 {
    match &f.kind {
        FlowKind::Tcp(t) => t.receiver.delivered,
        FlowKind::Cbr { sink, .. } => sink.bytes,
    }
}

impl Sampler {
    pub fn new(interval: Option<Time>, links: usize, flows: usize) -> Self {
        Sampler { interval, t: Vec::new(), queue_pkts: vec![Vec::new(); links], delivered: vec![Vec::new(); flows] }
    }

    pub fn sample(&mut self, now: Time, links: &[Link], flows: &[Flow]) {
        self.t.push(now);
        for (s, l) in self.queue_pkts.iter_mut().zip(links) {
            s.push(l.queue.len_packets() as u32);
        }
        for (s, f) in self.delivered.iter_mut().zip(flows) {
            s.push(delivered_bytes(f));
        }
    }
}
