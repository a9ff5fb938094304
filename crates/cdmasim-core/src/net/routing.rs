//! The one router: static routes to a hop and a port for every (node,
//! destination) pair, used both to validate a scenario and to run it.
//!
//! The graph's edges are the hops' exits: a link is one edge (its port 0), a
//! radio access network one edge per user (port = user). Pairs without an
//! explicit route get a fewest-hops route, found by a breadth-first search
//! backwards from the destination; ties go to the edge listed first, so
//! routes never depend on hash order. Validation walks the very table the
//! world forwards with, so a scenario is accepted only if every flow's
//! packets get through as routed (no loop, no dead end).

use super::NodeId;
use std::collections::VecDeque;

pub const NO_ROUTE: u32 = u32::MAX;

/// One way out of a node: through `port` of `hop`, arriving at `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    pub from: NodeId,
    pub to: NodeId,
    pub hop: u32,
    pub port: u32,
}

/// An explicit route: at `node`, packets for `dest` take edge `edge`.
#[derive(Clone, Copy, Debug)]
pub struct Explicit {
    pub node: NodeId,
    pub dest: NodeId,
    pub edge: usize,
}

/// Why a path does not get through.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathError {
    /// The walk came back to this node.
    Loop { at: NodeId },
    /// No edge leads from this node towards the destination (`first`: it is
    /// the source itself).
    DeadEnd { at: NodeId, first: bool },
}

pub struct Routes {
    nodes: usize,
    /// `next[node * nodes + dest]`: index into `edges`, or NO_ROUTE.
    next: Vec<u32>,
    edges: Vec<Edge>,
}

impl Routes {
    pub fn build(nodes: usize, edges: Vec<Edge>, explicit: &[Explicit]) -> Routes {
        let mut next = vec![NO_ROUTE; nodes * nodes];
        let mut into: Vec<Vec<usize>> = vec![Vec::new(); nodes];
        for (i, e) in edges.iter().enumerate() {
            into[e.to.index()].push(i);
        }
        let mut seen = vec![false; nodes];
        let mut frontier = VecDeque::new();
        for dest in 0..nodes {
            seen.iter_mut().for_each(|s| *s = false);
            seen[dest] = true;
            frontier.push_back(dest);
            while let Some(v) = frontier.pop_front() {
                // Every edge u -> v gives u a route to dest through it.
                for &ei in &into[v] {
                    let u = edges[ei].from.index();
                    if !seen[u] {
                        seen[u] = true;
                        next[u * nodes + dest] = ei as u32;
                        frontier.push_back(u);
                    }
                }
            }
        }
        for r in explicit {
            next[r.node.index() * nodes + r.dest.index()] = r.edge as u32;
        }
        Routes { nodes, next, edges }
    }

    /// The edge packets at `node` for `dest` take.
    #[inline]
    pub fn next(&self, node: NodeId, dest: NodeId) -> Option<&Edge> {
        let e = self.next[node.index() * self.nodes + dest.index()];
        (e != NO_ROUTE).then(|| &self.edges[e as usize])
    }

    /// Follow the table from `from` to `to`.
    pub fn path(&self, from: NodeId, to: NodeId) -> Result<Vec<Edge>, PathError> {
        let mut visited = vec![false; self.nodes];
        let mut path = Vec::new();
        let mut at = from;
        while at != to {
            if visited[at.index()] {
                return Err(PathError::Loop { at });
            }
            visited[at.index()] = true;
            let e = *self.next(at, to).ok_or(PathError::DeadEnd { at, first: at == from })?;
            path.push(e);
            at = e.to;
        }
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edges(pairs: &[(u32, u32)]) -> Vec<Edge> {
        pairs.iter().enumerate().map(|(i, &(from, to))| Edge { from: NodeId(from), to: NodeId(to), hop: i as u32, port: 0 }).collect()
    }

    #[test]
    fn fewest_hops_with_ties_to_the_edge_listed_first() {
        // 0 -> 1 -> 3 and 0 -> 2 -> 3: both two hops; 1 -> 3 is listed before 2 -> 3.
        let r = Routes::build(4, edges(&[(0, 2), (0, 1), (1, 3), (2, 3)]), &[]);
        let p = r.path(NodeId(0), NodeId(3)).unwrap();
        assert_eq!(p.iter().map(|e| e.to).collect::<Vec<_>>(), vec![NodeId(1), NodeId(3)]);
    }

    #[test]
    fn an_explicit_route_that_loops_is_found() {
        // A=0 B=1 C=2 D=3: A->B, A->C, C->D, B->D, C->A, D->A, and C->D via C->A.
        // The BFS sends A's packets for D through C (C->D is listed before
        // B->D), C sends them back to A: the walk must see the loop.
        let e = edges(&[(0, 1), (0, 2), (2, 3), (1, 3), (2, 0), (3, 0)]);
        let r = Routes::build(4, e, &[Explicit { node: NodeId(2), dest: NodeId(3), edge: 4 }]);
        assert_eq!(r.path(NodeId(2), NodeId(3)), Err(PathError::Loop { at: NodeId(2) }));
        assert_eq!(r.path(NodeId(0), NodeId(3)), Err(PathError::Loop { at: NodeId(0) }));
        assert!(r.path(NodeId(1), NodeId(3)).is_ok());
    }

    #[test]
    fn dead_ends_say_where() {
        let r = Routes::build(3, edges(&[(0, 1)]), &[]);
        assert_eq!(r.path(NodeId(0), NodeId(2)), Err(PathError::DeadEnd { at: NodeId(0), first: true }));
        let r = Routes::build(3, edges(&[(0, 1)]), &[Explicit { node: NodeId(0), dest: NodeId(2), edge: 0 }]);
        assert_eq!(r.path(NodeId(0), NodeId(2)), Err(PathError::DeadEnd { at: NodeId(1), first: false }));
    }
}
