//! Fluid loss-volume model for one upward rate switch of a cdma2000 link
//! (Paliwal et al., section III, eqs. 1–6).
//!
//! A TCP sender with a *fixed* window `W` feeds a shared BSC buffer (service
//! rate `μs`, space `B`) which feeds the mobile's radio link buffer (rate
//! `μll` before `t0`, `μlh` after). The round-trip propagation delay `T` is
//! lumped on the ACK path, so a change in the ACK clock reaches the shared
//! buffer `T` after it happens at the link. In steady state before `t0` the
//! link buffer holds `W − μll·T` and the shared buffer is empty. After the
//! switch the backlog moves from the link buffer to the shared buffer; the
//! shared buffer receives data at `μlh` from `t_start = t0 + T` until
//! `t_end` (eq. 5), fills after `B/(μlh − μs)`, and drops at `μlh − μs`
//! from then until `t_end` (eq. 6).
//!
//! Notes from checking the derivation (see the tests):
//! * Eq. 3 as printed has `(μll − T)`; it must be `μll·T` (the link-buffer
//!   content `W − μll·T`), and only then does the long form simplify to the
//!   printed right-hand side `t0 + T + B/(μlh − μs) + W/μlh`, which is what
//!   this module uses.
//! * Eq. 4 (`μlh ≤ W/(T + B/μs)`) follows from `t*** ≤ t**` exactly.
//! * `t_end` and `L_V` are continuous at both case boundaries of eqs. 5/6:
//!   at `μlh = W/(T + B/μs)` both give `L_V = W − B − μs·T`, and at
//!   `μlh = W/T` cases 2 and 1 both give `W − B − μs·T` and
//!   `t_end = t0 + 2T`.
//! * `L_V → max(W − B − μll·T, 0)` as `μlh → ∞` (the limit stated in the
//!   paper's section IV-A), from the case-1 branch.
//!
//! Validity: `0 < μll < μs`, `μlh > μll`, `W > μll·T` (there is a standing
//! queue at the low rate), `B ≥ 0`, `T > 0`. The paper assumes
//! `μll < μs < μlh`; for `μlh ≤ μs` the shared buffer never builds a queue,
//! the sender simply keeps sending at `μlh` (`t_end = ∞`) and nothing is lost
//! ([`FluidCase::NoOverflow`]). The model ignores slow start, packetisation
//! and TCP's reaction other than stopping at the first drop (case 3).

/// Inputs of the model. Rates in bit/s, sizes in bytes, time in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FluidLossParams {
    /// Link rate before the switch (`μll`), bit/s.
    pub mu_ll: f64,
    /// Service rate of the mobile's share of the shared buffer (`μs`), bit/s.
    pub mu_s: f64,
    /// Link rate after the switch (`μlh`), bit/s.
    pub mu_lh: f64,
    /// Fixed TCP window `W`, bytes.
    pub window_bytes: f64,
    /// Shared-buffer space `B` for this mobile, bytes.
    pub buffer_bytes: f64,
    /// Round-trip propagation delay `T`, seconds.
    pub rtt: f64,
}

/// Which branch of eqs. 5/6 applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FluidCase {
    /// `μlh ≤ μs`: the shared buffer drains at least as fast as it fills.
    NoOverflow,
    /// Paper's case 3 (eq. 3, first line of eqs. 5/6):
    /// `μlh ≤ W/(T + B/μs)`; news of the first drop stops the burst.
    DropFeedback,
    /// Paper's case 2 (eq. 2, second line): `W/(T + B/μs) < μlh < W/T`;
    /// the burst ends when the link buffer (draining at `μlh − μs`) empties.
    LinkDrainsSlowly,
    /// Paper's case 1 (eq. 1, third line): `μlh ≥ W/T`; the link buffer
    /// empties within `T` of the switch.
    LinkEmptiesFast,
}

/// Rates converted to bytes/s, the unit the equations are evaluated in.
struct Bytes {
    ll: f64,
    s: f64,
    lh: f64,
    w: f64,
    b: f64,
    t: f64,
}

