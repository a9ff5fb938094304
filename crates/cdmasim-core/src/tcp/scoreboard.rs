//! The sender's record of outstanding segments and, with SACK, the
//! scoreboard of RFC 6675: which segments the receiver has SACKed, which are
//! deemed lost (IsLost, §4), the pipe estimate (SetPipe) and the choice of
//! what to send next (NextSeg).

use super::rate::SendState;
use crate::engine::Time;
use std::cell::Cell;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug)]
pub struct Seg {
    pub seq: u64,
    pub len: u32,
    /// Time of the latest (re)transmission.
    pub sent_at: Time,
    /// Ever retransmitted (Karn's rule: no RTT sample from it).
    pub retx: bool,
    pub sacked: bool,
    /// The delivery-rate estimator has counted it (it was SACKed, perhaps
    /// before a timeout cleared the SACK marks): it must not count twice.
    pub counted: bool,
    /// IsLost(seq) as the last `update_lost` found it; false once SACKed.
    pub lost: bool,
    /// Delivery-rate state at the latest (re)transmission.
    pub rs: SendState,
}

impl Seg {
    pub fn end(&self) -> u64 {
        self.seq + self.len as u64
    }
}

/// Outstanding segments, contiguous and in sequence order from snd_una,
/// with what RFC 6675's pipe and IsLost need kept up to date as the
/// segments change: an ACK in SACK recovery costs work in the segments it
/// changes, not walks of the whole window.
///
/// IsLost(seq) holds when enough SACKed data lies above a segment. That
/// data is the more the nearer a segment is to the front, and only grows
/// while the segment is outstanding, so the segments deemed lost are the
/// unSACKed ones below a boundary (`lost_end`, an index, which each acked
/// segment takes one off) that moves up the sequence space only, except
/// when a timeout forgets the SACKs or the rule changes. Every figure kept
/// here equals what a walk of the segments gives.
#[derive(Default)]
pub struct Scoreboard {
    segs: VecDeque<Seg>,
    /// The unSACKed segments before this index are deemed lost (their
    /// `lost` set), none from it on: as `update_lost` last found them.
    lost_end: usize,
    /// SACKed bytes and segments from `lost_end` on.
    sacked_after: (u64, u32),
    /// (DupThresh, SMSS) of the last `update_lost`; None before the first.
    lost_rule: Option<(u32, u64)>,
    /// Bytes SACKed, and bytes deemed lost: pipe's first term is what
    /// the segments span less these (`span`), so
    /// sending or acking a segment that is neither costs no bookkeeping.
    sacked: u64,
    lost: u64,
    /// (HighRxt, bytes of the unSACKed retransmitted segments ending at or
    /// below it): pipe's second term, for the HighRxt last asked about.
    /// A cell: `pipe` is asked through `&self`.
    retx_below: Cell<(u64, u64)>,
}

pub enum Next {
    /// Retransmit the segment at this index.
    Retransmit(usize),
    /// Send new data.
    NewData,
    Nothing,
}

impl std::ops::Index<usize> for Scoreboard {
    type Output = Seg;
    fn index(&self, i: usize) -> &Seg {
        &self.segs[i]
    }
}

impl Scoreboard {
    pub fn len(&self) -> usize {
        self.segs.len()
    }

    pub fn front(&self) -> Option<&Seg> {
        self.segs.front()
    }

    /// Index of the segment starting at `seq`.
    pub fn index_of(&self, seq: u64) -> Option<usize> {
        let i = self.first_from(seq, |s| s.seq < seq);
        (i < self.segs.len() && self.segs[i].seq == seq).then_some(i)
    }

    /// The first index where `before` no longer holds (`before` holds for
    /// a prefix of the segments, as `partition_point` takes it), looked
    /// for first where `seq` would lie if the window's segments were of
    /// one length: a bulk sender's are (but perhaps one), so the answer is
    /// found a segment or two from there, on cache lines the caller reads
    /// anyway, where a binary search of a long window misses the cache at
    /// every step. Up to NEAR steps either way, then the binary search.
    fn first_from(&self, seq: u64, before: impl Fn(&Seg) -> bool) -> usize {
        const NEAR: usize = 4;
        let n = self.segs.len();
        let Some(front) = self.segs.front() else { return 0 };
        let span = self.span();
        let into = seq.saturating_sub(front.seq).min(span);
        let mut i = into.checked_mul(n as u64).map_or(n, |x| (x / span.max(1)) as usize);
        for _ in 0..=NEAR {
            if i < n && before(&self.segs[i]) {
                i += 1;
            } else if i > 0 && !before(&self.segs[i - 1]) {
                i -= 1;
            } else {
                return i;
            }
        }
        self.segs.partition_point(before)
    }

