//! Seed 000 §7.3 and §7.4 on a testbed-like path: a server 19 ms from the
//! base station, a 1xEV-DO forward link whose rate follows a DRC sequence
//! (the `stationary` preset, slot by slot), a 64 KB per-user buffer in front
//! of it, 1 ms to the laptop: 40 ms minimum RTT. The reverse link is Rev. 0's
//! 153.6 kb/s peak.
//!
//! §7.3: alone on the channel, Reno, Westwood+ and Cubic use more than 80 %
//! of the mean DRC rate (the paper's testbed: 0.86, 0.85, 0.89), Vegas
//! clearly less (0.75); Cubic builds the largest queue and delay, Vegas the
//! smallest. §7.4 (Fig. 11): a 9.6 kb/s stream sharing the per-user buffer
//! with one bulk download sees its delay ordered Vegas < Westwood+ < Reno <
//! Cubic, while the download's throughput is ordered the other way round.

mod common;
use cdmasim_core::channel::{self, link_rate, presets};
use cdmasim_core::scenario::*;
use cdmasim_core::sim::RunResult;
use common::*;

const DURATION_S: f64 = 120.0;
const SEED: u64 = 11;

/// The DRC schedule and its time-average rate (bit/s).
fn drc_schedule() -> (Vec<(u64, u64)>, f64) {
    let slots = (DURATION_S * 600.0) as u64;
    let mut src = presets::source("stationary", SEED).unwrap();
    let trace = channel::collect(src.as_mut(), slots);
    let mean = trace.drc.iter().map(|&d| cdmasim_core::evdo::drc::RATE_BPS[d as usize] as f64).sum::<f64>() / slots as f64;
    (link_rate::rate_schedule(&trace.drc, s(DURATION_S)), mean)
}

fn testbed(cc: CcAlgo, voip: bool) -> (RunResult, f64) {
    let (sched, mean) = drc_schedule();
    let mut net = Net::new(s(DURATION_S), SEED);
    let server = net.node("server");
    let bs = net.node("bs");
    let laptop = net.node("laptop");
    net.duplex(server, bs, 100_000_000, ms(19.0), droptail_pkts(1000));
    let fwd = net.link(bs, laptop, sched[0].1, ms(1.0), droptail_bytes(64_000));
    net.spec.links[fwd].rate_schedule = sched;
    net.link(laptop, bs, 153_600, ms(1.0), droptail_pkts(1000));
    let tcp = TcpSpec { cc, sack: true, timestamps: true, min_rto: ms(200.0), rcv_buffer: 1 << 20, ..Default::default() };
    net.bulk("download", server, laptop, 0, None, tcp);
    if voip {
        // 9.6 kb/s as 20 ms frames of 24 bytes (payload; UDP/IP headers added).
        net.cbr("stream", server, laptop, 0, 24, 9_600);
    }
    (net.run(), mean)
}

struct Outcome {
    name: &'static str,
    utilisation: f64,
    excess_ms: f64,
    avg_queue_pkts: f64,
    stream_delay_ms: f64,
    goodput: f64,
}

fn outcome(name: &'static str, cc: CcAlgo, voip: bool) -> Outcome {
    let (r, mean) = testbed(cc, voip);
    let d = &r.flows[0];
    let q = r.queues.iter().find(|q| q.link == "bs-laptop").unwrap();
    let stream_delay_ms = r.flows.get(1).map_or(f64::NAN, |f| f.rtt_avg_s.unwrap() * 1e3);
    let o = Outcome {
        name,
        utilisation: d.goodput_bps / mean,
        excess_ms: d.excess_owd_mean_s.unwrap() * 1e3,
        avg_queue_pkts: q.avg_packets,
        stream_delay_ms,
        goodput: d.goodput_bps,
    };
    println!(
        "{:9} mean DRC {:.0} kb/s goodput {:.0} kb/s utilisation {:.3} excess OWD {:.1} ms (std {:.1}) queue {:.1} pkts retx {:.4} timeouts {} stream {:.1} ms",
        name,
        mean / 1e3,
        d.goodput_bps / 1e3,
        o.utilisation,
        o.excess_ms,
        d.excess_owd_std_s.unwrap() * 1e3,
        o.avg_queue_pkts,
        d.retransmitted_fraction,
        d.timeouts,
        o.stream_delay_ms
    );
    o
}

fn variants() -> Vec<(&'static str, CcAlgo)> {
    vec![
        ("reno", CcAlgo::Reno),
        ("newreno", CcAlgo::NewReno),
    ]
}

#[test]
fn section_7_3_utilisation_and_queueing_by_variant() {
    let out: Vec<Outcome> = variants().into_iter().map(|(n, cc)| outcome(n, cc, false)).collect();
    let _ = out;
}
