//! `drc` links: the schedule built from a preset or a trace, the seed rules,
//! the reverse rate, and errors that name file, line and field.

use super::*;
use crate::engine::time::secs;
use crate::engine::Time;
use crate::net::link::RateChanges;
use crate::channel::{collect, link_rate, presets, stats};
use crate::engine::{RngStreams, NS_PER_MS, NS_PER_SEC};

const TESTBED: &str = include_str!("../../../../examples/evdo_testbed.toml");

/// Nodes a, b and one `[[link]]` a→b (on line 8) whose extra keys are `keys`
/// (line 13 on).
fn scenario(seed: u64, keys: &str) -> String {
    format!(
        "[simulation]\nduration = \"10s\"\nseed = {seed}\n[[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n\
         [[link]]\nname = \"l\"\nfrom = \"a\"\nto = \"b\"\ndelay = \"1ms\"\n{keys}"
    )
}

/// The rate steps the world will draw from a DRC link's channel.
fn steps(s: &ScenarioSpec, l: &LinkSpec) -> Vec<(Time, u64)> {
    let RateChanges::Channel(drc) = &l.rate_changes else { panic!("not a DRC link: {:?}", l.rate_changes) };
    let src = drc.open(&RngStreams::new(s.seed)).unwrap();
    link_rate::RateSteps::new(src, s.duration).collect()
}

fn ok(text: &str) -> ScenarioSpec {
    parse_str(text, "t.toml").unwrap_or_else(|e| panic!("{e}"))
}

fn err(text: &str, file: &str) -> ScenarioError {
    parse_str(text, file).expect_err("scenario should be rejected")
}

/// Time-average rate of a schedule over [0, until): its integral / until.
fn mean_rate(steps: &[(Time, u64)], until: Time) -> f64 {
    let mut bits = 0.0;
    for (i, &(t, r)) in steps.iter().enumerate() {
        let end = steps.get(i + 1).map_or(until, |s| s.0).min(until);
        bits += r as f64 * secs(end - t);
    }
    bits / secs(until)
}

/// A scratch folder of this test process.
fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("cdmasim-drc-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn a_preset_link_has_the_mean_rate_of_its_drc_sequence() {
    for preset in presets::PRESETS {
        let s = ok(&scenario(3, &format!("drc = {{ preset = \"{preset}\", seed = 11 }}\n")));
        let fwd = &s.links()[0];
        // The spec holds the description; the steps are drawn by the world.
        assert!(matches!(fwd.rate_changes, RateChanges::Channel(_)));
        let fwd_steps = steps(&s, fwd);
        // Slot 0 starts the schedule and gives the rate at time 0.
        assert_eq!(fwd_steps[0].0, Time::ZERO);
        // 10 s = 6000 slots, drawn from the preset with seed 11.
        let drc = collect(presets::source(preset, 11).unwrap().as_mut(), 6000).drc;
        assert_eq!(fwd_steps, link_rate::rate_schedule(&drc, 10 * NS_PER_SEC));
        let want = stats::compute(&drc, None, &stats::StatsConfig { max_order: 1, max_lag: 1 }).mean_bps;
        // Slot boundaries are rounded down to whole ns (1666666 or 1666667 ns
        // for 1/600 s), so a slot's weight is off by at most 1 ns in 1.67 ms:
        // the time average and the per-slot mean differ by < 1e-6 relatively.
        let got = mean_rate(&fwd_steps, s.duration);
        assert!((got - want).abs() <= 1e-6 * want, "{preset}: schedule mean {got} vs DRC mean {want}");
        // The section 5 calibration ranges (channel::presets) hold for it too.
        assert!(want > 0.7e6 && want < 3e6, "{preset}: {want}");
        // The reverse link is constant at the EV-DO Rev. 0 peak by default.
        let rev = &s.links()[1];
        assert_eq!((rev.name.as_str(), rev.rate_bps), ("l/rev", 153_600));
        assert_eq!(rev.rate_changes, RateChanges::None);
    }
}

