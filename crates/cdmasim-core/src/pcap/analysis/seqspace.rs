//! The per-direction record of transmitted sequence ranges that decides
//! which bytes are retransmissions and which ACKs yield RTT samples.
//!
//! It follows tcptrace's model (rexmit.c) so the figures agree with it:
//! sequence space is cut into four 2^30-byte quadrants, each with a sorted
//! list of segments; a segment that starts inside a recorded one is a
//! retransmission of the overlap; a segment that starts and ends before a
//! recorded one is out of order; an ACK that exactly covers an un-acked,
//! never-retransmitted segment gives an RTT sample (Karn's rule, with
//! tcptrace's extra rule that no later-sent segment may be covered by the
//! same ACK); ACKed neighbours are merged so the list stays as short as the
//! window. Here sequence numbers are unwrapped to 64 bits (offset by 2^34 so
//! quadrant numbers keep tcptrace's alignment) and the four lists are one
//! sorted list, searched by quadrant range.

use std::ops::{Deref, DerefMut};

const QBITS: u32 = 30;

#[derive(Debug, Clone, Copy)]
struct Seg {
    first: u64,
    last: u64,
    /// Time (µs) of the last transmission.
    time: u64,
    retrans: u32,
    acked: u32,
}

/// Timings in µs as tcptrace keeps them: count, min, max, and the sums for
/// the mean and standard deviation (f64). The min treats 0 as unset: a
/// 0 µs sample is replaced by the next one whatever its size (kept for
/// agreement; docs/pcap.md).
#[derive(Debug, Default, Clone, Copy, serde::Serialize)]
pub struct Samples {
    pub count: u64,
    pub min: u64,
    pub max: u64,
    pub sum: f64,
    pub sum2: f64,
}

impl Samples {
    pub fn add(&mut self, et: u64) {
        if self.min == 0 || self.min > et {
            self.min = et;
        }
        self.max = self.max.max(et);
        self.sum += et as f64;
        self.sum2 += (et as f64) * (et as f64);
        self.count += 1;
    }
}

/// RTT and retransmission-timing accumulators, exactly as tcptrace keeps
/// them.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct RttAcc {
    /// Unambiguous RTT samples (segments sent once).
    pub rtt: Samples,
    pub rtt_last: u64,
    /// The samples of the largest segments seen ("full size").
    pub rtt_full_size: u64,
    pub rtt_full: Samples,
    pub rtt_amback: u64,
    /// tcptrace's "(last)" statistics: ambiguous ACKs (of a segment sent
    /// more than once) timed from the segment's last transmission.
    pub rtt_last_samples: Samples,
    pub rtt_nosample: u64,
    pub rtt_cumack: u64,
    pub rtt_dupack: u64,
    pub rtt_triple_dupack: u64,
    pub retr_max: u64,
    /// Time from a segment's previous transmission to its retransmission.
    pub retr_time: Samples,
}

/// What an ACK did, for plots and the 3-way-handshake RTT.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckKind {
    None,
    Normal,
    Ambiguous,
    NoSample,
    Cumulative,
    Triple,
}

#[derive(Debug, Default)]
pub struct SeqSpace {
    segs: Segs,
}

/// The recorded segments in order, read as a slice: a vector whose front
/// entries that are gone (forgotten quadrants, merged runs) are skipped by
/// an offset, and reclaimed when a removal at the front leaves at least
/// COMPACT_AFTER of them and no fewer than the live ones, so the vector
/// holds at most about twice the longest list plus COMPACT_AFTER. (A ring
/// buffer's index costs a wrap test at every step of the per-ACK walk.)
#[derive(Debug, Default)]
struct Segs {
    v: Vec<Seg>,
    head: usize,
}

/// Gone entries kept at the front before the vector is compacted.
const COMPACT_AFTER: usize = 64;

impl Deref for Segs {
    type Target = [Seg];
    #[inline(always)]
    fn deref(&self) -> &[Seg] {
        &self.v[self.head..]
    }
}

impl DerefMut for Segs {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [Seg] {
        &mut self.v[self.head..]
    }
}

