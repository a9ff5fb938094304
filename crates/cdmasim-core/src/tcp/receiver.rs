//! The receiving side: reassembly, cumulative and selective ACKs, delayed
//! ACKs, timestamps echo and the advertised window.
//!
//! - ACK at once for an out-of-order segment, a duplicate, or one that fills
//!   (part of) a hole (RFC 5681 §4.2); otherwise every segment, or every
//!   second segment with a timer, as configured.
//! - SACK blocks per RFC 2018 §4: the first block holds the segment that
//!   arrived last, then the most recently reported other blocks; at most 3
//!   with timestamps, 4 without (option space).
//! - TS.Recent is taken from segments at or below the last ACK sent (RFC 7323 §4.3).
//! - The window is what the policy offers, but the right edge never moves
//!   left (RFC 7323 §2.4 and RFC 1122 4.2.2.16 discourage shrinking).
//!   The application reads in-order data at once, so only out-of-order data
//!   occupies the buffer.

use super::rwnd::RwndPolicy;
use super::sender::ts_clock;
use crate::engine::Time;
use crate::net::packet::{SackBlocks, SynOptions, TcpFlags, TcpHeader};
use super::config::{DelAck, TcpSpec};
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckDue {
    No,
    At(Time),
    Now,
}

pub struct TcpReceiver {
    spec: TcpSpec,
    policy: Box<dyn RwndPolicy>,
    established: bool,
    synack_due: bool,
    rcv_nxt: u64,
    /// Out-of-order data: start → end.
    ooo: BTreeMap<u64, u64>,
    ooo_bytes: u64,
    /// Starts of out-of-order blocks, most recently changed first.
    recent: Vec<u64>,
    right_edge: u64,
    ts_recent: u32,
    last_ack_sent: u64,
    due: AckDue,
    unacked_segments: u32,
    /// Payload bytes delivered in order to the application, and when the last arrived.
    pub delivered: u64,
    pub last_delivery: Time,
    pub first_delivery: Option<Time>,
    /// (time, advertised window in bytes) at every change, when the spec
    /// asks for traces (`trace_cwnd`): what an RwndPolicy such as RBSMQ did.
    pub rwnd_trace: Vec<(Time, u64)>,
}

/// Window-scale shift announced in the SYN-ACK: the smallest that fits the buffer in 16 bits.
pub fn wscale_for(buffer: u64) -> u8 {
    let mut s = 0;
    while (buffer >> s) > 65_535 && s < 14 {
        s += 1;
    }
    s
}

impl TcpReceiver {
    pub fn new(spec: TcpSpec, policy: Box<dyn RwndPolicy>) -> Self {
        TcpReceiver {
            spec,
            policy,
            established: false,
            synack_due: false,
            rcv_nxt: 0,
            ooo: BTreeMap::new(),
            ooo_bytes: 0,
            recent: Vec::new(),
            right_edge: 0,
            ts_recent: 0,
            last_ack_sent: 0,
            due: AckDue::No,
            unacked_segments: 0,
            delivered: 0,
            last_delivery: Time::ZERO,
            first_delivery: None,
            rwnd_trace: Vec::new(),
        }
    }

    pub fn deadline(&self) -> Option<Time> {
        match self.due {
            AckDue::At(t) => Some(t),
            _ => None,
        }
    }

    pub fn on_timer(&mut self, now: Time) {
        if let AckDue::At(t) = self.due {
            if t <= now {
                self.due = AckDue::Now;
            }
        }
    }

    pub fn on_segment(&mut self, now: Time, h: &TcpHeader) {
        if h.flags.has(TcpFlags::SYN) {
            // A new or retransmitted SYN: (re)send the SYN-ACK.
            if !self.established {
                self.open(now);
            }
            if let Some((tsval, _)) = h.ts {
                self.ts_recent = tsval;
            }
            self.synack_due = true;
            return;
        }
        if !self.established {
            if self.spec.handshake {
                return;
            }
            // No handshake (one-way TCP): the first data segment opens the
            // connection, with the numbering a SYN would have set.
            self.open(now);
        }
        if let Some((tsval, _)) = h.ts {
            if h.seq <= self.last_ack_sent {
                self.ts_recent = tsval;
            }
        }
        self.policy.on_segment(now, h.seq, h.len);
        let (seq, end) = (h.seq, h.seq + h.len as u64);
        if end <= self.rcv_nxt {
            self.due = AckDue::Now; // duplicate
        } else if seq <= self.rcv_nxt {
            let had_hole = !self.ooo.is_empty();
            self.advance(now, end);
            if had_hole {
                self.due = AckDue::Now;
            } else {
                self.in_order_ack(now);
            }
        } else {
            self.insert_ooo(seq, end);
            self.due = AckDue::Now;
        }
    }

