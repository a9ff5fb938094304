//! Normal and exponential draws by the ziggurat method (Marsaglia and
//! Tsang, "The Ziggurat Method for Generating Random Variables", Journal of
//! Statistical Software 5(8), 2000), with 256 layers.
//!
//! The density's right half is covered by 256 layers of equal area `V`:
//! a base strip (the rectangle [0, R] under f(R) plus the tail beyond R)
//! and 255 rectangles stacked on it. A draw picks a layer and a point x
//! across its width from one 64-bit word; x lies under the curve for sure
//! when it is left of the layer above's edge (98.5 % of draws for the
//! normal, 97.8 % for the exponential: a table lookup, a multiply and a
//! comparison), and otherwise is tested against the density itself or,
//! in the base strip, drawn from the tail. The tables are built at first
//! use with the platform's `exp` and `ln`, as Box-Muller's draws used its
//! `ln`, `sqrt` and `cos`.
//!
//! Bits of the word: 0-7 the layer, 8 the normal's sign, 11-63 the 53-bit
//! fraction. A rejected point draws a new word, so the number of words a
//! draw takes varies; a stream's sequence is still a function of its seed
//! and the calls made on it.

use super::rng::{fraction, Rng};
use std::sync::LazyLock;

const LAYERS: usize = 256;

/// Edges and densities of one ziggurat: `x[0]` is the base strip's
/// equivalent width V / f(R), `x[1]` = R, `x[i]` the right edge of layer
/// i, falling to `x[LAYERS]` = 0; `f[i]` = f(x[i]) with f unnormalised
/// (f(0) = 1).
struct Table {
    x: [f64; LAYERS + 1],
    f: [f64; LAYERS + 1],
}

impl Table {
    /// Layers of area `v` from the tail's start `r`: each edge is the one
    /// above which a rectangle as wide as the edge below has area `v`,
    /// x[i+1] = f⁻¹(f(x[i]) + v / x[i]).
    fn new(r: f64, v: f64, f: fn(f64) -> f64, f_inv: fn(f64) -> f64) -> Table {
        let mut t = Table { x: [0.0; LAYERS + 1], f: [0.0; LAYERS + 1] };
        t.x[0] = v / f(r);
        t.x[1] = r;
        for i in 1..LAYERS - 1 {
            t.x[i + 1] = f_inv(f(t.x[i]) + v / t.x[i]);
        }
        t.x[LAYERS] = 0.0;
        for i in 0..=LAYERS {
            t.f[i] = f(t.x[i]);
        }
        t.f[0] = 0.0;
        t
    }
}

fn gauss(x: f64) -> f64 {
    (-0.5 * x * x).exp()
}
fn gauss_inv(y: f64) -> f64 {
    (-2.0 * y.min(1.0).ln()).sqrt()
}
fn expo(x: f64) -> f64 {
    (-x).exp()
}
fn expo_inv(y: f64) -> f64 {
    -y.min(1.0).ln()
}

/// R and V for 256 layers (Marsaglia and Tsang's constants for f(x) =
/// exp(-x²/2) and exp(-x)).
const NORMAL_R: f64 = 3.654_152_885_361_008_8;
const NORMAL_V: f64 = 0.004_928_673_233_99;
const EXP_R: f64 = 7.697_117_470_131_049_7;
const EXP_V: f64 = 0.003_949_659_822_581_557;

static NORMAL: LazyLock<Table> = LazyLock::new(|| Table::new(NORMAL_R, NORMAL_V, gauss, gauss_inv));
static EXPONENTIAL: LazyLock<Table> = LazyLock::new(|| Table::new(EXP_R, EXP_V, expo, expo_inv));

/// A standard normal draw. The first word's point under the layer above
/// (98.5 % of draws) is taken in line; the rest, out of line, goes on
/// from that word exactly as the loop would.
#[inline(always)]
pub fn normal(rng: &mut Rng) -> f64 {
    let t = &*NORMAL;
    let u = rng.next_u64();
    let i = (u & 0xff) as usize;
    let x = fraction(u) * t.x[i];
    if x < t.x[i + 1] {
        return if u & 0x100 != 0 { -x } else { x };
    }
    normal_rest(rng, u)
}

