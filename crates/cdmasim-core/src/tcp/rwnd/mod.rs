//! Receiver advertised-window policies behind one trait. The receiver asks
//! the policy how much window to offer; the policy sees every arriving
//! segment (delay-based policies such as Jung et al.'s RBSMQ need that).

pub mod fixed;
pub mod rbsmq;

use crate::net::NodeId;
use crate::engine::Time;
use rbsmq::{RbsmqParams, RbsmqScope};
use std::cell::RefCell;
use std::rc::Rc;
use serde::{Deserialize, Serialize};

/// The receiver's advertised-window policy.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum RwndAlgo {
    /// Advertise all free receive-buffer space.
    Fixed,
    /// Jung et al. §IV: receiver-based stable and minimum queueing.
    Rbsmq(RbsmqParams),
}


pub trait RwndPolicy {
    fn name(&self) -> &'static str;
    /// The connection was (re)established: a SYN arrived.
    fn on_connection(&mut self, _now: Time) {}
    /// A data segment arrived (time, its sequence number, payload length).
    fn on_segment(&mut self, _now: Time, _seq: u64, _len: u32) {}
    /// The window to advertise in bytes, given the free receive-buffer space.
    fn window(&mut self, now: Time, free_space: u64) -> u64;
}

/// Build the policy a scenario names, for a connection with this MSS and
/// a state of its own (RBSMQ's host scope needs `Hosts::policy`).
pub fn by_spec(algo: RwndAlgo, mss: u32) -> Box<dyn RwndPolicy> {
    match algo {
        RwndAlgo::Fixed => Box::new(fixed::FixedBuffer),
        RwndAlgo::Rbsmq(p) => Box::new(rbsmq::Rbsmq::new(p, mss)),
    }
}

/// Per-receiving-node state that policies share: RBSMQ estimators with
/// `scope = Host`, one per (node, parameters), in creation order.
#[derive(Default)]
pub struct Hosts {
    rbsmq: Vec<(NodeId, RbsmqParams, Rc<RefCell<rbsmq::Estimator>>)>,
}

impl Hosts {
    /// The policy for a connection received at `node`.
    pub fn policy(&mut self, algo: RwndAlgo, mss: u32, node: NodeId) -> Box<dyn RwndPolicy> {
        match algo {
            RwndAlgo::Rbsmq(p) if p.scope == RbsmqScope::Host => {
                let est = match self.rbsmq.iter().find(|(n, q, _)| *n == node && *q == p) {
                    Some((_, _, e)) => e.clone(),
                    None => {
                        let e = Rc::new(RefCell::new(rbsmq::Estimator::new(p)));
                        self.rbsmq.push((node, p, e.clone()));
                        e
                    }
                };
                Box::new(rbsmq::Rbsmq::sharing(p, mss, est))
            }
            _ => by_spec(algo, mss),
        }
    }
}
