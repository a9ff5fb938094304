//! The 1xEV-DO forward link's radio link protocol (RLP) for one user: the
//! octets of IP packets between the base station's queue and the user,
//! physical-layer erasures, the one retransmission RLP makes, and in-order
//! hand-up (3GPP2 C.S0024 default packet application; Liu et al. §7.2, Fig. 9).
//!
//! - **Erasures**: a physical-layer packet is lost after its H-ARQ slots
//!   with probability `frame_error`: the terminal's rate control aims the
//!   DRC at a target frame error rate, 1 % (Liu et al. §2), so that is the
//!   default when RLP is on; Fig. 9 (left) measured under 1 %.
//! - **One retransmission**: the terminal sees the hole in RLP's octet
//!   sequence and NAKs it on the reverse link; `nak_delay` later the base
//!   station may resend those octets, ahead of new data, in the user's next
//!   physical-layer packets. If a packet carrying a retransmission is
//!   erased too, RLP gives the octets up: every IP packet with octets in
//!   them is lost below PPP. The residual loss per IP packet is therefore
//!   about (its physical-layer packets) × `frame_error`², 10⁻⁴ to 10⁻³ at
//!   1 %, which Fig. 9's "lower than 0.01 %" can be set against.
//! - **In order**: the terminal's RLP hands octets up in sequence, so an IP
//!   packet waits for every earlier one and for the retransmissions of its
//!   own octets; PPP decompresses them in that order (`net::ppp`).
//!
//! Not modelled: the NAK itself being lost, RLP's abort timer racing a
//! late retransmission, and the retransmitted octets' own framing overhead.

use crate::engine::{Rng, Time};
use crate::net::ppp::Wire;
use crate::net::{DropReason, Packet};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The forward link's RLP, as a `[[user]] rlp = {...}` table sets it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RlpConfig {
    /// Probability that a physical-layer packet is erased (after H-ARQ).
    pub frame_error: f64,
    /// From the end of an erased packet to when its octets may be resent:
    /// the terminal's NAK on the next 26.67 ms reverse-link frame (16 slots,
    /// C.S0024 reverse traffic channel) and its decoding.
    pub nak_delay: Time,
}

impl RlpConfig {
    /// 1 % erasures (the DRC's target frame error rate) and a NAK on the
    /// next reverse-link frame: 16 slots, 26.67 ms, plus one for decoding.
    pub const DEFAULT_NAK_DELAY: Time = Time(17 * 1_000_000_000 / 600);
    pub const DEFAULT_FRAME_ERROR: f64 = 0.01;
}

/// What one physical-layer packet of a user carried: its IP packets' new
/// octets (packets `first..=last` by sequence number) and retransmissions.
#[derive(Clone, Debug, Default)]
pub struct Load {
    /// Sequence numbers of the IP packets with new octets in it.
    pub new: Option<(u64, u64)>,
    pub new_bytes: u64,
    /// The last IP packet whose last octet it carries (all before it too).
    pub completes: Option<u64>,
    /// Gaps whose retransmitted octets it carries.
    pub retransmits: Vec<u64>,
}

/// An IP packet on its way through the radio link.
struct Entry {
    pkt: Packet,
    wire: Option<Wire>,
    /// Lost below PPP by the residual loss drawn for it (`[[user]] loss`).
    lost: bool,
    /// RLP gave up some of its octets.
    aborted: bool,
    /// Dropped before it was sent (a hand-off), for this reason.
    dropped: Option<DropReason>,
    /// All its octets decoded at least once (first transmission).
    done: Option<Time>,
    /// Latest time one of its gaps was filled.
    ready: Time,
    /// Gaps in its octets not yet filled or given up.
    open_gaps: u32,
}

/// A hole of erased octets, NAKed, awaiting its one retransmission.
struct Gap {
    packets: (u64, u64),
    ready_at: Time,
    /// Octets still to resend, and physical-layer packets that carry some
    /// of them and have not yet ended.
    owed: u64,
    on_air: u32,
    aborted: bool,
}