/// `normal` after a first word `u` whose point was not under the layer
/// above.
#[cold]
#[inline(never)]
fn normal_rest(rng: &mut Rng, mut u: u64) -> f64 {
    let t = &*NORMAL;
    loop {
        let i = (u & 0xff) as usize;
        let sign = if u & 0x100 != 0 { -1.0 } else { 1.0 };
        let x = fraction(u) * t.x[i];
        if x < t.x[i + 1] {
            return sign * x;
        }
        if i == 0 {
            return sign * normal_tail(rng);
        }
        // Between the two edges: under the curve with the density's chance.
        let y = t.f[i] + (t.f[i + 1] - t.f[i]) * rng.uniform();
        if y < gauss(x) {
            return sign * x;
        }
        u = rng.next_u64();
    }
}

/// A draw from the normal's tail beyond R (Marsaglia 1964: x = R + a with
/// a exponential of rate R, kept with probability exp(-a²/2)).
#[cold]
fn normal_tail(rng: &mut Rng) -> f64 {
    loop {
        let a = -(1.0 - rng.uniform()).ln() / NORMAL_R;
        let b = -(1.0 - rng.uniform()).ln();
        if 2.0 * b > a * a {
            return NORMAL_R + a;
        }
    }
}

/// An exponential draw of mean 1.
#[inline]
pub fn exponential(rng: &mut Rng) -> f64 {
    let t = &*EXPONENTIAL;
    let mut base = 0.0;
    loop {
        let u = rng.next_u64();
        let i = (u & 0xff) as usize;
        let x = fraction(u) * t.x[i];
        if x < t.x[i + 1] {
            return base + x;
        }
        if i == 0 {
            // The tail beyond R is R plus another exponential (the
            // distribution has no memory).
            base += EXP_R;
            continue;
        }
        let y = t.f[i] + (t.f[i + 1] - t.f[i]) * rng.uniform();
        if y < expo(x) {
            return base + x;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The draws of seed 23 are pinned as the streams' version 2 gives
    /// them: 2 M values hashed bit for bit (FNV-1a over their bytes) and
    /// the stream's next word, so that any change to where a word is
    /// drawn, to the sign or to the path out of line shows here.
    /// Enough draws that every way out (in line, out of line by the
    /// density test or the tail) is taken many times.
    #[test]
    fn the_draws_are_version_2s() {
        let mut r = Rng::from_seed(23);
        let (mut hash, mut out_of_line, mut tail) = (0xcbf2_9ce4_8422_2325u64, 0, 0);
        for _ in 0..2_000_000 {
            // Whether this draw's first point misses its layer's core.
            let u = r.clone().next_u64();
            let i = (u & 0xff) as usize;
            out_of_line += (fraction(u) * NORMAL.x[i] >= NORMAL.x[i + 1]) as u32;
            let x = normal(&mut r);
            tail += (x.abs() > NORMAL_R) as u32;
            for b in x.to_bits().to_le_bytes() {
                hash = (hash ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        assert_eq!((hash, r.next_u64()), (0xd536_8a47_ffac_8281, 0x67ec_fedb_cd86_e560));
        assert!(out_of_line > 20_000, "{out_of_line} draws out of line");
        assert!(tail > 200, "{tail} draws from the tail");
    }

    /// Every layer has the area V, the top one too (it reaches f(0) = 1
    /// from the last edge computed, so R and V belong together), the base
    /// strip's rectangle and tail included, and the edges fall.
    #[test]
    fn the_layers_have_equal_areas() {
        // The tails beyond R under the unnormalised densities.
        let normal_tail = (2.0 * std::f64::consts::PI).sqrt() * 0.5 * libm_erfc(NORMAL_R / std::f64::consts::SQRT_2);
        for (t, v, tail) in [(&*NORMAL, NORMAL_V, normal_tail), (&*EXPONENTIAL, EXP_V, (-EXP_R).exp())] {
            let base = t.x[1] * t.f[1] + tail;
            assert!((base - v).abs() < 1e-6 * v, "base strip {base} against {v}");
            for i in 1..LAYERS {
                let area = t.x[i] * (t.f[i + 1] - t.f[i]);
                assert!((area - v).abs() < 1e-6 * v, "layer {i}: {area} against {v}");
            }
            assert!(t.x.windows(2).skip(1).all(|w| w[0] > w[1]));
        }
    }

    fn phi(x: f64) -> f64 {
        0.5 * libm_erfc(-x / std::f64::consts::SQRT_2)
    }

    /// erfc by Numerical Recipes' fitted formula (erfcc; fractional error
    /// below 1.2e-7 everywhere): enough for a test.
    fn libm_erfc(x: f64) -> f64 {
        let z = x.abs();
        let t = 1.0 / (1.0 + 0.5 * z);
        let r = t * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
        if x >= 0.0 {
            r
        } else {
            2.0 - r
        }
    }

    /// Kolmogorov-Smirnov distance of `n` draws from `cdf`.
    fn ks(mut xs: Vec<f64>, cdf: impl Fn(f64) -> f64) -> f64 {
        xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let n = xs.len() as f64;
        xs.iter()
            .enumerate()
            .map(|(k, &x)| {
                let c = cdf(x);
                (c - k as f64 / n).abs().max(((k + 1) as f64 / n - c).abs())
            })
            .fold(0.0, f64::max)
    }

    /// 400,000 normal draws: KS distance below the 0.1 % critical value
    /// (1.95 / sqrt(n)), mean and variance within 5 standard errors, the
    /// tail beyond R (and beyond 4.5) as often as the normal puts there.
    #[test]
    fn normal_draws_are_standard_normal() {
        let mut rng = Rng::from_seed(11);
        let n = 400_000;
        let xs: Vec<f64> = (0..n).map(|_| normal(&mut rng)).collect();
        let d = ks(xs.clone(), phi);
        assert!(d < 1.95 / (n as f64).sqrt(), "KS {d}");
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        assert!(mean.abs() < 5.0 / (n as f64).sqrt(), "mean {mean}");
        assert!((var - 1.0).abs() < 5.0 * (2.0 / n as f64).sqrt(), "var {var}");
        // P(|Z| > R) = 2.58e-4: about 103 of 400,000 (sd 10).
        let tail = xs.iter().filter(|x| x.abs() > NORMAL_R).count();
        assert!((53..=153).contains(&tail), "beyond R: {tail}");
        let far = xs.iter().filter(|x| x.abs() > 4.5).count();
        assert!(far <= 12, "beyond 4.5: {far} (expect 2.7)");
        let neg = xs.iter().filter(|x| **x < 0.0).count() as f64 / n as f64;
        assert!((neg - 0.5).abs() < 5.0 * 0.5 / (n as f64).sqrt(), "negative {neg}");
    }

    /// 400,000 exponential draws: KS distance below the 0.1 % critical
    /// value, mean within 5 standard errors, the tail beyond R as often as
    /// exp(-R) says.
    #[test]
    fn exponential_draws_are_exponential() {
        let mut rng = Rng::from_seed(12);
        let n = 400_000;
        let xs: Vec<f64> = (0..n).map(|_| exponential(&mut rng)).collect();
        assert!(xs.iter().all(|&x| x >= 0.0));
        let d = ks(xs.clone(), |x| 1.0 - (-x).exp());
        assert!(d < 1.95 / (n as f64).sqrt(), "KS {d}");
        let mean = xs.iter().sum::<f64>() / n as f64;
        assert!((mean - 1.0).abs() < 5.0 / (n as f64).sqrt(), "mean {mean}");
        // P(X > R) = 4.54e-4: about 182 of 400,000 (sd 13.5).
        let tail = xs.iter().filter(|&&x| x > EXP_R).count();
        assert!((114..=250).contains(&tail), "beyond R: {tail}");
    }
}
