//! Small discrete-time Markov chain facts used to check channel models
//! (e.g. the slot-level rate/DRC state chains of Liu et al.):
//!
//! * Sojourn in a state with self-transition probability `pᵢᵢ` is geometric:
//!   `P(stay k slots) = pᵢᵢ^(k−1)·(1 − pᵢᵢ)`, mean `1/(1 − pᵢᵢ)` slots.
//! * The stationary distribution `π` solves `π·P = π`, `Σπᵢ = 1`; unique
//!   when the chain has a single closed communicating class. Solved directly
//!   (Gaussian elimination with partial pivoting on `(Pᵀ − I)` with one
//!   equation replaced by the normalisation), which is exact up to rounding
//!   and, unlike power iteration, also works for periodic chains.

/// Mean sojourn time in slots, `1/(1 − p_ii)`; infinite for an absorbing
/// state (`p_ii = 1`). `None` outside `[0, 1]`.
pub fn mean_sojourn_slots(p_ii: f64) -> Option<f64> {
    if !(0.0..=1.0).contains(&p_ii) {
        return None;
    }
    Some(1.0 / (1.0 - p_ii))
}

/// Tolerance on row sums and on the pivot that decides the chain has more
/// than one closed class.
const EPS: f64 = 1e-9;

/// Stationary distribution of the row-stochastic matrix `p` (`p[i][j]` is
/// the probability of moving from `i` to `j`).
pub fn stationary_distribution(p: &[Vec<f64>]) -> Result<Vec<f64>, String> {
    let n = p.len();
    if n == 0 {
        return Err("stationary distribution: empty matrix".into());
    }
    for (i, row) in p.iter().enumerate() {
        if row.len() != n {
            return Err(format!("stationary distribution: row {i} has {} entries, need {n}", row.len()));
        }
        if row.iter().any(|x| !x.is_finite() || *x < 0.0) {
            return Err(format!("stationary distribution: row {i} has a negative or non-finite entry"));
        }
        let s: f64 = row.iter().sum();
        if (s - 1.0).abs() > EPS {
            return Err(format!("stationary distribution: row {i} sums to {s}, not 1"));
        }
    }
    // a·π = rhs with a = Pᵀ − I except the last row, which is all ones
    // (Σπ = 1 replaces one redundant balance equation).
    let mut a: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| p[j][i] - if i == j { 1.0 } else { 0.0 }).collect())
        .collect();
    let mut rhs = vec![0.0; n];
    a[n - 1] = vec![1.0; n];
    rhs[n - 1] = 1.0;
    for col in 0..n {
        let piv = (col..n)
            .max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))
            .expect("non-empty range");
        if a[piv][col].abs() < EPS {
            return Err("stationary distribution: not unique (more than one closed class)".into());
        }
        a.swap(col, piv);
        rhs.swap(col, piv);
        let pivot_row = a[col].clone();
        let pivot_rhs = rhs[col];
        for r in (0..n).filter(|&r| r != col) {
            let f = a[r][col] / pivot_row[col];
            if f != 0.0 {
                for (x, y) in a[r][col..].iter_mut().zip(&pivot_row[col..]) {
                    *x -= f * y;
                }
                rhs[r] -= f * pivot_rhs;
            }
        }
    }
    // Clamp rounding noise below zero (transient states have π = 0).
    Ok((0..n).map(|i| (rhs[i] / a[i][i]).max(0.0)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn sojourn() {
        assert_eq!(mean_sojourn_slots(0.0), Some(1.0));
        assert!(close(mean_sojourn_slots(0.9).unwrap(), 10.0));
        assert!(close(mean_sojourn_slots(0.75).unwrap(), 4.0));
        assert!(mean_sojourn_slots(1.0).unwrap().is_infinite());
        assert_eq!(mean_sojourn_slots(1.5), None);
    }

    #[test]
    fn two_state_closed_form() {
        // Gilbert chain: good→bad a, bad→good b; π = (b, a)/(a + b).
        let (a, b) = (0.05, 0.3);
        let pi = stationary_distribution(&[vec![1.0 - a, a], vec![b, 1.0 - b]]).unwrap();
        assert!(close(pi[0], b / (a + b)) && close(pi[1], a / (a + b)));
    }

    #[test]
    fn three_state_hand_value_and_balance() {
        // Birth–death chain 0 ↔ 1 ↔ 2 with up 0.2, down 0.4:
        // detailed balance π1 = π0/2, π2 = π1/2 → π = (4, 2, 1)/7.
        let p = vec![vec![0.8, 0.2, 0.0], vec![0.4, 0.4, 0.2], vec![0.0, 0.4, 0.6]];
        let pi = stationary_distribution(&p).unwrap();
        for (x, want) in pi.iter().zip([4.0 / 7.0, 2.0 / 7.0, 1.0 / 7.0]) {
            assert!(close(*x, want));
        }
        // π·P = π.
        for j in 0..3 {
            let s: f64 = (0..3).map(|i| pi[i] * p[i][j]).sum();
            assert!(close(s, pi[j]));
        }
    }

    #[test]
    fn periodic_and_transient_chains() {
        // Period-2 chain: power iteration would oscillate; π = (1/2, 1/2).
        let pi = stationary_distribution(&[vec![0.0, 1.0], vec![1.0, 0.0]]).unwrap();
        assert!(close(pi[0], 0.5) && close(pi[1], 0.5));
        // State 0 transient into the closed class {1, 2}.
        let pi = stationary_distribution(&[
            vec![0.5, 0.5, 0.0],
            vec![0.0, 0.5, 0.5],
            vec![0.0, 0.5, 0.5],
        ])
        .unwrap();
        assert!(close(pi[0], 0.0) && close(pi[1], 0.5) && close(pi[2], 0.5));
    }

    #[test]
    fn rejects_bad_matrices() {
        assert!(stationary_distribution(&[]).is_err());
        assert!(stationary_distribution(&[vec![0.5, 0.4], vec![0.5, 0.5]]).is_err());
        assert!(stationary_distribution(&[vec![1.0, 0.0]]).is_err());
        // Two absorbing states: not unique.
        let e = stationary_distribution(&[vec![1.0, 0.0], vec![0.0, 1.0]]).unwrap_err();
        assert!(e.contains("not unique"));
    }
}
