//! One direction of an RLP3 link (IS-707-A-1.10, as Dziong et al. §3.3
//! describe it): the sender's new-data and retransmission buffers and the
//! far end's resequencing buffer with its NAK rounds. Sans I/O: the link
//! (`link.rs`) builds a frame every 20 ms slot and hands it over after the
//! one-way delay; this file decides what a frame carries and what an
//! arriving one does.
//!
//! The stream is numbered in bytes, as RLP3's sequence space is: a frame
//! carries one byte range, a NAK names a missing byte range, and a
//! retransmission fits whatever the slot now carries (the rate may have
//! changed since). Every frame — data or idle — also carries the sender's
//! V(S) (the next new byte), so a receiver sees a lost last frame, and may
//! carry the far end's receiver state for the other direction: V(N)
//! (everything below it is in or given up) and at most one NAK. Which
//! frames carry them is the link's choice (`link::Control`: frames of their
//! own, or beside the data in every frame).
//!
//! The NAK scheme: a hole gets `naks[0]` NAKs, one per frame of the other
//! direction; when the round's last NAK has gone, a timer of 2D + G counts
//! down in frames *received* (the standard's frame-count timers); if the
//! hole is still open when it runs out, the next round sends `naks[1]`
//! NAKs, and so on; after the last round the receiver aborts: the bytes
//! are given up and the IP packets with them are dropped.

use crate::net::Packet;
use std::collections::VecDeque;

/// What one 20 ms frame carries.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// Data bytes [start, end) (None: an idle or control-only frame).
    pub data: Option<(u64, u64)>,
    pub retransmission: bool,
    /// The sender's next new byte after this frame (V(S)).
    pub vs: u64,
    /// Control for the other direction's sender: the receiver's V(N)
    /// (None: a data frame without it, `Control::Frames`) and a NAK.
    pub vn: Option<u64>,
    pub nak: Option<(u64, u64)>,
}

#[derive(Clone, Copy, Debug)]
struct Hole {
    start: u64,
    end: u64,
    /// Index into the NAK scheme.
    round: usize,
    /// NAKs of this round still to send.
    naks_left: u32,
    /// Frames to receive before the round ends (None: NAKs still to send).
    timer: Option<u32>,
}

/// How an arriving frame changed the receiver. The caller keeps one and
/// empties it after each frame: its lists keep their room, so a frame
/// received costs no allocation.
#[derive(Default, Debug)]
pub struct Arrival {
    /// IP packets now complete in order, and those dropped with a hole.
    pub delivered: Vec<Packet>,
    pub aborted: Vec<Packet>,
}

#[derive(Clone, Debug, Default)]
pub struct ArqStats {
    pub ip_in: u64,
    pub ip_delivered: u64,
    pub ip_aborted: u64,
    pub bytes_delivered: u64,
    pub frames_new: u64,
    pub frames_retransmitted: u64,
    pub frames_idle: u64,
    pub naks_sent: u64,
    pub holes_aborted: u64,
}

#[derive(Clone)]
pub struct Arq {
    /// NAKs per round (Table 1: 1, 2, 3).
    naks: Vec<u32>,
    /// A round's timer, in frames received: 2D + G.
    round_frames: u32,
    // The sender.
    /// IP packets not yet delivered or dropped by the receiver, with their bytes.
    packets: VecDeque<(u64, u64, Packet)>,
    appended: u64,
    next_new: u64,
    /// The receiver's V(N) as last heard.
    confirmed: u64,
    /// Byte ranges NAKed, to be sent again.
    rtx: VecDeque<(u64, u64)>,
    // The receiver.
    vr: u64,
    highest: u64,
    /// Bytes at and above `vr` that arrived: (start, end) ranges in order,
    /// neither overlapping nor touching (`insert` merges, `advance` takes
    /// from the front; `insert`'s walk from the back relies on it). A few
    /// ranges at most, so a sorted deque: a map allocated and freed a node
    /// for nearly every frame, when in-order data emptied it.
    got: VecDeque<(u64, u64)>,
    /// Bytes below this were checked for holes.
    scanned: u64,
    holes: Vec<Hole>,
    /// `fill_holes`' scratch list, kept for its allocation.
    spare_holes: Vec<Hole>,
    /// Ranges given up, not yet passed by the delivery of their packets.
    aborted: VecDeque<(u64, u64)>,
    pub stats: ArqStats,
}

