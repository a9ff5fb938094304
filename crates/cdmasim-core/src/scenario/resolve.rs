//! Cross-reference validation: names → indices. The kinds add their hops
//! to one ordered list (`network::kinds::Kinds::all`: the links first, a duplex link
//! being two), then routes are checked, and a forwarding path for every
//! flow (and its ACK path for TCP).

use crate::net::NodeId;
use crate::input::error::ScenarioError;
use crate::input::kind::{Names, Resolver};
use crate::input::limits::{MAX_NODES, MAX_SAMPLE_VALUES};
use super::raw::RawScenario;
use crate::input::reader::At;
use super::spec::*;
use crate::net::routing::PathError;
use std::collections::HashMap;

pub(crate) use crate::input::kind::err;


pub(crate) fn resolve(mut raw: RawScenario, file: &str) -> Result<ScenarioSpec, ScenarioError> {
    let mut cx = Resolver::new(file, raw.duration, &raw.nodes)?;
    for kind in raw.kinds.all() {
        kind.resolve(&mut cx)?;
    }
    let mut routes = Vec::new();
    let mut seen_routes: HashMap<(NodeId, NodeId), usize> = HashMap::new();
    for r in &raw.routes {
        let node = cx.node(&r.node)?;
        let dest = cx
            .nodes
            .find(&r.dest.name)
            .map(NodeId::new)
            .ok_or_else(|| err(file, &r.dest.at, format!("route to nowhere: no node named '{}'", r.dest.name)))?;
        if dest == node {
            return Err(err(file, &r.dest.at, format!("a route from '{}' to itself", r.dest.name)));
        }
        let link = cx.link(&r.link.name).ok_or_else(|| err(file, &r.link.at, format!("no link named '{}'", r.link.name)))?;
        let HopSpec::Link(l) = &cx.hops[link] else { unreachable!("a link name names a link") };
        if l.from != node {
            let starts = cx.node_name(l.from);
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

    let Resolver { nodes, node_names, hops, .. } = cx;
    if node_names.len() > MAX_NODES {
        // Blame the first node table past the limit, or the last one there is.
        let at = raw.nodes.get(MAX_NODES).or(raw.nodes.last()).map_or(At { line: 0, field: "node".into() }, |n| n.at.clone());
        return Err(err(file, &at, format!(
            "{} nodes (with the users' and mobiles'): at most {MAX_NODES} (routes are searched from every node to every other)",
            node_names.len()
        )));
    }
    let mut spec = ScenarioSpec {
        duration: raw.duration,
        seed: raw.seed,
        sample_interval: raw.sample_interval,
        nodes: node_names.into_iter().map(|name| NodeSpec { name }).collect(),
        hops,
        routes,
        flows: Vec::new(),
    };
    let router = spec.routes().map_err(|e| {
        // The table's size follows the nodes and their links: blame the
        // last node table.
        let at = raw.nodes.last().map_or(At { line: 0, field: "node".into() }, |n| n.at.clone());
        err(file, &at, e.to_string())
    })?;
    let names: Vec<&str> = spec.nodes.iter().map(|n| n.name.as_str()).collect();
    let why = |e: PathError| match e {
        PathError::Loop { at } => format!("routing loop through '{}'", names[at.index()]),
        PathError::DeadEnd { at, first: true } => format!("no links lead from '{}' towards it", names[at.index()]),
        PathError::DeadEnd { at, .. } => format!("the route reaches '{}', from which no links lead towards it", names[at.index()]),
    };
    let mut flow_names = Names::new("flow");
    let mut flows = Vec::new();
    for (i, f) in raw.flows.iter().enumerate() {
        flow_names.add(file, &f.name, i)?;
        let from = NodeId::new(nodes.get(file, &f.from)?);
        let to = NodeId::new(nodes.get(file, &f.to)?);
        if from == to {
            return Err(err(file, &f.to.at, format!("a flow from '{}' to itself", f.to.name)));
        }
        if f.start.saturating_add(f.start_jitter) > raw.duration || f.start >= raw.duration {
            return Err(err(file, &f.start_at, format!("flow '{}' starts at or after the end of the simulation", f.name.name)));
        }
        let (a, b) = (&f.from.name, &f.to.name);
        router.path(from, to).map_err(|m| err(file, &f.to.at, format!("no path from '{a}' to '{b}': {}", why(m))))?;
        match f.app {
            AppSpec::Bulk { .. } => {
                router.path(to, from).map_err(|m| err(file, &f.to.at, format!("no return path for ACKs from '{b}' to '{a}': {}", why(m))))?;
            }
            AppSpec::Http { .. } => {
                router.path(to, from).map_err(|m| err(file, &f.to.at, format!("no path for requests from '{b}' to '{a}': {}", why(m))))?;
            }
            AppSpec::Cbr { .. } => {}
        }
        flows.push(FlowSpec {
            name: f.name.name.clone(),
            from,
            to,
            start: f.start,
            start_jitter: f.start_jitter,
            stop: f.stop,
            app: f.app.clone(),
        });
    }

    spec.flows = flows;
    if let (Some(interval), Some(at)) = (spec.sample_interval, &raw.sample_interval_at) {
        let values = (spec.duration / interval).saturating_mul(spec.sampled_series());
        if values > MAX_SAMPLE_VALUES {
            return Err(err(file, at, format!(
                "{} samples x {} series = {values} values over the run (at most {}): give a longer sample_interval",
                spec.duration / interval,
                spec.sampled_series(),
                MAX_SAMPLE_VALUES
            )));
        }
    }
    Ok(spec)
}
