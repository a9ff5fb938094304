//! Link utilisation and mean queue of one long-lived Reno/NewReno flow in
//! congestion avoidance through a DropTail bottleneck: the fluid sawtooth.
//!
//! Setting (all sizes in packets of one MSS): bottleneck capacity `C`
//! (packets/s), round-trip propagation delay `T` (s), bandwidth-delay product
//! `P = C·T`, DropTail buffer `B`. The window `W` grows by one packet per
//! round trip, where the round trip is `RTT(W) = max(T, W/C)` (the queue
//! `W − P` adds `(W − P)/C` once the pipe is full). The buffer overflows
//! when `W` exceeds `P + B`, and the sender halves the window:
//!
//! ```text
//! W_hi = P + B,   W_lo = W_hi / 2.
//! ```
//!
//! Convention: the peak is `P + B`; counting the packet in service at the
//! link twice or the packet that overflows gives `P + B + 1`, which is the
//! same formulas with `B` replaced by `B + 1` (an O(1/P) change). The model
//! ignores the extra round trip before the loss is detected, the time spent
//! in fast recovery, timeouts and slow start.
//!
//! Derivation of the utilisation for `B < P` (otherwise `W_lo ≥ P`, the
//! link never idles and `U = 1`):
//!
//! * Phase 1, `W_lo ≤ W < P`: no queue, `RTT = T`, `dW/dt = 1/T`, send rate
//!   `W/T`. Duration `t1 = T·(P − W_lo)`, so capacity offered
//!   `C·t1 = P·(P − W_lo)`; data sent `∫ W/T dt = ∫ W dW = (P² − W_lo²)/2`.
//! * Phase 2, `P ≤ W ≤ W_hi`: link busy, `RTT = W/C`, `dW/dt = C/W`, rate
//!   `C`. Duration `t2 = (W_hi² − P²)/(2C)`; data sent `C·t2`.
//!
//! Capacity lost in phase 1 is `P(P − W_lo) − (P² − W_lo²)/2 = (P − W_lo)²/2
//! = (P − B)²/8`, and the cycle offers `C(t1 + t2) = P(P − B)/2 +
//! ((P + B)² − P²)/2 = (P² + P·B + B²)/2`. Hence
//!
//! ```text
//! U = 1 − (P − B)² / (4·(P² + P·B + B²))      for 0 ≤ B ≤ P,   U = 1 for B ≥ P.
//! ```
//!
//! `U = 3/4` at `B = 0` (the textbook value), `0.8176` at `B = P/10`,
//! `0.8710` at `B = P/5`, `0.9643` at `B = P/2`, `1` at `B = P`.
//!
//! Mean queue (time average, packets): the queue is `W − P` in phase 2 and
//! zero in phase 1, so with `a = max(P, W_lo)`
//!
//! ```text
//! Q̄ = ∫_a^{W_hi} (W − P)·W dW / (P·max(P − W_lo, 0) + (W_hi² − a²)/2).
//! ```
//!
//! For `B ≥ P` this is `Q̄ = 7(P + B)/9 − P` (the time-weighted mean of `W`
//! over `[W_hi/2, W_hi]` with `dt ∝ W dW` is `7·W_hi/9`); e.g. `5P/9` at
//! `B = P`.

/// One Reno flow through a DropTail bottleneck; sizes in packets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RenoBottleneck {
    /// Bottleneck capacity `C`, packets per second.
    pub capacity_pkts_per_s: f64,
    /// Round-trip propagation delay `T`, seconds (no queueing).
    pub prop_rtt_s: f64,
    /// DropTail buffer `B`, packets.
    pub buffer_pkts: f64,
}

impl RenoBottleneck {
    /// Bandwidth-delay product `P = C·T`, packets.
    pub fn bdp_pkts(&self) -> f64 {
        self.capacity_pkts_per_s * self.prop_rtt_s
    }

    /// Peak window `W_hi = P + B`.
    pub fn w_max(&self) -> f64 {
        self.bdp_pkts() + self.buffer_pkts
    }

    /// Window just after a loss, `W_lo = W_hi/2`.
    pub fn w_min(&self) -> f64 {
        self.w_max() / 2.0
    }

    /// Fraction of time-averaged capacity used (see module docs).
    pub fn utilisation(&self) -> f64 {
        let (p, b) = (self.bdp_pkts(), self.buffer_pkts);
        if b >= p {
            return 1.0;
        }
        1.0 - (p - b) * (p - b) / (4.0 * (p * p + p * b + b * b))
    }

    /// Mean throughput `U·C`, packets per second.
    pub fn throughput_pkts_per_s(&self) -> f64 {
        self.utilisation() * self.capacity_pkts_per_s
    }

    /// Length of one sawtooth cycle, seconds: `t1 + t2`.
    pub fn cycle_s(&self) -> f64 {
        let (p, lo, hi) = (self.bdp_pkts(), self.w_min(), self.w_max());
        let a = p.max(lo);
        self.prop_rtt_s * (p - lo).max(0.0) + (hi * hi - a * a) / (2.0 * self.capacity_pkts_per_s)
    }