impl FluidLossParams {
    /// Checks the validity range documented at module level.
    pub fn validate(&self) -> Result<(), String> {
        let all = [
            self.mu_ll,
            self.mu_s,
            self.mu_lh,
            self.window_bytes,
            self.buffer_bytes,
            self.rtt,
        ];
        if all.iter().any(|v| !v.is_finite()) {
            return Err("fluid loss model: all parameters must be finite".into());
        }
        if !(self.mu_ll > 0.0 && self.mu_ll < self.mu_s) {
            return Err("fluid loss model: need 0 < mu_ll < mu_s".into());
        }
        if self.mu_lh <= self.mu_ll {
            return Err("fluid loss model: need mu_lh > mu_ll (an upward switch)".into());
        }
        if self.rtt <= 0.0 || self.buffer_bytes < 0.0 {
            return Err("fluid loss model: need rtt > 0 and buffer_bytes >= 0".into());
        }
        if self.window_bytes <= self.mu_ll / 8.0 * self.rtt {
            return Err(
                "fluid loss model: need window_bytes > mu_ll*T/8 (a standing link queue)".into(),
            );
        }
        Ok(())
    }

    fn bytes(&self) -> Bytes {
        Bytes {
            ll: self.mu_ll / 8.0,
            s: self.mu_s / 8.0,
            lh: self.mu_lh / 8.0,
            w: self.window_bytes,
            b: self.buffer_bytes,
            t: self.rtt,
        }
    }

    /// Boundary between cases 3 and 2 (eq. 4): `W/(T + B/μs)`, in bit/s.
    pub fn drop_feedback_threshold(&self) -> f64 {
        let x = self.bytes();
        8.0 * x.w / (x.t + x.b / x.s)
    }

    /// Boundary between cases 2 and 1 (eq. 1): `W/T`, in bit/s.
    pub fn link_empty_threshold(&self) -> f64 {
        8.0 * self.window_bytes / self.rtt
    }

    /// Which branch of eqs. 5/6 applies (boundaries as printed in eq. 5:
    /// `≤` for case 3, `≥` for case 1; the values agree there anyway).
    pub fn case(&self) -> FluidCase {
        if self.mu_lh <= self.mu_s {
            FluidCase::NoOverflow
        } else if self.mu_lh <= self.drop_feedback_threshold() {
            FluidCase::DropFeedback
        } else if self.mu_lh < self.link_empty_threshold() {
            FluidCase::LinkDrainsSlowly
        } else {
            FluidCase::LinkEmptiesFast
        }
    }

    /// Start of the high-rate arrivals at the shared buffer: `t0 + T`.
    pub fn t_start(&self, t0: f64) -> f64 {
        t0 + self.rtt
    }

    /// Eq. 5: time (s) at which the shared buffer stops receiving at `μlh`,
    /// for a switch at `t0`. `f64::INFINITY` for [`FluidCase::NoOverflow`].
    pub fn t_end(&self, t0: f64) -> f64 {
        let x = self.bytes();
        let ts = t0 + x.t;
        match self.case() {
            FluidCase::NoOverflow => f64::INFINITY,
            // Eq. 3, simplified right-hand side (with the μll·T typo fixed).
            FluidCase::DropFeedback => ts + x.b / (x.lh - x.s) + x.w / x.lh,
            // Eq. 2.
            FluidCase::LinkDrainsSlowly => ts + (x.w - x.s * x.t) / (x.lh - x.s),
            // Eq. 1.
            FluidCase::LinkEmptiesFast => ts + (x.w - x.ll * x.t) / (x.lh - x.ll),
        }
    }

    /// Eq. 6: bytes dropped at the shared buffer after the switch. Losses
    /// start `B/(μlh − μs)` after `t_start` and run at `μlh − μs` until
    /// `t_end`, clamped at zero when the buffer never fills.
    pub fn loss_volume_bytes(&self) -> f64 {
        let x = self.bytes();
        match self.case() {
            FluidCase::NoOverflow => 0.0,
            FluidCase::DropFeedback => x.w * (x.lh - x.s) / x.lh,
            FluidCase::LinkDrainsSlowly => (x.w - x.b - x.s * x.t).max(0.0),
            FluidCase::LinkEmptiesFast => {
                ((x.w - x.ll * x.t) * (x.lh - x.s) / (x.lh - x.ll) - x.b).max(0.0)
            }
        }
    }

