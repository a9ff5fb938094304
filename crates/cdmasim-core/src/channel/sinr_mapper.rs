//! SINR → DRC mapping with target-FER adaptation (Liu et al. section 2).
//!
//! The terminal maps its SINR to the highest DRC expected to meet a target
//! frame error rate (1 % usually), and the mapping is *dynamic*: an outer
//! loop moves an offset up by `step_up_db` after each frame error and down by
//! `step_up_db * target/(1-target)` after each good frame, so that errors
//! settle at the target rate whatever the estimation error.
//!
//! C.S0024 does not specify the thresholds (they are a terminal design
//! choice); the defaults are representative 1 %-FER SINRs, increasing with
//! rate and, between two formats of one rate, with packet length.
//! Frame errors follow a waterfall `FER(x) = 1 / (1 + 99 e^{x/w})`, x being
//! the SINR during the slot minus the DRC's threshold (FER = 1 % at x = 0).
//! The DRC for slot n uses the SINR estimate from the slots before n
//! (an exponential average), as a real terminal must predict.

use super::{waterfall, ChannelSource};
use crate::engine::Rng;
use crate::channel::drc::NUM_DRC;

/// 1 %-FER SINR threshold (dB) per DRC index; index 0 (null) is always feasible.
#[derive(Clone, Debug)]
pub struct Thresholds {
    pub db: [f64; NUM_DRC],
    /// The thresholds in ascending order (the ladder), padded with NaN,
    /// which no comparison finds ≤ anything, and the DRC of each.
    ladder_db: [f64; LADDER],
    ladder_drc: [u8; LADDER],
}

/// The ladder's fixed length: every DRC but the null one fits, rounded up
/// to a whole number of vector registers (the count below is vectorised).
const LADDER: usize = 16;
const _: () = assert!(NUM_DRC - 1 <= LADDER);

pub const DEFAULT_THRESHOLDS_DB: [f64; NUM_DRC] = [
    f64::NEG_INFINITY, // 0 null
    -12.0,             // 1  38.4k
    -9.5,              // 2  76.8k
    -6.5,              // 3  153.6k
    -3.5,              // 4  307.2k short
    -3.0,              // 5  307.2k long
    -0.5,              // 6  614.4k short
    0.0,               // 7  614.4k long
    1.5,               // 8  921.6k
    3.0,               // 9  1228.8k short
    3.5,               // 10 1228.8k long
    7.0,               // 11 1843.2k
    9.5,               // 12 2457.6k
    5.0,               // 13 1536k
    12.0,              // 14 3072k
];

impl Default for Thresholds {
    fn default() -> Self {
        Self::new(DEFAULT_THRESHOLDS_DB, 14)
    }
}

impl Thresholds {
    /// `max_drc`: 12 for a Rev. 0 terminal, 14 for Rev. A.
    pub fn new(db: [f64; NUM_DRC], max_drc: u8) -> Self {
        let mut ladder: Vec<(f64, u8)> = (1..=max_drc).map(|i| (db[i as usize], i)).collect();
        ladder.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap());
        let (mut ladder_db, mut ladder_drc) = ([f64::NAN; LADDER], [0; LADDER]);
        for (i, &(t, d)) in ladder.iter().enumerate() {
            (ladder_db[i], ladder_drc[i]) = (t, d);
        }
        Self { db, ladder_db, ladder_drc }
    }

    /// Highest DRC (by threshold) feasible at `sinr_db`: the ladder's
    /// thresholds ≤ it are a prefix, counted in one pass of independent
    /// comparisons (a binary search over 14 chains its loads: it was a
    /// tenth of drawing a preset).
    #[inline]
    pub fn map(&self, sinr_db: f64) -> u8 {
        self.drc_at(self.ladder_db.iter().map(|&t| (t <= sinr_db) as usize).sum())
    }

    /// The same count (the ladder's thresholds ≤ `sinr_db`) walked from
    /// `k`, the count for a value near it: a terminal's SINR estimate moves
    /// little from one slot to the next, so this is a comparison or two
    /// where `map` makes one per rung. Exact from any `k` in 0..=LADDER,
    /// since the thresholds ≤ any value are a prefix (a NaN value: none).
    #[inline]
    // `!(t <= x)`, not `t > x`: for a NaN value no threshold counts.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    fn rung_from(&self, mut k: usize, sinr_db: f64) -> usize {
        while k < LADDER && self.ladder_db[k] <= sinr_db {
            k += 1;
        }
        while k > 0 && !(self.ladder_db[k - 1] <= sinr_db) {
            k -= 1;
        }
        k
    }

    /// The DRC of the ladder's `k` lowest thresholds (0: the null DRC).
    #[inline]
    fn drc_at(&self, k: usize) -> u8 {
        if k == 0 {
            0
        } else {
            self.ladder_drc[k - 1]
        }
    }
}

