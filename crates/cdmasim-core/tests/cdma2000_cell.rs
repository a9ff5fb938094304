//! The cdma2000 1X cell as a hop (Paliwal et al. §II, §IV): it must equal
//! the point-to-point links it replaces, measure dead periods exactly as
//! §IV-E defines them, allocate SCHs as its plan says, and account for every
//! packet. Every run here is made twice: same scenario and seed, same result.

mod common;
use common::assert_conserved;
use cdmasim_core::scenario::parse_str;
use cdmasim_core::sim::{self, RunOptions, RunResult};

fn run(text: &str) -> RunResult {
    let spec = parse_str(text, "t.toml").unwrap_or_else(|e| panic!("{e}"));
    let r = sim::run(&spec, RunOptions::default()).unwrap();
    assert_eq!(r, sim::run(&spec, RunOptions::default()).unwrap(), "not deterministic");
    assert_conserved(&r);
    r
}

const NS: f64 = 1e9;

/// A server, a wired link to the BSC node, and one bulk Reno flow to the
/// mobile `ms` (a node either way).
const HEAD: &str = r#"
[simulation]
duration = "60s"
seed = 3
[[node]]
name = "server"
[[node]]
name = "bsc"
[[link]]
name = "wired"
from = "server"
to = "bsc"
rate = "100Mbps"
delay = "37.5ms"
[[flow]]
name = "ftp"
from = "server"
to = "ms"
tcp = { cc = "reno", mss = "960B", rcv_buffer = "30720B", initial_window = 1 }
"#;

