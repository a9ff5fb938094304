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
//!
//! A node keeps one edge instead of a row when it sends every other node
//! by that edge: it has one way out, no explicit route, and reaches every
//! node (a host or a user in a network linked both ways). The others (a
//! base station, a router, a server; and every node that cannot reach
//! some node, which must answer "no route" for it) keep a row of the
//! table, the next edge for every destination. A cellular network's table
//! so holds a row per base station, not per user: 1,000 sectors of 10
//! users (11,001 nodes) keep 1,001 rows (44 MB) where the full table takes
//! 11,001 (484 MB). A node no other node reaches (one without links) gives
//! every node a row. Rows are bounded by the limit the scenario's reader
//! gives. In a network where every node reaches every other, one O(N + E)
//! check decides; elsewhere a first search from every node counts how each
//! sends. Nothing larger than the rows is held. A destination reached by
//! one edge only (a user behind its base station) needs no search: its
//! column is its neighbour's (`fill_rows`), so a cellular network searches
//! once per base station, not once per user.

use super::NodeId;

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

/// The table would hold `entries`, more than the `limit` it was built with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooManyRoutes {
    pub entries: u64,
    pub limit: u64,
}

impl std::fmt::Display for TooManyRoutes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the routing table would keep {} entries (4 bytes each): at most {}; a row of it goes to every node with more than one way out, an explicit route, or a node it cannot reach: link every node both ways (a node without links leaves every other without a route to it), or use fewer routers and base stations",
            self.entries, self.limit
        )
    }
}

pub struct Routes {
    nodes: usize,
    /// Where node n's next edges are: `table[base + (dest & mask)]`, the
    /// mask all ones for a node with a row, 0 for a node with one entry.
    at: Vec<(u32, u32)>,
    /// The rows and the single entries: indices into `edges`, or NO_ROUTE.
    table: Vec<u32>,
    edges: Vec<Edge>,
}

/// The breadth-first search backwards from one destination, with what it
/// needs kept between searches.
struct Search {
    /// The edges into each node, as (from, edge) in the order listed, in
    /// one array: `into[start[v]..start[v + 1]]`.
    start: Vec<usize>,
    into: Vec<(u32, u32)>,
    /// Each node's edge towards the current destination, or NO_ROUTE.
    found: Vec<u32>,
    /// The nodes given a route, in the order found: the search's queue too.
    touched: Vec<usize>,
}

impl Search {
    fn new(nodes: usize, edges: &[Edge]) -> Search {
        let mut start = vec![0usize; nodes + 1];
        for e in edges {
            start[e.to.index() + 1] += 1;
        }
        for v in 0..nodes {
            start[v + 1] += start[v];
        }
        let mut into = vec![(0u32, 0u32); edges.len()];
        let mut fill = start.clone();
        for (i, e) in edges.iter().enumerate() {
            into[fill[e.to.index()]] = (e.from.0, i as u32);
            fill[e.to.index()] += 1;
        }
        Search { start, into, found: vec![NO_ROUTE; nodes], touched: Vec::with_capacity(nodes) }
    }

    /// Every node's fewest-hops edge towards `dest` (ties to the edge
    /// listed first), explicit routes not applied: `touched` lists the
    /// nodes with one, `found` holds it.
    fn from(&mut self, dest: usize) {
        for &u in &self.touched {
            self.found[u] = NO_ROUTE;
        }
        self.touched.clear();
        let (mut head, mut v) = (0, dest);
        loop {
            // Every edge u -> v gives u a route to dest through it.
            for &(u, ei) in &self.into[self.start[v]..self.start[v + 1]] {
                let u = u as usize;
                if u != dest && self.found[u] == NO_ROUTE {
                    self.found[u] = ei;
                    self.touched.push(u);
                }
            }
            if head == self.touched.len() {
                break;
            }
            v = self.touched[head];
            head += 1;
        }
    }
}

/// Explicit routes by destination: `of(dest)` gives those for `dest`,
/// routes from a destination to itself (never asked for) left out.
struct ExplicitByDest<'a> {
    routes: Vec<&'a Explicit>,
}

impl<'a> ExplicitByDest<'a> {
    fn new(explicit: &'a [Explicit]) -> Self {
        let mut routes: Vec<&Explicit> = explicit.iter().filter(|r| r.node != r.dest).collect();
        // Stable: of two routes for one pair, the later is applied last.
        routes.sort_by_key(|r| r.dest);
        ExplicitByDest { routes }
    }

