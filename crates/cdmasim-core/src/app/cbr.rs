//! Constant-bit-rate datagrams (a VoIP-like stream, Liu et al. section 7.4):
//! one packet of `packet_size` payload bytes every packet_size·8/rate seconds,
//! so `rate` is the payload rate; IPv4 and UDP headers come on top.
//! The sink records the one-way delay of every packet.

use crate::engine::{time::tx_time, Time};

pub struct CbrSource {
    pub packet_size: u32,
    pub interval: Time,
    pub next_seq: u64,
    pub running: bool,
}

impl CbrSource {
    pub fn new(packet_size: u32, rate_bps: u64) -> Self {
        CbrSource { packet_size, interval: tx_time(packet_size as u64, rate_bps), next_seq: 0, running: false }
    }
}

#[derive(Default)]
pub struct CbrSink {
    pub received: u64,
    pub bytes: u64,
    /// (arrival time, one-way delay) of every packet, ns.
    pub delays: Vec<(Time, Time)>,
    pub last_arrival: Time,
}

impl CbrSink {
    pub fn on_packet(&mut self, now: Time, created: Time, len: u32) {
        self.received += 1;
        self.bytes += len as u64;
        self.delays.push((now, now - created));
        self.last_arrival = now;
    }
}
