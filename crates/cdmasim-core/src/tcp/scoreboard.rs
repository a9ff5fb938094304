//! The sender's record of outstanding segments and, with SACK, the
//! scoreboard of RFC 6675: which segments the receiver has SACKed, which are
//! deemed lost (IsLost, §4), the pipe estimate (SetPipe) and the choice of
//! what to send next (NextSeg).

use super::rate::SendState;
use crate::engine::Time;
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
    /// IsLost(seq) held at the last scoreboard update.
    pub lost: bool,
    /// Delivery-rate state at the latest (re)transmission.
    pub rs: SendState,
}

impl Seg {
    pub fn end(&self) -> u64 {
        self.seq + self.len as u64
    }
}

/// Outstanding segments, contiguous and in sequence order from snd_una.
#[derive(Default)]
pub struct Scoreboard {
    pub segs: VecDeque<Seg>,
}

pub enum Next {
    /// Retransmit the segment at this index.
    Retransmit(usize),
    /// Send new data.
    NewData,
    Nothing,
}

impl Scoreboard {
    /// Index of the segment starting at `seq`.
    pub fn index_of(&self, seq: u64) -> Option<usize> {
        // Segments are contiguous but of varying length: binary search.
        self.segs.binary_search_by(|s| s.seq.cmp(&seq)).ok()
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
            if !f.counted {
                delivered(&f);
            }
            let any_retx = out.map_or(false, |o| o.1) || f.retx;
            out = Some((f.sent_at, any_retx));
        }
        out
    }

    /// Mark segments inside SACK blocks, calling `delivered` for each newly
    /// SACKed one. Returns the bytes newly SACKed.
    pub fn apply_sack(&mut self, blocks: impl Iterator<Item = (u64, u64)>, mut delivered: impl FnMut(&Seg)) -> u64 {
        let mut newly = 0;
        for (start, end) in blocks {
            let from = self.segs.partition_point(|s| s.seq < start);
            for s in self.segs.range_mut(from..) {
                if s.end() > end {
                    break;
                }
                if !s.sacked {
                    s.sacked = true;
                    newly += s.len as u64;
                    if !s.counted {
                        s.counted = true;
                        delivered(s);
                    }
                }
            }
        }
        newly
    }

    /// RFC 6675 §4 IsLost for every segment: lost when more than
    /// (DupThresh − 1)·SMSS bytes above it are SACKed, or DupThresh
    /// discontiguous SACKed segments lie above it (here: SACKed segments).
    pub fn update_lost(&mut self, dupthresh: u32, mss: u64) {
        let mut bytes_above = 0u64;
        let mut segs_above = 0u32;
        for s in self.segs.iter_mut().rev() {
            if s.sacked {
                bytes_above += s.len as u64;
                segs_above += 1;
                s.lost = false;
            } else {
                s.lost = bytes_above > (dupthresh as u64 - 1) * mss || segs_above >= dupthresh;
            }
        }
    }

    pub fn sacked_bytes(&self) -> u64 {
        self.segs.iter().filter(|s| s.sacked).map(|s| s.len as u64).sum()
    }

    /// RFC 6675 §4 SetPipe: unSACKed bytes not deemed lost, plus bytes retransmitted
    /// (at or below HighRxt) that have not been SACKed.
    pub fn pipe(&self, high_rxt: u64) -> u64 {
        let mut pipe = 0;
        for s in &self.segs {
            if s.sacked {
                continue;
            }
            if !s.lost {
                pipe += s.len as u64;
            }
            if s.retx && s.end() <= high_rxt {
                pipe += s.len as u64;
            }
        }
        pipe
    }

    /// RFC 6675 §4 NextSeg, rules 1 to 3 (the optional rescue retransmission of rule 4 is not done).
    pub fn next_seg(&self, high_rxt: u64, new_data_available: bool) -> Next {
        // Rule 1: the first unSACKed segment above HighRxt deemed lost.
        let from = self.segs.partition_point(|s| s.seq < high_rxt);
        if let Some(i) = (from..self.segs.len()).find(|&i| !self.segs[i].sacked && self.segs[i].lost) {
            return Next::Retransmit(i);
        }
        // Rule 2: new data.
        if new_data_available {
            return Next::NewData;
        }
        // Rule 3: an unSACKed segment above HighRxt with SACKed data above it.
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: u64) -> Scoreboard {
        let mut b = Scoreboard::default();
        for i in 0..n {
            let rs = SendState::default();
            b.segs.push_back(Seg { seq: 1 + i * 100, len: 100, sent_at: Time(i), retx: false, sacked: false, counted: false, lost: false, rs });
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
        assert!(b.segs[0].lost);
        assert!(!b.segs[4].lost);
        // pipe: segments 4..9 (600 bytes); 0 is lost, 1..3 SACKed.
        assert_eq!(b.pipe(1), 600);
        match b.next_seg(1, true) {
            Next::Retransmit(0) => {}
            _ => panic!("rule 1 should pick segment 0"),
        }
        // After retransmitting it, HighRxt = 101 and segment 0 counts once in pipe.
        b.segs[0].retx = true;
        assert_eq!(b.pipe(101), 700);
        assert!(matches!(b.next_seg(101, true), Next::NewData));
        assert!(matches!(b.next_seg(101, false), Next::Nothing));
        // Cumulative ACK through segment 3.
        let mut n = 0;
        let (t, retx) = b.ack_through(401, |_| n += 1).unwrap();
        assert_eq!(n, 1, "only segment 0 was not SACKed before");
        assert_eq!((t, retx), (Time(3), true));
        assert_eq!(b.segs.len(), 6);
        assert_eq!(b.index_of(601), Some(2));
    }
}
