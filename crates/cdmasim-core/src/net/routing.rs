//! Static routes: a next-hop link for every (node, destination) pair.
//! Pairs without an explicit route get a fewest-hops route, found by a
//! breadth-first search backwards from the destination; ties go to the link
//! listed first, so routes do not depend on hash order.

use crate::scenario::ScenarioSpec;
use std::collections::VecDeque;

pub const NO_ROUTE: u32 = u32::MAX;

/// `table[node][dest]` = index of the outgoing link, or NO_ROUTE.
pub fn build_routes(spec: &ScenarioSpec) -> Vec<Vec<u32>> {
    let n = spec.nodes.len();
    let mut table = vec![vec![NO_ROUTE; n]; n];
    for dest in 0..n {
        let mut dist = vec![usize::MAX; n];
        dist[dest] = 0;
        let mut frontier = VecDeque::from([dest]);
        while let Some(v) = frontier.pop_front() {
            // Every link u -> v gives u a route to dest through it.
            for (li, l) in spec.links.iter().enumerate() {
                if l.to == v && dist[l.from] == usize::MAX {
                    dist[l.from] = dist[v] + 1;
                    table[l.from][dest] = li as u32;
                    frontier.push_back(l.from);
                }
            }
        }
    }
    for r in &spec.routes {
        table[r.node][r.dest] = r.link as u32;
    }
    table
}

/// Whether packets from `from` reach `to` following the table (no loop, no gap).
pub fn reachable(spec: &ScenarioSpec, table: &[Vec<u32>], from: usize, to: usize) -> bool {
    let mut at = from;
    for _ in 0..=spec.nodes.len() {
        if at == to {
            return true;
        }
        let l = table[at][to];
        if l == NO_ROUTE {
            return false;
        }
        at = spec.links[l as usize].to;
    }
    false
}
