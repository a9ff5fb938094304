//! Synthetic channel presets calibrated to seed 000 section 5.
//!
//! Both are a `FadingSinr` process behind the adaptive `SinrMapper`, with
//! per-seed parameters, so co-located users drawn with different seeds have
//! different statistics (section 5.1.3: laptops 50 cm apart differ in mean
//! DRC and modal fraction).
//!
//! - `stationary`: a fixed mean SINR (drawn per seed) with slow shadowing and
//!   slow fading of under a dB, no Rayleigh component (a laptop on a desk sees
//!   small Doppler). Targets: modal fraction > 40 %, entropy < 1 bit, mean
//!   sojourn of hundreds of slots, std < 400 kb/s, mean 1-3 Mb/s.
//! - `mobile`: cell-crossing geometry (hand-off every 20-30 s), 4 dB
//!   shadowing and Rayleigh fading. Targets: modal fraction < 20 %, entropy
//!   > 2 bits, sojourn of tens of slots, std > 600 kb/s, mean near 1 Mb/s.
//!
//! The calibration is checked for ten seeds each in the tests below and in
//! tests/test_channel_presets.py.

use super::fading::{CellPath, FadingConfig, FadingSinr};
use super::sinr_mapper::{MapperConfig, SinrMapper, Thresholds};
use super::ChannelSource;
use crate::engine::RngStreams;

pub const PRESETS: &[&str] = &["stationary", "mobile"];

/// Slots in 20 and 30 s: the range of the time between hand-offs (section 6).
pub const DWELL_SLOTS: (u64, u64) = (12_000, 18_000);

pub fn fading_config(name: &str, seed: u64) -> Option<(FadingConfig, MapperConfig)> {
    let mut r = RngStreams::new(seed).stream(&format!("preset/{name}/params"));
    let mut u = |lo: f64, hi: f64| lo + (hi - lo) * r.uniform();
    match name {
        "stationary" => Some((
            FadingConfig {
                // The mean sits near the middle of one DRC's SINR bin: a
                // dominant state (section 5.1.2) at 1843.2 or 2457.6 kb/s.
                mean_db: STAT_BIN_CENTRES_DB[(u(0.0, 1.0) < 0.5) as usize] + u(-0.6, 0.6),
                path: None,
                shadow_sd_db: u(0.3, 0.5),
                shadow_corr_slots: 30_000.0,
                slow_sd_db: u(0.6, 0.8),
                slow_corr_slots: u(300.0, 600.0),
                rayleigh_corr_slots: None,
            },
            MapperConfig { estimate_weight: 0.05, step_up_db: 0.1, ..Default::default() },
        )),
        "mobile" => Some((
            FadingConfig {
                mean_db: 0.0,
                path: Some(CellPath {
                    edge_db: u(-7.0, -5.0),
                    peak_db: u(8.0, 10.0),
                    dwell_min_slots: DWELL_SLOTS.0,
                    dwell_max_slots: DWELL_SLOTS.1,
                }),
                shadow_sd_db: 3.0,
                shadow_corr_slots: 3000.0,
                slow_sd_db: u(1.5, 2.0),
                slow_corr_slots: u(30.0, 50.0),
                rayleigh_corr_slots: None,
            },
            MapperConfig { estimate_weight: 0.05, step_up_db: 0.25, ..Default::default() },
        )),
        _ => None,
    }
}

/// Centres of the 1843.2 and 2457.6 kb/s bins of the default thresholds (dB).
const STAT_BIN_CENTRES_DB: [f64; 2] = [8.25, 10.75];

/// The preset's source for one seed (one user).
pub fn source(name: &str, seed: u64) -> Option<Box<dyn ChannelSource>> {
    let (fc, mc) = fading_config(name, seed)?;
    let st = RngStreams::new(seed);
    let f = FadingSinr::new(fc, st.stream(&format!("preset/{name}/fading")), st.stream(&format!("preset/{name}/dwell")));
    Some(Box::new(SinrMapper::new(f, mc, Thresholds::default(), st.stream(&format!("preset/{name}/mapper")))))
}

/// Seed of user `k` of a multi-user study: independent streams per user.
pub fn user_seed(seed: u64, k: usize) -> u64 {
    RngStreams::new(seed).stream(&format!("user/{k}")).next_u64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::{collect, stats};

    #[test]
    fn presets_land_in_the_section_5_ranges() {
        let cfg = stats::StatsConfig { max_order: 1, max_lag: 1 };
        for seed in 0..10 {
            let t = collect(source("stationary", seed).unwrap().as_mut(), 360_000);
            let s = stats::compute(&t.drc, None, &cfg);
            assert!(s.modal_fraction > 0.4, "seed {seed}: {s:?}");
            assert!(s.entropy_bits < 1.0, "seed {seed}: {s:?}");
            assert!(s.mean_sojourn_slots >= 100.0, "seed {seed}: {s:?}");
            assert!(s.std_bps < 400e3, "seed {seed}: {s:?}");
            assert!(s.mean_bps > 1e6 && s.mean_bps < 3e6, "seed {seed}: {s:?}");
            let t = collect(source("mobile", seed).unwrap().as_mut(), 360_000);
            let s = stats::compute(&t.drc, None, &cfg);
            assert!(s.modal_fraction < 0.2, "seed {seed}: {s:?}");
            assert!(s.entropy_bits > 2.0, "seed {seed}: {s:?}");
            assert!(s.mean_sojourn_slots >= 10.0 && s.mean_sojourn_slots < 100.0, "seed {seed}: {s:?}");
            assert!(s.std_bps > 600e3, "seed {seed}: {s:?}");
            assert!(s.mean_bps > 0.7e6 && s.mean_bps < 1.4e6, "seed {seed}: {s:?}");
            let gaps: Vec<u64> = t.handoffs.windows(2).map(|w| w[1] - w[0]).collect();
            assert!(gaps.iter().all(|g| (DWELL_SLOTS.0..=DWELL_SLOTS.1).contains(g)));
        }
    }
}