/// Counters over the run.
#[derive(Clone, Copy, Debug, Default)]
pub struct RlpStats {
    pub physical_packets: u64,
    pub erasures: u64,
    pub retransmitted_bytes: u64,
    /// Gaps given up (their retransmission was erased too), and the IP
    /// packets lost with them.
    pub aborts: u64,
    pub lost_packets: u64,
}

/// One user's forward-link RLP.
pub struct Rlp {
    cfg: Option<RlpConfig>,
    rng: Rng,
    entries: VecDeque<Entry>,
    /// Sequence number of `entries[0]`.
    front: u64,
    gaps: VecDeque<Gap>,
    /// Id of `gaps[0]`.
    gap_front: u64,
    /// When the last packet was handed up (each waits for the one before).
    last_up: Time,
    pub stats: RlpStats,
}

/// An IP packet handed up: deliver it at `at`, unless `lost` (below PPP)
/// or `dropped`.
pub struct HandedUp {
    /// Its RLP sequence number (the order it left the queue).
    pub seq: u64,
    pub pkt: Packet,
    pub wire: Option<Wire>,
    pub lost: bool,
    pub dropped: Option<DropReason>,
    pub at: Time,
}

impl Rlp {
    pub fn new(cfg: Option<RlpConfig>, rng: Rng) -> Rlp {
        Rlp { cfg, rng, entries: VecDeque::new(), front: 0, gaps: VecDeque::new(), gap_front: 0, last_up: Time::ZERO, stats: RlpStats::default() }
    }

    /// Erasures and retransmissions as `cfg` says (None: none).
    pub fn configure(&mut self, cfg: Option<RlpConfig>) {
        self.cfg = cfg;
    }

    /// IP packets between the queue and the user.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// The sequence number the next packet pushed will have.
    pub fn next_seq(&self) -> u64 {
        self.front + self.entries.len() as u64
    }

    /// A packet leaves the queue for the air; returns its sequence number.
    pub fn push(&mut self, pkt: Packet, wire: Option<Wire>, lost: bool) -> u64 {
        let seq = self.front + self.entries.len() as u64;
        self.entries.push_back(Entry { pkt, wire, lost, aborted: false, dropped: None, done: None, ready: Time::ZERO, open_gaps: 0 });
        seq
    }

    /// The packet `seq` will not be sent (a hand-off dropped it at `t`).
    pub fn drop_packet(&mut self, seq: u64, t: Time, reason: DropReason) {
        let e = &mut self.entries[(seq - self.front) as usize];
        e.dropped = Some(reason);
        e.done = Some(t);
    }

    /// Octets owed for retransmission whose NAK is in by `t`.
    pub fn owed(&self, t: Time) -> u64 {
        self.gaps.iter().take_while(|g| g.ready_at <= t).map(|g| g.owed).sum()
    }

    /// Octets owed for retransmission that may go out at `t`, up to
    /// `budget`: they go first in a new physical-layer packet. Returns the
    /// bytes used and records the gaps in `load`.
    pub fn retransmit(&mut self, t: Time, mut budget: u64, load: &mut Load) -> u64 {
        let mut used = 0;
        for (k, g) in self.gaps.iter_mut().enumerate() {
            if budget == 0 || g.ready_at > t {
                break;
            }
            if g.owed == 0 {
                continue;
            }
            let take = g.owed.min(budget);
            g.owed -= take;
            g.on_air += 1;
            budget -= take;
            used += take;
            load.retransmits.push(self.gap_front + k as u64);
        }
        self.stats.retransmitted_bytes += used;
        used
    }

