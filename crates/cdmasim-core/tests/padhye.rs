//! Steady-state throughput under random loss against Padhye et al.'s full
//! model (PFTK 1998, models::tcp_throughput) for p from 0.1 % to 5 %.

mod common;
use cdmasim_core::models::tcp_throughput::{mathis_bytes_per_s, PftkParams};
use cdmasim_core::scenario::TcpSpec;
use common::*;

/// (goodput B/s, mean RTT s) of one flow over a 100 Mb/s path with RTT 100 ms and loss p on the data path.
fn run(p: f64, secs: f64, seed: u64) -> (f64, f64, u64, u64) {
    let mut net = Net::new(s(secs), seed);
    let a = net.node("a");
    let b = net.node("b");
    let fwd = net.link(a, b, 100_000_000, ms(50.0), unlimited());
    net.link(b, a, 100_000_000, ms(50.0), unlimited());
    net.spec.link_mut(fwd).loss = p;
    let tcp = TcpSpec { mss: 1460, rcv_buffer: 16 << 20, min_rto: ms(200.0), ..Default::default() };
    net.bulk("f", a, b, Time::ZERO, None, tcp);
    let r = net.run();
    let f = &r.flows[0];
    (f.bytes_delivered as f64 / secs, f.rtt_avg_s.unwrap(), f.timeouts, f.fast_recoveries)
}

#[test]
fn throughput_within_20_percent_of_padhye() {
    for (p, secs) in [(0.001, 400.0), (0.003, 200.0), (0.01, 200.0), (0.02, 200.0), (0.05, 300.0)] {
        let (bps, rtt, timeouts, frs) = run(p, secs, 7);
        let model = PftkParams { rtt_s: rtt, t0_s: 0.2_f64.max(rtt + 0.05), b: 1.0, wmax_segments: 1e9 };
        let expect = model.bytes_per_s(p, 1460.0);
        let mathis = mathis_bytes_per_s(1460.0, rtt, p, 1.0);
        let err = (bps - expect) / expect;
        println!("p={p}: sim {:.0} B/s, PFTK {expect:.0} ({:+.1} %), Mathis {mathis:.0}, rtt {rtt:.4}, timeouts {timeouts}, recoveries {frs}", bps, err * 100.0);
        assert!(err.abs() < 0.20, "p={p}: {bps:.0} B/s vs PFTK {expect:.0} B/s");
    }
}