    fn of(&self, dest: usize) -> &[&'a Explicit] {
        let lo = self.routes.partition_point(|r| r.dest.index() < dest);
        let hi = self.routes.partition_point(|r| r.dest.index() <= dest);
        &self.routes[lo..hi]
    }
}

/// Breadth-first search backwards from every destination in turn: `visit`
/// hears (node, destination, edge) for every node with a route there, the
/// edge it takes, explicit routes applied.
fn each_route(nodes: usize, edges: &[Edge], explicit: &[Explicit], mut visit: impl FnMut(usize, usize, u32)) {
    let mut search = Search::new(nodes, edges);
    let explicit = ExplicitByDest::new(explicit);
    for dest in 0..nodes {
        search.from(dest);
        for r in explicit.of(dest) {
            let u = r.node.index();
            if search.found[u] == NO_ROUTE {
                search.touched.push(u);
            }
            search.found[u] = r.edge as u32;
        }
        for &u in &search.touched {
            visit(u, dest, search.found[u]);
        }
    }
}

/// Fill the rows of `table` (node u's at `at[u].0`, for the nodes with
/// `has_row`). A destination d reached by one edge only, w -> d, needs no
/// search of its own: the search from d finds w first and then what the
/// search from w finds, in the same order (d, in that one's queue, finds
/// nothing new), so every node but w and d goes to d as it goes to w, and
/// w takes its edge to d. Its column is copied from w's once w's is done
/// (unless w is the destination of an explicit route, which would carry
/// over); a base station's users are so copied from the station's column.
fn fill_rows(nodes: usize, edges: &[Edge], explicit: &[Explicit], has_row: &[bool], at: &[(u32, u32)], table: &mut [u32]) {
    let explicit = ExplicitByDest::new(explicit);
    let mut in_degree = vec![0u32; nodes];
    let mut last_in = vec![0usize; nodes];
    for (i, e) in edges.iter().enumerate() {
        in_degree[e.to.index()] += 1;
        last_in[e.to.index()] = i;
    }
    // Each destination's column to copy, if any, and the columns copied
    // from each.
    let parent: Vec<Option<usize>> = (0..nodes)
        .map(|d| {
            let w = (in_degree[d] == 1).then(|| edges[last_in[d]].from.index())?;
            (w != d && explicit.of(w).is_empty()).then_some(w)
        })
        .collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes];
    for (d, w) in parent.iter().enumerate() {
        if let &Some(w) = w {
            children[w].push(d);
        }
    }
    let rows: Vec<usize> = (0..nodes).filter(|&u| has_row[u]).collect();
    let mut search = Search::new(nodes, edges);
    let mut done = vec![false; nodes];
    let mut stack: Vec<usize> = Vec::new();
    // Searched destinations first, each followed by those copied from it;
    // then any left (a ring of nodes each reached by one edge from the
    // last), searched as well.
    let order = (0..nodes).filter(|&d| parent[d].is_none()).chain(0..nodes);
    for root in order {
        if done[root] {
            continue;
        }
        search.from(root);
        for &u in search.touched.iter().filter(|&&u| has_row[u]) {
            table[at[u].0 as usize + root] = search.found[u];
        }
        apply(&explicit, root, has_row, at, table);
        done[root] = true;
        stack.extend(children[root].iter().filter(|&&d| !done[d]));
        while let Some(d) = stack.pop() {
            let w = parent[d].expect("a child has a parent");
            for &u in &rows {
                let base = at[u].0 as usize;
                if u == w {
                    table[base + d] = last_in[d] as u32;
                } else if u != d {
                    table[base + d] = table[base + w];
                }
            }
            apply(&explicit, d, has_row, at, table);
            done[d] = true;
            stack.extend(children[d].iter().filter(|&&c| !done[c]));
        }
    }
}

/// Write the explicit routes for `dest` into the rows.
fn apply(explicit: &ExplicitByDest, dest: usize, has_row: &[bool], at: &[(u32, u32)], table: &mut [u32]) {
    for r in explicit.of(dest) {
        let u = r.node.index();
        if has_row[u] {
            table[at[u].0 as usize + dest] = r.edge as u32;
        }
    }
}

