//! Run-length encoding of a DRC sequence: the backbone of the fast statistics.
//!
//! A DRC trace stays in one state for tens (mobile) to hundreds (stationary)
//! of slots (Liu et al. Fig. 4), so a day's 51.8 million slots shrink to a few
//! million runs, and histograms, sojourn times, transition counts and lagged
//! joint counts can all be computed per run instead of per slot.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    pub state: u8,
    pub start: u64,
    pub len: u64,
}

/// Length of the run of `x[0]` at the start of `x`, skipping 8 bytes at a time.
#[inline]
fn run_length(x: &[u8]) -> usize {
    let v = x[0];
    let pat = u64::from_ne_bytes([v; 8]);
    let mut i = 1;
    // Word-at-a-time: XOR with the broadcast value is zero while the run lasts.
    while i + 8 <= x.len() {
        let w = u64::from_le_bytes(x[i..i + 8].try_into().unwrap());
        let diff = w ^ pat;
        if diff != 0 {
            return i + (diff.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < x.len() && x[i] == v {
        i += 1;
    }
    i
}

/// Every run of `x` in order, as (state, start, length); a run cut by the
/// end of `x` is reported as far as `x` goes.
pub fn split(x: &[u8], mut f: impl FnMut(u8, usize, usize)) {
    let mut i = 0;
    while i < x.len() {
        let l = run_length(&x[i..]);
        f(x[i], i, l);
        i += l;
    }
}

/// The runs of a whole sequence (tests compare the per-run statistics with
/// direct counts over them).
#[cfg(test)]
pub fn encode(x: &[u8]) -> Vec<Run> {
    let mut runs = Vec::new();
    split(x, |state, start, len| runs.push(Run { state, start: start as u64, len: len as u64 }));
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_runs_across_word_boundaries() {
        let mut x = vec![3u8; 21];
        x.extend([4, 4, 3]);
        x.extend(vec![7u8; 9]);
        let r = encode(&x);
        assert_eq!(
            r,
            vec![
                Run { state: 3, start: 0, len: 21 },
                Run { state: 4, start: 21, len: 2 },
                Run { state: 3, start: 23, len: 1 },
                Run { state: 7, start: 24, len: 9 }
            ]
        );
        assert!(encode(&[]).is_empty());
    }
}
