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
//!
//! Speed, with the same decisions bit for bit: 32 cosines a frame were
//! most of a loaded IS-2000 sector's run time. Each sinusoid is instead a
//! unit phasor turned by its fixed angle per frame (one complex product),
//! set afresh from sin/cos every `RESYNC` frames. The power it gives
//! differs from the 32-cosine sum by rounding only — below `margin(t)`,
//! a bound 16 times the worst case worked out there — so a frame whose
//! power is farther than that from the threshold is decided by the
//! phasors, and only the rare frame within it by the cosines (`power`).
//! The turn takes four phasors at a time on a CPU with AVX (found at run
//! time; the same arithmetic bit for bit, tested): a 1200-s, 60-user
//! IS-2000 sector 4.95 -> 4.26 G instructions.

use super::frame_errors::FrameErrors;
use crate::engine::Rng;
use std::f64::consts::PI;

const PATHS: usize = 16;
const SLOT_S: f64 = 0.020;
const LIGHT_MPS: f64 = 299_792_458.0;
/// Frames a phasor is turned before it is set again from sin/cos.
const RESYNC: u64 = 1024;
/// The longest gap between two frames asked for that the phasors are
/// turned across; after a longer one (a link idle between transfers)
/// they are set afresh, which costs about as much as this many turns.
const MAX_GAP: u64 = 32;

/// How far the phasors' power can be from the cosines' at time `t` (s)
/// for a channel whose fastest sinusoid turns `omega` rad/s. Worst case,
/// each sinusoid's phase differs from its cosine's argument by the
/// roundings of that argument, at the frame and at the phasors' setting
/// (≤ 2 ulp of ωt + π), by the rounding of its turn's angle, repeated at
/// every turn (≤ 2^-53 of the angle turned since the setting, so ≤ 2^-53
/// (ωt + π)), and by the turns' products (≤ 2^-52 rad a turn, ≤ 2^-42
/// over RESYNC turns); each phasor's length drifts by ≤ 4 · 2^-53 a turn
/// (≤ 2^-41 over RESYNC). So a term is off by at most
/// e ≤ 2^-50 (ωt + π) + 2^-39, and the power (i² + q²)/16, with |i|,
/// |q| ≤ 16, by at most 64 e plus the sums' own rounding (< 2^-40).
/// Taken 16 times over. Past
/// the first minutes the arguments' rounding dominates, so the number of
/// turns between settings hardly moves the margin.
fn margin(omega: f64, t: f64) -> f64 {
    16.0 * (64.0 * ((omega * t + PI) * 2f64.powi(-50) + 2f64.powi(-39)) + 2f64.powi(-40))
}

/// 32 complex numbers as two arrays (real parts, imaginary parts), so the
/// turn of all of them is a loop the compiler vectorises (the same products
/// and sums, element by element, as one at a time).
#[derive(Clone, Copy)]
struct Phasors {
    re: [f64; 2 * PATHS],
    im: [f64; 2 * PATHS],
}

impl Phasors {
    /// Set number `j` to e^{i·angle}.
    fn set_angle(&mut self, j: usize, angle: f64) {
        let (s, c) = angle.sin_cos();
        (self.re[j], self.im[j]) = (c, s);
    }

    /// Multiply each by its `turn`: four at a time where the CPU has AVX
    /// (asked once and remembered by the standard library), else two.
    /// Element by element the same products and sums, never fused, so the
    /// phasors are the same bit for bit either way.
    #[inline]
    fn turn(&mut self, turn: &Phasors) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx") {
            // SAFETY: the CPU has AVX, checked just above.
            return unsafe { self.turn_avx(turn) };
        }
        self.turn_each(turn)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    unsafe fn turn_avx(&mut self, turn: &Phasors) {
        self.turn_each(turn)
    }

    #[inline(always)]
    fn turn_each(&mut self, turn: &Phasors) {
        for j in 0..2 * PATHS {
            let (p, q, c, s) = (self.re[j], self.im[j], turn.re[j], turn.im[j]);
            self.re[j] = p * c - q * s;
            self.im[j] = p * s + q * c;
        }
    }
}