    /// The bytes the segments span (they are contiguous).
    fn span(&self) -> u64 {
        self.segs.back().map_or(0, |b| b.end() - self.segs[0].seq)
    }

    /// A new segment after the last: not SACKed, not lost, not retransmitted.
    pub fn push(&mut self, seq: u64, len: u32, sent_at: Time, rs: SendState) {
        debug_assert!(self.segs.back().is_none_or(|b| b.end() == seq), "segments are contiguous");
        self.segs.push_back(Seg { seq, len, sent_at, retx: false, sacked: false, counted: false, lost: false, rs });
    }

    /// Segment `i` is sent again at `now`.
    pub fn retransmitted(&mut self, i: usize, now: Time, rs: SendState) -> &Seg {
        let (high_rxt, below) = self.retx_below.get();
        let s = &mut self.segs[i];
        if !s.sacked && !s.retx && s.end() <= high_rxt {
            self.retx_below.set((high_rxt, below + s.len as u64));
        }
        s.retx = true;
        s.sent_at = now;
        s.rs = rs;
        &self.segs[i]
    }

    /// Segment `s` leaves pipe's second term (it is SACKed or acked):
    /// its bytes come off if they were counted there.
    fn leave_retx_term(&self, s: &Seg) {
        let (high_rxt, below) = self.retx_below.get();
        if !s.sacked && s.retx && s.end() <= high_rxt {
            self.retx_below.set((high_rxt, below - s.len as u64));
        }
    }

    /// The front segment `f`, just acked, leaves what is kept.
    #[inline(never)]
    fn forget_acked(&mut self, f: &Seg) {
        if f.sacked {
            self.sacked -= f.len as u64;
            if self.lost_end == 0 {
                self.sacked_after.0 -= f.len as u64;
                self.sacked_after.1 -= 1;
            }
        }
        if f.lost {
            self.lost -= f.len as u64;
        }
        self.lost_end = self.lost_end.saturating_sub(1);
        self.leave_retx_term(f);
    }

    /// Drop segments fully covered by the cumulative ACK, calling `delivered`
    /// for each one not SACKed before (even if a timeout cleared that SACK).
    /// Returns (newest fully acked segment's send time, whether any acked
    /// segment was ever retransmitted).
    pub fn ack_through(&mut self, ack: u64, mut delivered: impl FnMut(&Seg)) -> Option<(Time, bool)> {
        let mut out: Option<(Time, bool)> = None;
        while let Some(f) = self.segs.front() {
            if f.end() > ack {
                break;
            }
            let f = self.segs.pop_front().unwrap();
            // A segment neither SACKed, lost nor retransmitted changes
            // nothing kept (and lies at or beyond `lost_end`).
            debug_assert!(self.lost_end == 0 || f.sacked || f.lost);
            if f.sacked | f.lost | f.retx {
                self.forget_acked(&f);
            }
            if !f.counted {
                delivered(&f);
            }
            let any_retx = out.map_or(false, |o| o.1) || f.retx;
            out = Some((f.sent_at, any_retx));
        }
        out
    }

    /// Mark segments inside SACK blocks, calling `delivered` for each newly
    /// SACKed one. Returns the bytes newly SACKed. A SACKed segment is not
    /// lost (what `update_lost` would find for it).
    pub fn apply_sack(&mut self, blocks: impl Iterator<Item = (u64, u64)>, mut delivered: impl FnMut(&Seg)) -> u64 {
        let mut newly = 0;
        for (start, end) in blocks {
            let from = self.first_from(start, |s| s.seq < start);
            for i in from..self.segs.len() {
                let s = self.segs[i];
                if s.end() > end {
                    break;
                }
                if s.sacked {
                    continue;
                }
                self.leave_retx_term(&s);
                self.sacked += s.len as u64;
                if s.lost {
                    self.lost -= s.len as u64;
                }
                if i >= self.lost_end {
                    self.sacked_after.0 += s.len as u64;
                    self.sacked_after.1 += 1;
                }
                let s = &mut self.segs[i];
                s.sacked = true;
                s.lost = false;
                newly += s.len as u64;
                if !s.counted {
                    s.counted = true;
                    delivered(s);
                }
            }
        }
        newly
    }