#[derive(Clone, Debug)]
pub struct MapperConfig {
    pub target_fer: f64,
    pub step_up_db: f64,
    /// Waterfall width w (dB) of the frame-error curve.
    pub waterfall_db: f64,
    /// Weight of the newest sample in the SINR estimate (1 = last slot only).
    pub estimate_weight: f64,
    /// Bounds of the adaptive offset (dB). The lower bound 0 keeps the table
    /// the most aggressive mapping: without it, a steady SINR in mid-bin
    /// (FER far below target) drives the offset down until the DRC hunts
    /// between two states at the next threshold.
    pub offset_range_db: (f64, f64),
}

impl Default for MapperConfig {
    fn default() -> Self {
        Self { target_fer: 0.01, step_up_db: 0.5, waterfall_db: 0.5, estimate_weight: 1.0, offset_range_db: (0.0, 10.0) }
    }
}

/// The terminal's side of the mapping: its SINR estimate, the outer loop's
/// offset and the frame errors, fed the SINR a block of slots at a time.
#[derive(Clone)]
pub struct Mapping {
    cfg: MapperConfig,
    thr: Thresholds,
    rng: Rng,
    offset_db: f64,
    estimate: Option<f64>,
    /// The ladder count of the last slot's estimate (`Thresholds::rung_from`).
    rung: usize,
    errors: u64,
    frames: u64,
}

impl Mapping {
    pub fn new(cfg: MapperConfig, thr: Thresholds, rng: Rng) -> Self {
        Self { cfg, thr, rng, offset_db: 0.0, estimate: None, rung: 0, errors: 0, frames: 0 }
    }

    /// The DRC of each slot whose SINR (dB) is in `sinr`, into `drc`.
    pub fn map(&mut self, sinr: &[f32], drc: &mut [u8]) {
        let cfg = &self.cfg;
        let down = cfg.step_up_db * cfg.target_fer / (1.0 - cfg.target_fer);
        let (w, width, (lo, hi)) = (cfg.estimate_weight, cfg.waterfall_db, cfg.offset_range_db);
        // The state the loop carries from slot to slot, in locals (kept in
        // registers, not stored back every slot).
        let (mut estimate, mut offset, mut rung) = (self.estimate, self.offset_db, self.rung);
        let drc = &mut drc[..sinr.len()];
        for (out, &s) in drc.iter_mut().zip(sinr) {
            let x = s as f64;
            let est = estimate.unwrap_or(x);
            rung = self.thr.rung_from(rung, est - offset);
            let d = self.thr.drc_at(rung);
            *out = d;
            if d > 0 {
                let margin = x - self.thr.db[d as usize];
                self.frames += 1;
                // FER > 0 for every margin, so a draw is made for every frame.
                if waterfall::lost(margin / width, self.rng.uniform()) {
                    self.errors += 1;
                    offset += cfg.step_up_db;
                } else {
                    offset -= down;
                }
                offset = offset.clamp(lo, hi);
            }
            estimate = Some(match estimate {
                None => x,
                Some(e) => e + w * (x - e),
            });
        }
        (self.estimate, self.offset_db, self.rung) = (estimate, offset, rung);
    }

    /// The SINR jumped: the terminal's estimate starts again from the next
    /// slot's SINR (it forgets in about 1 / `estimate_weight` slots
    /// anyway), while the outer loop's offset, which follows the frame
    /// errors rather than the SINR, carries over.
    pub fn jumped(&mut self) {
        self.estimate = None;
    }
}

pub struct SinrMapper<S: ChannelSource> {
    inner: S,
    mapping: Mapping,
    buf: Vec<f32>,
}

impl<S: ChannelSource> SinrMapper<S> {
    pub fn new(inner: S, cfg: MapperConfig, thr: Thresholds, rng: Rng) -> Self {
        Self::with(inner, Mapping::new(cfg, thr, rng))
    }

    pub fn with(inner: S, mapping: Mapping) -> Self {
        assert!(inner.has_sinr(), "the SINR mapper needs a source with SINR");
        Self { inner, mapping, buf: Vec::new() }
    }

    /// Frame error rate observed so far (slots with a non-null DRC).
    pub fn observed_fer(&self) -> f64 {
        self.mapping.errors as f64 / self.mapping.frames.max(1) as f64
    }

    pub fn offset_db(&self) -> f64 {
        self.mapping.offset_db
    }
}

