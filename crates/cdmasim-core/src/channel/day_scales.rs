//! One stationary preset under several day-scale offsets at once (Liu et
//! al. Fig. 1, right: the campaign's half-hour means under each size of a
//! day scale the paper leaves unstated, `regime.rs`).
//!
//! A preset's process with day scale `sd` differs from the one without
//! only in the offset: the offset draws from a stream of its own
//! (`presets::day_stream`), so every other draw — the regime, the drift,
//! the shadowing, the slow fading — is the same whatever `sd` is. Here
//! those are drawn once per slot (`FadingSinr::next_parts`), and each day
//! scale adds its own offset (`SlotParts::sinr`, the one sum the preset's
//! own process makes) and maps the SINR with its own copy of the
//! terminal's mapping (its errors, hence its draws, follow its SINR). Each
//! day scale's statistics are those of `stats_at` over the preset with
//! that `day_sd_db`, bit for bit, for about the cost of one process and a
//! mapping per day scale.

use super::fading::{FadingSinr, SlotParts};
use super::presets;
use super::regime::DayScale;
use super::sinr_mapper::Mapping;
use super::stats::{Accumulator, Stats, StatsConfig, MAX_WINDOW_LENGTHS};
use super::ChannelSource;
use crate::engine::interrupt;

/// A preset's process shared by its day scales.
pub struct DayScales {
    fading: FadingSinr,
    scales: Vec<Scale>,
}

/// One day scale: its offset (None for 0 dB) and the terminal's mapping.
struct Scale {
    day: Option<DayScale>,
    mapping: Mapping,
}

/// Slots drawn at a time (their parts held for every day scale).
const BLOCK: usize = 4096;

impl DayScales {
    /// `spec`: a stationary preset (`location1`, with settings after a
    /// colon as `presets::parse` reads them; its `day_sd_db`, if any, is
    /// replaced by each of `day_sd_db`); one day scale per value (dB, at
    /// least 0).
    pub fn new(spec: &str, seed: u64, day_sd_db: &[f64]) -> Result<Self, String> {
        // Each day scale holds its own statistics: as many as `TraceStats`
        // holds window lengths at most.
        if day_sd_db.is_empty() || day_sd_db.len() > MAX_WINDOW_LENGTHS {
            return Err(format!("day_sd_db: 1 to {MAX_WINDOW_LENGTHS} day scales, got {}", day_sd_db.len()));
        }
        if let Some((i, sd)) = day_sd_db.iter().enumerate().find(|(_, &sd)| !presets::is_day_setting(sd)) {
            return Err(format!("day_sd_db[{i}]: needs {}, got {sd}", presets::DAY_SETTING));
        }
        let (name, mut c) = presets::parse(spec, seed)?.ok_or_else(|| format!("no preset '{spec}'"))?;
        let r = presets::day_scale_regime(name, &mut c)?;
        let corr = r.day_corr_slots;
        r.day_sd_db = 0.0;
        // A terminal on a cell path steps through a gap slot by slot, its
        // day scale too; here a gap is jumped (`DayScale::skip`).
        if c.fading.path.is_some() {
            return Err(format!("preset {name} moves along a cell path: its day scales cannot be drawn together"));
        }
        let (fading, mapping) = presets::build_parts(name, seed, c, None);
        let scales = day_sd_db
            .iter()
            .map(|&sd| Scale { day: DayScale::new(sd, corr, presets::day_stream(name, seed)), mapping: mapping.clone() })
            .collect();
        Ok(Self { fading, scales })
    }

