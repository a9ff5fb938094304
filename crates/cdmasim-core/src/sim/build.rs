//! From a validated ScenarioSpec to a World ready to run.

use super::sampler::Sampler;
use super::world::{Counters, Event, Flow, FlowKind, TcpFlow, World};
use crate::app::{CbrSink, CbrSource};
use crate::engine::{EventQueue, RngStreams};
use crate::net::{queue, routing, Link};
use crate::scenario::{AppSpec, ScenarioSpec};
use crate::tcp::rwnd;
use crate::tcp::{cc, TcpReceiver, TcpSender};

pub fn build(spec: &ScenarioSpec) -> World {
    let rng = RngStreams::new(spec.seed);
    let mut q = EventQueue::new();
    let links: Vec<Link> = spec
        .links
        .iter()
        .enumerate()
        .map(|(i, l)| {
            // Rate steps at time 0 take effect at once.
            let mut rate = l.rate_bps;
            let mut steps: Vec<_> = l.rate_schedule.clone();
            while steps.first().is_some_and(|s| s.0 == 0) {
                rate = steps.remove(0).1;
            }
            if let Some(first) = steps.first() {
                q.schedule(first.0, Event::RateStep { link: i as u32 });
            }
            Link::new(
                l.name.clone(),
                l.from as u32,
                l.to as u32,
                rate,
                l.delay,
                queue::build(&l.queue, rate, &rng, &l.name),
                l.loss,
                rng.stream(&format!("loss/{}", l.name)),
                steps,
            )
        })
        .collect();
    // Receive-window state shared by the connections arriving at one node (RBSMQ host scope).
    let mut hosts = rwnd::Hosts::default();
    let flows: Vec<Flow> = spec
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            q.schedule(f.start, Event::FlowStart { flow: i as u32 });
            if let Some(stop) = f.stop {
                q.schedule(stop, Event::FlowStop { flow: i as u32 });
            }
            let kind = match &f.app {
                AppSpec::Bulk { bytes, tcp } => {
                    let sender = TcpSender::new(tcp.clone(), cc::by_name(tcp.cc), *bytes);
                    let receiver = TcpReceiver::new(tcp.clone(), hosts.policy(tcp.rwnd, tcp.mss, f.to as u32));
                    FlowKind::Tcp(Box::new(TcpFlow::new(sender, receiver, tcp.rcv_buffer)))
                }
                AppSpec::Cbr { packet_size, rate_bps } => {
                    FlowKind::Cbr { source: CbrSource::new(*packet_size, *rate_bps), sink: CbrSink::default() }
                }
            };
            Flow {
                name: f.name.clone(),
                from: f.from as u32,
                to: f.to as u32,
                start: f.start,
                stop: f.stop,
                kind,
                packets_sent: 0,
            }
        })
        .collect();
    if spec.sample_interval.is_some() {
        q.schedule(0, Event::Sample);
    }
    World {
        q,
        horizon: spec.duration,
        samples: Sampler::new(spec.sample_interval, links.len(), flows.len()),
        routes: routing::build_routes(spec),
        links,
        flows,
        counters: Counters::default(),
        drop_log: Vec::new(),
        pcaps: Vec::new(),
        pcap_of_link: Vec::new(),
    }
}