impl Segs {
    fn push_back(&mut self, s: Seg) {
        self.v.push(s);
    }
    fn insert(&mut self, i: usize, s: Seg) {
        self.v.insert(self.head + i, s);
    }
    /// The first `k` segments are gone.
    #[inline(never)]
    fn remove_front(&mut self, k: usize) {
        self.head += k;
        if self.head == self.v.len() {
            self.v.clear();
            self.head = 0;
        } else if self.head >= COMPACT_AFTER && 2 * self.head >= self.v.len() {
            self.v.drain(..self.head);
            self.head = 0;
        }
    }
    /// Segments `from..=to` are gone: the shorter side moves (the ones
    /// before them forward, or the ones after them back).
    fn remove(&mut self, from: usize, to: usize) {
        let gone = to + 1 - from;
        if from == 0 {
            self.remove_front(gone);
        } else if from < self.len() - to {
            let h = self.head;
            self.v.copy_within(h..h + from, h + gone);
            self.remove_front(gone);
        } else {
            self.v.drain(self.head + from..=self.head + to);
        }
    }
}

fn elapsed(from: u64, to: u64) -> u64 {
    to.saturating_sub(from)
}

impl SeqSpace {
    pub fn len(&self) -> usize {
        self.segs.len()
    }
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    /// Inlined for the usual answer: the whole list lies in the quadrant.
    #[inline(always)]
    fn quad_range(&self, q: u64) -> (usize, usize) {
        let (qs, qe) = (q << QBITS, (q + 1) << QBITS);
        if let (Some(f), Some(b)) = (self.segs.first(), self.segs.last()) {
            if f.first >= qs && b.first < qe {
                return (0, self.segs.len());
            }
        }
        self.quad_range_cut(qs, qe)
    }

    #[inline(never)]
    fn quad_range_cut(&self, qs: u64, qe: u64) -> (usize, usize) {
        let n = self.segs.len();
        // Nearly always at most the collapsed ACKed head lies before the
        // quadrant and nothing after it: scan a few from each end before
        // falling back to binary search.
        let mut lo = 0;
        while lo < n && lo < 4 && self.segs[lo].first < qs {
            lo += 1;
        }
        if lo == 4 && lo < n && self.segs[lo].first < qs {
            lo = self.segs.partition_point(|s| s.first < qs);
        }
        let mut hi = n;
        while hi > lo && n - hi < 4 && self.segs[hi - 1].first >= qe {
            hi -= 1;
        }
        if n - hi == 4 && hi > lo && self.segs[hi - 1].first >= qe {
            hi = self.segs.partition_point(|s| s.first < qe);
        }
        (lo, hi)
    }

    /// tcptrace frees the quadrant opposite the one being touched. Inlined:
    /// it runs up to twice a packet and nearly always only tests the front.
    #[inline(always)]
    fn forget_before(&mut self, q: u64) {
        if q >= 2 {
            let lim = (q - 1) << QBITS;
            if self.segs.first().is_some_and(|s| s.first < lim) {
                let gone = self.segs.partition_point(|s| s.first < lim);
                self.segs.remove_front(gone);
            }
        }
    }

    /// Record a transmission of `len` sequence units from `seq`. Returns
    /// (retransmitted units, out-of-order flag).
    ///
    /// Inlined for the expected case (new data beyond everything recorded,
    /// in one quadrant); the rest is out of line.
    #[inline(always)]
    pub fn rexmit(&mut self, seq: u64, len: u64, now: u64, acc: &mut RttAcc) -> (u64, bool) {
        if len == 0 {
            return (0, false);
        }
        let last = seq + len - 1;
        self.forget_before(seq >> QBITS);
        // Expected case first, for the segment whole (addseg's first test).
        if seq >> QBITS == last >> QBITS && self.goes_last(seq) {
            self.segs.push_back(Seg { first: seq, last, time: now, retrans: 0, acked: 0 });
            return (0, false);
        }
        self.rexmit_other(seq, last, len, now, acc)
    }