/// Whether every node reaches every other: a search forwards and one
/// backwards from node 0 both reach all.
fn strongly_connected(nodes: usize, edges: &[Edge]) -> bool {
    let reaches_all = |ends: &dyn Fn(&Edge) -> (usize, usize)| {
        let mut next: Vec<Vec<usize>> = vec![Vec::new(); nodes];
        for e in edges {
            let (a, b) = ends(e);
            next[a].push(b);
        }
        let mut seen = vec![false; nodes];
        let mut stack = vec![0];
        seen[0] = true;
        let mut count = 1;
        while let Some(v) = stack.pop() {
            for &w in &next[v] {
                if !seen[w] {
                    seen[w] = true;
                    count += 1;
                    stack.push(w);
                }
            }
        }
        count == nodes
    };
    nodes == 0 || (reaches_all(&|e| (e.from.index(), e.to.index())) && reaches_all(&|e| (e.to.index(), e.from.index())))
}

/// Which nodes need a row, found by searching from every destination: a
/// node sending by more than one edge, or reaching some nodes and not
/// others; for the rest, the one edge they send by (or NO_ROUTE).
fn count_ways(nodes: usize, edges: &[Edge], explicit: &[Explicit]) -> (Vec<bool>, Vec<u32>) {
    let mut only = vec![NO_ROUTE; nodes];
    let mut reached = vec![0u64; nodes];
    let mut has_row = vec![false; nodes];
    each_route(nodes, edges, explicit, |u, _, e| {
        reached[u] += 1;
        if only[u] == NO_ROUTE {
            only[u] = e;
        } else if only[u] != e {
            has_row[u] = true;
        }
    });
    for u in 0..nodes {
        // Every other node reached through the one edge, or none reached.
        has_row[u] |= reached[u] != 0 && reached[u] != nodes as u64 - 1;
    }
    (has_row, only)
}

impl Routes {
    /// The table for `nodes` nodes joined by `edges`, explicit routes
    /// applied; refused if its rows would exceed `max_entries`.
    pub fn build(nodes: usize, edges: Vec<Edge>, explicit: &[Explicit], max_entries: u64) -> Result<Routes, TooManyRoutes> {
        // A row's base is a u32: the limit keeps every entry's index below 2^32.
        let max_entries = max_entries.min(u32::MAX as u64);
        let (has_row, only) = if strongly_connected(nodes, &edges) {
            // Every node reaches every other: one with a single edge out
            // and no explicit route sends every destination by it.
            let mut out = vec![0u32; nodes];
            let mut only = vec![NO_ROUTE; nodes];
            for (i, e) in edges.iter().enumerate() {
                out[e.from.index()] += 1;
                only[e.from.index()] = i as u32;
            }
            let mut has_row: Vec<bool> = out.iter().map(|&n| n > 1).collect();
            for r in explicit {
                has_row[r.node.index()] = true;
            }
            (has_row, only)
        } else {
            count_ways(nodes, &edges, explicit)
        };
        let only: Vec<u32> = only.iter().zip(&has_row).map(|(&e, &row)| if row { NO_ROUTE } else { e }).collect();
        // A row of `nodes` entries each, then one entry each for the rest.
        let n_rows = has_row.iter().filter(|&&r| r).count() as u64;
        let entries = n_rows * nodes as u64 + (nodes as u64 - n_rows);
        if entries > max_entries {
            return Err(TooManyRoutes { entries, limit: max_entries });
        }
        let mut table = vec![NO_ROUTE; entries as usize];
        let mut at = vec![(0, 0); nodes];
        let (mut next_row, mut next_single) = (0, n_rows as usize * nodes);
        for u in 0..nodes {
            // Below 2^32: the limit on entries is.
            if has_row[u] {
                at[u] = (next_row as u32, u32::MAX);
                next_row += nodes;
            } else {
                at[u] = (next_single as u32, 0);
                table[next_single] = only[u];
                next_single += 1;
            }
        }
        fill_rows(nodes, &edges, explicit, &has_row, &at, &mut table);
        Ok(Routes { nodes, at, table, edges })
    }