    fn open(&mut self, now: Time) {
        self.established = true;
        self.rcv_nxt = 1;
        self.last_ack_sent = 1;
        self.policy.on_connection(now);
    }

    fn in_order_ack(&mut self, now: Time) {
        self.unacked_segments += 1;
        match self.spec.delayed_ack {
            DelAck::EverySegment => self.due = AckDue::Now,
            DelAck::EverySecond { timeout } => {
                if self.unacked_segments >= 2 {
                    self.due = AckDue::Now;
                } else if self.due == AckDue::No {
                    self.due = AckDue::At(now + timeout);
                }
            }
        }
    }

    /// In-order data up to `end`: deliver it and any out-of-order blocks it reaches.
    fn advance(&mut self, now: Time, end: u64) {
        let before = self.rcv_nxt;
        self.rcv_nxt = end;
        while let Some((&s, &e)) = self.ooo.first_key_value() {
            if s > self.rcv_nxt {
                break;
            }
            self.ooo.pop_first();
            self.ooo_bytes -= e - s;
            self.rcv_nxt = self.rcv_nxt.max(e);
        }
        let rcv_nxt = self.rcv_nxt;
        self.recent.retain(|s| *s > rcv_nxt);
        self.delivered += self.rcv_nxt - before;
        self.first_delivery.get_or_insert(now);
        self.last_delivery = now;
    }

    fn insert_ooo(&mut self, mut s: u64, mut e: u64) {
        // Merge with every block that overlaps or touches [s, e).
        let touching: Vec<(u64, u64)> = self.ooo.range(..=e).filter(|(_, &be)| be >= s).map(|(&a, &b)| (a, b)).collect();
        for (a, b) in touching {
            self.ooo.remove(&a);
            self.ooo_bytes -= b - a;
            self.recent.retain(|x| *x != a);
            s = s.min(a);
            e = e.max(b);
        }
        self.ooo.insert(s, e);
        self.ooo_bytes += e - s;
        self.recent.insert(0, s);
    }

    /// The segment to send now (SYN-ACK or ACK), if one is due.
    pub fn poll(&mut self, now: Time) -> Option<TcpHeader> {
        if self.synack_due {
            self.synack_due = false;
            let mut h = self.ack_header(now);
            h.seq = 0;
            h.flags = TcpFlags(TcpFlags::SYN | TcpFlags::ACK);
            h.syn_opts = Some(SynOptions {
                mss: self.spec.mss as u16,
                sack_permitted: self.spec.sack,
                wscale: wscale_for(self.spec.rcv_buffer),
            });
            h.sack = SackBlocks::default();
            return Some(h);
        }
        if self.due != AckDue::Now {
            return None;
        }
        Some(self.ack_header(now))
    }

