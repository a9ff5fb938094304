//! A synthetic SINR process, slot by slot, for the presets.
//!
//! SINR (dB) = geometry + shadowing + slow fading + Rayleigh fading:
//! - geometry: a constant mean for a stationary terminal; for a mobile one, a
//!   hump per cell: the terminal enters a sector at its edge, passes near the
//!   tower and leaves at the far edge, where it hands off to the next sector.
//!   Dwell times are uniform in a range (20-30 s in Liu et al. section 6), so
//!   hand-offs come every 20-30 s. The hump is `edge + (peak-edge) sin(pi t/T)`.
//! - shadowing and slow fading: Gauss-Markov (AR(1)) processes in dB with a
//!   given standard deviation and correlation time in slots.
//! - regime and drift (optional, `regime.rs`): a hidden regime that shifts
//!   the mean for seconds and a drift over hours.
//! - Rayleigh fading: a complex Gauss-Markov gain h with E|h|^2 = 1 and
//!   correlation time in slots (a first-order stand-in for Clarke's
//!   spectrum), added as 10 log10 |h|^2.
//!
//! The DRC this source reports is the static threshold mapping of
//! `sinr_mapper::Thresholds`; wrap it in `SinrMapper` for the adaptive one.

use super::regime::Regime;
use super::sinr_mapper::Thresholds;
use super::ChannelSource;
use crate::engine::Rng;

/// x[n] = rho x[n-1] + sd sqrt(1 - rho^2) w[n]: stationary with std `sd`.
#[derive(Clone, Debug)]
pub struct Ar1 {
    rho: f64,
    gain: f64,
    sd: f64,
    x: f64,
}

impl Ar1 {
    /// `corr_slots`: the time (slots) over which the correlation falls to 1/e.
    pub fn new(sd: f64, corr_slots: f64, g: &mut Rng) -> Self {
        let rho = if corr_slots > 0.0 { (-1.0 / corr_slots).exp() } else { 0.0 };
        Self { rho, gain: sd * (1.0 - rho * rho).sqrt(), sd, x: sd * g.normal() }
    }
    #[inline]
    pub fn step(&mut self, g: &mut Rng) -> f64 {
        self.x = self.rho * self.x + self.gain * g.normal();
        self.x
    }
    /// The value `n` steps on, drawn at once: given x, x[n] is normal with
    /// mean rho^n x and variance sd^2 (1 - rho^2n), the sum of the n steps'
    /// innovations. One draw whatever `n`.
    pub fn skip(&mut self, n: u64, g: &mut Rng) -> f64 {
        if n > 0 {
            let r = self.rho.powf(n as f64);
            self.x = r * self.x + self.sd * (1.0 - r * r).sqrt() * g.normal();
        }
        self.x
    }
}

/// Geometry of a mobile terminal crossing sectors.
#[derive(Clone, Debug)]
pub struct CellPath {
    pub edge_db: f64,
    pub peak_db: f64,
    pub dwell_min_slots: u64,
    pub dwell_max_slots: u64,
}

#[derive(Clone, Debug)]
pub struct FadingConfig {
    pub mean_db: f64,
    pub path: Option<CellPath>,
    pub shadow_sd_db: f64,
    pub shadow_corr_slots: f64,
    pub slow_sd_db: f64,
    pub slow_corr_slots: f64,
    /// Rayleigh correlation time in slots; None = no Rayleigh component.
    pub rayleigh_corr_slots: Option<f64>,
}

/// One slot's SINR in parts (dB): the geometry, the regime's offset but
/// its day scale, the shadowing, the slow fading and the Rayleigh fading
/// (a part the process lacks is 0).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SlotParts {
    geo: f64,
    offset: f64,
    shadow: f64,
    slow: f64,
    fade_db: f64,
}

impl SlotParts {
    /// The slot's SINR (dB) under a day-scale offset `day` (0 without
    /// one): the one sum, in one order, whoever drew the parts. Adding a
    /// part that is 0 changes nothing (but a -0 sum's sign).
    #[inline]
    pub(crate) fn sinr(&self, day: f64) -> f64 {
        self.geo + (self.offset + day) + self.shadow + self.slow + self.fade_db
    }
}

