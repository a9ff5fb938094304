//! Jain's fairness index (Jain, Chiu, Hawe, DEC-TR-301, 1984):
//! `J(x) = (Σxᵢ)² / (n·Σxᵢ²)`, in `[1/n, 1]` for non-negative allocations;
//! 1 when all are equal, `k/n` when `k` users share equally and the rest get
//! nothing. Unit-free (any throughput unit, as long as it is the same).

/// Jain's index of `xs`. `None` for an empty slice, a negative or non-finite
/// value, or all zeros (the index is 0/0 there).
pub fn jain_index(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() || xs.iter().any(|x| !x.is_finite() || *x < 0.0) {
        return None;
    }
    let sum: f64 = xs.iter().sum();
    let sum_sq: f64 = xs.iter().map(|x| x * x).sum();
    if sum_sq == 0.0 {
        return None;
    }
    Some(sum * sum / (xs.len() as f64 * sum_sq))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_shares_give_one() {
        assert!((jain_index(&[3.5; 7]).unwrap() - 1.0).abs() < 1e-15);
        assert_eq!(jain_index(&[42.0]), Some(1.0));
    }

    #[test]
    fn one_hog_gives_one_over_n() {
        for n in 1..10 {
            let mut xs = vec![0.0; n];
            xs[n / 2] = 5.0;
            assert!((jain_index(&xs).unwrap() - 1.0 / n as f64).abs() < 1e-15);
        }
    }

    #[test]
    fn hand_value() {
        // (1 + 2 + 3)² / (3·(1 + 4 + 9)) = 36/42.
        assert!((jain_index(&[1.0, 2.0, 3.0]).unwrap() - 36.0 / 42.0).abs() < 1e-15);
        // Scale-invariant.
        assert!((jain_index(&[10.0, 20.0, 30.0]).unwrap() - 36.0 / 42.0).abs() < 1e-15);
    }

    #[test]
    fn rejects_degenerate_input() {
        assert_eq!(jain_index(&[]), None);
        assert_eq!(jain_index(&[0.0, 0.0]), None);
        assert_eq!(jain_index(&[1.0, -1.0]), None);
        assert_eq!(jain_index(&[1.0, f64::NAN]), None);
    }
}
