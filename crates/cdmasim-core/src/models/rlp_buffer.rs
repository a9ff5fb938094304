//! The largest RLP retransmission buffer (Dziong et al. §5.1.4):
//!
//!   max B_r = min{ W, [(2n + 2)·D + n·G + 1] · N_rlp · S_rlp }
//!
//! with n NAK rounds, the one-way delay D and the guard time G counted in
//! 20 ms frames, and N_rlp·S_rlp the bytes one frame slot carries. A frame
//! stays in the buffer until the receiver's V(N) passes it: one round trip
//! (2D) without errors, plus 2D + G per NAK round with them, plus the frame
//! being sent; never more than the TCP window W. Independent of the FER:
//! after the last round the receiver aborts and V(N) moves on.
//!
//! Table 1's numbers: n = 3, D = 100 ms, G = 60 ms at 38.4 kb/s (96 bytes a
//! frame): (8·5 + 3·3 + 1)·96 = 4800 B, the paper's 4.8 KB. Without errors
//! (n = 0) the formula gives 11·96 = 1056 B; the paper quotes 0.96 KB, the
//! 2D of data without the frame in transmission, which is also what the
//! simulated link reaches (its V(N) frees a frame the moment the next one
//! is due).

/// Frames of 20 ms.
pub const FRAME_S: f64 = 0.020;

/// max B_r in bytes: `rounds` n, `delay_s` D and `guard_s` G in seconds,
/// `rate_bps` the link rate (N_rlp·S_rlp = rate × 20 ms / 8), `window` W in bytes.
pub fn max_retransmission_buffer(rounds: u32, delay_s: f64, guard_s: f64, rate_bps: f64, window: f64) -> f64 {
    let d = delay_s / FRAME_S;
    let g = guard_s / FRAME_S;
    let n = rounds as f64;
    let per_frame = rate_bps * FRAME_S / 8.0;
    window.min(((2.0 * n + 2.0) * d + n * g + 1.0) * per_frame)
}

pub fn validate(rounds: u32, delay_s: f64, guard_s: f64, rate_bps: f64, window: f64) -> Result<(), String> {
    let _ = rounds;
    for (name, x) in [("delay_s", delay_s), ("guard_s", guard_s), ("rate_bps", rate_bps), ("window", window)] {
        if !x.is_finite() || x < 0.0 {
            return Err(format!("{name} must be a finite number >= 0 (got {x})"));
        }
    }
    if rate_bps <= 0.0 {
        return Err("rate_bps must be positive".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table1_numbers() {
        assert!((max_retransmission_buffer(3, 0.1, 0.06, 38_400.0, 1e9) - 4800.0).abs() < 1e-9);
        assert!((max_retransmission_buffer(0, 0.1, 0.06, 38_400.0, 1e9) - 1056.0).abs() < 1e-9);
        assert_eq!(max_retransmission_buffer(3, 0.1, 0.06, 153_600.0, 8192.0), 8192.0, "W bounds it");
    }
}
