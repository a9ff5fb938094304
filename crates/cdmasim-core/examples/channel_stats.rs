//! Development aid: draw a channel preset's slots and print the trace's
//! statistics as JSON, for counting the instructions a slot takes
//! (bench/README.md: `valgrind --tool=callgrind
//! target/release/examples/channel_stats location1 2000000`, the slots of
//! liu's day-long location traces) and for comparing two builds' output.
fn main() {
    let mut args = std::env::args().skip(1);
    let (preset, slots) = match (args.next(), args.next().and_then(|n| n.parse::<u64>().ok())) {
        (Some(p), Some(n)) => (p, n),
        _ => {
            eprintln!("usage: channel_stats PRESET SLOTS [SEED]");
            std::process::exit(2);
        }
    };
    let seed = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let Ok(Some(mut src)) = cdmasim_core::channel::presets::source_checked(&preset, seed) else {
        eprintln!("{preset}: not a channel preset");
        std::process::exit(2);
    };
    let cfg = cdmasim_core::channel::stats::StatsConfig { max_order: 1, max_lag: 100 };
    let (whole, _) = cdmasim_core::channel::stats_of_source(src.as_mut(), slots, &[], &cfg);
    println!("{}", serde_json::to_string(&whole).expect("statistics serialise"));
}
