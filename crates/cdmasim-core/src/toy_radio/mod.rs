//! A test-only radio kind, written the way docs/ARCHITECTURE.md ("Adding a
//! radio hop") says a technology is added: this folder (the hop and its
//! configuration here, its scenario tables in `tables.rs` and their keys in
//! `keys.rs`, its result table in `rows.rs`, its tests in `tests.rs`) plus
//! its line in the registry of
//! kinds (`network::kinds`). The two lines the language and the layering
//! test ask for besides (`mod` in lib.rs, its layer in tests/layers.rs) are
//! the only other edits.
//!
//! A `[[toy_radio]]` serves the `[[toy_user]]`s attached to it from its
//! base-station node: a packet for a user reaches it exactly `delay` after
//! it came in (no queue, no service time, no loss). Each user is a node of
//! its own with a reverse link `USER.up` to the base station, as a 1xEV-DO
//! user or a cdma2000 mobile is, so the emulator serves its users too.

pub mod keys;
pub mod rows;
pub mod tables;
#[cfg(test)]
mod tests;

use crate::net::NodeId;
use crate::engine::Time;
use crate::net::hop::{BuildContext, BuildError, Ends, Hop, HopConfig, HopEvent, HopKind, Port, Samples};
use crate::net::{Headers, Packet};
use crate::result::Rows;
use rows::ToyUserResult;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ToyRadioConfig {
    pub name: String,
    /// The base station's node.
    pub base: NodeId,
    /// Its users: (name, node), in the file's order; user i is port i.
    pub users: Vec<(String, NodeId)>,
    /// Every packet's time through the radio, base station to user.
    pub delay: Time,
}

impl HopConfig for ToyRadioConfig {
    fn ports(&self) -> Vec<Ends> {
        self.users.iter().map(|&(_, u)| Ends { from: self.base, to: u }).collect()
    }

    /// The packets inside.
    fn sampled_series(&self) -> u64 {
        1
    }

    fn terminals(&self) -> Option<(NodeId, Vec<NodeId>)> {
        Some((self.base, self.users.iter().map(|&(_, u)| u).collect()))
    }
}

/// What a user received.
#[derive(Clone, Copy, Default)]
struct Received {
    packets: u64,
    bytes: u64,
}

pub struct ToyRadio {
    cfg: ToyRadioConfig,
    /// Packets with the time they reach their user and the user's port, in
    /// order (the delay is the same for all).
    inside: VecDeque<(Time, Port, Packet)>,
    released: Time,
    received: Vec<Received>,
}

impl HopKind for ToyRadio {
    type Config = ToyRadioConfig;
    fn build(cfg: &ToyRadioConfig, _cx: &BuildContext) -> Result<Self, BuildError> {
        Ok(ToyRadio { cfg: cfg.clone(), inside: VecDeque::new(), released: Time::ZERO, received: vec![Received::default(); cfg.users.len()] })
    }
}

impl Hop for ToyRadio {
    fn offer(&mut self, now: Time, port: Port, pkt: Packet, _hd: &mut Headers) {
        self.inside.push_back((now + self.cfg.delay, port, pkt));
    }

    fn poll(&mut self) -> Option<HopEvent> {
        let &(at, port, pkt) = self.inside.front()?;
        if at > self.released {
            return None;
        }
        self.inside.pop_front();
        let r = &mut self.received[port as usize];
        r.packets += 1;
        r.bytes += pkt.size as u64;
        Some(HopEvent::Deliver { port, pkt })
    }

    fn deadline(&self) -> Option<Time> {
        self.inside.front().map(|e| e.0)
    }

    fn on_timer(&mut self, now: Time, _hd: &mut Headers) {
        self.released = now;
    }

    fn ports(&self) -> Port {
        self.cfg.users.len() as Port
    }

    fn ends(&self, port: Port) -> Ends {
        Ends { from: self.cfg.base, to: self.cfg.users[port as usize].1 }
    }

    /// A user's forward link, as the other radio kinds name it.
    fn place(&self, port: Port) -> String {
        format!("{}.down", self.cfg.users[port as usize].0)
    }

    fn drops(&self) -> u64 {
        0
    }

    fn packets_inside(&self) -> u64 {
        self.inside.len() as u64
    }

    fn sample(&self, out: &mut impl Samples) {
        out("queue_pkts", &|| self.cfg.name.clone(), self.inside.len() as f64);
    }

    /// One row of its own table per user.
    fn report(&self, horizon: Time, rows: &mut Rows) {
        let seconds = horizon.0 as f64 / 1e9;
        for ((name, _), r) in self.cfg.users.iter().zip(&self.received) {
            rows.push(ToyUserResult {
                name: name.clone(),
                radio: self.cfg.name.clone(),
                packets_delivered: r.packets,
                throughput_bps: if seconds > 0.0 { r.bytes as f64 * 8.0 / seconds } else { 0.0 },
                delay_s: self.cfg.delay.0 as f64 / 1e9,
            });
        }
    }

    fn finish(&mut self, _now: Time, _hd: &mut Headers) {}
}
