//! Cubic (RFC 9438) on a fixed-rate bottleneck: sender —1 Gb/s— r1 —rate,
//! 48 ms— r2 —1 Gb/s— receiver (RTT 100 ms), SACK, one ACK per segment,
//! cwnd traced on every ACK. The closed forms are checked point by point
//! against the trace, with the state (W_max, cwnd_epoch, t_epoch) read from
//! the trace itself.

mod common;
use cdmasim_core::scenario::{CcAlgo, CubicParams, TcpSpec};
use cdmasim_core::sim::RunResult;
use common::*;

const MSS: f64 = 1460.0;
const PKT_BITS: f64 = 1500.0 * 8.0;
const C: f64 = 0.4;
const BETA: f64 = 0.7;

fn net(p: CubicParams, rate: u64, delay_ms: f64, buf: u64, dur: f64) -> Net {
    let tcp = TcpSpec { cc: CcAlgo::Cubic(p), sack: true, mss: MSS as u32, initial_window: 10, rcv_buffer: 64 << 20, trace_cwnd: true, ..Default::default() };
    let mut n = Net::new(s(dur), 1);
    let a = n.node("s");
    let r1 = n.node("r1");
    let r2 = n.node("r2");
    let b = n.node("d");
    n.duplex(a, r1, 1_000_000_000, ms(1.0), droptail_pkts(100_000));
    n.duplex(r1, r2, rate, ms(delay_ms), droptail_pkts(buf));
    n.duplex(r2, b, 1_000_000_000, ms(1.0), droptail_pkts(100_000));
    n.bulk("flow", a, b, Time::ZERO, None, tcp);
    n
}

/// cwnd and ssthresh in segments, one point per ACK (and per state change).
struct Trace {
    t: Vec<f64>,
    cwnd: Vec<f64>,
    ssthresh: Vec<f64>,
}

fn trace(r: &RunResult) -> Trace {
    let get = |m: &str| r.series.iter().find(|x| x.metric == m).expect(m);
    let (c, s) = (get("cwnd"), get("ssthresh"));
    Trace { t: c.t_s.clone(), cwnd: c.value.iter().map(|v| v / MSS).collect(), ssthresh: s.value.iter().map(|v| v / MSS).collect() }
}

/// Congestion events: indices where ssthresh changed or cwnd fell (only a
/// congestion event lowers cwnd with SACK recovery; two events in a row can
/// set the same ssthresh to the byte).
fn events(tr: &Trace) -> Vec<usize> {
    (1..tr.t.len()).filter(|&i| tr.ssthresh[i] != tr.ssthresh[i - 1] || tr.cwnd[i] < tr.cwnd[i - 1]).collect()
}

/// The epoch after event `i` (§4.2): it starts on the first ACK in
/// congestion avoidance, the first point where cwnd grew past ssthresh
/// (at t = 0 the target W_cubic(RTT) is above cwnd, so that ACK grows it).
/// Returns (first index, end index exclusive).
fn epoch(tr: &Trace, ev: &[usize], j: usize) -> Option<(usize, usize)> {
    let end = ev.get(j + 1).copied().unwrap_or(tr.t.len());
    (ev[j]..end).find(|&k| tr.cwnd[k] > tr.ssthresh[k]).map(|s0| (s0, end))
}

