//! Correlated frame errors from single-path Rayleigh fading (Dziong et al.
//! §4.2: pedestrians at 3 km/h, "the worst case fading of single path
//! Rayleigh"; Chockalingam and Bao, and Zorzi et al. [28] model the frame
//! errors of such a channel the same way).
//!
//! The complex gain is Clarke's model as a sum of sinusoids (Zheng and
//! Xiao's statistical form, M = 16 paths with random angles and phases):
//! h(t) = √(1/M) Σ_n [cos(ω_d t cos α_n + φ_n) + j cos(ω_d t sin α_n + ψ_n)],
//! α_n = (2πn − π + θ)/(4M), ω_d = 2π f_d, f_d = v f_c / c; its power
//! |h|² is exponential with mean 1 and its autocorrelation J0(2π f_d τ).
//! Power control follows the mean, not the fades (at 3 km/h and 1.9 GHz,
//! f_d = 5.3 Hz: a fade lasts tens of milliseconds, about a frame), so a
//! frame is lost when the power at its middle is below ρ², with
//! ρ² = −ln(1 − FER): P(|h|² < ρ²) = FER exactly. The mean fade length is
//! then (e^{ρ²} − 1) / (ρ f_d √(2π)) (Jakes), tested below.

use super::frame_errors::FrameErrors;
use crate::engine::Rng;
use std::f64::consts::PI;

const PATHS: usize = 16;
const SLOT_S: f64 = 0.020;
const LIGHT_MPS: f64 = 299_792_458.0;

pub struct Rayleigh {
    threshold: f64,
    omega: f64,
    /// Per path: (ω cos α, φ, ω sin α, ψ).
    paths: [(f64, f64, f64, f64); PATHS],
}

impl Rayleigh {
    pub fn new(fer: f64, speed_mps: f64, carrier_hz: f64, mut rng: Rng) -> Self {
        let omega = 2.0 * PI * speed_mps * carrier_hz / LIGHT_MPS;
        let theta = (2.0 * rng.uniform() - 1.0) * PI;
        let mut paths = [(0.0, 0.0, 0.0, 0.0); PATHS];
        for (n, p) in paths.iter_mut().enumerate() {
            let alpha = (2.0 * PI * (n + 1) as f64 - PI + theta) / (4.0 * PATHS as f64);
            let (phi, psi) = ((2.0 * rng.uniform() - 1.0) * PI, (2.0 * rng.uniform() - 1.0) * PI);
            *p = (omega * alpha.cos(), phi, omega * alpha.sin(), psi);
        }
        Rayleigh { threshold: -(1.0 - fer.clamp(0.0, 1.0)).ln(), omega, paths }
    }

    /// |h(t)|², mean 1.
    pub fn power(&self, t: f64) -> f64 {
        let (mut i, mut q) = (0.0, 0.0);
        for &(wc, phi, ws, psi) in &self.paths {
            i += (wc * t + phi).cos();
            q += (ws * t + psi).cos();
        }
        (i * i + q * q) / PATHS as f64
    }

    /// Doppler frequency f_d, Hz.
    pub fn doppler_hz(&self) -> f64 {
        self.omega / (2.0 * PI)
    }
}

impl FrameErrors for Rayleigh {
    fn lost(&mut self, slot: u64) -> bool {
        self.threshold > 0.0 && self.power((slot as f64 + 0.5) * SLOT_S) < self.threshold
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RngStreams;
    use crate::rlp::iid::Iid;

    const KMH3: f64 = 3.0 / 3.6;

    /// Fraction lost and lag-1 correlation of the loss indicator over `n` slots.
    fn stats(e: &mut dyn FrameErrors, n: u64) -> (f64, f64) {
        let x: Vec<f64> = (0..n).map(|s| e.lost(s) as u8 as f64).collect();
        let m = x.iter().sum::<f64>() / n as f64;
        let var = m * (1.0 - m);
        let cov = x.windows(2).map(|w| (w[0] - m) * (w[1] - m)).sum::<f64>() / (n - 1) as f64;
        (m, cov / var)
    }

    #[test]
    fn fer_is_met_and_rayleigh_errors_come_in_bursts() {
        let s = RngStreams::new(11);
        for fer in [0.01, 0.05, 0.1] {
            // Many independent channels (users), 2,000 frames (40 s) each.
            let (mut lost, mut corr) = (0.0, 0.0);
            for k in 0..200 {
                let mut r = Rayleigh::new(fer, KMH3, 1.9e9, s.stream(&format!("r{k}")));
                let (m, c) = stats(&mut r, 2_000);
                lost += m / 200.0;
                corr += c / 200.0;
            }
            assert!((lost / fer - 1.0).abs() < 0.08, "Rayleigh FER {lost} for {fer}");
            let (m, c) = stats(&mut Iid::new(fer, s.stream("iid")), 400_000);
            assert!((m / fer - 1.0).abs() < 0.05, "i.i.d. FER {m} for {fer}");
            assert!(c.abs() < 0.01, "i.i.d. lag-1 correlation {c}");
            // After a lost frame the next is lost with probability about
            // FER + corr·(1 − FER) (i.i.d.: FER). At 5.3 Hz the channel
            // changes little in 20 ms, but a fade as deep as FER 1 % needs
            // lasts 7.6 ms on average (Jakes), so the ratio grows with FER.
            let again = fer + corr * (1.0 - fer);
            assert!(again > 3.0 * fer, "Rayleigh P(lost | lost) {again} at FER {fer}");
        }
    }

    #[test]
    fn fade_durations_match_jakes() {
        // Mean fade duration below ρ: (e^{ρ²} − 1) / (ρ f_d √(2π)); sampled
        // finely (1 ms) over many channels, within 10 %.
        let s = RngStreams::new(5);
        let fer: f64 = 0.1;
        let rho2 = -(1.0 - fer).ln();
        let (mut fades, mut below) = (0u64, 0u64);
        for k in 0..100 {
            let r = Rayleigh::new(fer, KMH3, 1.9e9, s.stream(&format!("f{k}")));
            let mut was = false;
            for i in 0..60_000 {
                let b = r.power(i as f64 * 1e-3) < rho2;
                below += b as u64;
                fades += (b && !was) as u64;
                was = b;
            }
            if k == 0 {
                assert!((r.doppler_hz() - 5.28).abs() < 0.01, "{}", r.doppler_hz());
            }
        }
        let measured_s = below as f64 * 1e-3 / fades as f64;
        let fd = KMH3 * 1.9e9 / LIGHT_MPS;
        let jakes_s = (rho2.exp() - 1.0) / (rho2.sqrt() * fd * (2.0 * PI).sqrt());
        assert!((measured_s / jakes_s - 1.0).abs() < 0.1, "fade {measured_s} s vs Jakes {jakes_s} s");
    }
}