    /// Paper's limit of eq. 6 for `μlh → ∞`: `max(W − B − μll·T, 0)` bytes.
    pub fn loss_volume_limit_bytes(&self) -> f64 {
        let x = self.bytes();
        (x.w - x.b - x.ll * x.t).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fig. 4 defaults: μll = 9.6 kb/s (1200 B/s), μs = 38.4 kb/s
    /// (4800 B/s), B = 5 kB (taken as 5000 B); W = 16 kB, T = 0.3 s.
    fn fig4(mu_lh: f64) -> FluidLossParams {
        FluidLossParams {
            mu_ll: 9600.0,
            mu_s: 38400.0,
            mu_lh,
            window_bytes: 16000.0,
            buffer_bytes: 5000.0,
            rtt: 0.3,
        }
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1.0)
    }

    #[test]
    fn thresholds_at_fig4_defaults() {
        let p = fig4(100_000.0);
        // W/(T + B/μs) = 16000/(0.3 + 5000/4800) B/s = 11925.47 B/s.
        assert!(close(p.drop_feedback_threshold(), 8.0 * 11925.465838509316, 1e-12));
        // W/T = 53333.3 B/s = 426.67 kb/s.
        assert!(close(p.link_empty_threshold(), 426_666.666_666_666_7, 1e-12));
    }

    #[test]
    fn case3_drop_feedback_hand_values() {
        // μlh = 64 kb/s = 8000 B/s < 95.4 kb/s → case 3.
        let p = fig4(64_000.0);
        assert_eq!(p.case(), FluidCase::DropFeedback);
        // L = W(μlh − μs)/μlh = 16000·3200/8000 = 6400 B.
        assert!(close(p.loss_volume_bytes(), 6400.0, 1e-12));
        // t_end = t0 + 0.3 + 5000/3200 + 16000/8000 = t0 + 3.8625.
        assert!(close(p.t_end(10.0), 13.8625, 1e-12));
    }

    #[test]
    fn case2_hand_values() {
        // μlh = 153.6 kb/s = 19200 B/s, between 95.4 and 426.7 kb/s.
        let p = fig4(153_600.0);
        assert_eq!(p.case(), FluidCase::LinkDrainsSlowly);
        // L = W − B − μs·T = 16000 − 5000 − 1440 = 9560 B.
        assert!(close(p.loss_volume_bytes(), 9560.0, 1e-12));
        // t_end = t0 + 0.3 + (16000 − 1440)/(19200 − 4800) = t0 + 1.31111.
        assert!(close(p.t_end(0.0), 0.3 + 14560.0 / 14400.0, 1e-12));
    }

    #[test]
    fn case1_hand_values() {
        // μlh = 800 kb/s = 100000 B/s ≥ W/T → case 1.
        let p = fig4(800_000.0);
        assert_eq!(p.case(), FluidCase::LinkEmptiesFast);
        // L = (16000 − 360)(100000 − 4800)/(100000 − 1200) − 5000
        //   = 15640·95200/98800 − 5000 = 10070.12 B.
        assert!(close(p.loss_volume_bytes(), 10070.121457489879, 1e-12));
        // t_end = 0.3 + 15640/98800.
        assert!(close(p.t_end(0.0), 0.3 + 15640.0 / 98800.0, 1e-12));
    }

    #[test]
    fn no_overflow_when_link_not_faster_than_shared_buffer() {
        let p = fig4(38_400.0);
        assert_eq!(p.case(), FluidCase::NoOverflow);
        assert_eq!(p.loss_volume_bytes(), 0.0);
        assert!(p.t_end(0.0).is_infinite());
        // Just above μs case 3 gives a loss volume that tends to zero.
        assert!(fig4(38_400.001).loss_volume_bytes() < 1e-3);
    }

    #[test]
    fn clamps_to_zero_when_buffer_absorbs_backlog() {
        // B larger than the whole backlog: case-2/1 branches clamp at 0.
        let mut p = fig4(300_000.0);
        p.buffer_bytes = 20_000.0;
        assert_ne!(p.case(), FluidCase::DropFeedback);
        assert_eq!(p.loss_volume_bytes(), 0.0);
    }