    /// RFC 6675 §4 IsLost for every segment: lost when more than
    /// (DupThresh − 1)·SMSS bytes above it are SACKed, or DupThresh
    /// discontiguous SACKed segments lie above it (here: SACKed segments).
    /// The SACKed data above a segment only grows from one call to the
    /// next (`clear_sacks` puts `lost_end` back itself), so the lost ones
    /// are found by moving `lost_end` on; under another DupThresh or SMSS
    /// every segment is looked at again.
    pub fn update_lost(&mut self, dupthresh: u32, mss: u64) {
        if self.lost_rule != Some((dupthresh, mss)) {
            self.lost_rule = Some((dupthresh, mss));
            self.forget_lost();
        }
        let bytes = (dupthresh as u64 - 1) * mss;
        while let Some(&s) = self.segs.get(self.lost_end) {
            let (mut above, mut count) = self.sacked_after;
            if s.sacked {
                above -= s.len as u64;
                count -= 1;
            }
            if !(above > bytes || count >= dupthresh) {
                break;
            }
            if !s.sacked {
                self.segs[self.lost_end].lost = true;
                self.lost += s.len as u64;
            }
            self.sacked_after = (above, count);
            self.lost_end += 1;
        }
    }

    /// No segment deemed lost (`lost_end` back to the front).
    fn forget_lost(&mut self) {
        for s in self.segs.range_mut(..self.lost_end) {
            s.lost = false;
        }
        self.lost = 0;
        self.lost_end = 0;
        self.sacked_after = self.segs.iter().filter(|s| s.sacked).fold((0, 0), |(b, n), s| (b + s.len as u64, n + 1));
    }

    pub fn sacked_bytes(&self) -> u64 {
        self.sacked
    }

    /// RFC 6675 §4 SetPipe: unSACKed bytes not deemed lost, plus bytes retransmitted
    /// (at or below HighRxt) that have not been SACKed.
    pub fn pipe(&self, high_rxt: u64) -> u64 {
        let (old, mut below) = self.retx_below.get();
        if high_rxt != old {
            // The segments ending between the two HighRxts enter or leave
            // the second term (ends increase along the list).
            let ends = |h: u64| self.first_from(h, |s| s.end() <= h);
            let (lo, hi) = (ends(old.min(high_rxt)), ends(old.max(high_rxt)));
            let moved: u64 = self.segs.range(lo..hi).filter(|s| !s.sacked && s.retx).map(|s| s.len as u64).sum();
            below = if high_rxt > old { below + moved } else { below - moved };
            self.retx_below.set((high_rxt, below));
        }
        self.span() - self.sacked - self.lost + below
    }

    /// RFC 6675 §4 NextSeg, rules 1 to 3 (the optional rescue retransmission of rule 4 is not done).
    pub fn next_seg(&self, high_rxt: u64, new_data_available: bool) -> Next {
        // Rule 1: the first unSACKed segment above HighRxt deemed lost
        // (the lost ones all lie before `lost_end`).
        let from = self.first_from(high_rxt, |s| s.seq < high_rxt);
        if let Some(i) = (from..self.lost_end).find(|&i| !self.segs[i].sacked) {
            return Next::Retransmit(i);
        }
        // Rule 2: new data.
        if new_data_available {
            return Next::NewData;
        }
        // Rule 3: an unSACKed segment above HighRxt with SACKed data above it.
        if self.sacked == 0 {
            return Next::Nothing;
        }
        let last_sacked = self.segs.iter().rposition(|s| s.sacked);
        if let Some(ls) = last_sacked {
            if let Some(i) = (from..ls).find(|&i| !self.segs[i].sacked) {
                return Next::Retransmit(i);
            }
        }
        Next::Nothing
    }

