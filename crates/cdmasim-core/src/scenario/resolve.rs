//! Cross-reference validation: names → indices, duplex links → two
//! unidirectional links, routes checked, and a forwarding path checked for
//! every flow (and its ACK path for TCP).

use super::drc;
use super::cell;
use super::sector;
use super::error::ScenarioError;
use super::raw::{Named, RawScenario};
use super::reader::At;
use super::spec::*;
use crate::engine::RngStreams;
use crate::net::routing::PathError;
use std::collections::HashMap;

/// Most nodes in a scenario: the router keeps a next hop for every pair of
/// nodes (4·N² bytes, 400 MB here), found before anything is built.
pub const MAX_NODES: usize = 10_000;

pub(crate) fn err(file: &str, at: &At, message: impl Into<String>) -> ScenarioError {
    ScenarioError { file: file.to_string(), line: at.line, field: at.field.clone(), message: message.into() }
}

/// Unique names → index, remembering where each was first defined.
pub(crate) struct Names<'r> {
    what: &'static str,
    index: HashMap<&'r str, (usize, usize)>,
}

impl<'r> Names<'r> {
    pub(crate) fn new(what: &'static str) -> Self {
        Names { what, index: HashMap::new() }
    }

    pub(crate) fn add(&mut self, file: &str, n: &'r Named, idx: usize) -> Result<(), ScenarioError> {
        if let Some(&(_, line)) = self.index.get(n.name.as_str()) {
            return Err(err(file, &n.at, format!("duplicate {} name '{}' (first defined on line {line})", self.what, n.name)));
        }
        self.index.insert(&n.name, (idx, n.at.line));
        Ok(())
    }

    pub(crate) fn find(&self, name: &str) -> Option<usize> {
        self.index.get(name).map(|&(i, _)| i)
    }

    pub(crate) fn get(&self, file: &str, n: &Named) -> Result<usize, ScenarioError> {
        self.find(&n.name).ok_or_else(|| err(file, &n.at, format!("no {} named '{}'", self.what, n.name)))
    }
}

