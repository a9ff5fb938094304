//! Slot mechanics of the forward link, shared by the full-buffer study and
//! the packet simulator's sector.
//!
//! A packet of DRC d takes `slots(d)` slots on one interlace: with the
//! C.S0024 four-slot interlace, a packet started in slot n occupies n, n+4,
//! n+8, ... and the three other interlaces stay free for other packets
//! (`interlace = 1` makes multi-slot packets occupy consecutive slots).
//! The scheduler is asked only when the slot's interlace is free. Each
//! occupied slot carries packet_bits / slots(d) = rate(d) / 600 bits; early
//! termination is not modelled.

use crate::sched::{Scheduler, SlotView};
use crate::channel::drc::{DRC_TABLE, RATE_BPS};

#[derive(Clone, Copy, Debug)]
struct Tx {
    user: usize,
    drc: u8,
    left: u8,
}

/// What happened in one slot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlotOutcome {
    pub user: usize,
    pub drc: u8,
    /// True in the first slot of a packet: the sector dequeues `packet_bits` then.
    pub new_packet: bool,
    pub packet_bits: u32,
    /// Bits carried by this slot.
    pub slot_bits: f64,
    /// The interlace the packet occupies, and whether this is its last slot
    /// (the terminal decodes the packet then).
    pub lane: usize,
    pub last_slot: bool,
}

pub struct SlotServer {
    interlace: usize,
    /// When false every packet lasts one slot and carries rate/600 bits: the
    /// per-slot rate model of Liu et al.'s Fig. 6 study.
    multislot: bool,
    active: Vec<Option<Tx>>,
    slot: u64,
    /// slot % interlace, kept as a counter (no division per slot).
    phase: usize,
}

impl SlotServer {
    pub fn new(interlace: usize) -> Self {
        assert!(interlace >= 1);
        Self { interlace, multislot: true, active: vec![None; interlace], slot: 0, phase: 0 }
    }

    /// Every slot is served at its DRC's nominal rate, multi-slot formats ignored.
    pub fn per_slot_rates() -> Self {
        Self { multislot: false, ..Self::new(1) }
    }

    /// Run one slot: continue the interlace's packet or ask the scheduler.
    /// `drc` and `backlog_bits` describe the current slot.
    #[inline]
    pub fn step<S: Scheduler + ?Sized>(&mut self, sched: &mut S, drc: &[u8], backlog_bits: Option<&[u64]>) -> Option<SlotOutcome> {
        let (k, slot) = self.advance();
        let view = SlotView { slot, request: drc, backlog_bits };
        let (tx, new_packet) = match self.active[k] {
            Some(t) => (t, false),
            None => match sched.pick(&view) {
                Some(u) => {
                    let left = if self.multislot { DRC_TABLE[drc[u] as usize].slots } else { 1 };
                    (Tx { user: u, drc: drc[u], left }, true)
                }
                None => {
                    sched.end_slot(None);
                    return None;
                }
            },
        };
        let f = &DRC_TABLE[tx.drc as usize];
        let left = tx.left - 1;
        self.active[k] = if left > 0 { Some(Tx { left, ..tx }) } else { None };
        sched.end_slot(Some((tx.user, RATE_BPS[tx.drc as usize])));
        Some(SlotOutcome {
            user: tx.user,
            drc: tx.drc,
            new_packet,
            packet_bits: if self.multislot { f.packet_bits } else { f.packet_bits / f.slots as u32 },
            slot_bits: f.packet_bits as f64 / f.slots as f64,
            lane: k,
            last_slot: left == 0,
        })
    }

    /// A slot the forward traffic channel does not get (the control
    /// channel's): time and PF averages move on, packets on the air wait.
    pub fn skip<S: Scheduler + ?Sized>(&mut self, sched: &mut S) {
        self.advance();
        sched.end_slot(None);
    }

    /// Move to the next slot; returns the interlace and number of the slot left.
    #[inline]
    fn advance(&mut self) -> (usize, u64) {
        let (k, slot) = (self.phase, self.slot);
        self.phase += 1;
        if self.phase == self.interlace {
            self.phase = 0;
        }
        self.slot += 1;
        (k, slot)
    }

    /// Whether a multi-slot packet is still on the air.
    pub fn busy(&self) -> bool {
        self.active.iter().any(|a| a.is_some())
    }

    pub fn interlace(&self) -> usize {
        self.interlace
    }

    /// Abandon a user's packets in flight (it left the sector).
    pub fn drop_user(&mut self, user: usize) {
        for a in self.active.iter_mut() {
            if a.is_some_and(|t| t.user == user) {
                *a = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::rr::RoundRobin;

    #[test]
    fn multi_slot_packets_hold_their_interlace() {
        // User 0 asks 38.4 kb/s (16 slots), user 1 asks 2457.6 kb/s (1 slot).
        let drc = [1u8, 12];
        let mut rr = RoundRobin::new(2);
        let mut s = SlotServer::new(4);
        let who: Vec<usize> = (0..68).map(|_| s.step(&mut rr, &drc, None).unwrap().user).collect();
        // Slot 0 starts user 0's packet on interlace 0: it holds slots 0, 4, ..., 60.
        for n in (0..64).step_by(4) {
            assert_eq!(who[n], 0, "slot {n}");
        }
        // The other interlaces alternate (RR) and are free for user 1 then user 0.
        assert_eq!(who[1], 1);
        assert_eq!(who[64], 1);
        // Consecutive slots with interlace 1.
        let mut s = SlotServer::new(1);
        let mut rr = RoundRobin::new(2);
        let who: Vec<usize> = (0..18).map(|_| s.step(&mut rr, &drc, None).unwrap().user).collect();
        assert!(who[..16].iter().all(|&u| u == 0) && who[16] == 1 && who[17] == 0);
    }

    #[test]
    fn per_user_queues_plug_in() {
        // A sector-like loop: queues in bits, a packet dequeued when it
        // starts, nobody served once every queue is empty. User 0 asks
        // 2457.6 kb/s (4096-bit packets), user 1 921.6 kb/s (3072 bits, 2 slots).
        use crate::sched::pf::{PfConfig, ProportionalFair};
        let drc = [12u8, 8];
        let mut q = [3 * 4096u64, 2 * 3072];
        let mut pf = ProportionalFair::new(2, PfConfig::default(), &super::super::drc_rates());
        let mut s = SlotServer::new(4);
        let mut sent = [0f64; 2];
        let mut busy = 0;
        for _ in 0..40 {
            if let Some(o) = s.step(&mut pf, &drc, Some(&q)) {
                if o.new_packet {
                    q[o.user] = q[o.user].saturating_sub(o.packet_bits as u64);
                }
                sent[o.user] += o.slot_bits;
                busy += 1;
            }
        }
        assert_eq!(q, [0, 0]);
        assert_eq!(sent, [3.0 * 4096.0, 2.0 * 3072.0]);
        assert_eq!(busy, 3 + 2 * 2); // one slot per 4096-bit packet, two per 3072-bit packet
    }
}
