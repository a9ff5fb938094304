//! One long-lived NewReno flow through a DropTail bottleneck: full
//! utilisation with a buffer of one bandwidth-delay product, and the Reno
//! sawtooth's shortfall (models::reno_buffer) with a fifth of it.

mod common;
use cdmasim_core::models::reno_buffer::RenoBottleneck;
use cdmasim_core::scenario::TcpSpec;
use common::*;

const RATE: u64 = 10_000_000;
const MSS: u32 = 1460;
const PKT: f64 = 1500.0;
/// Round-trip propagation: 2 × (1 + 20 + 1) ms.
const RTT_S: f64 = 0.044;

/// Bottleneck utilisation between 20 s and 120 s (after slow start), in payload terms.
fn utilisation(buffer_pkts: u64) -> f64 {
    let tcp = TcpSpec { mss: MSS, rcv_buffer: 4 << 20, ..Default::default() };
    let mut net = dumbbell(1, RATE, ms(20.0), droptail_pkts(buffer_pkts), s(120.0), tcp);
    net.spec.sample_interval = Some(s(1.0));
    let r = net.run();
    let g = r.series.iter().find(|x| x.metric == "goodput_bps" && x.subject == "flow0").unwrap();
    let window: Vec<f64> = g.t_s.iter().zip(&g.value).filter(|(t, _)| **t > 20.0).map(|(_, v)| *v).collect();
    let goodput = window.iter().sum::<f64>() / window.len() as f64;
    goodput / (RATE as f64 * MSS as f64 / PKT)
}

fn bdp_pkts() -> f64 {
    RATE as f64 / 8.0 / PKT * RTT_S
}

#[test]
fn buffer_of_one_bdp_fills_the_link() {
    let b = bdp_pkts().ceil() as u64; // 37 packets
    let u = utilisation(b);
    println!("B = BDP = {b} pkts: simulated {u:.4}");
    assert!(u >= 0.95, "utilisation {u:.4} with B = BDP = {b} packets");
}

#[test]
fn buffer_of_a_fifth_bdp_follows_the_sawtooth() {
    let b = (bdp_pkts() / 5.0).round() as u64; // 7 packets
    let u = utilisation(b);
    // The packet in service adds one to the buffer the window can fill.
    let model = RenoBottleneck { capacity_pkts_per_s: RATE as f64 / 8.0 / PKT, prop_rtt_s: RTT_S, buffer_pkts: b as f64 + 1.0 };
    let expect = model.utilisation();
    println!("B = {b} pkts: simulated {u:.4}, Reno sawtooth {expect:.4}");
    // Tolerance ±0.03: the fluid sawtooth ignores the RTT of fast recovery
    // and the discreteness of a 37-packet window.
    assert!((u - expect).abs() < 0.03, "simulated {u:.4} vs model {expect:.4}");
    assert!(u < 0.95, "a small buffer must cost utilisation");
}