/// One mobile behind a cell, or the same stages as plain links through a
/// BTS node; the SCH (if any) arrives at 20 s either way.
fn one_mobile(cell: bool, sch: bool) -> RunResult {
    let radio = if cell {
        format!(
            r#"
[[cell]]
name = "c"
node = "bsc"
bsc_rate = "38.4kbps"
bsc_queue = {{ kind = "droptail", limit = "5kB" }}
{}
[[mobile]]
name = "ms"
cell = "c"
"#,
            if sch { r#"sch = { kind = "at", at = "20s", rate = "16x" }"# } else { "" }
        )
    } else {
        format!(
            r#"
[[node]]
name = "bts"
[[node]]
name = "ms"
[[link]]
name = "bsc-bts"
from = "bsc"
to = "bts"
rate = "38.4kbps"
delay = "37.5ms"
duplex = false
queue = {{ kind = "droptail", limit = "5kB" }}
[[link]]
name = "bts-ms"
from = "bts"
to = "ms"
duplex = false
delay = "37.5ms"
queue = {{ kind = "droptail", limit = "unlimited" }}
{}
[[link]]
name = "ms.up"
from = "ms"
to = "bsc"
rate = "9.6kbps"
delay = "75ms"
duplex = false
queue = {{ kind = "droptail", limit = "unlimited" }}
"#,
            if sch { r#"rate_schedule = [{ at = "0s", rate = "9.6kbps" }, { at = "20s", rate = "163.2kbps" }]"# } else { r#"rate = "9.6kbps""# }
        )
    };
    run(&format!("{HEAD}{radio}"))
}

#[test]
fn one_mobile_equals_the_links_it_replaces() {
    for sch in [false, true] {
        let (c, l) = (one_mobile(true, sch), one_mobile(false, sch));
        assert_eq!(c.flows, l.flows, "sch = {sch}: every flow figure the same");
        assert_eq!(c.conservation, l.conservation, "sch = {sch}");
        let drops = |r: &RunResult| r.drops.iter().map(|d| (d.t_s, d.seq, d.reason.clone())).collect::<Vec<_>>();
        assert_eq!(drops(&c), drops(&l), "sch = {sch}: the same drops at the same times");
        assert!(c.flows[0].bytes_delivered > 30_000);
        if sch {
            assert!(!c.drops.is_empty(), "the switch to 163.2 kb/s overflows the 5 kB shared buffer");
            assert_eq!(c.hops.mobiles[0].sch_grants, 1);
            assert!((c.hops.mobiles[0].sch_s - 40.0).abs() < 1e-9);
        }
    }
}

/// Two mobiles fed by CBR streams of 1000-byte IP packets every 2 s; the
/// dead periods must be the complement of the union of the links' busy
/// times computed by hand: the shared buffer 0.1 s per packet (80 kb/s),
/// 50 ms to the BTS (dead: nothing is queued), then the radio link.
#[test]
fn dead_periods_match_a_hand_computed_timeline() {
    let text = r#"
[simulation]
duration = "10s"
[[node]]
name = "server"
[[node]]
name = "bsc"
[[link]]
name = "wired"
from = "server"
to = "bsc"
rate = "100Mbps"
delay = "10ms"
[[cell]]
name = "c"
node = "bsc"
bsc_rate = "80kbps"
bts_delay = "50ms"
radio_delay = "20ms"
sch = { kind = "file", path = "SCHFILE" }
[[mobile]]
name = "ms1"
cell = "c"
[[mobile]]
name = "ms2"
cell = "c"
bts = 2
[[flow]]
name = "a"
kind = "cbr"
from = "server"
to = "ms1"
start = "1s"
stop = "6.9s"
packet_size = "972B"
rate = "3888bps"
[[flow]]
name = "b"
kind = "cbr"
from = "server"
to = "ms2"
start = "1.5s"
stop = "6.9s"
packet_size = "972B"
rate = "3888bps"
"#;
    let dir = std::env::temp_dir().join(format!("cdmasim-dead-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // ms2 gets 16X at 3 s (its link idle then), ms1 never.
    std::fs::write(dir.join("sch.csv"), "# time_s,mobile,rate\n3.0,ms2,16x\n").unwrap();
    let path = dir.join("dead.toml");
    let spec = parse_str(&text.replace("SCHFILE", "sch.csv"), path.to_str().unwrap()).unwrap_or_else(|e| panic!("{e}"));
    let r = sim::run(&spec, RunOptions::default()).unwrap();
    // The folder is this test's own: leave nothing behind in the temp dir.
    std::fs::remove_dir_all(&dir).unwrap();
    assert_conserved(&r);
    assert_eq!(r.flows.iter().map(|f| f.packets_received).sum::<u64>(), 6);

    // By hand, in ns: each packet reaches the BSC 80 us (1000 B at 100 Mb/s)
    // + 10 ms after it is sent.
    let ms = 1_000_000u64;
    let tx = |rate: u64| (8000 * 1_000_000_000u64).div_ceil(rate);
    let mut busy: Vec<(u64, u64)> = Vec::new();
    for (sent, radio_rate) in [(1000, 9600), (3000, 9600), (5000, 9600), (1500, 9600), (3500, 163_200), (5500, 163_200)] {
        let a = sent * ms + 80_000 + 10 * ms;
        busy.push((a, a + 100 * ms));
        let b = a + 100 * ms + 50 * ms;
        busy.push((b, b + tx(radio_rate)));
    }
    busy.sort();
    let mut dead = Vec::new();
    let mut t = 0u64;
    for (a, b) in busy {
        if a > t {
            dead.push((t, a));
        }
        t = t.max(b);
    }
    dead.push((t, 10_000 * ms));
    let got: Vec<(f64, f64)> = r.hops.cells[0].dead_periods.0.clone();
    let want: Vec<(f64, f64)> = dead.iter().map(|&(a, b)| (a as f64 / NS, b as f64 / NS)).collect();
    assert_eq!(got.len(), want.len(), "got {got:?}\nwant {want:?}");
    for (g, w) in got.iter().zip(&want) {
        assert!((g.0 - w.0).abs() < 1e-9 && (g.1 - w.1).abs() < 1e-9, "got {g:?} want {w:?}");
    }
    let total: f64 = want.iter().map(|w| w.1 - w.0).sum();
    assert!((r.hops.cells[0].dead_s - total).abs() < 1e-9);
    assert!((r.hops.cells[0].rho_dead - total / 10.0).abs() < 1e-9);
    assert_eq!(r.hops.mobiles[1].sch_grants, 1);
    assert_eq!(r.hops.mobiles[0].sch_grants, 0);
}

/// A packet in transmission when the SCH arrives: exact semantics finish
/// it at the new rate, ns-2's keep the old rate until it is done.
#[test]
fn rate_change_exact_or_from_the_next_packet() {
    let text = |mode: &str| {
        format!(
            r#"
[simulation]
duration = "5s"
[[node]]
name = "server"
[[node]]
name = "bsc"
[[link]]
name = "wired"
from = "server"
to = "bsc"
rate = "100Mbps"
delay = "0s"
[[cell]]
name = "c"
node = "bsc"
bsc_rate = "100Mbps"
bts_delay = "0s"
radio_delay = "0s"
rate_change = "{mode}"
sch = {{ kind = "at", at = "1.5s", rate = "16x" }}
[[mobile]]
name = "ms"
cell = "c"
[[flow]]
name = "a"
kind = "cbr"
from = "server"
to = "ms"
start = "1s"
stop = "1.1s"
packet_size = "972B"
rate = "3888bps"
"#
        )
    };
    let owd = |mode: &str| run(&text(mode)).flows[0].owd_min_s.unwrap();
    // The radio link starts at 1 s + 160 us; by 1.5 s it has sent the whole
    // bits of 0.49984 s at 9.6 kb/s (the link counts whole bits), and the
    // rest go at 163.2 kb/s.
    let wired = 8000.0 / 100e6;
    let bsc = 8000.0 / 100e6;
    let sent = ((1.5 - 1.0 - wired - bsc) * 9600.0_f64).floor();
    let exact = wired + bsc + (1.5 - (1.0 + wired + bsc)) + (8000.0 - sent) / 163_200.0;
    assert!((owd("exact") - exact).abs() < 2e-9, "{} vs {exact}", owd("exact"));
    assert!((owd("next_packet") - (wired + bsc + 8000.0 / 9600.0)).abs() < 2e-9, "{}", owd("next_packet"));
}

/// Paliwal et al.'s worst case, 10 × 10 mobiles switching together at 50 s (§IV-B):
/// the shared buffer drops, the system goes dead after the switch and not
/// before it (apart from the start), and everything is accounted for.
#[test]
fn worst_case_switch_goes_dead_after_the_switch() {
    let r = run(r#"
preset = "cdma2000"
[simulation]
duration = "80s"
[cdma2000]
m = 10
n = 10
bsc_queue = { kind = "red", limit = "300pkt", min_th = "20pkt", max_th = "60pkt", gentle = false, mean_pkt_size = "1000B" }
sch = { kind = "at", at = "50s", rate = "16x" }
"#);
    let c = &r.hops.cells[0];
    assert_eq!(c.mobiles, 100);
    assert_eq!(c.bsc_rate_bps, 3_840_000.0);
    assert_eq!(c.sch_grants, 100);
    let long: Vec<_> = c.dead_periods.iter().filter(|p| p.1 - p.0 > 1.0).collect();
    assert!(!long.is_empty() && long.iter().all(|p| p.0 > 50.0), "{long:?}");
    let before: f64 = c.dead_periods.iter().filter(|p| p.1 < 50.0).map(|p| p.1 - p.0).sum();
    assert!(before < 2.0, "dead {before} s before the switch");
    let bsc_drops: usize = r.drops.iter().filter(|d| d.place == "cell.bsc" && d.t_s >= 50.0).count();
    assert!(bsc_drops > 300, "{bsc_drops} drops at the shared buffer after the switch");
    assert!(r.drops.iter().all(|d| d.place == "cell.bsc"), "only the shared buffer drops");
    assert_eq!(r.hops.mobiles.len(), 100);
}

/// Demand-driven grants: every backlogged mobile gets an SCH, and at no
/// sample does a BTS hold more SCH than its budget.
#[test]
fn demand_grants_stay_within_each_bts_budget() {
    let r = {
        let text = r#"
preset = "cdma2000"
[simulation]
duration = "30s"
sample_interval = "50ms"
[cdma2000]
m = 2
n = 4
sch = { kind = "demand", threshold = "2kB", grant_delay = "100ms", burst = "2s", budget = "153.6kbps" }
"#;
        run(text)
    };
    assert!(r.hops.mobiles.iter().all(|m| m.sch_grants >= 1), "{:?}", r.hops.mobiles);
    assert!(r.hops.mobiles.iter().all(|m| m.sch_s > 0.0 && m.sch_s < 30.0));
    for bts in 1..=2 {
        let names: Vec<String> = r.hops.mobiles.iter().filter(|m| m.bts == bts).map(|m| m.name.clone()).collect();
        let rates: Vec<&Vec<f64>> =
            r.series.iter().filter(|s| s.metric == "rate_bps" && names.contains(&s.subject)).map(|s| &s.value).collect();
        assert_eq!(rates.len(), 4);
        for i in 0..rates[0].len() {
            let sch: f64 = rates.iter().map(|v| v[i] - 9600.0).sum();
            assert!(sch <= 153_600.0 + 1e-6, "BTS {bts} holds {sch} bit/s of SCH at sample {i}");
        }
    }
}

/// An SCH schedule file's errors name the schedule file, its line and the
/// column at fault.
#[test]
fn sch_file_errors_name_the_file_line_and_column() {
    let dir = std::env::temp_dir().join(format!("cdmasim-schfile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = dir.join("s.toml");
    let text = r#"
[simulation]
duration = "10s"
[[node]]
name = "bsc"
[[cell]]
name = "c"
node = "bsc"
sch = { kind = "file", path = "sch.csv" }
[[mobile]]
name = "ms1"
cell = "c"
"#;
    let cases = [
        ("1.0,ms1,16x\n2.0,ms2,16x\n", 2, "mobile"),
        ("# header\n1.0,ms1,32x\n", 2, "rate"),
        ("3.0,ms1,16x\n2.0,ms1,off\n", 2, "time"),
        ("1.0,ms1\n", 1, ""),
        ("12.0,ms1,1x\n", 1, "time"),
    ];
    for (csv, line, field) in cases {
        std::fs::write(dir.join("sch.csv"), csv).unwrap();
        let e = parse_str(text, scenario.to_str().unwrap()).expect_err(csv);
        assert!(e.file.ends_with("sch.csv"), "{e}");
        assert_eq!((e.line, e.field.as_str()), (line, field), "{csv:?}: {e}");
    }
    std::fs::remove_file(dir.join("sch.csv")).unwrap();
    let e = parse_str(text, scenario.to_str().unwrap()).expect_err("missing file");
    std::fs::remove_dir(&dir).unwrap();
    assert_eq!((e.line, e.field.as_str()), (9, "cell[0].sch.path"), "{e}");
}

/// A bursts plan that names no order switches its mobiles in the paper's
/// (§IV-D, E): the same run as `order = "sequential"`, and not the random
/// variant's. Every mobile holds the SCH for T_B of each cycle (T_B = T_D,
/// so its up- and down-switches move by the same offset).
#[test]
fn bursts_switch_in_the_papers_order_unless_told_otherwise() {
    let cell = |order: &str| {
        run(&format!(
            r#"
preset = "cdma2000"
[simulation]
duration = "29s"
[cdma2000]
m = 2
n = 3
sch = {{ kind = "bursts", burst = "2s", gap = "2s", start = "10s", rate = "16x"{order} }}
"#
        ))
    };
    let default = cell("");
    assert_eq!(default, cell(r#", order = "sequential""#));
    assert_ne!(default.hops.mobiles, cell(r#", order = "random""#).hops.mobiles);
    for m in &default.hops.mobiles {
        // Five cycles from 10 s before the end at 29 s: 2 s of SCH each.
        assert_eq!(m.sch_grants, 5, "{m:?}");
        assert!((m.sch_s - 10.0).abs() < 1e-9, "{m:?}");
    }
}