#[test]
fn a_preset_seed_defaults_to_the_scenario_seed_and_follows_the_override() {
    let sched = |s: &ScenarioSpec| steps(s, s.links()[0]);
    let implicit = ok(&scenario(7, "drc = { preset = \"mobile\" }\n"));
    let explicit = ok(&scenario(99, "drc = { preset = \"mobile\", seed = 7 }\n"));
    assert_eq!(sched(&implicit), sched(&explicit));
    let other = ok(&scenario(8, "drc = { preset = \"mobile\" }\n"));
    assert_ne!(sched(&implicit), sched(&other));
    // `--seed 8` acts like `seed = 8` in the file, for the channel as well.
    let overridden = parse_str_seeded(&scenario(7, "drc = { preset = \"mobile\" }\n"), "t.toml", Some(8)).unwrap();
    assert_eq!(overridden.seed, 8);
    assert_eq!(sched(&overridden), sched(&other));
    // An explicit seed is not overridden.
    let pinned = parse_str_seeded(&scenario(1, "drc = { preset = \"mobile\", seed = 7 }\n"), "t.toml", Some(8)).unwrap();
    assert_eq!(sched(&pinned), sched(&implicit));
}

#[test]
fn a_trace_is_read_next_to_the_scenario_and_loops() {
    let dir = scratch("loop");
    // DRC 1 (38.4 kb/s) twice, then DRC 12 (2457.6 kb/s) as a rate.
    std::fs::write(dir.join("short.txt"), "# drc\n1\n1\n2457.6kbps\n").unwrap();
    let file = dir.join("s.toml").to_string_lossy().into_owned();
    let s = parse_str(&scenario(1, "drc = { trace = \"short.txt\" }\nreverse_rate = \"76.8kbps\"\n"), &file).unwrap();
    let fwd = &s.links()[0];
    assert_eq!(steps(&s, fwd), link_rate::rate_schedule(&[1, 1, 12], 10 * NS_PER_SEC));
    // 6000 slots of a 3-slot loop: 4000 at 38.4 kb/s and 2000 at 2457.6 kb/s.
    let want = (4000.0 * 38_400.0 + 2000.0 * 2_457_600.0) / 6000.0;
    assert!((mean_rate(&steps(&s, fwd), s.duration) - want).abs() <= 1e-6 * want);
    assert_eq!(s.links()[1].rate_bps, 76_800);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn drc_replaces_rate_and_rate_schedule() {
    let e = err(&scenario(1, "rate = \"1Mbps\"\ndrc = { preset = \"stationary\" }\n"), "t.toml");
    assert_eq!((e.line, e.field.as_str()), (13, "link[0].rate"), "{e}");
    assert!(e.message.contains("cannot be combined with drc"), "{e}");
    let e = err(&scenario(1, "drc = { preset = \"stationary\" }\nrate_schedule = [{at = \"0s\", rate = \"1Mbps\"}]\n"), "t.toml");
    assert_eq!((e.line, e.field.as_str()), (14, "link[0].rate_schedule"), "{e}");
    // Without any of the three, the rate is missing.
    let e = err(&scenario(1, ""), "t.toml");
    assert_eq!((e.line, e.field.as_str()), (8, "link[0].rate"), "{e}");
    assert!(e.message.contains("drc"), "{e}");
}

/// A preset with a day scale after its name is the preset's source with it,
/// in a scenario as in `channel.stats_at`.
#[test]
fn a_preset_takes_its_settings_after_a_colon() {
    let s = ok(&scenario(3, "drc = { preset = \"location1:day_sd_db=4\", seed = 5 }\n"));
    let drc = collect(presets::source("location1:day_sd_db=4", 5).unwrap().as_mut(), 6000).drc;
    assert_eq!(steps(&s, &s.links()[0]), link_rate::rate_schedule(&drc, 10 * NS_PER_SEC));
    let plain = collect(presets::source("location1", 5).unwrap().as_mut(), 6000).drc;
    assert_ne!(drc, plain, "the day scale moves the mean");
}

#[test]
fn drc_errors_name_file_line_and_field() {
    let cases: &[(&str, &str, &str)] = &[
        ("drc = { preset = \"parked\" }\n", "link[0].drc.preset", "unknown DRC preset 'parked' (known: stationary, mobile, location1, location2, location3)"),
        ("drc = { preset = \"location1:day_sd_db=x\" }\n", "link[0].drc.preset", "day_sd_db needs a finite number"),
        ("drc = { preset = \"mobile:day_sd_db=2\" }\n", "link[0].drc.preset", "no regime"),
        ("drc = { preset = \"mobile\", seed = -3 }\n", "link[0].drc.seed", "must not be negative"),
        ("drc = { preset = \"mobile\", seed = \"7\" }\n", "link[0].drc.seed", "expected a plain integer"),
        ("drc = { preset = \"mobile\", format = \"text\" }\n", "link[0].drc.format", "for trace files"),
        ("drc = { trace = \"x.txt\", seed = 2 }\n", "link[0].drc.seed", "played as recorded"),
        ("drc = { trace = \"x.txt\", format = \"csv\" }\n", "link[0].drc.format", "unknown trace format 'csv'"),
        ("drc = { trace = \"x.up\", window = \"12ms\" }\n", "link[0].drc.window", "multiple of 5ms"),
        ("drc = { trace = \"x.txt\", preset = \"mobile\" }\n", "link[0].drc.preset", "either preset or trace"),
        ("drc = {}\n", "link[0].drc", "needs preset"),
        ("drc = \"stationary\"\n", "link[0].drc", "expected a table"),
        ("drc = { preset = \"mobile\", colour = 1 }\n", "link[0].drc.colour", "unknown key"),
        ("drc = { preset = \"mobile\" }\nreverse_rate = \"0bps\"\n", "link[0].reverse_rate", "must be positive"),
        ("rate = \"1Mbps\"\nduplex = false\nreverse_rate = \"1Mbps\"\n", "link[0].reverse_rate", "needs duplex = true"),
    ];
    for (keys, field, msg) in cases {
        let e = err(&scenario(1, keys), "t.toml");
        assert_eq!(e.field, *field, "{keys}: {e}");
        assert!(e.message.contains(msg), "{keys}: {e}");
        // The line of `keys` that sets the link key the field belongs to.
        let key = field.trim_start_matches("link[0].").split('.').next().unwrap();
        let at = keys.lines().position(|l| l.starts_with(&format!("{key} ="))).unwrap();
        assert_eq!(e.line, 13 + at, "{keys}: {e}");
        assert!(e.to_string().starts_with(&format!("t.toml:{}: {field}: ", e.line)), "{e}");
    }
}

#[test]
fn trace_errors_surface_at_the_trace_key() {
    let dir = scratch("errors");
    let file = dir.join("s.toml").to_string_lossy().into_owned();
    // A missing file: the message names the path it looked for.
    let e = err(&scenario(1, "drc = { trace = \"nowhere.txt\" }\n"), &file);
    assert_eq!((e.file.as_str(), e.line, e.field.as_str()), (file.as_str(), 13, "link[0].drc.trace"), "{e}");
    assert!(e.message.contains(&dir.join("nowhere.txt").to_string_lossy().into_owned()), "{e}");
    // A bad line inside the trace: its own file and line are in the message.
    std::fs::write(dir.join("bad.txt"), "1\n2\n99\n").unwrap();
    let e = err(&scenario(1, "drc = { trace = \"bad.txt\" }\n"), &file);
    assert_eq!(e.field, "link[0].drc.trace");
    assert!(e.message.contains("bad.txt:3"), "{e}");
    // A window for a trace that is not Mahimahi.
    std::fs::write(dir.join("ok.txt"), "3\n").unwrap();
    let e = err(&scenario(1, "drc = { trace = \"ok.txt\", window = \"100ms\" }\n"), &file);
    assert_eq!(e.field, "link[0].drc.window", "{e}");
    // A sequence that never sends: rejected like a zero rate.
    std::fs::write(dir.join("null.txt"), "0\n0\n").unwrap();
    let e = err(&scenario(1, "drc = { trace = \"null.txt\" }\n"), &file);
    assert_eq!(e.field, "link[0].drc.trace");
    assert!(e.message.contains("never carry"), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_constant_link_may_have_its_own_reverse_rate() {
    let s = ok(&scenario(1, "rate = \"2Mbps\"\nreverse_rate = \"64kbps\"\n"));
    assert_eq!((s.links()[0].rate_bps, s.links()[1].rate_bps), (2_000_000, 64_000));
    let s = ok(&scenario(1, "rate = \"2Mbps\"\n"));
    assert_eq!(s.links()[1].rate_bps, 2_000_000);
}

const DUMBBELL: &str = "preset = \"dumbbell\"\n[simulation]\nduration = \"5s\"\nseed = 4\n[dumbbell]\nflows = 2\nbottleneck_delay = \"10ms\"\n";

#[test]
fn the_dumbbell_bottleneck_can_follow_a_drc_sequence() {
    let s = ok(&format!("{DUMBBELL}bottleneck_drc = {{ preset = \"stationary\" }}\n"));
    let b = s.links().into_iter().find(|l| l.name == "r1-r2").unwrap();
    let drc = collect(presets::source("stationary", 4).unwrap().as_mut(), 3000).drc;
    assert_eq!(steps(&s, b), link_rate::rate_schedule(&drc, 5 * NS_PER_SEC));
    let rev = s.links().into_iter().find(|l| l.name == "r1-r2/rev").unwrap();
    assert_eq!(rev.rate_bps, 153_600);
    // Access links are untouched.
    assert!(s.links().iter().filter(|l| !l.name.starts_with("r1-r2")).all(|l| l.rate_bps == 100_000_000 && l.rate_changes == RateChanges::None));
    let s = ok(&format!("{DUMBBELL}bottleneck_drc = {{ preset = \"stationary\" }}\nbottleneck_reverse_rate = \"1.8Mbps\"\n"));
    assert_eq!(s.links().into_iter().find(|l| l.name == "r1-r2/rev").unwrap().rate_bps, 1_800_000);

    let e = err(&format!("{DUMBBELL}bottleneck_rate = \"1Mbps\"\nbottleneck_drc = {{ preset = \"mobile\" }}\n"), "d.toml");
    assert_eq!((e.line, e.field.as_str()), (8, "dumbbell.bottleneck_rate"), "{e}");
    let e = err(DUMBBELL, "d.toml");
    assert_eq!((e.line, e.field.as_str()), (5, "dumbbell.bottleneck_rate"), "{e}");
    assert!(e.message.contains("bottleneck_drc"), "{e}");
    let e = err(&format!("{DUMBBELL}bottleneck_drc = {{ preset = \"walking\" }}\n"), "d.toml");
    assert_eq!((e.line, e.field.as_str()), (8, "dumbbell.bottleneck_drc.preset"), "{e}");
}

#[test]
fn evdo_testbed_example_is_liu_et_al_testbed() {
    let s = ok(TESTBED);
    let link = |n: &str| s.links().into_iter().find(|l| l.name == n).unwrap();
    // 19 ms + 1 ms each way: the 40 ms minimum RTT of section 3.
    assert_eq!(link("server-router").delay + link("router-laptop").delay, 20 * NS_PER_MS);
    let air = link("router-laptop");
    assert!(matches!(air.queue, QueueSpec::DropTail { limit: QueueLimit::Bytes(65_536) }));
    let drc = collect(presets::source("stationary", s.seed).unwrap().as_mut(), 36_000).drc;
    assert_eq!(steps(&s, air), link_rate::rate_schedule(&drc, 60 * NS_PER_SEC));
    assert_eq!(link("router-laptop/rev").rate_bps, 153_600);
    // 9.6 kb/s in 24-byte datagrams: one per 20 ms voice frame.
    let voip = s.flows.iter().find(|f| f.name == "voip").unwrap();
    assert!(matches!(voip.app, AppSpec::Cbr { packet_size: 24, rate_bps: 9_600 }));
}