    #[test]
    fn eq3_long_form_with_typo_fixed_equals_short_form() {
        for &mu_lh in &[40_000.0, 64_000.0, 90_000.0] {
            let p = fig4(mu_lh);
            let (ll, s, lh) = (p.mu_ll / 8.0, p.mu_s / 8.0, p.mu_lh / 8.0);
            let (w, b, t) = (p.window_bytes, p.buffer_bytes, p.rtt);
            let fill = b / (lh - s) + b / s;
            let rest = w - ll * t - (lh - ll) * t - (lh - s) * fill;
            let long = t + fill + rest / lh + t;
            assert!(close(p.t_end(0.0), long, 1e-12), "mu_lh={mu_lh}");
        }
    }

    #[test]
    fn continuous_at_case_boundaries() {
        let base = fig4(0.0);
        for &edge in &[base.drop_feedback_threshold(), base.link_empty_threshold()] {
            let below = fig4(edge * (1.0 - 1e-9));
            let above = fig4(edge * (1.0 + 1e-9));
            assert_ne!(below.case(), above.case());
            assert!(close(below.loss_volume_bytes(), above.loss_volume_bytes(), 1e-6));
            assert!(close(below.t_end(0.0), above.t_end(0.0), 1e-6));
            // Both boundaries give W − B − μs·T here.
            assert!(close(below.loss_volume_bytes(), 9560.0, 1e-6));
        }
    }

    #[test]
    fn limit_for_very_fast_switch() {
        let p = fig4(1e12);
        // W − B − μll·T = 16000 − 5000 − 360 = 10640 B.
        assert!(close(p.loss_volume_limit_bytes(), 10640.0, 1e-12));
        assert!(close(p.loss_volume_bytes(), 10640.0, 1e-6));
    }

    #[test]
    fn increases_then_flat_in_mu_lh_like_fig4a() {
        let mut prev = 0.0;
        for k in 0..=60 {
            let mu_lh = 38_400.0 + k as f64 * 10_000.0;
            let l = fig4(mu_lh).loss_volume_bytes();
            assert!(l >= prev - 1e-9, "not monotone at {mu_lh}");
            assert!(l <= 10640.0 + 1e-9);
            prev = l;
        }
    }

    #[test]
    fn piecewise_linear_nondecreasing_in_window() {
        // Fixed μlh = 153.6 kb/s; the case changes with W:
        // case 1 for W ≤ μlh·T = 5760 B, case 2 up to μlh(T + B/μs) = 25760 B.
        let at = |w: f64| FluidLossParams { window_bytes: w, ..fig4(153_600.0) };
        let mut prev = at(4000.0).loss_volume_bytes();
        let mut w = 4000.0;
        while w < 60_000.0 {
            w += 500.0;
            let l = at(w).loss_volume_bytes();
            assert!(l >= prev - 1e-9, "decreased at W={w}");
            prev = l;
        }
        // Slopes: 1 in case 2, (μlh − μs)/μlh = 0.75 in case 3.
        let d2 = at(20_000.0).loss_volume_bytes() - at(19_000.0).loss_volume_bytes();
        assert!(close(d2, 1000.0, 1e-9));
        assert_eq!(at(40_000.0).case(), FluidCase::DropFeedback);
        let d3 = at(40_000.0).loss_volume_bytes() - at(39_000.0).loss_volume_bytes();
        assert!(close(d3, 750.0, 1e-9));
    }

    #[test]
    fn nonincreasing_in_rtt_like_fig4c() {
        let at = |t: f64| FluidLossParams { rtt: t, ..fig4(153_600.0) };
        let mut prev = f64::INFINITY;
        let mut t = 0.05;
        while t < 2.0 {
            let l = at(t).loss_volume_bytes();
            assert!(l <= prev + 1e-9, "increased at T={t}");
            prev = l;
            t += 0.05;
        }
        // Strictly decreasing in case 2: slope −μs = −4800 B/s.
        let d = at(0.5).loss_volume_bytes() - at(0.4).loss_volume_bytes();
        assert!(close(d, -480.0, 1e-9));
    }

    #[test]
    fn rejects_invalid_parameters() {
        assert!(fig4(100_000.0).validate().is_ok());
        assert!(FluidLossParams { mu_s: 9600.0, ..fig4(100_000.0) }.validate().is_err());
        assert!(FluidLossParams { window_bytes: 300.0, ..fig4(100_000.0) }.validate().is_err());
        assert!(FluidLossParams { rtt: 0.0, ..fig4(100_000.0) }.validate().is_err());
        assert!(fig4(5000.0).validate().is_err());
    }
}