impl Arq {
    pub fn new(naks: Vec<u32>, round_frames: u32) -> Self {
        Arq {
            naks,
            round_frames: round_frames.max(1),
            packets: VecDeque::new(),
            appended: 0,
            next_new: 0,
            confirmed: 0,
            rtx: VecDeque::new(),
            vr: 0,
            highest: 0,
            got: VecDeque::new(),
            scanned: 0,
            holes: Vec::new(),
            spare_holes: Vec::new(),
            aborted: VecDeque::new(),
            stats: ArqStats::default(),
        }
    }

    /// An IP packet enters the new-data buffer.
    pub fn push(&mut self, pkt: Packet) {
        let start = self.appended;
        self.appended += pkt.size as u64;
        self.packets.push_back((start, self.appended, pkt));
        self.stats.ip_in += 1;
    }

    /// Bytes waiting to be sent for the first time.
    pub fn new_data_bytes(&self) -> u64 {
        self.appended - self.next_new
    }

    /// Bytes sent and not yet confirmed by the receiver's V(N): the
    /// retransmission buffer.
    pub fn rtx_buffer_bytes(&self) -> u64 {
        self.next_new - self.confirmed
    }

    pub fn packets_inside(&self) -> u64 {
        self.packets.len() as u64
    }

    /// The sender has something to send, or must send idle frames (data
    /// not yet confirmed, so that a lost last frame is found and the far
    /// end's frame-count timers run).
    pub fn sender_busy(&self) -> bool {
        !self.rtx.is_empty() || self.next_new < self.appended || self.confirmed < self.next_new
    }

    /// The receiver has NAKs to send (in the other direction's frames).
    pub fn nak_due(&self) -> bool {
        self.holes.iter().any(|h| h.naks_left > 0)
    }

    /// Holes waiting for a timer (frames must keep arriving).
    pub fn receiver_waiting(&self) -> bool {
        !self.holes.is_empty()
    }

    /// Fill a frame of `cap` bytes: retransmissions first, else new data.
    pub fn take_data(&mut self, cap: u64) -> (Option<(u64, u64)>, bool) {
        if cap == 0 {
            return (None, false);
        }
        while let Some((a, b)) = self.rtx.pop_front() {
            let a = a.max(self.confirmed);
            if a >= b {
                continue;
            }
            let end = b.min(a + cap);
            if end < b {
                self.rtx.push_front((end, b));
            }
            self.stats.frames_retransmitted += 1;
            return (Some((a, end)), true);
        }
        if self.next_new < self.appended {
            let a = self.next_new;
            self.next_new = self.appended.min(a + cap);
            self.stats.frames_new += 1;
            return (Some((a, self.next_new)), false);
        }
        self.stats.frames_idle += 1;
        (None, false)
    }

    pub fn vs(&self) -> u64 {
        self.next_new
    }

    /// This receiver's V(N): every byte below it is in or given up.
    pub fn vr(&self) -> u64 {
        self.vr
    }

    /// This receiver's control for a frame of the other direction: V(N) and
    /// the next NAK due (which may start its round's timer).
    pub fn control(&mut self) -> (u64, Option<(u64, u64)>) {
        let round_frames = self.round_frames;
        let nak = self.holes.iter_mut().find(|h| h.naks_left > 0).map(|h| {
            h.naks_left -= 1;
            if h.naks_left == 0 {
                h.timer = Some(round_frames);
            }
            (h.start, h.end)
        });
        if nak.is_some() {
            self.stats.naks_sent += 1;
        }
        (self.vr, nak)
    }

    /// The far end's control arrived: V(N) frees the retransmission
    /// buffer, a NAK asks for bytes again.
    pub fn on_control(&mut self, vn: Option<u64>, nak: Option<(u64, u64)>) {
        if let Some(vn) = vn {
            self.confirmed = self.confirmed.max(vn.min(self.next_new));
        }
        if let Some((a, b)) = nak {
            let a = a.max(self.confirmed);
            if a < b && !self.rtx.contains(&(a, b)) {
                self.rtx.push_back((a, b));
            }
        }
    }

    /// A frame of this direction reached the receiver intact: what it
    /// completes or gives up is added to `out`.
    pub fn on_frame(&mut self, f: &Frame, out: &mut Arrival) {
        if !self.in_order(f) {
            self.receive(f);
        }
        self.advance(out)
    }

