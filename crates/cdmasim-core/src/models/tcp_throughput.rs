//! Closed-form steady-state TCP throughput models:
//!
//! * Mathis, Semke, Mahdavi, Ott, "The macroscopic behavior of the TCP
//!   congestion avoidance algorithm", CCR 1997:
//!   `B = MSS/RTT · C/√p`, with `C = √(3/(2b))` for periodic losses and
//!   `b` packets acknowledged per ACK.
//! * Padhye, Firoiu, Towsley, Kurose, "Modeling TCP throughput: a simple
//!   model and its empirical validation", SIGCOMM 1998, the "full model"
//!   approximation (their eq. 33):
//!   `B(p) = min(Wmax/RTT, 1/(RTT·√(2bp/3) + T0·min(1, 3·√(3bp/8))·p·(1+32p²)))`
//!   segments per second.
//! * Lee (TCP over 1x EV-DO), eq. 1: `T = C·MTU/(RTT·√(b·p))`,
//!   the Mathis form with a free constant, which the paper uses with
//!   `C = 2, b = 2, MTU = 1500 B`. [`fit_lee_constant`] fits `C` to
//!   measured `(T, RTT, p)` by least squares through the origin.
//!
//! Units: sizes in bytes, times in seconds, throughput in bytes/s (or
//! segments/s where the name says so), `p` a per-packet loss probability in
//! `[0, 1]`. At `p = 0` the Mathis forms are infinite (no loss, no limit);
//! PFTK is then `Wmax/RTT`. All are congestion-avoidance models: they ignore
//! slow start and the receiver/bottleneck limits other than `Wmax`.

/// Mathis constant `C = √(3/(2b))` (≈ 1.22 for `b = 1`, 0.87 for `b = 2`).
pub fn mathis_constant(b: f64) -> f64 {
    (3.0 / (2.0 * b)).sqrt()
}

/// Mathis et al. 1997: `MSS/RTT · √(3/(2bp))`, bytes/s.
pub fn mathis_bytes_per_s(mss_bytes: f64, rtt_s: f64, p: f64, b: f64) -> f64 {
    mss_bytes / rtt_s * mathis_constant(b) / p.sqrt()
}

/// Parameters of the PFTK full model other than the loss rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PftkParams {
    /// Average round-trip time, seconds.
    pub rtt_s: f64,
    /// Retransmission timeout `T0` (the first, un-backed-off RTO), seconds.
    pub t0_s: f64,
    /// Packets acknowledged per ACK (1, or 2 with delayed ACKs).
    pub b: f64,
    /// Receiver-window limit `Wmax`, segments.
    pub wmax_segments: f64,
}

impl PftkParams {
    /// PFTK full-model approximation (eq. 33 of the 1998 paper), segments/s.
    pub fn segments_per_s(&self, p: f64) -> f64 {
        let window_limit = self.wmax_segments / self.rtt_s;
        if p <= 0.0 {
            return window_limit;
        }
        let b = self.b;
        let ca = self.rtt_s * (2.0 * b * p / 3.0).sqrt();
        let timeouts =
            self.t0_s * (3.0 * (3.0 * b * p / 8.0).sqrt()).min(1.0) * p * (1.0 + 32.0 * p * p);
        window_limit.min(1.0 / (ca + timeouts))
    }

    /// Same, times the segment size: bytes/s.
    pub fn bytes_per_s(&self, p: f64, mss_bytes: f64) -> f64 {
        self.segments_per_s(p) * mss_bytes
    }
}

/// Lee eq. 1: `T = C·MTU/(RTT·√(b·p))`, bytes/s.
pub fn lee_eq1_bytes_per_s(c: f64, mtu_bytes: f64, rtt_s: f64, b: f64, p: f64) -> f64 {
    c * lee_regressor(mtu_bytes, rtt_s, b, p)
}

/// `x = MTU/(RTT·√(b·p))`: eq. 1 is `T = C·x`, linear in `C`.
fn lee_regressor(mtu_bytes: f64, rtt_s: f64, b: f64, p: f64) -> f64 {
    mtu_bytes / (rtt_s * (b * p).sqrt())
}

/// One measured connection: throughput (bytes/s), mean RTT (s), loss rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThroughputObservation {
    pub throughput_bytes_per_s: f64,
    pub rtt_s: f64,
    pub loss_p: f64,
}

