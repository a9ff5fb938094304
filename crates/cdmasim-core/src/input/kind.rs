//! What every hop kind's scenario code implements (`KindTables`: the
//! top-level tables it reads, how one is read, how its names become
//! indices) and the context it resolves in (`Resolver`: nodes, link names
//! and the one ordered list of hops, with the steps kinds share, such as a
//! terminal's node and reverse link). The kinds are registered with their
//! hops, in `network::kinds`' one list.
//!
//! Each kind's tables are one file in the kind's folder: `evdo/tables.rs`
//! ([[sector]], [[user]]: 1xEV-DO), `cdma2000/tables.rs` ([[cell]],
//! [[mobile]]: cdma2000 1X), `rlp/tables.rs` ([[radio_link]]: IS-2000
//! RLP3), `is2000/tables.rs` ([[is2000_sector]]); the plain link's
//! ([[link]]) is `input/link.rs`, beside the reader, since `net::link` sits
//! below it. Presets add to the kinds' tables before anything is resolved.

use super::error::ScenarioError;
use super::reader::{At, Named, Res, Val};
use crate::net::NodeId;
use crate::net::link::LinkSpec;
use crate::engine::Time;
use std::collections::HashMap;

/// One hop kind's scenario tables. `H` is the registry's hop spec
/// (`network::HopSpec`), which the kind's configuration converts into; the
/// kind names only its own configuration, so its tables live in its folder,
/// below the registry.
pub(crate) trait KindTables<H> {
    /// The top-level arrays of tables it reads (`[[sector]]`, `[[user]]`).
    fn tables(&self) -> &'static [&'static str];

    /// Its tables' keys, described once (`input::keys`): each table the
    /// reference shows (`"sector"`, a table inside one `"sector.rab"`).
    fn keys(&self) -> &'static [super::keys::Described];

    /// Read one element of `[[table]]` (one of `tables()`).
    fn parse(&mut self, table: &str, v: &Val) -> Res<()>;

    /// Resolve its names and add its hops (with their terminals' nodes and
    /// reverse links) through `cx`.
    fn resolve(&self, cx: &mut Resolver<H>) -> Result<(), ScenarioError>;
}

pub(crate) fn err(file: &str, at: &At, message: impl Into<String>) -> ScenarioError {
    ScenarioError { file: file.to_string(), line: at.line, field: at.field.clone(), message: message.into() }
}

/// Unique names → index, remembering the line each was first defined on.
pub(crate) struct Names {
    what: &'static str,
    index: HashMap<String, (usize, usize)>,
}

impl Names {
    pub(crate) fn new(what: &'static str) -> Self {
        Names { what, index: HashMap::new() }
    }

    pub(crate) fn add(&mut self, file: &str, n: &Named, idx: usize) -> Result<(), ScenarioError> {
        if let Some(&(_, line)) = self.index.get(n.name.as_str()) {
            return Err(err(file, &n.at, format!("duplicate {} name '{}' (first defined on line {line})", self.what, n.name)));
        }
        self.index.insert(n.name.clone(), (idx, n.at.line));
        Ok(())
    }

    pub(crate) fn find(&self, name: &str) -> Option<usize> {
        self.index.get(name).map(|&(i, _)| i)
    }

    pub(crate) fn get(&self, file: &str, n: &Named) -> Result<usize, ScenarioError> {
        self.find(&n.name).ok_or_else(|| err(file, &n.at, format!("no {} named '{}'", self.what, n.name)))
    }
}

/// Where the kinds resolve: the nodes, the links by name, the hops so far.
pub(crate) struct Resolver<H> {
    pub file: String,
    pub duration: Time,
    pub nodes: Names,
    /// Every node's name, by index (the file's nodes, then the terminals).
    pub node_names: Vec<String>,
    /// Link name → (hop index, line it was defined on).
    links: HashMap<String, (usize, usize)>,
    pub hops: Vec<H>,
}

impl<H: From<LinkSpec>> Resolver<H> {
    pub fn new(file: &str, duration: Time, nodes: &[Named]) -> Result<Self, ScenarioError> {
        let mut names = Names::new("node");
        for (i, n) in nodes.iter().enumerate() {
            names.add(file, n, i)?;
        }
        Ok(Resolver {
            file: file.to_string(),
            duration,
            nodes: names,
            node_names: nodes.iter().map(|n| n.name.clone()).collect(),
            links: HashMap::new(),
            hops: Vec::new(),
        })
    }

    /// An error at `at` in this file.
    pub fn err(&self, at: &At, message: impl Into<String>) -> ScenarioError {
        err(&self.file, at, message)
    }

    /// A node named in the file.
    pub fn node(&self, n: &Named) -> Result<NodeId, ScenarioError> {
        self.nodes.get(&self.file, n).map(NodeId::new)
    }

    pub fn node_name(&self, i: NodeId) -> &str {
        &self.node_names[i.index()]
    }

    /// A link's hop index by name.
    pub fn link(&self, name: &str) -> Option<usize> {
        self.links.get(name).map(|&(h, _)| h)
    }

    /// Add a link as the next hop (its name must be new; `at` is blamed if not).
    pub fn add_link(&mut self, at: &Named, spec: LinkSpec) -> Result<usize, ScenarioError> {
        if let Some(&(_, line)) = self.links.get(&spec.name) {
            return Err(self.err(&at.at, format!("duplicate link name '{}' (first defined on line {line})", spec.name)));
        }
        self.links.insert(spec.name.clone(), (self.hops.len(), at.at.line));
        self.hops.push(H::from(spec));
        Ok(self.hops.len() - 1)
    }

    /// A terminal whose reverse link is part of its radio hop: only its
    /// node, named `n`.
    pub fn add_terminal_node(&mut self, what: &str, n: &Named) -> Result<NodeId, ScenarioError> {
        if self.nodes.find(&n.name).is_some() {
            return Err(self.err(&n.at, format!("{what} '{}' has the name of a node: a {what} is a node of its own", n.name)));
        }
        let node = self.node_names.len();
        self.nodes.add(&self.file, n, node)?;
        self.node_names.push(n.name.clone());
        Ok(NodeId::new(node))
    }

    /// A terminal of a radio hop (`what`: "user", "mobile"): a node of its
    /// own named `n`, and its reverse link `NAME.up` to `base` (rate,
    /// delay and queue from `up`). Returns the terminal's node.
    pub fn add_terminal(&mut self, what: &str, n: &Named, base: NodeId, up: LinkSpec) -> Result<NodeId, ScenarioError> {
        let node = self.add_terminal_node(what, n)?;
        let name = format!("{}.up", n.name);
        if let Some(&(_, line)) = self.links.get(&name) {
            return Err(self.err(&n.at, format!("{what} '{}' needs the link name '{name}', taken on line {line}", n.name)));
        }
        self.add_link(n, LinkSpec { name, from: node, to: base, ..up })?;
        Ok(node)
    }
}
