//! Event queue: binary min-heaps on (time, insertion number).
//!
//! The insertion number breaks ties, so events scheduled for the same
//! nanosecond fire in the order they were scheduled (FIFO). That order depends
//! only on the scenario and the seed, which makes runs bit-identical.
//!
//! Two heaps: events that are scheduled far ahead and seldom fire (an
//! endpoint's retransmission timer, a flow's start; `Slow`) wait in one,
//! the frequent ones (a hop's wake-up for its next packet) in the other,
//! which so stays small: in a 100-flow cell most pending events are timers.
//! `pop` takes the smaller key of the two fronts, so the order is exactly
//! the one heap's (tested). Same-run best of 25, whole process: the Table
//! II cell 82.3 -> 77.7 ms, the dumbbell at N = 100 44.1 -> 39.9 ms, at
//! N = 1 25.5 -> 26.3 ms (one more comparison a pop on a heap of a few).
//!
//! The event `pop` hands out stays at the fast heap's front until the next
//! `schedule`, which takes its place: a handler that schedules a wake-up
//! (most do) costs one sift down instead of a pop and a push. Callgrind:
//! the dumbbell at N = 1 / 10 / 100 -4.2 / -4.3 / -4.1 % instructions, the
//! Table II cell -8.4 %; the order of events is unchanged.

use super::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// `key` = time << 64 | insertion number: one integer comparison orders by
/// time, then FIFO among equal times.
struct Entry<E> {
    key: u128,
    event: E,
}

impl<E> Entry<E> {
    fn time(&self) -> Time {
        Time((self.key >> 64) as u64)
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed so that BinaryHeap (a max-heap) pops the earliest event first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// Which heap an event waits in (see the module doc): true for the kinds
/// that are scheduled far ahead and seldom fire. Only speed depends on it.
pub trait Slow {
    fn slow(&self) -> bool;
}

pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    slow: BinaryHeap<Entry<E>>,
    /// The slow heap's smallest key (u128::MAX when it is empty): one
    /// comparison per pop decides which heap gives the next event.
    slow_front: u128,
    next_seq: u64,
    now: Time,
    popped: u64,
    /// The fast heap's front is the event `pop` handed out last, left in
    /// place: the next fast `schedule` overwrites it (one sift down instead
    /// of a pop's and a push's), and the next `peek_time` or `pop` removes
    /// it if no schedule did. Most events schedule a hop's next wake-up.
    held: bool,
}

impl<E: Slow + Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Slow + Copy> EventQueue<E> {
    pub fn new() -> Self {
        Self {
            heap: BinaryHeap::with_capacity(1024),
            slow: BinaryHeap::new(),
            slow_front: u128::MAX,
            next_seq: 0,
            now: Time::ZERO,
            popped: 0,
            held: false,
        }
    }

    /// Current simulated time: the time of the last event popped.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Number of events popped so far (the engine's work measure).
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    pub fn len(&self) -> usize {
        self.heap.len() - self.held as usize + self.slow.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Remove the front `pop` handed out, if no schedule took its place.
    #[inline]
    fn settle(&mut self) {
        if self.held {
            self.held = false;
            self.heap.pop();
        }
    }

    /// Schedule `event` at absolute time `at` (never in the past).
    pub fn schedule(&mut self, at: Time, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let seq = self.next_seq;
        self.next_seq += 1;
        let time = at.max(self.now);
        let key = (time.0 as u128) << 64 | seq as u128;
        if event.slow() {
            self.slow_front = self.slow_front.min(key);
            self.slow.push(Entry { key, event });
        } else if self.held {
            // The key is later than the front's (a later time, or the same
            // time and a later insertion), so it sifts down from there.
            self.held = false;
            *self.heap.peek_mut().expect("the held front") = Entry { key, event };
        } else {
            self.heap.push(Entry { key, event });
        }
    }

    /// Whether the next event is the slow heap's.
    #[inline]
    fn next_is_slow(&self) -> bool {
        self.heap.peek().is_none_or(|e| self.slow_front < e.key)
    }

    /// Time of the next event, if any.
    pub fn peek_time(&mut self) -> Option<Time> {
        self.settle();
        if self.next_is_slow() {
            self.slow.peek().map(|e| e.time())
        } else {
            self.heap.peek().map(|e| e.time())
        }
    }

    /// Pop the earliest event and advance the clock to it.
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.pop_by(Time::MAX)
    }

