//! Named random streams derived from one scenario seed.
//!
//! Each component asks for a stream by a stable name ("loss/link:a-b",
//! "red/link:r1-r2", ...). The stream's state is a hash of the seed and the
//! name, so adding a component never shifts the numbers another one draws,
//! and results do not depend on construction order. The generator is
//! xoshiro256** (Blackman & Vigna), seeded through SplitMix64; both are
//! implemented here so that no dependency upgrade can change a result.

#[derive(Clone, Copy, Debug)]
pub struct RngStreams {
    seed: u64,
}

impl RngStreams {
    pub fn new(seed: u64) -> Self {
        Self { seed }
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The stream called `name`: the same (seed, name) always gives the same numbers.
    pub fn stream(&self, name: &str) -> Rng {
        // FNV-1a over the name, then mixed with the seed by SplitMix64.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.as_bytes() {
            h ^= *b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        Rng::from_seed(self.seed ^ h.rotate_left(17))
    }
}

#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A word's top 53 bits as a fraction in [0, 1).
#[inline(always)]
pub(crate) fn fraction(u: u64) -> f64 {
    (u >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

impl Rng {
    pub fn from_seed(seed: u64) -> Self {
        let mut x = seed;
        let s = [splitmix64(&mut x), splitmix64(&mut x), splitmix64(&mut x), splitmix64(&mut x)];
        Self { s }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    pub fn uniform(&mut self) -> f64 {
        fraction(self.next_u64())
    }

    /// True with probability `p`.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform() < p
    }

    /// Uniform integer in [0, n).
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Exponential with the given mean (`engine::ziggurat`).
    #[inline]
    pub fn exponential(&mut self, mean: f64) -> f64 {
        mean * super::ziggurat::exponential(self)
    }

    /// Standard normal (`engine::ziggurat`).
    #[inline]
    pub fn normal(&mut self) -> f64 {
        super::ziggurat::normal(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_independent() {
        let s = RngStreams::new(7);
        let a: Vec<u64> = (0..4).map({ let mut r = s.stream("a"); move |_| r.next_u64() }).collect();
        let a2: Vec<u64> = (0..4).map({ let mut r = s.stream("a"); move |_| r.next_u64() }).collect();
        let b: Vec<u64> = (0..4).map({ let mut r = s.stream("b"); move |_| r.next_u64() }).collect();
        assert_eq!(a, a2);
        assert_ne!(a, b);
        assert_ne!(a, (0..4).map({ let mut r = RngStreams::new(8).stream("a"); move |_| r.next_u64() }).collect::<Vec<_>>());
    }

    #[test]
    fn uniform_mean_is_one_half() {
        let mut r = Rng::from_seed(1);
        let n = 200_000;
        let m: f64 = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        // Standard error is 1/sqrt(12 n) = 6.5e-4; allow 5 sigma.
        assert!((m - 0.5).abs() < 3.3e-3, "mean {m}");
    }
}