    /// The usual frame, taken in a few comparisons: nothing is missing,
    /// held or given up above V(N) (no hole, no received range, no abort),
    /// and the frame leaves nothing missing (its data starts at or below
    /// V(N) and reaches the highest V(S) seen). V(N), that V(S) and the
    /// scan mark then move where `receive` would move them; false (and
    /// nothing changed) for any other frame.
    fn in_order(&mut self, f: &Frame) -> bool {
        if !(self.holes.is_empty() && self.got.is_empty() && self.aborted.is_empty() && self.scanned <= self.vr) {
            return false;
        }
        let vr = match f.data {
            Some((a, b)) if a <= self.vr => self.vr.max(b),
            Some(_) => return false,
            None => self.vr,
        };
        let highest = self.highest.max(f.vs);
        if highest > vr {
            return false;
        }
        (self.vr, self.highest, self.scanned) = (vr, highest, highest);
        true
    }

    /// Any frame: the holes' timers, the data kept, new holes found and
    /// old ones filled, rounds that ran out moved on (V(N) is moved after,
    /// by `advance`).
    fn receive(&mut self, f: &Frame) {
        // Frame-count timers advance with every frame received.
        let mut expired = false;
        for h in &mut self.holes {
            if let Some(t) = &mut h.timer {
                *t -= 1;
                expired |= *t == 0;
            }
        }
        if let Some((a, b)) = f.data {
            self.insert(a.max(self.vr), b);
        }
        self.highest = self.highest.max(f.vs);
        self.find_holes();
        self.fill_holes();
        if expired {
            self.next_rounds();
        }
    }

    fn insert(&mut self, mut a: u64, mut b: u64) {
        if a >= b {
            return;
        }
        // Merge with every stored range that overlaps or touches [a, b).
        // Stored ranges neither overlap nor touch, so those are the last
        // ones starting at or before b, taken from the back while they
        // reach a (a lower `a` after a merge reaches no further back: the
        // range before ends below the merged one's start). No allocation:
        // this runs for every frame received.
        let mut at = self.got.partition_point(|&(s, _)| s <= b);
        while let Some(&(s, e)) = at.checked_sub(1).map(|i| &self.got[i]) {
            if e < a {
                break;
            }
            at -= 1;
            self.got.remove(at);
            a = a.min(s);
            b = b.max(e);
        }
        self.got.insert(at, (a, b));
    }

    /// How many of the received ranges start below `end`.
    fn got_below(&self, end: u64) -> usize {
        self.got.partition_point(|&(s, _)| s < end)
    }

    /// Gaps between `scanned` and `highest` become holes (round 0).
    fn find_holes(&mut self) {
        let mut at = self.scanned.max(self.vr);
        if at >= self.highest {
            self.scanned = self.scanned.max(self.highest);
            return;
        }
        for i in 0..self.got_below(self.highest) {
            let (s, e) = self.got[i];
            if e <= at {
                continue;
            }
            if s > at {
                self.open_hole(at, s.min(self.highest));
            }
            at = at.max(e);
            if at >= self.highest {
                break;
            }
        }
        if at < self.highest {
            self.open_hole(at, self.highest);
        }
        self.scanned = self.highest;
    }

    fn open_hole(&mut self, start: u64, end: u64) {
        let naks = self.naks.first().copied().unwrap_or(0);
        let hole = Hole { start, end, round: 0, naks_left: naks, timer: (naks == 0).then_some(self.round_frames) };
        if self.naks.is_empty() {
            // No NAK scheme: give up at once.
            self.abort(start, end);
        } else {
            self.holes.push(hole);
        }
    }

    /// Shrink or close holes that arrivals filled (a hole may split).
    fn fill_holes(&mut self) {
        if self.holes.is_empty() {
            return;
        }
        let mut out = std::mem::take(&mut self.spare_holes);
        for &h in &self.holes {
            let mut at = h.start;
            for &(s, e) in self.got.range(..self.got_below(h.end)) {
                if e <= at {
                    continue;
                }
                if s > at {
                    out.push(Hole { start: at, end: s.min(h.end), ..h });
                }
                at = at.max(e);
                if at >= h.end {
                    break;
                }
            }
            if at < h.end {
                out.push(Hole { start: at, ..h });
            }
        }
        self.spare_holes = std::mem::replace(&mut self.holes, out);
        self.spare_holes.clear();
    }

    /// Rounds whose timer ran out: the next round, or the abort.
    fn next_rounds(&mut self) {
        let mut gone = Vec::new();
        for h in &mut self.holes {
            if h.timer != Some(0) {
                continue;
            }
            h.round += 1;
            match self.naks.get(h.round) {
                Some(&n) => {
                    h.naks_left = n;
                    h.timer = None;
                }
                None => gone.push((h.start, h.end)),
            }
        }
        self.holes.retain(|h| h.timer != Some(0));
        for (a, b) in gone {
            self.abort(a, b);
        }
    }

