//! The network's store of packet headers (docs/packet.md). A packet's
//! header is put here when it is sent and taken out when the packet leaves
//! the network (at its destination or by a drop), so the packets the hops
//! copy stay small; the store then holds one header per packet in flight,
//! which is the network's state. Slots given back are reused, newest first.

use super::packet::{Body, HeaderRef};

#[derive(Default)]
pub struct Headers {
    slots: Vec<Body>,
    free: Vec<u32>,
    /// Each slot's generation, bumped when it is given back: a debug build
    /// checks every reference against it.
    #[cfg(debug_assertions)]
    generations: Vec<u32>,
}

impl Headers {
    /// Keep `body`: the reference its packet carries.
    #[inline]
    pub fn put(&mut self, body: Body) -> HeaderRef {
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = body;
                s
            }
            None => {
                self.slots.push(body);
                #[cfg(debug_assertions)]
                self.generations.push(0);
                (self.slots.len() - 1) as u32
            }
        };
        HeaderRef {
            slot,
            #[cfg(debug_assertions)]
            generation: self.generations[slot as usize],
        }
    }

    #[inline]
    pub fn get(&self, r: HeaderRef) -> &Body {
        self.check(r);
        &self.slots[r.slot as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, r: HeaderRef) -> &mut Body {
        self.check(r);
        &mut self.slots[r.slot as usize]
    }

    /// The header of a packet that leaves the network; its slot is free.
    #[inline]
    pub fn take(&mut self, r: HeaderRef) -> Body {
        self.check(r);
        #[cfg(debug_assertions)]
        {
            let g = &mut self.generations[r.slot as usize];
            *g = g.wrapping_add(1);
        }
        self.free.push(r.slot);
        self.slots[r.slot as usize]
    }

    /// Headers held: packets sent and not yet gone.
    pub fn held(&self) -> u64 {
        (self.slots.len() - self.free.len()) as u64
    }

    #[inline(always)]
    fn check(&self, _r: HeaderRef) {
        #[cfg(debug_assertions)]
        assert_eq!(
            self.generations.get(_r.slot as usize),
            Some(&_r.generation),
            "a packet's header read after its slot was given back (or never sent)"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn udp(seq: u64) -> Body {
        Body::Udp { seq, len: 100 }
    }

    #[test]
    fn slots_are_reused_and_headers_kept_apart() {
        let mut h = Headers::default();
        let a = h.put(udp(1));
        let b = h.put(udp(2));
        assert_eq!((h.get(a).seq(), h.get(b).seq(), h.held()), (1, 2, 2));
        assert_eq!(h.take(a).seq(), 1);
        assert_eq!(h.held(), 1);
        let c = h.put(udp(3));
        assert_eq!(c.slot, a.slot, "a free slot is reused");
        *h.get_mut(c) = udp(4);
        assert_eq!((h.get(b).seq(), h.get(c).seq(), h.held()), (2, 4, 2));
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "given back")]
    fn a_debug_build_refuses_a_stale_reference() {
        let mut h = Headers::default();
        let a = h.put(udp(1));
        h.take(a);
        let _reused = h.put(udp(2));
        h.get(a);
    }
}
