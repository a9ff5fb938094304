//! Paliwal et al. section III: packets lost at the BSC's shared
//! buffer after the mobile's link switches from mu_ll to mu_lh, packet
//! simulation against the fluid loss-volume model (eqs. 1-6,
//! models::fluid_loss). Setup of Fig. 4: mu_ll = 9.6 kb/s, mu_s = 38.4 kb/s,
//! B = 5 kB DropTail shared buffer, unlimited link buffer, 500-byte packets,
//! a fixed window W (the receiver's window), round-trip propagation T lumped
//! on the return path.
//!
//! The loss episode counted is the first one after the switch: drops of
//! packets sent up to the sender's first reaction to a loss (fast retransmit
//! or timeout). Later episodes come from the sender regrowing its window and
//! lie outside the model.

mod common;
use cdmasim_core::engine::Time;
use cdmasim_core::models::fluid_loss::FluidLossParams;
use cdmasim_core::network::DropAt;
use cdmasim_core::scenario::{CcAlgo, TcpSpec};
use cdmasim_core::sim::{build::build, run_world, flows::Transport};
use common::*;

const PKT: u64 = 500;
const MU_LL: u64 = 9_600;
const MU_S: u64 = 38_400;
const B: u64 = 5_000;
const T0: f64 = 150.0;

/// Packets dropped at the shared buffer in the first loss episode after the switch.
fn simulate(mu_lh: u64, w_pkts: u64, t: f64) -> u64 {
    let mut net = Net::new(s(T0 + 60.0), 1);
    let sender = net.node("sender");
    let bsc = net.node("bsc");
    let bts = net.node("bts");
    let mobile = net.node("mobile");
    net.link(sender, bsc, 100_000_000, Time::ZERO, unlimited());
    let shared = net.link(bsc, bts, MU_S, Time::ZERO, droptail_bytes(B));
    let radio = net.link(bts, mobile, MU_LL, Time::ZERO, unlimited());
    net.spec.link_mut(radio).rate_changes = cdmasim_core::net::link::RateChanges::Schedule(vec![(s(T0), mu_lh)]);
    net.link(mobile, sender, 100_000_000, s(t), unlimited());
    let mss = (PKT - 40) as u32;
    let tcp = TcpSpec {
        cc: CcAlgo::Reno,
        mss,
        initial_window: 1,
        rcv_buffer: w_pkts * mss as u64,
        ..Default::default()
    };
    net.bulk("ftp", sender, mobile, Time::ZERO, None, tcp);
    let mut w = build(&net.spec).unwrap();
    run_world(&mut w, None, None).unwrap();
    let Transport::Tcp(f) = &w.hosts.flows[0].transport else { unreachable!() };
    let t0: Time = s(T0);
    assert!(
        !w.hosts.drop_log.records().iter().any(|d| d.t < t0),
        "no drop may happen before the switch (steady state at mu_ll)"
    );
    let reaction = f.sender.stats.congestion_events.iter().copied().find(|e| *e >= t0).unwrap_or(Time::MAX);
    w.hosts.drop_log.records().iter().filter(|d| d.at == DropAt::Hop { hop: shared as u32, port: 0 } && d.created <= reaction).count() as u64
}

#[test]
fn first_episode_losses_match_the_fluid_model() {
    let mut worst: f64 = 0.0;
    let mut rows = Vec::new();
    for &mu_lh in &[38_400u64, 76_800, 153_600, 300_000] {
        for &w_kb in &[4u64, 8, 16, 32] {
            for &t in &[0.1, 0.3, 1.0] {
                let w_pkts = w_kb * 1000 / PKT;
                let sim = simulate(mu_lh, w_pkts, t);
                let model = FluidLossParams {
                    mu_ll: MU_LL as f64,
                    mu_s: MU_S as f64,
                    mu_lh: mu_lh as f64,
                    window_bytes: (w_pkts * PKT) as f64,
                    buffer_bytes: B as f64,
                    rtt: t,
                };
                let lv = model.loss_volume_bytes() / PKT as f64;
                let err = sim as f64 - lv;
                worst = worst.max(err.abs());
                rows.push(format!("mu_lh={:>6} W={:>2}kB T={t:.1}: sim {sim:>3} pkts, fluid {lv:>6.2} pkts, diff {err:+.2}", mu_lh, w_kb));
            }
        }
    }
    for r in &rows {
        println!("{r}");
    }
    println!("worst |sim - fluid| = {worst:.2} packets");
    // "About a packet" (measured worst: 1.40). The simulation mostly loses one
    // packet fewer than the model: the packet in service at the shared buffer
    // is not in its 5 kB, so one more packet fits than the fluid buffer holds;
    // the rest is packet granularity against the fluid's fractional volumes.
    assert!(worst <= 1.5, "worst difference {worst:.2} packets");
}