    fn ack_header(&mut self, now: Time) -> TcpHeader {
        let free = self.spec.rcv_buffer.saturating_sub(self.ooo_bytes);
        let offered = self.policy.window(now, free);
        let wnd = offered.max(self.right_edge.saturating_sub(self.rcv_nxt));
        self.right_edge = self.rcv_nxt + wnd;
        if self.spec.trace_cwnd && self.rwnd_trace.last().is_none_or(|&(_, w)| w != wnd) {
            self.rwnd_trace.push((now, wnd));
        }
        let mut sack = SackBlocks::default();
        if self.spec.sack {
            let max = if self.spec.timestamps { 3 } else { 4 };
            for s in self.recent.iter().take(max) {
                sack.push((*s, self.ooo[s]));
            }
        }
        self.last_ack_sent = self.rcv_nxt;
        self.due = AckDue::No;
        self.unacked_segments = 0;
        TcpHeader {
            seq: 1,
            ack: self.rcv_nxt,
            len: 0,
            flags: TcpFlags(TcpFlags::ACK),
            wnd,
            ts: self.spec.timestamps.then(|| (ts_clock(now), self.ts_recent)),
            sack,
            syn_opts: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::rwnd::fixed::FixedBuffer;

    fn rx(sack: bool, delack: DelAck) -> TcpReceiver {
        let spec = TcpSpec { sack, delayed_ack: delack, rcv_buffer: 10_000, ..Default::default() };
        let mut r = TcpReceiver::new(spec, Box::new(FixedBuffer));
        r.on_segment(Time::ZERO, &TcpHeader { flags: TcpFlags(TcpFlags::SYN), ..Default::default() });
        assert!(r.poll(Time::ZERO).unwrap().flags.has(TcpFlags::SYN));
        r
    }

    fn data(seq: u64, len: u32) -> TcpHeader {
        TcpHeader { seq, len, flags: TcpFlags(TcpFlags::ACK), ..Default::default() }
    }

    #[test]
    fn reassembly_and_sack_blocks() {
        let mut r = rx(true, DelAck::EverySegment);
        r.on_segment(Time(1), &data(1, 100));
        assert_eq!(r.poll(Time(1)).unwrap().ack, 101);
        r.on_segment(Time(2), &data(201, 100)); // hole at 101
        let a = r.poll(Time(2)).unwrap();
        assert_eq!((a.ack, a.sack.iter(a.ack).collect::<Vec<_>>()), (101, vec![(201, 301)]));
        assert_eq!(a.wnd, 10_000);
        r.on_segment(Time(3), &data(401, 100));
        let a = r.poll(Time(3)).unwrap();
        // Most recent block first, then the older one; window right edge did not recede.
        assert_eq!(a.sack.iter(a.ack).collect::<Vec<_>>()[..2], [(401, 501), (201, 301)]);
        assert_eq!(a.ack + a.wnd, 101 + 10_000);
        r.on_segment(Time(4), &data(301, 100)); // joins the two blocks
        let a = r.poll(Time(4)).unwrap();
        assert_eq!(a.sack.iter(a.ack).collect::<Vec<_>>(), vec![(201, 501)]);
        r.on_segment(Time(5), &data(101, 100)); // fills the hole
        let a = r.poll(Time(5)).unwrap();
        assert_eq!((a.ack, a.sack.len()), (501, 0));
        assert_eq!(r.delivered, 500);
    }

    #[test]
    fn delayed_ack_every_second_segment_or_timer() {
        let mut r = rx(false, DelAck::EverySecond { timeout: Time(200) });
        r.on_segment(Time(10), &data(1, 100));
        assert!(r.poll(Time(10)).is_none());
        assert_eq!(r.deadline(), Some(Time(210)));
        r.on_segment(Time(20), &data(101, 100));
        assert_eq!(r.poll(Time(20)).unwrap().ack, 201);
        r.on_segment(Time(30), &data(201, 100));
        assert!(r.poll(Time(30)).is_none());
        r.on_timer(Time(230));
        assert_eq!(r.poll(Time(230)).unwrap().ack, 301);
        // Out of order: at once.
        r.on_segment(Time(240), &data(401, 100));
        assert_eq!(r.poll(Time(240)).unwrap().ack, 301);
    }

    #[test]
    fn without_handshake_the_first_data_segment_opens_the_connection() {
        for handshake in [true, false] {
            let spec = TcpSpec { handshake, ..Default::default() };
            let mut r = TcpReceiver::new(spec, Box::new(FixedBuffer));
            r.on_segment(Time(1), &data(1, 100));
            if handshake {
                // Data before any SYN belongs to no connection.
                assert!(r.poll(Time(1)).is_none());
                assert_eq!(r.delivered, 0);
                continue;
            }
            let a = r.poll(Time(1)).expect("an ACK, not a SYN-ACK");
            assert!(!a.flags.has(TcpFlags::SYN));
            assert_eq!((a.ack, r.delivered, r.first_delivery), (101, 100, Some(Time(1))));
        }
    }

    #[test]
    fn wscale_fits_the_buffer() {
        assert_eq!(wscale_for(65_535), 0);
        assert_eq!(wscale_for(1 << 20), 5);
    }
}