    #[inline(never)]
    fn rexmit_other(&mut self, seq: u64, last: u64, len: u64, now: u64, acc: &mut RttAcc) -> (u64, bool) {
        let mut out_order = false;
        let rex = if seq >> QBITS != last >> QBITS {
            // Straddles a quadrant boundary: two pieces, one per list.
            let b = (last >> QBITS) << QBITS;
            self.addseg(seq, b - seq, now, acc, &mut out_order) + self.addseg(b, last - b + 1, now, acc, &mut out_order)
        } else {
            self.addseg(seq, len, now, acc, &mut out_order)
        };
        (rex, out_order)
    }

    /// The expected case: new data from `first` lies beyond everything
    /// recorded, and the last recorded segment is in its quadrant or an
    /// earlier one, so it goes at the back of the list.
    #[inline]
    fn goes_last(&self, first: u64) -> bool {
        self.segs.last().is_some_and(|b| first > b.last && b.first >> QBITS <= first >> QBITS)
    }

    fn addseg(&mut self, mut first: u64, mut len: u64, now: u64, acc: &mut RttAcc, out_order: &mut bool) -> u64 {
        let last_total = first + len - 1;
        // The first segment, or the expected case.
        if self.segs.is_empty() || self.goes_last(first) {
            self.segs.push_back(Seg { first, last: last_total, time: now, retrans: 0, acked: 0 });
            return 0;
        }
        let (lo, mut hi) = self.quad_range(first >> QBITS);
        let new = |f: u64, l: u64| Seg { first: f, last: l, time: now, retrans: 0, acked: 0 };
        // Expected case: beyond everything recorded in this quadrant.
        if hi == lo || first > self.segs[hi - 1].last {
            if hi == self.segs.len() {
                self.segs.push_back(new(first, last_total));
            } else {
                self.segs.insert(hi, new(first, last_total));
            }
            return 0;
        }
        let mut rexlen = 0u64;
        let mut split = false;
        // Segments are sorted and disjoint: skip those wholly below us.
        let mut i = lo + self.segs[lo..hi].iter().take_while(|s| s.last < first).count();
        while i < hi {
            let s = self.segs[i];
            if first < s.first {
                if last_total < s.last {
                    *out_order = true;
                }
                if last_total < s.first {
                    self.segs.insert(i, new(first, last_total));
                    return rexlen;
                }
                // Overlaps the recorded segment: keep the part before it as
                // new data and treat the rest as starting inside it.
                self.segs.insert(i, new(first, s.first - 1));
                i += 1;
                hi += 1;
                first = s.first;
                len = last_total - first + 1;
            }
            let s = &mut self.segs[i];
            s.retrans += 1;
            if !split {
                rtt_retrans(acc, s, now);
            }
            if last_total <= s.last {
                return rexlen + len;
            }
            split = true;
            rexlen += s.last - first + 1;
            first = s.last + 1;
            len = last_total - first + 1;
            i += 1;
        }
        let _ = len;
        self.segs.insert(hi, new(first, last_total));
        rexlen
    }

    /// Process a cumulative ACK. `dup_ok` carries the parts of the BSD
    /// duplicate-ACK rule (tcptrace's default) that do not depend on the
    /// segment: same ACK as the previous one, no data, unchanged window,
    /// data outstanding.
    ///
    /// Inlined for the usual case of an ACK riding on data: the list is one
    /// ACKed segment in the ACK's quadrant (the other side's collapsed
    /// data), which the walk would leave as it is but for its count.
    #[inline(always)]
    pub fn ack_in(&mut self, ack: u64, dup_ok: bool, now: u64, acc: &mut RttAcc) -> AckKind {
        let q = ack >> QBITS;
        if let [s] = &mut *self.segs {
            if s.acked > 0 && s.first >> QBITS == q {
                if ack <= s.first {
                    return AckKind::None;
                }
                return dup_ack(acc, s, ack, dup_ok, AckKind::None);
            }
        }
        self.ack_walk(ack, dup_ok, now, acc)
    }