pub struct Rayleigh {
    threshold: f64,
    omega: f64,
    /// Per path: (ω cos α, φ, ω sin α, ψ).
    paths: [(f64, f64, f64, f64); PATHS],
    /// Per sinusoid (path n's in-phase one at 2n, quadrature at 2n + 1):
    /// its turn per frame, cos and sin of its angular speed × SLOT_S.
    turn: Phasors,
    /// Per sinusoid, its phasor (cos, sin of its phase) at frame `at`,
    /// set from sin/cos at frame `synced`; None before the first frame.
    phasor: Phasors,
    at: Option<u64>,
    synced: u64,
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
        let mut turn = Phasors { re: [0.0; 2 * PATHS], im: [0.0; 2 * PATHS] };
        for (n, &(wc, _, ws, _)) in paths.iter().enumerate() {
            turn.set_angle(2 * n, wc * SLOT_S);
            turn.set_angle(2 * n + 1, ws * SLOT_S);
        }
        let threshold = -(1.0 - fer.clamp(0.0, 1.0)).ln();
        Rayleigh { threshold, omega, paths, turn, phasor: Phasors { re: [1.0; 2 * PATHS], im: [0.0; 2 * PATHS] }, at: None, synced: 0 }
    }

    /// The middle of frame `slot`, s (where a frame is judged).
    fn middle(slot: u64) -> f64 {
        (slot as f64 + 0.5) * SLOT_S
    }

    /// |h|² at the middle of frame `slot` from the phasors: turned from the
    /// last frame asked for, or set afresh (the first frame, an earlier
    /// one, one more than MAX_GAP frames on, or RESYNC frames after the
    /// last setting).
    fn power_by_phasors(&mut self, slot: u64) -> f64 {
        match self.at {
            Some(at) if slot >= at && slot - at <= MAX_GAP && slot - self.synced < RESYNC => {
                for _ in at..slot {
                    self.phasor.turn(&self.turn);
                }
            }
            _ => {
                let t = Self::middle(slot);
                for (n, &(wc, phi, ws, psi)) in self.paths.iter().enumerate() {
                    self.phasor.set_angle(2 * n, wc * t + phi);
                    self.phasor.set_angle(2 * n + 1, ws * t + psi);
                }
                self.synced = slot;
            }
        }
        self.at = Some(slot);
        let (mut i, mut q) = (0.0, 0.0);
        for pair in self.phasor.re.chunks_exact(2) {
            i += pair[0];
            q += pair[1];
        }
        (i * i + q * q) / PATHS as f64
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
    /// Whether `power(middle of the frame)` is below the threshold: from
    /// the phasors when they are clear of it by more than their error can
    /// be, else from the cosines.
    fn lost(&mut self, slot: u64) -> bool {
        if self.threshold <= 0.0 {
            return false;
        }
        let t = Self::middle(slot);
        let p = self.power_by_phasors(slot);
        if (p - self.threshold).abs() > margin(self.omega, t) {
            p < self.threshold
        } else {
            self.power(t) < self.threshold
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RngStreams;
    use crate::rlp::iid::Iid;

    const KMH3: f64 = 3.0 / 3.6;

    impl Rayleigh {
        /// The phasors' power at `slot` without moving them (a copy does).
        fn clone_phasor_power(&self, slot: u64) -> f64 {
            let mut c = Rayleigh { phasor: self.phasor, at: self.at, synced: self.synced, ..*self };
            c.power_by_phasors(slot)
        }
    }

    /// The AVX turn gives every phasor the portable turn's bits, over the
    /// turns of many channels' paths, many times over.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn avx_turn_is_the_portable_turn() {
        if !std::arch::is_x86_feature_detected!("avx") {
            eprintln!("SKIPPED avx_turn_is_the_portable_turn: this CPU has no AVX");
            return;
        }
        let s = RngStreams::new(5);
        for c in 0..20 {
            let r = Rayleigh::new(0.01, KMH3 * (1 + c) as f64, 1.9e9, s.stream(&format!("ch{c}")));
            let mut a = r.phasor;
            for n in 0..PATHS {
                a.set_angle(2 * n, r.paths[n].1);
                a.set_angle(2 * n + 1, r.paths[n].3);
            }
            let mut b = a;
            for _ in 0..1000 {
                a.turn_each(&r.turn);
                // SAFETY: AVX is there (checked above).
                unsafe { b.turn_avx(&r.turn) };
            }
            let bits = |p: &Phasors| p.re.iter().chain(&p.im).map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&a), bits(&b), "channel {c}");
        }
    }

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

    /// The phasors decide every frame as the 32 cosines do: many channels,
    /// every FER the papers use, frames asked in order with gaps of 0 to
    /// 200 frames (a link idle between transfers), over a day of frames,
    /// and frames asked out of order; and the margin is really tight
    /// enough to matter (the phasors' power does differ from the cosines').
    #[test]
    fn phasors_decide_every_frame_as_the_cosines() {
        let s = RngStreams::new(17);
        let mut gaps = s.stream("gaps");
        let (mut frames, mut max_diff, mut near, mut by_cosines) = (0u64, 0f64, 0u64, 0u64);
        for k in 0..60 {
            let fer = [0.01, 0.05, 0.1, 0.3][k % 4];
            let speed = if k % 3 == 0 { KMH3 } else { 30.0 / 3.6 };
            let mut r = Rayleigh::new(fer, speed, 1.9e9, s.stream(&format!("c{k}")));
            let mut slot = if k % 2 == 0 { 0 } else { 4_000_000 }; // late in a day
            for _ in 0..40_000 {
                slot += match gaps.uniform() {
                    u if u < 0.7 => 1,
                    u if u < 0.9 => 1 + (u * 10.0) as u64,
                    u => (u * 200.0) as u64,
                };
                if gaps.uniform() < 0.001 {
                    slot -= slot.min(5_000); // an earlier frame: set afresh
                }
                let t = Rayleigh::middle(slot);
                let exact = r.power(t);
                let fast = r.clone_phasor_power(slot);
                max_diff = max_diff.max((fast - exact).abs());
                by_cosines += ((fast - r.threshold).abs() <= margin(r.omega, t)) as u64;
                near += ((exact - r.threshold).abs() < 1e-3) as u64;
                assert_eq!(r.lost(slot), exact < r.threshold, "channel {k} frame {slot}");
                frames += 1;
            }
        }
        assert!(max_diff > 0.0 && max_diff < margin(2.0 * PI * 30.0 / 3.6 * 1.9e9 / LIGHT_MPS, 86_400.0) / 16.0,
                "phasors off by {max_diff}");
        assert!(near > 100, "{near} of {frames} frames within 1e-3 of the threshold");
        // The cosines are the rare exception, not the rule.
        assert!(by_cosines * 1000 < frames, "{by_cosines} of {frames} frames needed the cosines");
    }

    /// The longest runs the phasors are turned over: up to RESYNC - 1
    /// turns since their setting, across gaps of up to MAX_GAP frames, at
    /// speeds up to 250 km/h and carriers up to 6 GHz, early and late in
    /// the run: every frame is decided as the cosines decide it, and the
    /// phasors' power stays within the worst case the margin takes 16
    /// times over.
    #[test]
    fn phasors_hold_over_their_longest_runs() {
        let s = RngStreams::new(29);
        let mut gaps = s.stream("gaps");
        let (mut most_turns, mut worst) = (0u64, 0f64);
        for (k, (kmh, carrier)) in [(3.0, 1.9e9), (30.0, 1.9e9), (120.0, 1.9e9), (250.0, 6e9)].into_iter().enumerate() {
            for start in [0u64, 1 << 32] {
                let mut r = Rayleigh::new(0.3, kmh / 3.6, carrier, s.stream(&format!("long{k}/{start}")));
                let mut slot = start;
                for _ in 0..30_000 {
                    slot += if gaps.uniform() < 0.8 { 1 } else { 2 + gaps.below(MAX_GAP - 1) };
                    let t = Rayleigh::middle(slot);
                    let exact = r.power(t);
                    let fast = r.clone_phasor_power(slot);
                    worst = worst.max((fast - exact).abs() / (margin(r.omega, t) / 16.0));
                    assert_eq!(r.lost(slot), exact < r.threshold, "{kmh} km/h, frame {slot}");
                    most_turns = most_turns.max(slot - r.synced);
                }
            }
        }
        assert!(most_turns >= RESYNC - MAX_GAP, "at most {most_turns} turns since a setting");
        assert!(worst < 1.0, "phasors off by {worst} of the worst case");
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
