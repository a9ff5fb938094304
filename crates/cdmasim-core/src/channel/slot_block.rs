//! The channels of a group of terminals that advance together (a 1xEV-DO
//! RAN's users: every user's channel moves one slot every slot), read a
//! block of slots ahead and kept slot by slot: one slot's DRCs of every
//! terminal lie side by side.
//!
//! Why: with many sectors, reading each terminal's next DRC from its own
//! buffer touched one cache line per terminal and slot (and its reader's
//! state another), each one evicted by the other sectors' work before its
//! next slot; here a sector's slot touches one line for all its users.
//!
//! Each terminal keeps its `SlotReader`, read as one slot at a time would
//! read it (`SlotReader::read`: `next`, then `handoff_now`), only a block
//! of slots earlier: every DRC and hand-off is the same, whatever the
//! block's size.

use super::source::SlotReader;

/// Slots read ahead: the readers' own chunk (`SlotReader`), so a block is
/// about one fill of each source.
const BLOCK: usize = 600;

pub struct SlotBlock {
    readers: Vec<SlotReader>,
    /// `BLOCK` slots × terminals, slot-major: slot k's DRC of terminal u at
    /// `k * terminals + u`.
    drc: Vec<u8>,
    /// The slot of the block moved on to (`BLOCK` before the first).
    at: usize,
    /// The hand-offs the readers reported in the block, as (slot in the
    /// block, terminal), in that order, and the next one not yet asked for.
    handoffs: Vec<(usize, usize)>,
    next_handoff: usize,
}

impl SlotBlock {
    pub fn new(readers: Vec<SlotReader>) -> Self {
        let n = readers.len();
        SlotBlock { readers, drc: vec![0; BLOCK * n], at: BLOCK, handoffs: Vec::new(), next_handoff: 0 }
    }

    /// Move on to the next slot.
    #[inline]
    pub fn advance(&mut self) {
        self.at += 1;
        if self.at >= BLOCK {
            self.read_block();
        }
    }

    /// Terminal `u`'s DRC in the slot moved on to.
    #[inline]
    pub fn drc(&self, u: usize) -> u8 {
        self.drc[self.at * self.readers.len() + u]
    }

    /// Whether terminal `u`'s source reported a hand-off at the slot moved
    /// on to (`SlotReader::handoff_now` at that slot). Asked in terminal
    /// order within a slot, as a slot's loop over the terminals does; each
    /// hand-off is answered once, and one not asked for at its slot is
    /// passed over, as `SlotReader` passes over a stale one.
    #[inline]
    pub fn handoff_now(&mut self, u: usize) -> bool {
        // Inlined into every user's slot: the common answer, no hand-off
        // left in the block, without the walk.
        if self.next_handoff == self.handoffs.len() {
            return false;
        }
        self.handoff_at(u)
    }

    #[inline(never)]
    fn handoff_at(&mut self, u: usize) -> bool {
        while let Some(&h) = self.handoffs.get(self.next_handoff) {
            if h > (self.at, u) {
                break;
            }
            self.next_handoff += 1;
            if h == (self.at, u) {
                return true;
            }
        }
        false
    }

    #[inline(never)]
    fn read_block(&mut self) {
        let n = self.readers.len();
        self.handoffs.clear();
        self.next_handoff = 0;
        let (drc, handoffs) = (&mut self.drc, &mut self.handoffs);
        for (u, r) in self.readers.iter_mut().enumerate() {
            r.read(BLOCK, |k, d, handoff| {
                drc[k * n + u] = d;
                if handoff {
                    handoffs.push((k, u));
                }
            });
        }
        // By slot, then terminal (stable: each terminal's in slot order).
        self.handoffs.sort_by_key(|&(k, _)| k);
        self.at = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::presets;

    fn readers(specs: &[(&str, u64)]) -> Vec<SlotReader> {
        specs.iter().map(|&(name, seed)| SlotReader::new(presets::source(name, seed).unwrap())).collect()
    }

    /// Every DRC and hand-off equals the terminals' readers read slot by
    /// slot: mobile terminals (hand-offs), stationary ones, over several
    /// blocks.
    #[test]
    fn the_block_reads_as_each_reader_does() {
        let specs = [("mobile", 3), ("stationary", 4), ("mobile", 5), ("location2", 6)];
        let mut block = SlotBlock::new(readers(&specs));
        let mut alone = readers(&specs);
        let mut handoffs = 0;
        // Mobile terminals hand off every 12,000 to 18,000 slots.
        for slot in 0..(70 * BLOCK + 17) {
            block.advance();
            for (u, r) in alone.iter_mut().enumerate() {
                assert_eq!(block.drc(u), r.next(), "slot {slot}, terminal {u}");
                let h = r.handoff_now();
                handoffs += h as u32;
                assert_eq!(block.handoff_now(u), h, "slot {slot}, terminal {u}");
            }
        }
        assert!(handoffs > 0, "the mobile preset hands off within the test's slots");
    }

    /// A hand-off not asked for at its slot is passed over, not left to
    /// hold back the ones after it.
    #[test]
    fn a_hand_off_not_asked_for_is_passed_over() {
        let specs = [("mobile", 3), ("mobile", 5)];
        let mut alone = readers(&specs);
        let mut at = Vec::new();
        for slot in 0..(70 * BLOCK) {
            for (u, r) in alone.iter_mut().enumerate() {
                r.next();
                if r.handoff_now() {
                    at.push((slot, u));
                }
            }
        }
        assert!(at.len() >= 3, "{at:?}");
        let mut block = SlotBlock::new(readers(&specs));
        let mut got = Vec::new();
        for slot in 0..(70 * BLOCK) {
            block.advance();
            for u in 0..specs.len() {
                // The first hand-off's slot is skipped.
                if slot != at[0].0 && block.handoff_now(u) {
                    got.push((slot, u));
                }
            }
        }
        assert_eq!(got, at[1..]);
    }
}