    #[inline(never)]
    fn ack_walk(&mut self, ack: u64, dup_ok: bool, now: u64, acc: &mut RttAcc) -> AckKind {
        let q = ack >> QBITS;
        self.forget_before(q);
        let mut ret = AckKind::None;
        let mut last_xmit = 0u64;
        // Everything in the previous quadrant is taken as acknowledged.
        if self.segs.first().is_some_and(|s| s.first < q << QBITS) {
            let (plo, phi) = self.quad_range(q - 1);
            let mut changed = false;
            for s in self.segs[plo..phi].iter_mut() {
                if s.acked == 0 {
                    s.acked += 1;
                    changed = true;
                    acc.rtt_cumack += 1;
                    last_xmit = last_xmit.max(s.time);
                }
            }
            if changed {
                self.collapse(plo, phi);
            }
        }
        let (lo, hi) = self.quad_range(q);
        let mut changed = false;
        for s in self.segs[lo..hi].iter_mut() {
            if ack <= s.first {
                break;
            }
            last_xmit = last_xmit.max(s.time);
            if s.acked > 0 {
                ret = dup_ack(acc, s, ack, dup_ok, ret);
                continue;
            }
            s.acked += 1;
            changed = true;
            if ack == s.last + 1 {
                let intervening = last_xmit > s.time;
                ret = rtt_ackin(acc, s, intervening, now);
            } else {
                acc.rtt_cumack += 1;
                ret = AckKind::Cumulative;
            }
        }
        if changed {
            self.collapse(lo, hi);
        }
        ret
    }

    /// Merge contiguous ACKed segments at the head of a quadrant's list:
    /// each run of them becomes one segment spanning the run, with the
    /// run's latest transmission time, its first member's retransmission
    /// count (never read again once ACKed) and its last member's ACK count.
    fn collapse(&mut self, lo: usize, mut hi: usize) {
        let mut i = lo;
        while i < hi && self.segs[i].acked > 0 {
            let (mut k, mut time, mut end) = (i, self.segs[i].time, self.segs[i].last);
            for b in self.segs[i + 1..hi].iter() {
                if b.acked == 0 || end + 1 != b.first {
                    break;
                }
                (time, end) = (time.max(b.time), b.last);
                k += 1;
            }
            if k > i {
                // The run becomes its last member, spanning it, and the
                // ones before it go (nothing moves for a run at the front;
                // one segment for a run behind the previous quadrant's).
                let (first, retrans) = (self.segs[i].first, self.segs[i].retrans);
                let m = &mut self.segs[k];
                m.first = first;
                m.retrans = retrans;
                m.time = time;
                self.segs.remove(i, k - 1);
                hi -= k - i;
            }
            i += 1;
        }
    }
}

/// An ACK of a segment already ACKed: a duplicate under the BSD rule when
/// it ACKs exactly the segment's end (tcptrace counts the fourth ACK as the
/// triple duplicate); any other ACK restarts the count.
fn dup_ack(acc: &mut RttAcc, s: &mut Seg, ack: u64, dup_ok: bool, ret: AckKind) -> AckKind {
    if ack == s.last + 1 && dup_ok {
        acc.rtt_dupack += 1;
        s.acked += 1;
        if s.acked == 4 {
            acc.rtt_triple_dupack += 1;
            return AckKind::Triple;
        }
        AckKind::Cumulative
    } else {
        s.acked = 1;
        ret
    }
}

fn rtt_retrans(acc: &mut RttAcc, s: &mut Seg, now: u64) {
    if s.acked == 0 {
        acc.retr_max = acc.retr_max.max(s.retrans as u64);
        acc.retr_time.add(elapsed(s.time, now));
    }
    s.time = now;
}

