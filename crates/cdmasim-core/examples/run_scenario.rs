//! Run a scenario file and print the summary JSON (for quick looks).
fn main() {
    let path = std::env::args().nth(1).expect("usage: run_scenario FILE.toml | SPEC.json");
    // A .json file is a validated spec as the Python side hands it to the
    // core (a sweep's runs: `cdmasim.simulate.scenario_text`), seed included.
    let spec = if path.ends_with(".json") {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
    } else {
        cdmasim_core::scenario::load(&path).unwrap_or_else(|e| panic!("{e}"))
    };
    let t = std::time::Instant::now();
    let mut r = cdmasim_core::sim::run(&spec, Default::default()).unwrap();
    eprintln!("wall {:.3}s events {}", t.elapsed().as_secs_f64(), r.events);
    if std::env::var_os("KEEP_SERIES").is_none() {
        r.series.clear();
    }
    r.drops.clear();
    println!("{}", serde_json::to_string(&r).unwrap());
}