#[test]
fn window_follows_the_cubic_after_each_loss() {
    // 100 Mb/s × 100 ms: BDP 833 packets, buffer 200: losses at ~1040
    // segments, K ≈ cbrt(0.3·1040/0.4) = 9.2 s. The Reno-friendly estimate
    // gains α = 0.53 segment per RTT (≥ 100 ms): ≤ 49 segments by t = K,
    // against the cubic's 312: the region stays out and the window is the
    // cubic throughout (default parameters, fast convergence on).
    let rate = 100_000_000;
    let mu = rate as f64 / PKT_BITS; // ACKs per second when the link is busy
    let r = net(CubicParams::default(), rate, 48.0, 200, 30.0).run();
    let tr = trace(&r);
    let ev = events(&tr);
    assert!(ev.len() >= 3, "expected several congestion events, got {}", ev.len());
    let mut w_max: Option<f64> = None;
    let (mut points, mut longest_past_k) = (0, false);
    for (j, &i) in ev.iter().enumerate() {
        // §4.6: ssthresh = β·FlightSize; a window-limited bulk sender has
        // FlightSize in [cwnd − 1 segment, cwnd] (whole segments); ssthresh
        // is rounded to the byte.
        let prior = tr.cwnd[i - 1];
        let ss = tr.ssthresh[i];
        assert!(ss <= BETA * prior + 1.0 / MSS && ss >= BETA * (prior - 1.0), "event at {:.3} s: ssthresh {ss:.2} vs 0.7 × {prior:.2}", tr.t[i]);
        // §4.7 fast convergence, from the windows at the losses.
        w_max = Some(match w_max {
            Some(m) if prior < m => prior * (1.0 + BETA) / 2.0,
            _ => prior,
        });
        let wm = w_max.unwrap();
        let Some((s0, end)) = epoch(&tr, &ev, j) else { continue };
        let (t0, k) = (tr.t[s0], ((wm - ss) / C).cbrt()); // eq. 2
        // Tolerance. With the link busy, ACKs arrive at μ = cwnd/RTT and each
        // moves cwnd by (W(t + RTT) − cwnd)/cwnd: dc/dt = (W(t+R) − c)/R,
        // whose solution from c(0) = W(0) tracks W(t) within R²|W''|/2 < 0.2
        // segment. The reduction leaves a gap in the ACK clock, the time the
        // excess (1 − β)·prior takes to drain at μ, which circulates while
        // the window is below the BDP: during a gap cwnd stands still while
        // W(t) moves by W'(t)·gap. Hence |cwnd − W(t)| ≤ 0.5 + W'(t)·gap.
        let gap = (1.0 - BETA) * prior / mu;
        let mut worst: f64 = 0.0;
        for q in s0..end {
            let t = tr.t[q] - t0;
            let w = C * (t - k).powi(3) + wm; // eq. 1
            let slope = 3.0 * C * (t - k).powi(2);
            let d = tr.cwnd[q] - w;
            assert!(d.abs() <= 0.5 + slope * gap, "epoch {j} at t = {t:.3} s: cwnd {:.2} vs W_cubic {w:.2} (W_max {wm:.1}, K {k:.2})", tr.cwnd[q]);
            worst = worst.max(d.abs());
            points += 1;
        }
        let span = tr.t[end - 1] - t0;
        longest_past_k |= span > k + 1.0;
        println!("event {j} at {:.3} s: window {prior:.1}, ssthresh {ss:.1} ({:.4}·), W_max {wm:.1}, K {k:.2} s, epoch {span:.2} s, worst |cwnd − W| {worst:.2}", tr.t[i], ss / prior);
    }
    assert!(longest_past_k, "no epoch reached the convex region");
    assert!(points > 100_000, "only {points} points checked");
}

#[test]
fn hystart_conservative_slow_start_grows_a_quarter_per_ack() {
    // A deep buffer (3000 packets) so that HyStart++ sees the RTT rise long
    // before the loss. In CSS each ACK adds MSS/4 (RFC 9406 §4.2); with the
    // bottleneck busy ACKs come at μ = 8333/s, so cwnd rises linearly at
    // μ/4 = 2083.3 segments/s until the first loss is detected. The span:
    // the 0.7 s before the first drop (slow start ended by then: the growth
    // turned linear at ~1.05 s). Tolerance 1%: the trace has one point per
    // ACK, so 0.7 s holds ~5800 ACKs and quantisation is 0.02%.
    let rate = 100_000_000;
    let mu = rate as f64 / PKT_BITS;
    let run = |hystart: bool| {
        let r = net(CubicParams { hystart, ..Default::default() }, rate, 48.0, 3000, 2.5).run();
        let drop = r.drops.first().expect("slow start overshoots into a loss").t_s;
        let tr = trace(&r);
        let at = |t: f64| tr.cwnd[tr.t.partition_point(|&x| x < t)];
        let slope = (at(drop) - at(drop - 0.7)) / 0.7;
        let loss_window = events(&tr).first().map(|&i| tr.cwnd[i - 1]).expect("a congestion event");
        (slope, loss_window, r.drops.len())
    };
    let (css, hs_window, hs_drops) = run(true);
    let (ss, plain_window, plain_drops) = run(false);
    println!("HyStart++: {css:.1} seg/s (μ/4 = {:.1}), loss at {hs_window:.0}, {hs_drops} drops; plain: {ss:.1} seg/s, loss at {plain_window:.0}, {plain_drops} drops", mu / 4.0);
    assert!((css / (mu / 4.0) - 1.0).abs() < 0.01, "CSS growth {css:.1} vs μ/4");
    // Plain slow start doubles per RTT: it never shows a linear μ/4 phase.
    assert!(ss > 1.5 * mu / 4.0, "plain slow start {ss:.1}");
    assert!(hs_window < 0.7 * plain_window && hs_drops * 3 < plain_drops);
}

