//! Run a scenario file and print the summary JSON (for quick looks).
use cdmasim_core::scenario::{parse_form, Form};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: run_scenario FILE.toml [SEED] | SPEC.json [SEED]");
    let seed = args.next().map(|s| s.parse::<u64>().expect("SEED: a whole number"));
    // A .json file is a spec that parsing made (`cdmasim.simulate.
    // scenario_text(cdmasim.parse(doc)).text`), as a sweep hands each run
    // to the core with the run's seed.
    let form = if path.ends_with(".json") { Form::Spec } else { Form::Toml };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let spec = parse_form(&text, &path, form, seed).unwrap_or_else(|e| panic!("{e}"));
    let t = std::time::Instant::now();
    let mut r = cdmasim_core::sim::run(&spec, Default::default()).unwrap();
    eprintln!("wall {:.3}s events {}", t.elapsed().as_secs_f64(), r.events);
    if std::env::var_os("KEEP_SERIES").is_none() {
        r.series.clear();
    }
    r.drops.clear();
    println!("{}", serde_json::to_string(&r).unwrap());
}
