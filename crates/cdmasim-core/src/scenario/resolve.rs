//! Cross-reference validation: names → indices, duplex links → two
//! unidirectional links, routes checked, and a forwarding path checked for
//! every flow (and its ACK path for TCP).

use super::drc;
use super::error::ScenarioError;
use super::raw::{Named, RawScenario};
use super::reader::At;
use super::spec::*;
use std::collections::{HashMap, VecDeque};

fn err(file: &str, at: &At, message: impl Into<String>) -> ScenarioError {
    ScenarioError { file: file.to_string(), line: at.line, field: at.field.clone(), message: message.into() }
}

/// Unique names → index, remembering where each was first defined.
struct Names<'r> {
    what: &'static str,
    index: HashMap<&'r str, (usize, usize)>,
}

impl<'r> Names<'r> {
    fn new(what: &'static str) -> Self {
        Names { what, index: HashMap::new() }
    }

    fn add(&mut self, file: &str, n: &'r Named, idx: usize) -> Result<(), ScenarioError> {
        if let Some(&(_, line)) = self.index.get(n.name.as_str()) {
            return Err(err(file, &n.at, format!("duplicate {} name '{}' (first defined on line {line})", self.what, n.name)));
        }
        self.index.insert(&n.name, (idx, n.at.line));
        Ok(())
    }

    fn find(&self, name: &str) -> Option<usize> {
        self.index.get(name).map(|&(i, _)| i)
    }

    fn get(&self, file: &str, n: &Named) -> Result<usize, ScenarioError> {
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
        // A DRC link's schedule covers the whole run, so it is made here.
        let (rate_bps, rate_schedule) = match &l.drc {
            Some(d) => {
                let steps = drc::schedule(d, file, raw.seed, raw.duration).map_err(|(at, m)| err(file, &at, m.replace('\n', "; ")))?;
                (steps[0].1, steps)
            }
            None => (l.rate_bps, l.rate_schedule.clone()),
        };
        let fwd = LinkSpec {
            name: l.name.name.clone(),
            from,
            to,
            rate_bps,
            delay: l.delay,
            queue: l.queue.clone(),
            rate_schedule,
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

    let node_names: Vec<&str> = raw.nodes.iter().map(|n| n.name.as_str()).collect();
    let router = Router::new(&node_names, &links, &routes);
    let mut flow_names = Names::new("flow");
    let mut flows = Vec::new();
    for (i, f) in raw.flows.iter().enumerate() {
        flow_names.add(file, &f.name, i)?;
        let from = nodes.get(file, &f.from)?;
        let to = nodes.get(file, &f.to)?;
        if from == to {
            return Err(err(file, &f.to.at, format!("a flow from '{}' to itself", f.to.name)));
        }
        if f.start >= raw.duration {
            return Err(err(file, &f.start_at, format!("flow '{}' starts at or after the end of the simulation", f.name.name)));
        }
        let (a, b) = (&f.from.name, &f.to.name);
        router.path(from, to).map_err(|m| err(file, &f.to.at, format!("no path from '{a}' to '{b}': {m}")))?;
        if matches!(f.app, AppSpec::Bulk { .. }) {
            router.path(to, from).map_err(|m| err(file, &f.to.at, format!("no return path for ACKs from '{b}' to '{a}': {m}")))?;
        }
        flows.push(FlowSpec { name: f.name.name.clone(), from, to, start: f.start, stop: f.stop, app: f.app.clone() });
    }

    Ok(ScenarioSpec {
        duration: raw.duration,
        seed: raw.seed,
        sample_interval: raw.sample_interval,
        nodes: raw.nodes.iter().map(|n| NodeSpec { name: n.name.clone() }).collect(),
        links,
        routes,
        flows,
    })
}

/// Forwarding as the world does it: an explicit route for (node, dest) if
/// there is one, otherwise a fewest-hops next link.
struct Router<'s> {
    names: &'s [&'s str],
    links: &'s [LinkSpec],
    /// Neighbours reached by the links leaving each node / nodes whose links
    /// enter it (plain indices, so that a BFS does not touch the LinkSpecs).
    out: Vec<Vec<usize>>,
    into: Vec<Vec<usize>>,
    explicit: HashMap<(usize, usize), usize>,
}

impl<'s> Router<'s> {
    fn new(names: &'s [&'s str], links: &'s [LinkSpec], routes: &[RouteSpec]) -> Self {
        let (mut out, mut into) = (vec![Vec::new(); names.len()], vec![Vec::new(); names.len()]);
        for l in links {
            out[l.from].push(l.to);
            into[l.to].push(l.from);
        }
        Router { names, links, out, into, explicit: routes.iter().map(|r| ((r.node, r.dest), r.link)).collect() }
    }

    /// Hops from every node to `dest` (BFS over reversed links).
    fn hops_to(&self, dest: usize) -> Vec<Option<usize>> {
        let mut dist = vec![None; self.names.len()];
        dist[dest] = Some(0);
        let mut q = VecDeque::from([dest]);
        while let Some(v) = q.pop_front() {
            let d = dist[v].map(|d| d + 1);
            for &u in &self.into[v] {
                if dist[u].is_none() {
                    dist[u] = d;
                    q.push_back(u);
                }
            }
        }
        dist
    }

    /// Walk hop by hop from `from` to `to`; fails on a dead end or a loop.
    fn path(&self, from: usize, to: usize) -> Result<(), String> {
        let dist = self.hops_to(to);
        let mut visited = vec![false; self.names.len()];
        let mut at = from;
        while at != to {
            if visited[at] {
                return Err(format!("routing loop through '{}'", self.names[at]));
            }
            visited[at] = true;
            let next = match self.explicit.get(&(at, to)) {
                Some(&l) => self.links[l].to,
                None => match dist[at] {
                    // BFS guarantees a neighbour one hop closer exists.
                    Some(d) => self.out[at]
                        .iter()
                        .copied()
                        .find(|&m| dist[m] == Some(d - 1))
                        .ok_or_else(|| format!("internal error: no next hop from '{}'", self.names[at]))?,
                    None if at == from => return Err(format!("no links lead from '{}' towards it", self.names[at])),
                    None => return Err(format!("the route reaches '{}', from which no links lead towards it", self.names[at])),
                },
            };
            at = next;
        }
        Ok(())
    }
}
