//! The frame-error waterfall of the SINR→DRC mapper (`sinr_mapper`):
//! `FER(z) = 1 / (1 + 99 e^z)`, z being the slot's SINR margin over the
//! DRC's 1 %-FER threshold in waterfall widths (FER = 1 % at z = 0), and
//! the per-slot decision "this frame is lost": a uniform draw u below it.
//!
//! Why a table: the decision is made every slot with a non-null DRC (51.8 M
//! slots in a day-long trace), and `exp` and the division were a tenth of
//! such a trace's time. The decision `u < FER(z)` is kept exactly as the
//! formula computes it: the table holds FER at grid points z_k = k/64 over
//! [-64, 64], and FER is non-increasing in z (every step of the formula is
//! monotone: `exp`, then IEEE multiplication, addition and division, which
//! round monotonically). So for z in [z_k, z_k+1]
//! FER(z_k+1) <= FER(z) <= FER(z_k); the table's bracket is widened by a
//! further grid point each side (FER changes by about 1.6 % a step, which
//! dwarfs any last-bit wobble of libm's `exp`), and only a draw that falls
//! inside the bracket computes the formula. That happens for about
//! 3/64 * FER of the slots, under one in a thousand at the target FER.
//! The decisions, and so every result, are the formula's bit for bit
//! (tested against it below).

use std::sync::OnceLock;

/// Grid points per unit of z.
const STEPS: f64 = 64.0;
/// The grid covers [-SPAN, SPAN]: beyond it FER is within 1e-26 of 1 or of 0.
const SPAN: f64 = 64.0;
const POINTS: usize = (2.0 * SPAN * STEPS) as usize + 1;

/// FER at margin `z` (in waterfall widths), as the mapper has always
/// computed it (z capped at 700, where e^z is still finite).
#[inline]
pub fn fer(z: f64) -> f64 {
    1.0 / (1.0 + 99.0 * z.min(700.0).exp())
}

fn table() -> &'static [f64; POINTS] {
    static TABLE: OnceLock<Box<[f64; POINTS]>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = Box::new([0.0; POINTS]);
        for (k, v) in t.iter_mut().enumerate() {
            *v = fer(k as f64 / STEPS - SPAN);
        }
        t
    })
}

/// Whether a frame at margin `z` is lost, for the uniform draw `u` in
/// [0, 1): exactly `u < fer(z)`.
#[inline]
pub fn lost(z: f64, u: f64) -> bool {
    let t = table();
    // Grid cell of z (NaN and beyond the grid fall to the ends, where the
    // bracket is one-sided or the formula decides).
    let pos = (z + SPAN) * STEPS;
    if pos >= 1.0 && pos < (POINTS - 2) as f64 {
        // pos is in [1, POINTS - 2): through i32, the conversion needs
        // none of the range fix-ups a float-to-usize cast makes.
        let k = pos as i32 as usize;
        // z in [z_k, z_k+1]: FER(z) in [t[k+1], t[k]], widened to [t[k+2], t[k-1]].
        if u < t[k + 2] {
            return true;
        }
        if u >= t[k - 1] {
            return false;
        }
    } else if pos >= (POINTS - 2) as f64 {
        // z above the grid: FER(z) <= t[last - 2].
        if u >= t[POINTS - 3] {
            return false;
        }
    } else if pos < 1.0 && u < t[2] {
        // z below the grid: FER(z) >= t[2]. (A NaN z fails every
        // comparison and is left to the formula, whose cap makes it 700.)
        return true;
    }
    u < fer(z)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Rng;

    /// Every decision is the formula's: random margins over and beyond
    /// the grid, grid points themselves, and draws placed at the formula's
    /// own value and its neighbours (where a wrong bracket would show).
    #[test]
    fn decisions_are_the_formulas() {
        let mut rng = Rng::from_seed(11);
        let mut checked = 0u64;
        let mut zs: Vec<f64> = (0..200_000).map(|_| (rng.uniform() - 0.5) * 180.0).collect();
        // Grid points and their neighbours a few ulps away: z + SPAN may
        // round across a grid point, which the widened bracket absorbs.
        for k in 0..POINTS {
            let z = k as f64 / STEPS - SPAN;
            zs.push(z);
            for ulps in 1..=3u64 {
                zs.push(f64::from_bits(z.to_bits() + ulps));
                zs.extend(z.to_bits().checked_sub(ulps).map(f64::from_bits));
            }
        }
        zs.extend([f64::NEG_INFINITY, -1e300, -SPAN - 1e-9, SPAN + 1e-9, 700.0, 701.0, 1e300, f64::INFINITY]);
        zs.extend([f64::NAN, 0.0, -0.0]);
        for &z in &zs {
            let f = fer(z);
            let below = f64::from_bits(f.to_bits().saturating_sub(1));
            let above = f64::from_bits(f.to_bits() + 1);
            for u in [rng.uniform(), f, below, above, 0.0, 0.5, 1.0 - f64::EPSILON, f * 0.99, f * 1.01] {
                if !(0.0..1.0).contains(&u) {
                    continue;
                }
                assert_eq!(lost(z, u), u < f, "z {z} u {u} fer {f}");
                checked += 1;
            }
        }
        assert!(checked > 2_000_000, "{checked}");
    }

    /// The table decides almost every slot at the target FER.
    #[test]
    fn the_formula_is_rarely_needed() {
        let t = table();
        let mut rng = Rng::from_seed(5);
        let (n, mut inside) = (1_000_000, 0u64);
        for _ in 0..n {
            let z = (rng.uniform() - 0.3) * 40.0;
            let u = rng.uniform();
            let k = ((z + SPAN) * STEPS) as usize;
            inside += (u >= t[k + 2] && u < t[k - 1]) as u64;
        }
        assert!(inside < n / 100, "{inside}");
    }
}
