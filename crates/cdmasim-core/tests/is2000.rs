//! The IS-2000 sector of Dziong et al. (preset "is2000"): web users on RLP
//! air links, SCHs granted within power and Walsh codes, idle users going
//! dormant. Checked for accounting, determinism, and that load moves
//! throughput and power the way §5.2 describes.

mod common;
use cdmasim_core::scenario::parse_str;
use cdmasim_core::sim::{self, RunOptions, RunResult};
use common::assert_conserved;

fn run(users: u32, extra: &str) -> RunResult {
    let text = format!("preset = \"is2000\"\n[simulation]\nduration = \"600s\"\nseed = 2\n[is2000]\nusers = {users}\n{extra}\n");
    let spec = parse_str(&text, "t.toml").unwrap_or_else(|e| panic!("{e}"));
    let r = sim::run(&spec, RunOptions::default()).unwrap();
    assert_eq!(r, sim::run(&spec, RunOptions::default()).unwrap(), "not deterministic");
    assert_conserved(&r);
    r
}

fn delivered_kbps(r: &RunResult) -> f64 {
    r.flows.iter().map(|f| f.bytes_delivered).sum::<u64>() as f64 * 8.0 / r.duration_s / 1000.0
}

#[test]
fn load_raises_throughput_and_power_and_dormancy_frees_channels() {
    let (few, many) = (run(6, ""), run(24, ""));
    for r in [&few, &many] {
        let s = &r.is2000[0];
        // 64 Walsh codes: pilot, sync and paging hold 3; FCHs and SCHs the rest.
        assert!(s.codes_max <= 64, "{} codes", s.codes_max);
        // Admission control: FCHs and SCHs never take more than the sector's power.
        assert!(s.power_max <= 1.0 + 1e-9 && s.power_mean < 1.0, "power {} / {}", s.power_mean, s.power_max);
        assert!(s.sch_grants > 0);
        // Users read for 30 s on average between pages: a channel is held
        // (active) for only part of the run.
        let held = s.active_s / (s.users as f64 * r.duration_s);
        assert!(held > 0.05 && held < 0.8, "channels held {held} of the time");
        assert_eq!(r.radio_links.len(), 2 * s.users as usize, "each user's link, both ways");
        // Each user's grants and channel time, on its forward row, add up to the sector's.
        let down: Vec<_> = r.radio_links.iter().filter(|l| l.direction == "down").collect();
        assert!(down.iter().all(|l| l.sector.as_deref() == Some(s.name.as_str())));
        assert!(r.radio_links.iter().filter(|l| l.direction == "up").all(|l| l.sch_grants.is_none() && l.active_s.is_none()));
        assert_eq!(down.iter().map(|l| l.sch_grants.unwrap()).sum::<u64>(), s.sch_grants);
        let active: f64 = down.iter().map(|l| l.active_s.unwrap()).sum();
        assert!((active - s.active_s).abs() < 1e-6, "{active} vs {}", s.active_s);
        assert!(down.iter().filter(|l| l.sch_grants.unwrap() > 0).count() > 1, "grants spread over users");
        assert!(r.pages.iter().filter(|p| p.finish_s.is_some()).count() as u64 >= s.users);
    }
    let (a, b) = (&few.is2000[0], &many.is2000[0]);
    assert!(delivered_kbps(&many) > 2.0 * delivered_kbps(&few), "{} vs {}", delivered_kbps(&many), delivered_kbps(&few));
    assert!(b.power_mean > a.power_mean && a.power_mean >= 0.2, "power {} vs {}", b.power_mean, a.power_mean);
}

#[test]
fn without_errors_nothing_is_retransmitted_and_a_smaller_budget_grants_less() {
    let r = run(8, "fer = 0.0\nfading = \"iid\"");
    assert!(r.radio_links.iter().all(|l| l.frames_lost == 0 && l.frames_retransmitted == 0 && l.packets_aborted == 0));
    // A cell-edge-heavy power model (16X needs more than the budget almost
    // everywhere) grants lower rates: less throughput for the same pages.
    let tight = run(8, "fer = 0.0\nfading = \"iid\"\npower = { p_edge = 0.5 }");
    let page = |r: &RunResult| {
        let d: Vec<f64> = r.pages.iter().filter_map(|p| p.delay_s).collect();
        d.iter().sum::<f64>() / d.len() as f64
    };
    assert!(page(&tight) > page(&r), "pages {} s with a tight budget vs {} s", page(&tight), page(&r));
}