pub struct FadingSinr {
    cfg: FadingConfig,
    /// The stream of the normal draws (`Rng::normal`).
    g: Rng,
    /// The shadowing's own draws when it is shared with other terminals
    /// (`with_shared`); None: it draws from `g` like the rest.
    shadow_g: Option<Rng>,
    dwell_rng: Rng,
    shadow: Ar1,
    slow: Ar1,
    h: (f64, f64),
    h_rho: f64,
    /// The innovation's gain over one slot, sqrt((1 - h_rho²) / 2).
    h_gain: f64,
    slot: u64,
    cell_start: u64,
    cell_len: u64,
    handoffs: Vec<u64>,
    thresholds: Thresholds,
    regime: Option<Regime>,
}

impl FadingSinr {
    pub fn new(cfg: FadingConfig, rng: Rng, dwell_rng: Rng) -> Self {
        let mut g = rng;
        let shadow = Ar1::new(cfg.shadow_sd_db, cfg.shadow_corr_slots, &mut g);
        let slow = Ar1::new(cfg.slow_sd_db, cfg.slow_corr_slots, &mut g);
        let h_rho = cfg.rayleigh_corr_slots.map(|c| (-1.0 / c).exp()).unwrap_or(0.0);
        let h = (g.normal() * 0.5f64.sqrt(), g.normal() * 0.5f64.sqrt());
        let mut s = Self {
            cfg,
            g,
            shadow_g: None,
            dwell_rng,
            shadow,
            slow,
            h,
            h_rho,
            h_gain: fade_gain(h_rho),
            slot: 0,
            cell_start: 0,
            cell_len: 1,
            handoffs: Vec::new(),
            thresholds: Thresholds::default(),
            regime: None,
        };
        if let Some(p) = &s.cfg.path {
            // Start at a random point of the first dwell, as if driving already.
            s.cell_len = s.draw_dwell(p.dwell_min_slots, p.dwell_max_slots);
            s.cell_start = 0u64.wrapping_sub(s.dwell_rng.below(s.cell_len));
        }
        s
    }

    /// Terminals in one vehicle: the cell path (its dwell times, hence its
    /// hand-offs) and the shadowing come from the vehicle's streams, the
    /// same for each of them; the fading below stays the terminal's own.
    pub fn with_shared(mut self, shadow: Rng, dwell: Rng) -> Self {
        let mut g = shadow;
        self.shadow = Ar1::new(self.cfg.shadow_sd_db, self.cfg.shadow_corr_slots, &mut g);
        self.shadow_g = Some(g);
        self.dwell_rng = dwell;
        if let Some(p) = &self.cfg.path {
            let (lo, hi) = (p.dwell_min_slots, p.dwell_max_slots);
            self.cell_len = self.draw_dwell(lo, hi);
            self.cell_start = 0u64.wrapping_sub(self.dwell_rng.below(self.cell_len));
        }
        self
    }

    /// Add a hidden regime and drift to the mean.
    pub fn with_regime(mut self, regime: Regime) -> Self {
        self.regime = Some(regime);
        self
    }

    fn draw_dwell(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.dwell_rng.below(hi - lo + 1)
    }

    #[inline]
    fn next_sinr(&mut self) -> f64 {
        let parts = self.next_parts();
        let day = match self.regime.as_mut() {
            Some(r) => r.step_day(),
            None => 0.0,
        };
        parts.sinr(day)
    }

    /// The next slot's parts of the SINR, all but the regime's day-scale
    /// offset (drawn apart: `next_sinr`, `channel::day_scales`).
    #[inline]
    pub(crate) fn next_parts(&mut self) -> SlotParts {
        let mut geo = self.cfg.mean_db;
        if let Some(p) = self.cfg.path.clone() {
            let mut t = self.slot.wrapping_sub(self.cell_start);
            if t >= self.cell_len {
                self.cell_start = self.slot;
                self.cell_len = self.draw_dwell(p.dwell_min_slots, p.dwell_max_slots);
                self.handoffs.push(self.slot);
                t = 0;
            }
            let phase = std::f64::consts::PI * t as f64 / self.cell_len as f64;
            geo = p.edge_db + (p.peak_db - p.edge_db) * phase.sin();
        }
        let offset = match self.regime.as_mut() {
            Some(r) => r.step_within_day(),
            None => 0.0,
        };
        let shadow = match self.shadow_g.as_mut() {
            Some(g) => self.shadow.step(g),
            None => self.shadow.step(&mut self.g),
        };
        let slow = self.slow.step(&mut self.g);
        let mut fade_db = 0.0;
        if self.cfg.rayleigh_corr_slots.is_some() {
            self.fade(self.h_rho, self.h_gain);
            let p = (self.h.0 * self.h.0 + self.h.1 * self.h.1).max(1e-12);
            fade_db = 10.0 * p.log10();
        }
        self.slot += 1;
        SlotParts { geo, offset, shadow, slow, fade_db }
    }

