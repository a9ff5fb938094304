//! Proportional Fair (Liu et al. eqs. 5-6; Jalali, Padovani, Pankaj 2000).
//!
//! A_i[n] = (1-a) A_i[n-1] + a I_i[n-1] R_i[n-1], and slot n goes to
//! argmax_i R_i[n] / A_i[n]. R of a served slot is the rate of the packet
//! being sent in it, so a multi-slot packet keeps raising its user's average
//! in every slot it occupies.
//!
//! Implementation: every A_i decays by the same factor each slot, so we keep
//! A_i = g B_i with one shared g = (1-a)^n and touch only the served user's
//! B (B += a R / g_next). The argmax of R_i / A_i is then the argmax of
//! R_i / B_i, compared by cross-multiplication: no divisions per slot. g is
//! folded back into the B's before it underflows.

use super::{RateTable, Scheduler, SlotView, RATE_INDICES};

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PfConfig {
    /// Averaging constant a; 1/1000 is the value recommended in practice (Liu et al. section 6).
    pub alpha: f64,
    /// A_i of a user that (re)joins, bit/s. Small: a new user is served
    /// until its average reaches a fair share.
    pub initial_avg_bps: f64,
}

impl Default for PfConfig {
    fn default() -> Self {
        Self { alpha: 1.0 / 1000.0, initial_avg_bps: 1.0 }
    }
}

pub struct ProportionalFair {
    cfg: PfConfig,
    rate: RateTable,
    g: f64,
    inv_g: f64,
    decay: f64,
    inv_decay: f64,
    b: Vec<f64>,
}

const RENORM_BELOW: f64 = 1e-150;

impl ProportionalFair {
    /// `rates`: the radio's rate (bit/s) of each rate index.
    pub fn new(users: usize, cfg: PfConfig, rates: &RateTable) -> Self {
        assert!(cfg.alpha > 0.0 && cfg.alpha < 1.0 && cfg.initial_avg_bps > 0.0);
        let b0 = cfg.initial_avg_bps;
        Self {
            decay: 1.0 - cfg.alpha,
            inv_decay: 1.0 / (1.0 - cfg.alpha),
            cfg,
            rate: *rates,
            g: 1.0,
            inv_g: 1.0,
            b: vec![b0; users],
        }
    }

    /// Current A_i (bit/s).
    pub fn average(&self, user: usize) -> f64 {
        self.g * self.b[user]
    }

    fn set_b(&mut self, u: usize, b: f64) {
        self.b[u] = b;
    }
}

impl Scheduler for ProportionalFair {
    fn name(&self) -> &'static str {
        "pf"
    }

    #[inline]
    fn pick(&mut self, view: &SlotView) -> Option<usize> {
        // argmax R_i / B_i by cross-multiplication (no division), written
        // so the comparison compiles to conditional moves: which user wins
        // is data-dependent and would mispredict as a branch.
        let (mut rb, mut bb) = (0.0f64, 1.0f64);
        let mut who = usize::MAX;
        match view.backlog_bits {
            None => {
                for (i, (&d, &b)) in view.request.iter().zip(&self.b).enumerate() {
                    let r = self.rate[d as usize & (RATE_INDICES - 1)];
                    let better = r * bb > rb * b;
                    rb = if better { r } else { rb };
                    bb = if better { b } else { bb };
                    who = if better { i } else { who };
                }
            }
            Some(q) => {
                for (i, ((&d, &b), &bl)) in view.request.iter().zip(&self.b).zip(q).enumerate() {
                    let r = if bl > 0 { self.rate[d as usize & (RATE_INDICES - 1)] } else { 0.0 };
                    let better = r * bb > rb * b;
                    rb = if better { r } else { rb };
                    bb = if better { b } else { bb };
                    who = if better { i } else { who };
                }
            }
        }
        (who != usize::MAX).then_some(who)
    }

    #[inline]
    fn end_slot(&mut self, served: Option<(usize, u64)>) {
        self.g *= self.decay;
        self.inv_g *= self.inv_decay;
        if let Some((u, r)) = served {
            // A[n+1] = (1-a) A[n] + a R  <=>  B += a R / g[n+1]
            let b = self.b[u] + self.cfg.alpha * r as f64 * self.inv_g;
            self.set_b(u, b);
        }
        if self.g < RENORM_BELOW {
            for u in 0..self.b.len() {
                let b = self.b[u] * self.g;
                self.set_b(u, b);
            }
            self.g = 1.0;
            self.inv_g = 1.0;
        }
    }

    fn reset_user(&mut self, user: usize) {
        let b = self.cfg.initial_avg_bps / self.g;
        self.set_b(user, b);
    }

    fn user_state(&self, user: usize) -> Option<f64> {
        Some(self.average(user))
    }

    fn set_user_state(&mut self, user: usize, avg_bps: f64) {
        let b = avg_bps / self.g;
        self.set_b(user, b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::drc::RATE_BPS;

    fn evdo() -> RateTable {
        super::super::rate_table(&RATE_BPS)
    }

    #[test]
    fn average_follows_eq_5() {
        let mut pf = ProportionalFair::new(2, PfConfig { alpha: 0.01, initial_avg_bps: 100.0 }, &evdo());
        let (mut a0, mut a1) = (100.0f64, 100.0f64);
        // Long enough to cross several renormalisations (g < 1e-150 after ~34 000 slots).
        for n in 0..100_000u64 {
            let served = if n % 3 == 0 { Some((0, 614_400)) } else { Some((1, 38_400)) };
            pf.end_slot(served);
            let (i0, i1) = if n % 3 == 0 { (1.0, 0.0) } else { (0.0, 1.0) };
            a0 = 0.99 * a0 + 0.01 * i0 * 614_400.0;
            a1 = 0.99 * a1 + 0.01 * i1 * 38_400.0;
        }
        assert!((pf.average(0) / a0 - 1.0).abs() < 1e-9, "{} {}", pf.average(0), a0);
        assert!((pf.average(1) / a1 - 1.0).abs() < 1e-9);
        pf.reset_user(1);
        assert!((pf.average(1) - 100.0).abs() < 1e-9);
    }

    #[test]
    fn picks_the_best_relative_rate_among_the_backlogged() {
        let mut pf = ProportionalFair::new(3, PfConfig { alpha: 0.5, initial_avg_bps: 1.0 }, &evdo());
        pf.end_slot(Some((0, 2_457_600))); // A0 large, others decayed
        let drc = [12u8, 6, 1];
        let v = SlotView { slot: 1, request: &drc, backlog_bits: None };
        assert_eq!(pf.pick(&v), Some(1));
        let q = [5u64, 0, 7];
        assert_eq!(pf.pick(&SlotView { backlog_bits: Some(&q), ..v }), Some(2));
        assert_eq!(pf.pick(&SlotView { backlog_bits: Some(&[0, 0, 0]), ..v }), None);
    }
}
