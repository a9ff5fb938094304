//! The connection table: which connection (and which of its directions) a
//! segment belongs to. A capture's packets come from a few connections at
//! a time, interleaved (ten flows through one bottleneck alternate almost
//! packet by packet), so a small direct-mapped cache of recent connections,
//! indexed by a hash of the endpoints that is the same in both directions,
//! answers most lookups with one comparison of the endpoints; the hash map
//! over the canonical key answers the rest. A slot's connection is taken
//! only when its endpoints are the packet's, and it is then the one the map
//! holds for them (every write to a slot is the map's current connection
//! for some endpoints, and a new connection on the same endpoints takes the
//! map's place and the slot's together), so what is found never depends on
//! the cache.

use super::conn::Conn;
use super::{conn_key, Key, KeyHash};
use crate::pcap::decode::TcpPacket;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// Slots of the cache of recent connections (a power of two).
const RECENT: usize = 256;

pub struct ConnTable {
    map: HashMap<Key, usize, BuildHasherDefault<KeyHash>>,
    /// A connection's index + 1 by `slot`; 0: empty.
    recent: Box<[u32; RECENT]>,
}

impl Default for ConnTable {
    fn default() -> Self {
        ConnTable { map: HashMap::default(), recent: Box::new([0; RECENT]) }
    }
}

/// The cache slot of `p`'s endpoints: the same for both directions (they
/// enter through xor). The address words used are an IPv4 address's and
/// an IPv6 address's first and last; flows that differ elsewhere only
/// share a slot, and the map tells them apart.
#[inline(always)]
fn slot(p: &TcpPacket) -> usize {
    let w = |a: &[u8; 16], i: usize| u32::from_ne_bytes([a[i], a[i + 1], a[i + 2], a[i + 3]]);
    let x = w(&p.src, 0) ^ w(&p.src, 12) ^ w(&p.dst, 0) ^ w(&p.dst, 12) ^ (p.sport ^ p.dport) as u32;
    (x.wrapping_mul(0x9e37_79b9) >> (32 - RECENT.trailing_zeros())) as usize
}

impl ConnTable {
    /// The latest connection on `p`'s endpoints and `p`'s direction in it.
    #[inline(always)]
    pub fn find(&mut self, conns: &[Conn], p: &TcpPacket) -> Option<(usize, usize)> {
        let k = slot(p);
        let r = self.recent[k] as usize;
        if r != 0 {
            if let Some(dir) = conns[r - 1].direction(p) {
                return Some((r - 1, dir));
            }
        }
        self.find_slow(conns, p, k)
    }

    #[inline(never)]
    fn find_slow(&mut self, conns: &[Conn], p: &TcpPacket, k: usize) -> Option<(usize, usize)> {
        let i = *self.map.get(&conn_key(p))?;
        self.recent[k] = cached(i);
        Some((i, conns[i].direction(p).expect("a connection found by its key joins the packet's endpoints")))
    }

    /// Connection `i`, just opened by `p`, becomes the one on its
    /// endpoints, in the map and in the slot the endpoints pick (which
    /// depends on nothing else: a connection it supersedes held the same
    /// slot, if any).
    pub fn insert(&mut self, i: usize, p: &TcpPacket) {
        self.map.insert(conn_key(p), i);
        self.recent[slot(p)] = cached(i);
    }
}

/// What the cache holds for connection `i` (empty past u32's range).
fn cached(i: usize) -> u32 {
    u32::try_from(i + 1).unwrap_or(0)
}
