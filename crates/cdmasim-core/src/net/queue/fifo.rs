//! First-in first-out packet storage with a running byte count, shared by
//! every queue discipline.

use crate::net::Packet;
use std::collections::VecDeque;

#[derive(Default)]
pub struct Fifo {
    pkts: VecDeque<Packet>,
    bytes: u64,
}

impl Fifo {
    pub fn push(&mut self, p: Packet) {
        self.bytes += p.size as u64;
        self.pkts.push_back(p);
    }
    pub fn pop(&mut self) -> Option<Packet> {
        let p = self.pkts.pop_front()?;
        self.bytes -= p.size as u64;
        Some(p)
    }
    pub fn len(&self) -> usize {
        self.pkts.len()
    }
    pub fn is_empty(&self) -> bool {
        self.pkts.is_empty()
    }
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}