impl<S: ChannelSource> ChannelSource for SinrMapper<S> {
    fn fill(&mut self, drc: &mut [u8], sinr: Option<&mut [f32]>) -> usize {
        self.buf.resize(drc.len(), 0.0);
        let n = self.inner.fill_sinr(&mut self.buf[..]);
        self.mapping.map(&self.buf[..n], &mut drc[..n]);
        if let Some(s) = sinr {
            s[..n].copy_from_slice(&self.buf[..n]);
        }
        n
    }
    fn has_sinr(&self) -> bool {
        true
    }
    fn take_handoffs(&mut self) -> Vec<u64> {
        self.inner.take_handoffs()
    }
    fn skip(&mut self, n: u64) {
        self.inner.skip(n);
        self.mapping.jumped();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::fading::{FadingConfig, FadingSinr};

    #[test]
    fn ladder_mapping() {
        let t = Thresholds::default();
        assert_eq!(t.map(-20.0), 0);
        assert_eq!(t.map(-12.0), 1);
        assert_eq!(t.map(5.5), 13);
        assert_eq!(t.map(8.0), 11);
        assert_eq!(t.map(30.0), 14);
        assert_eq!(Thresholds::new(DEFAULT_THRESHOLDS_DB, 12).map(30.0), 12);
    }

    /// The counting map is the binary search it replaced, at every
    /// threshold, an ulp either side, between them, at ±∞ and NaN, for the
    /// Rev. 0 and Rev. A ladders and one with ties and an infinite rung;
    /// and so is the walk from every starting count.
    #[test]
    fn counting_map_is_the_ladder_search() {
        let mut tied = DEFAULT_THRESHOLDS_DB;
        (tied[4], tied[5], tied[14]) = (-6.5, -6.5, f64::INFINITY);
        for (db, max_drc) in [(DEFAULT_THRESHOLDS_DB, 14), (DEFAULT_THRESHOLDS_DB, 12), (tied, 14)] {
            let t = Thresholds::new(db, max_drc);
            let mut ladder: Vec<(f64, u8)> = (1..=max_drc).map(|i| (db[i as usize], i)).collect();
            ladder.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap());
            let search = |x: f64| match ladder.partition_point(|&(t, _)| t <= x) {
                0 => 0,
                k => ladder[k - 1].1,
            };
            let mut xs = vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, f64::MAX, -f64::MAX];
            for &(t, _) in &ladder {
                xs.extend([t, t.next_up(), t.next_down()]);
            }
            xs.extend((-400..=400).map(|i| i as f64 / 16.0));
            for x in xs {
                assert_eq!(t.map(x), search(x), "x = {x}, max_drc {max_drc}");
                // Walked from any count, the mapper's way gives the same.
                for k in 0..=LADDER {
                    assert_eq!(t.drc_at(t.rung_from(k, x)), search(x), "x = {x} from {k}, max_drc {max_drc}");
                }
            }
        }
    }

    /// A source's `fill_sinr` gives `fill`'s SINR for the same slots and
    /// leaves the source as `fill` does (the same draws and hand-offs after
    /// it, checked over two calls of uneven length on a mobile, which hands
    /// off): the fading source's own, and the provided one (a trace with
    /// SINR, which ends: fewer slots than asked).
    #[test]
    fn fill_sinr_is_fills_sinr() {
        use crate::channel::fading::CellPath;
        use crate::channel::trace::{DrcTrace, TraceSource};
        let cfg = FadingConfig {
            mean_db: 2.0,
            path: Some(CellPath { edge_db: -5.0, peak_db: 8.0, dwell_min_slots: 1_000, dwell_max_slots: 3_000 }),
            shadow_sd_db: 2.0,
            shadow_corr_slots: 50.0,
            slow_sd_db: 1.0,
            slow_corr_slots: 300.0,
            rayleigh_corr_slots: Some(20.0),
        };
        let fading = || FadingSinr::new(cfg.clone(), Rng::from_seed(5), Rng::from_seed(6));
        let (mut a, mut b) = (fading(), fading());
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for len in [6_999, 10_000] {
            let (mut drc, mut want, mut got) = (vec![0u8; len], vec![0f32; len], vec![0f32; len]);
            assert_eq!(a.fill(&mut drc, Some(&mut want)), len);
            assert_eq!(b.fill_sinr(&mut got), len);
            assert_eq!(bits(&want), bits(&got));
            let handoffs = a.take_handoffs();
            assert!(!handoffs.is_empty());
            assert_eq!(handoffs, b.take_handoffs());
        }

        let drcs: Vec<u8> = (0..9_000).map(|i| (i % 15) as u8).collect();
        let sinrs: Vec<f32> = (0..9_000).map(|i| i as f32 / 7.0 - 300.0).collect();
        let t = DrcTrace { drc: drcs, sinr: Some(sinrs.clone()), handoffs: Vec::new() };
        let mut trace = TraceSource::new(std::sync::Arc::new(t), 0, false);
        let mut out = vec![0f32; 10_000];
        assert_eq!(trace.fill_sinr(&mut out), 9_000);
        assert_eq!(bits(&out[..9_000]), bits(&sinrs));
    }

    #[test]
    fn outer_loop_reaches_the_target_fer() {
        let cfg = FadingConfig {
            mean_db: 4.0,
            path: None,
            shadow_sd_db: 2.0,
            shadow_corr_slots: 500.0,
            slow_sd_db: 0.0,
            slow_corr_slots: 0.0,
            rayleigh_corr_slots: Some(20.0),
        };
        for target in [0.01, 0.05] {
            let src = FadingSinr::new(cfg.clone(), Rng::from_seed(1), Rng::from_seed(2));
            let mc = MapperConfig { target_fer: target, ..Default::default() };
            let mut m = SinrMapper::new(src, mc, Thresholds::default(), Rng::from_seed(3));
            crate::channel::collect(&mut m, 400_000);
            // The loop is a stochastic approximation: within 15 % of the target.
            let f = m.observed_fer();
            assert!((f - target).abs() < 0.15 * target, "target {target} got {f}");
        }
    }
}
