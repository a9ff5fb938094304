//! Delay spikes longer than the RTO (Jung et al. §III's periodic stalls, Liu
//! et al. §7.3's "spurious time-outs"): the bottleneck stops for 1 s every
//! 10 s, nothing is lost (the buffer holds everything), so every timeout is
//! spurious. Without detection each one costs a go-back-N resend of the
//! window; Eifel (RFC 3522 + RFC 4015) and F-RTO (RFC 5682) detect them and
//! resend almost nothing.

mod common;
use cdmasim_core::scenario::{SpuriousDetection, TcpSpec};
use cdmasim_core::sim::RunResult;
use common::*;

const RATE: u64 = 2_000_000;

fn run(detection: SpuriousDetection) -> RunResult {
    let tcp = TcpSpec {
        timestamps: true,
        sack: true,
        min_rto: ms(200.0),
        rcv_buffer: 64 * 1460,
        spurious_detection: detection,
        ..Default::default()
    };
    let mut net = dumbbell(1, RATE, ms(20.0), unlimited(), s(60.0), tcp);
    // Outages of 1 s starting at 5 s, 15 s, ... on the forward bottleneck (link 0).
    let sched = net.spec.link_mut(0).rate_changes.schedule_mut();
    for k in 0..6u64 {
        sched.push((s(5.0) + k * s(10.0), 0));
        sched.push((s(6.0) + k * s(10.0), RATE));
    }
    net.run()
}

#[test]
fn detection_finds_every_spurious_timeout_and_avoids_go_back_n() {
    let off = run(SpuriousDetection::Off);
    let f = &off.flows[0];
    println!("off: timeouts {} spurious {} retransmits {} goodput {:.0}", f.timeouts, f.spurious_timeouts, f.retransmits, f.goodput_bps);
    assert!(off.drops.is_empty(), "no loss: every timeout is spurious");
    assert!(f.timeouts >= 6, "each 1 s stall outlasts the RTO");
    assert_eq!(f.spurious_timeouts, 0, "not counted without detection");
    // Go-back-N resends the window after each stall: many segments per timeout.
    assert!(f.retransmits > 5 * f.timeouts, "go-back-N: {} retransmits for {} timeouts", f.retransmits, f.timeouts);
    for det in [SpuriousDetection::Eifel, SpuriousDetection::Frto] {
        let r = run(det);
        let g = &r.flows[0];
        println!("{det:?}: timeouts {} spurious {} retransmits {} goodput {:.0}", g.timeouts, g.spurious_timeouts, g.retransmits, g.goodput_bps);
        assert!(r.drops.is_empty());
        assert!(g.timeouts >= 6);
        // Eifel checks the first retransmission of each stall and counts the
        // backed-off ones in the same check; F-RTO abandons a stall that
        // times out twice. Either way every stall is recognised.
        assert!(g.spurious_timeouts >= 6, "{det:?}: {} of {} timeouts found spurious", g.spurious_timeouts, g.timeouts);
        // Only the timer's own retransmissions remain (one per timeout).
        assert!(g.retransmits <= g.timeouts, "{det:?}: {} retransmits for {} timeouts", g.retransmits, g.timeouts);
        assert!(g.goodput_bps >= f.goodput_bps * 0.99, "{det:?}: goodput {} vs {} without", g.goodput_bps, f.goodput_bps);
    }
}