    fn abort(&mut self, a: u64, b: u64) {
        self.stats.holes_aborted += 1;
        self.aborted.push_back((a, b));
        self.aborted.make_contiguous().sort_unstable();
    }

    /// Move V(N) over what is in or given up; hand over whole packets.
    fn advance(&mut self, out: &mut Arrival) {
        loop {
            if let Some(&(s, e)) = self.got.front() {
                if s <= self.vr {
                    self.got.pop_front();
                    self.vr = self.vr.max(e);
                    continue;
                }
            }
            if let Some(&(s, e)) = self.aborted.iter().find(|&&(s, e)| s <= self.vr && e > self.vr) {
                let _ = s;
                self.vr = e;
                continue;
            }
            break;
        }
        while let Some(&(s, e, _)) = self.packets.front() {
            if e > self.vr {
                break;
            }
            let (_, _, pkt) = self.packets.pop_front().expect("front");
            if self.aborted.iter().any(|&(a, b)| a < e && b > s) {
                self.stats.ip_aborted += 1;
                out.aborted.push(pkt);
            } else {
                self.stats.ip_delivered += 1;
                self.stats.bytes_delivered += e - s;
                out.delivered.push(pkt);
            }
        }
        if !self.aborted.is_empty() {
            let first = self.packets.front().map_or(self.vr, |p| p.0);
            self.aborted.retain(|&(_, b)| b > first);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::net::NodeId;
    use crate::engine::Time;
    use super::*;

    fn pkt(uid: u64, size: u32) -> Packet {
        Packet::udp(uid, 0, NodeId(0), NodeId(1), Time::ZERO, uid, size - 28).0
    }

    /// Send one frame of `cap` bytes from `a` to the far end, `lost` or not;
    /// the far end's control goes back in a reply frame at once.
    fn step(a: &mut Arq, cap: u64, lost: bool) -> Arrival {
        let (data, rt) = a.take_data(cap);
        let f = Frame { data, retransmission: rt, vs: a.vs(), vn: None, nak: None };
        let mut out = Arrival::default();
        if !lost {
            a.on_frame(&f, &mut out);
        }
        let (vn, nak) = a.control();
        a.on_control(Some(vn), nak);
        out
    }

    /// The received ranges are the maximal runs of the union of every
    /// range inserted (touching ones merged), for random ranges in any
    /// order: checked against a byte map after every insert.
    #[test]
    fn received_ranges_are_the_runs_of_their_union() {
        let mut rng = crate::engine::Rng::from_seed(17);
        for _ in 0..200 {
            let mut a = Arq::new(vec![1], 4);
            let mut have = [false; 300];
            for _ in 0..40 {
                let s = rng.below(280);
                let e = s + rng.below(20);
                a.insert(s, e);
                have[s as usize..e as usize].iter_mut().for_each(|x| *x = true);
                let mut runs = Vec::new();
                let mut i = 0;
                while i < have.len() {
                    if have[i] {
                        let j = (i..have.len()).find(|&j| !have[j]).unwrap_or(have.len());
                        runs.push((i as u64, j as u64));
                        i = j;
                    } else {
                        i += 1;
                    }
                }
                assert_eq!(a.got.iter().copied().collect::<Vec<_>>(), runs);
            }
        }
    }

    #[test]
    fn lossless_stream_delivers_in_order_and_confirms() {
        let mut a = Arq::new(vec![1, 2, 3], 13);
        for i in 0..3 {
            a.push(pkt(i, 100));
        }
        let mut got = Vec::new();
        for _ in 0..4 {
            got.extend(step(&mut a, 96, false).delivered.into_iter().map(|p| p.uid));
        }
        assert_eq!(got, vec![0, 1, 2]);
        assert_eq!((a.new_data_bytes(), a.rtx_buffer_bytes()), (0, 0));
        assert!(!a.sender_busy());
    }

    #[test]
    fn a_lost_frame_is_naked_and_resent() {
        let mut a = Arq::new(vec![1, 2, 3], 13);
        a.push(pkt(0, 200));
        step(&mut a, 96, false);
        step(&mut a, 96, true); // bytes 96..192 lost
        // The next frame (8 bytes) shows V(S) = 200: the hole 96..192 is NAKed
        // in the reply, and the sender resends it next.
        let out = step(&mut a, 96, false);
        assert!(out.delivered.is_empty());
        assert_eq!(a.stats.naks_sent, 1);
        let out = step(&mut a, 96, false);
        assert_eq!(a.stats.frames_retransmitted, 1);
        assert_eq!(out.delivered.len(), 1);
        assert_eq!(a.rtx_buffer_bytes(), 0);
    }

    #[test]
    fn three_failed_rounds_abort_the_packet() {
        // Rounds of 1, 2 and 3 NAKs; every retransmission lost.
        let mut a = Arq::new(vec![1, 2, 3], 2);
        a.push(pkt(0, 50));
        a.push(pkt(1, 50));
        step(&mut a, 50, true); // packet 0 lost
        let mut aborted = Vec::new();
        let mut delivered = Vec::new();
        for _ in 0..40 {
            // Lose every retransmission, deliver the rest (new data, idle).
            let (data, rt) = a.take_data(50);
            let f = Frame { data, retransmission: rt, vs: a.vs(), vn: None, nak: None };
            if !rt {
                let mut out = Arrival::default();
                a.on_frame(&f, &mut out);
                aborted.extend(out.aborted.into_iter().map(|p| p.uid));
                delivered.extend(out.delivered.into_iter().map(|p| p.uid));
            }
            let (vn, nak) = a.control();
            a.on_control(Some(vn), nak);
        }
        assert_eq!(aborted, vec![0]);
        assert_eq!(delivered, vec![1]);
        assert_eq!(a.stats.naks_sent, 1 + 2 + 3);
        assert_eq!(a.stats.frames_retransmitted, 6);
        assert_eq!(a.stats.holes_aborted, 1);
    }

    /// Everything a receiver and its sender hold, to compare two.
    fn state(a: &Arq) -> String {
        let uids: Vec<u64> = a.packets.iter().map(|p| p.2.uid).collect();
        format!(
            "{} {} {} {:?} {:?} {:?} {uids:?} {} {} {:?} {:?}",
            a.vr, a.highest, a.scanned, a.got, a.holes, a.aborted, a.next_new, a.confirmed, a.rtx, a.stats
        )
    }

    /// A frame `in_order` takes leaves the link exactly as the general path
    /// (`receive`) does: two links fed the same packets and frames, lost at
    /// random (so holes open, are NAKed, fill, split, run out of rounds and
    /// abort), one through `on_frame` and one always through `receive`,
    /// agree after every frame in all they hold and all they hand over,
    /// under three NAK schemes (none: a hole aborts at once).
    #[test]
    fn the_in_order_path_is_the_general_one() {
        let mut rng = crate::engine::Rng::from_seed(29);
        let (mut frames, mut taken) = (0u32, 0u32);
        for (naks, round) in [(vec![1, 2, 3], 13), (vec![2, 3], 4), (vec![], 3)] {
            for _ in 0..100 {
                let (mut fast, mut slow) = (Arq::new(naks.clone(), round), Arq::new(naks.clone(), round));
                // Loads below and above what the frames carry: idle
                // frames and a backlog.
                let (loss, load) = (rng.uniform() * 0.3, 0.05 + rng.uniform() * 0.35);
                for step in 0..400 {
                    if rng.uniform() < load {
                        let size = 40 + rng.below(1460) as u32;
                        fast.push(pkt(step, size));
                        slow.push(pkt(step, size));
                    }
                    let cap = [1, 1 + rng.below(8), 24, 96, 384][rng.below(5) as usize];
                    let (data, rt) = fast.take_data(cap);
                    assert_eq!((data, rt), slow.take_data(cap));
                    let f = Frame { data, retransmission: rt, vs: fast.vs(), vn: None, nak: None };
                    if rng.uniform() >= loss {
                        frames += 1;
                        taken += fast.clone().in_order(&f) as u32;
                        let (mut a, mut b) = (Arrival::default(), Arrival::default());
                        fast.on_frame(&f, &mut a);
                        slow.receive(&f);
                        slow.advance(&mut b);
                        let uids = |v: &Vec<Packet>| v.iter().map(|p| p.uid).collect::<Vec<_>>();
                        assert_eq!((uids(&a.delivered), uids(&a.aborted)), (uids(&b.delivered), uids(&b.aborted)));
                        assert_eq!(state(&fast), state(&slow), "after frame {f:?}");
                    }
                    let control = fast.control();
                    assert_eq!(control, slow.control());
                    fast.on_control(Some(control.0), control.1);
                    slow.on_control(Some(control.0), control.1);
                }
            }
        }
        // Both ways were taken, many times each.
        assert!(taken > frames / 4 && taken < frames - frames / 10, "{taken} of {frames}");
    }
}