    /// The edge packets at `node` for `dest` take.
    #[inline]
    pub fn next(&self, node: NodeId, dest: NodeId) -> Option<&Edge> {
        let (base, mask) = self.at[node.index()];
        let e = self.table[(base + (dest.0 & mask)) as usize];
        (e != NO_ROUTE).then(|| &self.edges[e as usize])
    }

    /// Nodes that keep a row of the table (for tests).
    pub fn rows(&self) -> usize {
        self.at.iter().filter(|a| a.1 != 0).count()
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
        let r = Routes::build(4, edges(&[(0, 2), (0, 1), (1, 3), (2, 3)]), &[], u64::MAX).unwrap();
        let p = r.path(NodeId(0), NodeId(3)).unwrap();
        assert_eq!(p.iter().map(|e| e.to).collect::<Vec<_>>(), vec![NodeId(1), NodeId(3)]);
    }

    #[test]
    fn an_explicit_route_that_loops_is_found() {
        // A=0 B=1 C=2 D=3: A->B, A->C, C->D, B->D, C->A, D->A, and C->D via C->A.
        // The BFS sends A's packets for D through C (C->D is listed before
        // B->D), C sends them back to A: the walk must see the loop.
        let e = edges(&[(0, 1), (0, 2), (2, 3), (1, 3), (2, 0), (3, 0)]);
        let r = Routes::build(4, e, &[Explicit { node: NodeId(2), dest: NodeId(3), edge: 4 }], u64::MAX).unwrap();
        assert_eq!(r.path(NodeId(2), NodeId(3)), Err(PathError::Loop { at: NodeId(2) }));
        assert_eq!(r.path(NodeId(0), NodeId(3)), Err(PathError::Loop { at: NodeId(0) }));
        assert!(r.path(NodeId(1), NodeId(3)).is_ok());
    }

    #[test]
    fn dead_ends_say_where() {
        let r = Routes::build(3, edges(&[(0, 1)]), &[], u64::MAX).unwrap();
        assert_eq!(r.path(NodeId(0), NodeId(2)), Err(PathError::DeadEnd { at: NodeId(0), first: true }));
        let r = Routes::build(3, edges(&[(0, 1)]), &[Explicit { node: NodeId(0), dest: NodeId(2), edge: 0 }], u64::MAX).unwrap();
        assert_eq!(r.path(NodeId(0), NodeId(2)), Err(PathError::DeadEnd { at: NodeId(1), first: false }));
    }

    /// The full table, N² entries, the reference the rows must equal: a
    /// search from every destination, explicit routes written over it.
    fn full_table(nodes: usize, edges: &[Edge], explicit: &[Explicit]) -> Vec<u32> {
        let mut next = vec![NO_ROUTE; nodes * nodes];
        for dest in 0..nodes {
            let mut seen = vec![false; nodes];
            seen[dest] = true;
            let mut frontier = std::collections::VecDeque::from([dest]);
            while let Some(v) = frontier.pop_front() {
                for (ei, e) in edges.iter().enumerate().filter(|(_, e)| e.to.index() == v) {
                    let u = e.from.index();
                    if !seen[u] {
                        seen[u] = true;
                        next[u * nodes + dest] = ei as u32;
                        frontier.push_back(u);
                    }
                }
            }
        }
        for r in explicit.iter().filter(|r| r.node != r.dest) {
            next[r.node.index() * nodes + r.dest.index()] = r.edge as u32;
        }
        next
    }