pub(crate) fn resolve(raw: RawScenario, file: &str) -> Result<ScenarioSpec, ScenarioError> {
    let mut nodes = Names::new("node");
    for (i, n) in raw.nodes.iter().enumerate() {
        nodes.add(file, n, i)?;
    }

    let mut links = Vec::new();
    let mut link_names: HashMap<String, (usize, usize)> = HashMap::new();
    for l in &raw.links {
        let from = nodes.get(file, &l.from)?;
        let to = nodes.get(file, &l.to)?;
        let mut add = |name: String, spec: LinkSpec| -> Result<(), ScenarioError> {
            if let Some(&(_, line)) = link_names.get(&name) {
                return Err(err(file, &l.name.at, format!("duplicate link name '{name}' (first defined on line {line})")));
            }
            link_names.insert(name, (links.len(), l.name.at.line));
            links.push(spec);
            Ok(())
        };
        // A DRC link's channel is described here and drawn as the run goes.
        let drc = match &l.drc {
            Some(d) => Some(drc::resolve(d, file, raw.seed).map_err(|(at, m)| err(file, &at, m.replace('\n', "; ")))?),
            None => None,
        };
        let fwd = LinkSpec {
            name: l.name.name.clone(),
            from,
            to,
            rate_bps: l.rate_bps,
            delay: l.delay,
            queue: l.queue.clone(),
            rate_schedule: l.rate_schedule.clone(),
            rate_period: l.rate_period,
            drc,
            loss: l.loss,
        };
        add(l.name.name.clone(), fwd)?;
        if l.duplex {
            let rev_name = format!("{}/rev", l.name.name);
            let rev = LinkSpec {
                name: rev_name.clone(),
                from: to,
                to: from,
                rate_bps: l.reverse_rate_bps,
                delay: l.delay,
                queue: l.reverse_queue.clone(),
                rate_schedule: Vec::new(),
                rate_period: None,
                drc: None,
                loss: l.reverse_loss,
            };
            add(rev_name, rev)?;
        }
    }

    let mut routes = Vec::new();
    let mut seen_routes: HashMap<(usize, usize), usize> = HashMap::new();
    for r in &raw.routes {
        let node = nodes.get(file, &r.node)?;
        let dest = nodes
            .find(&r.dest.name)
            .ok_or_else(|| err(file, &r.dest.at, format!("route to nowhere: no node named '{}'", r.dest.name)))?;
        if dest == node {
            return Err(err(file, &r.dest.at, format!("a route from '{}' to itself", r.dest.name)));
        }
        let link = link_names
            .get(&r.link.name)
            .map(|&(i, _)| i)
            .ok_or_else(|| err(file, &r.link.at, format!("no link named '{}'", r.link.name)))?;
        if links[link].from != node {
            let starts = &raw.nodes[links[link].from].name;
            return Err(err(
                file,
                &r.link.at,
                format!("link '{}' starts at node '{}', not at '{}'", r.link.name, starts, r.node.name),
            ));
        }
        if let Some(line) = seen_routes.insert((node, dest), r.node.at.line) {
            return Err(err(file, &r.node.at, format!("a second route from '{}' to '{}' (first on line {line})", r.node.name, r.dest.name)));
        }
        routes.push(RouteSpec { node, dest, link });
    }

    let mut node_specs: Vec<NodeSpec> = raw.nodes.iter().map(|n| NodeSpec { name: n.name.clone() }).collect();
    let rans = sector::resolve(&raw, file, &mut nodes, &mut node_specs, &mut links, &mut link_names)?;
    let cells = cell::resolve(&raw, file, &mut nodes, &mut node_specs, &mut links, &mut link_names)?;
    let radio_links = super::radio_link::resolve(&raw, file, &nodes)?;
    let is2000 = super::presets::is2000::resolve(&raw, file, &nodes)?;
    if node_specs.len() > MAX_NODES {
        // Blame the first node table past the limit, or the last one there is.
        let at = raw.nodes.get(MAX_NODES).or(raw.nodes.last()).map_or(At { line: 0, field: "node".into() }, |n| n.at.clone());
        return Err(err(file, &at, format!(
            "{} nodes (with the users' and mobiles'): at most {MAX_NODES} (the routing table takes 4 bytes per pair of nodes)",
            node_specs.len()
        )));
    }
    let hops = (links.into_iter().map(HopSpec::Link))
        .chain(rans.into_iter().map(HopSpec::Evdo))
        .chain(cells.into_iter().map(HopSpec::Cell))
        .chain(radio_links.into_iter().map(HopSpec::Rlp))
        .chain(is2000.into_iter().map(HopSpec::Is2000))
        .collect();
    let mut spec = ScenarioSpec {
        duration: raw.duration,
        seed: raw.seed,
        sample_interval: raw.sample_interval,
        nodes: node_specs,
        hops,
        routes,
        flows: Vec::new(),
    };
    let router = spec.routes();
    let names: Vec<&str> = spec.nodes.iter().map(|n| n.name.as_str()).collect();
    let why = |e: PathError| match e {
        PathError::Loop { at } => format!("routing loop through '{}'", names[at as usize]),
        PathError::DeadEnd { at, first: true } => format!("no links lead from '{}' towards it", names[at as usize]),
        PathError::DeadEnd { at, .. } => format!("the route reaches '{}', from which no links lead towards it", names[at as usize]),
    };
    let mut flow_names = Names::new("flow");
    let mut flows = Vec::new();
    for (i, f) in raw.flows.iter().enumerate() {
        flow_names.add(file, &f.name, i)?;
        let from = nodes.get(file, &f.from)?;
        let to = nodes.get(file, &f.to)?;
        if from == to {
            return Err(err(file, &f.to.at, format!("a flow from '{}' to itself", f.to.name)));
        }
        if f.start.saturating_add(f.start_jitter) > raw.duration || f.start >= raw.duration {
            return Err(err(file, &f.start_at, format!("flow '{}' starts at or after the end of the simulation", f.name.name)));
        }
        // Start jitter: the same seed gives the same starts, another seed others.
        let start = f.start
            + match f.start_jitter {
                0 => 0,
                j => RngStreams::new(raw.seed).stream(&format!("start/{}", f.name.name)).below(j),
            };
        let (a, b) = (&f.from.name, &f.to.name);
        router.path(from as u32, to as u32).map_err(|m| err(file, &f.to.at, format!("no path from '{a}' to '{b}': {}", why(m))))?;
        match f.app {
            AppSpec::Bulk { .. } => {
                router.path(to as u32, from as u32).map_err(|m| err(file, &f.to.at, format!("no return path for ACKs from '{b}' to '{a}': {}", why(m))))?;
            }
            AppSpec::Http { .. } => {
                router.path(to as u32, from as u32).map_err(|m| err(file, &f.to.at, format!("no path for requests from '{b}' to '{a}': {}", why(m))))?;
            }
            AppSpec::Cbr { .. } => {}
        }
        flows.push(FlowSpec { name: f.name.name.clone(), from, to, start, stop: f.stop, app: f.app.clone() });
    }

    spec.flows = flows;
    if let (Some(interval), Some(at)) = (spec.sample_interval, &raw.sample_interval_at) {
        let values = (spec.duration / interval).saturating_mul(spec.sampled_series());
        if values > super::parse::MAX_SAMPLE_VALUES {
            return Err(err(file, at, format!(
                "{} samples x {} series = {values} values over the run (at most {}): give a longer sample_interval",
                spec.duration / interval,
                spec.sampled_series(),
                super::parse::MAX_SAMPLE_VALUES
            )));
        }
    }
    Ok(spec)
}
