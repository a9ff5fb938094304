//! BBR v1 fairness among ten flows on the benchmark dumbbell (bench/sims.py:
//! 10 Mb/s 20 ms bottleneck, DropTail, 100 Mb/s 1 ms access links, flows
//! 10 ms apart, SACK, no timestamps, IW 2, ACK every segment, 60 s).
//!
//! Ten flows share 10 Mb/s: a fair share of 1 Mb/s, right at draft §4.2.2's
//! 1.2 Mb/s step of the send quantum. While the quantum followed that step
//! (3 quanta = 3 segments below it, 6 above), the flows split into two
//! groups whose cwnd budgets 2 BDP + 3 quanta differed by a factor of two
//! and stayed so all run: Jain 0.912 (0.924 with a 300-packet buffer),
//! goodputs 0.68–1.43 Mb/s. ns-3 3.37's TcpBbr (send quantum one segment)
//! gives Jain 0.988, goodputs 0.76–1.11 Mb/s (bench/results/variants-latest).

mod common;
use cdmasim_core::models::jain::jain_index;
use cdmasim_core::scenario::{BbrParams, CcAlgo, DelAck, TcpSpec};
use common::*;

const RATE: u64 = 10_000_000;
/// The bottleneck's payload rate: 1460 of every 1500 wire bytes.
const PAYLOAD_BPS: f64 = RATE as f64 * 1460.0 / 1500.0;

/// Per-flow goodputs (b/s) of ten BBR flows behind a `queue`-packet buffer,
/// and the number of packets dropped.
fn goodputs(queue: u64) -> (Vec<f64>, usize) {
    let tcp = TcpSpec {
        // The benchmark matches ns-3's HighGain 2.89.
        cc: CcAlgo::Bbr(BbrParams { high_gain: 2.89, ..Default::default() }),
        sack: true,
        timestamps: false,
        mss: 1460,
        initial_window: 2,
        rcv_buffer: 16 << 20,
        delayed_ack: DelAck::EverySegment,
        ..Default::default()
    };
    let r = dumbbell(10, RATE, ms(20.0), droptail_pkts(queue), s(60.0), tcp).run();
    (r.flows.iter().map(|f| f.goodput_bps).collect(), r.drops.len())
}

/// Jain ≥ 0.95 (ns-3: 0.988; the quantum step gave 0.912); no flow more than
/// 1.5 × another (ns-3's spread is 1.46, the split gave 2.1); together they
/// fill the link less ProbeRTT's and the start's share (≈ 2 %, see
/// cc_bbr.rs), so at least 97 % of the payload rate.
fn assert_fair(queue: u64) -> usize {
    let (g, drops) = goodputs(queue);
    let jain = jain_index(&g).unwrap();
    let (lo, hi) = g.iter().fold((f64::MAX, 0.0f64), |(a, b), x| (a.min(*x), b.max(*x)));
    let total: f64 = g.iter().sum();
    println!(
        "{queue}-pkt buffer: Jain {jain:.4}, goodput {:.3}–{:.3} Mb/s, total {:.3} Mb/s, {drops} drops",
        lo / 1e6,
        hi / 1e6,
        total / 1e6
    );
    assert!(jain >= 0.95, "Jain {jain:.4}: {g:?}");
    assert!(hi <= 1.5 * lo, "goodputs {:.3}–{:.3} Mb/s", lo / 1e6, hi / 1e6);
    assert!(total >= 0.97 * PAYLOAD_BPS && total <= PAYLOAD_BPS, "total {total}");
    drops
}

#[test]
fn ten_flows_share_the_benchmark_bottleneck_fairly() {
    assert_fair(100);
}

/// The same without losses. The pipe holds BDP = 10 Mb/s × 45.48 ms RTprop /
/// 1500 B = 37.9 packets; in ProbeBW ten budgets of 2 BDP + 3 segments come
/// to 2 × 37.9 + 30 ≈ 106 packets, 68 beyond the pipe: a 300-packet buffer
/// does not fill (asserted), so fairness comes from the model, not drops.
#[test]
fn ten_flows_share_fairly_without_losses() {
    assert_eq!(assert_fair(300), 0, "the 300-packet buffer overflowed");
}