    /// A physical-layer packet of this user ended at `t` (its last slot),
    /// `delay` before its octets reach the user; whether it was erased is
    /// drawn here.
    pub fn ended(&mut self, load: &Load, t: Time) {
        self.stats.physical_packets += 1;
        let erased = self.cfg.is_some_and(|c| c.frame_error > 0.0 && self.rng.bernoulli(c.frame_error));
        self.stats.erasures += erased as u64;
        for &id in &load.retransmits {
            let g = &mut self.gaps[(id - self.gap_front) as usize];
            g.on_air -= 1;
            g.aborted |= erased;
            if g.owed == 0 && g.on_air == 0 {
                self.close_gap(id, t);
            }
        }
        if let Some(last) = load.completes {
            for s in self.front..=last {
                let e = &mut self.entries[(s - self.front) as usize];
                if e.done.is_none() {
                    e.done = Some(t);
                }
            }
        }
        if erased {
            if let (Some(packets), Some(cfg)) = (load.new, self.cfg) {
                for s in packets.0..=packets.1 {
                    if let Some(e) = self.entries.get_mut((s - self.front) as usize) {
                        e.open_gaps += 1;
                    }
                }
                self.gaps.push_back(Gap { packets, ready_at: t + cfg.nak_delay, owed: load.new_bytes, on_air: 0, aborted: false });
            }
        }
        while self.gaps.front().is_some_and(|g| g.owed == 0 && g.on_air == 0 && g.packets.1 < self.front) {
            self.gaps.pop_front();
            self.gap_front += 1;
        }
    }

    fn close_gap(&mut self, id: u64, t: Time) {
        let g = &mut self.gaps[(id - self.gap_front) as usize];
        let (packets, aborted) = (g.packets, g.aborted);
        self.stats.aborts += aborted as u64;
        for s in packets.0..=packets.1 {
            if let Some(e) = self.entries.get_mut(s.wrapping_sub(self.front) as usize) {
                e.open_gaps -= 1;
                e.aborted |= aborted;
                e.ready = e.ready.max(t);
            }
        }
    }