    /// Move `n` slots on without drawing them: every Gauss-Markov part
    /// jumps by its exact n-step law (`Ar1::skip`), the regime by its own
    /// (`Regime::skip`). A mobile terminal's cell path has no such law, so
    /// it steps through the slots.
    fn skip_slots(&mut self, n: u64) {
        if self.cfg.path.is_some() {
            for _ in 0..n {
                self.next_sinr();
            }
            return;
        }
        if let Some(r) = self.regime.as_mut() {
            r.skip(n);
        }
        match self.shadow_g.as_mut() {
            Some(g) => self.shadow.skip(n, g),
            None => self.shadow.skip(n, &mut self.g),
        };
        self.slow.skip(n, &mut self.g);
        if self.cfg.rayleigh_corr_slots.is_some() && n > 0 {
            let r = self.h_rho.powf(n as f64);
            self.fade(r, fade_gain(r));
        }
        self.slot += n;
    }

    /// The Rayleigh gain h one step on, where `r` is its correlation over
    /// the step (h_rho for a slot, h_rho^n for n slots) and `k` =
    /// `fade_gain(r)`: each part keeps variance 1/2.
    #[inline]
    fn fade(&mut self, r: f64, k: f64) {
        self.h.0 = r * self.h.0 + k * self.g.normal();
        self.h.1 = r * self.h.1 + k * self.g.normal();
    }
}

/// The innovation's gain of a Rayleigh part whose correlation over a step
/// is `r`, so that it keeps variance 1/2.
fn fade_gain(r: f64) -> f64 {
    (1.0 - r * r).sqrt() * 0.5f64.sqrt()
}

impl ChannelSource for FadingSinr {
    fn fill(&mut self, drc: &mut [u8], mut sinr: Option<&mut [f32]>) -> usize {
        for i in 0..drc.len() {
            let x = self.next_sinr();
            drc[i] = self.thresholds.map(x);
            if let Some(s) = sinr.as_deref_mut() {
                s[i] = x as f32;
            }
        }
        drc.len()
    }
    fn has_sinr(&self) -> bool {
        true
    }
    fn fill_sinr(&mut self, sinr: &mut [f32]) -> usize {
        for s in sinr.iter_mut() {
            *s = self.next_sinr() as f32;
        }
        sinr.len()
    }
    fn take_handoffs(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.handoffs)
    }
    fn skip(&mut self, n: u64) {
        self.skip_slots(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ar1_has_its_std_and_correlation() {
        let mut g = Rng::from_seed(3);
        let mut a = Ar1::new(2.0, 10.0, &mut g);
        let n = 400_000;
        let xs: Vec<f64> = (0..n).map(|_| a.step(&mut g)).collect();
        let m = xs.iter().sum::<f64>() / n as f64;
        let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n as f64;
        let c10 = xs.windows(11).map(|w| (w[0] - m) * (w[10] - m)).sum::<f64>() / (n - 10) as f64 / v;
        // Effective sample size ~ n/20: std error of the variance ~ 1 %.
        assert!((v.sqrt() - 2.0).abs() < 0.06, "sd {}", v.sqrt());
        assert!((c10 - (-1.0f64).exp()).abs() < 0.03, "corr {c10}");
    }

    #[test]
    fn mobile_hands_off_every_dwell() {
        let cfg = FadingConfig {
            mean_db: 0.0,
            path: Some(CellPath { edge_db: -5.0, peak_db: 8.0, dwell_min_slots: 12_000, dwell_max_slots: 18_000 }),
            shadow_sd_db: 1.0,
            shadow_corr_slots: 100.0,
            slow_sd_db: 0.0,
            slow_corr_slots: 0.0,
            rayleigh_corr_slots: Some(10.0),
        };
        let t = crate::channel::collect(&mut FadingSinr::new(cfg, Rng::from_seed(1), Rng::from_seed(2)), 600_000);
        let gaps: Vec<u64> = t.handoffs.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps.len() >= 32 && gaps.len() <= 50, "{}", gaps.len());
        assert!(gaps.iter().all(|&g| (12_000..=18_000).contains(&g)));
    }
}
