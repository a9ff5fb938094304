//! Entropies from counts (Liu et al. eqs. 1 and 3), in bits.

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

/// Counts of the 5-grams (X_{i-4}, .., X_i), i >= 4, of a sequence fed
/// run by run, packed 4 bits per state: the (n+1)-gram counts of every
/// depth n <= 4 are its marginals, so one table gives eq. 3 for n = 1..=4
/// over the same slots i = 4..N-1 (the sequence can only fall as n grows).
pub struct NGrams {
    table: Vec<u32>,
    /// The last four states before the next run, oldest in the high nibble.
    last4: usize,
}

impl Default for NGrams {
    fn default() -> Self {
        // The 4 MB table is made by the first run (never for max_order 0).
        Self { table: Vec::new(), last4: 0 }
    }
}

impl NGrams {
    /// The run of `state` over slots [start, start + len) of the sequence.
    pub fn add_run(&mut self, state: u8, start: u64, len: u64) {
        if self.table.is_empty() {
            self.table = vec![0u32; 1 << 20];
        }
        let (s, e, v) = (start, start + len, state as usize);
        // 5-grams ending in the run's first four slots reach into earlier
        // runs: pack them one by one from the last four states.
        let explicit_end = (s + 4).min(e);
        let mut code = self.last4;
        for i in s..explicit_end {
            code = ((code << 4) | v) & 0xF_FFFF;
            if i >= 4 {
                self.table[code] += 1;
            }
        }
        self.last4 = code & 0xFFFF;
        // The rest of the run: all five states equal, in bulk.
        let bulk_from = explicit_end.max(4);
        if e > bulk_from {
            self.table[v * 0x11111] += (e - bulk_from) as u32;
        }
    }

    /// H(X_i | X_{i-1..i-n}) / H(X_i) for n = 1..=max_order (max_order <= 4)
    /// of a sequence of `slots` slots (NaN below 6 slots): by the chain rule,
    /// H(X_{i-n..i}) - H(X_{i-n..i-1}).
    pub fn conditional_entropies(&self, slots: u64, max_order: usize) -> Vec<f64> {
        assert!(max_order <= 4);
        if slots < 6 || max_order == 0 {
            return vec![f64::NAN; max_order];
        }
        // Marginal tables of the last k states for k = 1..=max_order+1, from
        // the table's non-zero cells (a few thousand of its 2^20): the last
        // k states span 4k bits, the k before the last at most 16.
        let cells: Vec<(usize, u64)> = self.table.iter().enumerate().filter(|(_, &c)| c != 0).map(|(i, &c)| (i, c as u64)).collect();
        let mut h_last = [0.0; 6]; // h_last[k] = H(X_{i-k+1..i})
        let mut h_ctx = [0.0; 6]; // h_ctx[k] = H(X_{i-k..i-1})
        let mut last = vec![0u64; 1 << 16];
        let mut ctx = vec![0u64; 1 << 16];
        for k in 1..=max_order + 1 {
            let m = (1usize << (4 * k)) - 1;
            ctx.iter_mut().for_each(|c| *c = 0);
            for &(code, c) in &cells {
                ctx[(code >> 4) & m] += c;
            }
            h_ctx[k] = entropy(ctx.iter().copied());
            h_last[k] = if k == 5 {
                entropy(cells.iter().map(|&(_, c)| c))
            } else {
                last.iter_mut().for_each(|c| *c = 0);
                for &(code, c) in &cells {
                    last[code & m] += c;
                }
                entropy(last.iter().copied())
            };
        }
        let hx = h_last[1];
        (1..=max_order).map(|n| if hx > 0.0 { (h_last[n + 1] - h_ctx[n]) / hx } else { f64::NAN }).collect()
    }
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
