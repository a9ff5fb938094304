//! From a validated ScenarioSpec to a World ready to run.

use super::sampler::Sampler;
use super::world::{Counters, Event, Flow, FlowKind, HopTimers, TcpFlow, World};
use crate::app::http::HttpClient;
use crate::app::{CbrSink, CbrSource};
use super::web::WebFlow;
use crate::engine::{EventQueue, RngStreams};
use super::hops::AnyHop;
use crate::channel::{link_rate, ChannelError};
use crate::cdma2000::cell::Cell;
use crate::evdo::ran::EvdoRan;
use crate::rlp::link::RlpLink;
use crate::net::link::RateSteps;
use crate::net::{queue, Hop, Link};
use crate::scenario::{AppSpec, ScenarioSpec};
use crate::tcp::rwnd;
use crate::tcp::{cc, TcpReceiver, TcpSender};

/// Build the world. Fails only if a channel cannot be opened (a trace file
/// that went away or changed since the scenario was validated).
pub fn build(spec: &ScenarioSpec) -> Result<World, ChannelError> {
    let rng = RngStreams::new(spec.seed);
    let mut q = EventQueue::new();
    let mut hops: Vec<AnyHop> = Vec::with_capacity(spec.links.len() + spec.rans.len() + spec.cells.len());
    for l in &spec.links {
        let steps: RateSteps = match &l.drc {
            Some(d) => Box::new(link_rate::RateSteps::new(d.open()?, spec.duration)),
            None => match l.rate_period {
                Some((start, period)) => crate::net::link::periodic_steps(l.rate_schedule.clone(), start, period, spec.duration),
                None => Box::new(l.rate_schedule.clone().into_iter()),
            },
        };
        hops.push(AnyHop::Link(Link::new(
            l.name.clone(),
            l.from as u32,
            l.to as u32,
            l.rate_bps,
            l.delay,
            queue::build(&l.queue, l.rate_bps, &rng, &l.name),
            l.loss,
            rng.stream(&format!("loss/{}", l.name)),
            steps,
        )));
    }
    for r in &spec.rans {
        hops.push(AnyHop::Evdo(Box::new(EvdoRan::new(r, &rng)?)));
    }
    for c in &spec.cells {
        hops.push(AnyHop::Cell(Box::new(Cell::new(c, spec.nodes.len(), &rng))));
    }
    for r in &spec.radio_links {
        hops.push(AnyHop::Rlp(Box::new(RlpLink::new(r, &rng))));
    }
    for s in &spec.is2000 {
        hops.push(AnyHop::Is2000(Box::new(crate::is2000::sector::Is2000Sector::new(s, &rng))));
    }
    let mut hop_timers = HopTimers::new(hops.len());
    for (h, hop) in hops.iter().enumerate() {
        hop_timers.arm(&mut q, h as u32, hop.deadline());
    }
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
                    FlowKind::Tcp(Box::new(TcpFlow::new(sender, receiver, tcp.rcv_buffer, tcp.handshake)))
                }
                AppSpec::Cbr { packet_size, rate_bps } => {
                    FlowKind::Cbr { source: CbrSource::new(*packet_size, *rate_bps), sink: CbrSink::default() }
                }
                AppSpec::Http { http, tcp } => {
                    let client = HttpClient::new(http.clone(), rng.stream(&format!("web/{}", f.name)));
                    FlowKind::Web(Box::new(WebFlow::new(client, tcp.clone())))
                }
            };
            Flow { stop: f.stop, ..Flow::new(f.name.clone(), f.from as u32, f.to as u32, f.start, kind) }
        })
        .collect();
    if spec.sample_interval.is_some() {
        q.schedule(0, Event::Sample);
    }
    Ok(World {
        q,
        horizon: spec.duration,
        samples: Sampler::new(spec.sample_interval, &hops, &flows),
        routes: spec.routes(),
        hops,
        hop_timers,
        spec_flows: flows.len(),
        free_flows: Vec::new(),
        flows,
        counters: Counters::default(),
        drop_log: Default::default(),
        pcaps: Vec::new(),
        pcap_of_hop: Vec::new(),
    })
}