#[test]
fn reno_friendly_region_rules_at_a_small_bdp() {
    // 10 Mb/s, RTT 10 ms: BDP 8 packets, buffer 8, losses at ~17 segments:
    // K = cbrt(0.3·17/0.4) = 2.3 s = 230 RTTs, in which Reno gains far
    // more. In the region cwnd = W_est, raised by α·(segments acked)/cwnd
    // per ACK (§4.3), α = 3(1 − β)/(1 + β) until W_est reaches the window
    // of the last loss, 1 after. Per ACK of one segment c·dc = α: counted
    // in ACKs n from the epoch start, c(n)² = c0² + 2αn, then
    // c² = prior² + 2(n − n1). The discrete sum exceeds the integral by
    // Σ α²/(2c²) in c², < 0.05 segment in c over an epoch; tolerance 0.05.
    let r = net(CubicParams::default(), 10_000_000, 3.0, 8, 5.0).run();
    let tr = trace(&r);
    let ev = events(&tr);
    let alpha = 3.0 * (1.0 - BETA) / (1.0 + BETA);
    let (mut checked, mut worst) = (0, 0.0f64);
    for j in 0..ev.len() {
        let prior = tr.cwnd[ev[j] - 1];
        let Some((s0, end)) = epoch(&tr, &ev, j) else { continue };
        // The epoch starts at cwnd_epoch = ssthresh; its first ACK is n = 1.
        let c0 = tr.ssthresh[s0];
        let n1 = (prior * prior - c0 * c0) / (2.0 * alpha);
        for (n, q) in (s0..end).enumerate() {
            let n = (n + 1) as f64;
            let expect = if n <= n1 { (c0 * c0 + 2.0 * alpha * n).sqrt() } else { (prior * prior + 2.0 * (n - n1)).sqrt() };
            assert!((tr.cwnd[q] - expect).abs() < 0.05, "epoch {j}, ACK {n}: cwnd {:.3} vs W_est {expect:.3}", tr.cwnd[q]);
            worst = worst.max((tr.cwnd[q] - expect).abs());
            checked += 1;
        }
    }
    println!("{} congestion events, {checked} ACKs on W_est, worst |cwnd − W_est| {worst:.4} segment", ev.len());
    assert!(checked > 1000, "only {checked} ACKs checked");
}

#[test]
fn a_receiver_limited_window_stops_growing() {
    // 100 Mb/s × 100 ms but a 200-segment receive buffer: the flow never
    // fills the link, never loses, never leaves slow start. cwnd grows only
    // while it is below twice the FlightSize (≤ 200 segments), so it ends
    // within [200, 400 + 1] segments; growing on every ACK regardless, it
    // would gain ~200 segments per RTT, some 20 000 in 10 s.
    let mut n = net(CubicParams::default(), 100_000_000, 48.0, 200, 10.0);
    if let cdmasim_core::scenario::AppSpec::Bulk { tcp, .. } = &mut n.spec.flows[0].app {
        tcp.rcv_buffer = 200 * MSS as u64;
    }
    let r = n.run();
    let tr = trace(&r);
    let max = tr.cwnd.iter().cloned().fold(0.0, f64::max);
    let goodput = r.flows[0].goodput_bps;
    // The receive window caps the rate at 200 segments per RTT: 23.4 Mb/s.
    println!("rwnd-limited: max cwnd {max:.1} segments, goodput {:.2} Mb/s, {} drops", goodput / 1e6, r.drops.len());
    assert!(r.drops.is_empty());
    assert!((200.0..=401.0).contains(&max), "max cwnd {max:.1}");
    assert!(goodput <= 200.0 * MSS * 8.0 / 0.1, "goodput {goodput:.0} above rwnd/RTT");
}

/// 10 Mb/s, RTT 20 ms, 200-packet buffer (12 BDPs: the whole window fits in
/// the queue, so a stall of the bottleneck loses nothing), timestamps and
/// Eifel; optionally the bottleneck stops from STALL.0 to STALL.1, longer
/// than the 1 s RTO, early in the concave part of an epoch (15.2 s to 24.4 s).
const STALL: (f64, f64) = (17.0, 19.0);
const RTT_MAX: f64 = 0.02 + 200.0 * PKT_BITS / 10e6;

