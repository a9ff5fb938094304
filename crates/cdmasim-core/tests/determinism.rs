//! The same scenario and seed give bit-identical results; another seed does
//! not (random loss and RED draw from the seeded streams).

mod common;
use cdmasim_core::net::queue::red::RedVariant;
use cdmasim_core::scenario::{QueueLimit, QueueSpec, RedSpec, TcpSpec};
use common::*;

fn scenario(seed: u64) -> Net {
    let red = QueueSpec::Red(RedSpec {
        limit: QueueLimit::Packets(60),
        min_th: 5.0,
        max_th: 15.0,
        max_p: 0.1,
        w_q: 0.002,
        gentle: true,
        byte_mode: false,
        mean_pkt_size: 1000,
        variant: RedVariant::Floyd,
    });
    let tcp = TcpSpec { sack: true, timestamps: true, ..Default::default() };
    let mut net = dumbbell(4, 5_000_000, ms(15.0), red, s(20.0), tcp);
    net.spec.seed = seed;
    net.spec.sample_interval = Some(ms(100.0));
    net.spec.link_mut(0).loss = 0.002;
    let (r1, r2) = (NodeId(0), NodeId(1));
    net.cbr("voip", r1, r2, s(1.0), 160, 64_000);
    net
}

#[test]
fn same_seed_same_result_bit_for_bit() {
    let a = scenario(11).run();
    let b = scenario(11).run();
    assert_eq!(a, b);
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    let c = scenario(12).run();
    assert_ne!(a.flows, c.flows, "a different seed should change the losses");
    assert!(a.drops.iter().any(|d| d.reason == "red_early"));
    assert!(a.drops.iter().any(|d| d.reason == "random_loss"));
}

/// Every congestion control and receiver policy, with pacing (BBR), Eifel and
/// a DRC-driven link rate, runs bit-identically twice.
#[test]
fn every_algorithm_is_deterministic() {
    use cdmasim_core::channel::{self, link_rate, presets};
    use cdmasim_core::scenario::{CcAlgo, RbsmqParams, RwndAlgo, SpuriousDetection};
    let algos = [
        CcAlgo::Reno,
        CcAlgo::NewReno,
        CcAlgo::Vegas(Default::default()),
        CcAlgo::Westwood(Default::default()),
        CcAlgo::Cubic(Default::default()),
        CcAlgo::Bbr(Default::default()),
    ];
    let mut src = presets::source("mobile", 3).unwrap();
    let drc = channel::collect(src.as_mut(), 10 * 600).drc;
    let run = |cc: CcAlgo, rwnd: RwndAlgo| {
        let tcp = TcpSpec { cc, rwnd, sack: true, timestamps: true, spurious_detection: SpuriousDetection::Eifel, ..Default::default() };
        let mut net = dumbbell(3, 2_000_000, ms(15.0), droptail_pkts(30), s(10.0), tcp);
        net.spec.link_mut(0).rate_changes = cdmasim_core::net::link::RateChanges::Schedule(link_rate::rate_schedule(&drc, s(10.0)));
        net.spec.link_mut(0).loss = 0.001;
        net.run()
    };
    for cc in algos {
        for rwnd in [RwndAlgo::Fixed, RwndAlgo::Rbsmq(RbsmqParams::default())] {
            let (a, b) = (run(cc, rwnd), run(cc, rwnd));
            assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap(), "{cc:?} {rwnd:?}");
            assert!(a.flows.iter().all(|f| f.bytes_delivered > 0), "{cc:?} {rwnd:?}: every flow moves data");
        }
    }
}

/// A parsed spec holds the scenario's seed and nothing drawn from it (flow
/// start jitter, preset channels, the EV-DO users' channel seeds are drawn
/// when the world is built): parsed once and given another seed, it is the
/// spec parsing with that seed makes, and runs bit for bit as that one.
#[test]
fn a_parsed_spec_runs_under_any_seed_as_if_parsed_with_it() {
    use cdmasim_core::scenario::{parse_form, parse_str, parse_str_seeded, Form};
    use cdmasim_core::sim::{run, RunOptions};
    for name in ["dumbbell", "evdo_sector"] {
        let path = format!("{}/../../examples/{name}.toml", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap().replace("duration = \"60s\"", "duration = \"4s\"");
        let once = serde_json::to_string(&parse_str(&text, &path).unwrap()).unwrap();
        let mut runs = Vec::new();
        for seed in [1, 5] {
            let seeded = parse_str_seeded(&text, &path, Some(seed)).unwrap();
            let reseeded = parse_form(&once, &path, Form::Spec, Some(seed)).unwrap();
            assert_eq!(serde_json::to_string(&seeded).unwrap(), serde_json::to_string(&reseeded).unwrap(), "{name}");
            let (a, b) = (run(&seeded, RunOptions::default()).unwrap(), run(&reseeded, RunOptions::default()).unwrap());
            assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap(), "{name}, seed {seed}");
            runs.push(a);
        }
        assert_ne!(runs[0].flows, runs[1].flows, "{name}: the seed still acts");
    }
}

/// Every example's spec, written as JSON and read back (`Form::Spec`), is
/// the spec it was, to the last bit of every float.
#[test]
fn every_example_spec_reads_back_as_written() {
    use cdmasim_core::scenario::{parse_form, parse_str, Form};
    let dir = format!("{}/../../examples", env!("CARGO_MANIFEST_DIR"));
    let mut seen = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.display().to_string();
        if !name.ends_with(".toml") || text.contains("[sweep]") {
            continue;
        }
        let json = serde_json::to_string(&parse_str(&text, &name).unwrap()).unwrap();
        let back = parse_form(&json, &name, Form::Spec, None).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), json, "{name}");
        seen += 1;
    }
    assert!(seen >= 10, "{seen} examples");
}
