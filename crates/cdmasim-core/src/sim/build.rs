//! From a validated ScenarioSpec to a World ready to run.

use crate::engine::Time;
use super::apps;
use super::drop_log::DropLog;
use super::flows::{Counters, Flow};
use super::sampler::Sampler;
use super::world::{Event, Hosts, World};
use crate::engine::{EventQueue, RngStreams};
use crate::net::hop::{BuildContext, BuildError};
use crate::network::Network;
use crate::scenario::ScenarioSpec;
use crate::tcp::rwnd;

/// Build the world. Fails only if a channel cannot be opened (a trace file
/// that went away or changed since the scenario was validated).
pub fn build(spec: &ScenarioSpec) -> Result<World, BuildError> {
    let rng = RngStreams::new(spec.seed);
    let cx = BuildContext { rng: &rng, duration: spec.duration, nodes: spec.nodes.len() };
    let mut net = Network::new(&spec.hops, spec.routes().map_err(BuildError::Routes)?, &cx)?;
    let mut hosts = Hosts {
        q: EventQueue::new(),
        horizon: spec.duration,
        flows: Vec::new(),
        apps: Vec::new(),
        spec_flows: spec.flows.len(),
        free_flows: Vec::new(),
        counters: Counters::default(),
        drop_log: DropLog::default(),
        web_log: Default::default(),
        pcaps: Vec::new(),
        pcap_of_port: Vec::new(),
        pcap_base: Vec::new(),
        pcap_at_offer: Vec::new(),
        samples: Sampler::default(),
        spool: None,
    };
    net.start(&mut hosts);
    // Receive-window state shared by the connections arriving at one node (RBSMQ host scope).
    let mut rwnd_hosts = rwnd::Hosts::default();
    for (i, f) in spec.flows.iter().enumerate() {
        let start = f.start_in(&rng);
        hosts.q.schedule(start, Event::FlowStart { flow: i as u32 });
        if let Some(stop) = f.stop {
            hosts.q.schedule(stop, Event::FlowStop { flow: i as u32 });
        }
        let (app, transport) = apps::build(f, &rng, &mut rwnd_hosts);
        hosts.flows.push(Flow { stop: f.stop, ..Flow::new(f.name.clone(), f.from, f.to, start, transport) });
        hosts.apps.push(app);
    }
    if spec.sample_interval.is_some() {
        hosts.q.schedule(Time::ZERO, Event::Sample);
    }
    hosts.samples = Sampler::new(spec.sample_interval, spec.duration, &net, &hosts.flows);
    Ok(World { net, hosts })
}