fn stalled(stall: bool, response: bool) -> RunResult {
    let mut n = net(CubicParams::default(), 10_000_000, 8.0, 200, 26.0);
    if let cdmasim_core::scenario::AppSpec::Bulk { tcp, .. } = &mut n.spec.flows[0].app {
        tcp.timestamps = true;
        tcp.spurious_detection = cdmasim_core::scenario::SpuriousDetection::Eifel;
        tcp.eifel_response = response;
    }
    if stall {
        let l = n.spec.links().iter().position(|l| l.name == "r1-r2").unwrap();
        n.spec.link_mut(l).rate_changes = cdmasim_core::net::link::RateChanges::Schedule(vec![(s(STALL.0), 0), (s(STALL.1), 10_000_000)]);
    }
    n.run()
}

#[test]
fn undo_after_a_spurious_timeout_resumes_the_same_cubic() {
    // §4.9: the Eifel response calls undo, which restores W_max, K and the
    // epoch. The epoch's clock ran through the stall, so once cwnd has
    // rejoined the curve it is where the run without a stall is at the same
    // time, and the next loss comes at the same window.
    let base = trace(&stalled(false, true));
    let r = stalled(true, true);
    let f = &r.flows[0];
    assert!(f.timeouts >= 1 && f.spurious_timeouts == f.timeouts, "{} timeouts, {} spurious", f.timeouts, f.spurious_timeouts);
    let tr = trace(&r);
    let at = |x: &Trace, t: f64| x.cwnd[x.t.partition_point(|&y| y < t)];
    // The next loss: the first reduction after the stall that is not the
    // timeout (cwnd to one segment) or its undo (cwnd back up).
    let next = |x: &Trace| {
        let is_loss = |i: usize| x.cwnd[i] < x.cwnd[i - 1] && x.cwnd[i] > 1.5;
        events(x).into_iter().find(|&i| x.t[i] > STALL.1 && is_loss(i)).expect("a loss after the stall")
    };
    let (nb, ns) = (next(&base), next(&tr));
    println!("next loss: without stall at {:.3} s, window {:.1}; with stall at {:.3} s, window {:.1}", base.t[nb], base.cwnd[nb - 1], tr.t[ns], tr.cwnd[ns - 1]);
    // Rejoin: SRTT carries the stall's 2 s samples for a few dozen ACKs, so
    // the RTT-ahead target first overshoots and cwnd then holds until W(t)
    // catches up: the rejoin t_r is when the run without a stall reaches
    // the held window. Both runs then obey dc/dt = (W(t + R) − c)/R on the
    // same W, so their difference, at most the RTT lead W'·R ≈ 3 segments
    // at t_r, decays as e^(−Δt/R): after 2 RTTs (R ≤ RTT_MAX = 0.26 s) it is
    // below 0.4; tolerance 0.5 with the per-ACK steps of both traces (one
    // ACK moves cwnd by < 0.1 segment here).
    let end = base.t[nb].min(tr.t[ns]) - 0.01;
    let mut t = STALL.1;
    while t < end && at(&tr, t) <= at(&base, t) {
        t += 0.001; // the timeout's one segment, then the undo and the overshoot
    }
    while t < end && at(&base, t) < at(&tr, t) {
        t += 0.001; // held above W(t)
    }
    let t_r = t;
    let (mut worst, mut n) = (0.0f64, 0);
    t = t_r + 2.0 * RTT_MAX;
    while t < end {
        worst = worst.max((at(&tr, t) - at(&base, t)).abs());
        (t, n) = (t + 0.01, n + 1);
    }
    println!("rejoined at {t_r:.3} s; from {:.3} s to the next loss ({n} points): worst |cwnd − cwnd without stall| = {worst:.3} segments", t_r + 2.0 * RTT_MAX);
    assert!(n >= 200, "only {n} points compared");
    assert!(worst <= 0.5, "worst {worst:.3}");
    assert!((tr.cwnd[ns - 1] / base.cwnd[nb - 1] - 1.0).abs() < 0.01);
    // Without the response the timeout's reduction stands: slow start from
    // one segment to 0.7 of the window and a new epoch, far below.
    let off = trace(&stalled(true, false));
    let probe = t_r + 2.0 * RTT_MAX;
    println!("at {probe:.2} s: {:.1} with undo, {:.1} without the response", at(&tr, probe), at(&off, probe));
    assert!(at(&off, probe) < 0.8 * at(&tr, probe));
}
