//! Seed 000 §7.3 and §7.4 on a testbed-like path: a server 19 ms from the
//! base station, a 1xEV-DO forward link whose rate follows a DRC sequence
//! (the `mobile` preset, slot by slot), a 64 KB per-user buffer in front of
//! it, 1 ms to the laptop: 40 ms minimum RTT. The reverse link is Rev. 0's
//! 153.6 kb/s peak.
//!
//! Why `mobile`: over the `stationary` preset (rate changes every few hundred
//! slots, std below 400 kb/s) Vegas tracks the rate and used 0.96 of it, as
//! much as the loss-based variants; its shortfall in the paper needs a rate
//! that swings widely within a round trip, where the transmission time of
//! a packet at a low DRC rate reads to Vegas as queueing.
//!
//! §7.3: alone on the channel, Reno, Westwood+ and Cubic use more than 80 %
//! of the mean DRC rate (the paper's testbed: 0.86, 0.85, 0.89), Vegas
//! clearly less (0.75); Cubic builds the largest queue and delay, Vegas the
//! smallest. §7.4 (Fig. 11): a 9.6 kb/s stream sharing the per-user buffer
//! with one bulk download sees its delay ordered Vegas < Westwood+ < Reno <
//! Cubic; Vegas's download is far slower, while the three loss-based
//! variants all fill the link and differ by only a few percent (the paper
//! orders them too; why this model does not, see the §7.4 test).

mod common;
use cdmasim_core::channel::{self, link_rate, presets};
use cdmasim_core::scenario::*;
use cdmasim_core::sim::RunResult;
use common::*;

const DURATION_S: f64 = 120.0;
/// Each figure is the mean over these channel seeds (independent mobile
/// DRC sequences), as the paper averages repeated downloads.
const SEEDS: [u64; 5] = [11, 12, 13, 14, 15];

/// The DRC schedule and its time-average rate (bit/s).
fn drc_schedule(seed: u64) -> (Vec<(u64, u64)>, f64) {
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
    net.spec.link_mut(fwd).rate_schedule = sched;
    net.link(laptop, bs, 153_600, ms(1.0), droptail_pkts(1000));
    let tcp = TcpSpec { cc, sack: true, timestamps: true, min_rto: ms(200.0), rcv_buffer: 1 << 20, ..Default::default() };
    net.bulk("download", server, laptop, 0, None, tcp);
    if voip {
        // 9.6 kb/s as 20 ms frames of 24 bytes (payload; UDP/IP headers added).
        net.cbr("stream", server, laptop, 0, 24, 9_600);
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
        let q = r.queues.iter().find(|q| q.link == "bs-laptop").unwrap();
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

/// Seed 000's four variants, each as Linux runs it: SACK and timestamps on.
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
    let lowest = ["reno", "westwood", "cubic"].iter().map(|n| by_name(&out, n).utilisation).fold(1.0, f64::min);
    let vegas = by_name(&out, "vegas");
    assert!(vegas.utilisation < lowest - 0.15, "Vegas {:.3} vs {lowest:.3}", vegas.utilisation);
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
    // Fig. 11: stream delay Vegas < Westwood+ < Reno < Cubic.
    let order = ["vegas", "westwood", "reno", "cubic"];
    for w in order.windows(2) {
        let (a, b) = (by_name(&out, w[0]), by_name(&out, w[1]));
        assert!(a.stream_delay_ms < b.stream_delay_ms, "stream delay {} {:.1} ms vs {} {:.1} ms", a.name, a.stream_delay_ms, b.name, b.stream_delay_ms);
    }
    // The download's throughput: Vegas pays for the short queue with far
    // less throughput, as in Fig. 11. The paper also orders the loss-based
    // three (Westwood+ about 90 % of Cubic); here the 64 KB buffer (43
    // packets against a pipe of ~4) keeps the link busy for all three, so
    // they reach the same throughput within a few percent, and what
    // separates them is only the retransmissions Cubic's larger queue
    // causes (measured: Reno 1118, Cubic 1108, Westwood+ 1098 kb/s). The
    // paper's spread needs idle link time after losses, which only
    // timeouts give on this path. Asserted: each of the three at least
    // 1.5 × Vegas, and all three within 5 % of each other.
    let vegas = by_name(&out, "vegas").goodput;
    let loss_based: Vec<f64> = ["westwood", "reno", "cubic"].iter().map(|n| by_name(&out, n).goodput).collect();
    for g in &loss_based {
        assert!(*g > 1.5 * vegas, "download {g:.0} vs Vegas {vegas:.0}");
    }
    let (lo, hi) = loss_based.iter().fold((f64::MAX, 0f64), |(l, h), g| (l.min(*g), h.max(*g)));
    assert!(hi / lo < 1.05, "loss-based variants {lo:.0}..{hi:.0}");
}