    /// On random graphs (sparse and dense, some nodes cut off, explicit
    /// routes among them), every (node, destination) gets the full table's
    /// edge, and the limit counts the rows' entries.
    #[test]
    fn rows_give_the_full_table() {
        let mut rng = crate::engine::Rng::from_seed(11);
        // Rounds whose graph is, and is not, strongly connected (the two
        // ways of finding which nodes need rows).
        let mut kinds = [0; 2];
        for round in 0..300 {
            let nodes = 1 + rng.below(if round < 200 { 12 } else { 60 }) as usize;
            let n_edges = rng.below(4 * nodes as u64 + 1) as usize;
            let pairs: Vec<(u32, u32)> =
                (0..n_edges).map(|_| (rng.below(nodes as u64) as u32, rng.below(nodes as u64) as u32)).collect();
            let e = edges(&pairs);
            let explicit: Vec<Explicit> = if e.is_empty() {
                Vec::new()
            } else {
                (0..rng.below(4))
                    .map(|_| Explicit {
                        node: NodeId(rng.below(nodes as u64) as u32),
                        dest: NodeId(rng.below(nodes as u64) as u32),
                        edge: rng.below(e.len() as u64) as usize,
                    })
                    .collect()
            };
            kinds[strongly_connected(nodes, &e) as usize] += 1;
            let want = full_table(nodes, &e, &explicit);
            let r = Routes::build(nodes, e.clone(), &explicit, u64::MAX).unwrap();
            for u in 0..nodes {
                for d in (0..nodes).filter(|&d| d != u) {
                    let got = r.next(NodeId::new(u), NodeId::new(d)).map(|x| *x);
                    let w = want[u * nodes + d];
                    assert_eq!(got, (w != NO_ROUTE).then(|| e[w as usize]), "round {round}: node {u} to {d}");
                }
            }
            // The limit refuses a table one entry too large, and takes it exactly.
            let n = (r.rows() * nodes + nodes - r.rows()) as u64;
            assert_eq!(Routes::build(nodes, e.clone(), &explicit, n).map(|r| r.rows()), Ok(r.rows()));
            if n > 0 {
                assert_eq!(Routes::build(nodes, e, &explicit, n - 1).err(), Some(TooManyRoutes { entries: n, limit: n - 1 }));
            }
        }
        assert!(kinds[0] > 50 && kinds[1] > 50, "{kinds:?}");
    }

    /// Graphs where many destinations are reached by one edge only (their
    /// columns are copied from the node before): a directed ring, a ring
    /// with tails, chains behind a star, and explicit routes to a chain's
    /// nodes and to the node a column would be copied from.
    #[test]
    fn columns_copied_along_single_edges_give_the_full_table() {
        let ring: Vec<(u32, u32)> = (0..6).map(|i| (i, (i + 1) % 6)).collect();
        let mut tails = ring.clone();
        tails.extend([(2, 6), (6, 7), (7, 8), (8, 2), (3, 9)]);
        let mut star = Vec::new();
        for leaf in 1..5u32 {
            star.extend([(0, leaf), (leaf, 0), (leaf, leaf + 4), (leaf + 4, leaf + 8), (leaf + 8, leaf)]);
        }
        let cases: Vec<(usize, Vec<(u32, u32)>, Vec<(u32, u32, usize)>)> = vec![
            (6, ring, vec![]),
            (10, tails.clone(), vec![]),
            (10, tails, vec![(0, 7, 0), (4, 6, 3)]),
            (13, star.clone(), vec![]),
            (13, star, vec![(0, 5, 0), (0, 9, 5), (2, 1, 6)]),
        ];
        for (nodes, pairs, ex) in cases {
            let e = edges(&pairs);
            let explicit: Vec<Explicit> =
                ex.iter().map(|&(node, dest, edge)| Explicit { node: NodeId(node), dest: NodeId(dest), edge }).collect();
            let want = full_table(nodes, &e, &explicit);
            let r = Routes::build(nodes, e.clone(), &explicit, u64::MAX).unwrap();
            for u in 0..nodes {
                for d in (0..nodes).filter(|&d| d != u) {
                    let w = want[u * nodes + d];
                    let got = r.next(NodeId::new(u), NodeId::new(d)).map(|x| *x);
                    assert_eq!(got, (w != NO_ROUTE).then(|| e[w as usize]), "{pairs:?}: node {u} to {d}");
                }
            }
        }
    }

    /// A cellular network: a server, S base stations and U users on each,
    /// links both ways. Only the server and the base stations keep rows;
    /// a node with one way out, none.
    #[test]
    fn a_cellular_network_keeps_entries_linear_in_its_nodes() {
        let (s, u) = (50u32, 10u32);
        let mut pairs = Vec::new();
        for b in 0..s {
            let bs = 1 + b * (u + 1);
            pairs.extend([(0, bs), (bs, 0)]);
            for k in 1..=u {
                pairs.extend([(bs, bs + k), (bs + k, bs)]);
            }
        }
        let nodes = 1 + (s * (u + 1)) as usize;
        let r = Routes::build(nodes, edges(&pairs), &[], u64::MAX).unwrap();
        assert_eq!(r.rows(), 1 + s as usize);
        assert!(r.path(NodeId(2), NodeId(nodes as u32 - 1)).is_ok());
    }
}