    /// RFC 2018 §8: after a retransmission timeout the receiver may have
    /// reneged, so forget all SACK information.
    pub fn clear_sacks(&mut self) {
        for s in &mut self.segs {
            s.sacked = false;
            s.lost = false;
        }
        self.lost_end = 0;
        self.sacked_after = (0, 0);
        self.sacked = 0;
        self.lost = 0;
        let high_rxt = self.retx_below.get().0;
        self.retx_below.set((high_rxt, self.segs.iter().filter(|s| s.retx && s.end() <= high_rxt).map(|s| s.len as u64).sum()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Rng;

    fn board(n: u64) -> Scoreboard {
        let mut b = Scoreboard::default();
        for i in 0..n {
            b.push(1 + i * 100, 100, Time(i), SendState::default());
        }
        b
    }

    #[test]
    fn islost_pipe_and_nextseg_follow_rfc6675() {
        let mut b = board(10);
        // Segment 0 lost; 1..=3 SACKed (three segments, 300 bytes > 2·SMSS).
        let mut n = 0;
        b.apply_sack([(101, 401)].into_iter(), |_| n += 1);
        assert_eq!(n, 3);
        b.update_lost(3, 100);
        assert!(b[0].lost);
        assert!(!b[4].lost);
        // pipe: segments 4..9 (600 bytes); 0 is lost, 1..3 SACKed.
        assert_eq!(b.pipe(1), 600);
        match b.next_seg(1, true) {
            Next::Retransmit(0) => {}
            _ => panic!("rule 1 should pick segment 0"),
        }
        // After retransmitting it, HighRxt = 101 and segment 0 counts once in pipe.
        b.retransmitted(0, Time(10), SendState::default());
        assert_eq!(b.pipe(101), 700);
        assert!(matches!(b.next_seg(101, true), Next::NewData));
        assert!(matches!(b.next_seg(101, false), Next::Nothing));
        // Cumulative ACK through segment 3.
        let mut n = 0;
        let (t, retx) = b.ack_through(401, |_| n += 1).unwrap();
        assert_eq!(n, 1, "only segment 0 was not SACKed before");
        assert_eq!((t, retx), (Time(3), true));
        assert_eq!(b.len(), 6);
        assert_eq!(b.index_of(601), Some(2));
    }

    /// The search from a guess finds what a binary search finds, for
    /// segments of one length and of mixed lengths, and for positions
    /// before, inside and beyond the window.
    #[test]
    fn the_guessed_search_is_partition_point() {
        let mut rng = Rng::from_seed(8);
        for _ in 0..2000 {
            let mut b = Scoreboard::default();
            let mixed = rng.bernoulli(0.5);
            let mut seq = 1 + rng.below(1 << 40);
            for _ in 0..rng.below(300) {
                let len = if mixed { 1 + rng.below(1500) as u32 } else { 1448 };
                b.push(seq, len, Time::ZERO, SendState::default());
                seq += len as u64;
            }
            let lo = b.front().map_or(0, |f| f.seq);
            for _ in 0..50 {
                let x = lo.saturating_sub(3000) + rng.below(seq - lo + 6000);
                assert_eq!(b.first_from(x, |s| s.seq < x), b.segs.partition_point(|s| s.seq < x));
                assert_eq!(b.first_from(x, |s| s.end() <= x), b.segs.partition_point(|s| s.end() <= x));
                assert_eq!(b.index_of(x), b.segs.binary_search_by(|s| s.seq.cmp(&x)).ok());
            }
            if b.len() > 0 {
                let i = rng.below(b.len() as u64) as usize;
                assert_eq!(b.index_of(b[i].seq), Some(i));
            }
        }
    }

    /// IsLost of every segment by RFC 6675 §4's definition, walking the
    /// segments from the top.
    fn walked_lost(b: &Scoreboard, dupthresh: u32, mss: u64) -> Vec<bool> {
        let (mut bytes, mut count) = (0u64, 0u32);
        let mut lost: Vec<bool> = b.segs.iter().rev().map(|s| {
            if s.sacked {
                bytes += s.len as u64;
                count += 1;
                false
            } else {
                bytes > (dupthresh as u64 - 1) * mss || count >= dupthresh
            }
        }).collect();
        lost.reverse();
        lost
    }

    /// SetPipe by walking the segments.
    fn walked_pipe(b: &Scoreboard, high_rxt: u64) -> u64 {
        b.segs.iter().filter(|s| !s.sacked).map(|s| (!s.lost as u64 + (s.retx && s.end() <= high_rxt) as u64) * s.len as u64).sum()
    }

    /// NextSeg's rule 1 by walking the segments: the first unSACKed lost one above HighRxt.
    fn walked_rule1(b: &Scoreboard, high_rxt: u64) -> Option<usize> {
        (0..b.len()).find(|&i| b[i].seq >= high_rxt && !b[i].sacked && b[i].lost)
    }

    /// What the scoreboard keeps as segments change equals the walks over
    /// its segments, on random histories of sends, SACKs, cumulative ACKs,
    /// retransmissions, timeouts, HighRxt moving both ways and a change
    /// of DupThresh or SMSS.
    #[test]
    fn kept_figures_equal_the_walks() {
        let mut rng = Rng::from_seed(3);
        let (mut checked, mut with_lost, mut with_retx) = (0u64, 0u64, 0u64);
        for history in 0..300 {
            let mut b = Scoreboard::default();
            let (mut snd_una, mut snd_max) = (1u64, 1u64);
            let mut rule = (3u32, 1000u64);
            // Half the histories send segments of one length, as a bulk
            // sender does (the search from a guess then finds them).
            let fixed = history % 2 == 0;
            for _ in 0..400 {
                let r = rng.uniform();
                if r < 0.35 || b.len() == 0 {
                    let len = if fixed { 1000 } else { 1 + rng.below(1500) as u32 };
                    b.push(snd_max, len, Time(snd_max), SendState::default());
                    snd_max += len as u64;
                } else if r < 0.65 {
                    // A SACK block from a random segment over a few more,
                    // its edges at segment boundaries or inside segments.
                    let i = rng.below(b.len() as u64) as usize;
                    let j = (i + 1 + rng.below(4) as usize).min(b.len());
                    // Some blocks start below the window (the receiver's
                    // block reaches back over data since acked).
                    let start = if rng.bernoulli(0.1) {
                        b[0].seq.saturating_sub(rng.below(3000))
                    } else {
                        b[i].seq + if rng.bernoulli(0.2) { rng.below(b[i].len as u64) } else { 0 }
                    };
                    let end = b[j - 1].end() - if rng.bernoulli(0.2) { rng.below(b[j - 1].len as u64) } else { 0 };
                    if b.apply_sack([(start, end)].into_iter(), |_| {}) > 0 {
                        b.update_lost(rule.0, rule.1);
                    }
                } else if r < 0.75 {
                    let i = rng.below(b.len() as u64) as usize;
                    let ack = if rng.bernoulli(0.5) { b[i].seq } else { b[i].end() };
                    b.ack_through(ack, |_| {});
                    snd_una = snd_una.max(ack);
                } else if r < 0.88 {
                    let i = rng.below(b.len() as u64) as usize;
                    b.retransmitted(i, Time(snd_max), SendState::default());
                } else if r < 0.9 {
                    b.clear_sacks();
                } else if r < 0.91 {
                    rule = if rule.0 == 3 { (2, 1000) } else { (3, 1000 + rng.below(3)) };
                    b.update_lost(rule.0, rule.1);
                }
                // HighRxt anywhere from snd_una to snd_max, up or down, and
                // sometimes below the window (1 as at the start, or data
                // since acked).
                let high_rxt = match rng.below(10) {
                    0 => 1,
                    1 => snd_una.saturating_sub(rng.below(5000)),
                    _ => snd_una + rng.below(snd_max - snd_una + 1),
                };
                let lost: Vec<bool> = b.segs.iter().map(|s| s.lost).collect();
                if b.lost_rule.is_some() {
                    assert_eq!(lost, walked_lost(&b, rule.0, rule.1), "history {history}");
                } else {
                    assert!(!lost.contains(&true));
                }
                with_lost += lost.contains(&true) as u64;
                with_retx += (walked_pipe(&b, high_rxt) != walked_pipe(&b, 0)) as u64;
                assert_eq!(b.pipe(high_rxt), walked_pipe(&b, high_rxt), "history {history}");
                assert_eq!(b.sacked_bytes(), b.segs.iter().filter(|s| s.sacked).map(|s| s.len as u64).sum::<u64>());
                let rule1 = match b.next_seg(high_rxt, true) {
                    Next::Retransmit(i) => Some(i),
                    _ => None,
                };
                assert_eq!(rule1, walked_rule1(&b, high_rxt), "history {history}");
                checked += 1;
            }
        }
        // The histories reach the states that matter: some segment lost,
        // some retransmission counted in pipe.
        assert_eq!(checked, 120_000);
        assert!(with_lost > 10_000 && with_retx > 10_000, "{with_lost} {with_retx}");
    }
}