    /// `channel::stats_at` for each day scale: [day scale][window]. Empty
    /// when Ctrl-C asks.
    pub fn stats_at(&mut self, at: &[(u64, u64)], cfg: &StatsConfig) -> Vec<Vec<Stats>> {
        let mut out: Vec<Vec<Stats>> = self.scales.iter().map(|_| Vec::with_capacity(at.len())).collect();
        let mut parts: Vec<SlotParts> = Vec::with_capacity(BLOCK);
        let (mut sinr, mut drc) = (vec![0f32; BLOCK], vec![0u8; BLOCK]);
        let mut now = 0;
        for &(first, len) in at {
            let gap = first - now;
            self.fading.skip(gap);
            for s in &mut self.scales {
                if let Some(d) = s.day.as_mut() {
                    d.skip(gap);
                }
                s.mapping.jumped();
            }
            let mut accs: Vec<Accumulator> = self.scales.iter().map(|_| Accumulator::new(cfg.clone())).collect();
            let mut left = len;
            while left > 0 {
                if interrupt::requested() {
                    return Vec::new();
                }
                let n = left.min(BLOCK as u64) as usize;
                parts.clear();
                parts.extend((0..n).map(|_| self.fading.next_parts()));
                for (s, acc) in self.scales.iter_mut().zip(&mut accs) {
                    for (x, p) in sinr[..n].iter_mut().zip(&parts) {
                        let day = s.day.as_mut().map_or(0.0, DayScale::step);
                        // f32, as the preset's source hands its SINR to the mapping.
                        *x = p.sinr(day) as f32;
                    }
                    s.mapping.map(&sinr[..n], &mut drc[..n]);
                    acc.push(&drc[..n], Some(&sinr[..n]));
                }
                left -= n as u64;
            }
            for (o, acc) in out.iter_mut().zip(accs) {
                o.push(acc.finish());
            }
            now = first + len;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::presets::HOUR_SLOTS;

    fn json(v: &[Stats]) -> String {
        serde_json::to_string(v).unwrap()
    }

    /// Each day scale's windows are, bit for bit, those of the preset with
    /// that `day_sd_db` on its own: windows days apart, back to back (the
    /// terminal's estimate starts again at each), longer than a block and
    /// shorter; under the default day correlation and a week's.
    #[test]
    fn each_day_scale_is_its_own_preset() {
        let day = 24 * HOUR_SLOTS as u64;
        let at = [(0, 5_000), (5_000, 9_000), (3 * day, 4_096), (3 * day + 4_096, 1), (9 * day + 7, 20_000)];
        let cfg = StatsConfig { max_order: 2, max_lag: 3 };
        for (spec, seed) in [("location1", 4), ("location3:day_corr_days=7", 9), ("stationary:day_sd_db=5", 2)] {
            let sds = [0.0, 2.0, 6.0, 0.5];
            let shared = DayScales::new(spec, seed, &sds).unwrap().stats_at(&at, &cfg);
            assert_eq!(shared.len(), sds.len());
            for (sd, got) in sds.iter().zip(&shared) {
                let sep = if spec.contains(':') { ',' } else { ':' };
                let alone = format!("{spec}{sep}day_sd_db={sd}");
                let want = crate::channel::stats_at(presets::source(&alone, seed).unwrap().as_mut(), &at, &cfg);
                assert_eq!(json(got), json(&want), "{alone}");
            }
            // The day scales do move the means (the test compares something).
            assert_ne!(json(&shared[0]), json(&shared[2]));
        }
    }

    #[test]
    fn what_has_no_day_scale_is_refused() {
        let err = |spec: &str, sds: &[f64]| DayScales::new(spec, 1, sds).err().unwrap();
        assert!(err("mobile", &[1.0]).contains("no regime"));
        assert!(err("nowhere", &[1.0]).contains("no preset 'nowhere'"));
        assert!(err("location1", &[0.0, -1.0]).starts_with("day_sd_db[1]: "));
        assert!(err("location1", &[f64::NAN]).contains("a finite number of at least 0"));
        assert!(err("location1", &[f64::INFINITY]).contains("a finite number of at least 0"));
        assert!(err("location1:day_sd_db=x", &[1.0]).contains("day_sd_db needs a finite number"));
        assert!(err("location1", &[]).contains("1 to 16 day scales, got 0"));
        assert!(err("location1", &[1.0; 17]).contains("1 to 16 day scales, got 17"));
    }
}