/// Result of fitting `C` in Lee eq. 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LeeFit {
    /// Least-squares constant `C = Σ yᵢxᵢ / Σ xᵢ²`.
    pub c: f64,
    /// Relative residual norm `√(Σ(yᵢ − C·xᵢ)² / Σ yᵢ²)`.
    pub rel_residual: f64,
    /// Mean of `|yᵢ − C·xᵢ| / yᵢ` over the observations.
    pub mean_abs_rel_error: f64,
    /// Number of observations used.
    pub n: usize,
}

/// Least-squares fit (through the origin) of `C` in `T = C·MTU/(RTT·√(bp))`.
/// Observations need `T > 0`, `RTT > 0` and `0 < p ≤ 1` (a loss-free
/// connection carries no information about `C` in this model).
pub fn fit_lee_constant(
    obs: &[ThroughputObservation],
    mtu_bytes: f64,
    b: f64,
) -> Result<LeeFit, String> {
    if obs.is_empty() {
        return Err("fit of C: no observations".into());
    }
    let mut xs = Vec::with_capacity(obs.len());
    for (i, o) in obs.iter().enumerate() {
        let ok = o.throughput_bytes_per_s > 0.0
            && o.rtt_s > 0.0
            && o.loss_p > 0.0
            && o.loss_p <= 1.0
            && o.throughput_bytes_per_s.is_finite()
            && o.rtt_s.is_finite();
        if !ok {
            return Err(format!(
                "fit of C: observation {i}: need throughput > 0, rtt > 0, 0 < p <= 1"
            ));
        }
        xs.push(lee_regressor(mtu_bytes, o.rtt_s, b, o.loss_p));
    }
    let sxy: f64 = obs.iter().zip(&xs).map(|(o, x)| o.throughput_bytes_per_s * x).sum();
    let sxx: f64 = xs.iter().map(|x| x * x).sum();
    let c = sxy / sxx;
    let (mut sse, mut syy, mut sum_rel) = (0.0, 0.0, 0.0);
    for (o, x) in obs.iter().zip(&xs) {
        let y = o.throughput_bytes_per_s;
        let r = y - c * x;
        sse += r * r;
        syy += y * y;
        sum_rel += r.abs() / y;
    }
    Ok(LeeFit {
        c,
        rel_residual: (sse / syy).sqrt(),
        mean_abs_rel_error: sum_rel / obs.len() as f64,
        n: obs.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs()
    }

    #[test]
    fn mathis_hand_value() {
        // C = √1.5 = 1.2247449; 1460/0.1 · 1.2247449/√0.01 = 178812.75 B/s.
        assert!(close(mathis_constant(1.0), 1.224_744_871, 1e-9));
        assert!(close(mathis_bytes_per_s(1460.0, 0.1, 0.01, 1.0), 178_812.751, 1e-8));
        // Delayed ACKs (b = 2) divide the rate by √2.
        let r = mathis_bytes_per_s(1460.0, 0.1, 0.01, 1.0) / mathis_bytes_per_s(1460.0, 0.1, 0.01, 2.0);
        assert!(close(r, 2f64.sqrt(), 1e-12));
    }

    #[test]
    fn pftk_hand_value() {
        // p = 0.01, RTT = 0.1, T0 = 1, b = 2:
        // RTT·√(2bp/3) = 0.1·√0.0133333 = 0.0115470
        // min(1, 3√(3bp/8)) = 3·√0.0075 = 0.2598076
        // T0·0.2598076·0.01·(1 + 0.0032) = 0.0026064
        // 1/(0.0115470 + 0.0026064) = 70.6544 segments/s.
        let m = PftkParams { rtt_s: 0.1, t0_s: 1.0, b: 2.0, wmax_segments: 1000.0 };
        assert!(close(m.segments_per_s(0.01), 70.654_42, 1e-6));
        assert!(close(m.bytes_per_s(0.01, 1460.0), 103_155.46, 1e-6));
    }

    #[test]
    fn pftk_window_limited_and_timeout_dominated() {
        let m = PftkParams { rtt_s: 0.1, t0_s: 1.0, b: 2.0, wmax_segments: 20.0 };
        // Tiny p: Wmax/RTT = 200 segments/s.
        assert_eq!(m.segments_per_s(1e-5), 200.0);
        assert_eq!(m.segments_per_s(0.0), 200.0);
        // p = 0.2, RTT = 0.2, b = 1, T0 = 1: min(1, 3√0.075) = 0.8216,
        // 0.2·√(0.4/3) + 0.8216·0.2·2.28 = 0.07303 + 0.37465 → 2.23378.
        let h = PftkParams { rtt_s: 0.2, t0_s: 1.0, b: 1.0, wmax_segments: 1e9 };
        assert!(close(h.segments_per_s(0.2), 2.233_778_8, 1e-6));
    }

    #[test]
    fn pftk_approaches_mathis_at_small_loss() {
        // Without timeouts' weight and window limit, PFTK → Mathis as p → 0.
        let m = PftkParams { rtt_s: 0.2, t0_s: 1.0, b: 1.0, wmax_segments: 1e12 };
        let p = 1e-6;
        assert!(close(m.segments_per_s(p), mathis_bytes_per_s(1.0, 0.2, p, 1.0), 1e-3));
        // And is always below it.
        for &p in &[1e-4, 1e-3, 1e-2, 0.1] {
            assert!(m.segments_per_s(p) < mathis_bytes_per_s(1.0, 0.2, p, 1.0));
        }
    }

    #[test]
    fn lee_eq1_paper_numbers() {
        // Lee: C = 2, MTU = 1500, b = 2, p = 0.002; RTT = 0.5 s:
        // 2·1500/(0.5·√0.004) = 94868.33 B/s (≈ 759 kb/s).
        assert!(close(lee_eq1_bytes_per_s(2.0, 1500.0, 0.5, 2.0, 0.002), 94_868.33, 1e-7));
        // With C = √(3/2) eq. 1 is exactly Mathis with b.
        let a = lee_eq1_bytes_per_s(1.5f64.sqrt(), 1500.0, 0.3, 2.0, 0.01);
        assert!(close(a, mathis_bytes_per_s(1500.0, 0.3, 0.01, 2.0), 1e-12));
    }

    #[test]
    fn fit_recovers_exact_constant() {
        let obs: Vec<_> = [(0.2, 0.01), (0.5, 0.002), (1.0, 0.05)]
            .iter()
            .map(|&(rtt, p)| ThroughputObservation {
                throughput_bytes_per_s: lee_eq1_bytes_per_s(1.7, 1500.0, rtt, 2.0, p),
                rtt_s: rtt,
                loss_p: p,
            })
            .collect();
        let f = fit_lee_constant(&obs, 1500.0, 2.0).unwrap();
        assert!(close(f.c, 1.7, 1e-12));
        assert!(f.rel_residual < 1e-12 && f.mean_abs_rel_error < 1e-12);
        assert_eq!(f.n, 3);
    }

    #[test]
    fn fit_hand_value_with_noise() {
        // MTU = 1000, b = 1, p = 0.01 → x = 1000/(RTT·0.1) = 10000/RTT.
        // RTT 1 s → x = 10000, y = 22000; RTT 0.5 s → x = 20000, y = 38000.
        // C = (22000·10000 + 38000·20000)/(10000² + 20000²) = 9.8e8/5e8 = 1.96.
        // Residuals: 22000 − 19600 = 2400, 38000 − 39200 = −1200.
        let obs = [
            ThroughputObservation { throughput_bytes_per_s: 22000.0, rtt_s: 1.0, loss_p: 0.01 },
            ThroughputObservation { throughput_bytes_per_s: 38000.0, rtt_s: 0.5, loss_p: 0.01 },
        ];
        let f = fit_lee_constant(&obs, 1000.0, 1.0).unwrap();
        assert!(close(f.c, 1.96, 1e-12));
        let rel = ((2400f64.powi(2) + 1200f64.powi(2)) / (22000f64.powi(2) + 38000f64.powi(2))).sqrt();
        assert!(close(f.rel_residual, rel, 1e-12));
        assert!(close(f.mean_abs_rel_error, (2400.0 / 22000.0 + 1200.0 / 38000.0) / 2.0, 1e-12));
    }

    #[test]
    fn fit_rejects_bad_input() {
        assert!(fit_lee_constant(&[], 1500.0, 2.0).is_err());
        let zero_p = ThroughputObservation { throughput_bytes_per_s: 1e5, rtt_s: 0.3, loss_p: 0.0 };
        let e = fit_lee_constant(&[zero_p], 1500.0, 2.0).unwrap_err();
        assert!(e.contains("observation 0"));
    }
}
