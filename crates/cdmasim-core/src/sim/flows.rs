//! The flows of the world's arena: a scenario's flows, and the halves of
//! the connections applications make and free at run time. A slot holds
//! what carries its packets (its transport); a scenario flow's application
//! is beside the arena (`Hosts::apps`, same index).

use crate::net::NodeId;
use super::apps::Owner;
use super::delay::DelayStats;
use crate::engine::Time;
use crate::net::packet::{Packet, TcpHeader};
use crate::tcp::receiver::wscale_for;
use crate::tcp::{TcpReceiver, TcpSender};

pub struct TcpFlow {
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    /// Earliest pending Timer event per side (0: sender, 1: receiver).
    pub armed: [Option<Time>; 2],
    /// Window-scale shift the receiver announced (for the pcap window field).
    pub rcv_wscale: u8,
    /// One-way delay of every data segment that reached the receiver.
    pub owd: DelayStats,
    /// The application connection this is a half of, which hears of its
    /// every segment (None: a scenario's bulk flow, whose application only
    /// sets the sender's limit).
    pub owner: Option<Owner>,
}

impl TcpFlow {
    /// Without a handshake no SYN-ACK announces a window scale: the capture
    /// shows windows unscaled (capped at 65535, as such a TCP could offer no more).
    pub fn new(sender: TcpSender, receiver: TcpReceiver, rcv_buffer: u64, handshake: bool) -> Self {
        let rcv_wscale = if handshake { wscale_for(rcv_buffer) } else { 0 };
        TcpFlow { sender, receiver, armed: [None, None], rcv_wscale, owd: DelayStats::default(), owner: None }
    }

    /// A segment reached this connection: data to the receiver, ACKs to the sender.
    #[inline]
    pub fn on_packet(&mut self, now: Time, pkt: &Packet, h: &TcpHeader) {
        if pkt.forward {
            if h.len > 0 {
                self.owd.add(now - pkt.created);
            }
            self.receiver.on_segment(now, h);
        } else {
            self.sender.on_segment(now, h);
        }
    }
}

/// What carries a slot's packets.
pub enum Transport {
    Tcp(Box<TcpFlow>),
    /// Datagrams: UDP keeps no state; the application sends each one
    /// (`Sockets::send_datagram`) and hears of each that arrives.
    Udp,
    /// None of its own: its application opens connections (other slots).
    None,
    /// A slot on the free list (a closed connection's half).
    Free,
}

pub struct Flow {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub start: Time,
    pub stop: Option<Time>,
    pub transport: Transport,
    pub packets_sent: u64,
    /// Its packets now in the network (a closed connection's slot is reused
    /// only once none is left, so no late packet reaches a new connection).
    pub inflight: u32,
    /// A closed connection's half waiting for `inflight` to reach 0.
    pub retired: bool,
    /// Its segments its ends discarded on a failed checksum.
    pub checksum_failures: u64,
}

impl Flow {
    pub fn new(name: String, from: NodeId, to: NodeId, start: Time, transport: Transport) -> Self {
        Flow { name, from, to, start, stop: None, transport, packets_sent: 0, inflight: 0, retired: false, checksum_failures: 0 }
    }
}

/// Packets created, delivered, and dropped at nodes (for want of a route,
/// or by the destination's stack: a failed checksum).
#[derive(Default)]
pub struct Counters {
    pub created: u64,
    pub delivered: u64,
    pub node_drops: u64,
}