    /// Pop the earliest event if it is due by `limit` (else leave it, and
    /// the clock, where they are): a run's loop looks at the front once.
    #[inline]
    pub fn pop_by(&mut self, limit: Time) -> Option<(Time, E)> {
        self.settle();
        let (time, event) = if self.next_is_slow() {
            let e = self.slow.peek().filter(|e| e.time() <= limit)?;
            let (time, event) = (e.time(), e.event);
            self.slow.pop();
            self.slow_front = self.slow.peek().map_or(u128::MAX, |f| f.key);
            (time, event)
        } else {
            let e = self.heap.peek().filter(|e| e.time() <= limit)?;
            self.held = true;
            (e.time(), e.event)
        };
        self.now = time;
        self.popped += 1;
        Some((time, event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Slow for char {
        /// Upper case waits in the slow heap.
        fn slow(&self) -> bool {
            self.is_uppercase()
        }
    }

    /// Across the two heaps the order is (time, insertion), as one heap's:
    /// every pop, in a random interleaving of schedules (both kinds, many
    /// equal times) and pops, gives the smallest pending (time, insertion).
    #[test]
    fn two_heaps_pop_as_one() {
        let mut rng = crate::engine::Rng::from_seed(3);
        let mut q = EventQueue::new();
        let mut pending = std::collections::BTreeSet::new();
        let (mut seq, mut slow_pops) = (0u64, 0);
        for _ in 0..20_000 {
            if rng.uniform() < 0.55 || q.is_empty() {
                let at = q.now() + Time(rng.below(5));
                let ev = if rng.uniform() < 0.3 { 'S' } else { 'f' };
                q.schedule(at, ev);
                pending.insert((at, seq, ev));
                seq += 1;
            }
            let first = *pending.iter().next().unwrap();
            assert_eq!(q.peek_time(), Some(first.0));
            if rng.uniform() < 0.5 {
                pending.remove(&first);
                assert_eq!(q.pop(), Some((first.0, first.2)));
                slow_pops += (first.2 == 'S') as u32;
            }
            assert_eq!(q.len(), pending.len());
        }
        assert!(slow_pops > 1000, "{slow_pops}");
    }

    /// The front `pop` leaves in place is gone from every count and order:
    /// a schedule at the same time goes behind what was pending there, and
    /// a pop with no schedule between removes it first.
    #[test]
    fn the_held_front_is_gone() {
        let mut q = EventQueue::new();
        for (at, ev) in [(1, 'a'), (1, 'b'), (2, 'c')] {
            q.schedule(Time(at), ev);
        }
        assert_eq!(q.pop(), Some((Time(1), 'a')));
        assert_eq!(q.len(), 2);
        q.schedule(Time(1), 'd');
        assert_eq!(q.len(), 3);
        assert_eq!(q.pop(), Some((Time(1), 'b')));
        assert_eq!(q.pop(), Some((Time(1), 'd')));
        assert_eq!(q.peek_time(), Some(Time(2)));
        assert_eq!(q.pop(), Some((Time(2), 'c')));
        assert!(q.is_empty());
        assert_eq!(q.pop(), None);
        q.schedule(Time(3), 'e');
        assert_eq!(q.pop(), Some((Time(3), 'e')));
    }

    /// `pop_by` pops only what is due by its limit, from either heap, and
    /// leaves the rest (and the clock) as they were.
    #[test]
    fn pop_by_stops_at_its_limit() {
        let mut q = EventQueue::new();
        for (at, ev) in [(3, 'a'), (5, 'B'), (7, 'c')] {
            q.schedule(Time(at), ev);
        }
        assert_eq!(q.pop_by(Time(2)), None);
        assert_eq!((q.now(), q.len(), q.events_processed()), (Time::ZERO, 3, 0));
        assert_eq!(q.pop_by(Time(3)), Some((Time(3), 'a')));
        assert_eq!(q.pop_by(Time(4)), None);
        assert_eq!((q.now(), q.len()), (Time(3), 2));
        assert_eq!(q.pop_by(Time(6)), Some((Time(5), 'B')));
        assert_eq!(q.pop_by(Time(6)), None);
        assert_eq!(q.pop_by(Time(7)), Some((Time(7), 'c')));
        assert_eq!(q.pop_by(Time::MAX), None);
        assert_eq!(q.events_processed(), 3);
    }

    #[test]
    fn equal_times_pop_in_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(Time(10), 'a');
        q.schedule(Time(5), 'B');
        q.schedule(Time(10), 'C');
        q.schedule(Time(5), 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['B', 'd', 'a', 'C']);
        assert_eq!(q.now(), Time(10));
        assert_eq!(q.events_processed(), 4);
    }
}