    /// Time-averaged bottleneck queue, packets (see module docs).
    pub fn mean_queue_pkts(&self) -> f64 {
        let (p, lo, hi) = (self.bdp_pkts(), self.w_min(), self.w_max());
        let a = p.max(lo);
        // ∫ (W − P) W dW = [W³/3 − P·W²/2].
        let prim = |w: f64| w * w * w / 3.0 - p * w * w / 2.0;
        let area = prim(hi) - prim(a);
        let offered = p * (p - lo).max(0.0) + (hi * hi - a * a) / 2.0;
        area / offered
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Integrates the same sawtooth ODE (`dW/dt = 1/max(T, W/C)`, send rate
    /// `min(W/T, C)`, queue `max(W − P, 0)`) over one cycle with small
    /// midpoint steps; returns (utilisation, mean queue, cycle length).
    fn integrate(m: &RenoBottleneck, steps: usize) -> (f64, f64, f64) {
        let (c, t) = (m.capacity_pkts_per_s, m.prop_rtt_s);
        let p = c * t;
        let (lo, hi) = (m.w_min(), m.w_max());
        // Step in W (dW uniform), dt = RTT(W) dW, exact in the limit.
        let dw = (hi - lo) / steps as f64;
        let (mut sent, mut time, mut qint) = (0.0, 0.0, 0.0);
        for i in 0..steps {
            let w = lo + (i as f64 + 0.5) * dw;
            let rtt = t.max(w / c);
            let dt = rtt * dw;
            sent += (w / t).min(c) * dt;
            qint += (w - p).max(0.0) * dt;
            time += dt;
        }
        (sent / (c * time), qint / time, time)
    }

    fn flow(bdp: f64, buf: f64) -> RenoBottleneck {
        // 10 Mb/s of 1500-byte packets ≈ 833.3 pkt/s; T chosen to give `bdp`.
        let c = 10e6 / (1500.0 * 8.0);
        RenoBottleneck { capacity_pkts_per_s: c, prop_rtt_s: bdp / c, buffer_pkts: buf }
    }

    #[test]
    fn closed_form_values() {
        assert!((flow(100.0, 0.0).utilisation() - 0.75).abs() < 1e-12);
        // 1 − 0.64/4.96
        assert!((flow(100.0, 20.0).utilisation() - (1.0 - 0.64 / 4.96)).abs() < 1e-12);
        // 1 − 0.81/4.44
        assert!((flow(100.0, 10.0).utilisation() - (1.0 - 0.81 / 4.44)).abs() < 1e-12);
        assert_eq!(flow(100.0, 100.0).utilisation(), 1.0);
        assert_eq!(flow(100.0, 300.0).utilisation(), 1.0);
    }

    #[test]
    fn matches_numeric_integration_to_0_1_percent() {
        for &frac in &[0.0, 0.1, 0.2, 0.5, 0.9, 1.0, 2.0] {
            let m = flow(200.0, 200.0 * frac);
            let (u, q, cyc) = integrate(&m, 200_000);
            assert!((u - m.utilisation()).abs() <= 1e-3 * m.utilisation(), "U at B={frac}P");
            assert!((cyc - m.cycle_s()).abs() <= 1e-3 * m.cycle_s(), "cycle at B={frac}P");
            let qf = m.mean_queue_pkts();
            assert!((q - qf).abs() <= 1e-3 * qf.max(1.0), "queue at B={frac}P: {q} vs {qf}");
        }
    }

    #[test]
    fn round_by_round_sawtooth_agrees() {
        // Packet-level-ish check: one round per RTT, W += 1 per round,
        // halve (floor) when W exceeds P + B. Differences are O(1/P).
        let (p, b) = (1000.0, 200.0);
        let m = flow(p, b);
        let (c, t) = (m.capacity_pkts_per_s, m.prop_rtt_s);
        let (mut w, mut sent, mut time) = (600.0_f64, 0.0, 0.0);
        for _ in 0..20 * 600 {
            let rtt = t.max(w / c);
            sent += w;
            time += rtt;
            w += 1.0;
            if w > p + b {
                w = (w / 2.0).floor();
            }
        }
        let u = sent / (c * time);
        assert!((u - m.utilisation()).abs() < 1e-3, "{u} vs {}", m.utilisation());
    }

    #[test]
    fn mean_queue_for_large_buffer() {
        // B ≥ P: Q̄ = 7(P + B)/9 − P; B = P gives 5P/9.
        let m = flow(90.0, 90.0);
        assert!((m.mean_queue_pkts() - 50.0).abs() < 1e-9);
        let m = flow(90.0, 270.0);
        assert!((m.mean_queue_pkts() - (7.0 * 360.0 / 9.0 - 90.0)).abs() < 1e-9);
    }

    #[test]
    fn utilisation_monotone_in_buffer() {
        let mut prev = 0.0;
        for k in 0..=100 {
            let u = flow(100.0, k as f64).utilisation();
            assert!(u >= prev && u <= 1.0);
            prev = u;
        }
        assert_eq!(prev, 1.0);
    }
}
