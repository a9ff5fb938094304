//! Entropies from counts (seed 000 eqs. 1 and 3), in bits.

/// H = -sum p log2 p from counts, with p = c / total.
pub fn entropy(counts: impl IntoIterator<Item = u64>) -> f64 {
    let mut tot = 0u64;
    let mut s = 0.0;
    for c in counts {
        if c > 0 {
            tot += c;
            s += c as f64 * (c as f64).log2();
        }
    }
    if tot == 0 {
        return 0.0;
    }
    let t = tot as f64;
    (t.log2() - s / t).max(0.0)
}

/// Normalised conditional entropies H(X_i | X_{i-1..i-n}) / H(X_i) for
/// n = 1..=max_order (max_order <= 4), all over the same slots i = 4..N-1 so
/// the sequence can only fall as n grows.
///
/// (n+1)-gram counts come from one table of 5-grams packed 4 bits per state;
/// H(X_i | past n) = H(X_{i-n..i}) - H(X_{i-n..i-1}) (chain rule).
pub fn conditional_entropies(x: &[u8], runs: &[super::runs::Run], max_order: usize) -> Vec<f64> {
    assert!(max_order <= 4);
    if x.len() < 6 || max_order == 0 {
        return vec![f64::NAN; max_order];
    }
    let mut table = vec![0u32; 1 << 20];
    for r in runs {
        let (s, e) = (r.start as usize, (r.start + r.len) as usize);
        // Windows ending inside the run's first four slots may straddle
        // earlier runs: pack them one by one.
        let explicit_end = (s + 4).min(e);
        for i in s.max(4)..explicit_end {
            let mut code = 0usize;
            for &v in &x[i - 4..=i] {
                code = (code << 4) | v as usize;
            }
            table[code] += 1;
        }
        // The rest of the run: all five states equal, in bulk.
        let bulk_from = explicit_end.max(4);
        if e > bulk_from {
            let v = r.state as usize;
            let code = v * 0x11111;
            table[code] += (e - bulk_from) as u32;
        }
    }
    // Marginal tables of the last k states for k = 1..=max_order+1.
    let mut h_last = [0.0; 6]; // h_last[k] = H(X_{i-k+1..i})
    let mut h_ctx = [0.0; 6]; // h_ctx[k] = H(X_{i-k..i-1})
    for k in 1..=max_order + 1 {
        let m = (1usize << (4 * k)) - 1;
        let mut last = vec![0u64; m + 1];
        let mut ctx = vec![0u64; m + 1];
        for (code, &c) in table.iter().enumerate() {
            if c != 0 {
                last[code & m] += c as u64;
                ctx[(code >> 4) & m] += c as u64;
            }
        }
        h_last[k] = entropy(last);
        h_ctx[k] = entropy(ctx);
    }
    let hx = h_last[1];
    (1..=max_order).map(|n| if hx > 0.0 { (h_last[n + 1] - h_ctx[n]) / hx } else { f64::NAN }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entropy_of_known_distributions() {
        assert!((entropy([5, 5, 5, 5]) - 2.0).abs() < 1e-12);
        assert_eq!(entropy([7]), 0.0);
        let h = entropy([1, 3]); // p = 1/4, 3/4
        let want = -(0.25f64 * 0.25f64.log2() + 0.75 * 0.75f64.log2());
        assert!((h - want).abs() < 1e-12);
    }
}