fn rtt_ackin(acc: &mut RttAcc, s: &Seg, intervening: bool, now: u64) -> AckKind {
    let et = elapsed(s.time, now);
    if intervening {
        acc.rtt_last = 0;
        acc.rtt_nosample += 1;
        AckKind::NoSample
    } else if s.retrans == 0 {
        acc.rtt_last = et;
        acc.rtt.add(et);
        // tcptrace computes the size on 32-bit values and takes
        // "last <= first" for a sequence wrap, so a one-unit segment (a SYN,
        // a FIN, a 1-byte probe) counts as 2^32 bytes and becomes the "full
        // size" (docs/pcap.md, known tcptrace discrepancies). Kept for
        // agreement.
        let (f32_, l32) = (s.first as u32 as u64, s.last as u32 as u64);
        let size = if l32 > f32_ { l32 - f32_ + 1 } else { (1u64 << 32) - f32_ + l32 };
        if acc.rtt_full_size == 0 || acc.rtt_full_size < size {
            // A larger segment: its samples start afresh.
            acc.rtt_full_size = size;
            acc.rtt_full = Samples::default();
            acc.rtt_full.add(et);
        } else if acc.rtt_full_size == size {
            acc.rtt_full.add(et);
        }
        AckKind::Normal
    } else {
        acc.rtt_amback += 1;
        acc.rtt_last = 0;
        acc.rtt_last_samples.add(et);
        AckKind::Ambiguous
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const B: u64 = 1 << 34;

    #[test]
    fn in_order_then_retransmit_and_out_of_order() {
        let mut ss = SeqSpace::default();
        let mut acc = RttAcc::default();
        assert_eq!(ss.rexmit(B, 100, 0, &mut acc), (0, false));
        assert_eq!(ss.rexmit(B + 200, 100, 1, &mut acc), (0, false));
        // fills the hole, ends before the later segment: out of order
        assert_eq!(ss.rexmit(B + 100, 100, 2, &mut acc), (0, true));
        // overlaps 50 bytes of the first segment
        assert_eq!(ss.rexmit(B + 50, 50, 3, &mut acc).0, 50);
        assert_eq!(acc.retr_time.count, 1);
        assert_eq!(acc.retr_time.max, 3);
    }

    #[test]
    fn karn_exact_ack_samples_only_unretransmitted() {
        let mut ss = SeqSpace::default();
        let mut acc = RttAcc::default();
        ss.rexmit(B, 100, 10, &mut acc);
        ss.rexmit(B + 100, 100, 20, &mut acc);
        assert_eq!(ss.ack_in(B + 100, false, 50, &mut acc), AckKind::Normal);
        assert_eq!(acc.rtt.count, 1);
        assert_eq!(acc.rtt.min, 40);
        ss.rexmit(B + 100, 100, 60, &mut acc); // retransmit second
        assert_eq!(ss.ack_in(B + 200, false, 70, &mut acc), AckKind::Ambiguous);
        assert_eq!(acc.rtt.count, 1);
        assert_eq!(acc.rtt_amback, 1);
        // acked segments collapse into one
        assert_eq!(ss.len(), 1);
    }

    #[test]
    fn duplicate_acks_counted_with_bsd_rule() {
        let mut ss = SeqSpace::default();
        let mut acc = RttAcc::default();
        ss.rexmit(B, 100, 0, &mut acc);
        ss.rexmit(B + 100, 100, 0, &mut acc);
        ss.ack_in(B + 100, false, 5, &mut acc);
        for _ in 0..3 {
            ss.ack_in(B + 100, true, 6, &mut acc);
        }
        assert_eq!(acc.rtt_dupack, 3);
        assert_eq!(acc.rtt_triple_dupack, 1);
        // not a pure duplicate: resets the count
        ss.ack_in(B + 100, false, 7, &mut acc);
        assert_eq!(acc.rtt_dupack, 3);
    }

    #[test]
    fn cumulative_ack_without_sample() {
        let mut ss = SeqSpace::default();
        let mut acc = RttAcc::default();
        ss.rexmit(B, 100, 0, &mut acc);
        ss.rexmit(B + 100, 100, 0, &mut acc);
        assert_eq!(ss.ack_in(B + 150, false, 5, &mut acc), AckKind::Cumulative);
        assert_eq!(acc.rtt.count, 0);
        assert_eq!(acc.rtt_cumack, 2);
    }

    /// A long transfer, every second segment ACKed exactly: the list
    /// stays a window long, the vector under it at most about twice that
    /// (the gone front entries are reclaimed), across quadrant boundaries.
    #[test]
    fn a_long_transfer_keeps_the_list_short_and_samples_every_exact_ack() {
        let mut ss = SeqSpace::default();
        let mut acc = RttAcc::default();
        let (seg, n) = (1448u64, 3_000_000u64);
        for i in 0..n {
            ss.rexmit(B + i * seg, seg, i, &mut acc);
            if i % 2 == 1 && i >= 21 {
                // ACK the segment sent ten segments ago, exactly.
                assert_eq!(ss.ack_in(B + (i - 9) * seg, false, i, &mut acc), AckKind::Normal);
                // Ten unACKed and the ACKed run; once past a quadrant
                // boundary also the previous quadrant's run (kept until
                // the quadrant after next) and a segment cut in two.
                assert!(ss.len() <= 14, "{} segments listed", ss.len());
                assert!(ss.segs.v.len() <= 2 * ss.len() + COMPACT_AFTER, "{} kept", ss.segs.v.len());
            }
        }
        // Every exact ACK sampled, ten segments late. The other segment of
        // each pair is ACKed cumulatively (eleven at the first ACK), and
        // so is the first piece of each segment cut at one of the four
        // quadrant boundaries crossed.
        let crossed = ((B + n * seg) >> QBITS) - (B >> QBITS);
        assert_eq!(crossed, 4);
        assert_eq!(acc.rtt.count, (n - 21).div_ceil(2));
        assert_eq!((acc.rtt.min, acc.rtt.max), (10, 10));
        assert_eq!(acc.rtt_cumack, acc.rtt.count - 1 + 11 + crossed);
    }

    /// Data two quadrants on forgets every segment recorded: the vector
    /// is emptied, not left with a gone front.
    #[test]
    fn a_jump_of_two_quadrants_empties_the_vector() {
        const Q: u64 = 1 << QBITS;
        let mut ss = SeqSpace::default();
        let mut acc = RttAcc::default();
        for k in 0..100 {
            ss.rexmit(B + 100 * k, 100, k, &mut acc);
        }
        ss.ack_in(B + 5_000, false, 200, &mut acc);
        assert_eq!(ss.len(), 51);
        assert_eq!(ss.rexmit(B + 2 * Q, 100, 300, &mut acc), (0, false));
        assert_eq!((ss.len(), ss.segs.v.len(), ss.segs.head), (1, 1, 0));
        assert_eq!(ss.segs[0].first, B + 2 * Q);
    }

    #[test]
    fn acked_runs_collapse_behind_a_previous_quadrants_segment() {
        // One segment ends the first quadrant; the rest lie in the next, so
        // the ACKed run to merge does not start at the list's front.
        const Q: u64 = 1 << QBITS;
        let mut ss = SeqSpace::default();
        let mut acc = RttAcc::default();
        ss.rexmit(B + Q - 100, 100, 0, &mut acc);
        for k in 0..5 {
            ss.rexmit(B + Q + 100 * k, 100, 10 + k, &mut acc);
        }
        // An ACK in the next quadrant takes the previous one as ACKed
        // (tcptrace's rule): no sample.
        assert_eq!(ss.ack_in(B + Q, false, 20, &mut acc), AckKind::None);
        assert_eq!((acc.rtt.count, acc.rtt_cumack, ss.len()), (0, 1, 6));
        // Exactly the end of the third: one sample, the earlier two
        // cumulative, and the three become one ACKed segment.
        assert_eq!(ss.ack_in(B + Q + 300, false, 30, &mut acc), AckKind::Normal);
        assert_eq!((acc.rtt.count, acc.rtt_cumack), (1, 3));
        assert_eq!(ss.len(), 4);
        let merged = ss.segs[1];
        assert_eq!((merged.first, merged.last, merged.time, merged.acked), (B + Q, B + Q + 299, 12, 1));
        // A duplicate of the merged run's end counts, and the fourth one
        // is the triple duplicate.
        for _ in 0..3 {
            ss.ack_in(B + Q + 300, true, 31, &mut acc);
        }
        assert_eq!((acc.rtt_dupack, acc.rtt_triple_dupack), (3, 1));
        // The rest, ACKed exactly: sent after the merged run, so sampled.
        assert_eq!(ss.ack_in(B + Q + 500, false, 40, &mut acc), AckKind::Normal);
        assert_eq!(ss.len(), 2);
        assert_eq!((acc.rtt.count, acc.rtt.max), (2, 26));
    }
}