    /// The packets that can be handed up now, in order: each complete and
    /// with no gap open; at the latest of its decoding, its gaps' filling
    /// and the packet before it.
    pub fn hand_up(&mut self, mut out: impl FnMut(HandedUp)) {
        while let Some(e) = self.entries.front() {
            let Some(done) = e.done else { break };
            if e.open_gaps > 0 {
                break;
            }
            let e = self.entries.pop_front().expect("front exists");
            let seq = self.front;
            self.front += 1;
            self.last_up = self.last_up.max(done).max(e.ready);
            self.stats.lost_packets += e.aborted as u64;
            out(HandedUp { seq, pkt: e.pkt, wire: e.wire, lost: e.lost || e.aborted, dropped: e.dropped, at: self.last_up });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::net::NodeId;
    use super::*;

    fn pkt(uid: u64) -> Packet {
        Packet::udp(uid, 0, NodeId(0), NodeId(1), Time::ZERO, uid, 972).0
    }

    fn rlp(fe: f64) -> Rlp {
        Rlp::new(Some(RlpConfig { frame_error: fe, nak_delay: Time(40) }), Rng::from_seed(1))
    }

    fn handed(r: &mut Rlp) -> Vec<(u64, bool, Time)> {
        let mut v = Vec::new();
        r.hand_up(|h| v.push((h.pkt.uid, h.lost, h.at)));
        v
    }

    #[test]
    fn without_erasures_packets_come_up_in_order_as_they_complete() {
        let mut r = rlp(0.0);
        for k in 0..3 {
            r.push(pkt(k), None, false);
        }
        // Packet 0 and the start of 1 in the first physical packet.
        r.ended(&Load { new: Some((0, 1)), new_bytes: 1500, completes: Some(0), retransmits: vec![] }, Time(10));
        assert_eq!(handed(&mut r), vec![(0, false, Time(10))]);
        r.ended(&Load { new: Some((1, 2)), new_bytes: 1500, completes: Some(2), retransmits: vec![] }, Time(20));
        assert_eq!(handed(&mut r), vec![(1, false, Time(20)), (2, false, Time(20))]);
        assert_eq!(r.len(), 0);
    }

    #[test]
    fn an_erased_packet_holds_everything_behind_it_until_its_retransmission() {
        let mut r = rlp(1.0); // every physical packet erased ...
        for k in 0..2 {
            r.push(pkt(k), None, false);
        }
        r.ended(&Load { new: Some((0, 0)), new_bytes: 1000, completes: Some(0), retransmits: vec![] }, Time(10));
        r.cfg = Some(RlpConfig { frame_error: 0.0, nak_delay: Time(40) }); // ... then none
        r.ended(&Load { new: Some((1, 1)), new_bytes: 1000, completes: Some(1), retransmits: vec![] }, Time(20));
        // Packet 1 arrived whole but waits behind packet 0's hole.
        assert!(handed(&mut r).is_empty());
        // Nothing to resend before the NAK is in (10 + 40).
        let mut load = Load::default();
        assert_eq!(r.retransmit(Time(49), 5000, &mut load), 0);
        assert_eq!(r.retransmit(Time(50), 600, &mut load), 600);
        r.ended(&load, Time(60));
        assert!(handed(&mut r).is_empty(), "400 octets still owed");
        let mut load = Load::default();
        assert_eq!(r.retransmit(Time(61), 5000, &mut load), 400);
        r.ended(&load, Time(70));
        assert_eq!(handed(&mut r), vec![(0, false, Time(70)), (1, false, Time(70))]);
        assert_eq!((r.stats.erasures, r.stats.retransmitted_bytes, r.stats.aborts), (1, 1000, 0));
    }

    #[test]
    fn an_erased_retransmission_loses_the_octets_and_their_packets() {
        let mut r = rlp(1.0);
        for k in 0..3 {
            r.push(pkt(k), None, false);
        }
        // Packets 1 and 2 share the erased physical packet.
        r.cfg = Some(RlpConfig { frame_error: 0.0, nak_delay: Time(40) });
        r.ended(&Load { new: Some((0, 1)), new_bytes: 1500, completes: Some(0), retransmits: vec![] }, Time(10));
        r.cfg = Some(RlpConfig { frame_error: 1.0, nak_delay: Time(40) });
        r.ended(&Load { new: Some((1, 2)), new_bytes: 1500, completes: Some(2), retransmits: vec![] }, Time(20));
        assert_eq!(handed(&mut r), vec![(0, false, Time(10))]);
        let mut load = Load::default();
        r.retransmit(Time(60), 5000, &mut load);
        r.ended(&load, Time(70)); // erased again: RLP gives up
        assert_eq!(handed(&mut r), vec![(1, true, Time(70)), (2, true, Time(70))]);
        assert_eq!(r.stats.aborts, 1);
    }

    #[test]
    fn residual_loss_is_about_the_packets_times_the_square_of_the_erasure_rate() {
        // 1 % erasures, every IP packet in 3 physical packets of its own:
        // loss ≈ 1 − (1 − 0.01²)³ ≈ 3 × 10⁻⁴.
        let mut r = rlp(0.01);
        let n = 400_000u64;
        let (mut lost, mut t) = (0u64, 0);
        for k in 0..n {
            r.push(pkt(k), None, false);
            for part in 0..3 {
                t += 10;
                let completes = (part == 2).then_some(k);
                r.ended(&Load { new: Some((k, k)), new_bytes: 500, completes, retransmits: vec![] }, Time(t));
            }
            // Resend whatever is owed, one packet per gap, as long as needed.
            loop {
                t += 50;
                let mut load = Load::default();
                if r.retransmit(Time(t), 5000, &mut load) == 0 {
                    break;
                }
                r.ended(&load, Time(t));
            }
            r.hand_up(|h| lost += h.lost as u64);
        }
        let rate = lost as f64 / n as f64;
        // Binomial: sd ≈ sqrt(3e-4 / 4e5) ≈ 2.7e-5.
        assert!((rate - 3e-4).abs() < 1.2e-4, "{rate}");
    }
}
