//! Cubic against the closed forms of RFC 9438, driven by a synthetic ACK
//! clock: every RTT, one ACK per segment of the window, evenly spaced.

use super::*;
use crate::engine::NS_PER_MS;

const MSS: u64 = 1000;

/// An ACK to a window-limited sender: the window was full before it.
fn ack_full(now: Time, bytes: u64, w: &Window) -> Ack {
    Ack { now, bytes_acked: bytes, bytes_delivered: bytes, prior_in_flight: w.cwnd, in_flight: w.cwnd - bytes, rtt: None, state: CaState::Open, cwnd_limited: true }
}

fn segs(w: &Window) -> f64 {
    w.cwnd as f64 / MSS as f64
}

/// A loss at `w_max` segments (all of them in flight), fast recovery leaving
/// cwnd = ssthresh, at time `now`.
fn loss(c: &mut Cubic, w: &mut Window, now: Time, ev: CongestionEvent) {
    let flight = w.cwnd;
    w.ssthresh = c.ssthresh(w, flight, ev, now);
    w.cwnd = if ev == CongestionEvent::Timeout { MSS } else { w.ssthresh };
}

/// Run the ACK clock from `t0` for `dur` with a constant `rtt`, calling
/// `f(t, window)` after every ACK. Returns the end time.
fn drive(c: &mut Cubic, w: &mut Window, t0: Time, dur: Time, rtt: Time, mut f: impl FnMut(Time, &Window)) -> Time {
    let mut t = t0;
    while t < t0 + dur {
        let n = (w.cwnd / MSS).max(1);
        for i in 0..n {
            let now = t + rtt * (i + 1) / n;
            c.on_rtt_sample(now, rtt);
            let a = ack_full(now, MSS, w);
            c.on_ack(w, &a);
            f(now, w);
        }
        t += rtt;
    }
    t
}

fn cubic(p: CubicParams) -> (Cubic, Window) {
    (Cubic::new(p), Window { cwnd: 10 * MSS, ssthresh: u64::MAX / 2, mss: MSS })
}

#[test]
fn k_is_the_time_back_to_w_max() {
    // Eq. 2 with cwnd_epoch = β·W_max: K = cbrt(W_max (1 − β) / C).
    // W_max = 100, C = 0.4, β = 0.7: K = cbrt(75) = 4.2172 s.
    assert!((Cubic::k(0.4, 100.0, 70.0) - 75f64.cbrt()).abs() < 1e-12);
    let (mut c, mut w) = cubic(CubicParams::default());
    w.cwnd = 100 * MSS;
    loss(&mut c, &mut w, Time::ZERO, CongestionEvent::FastRetransmit);
    assert_eq!(w.ssthresh, 70 * MSS, "ssthresh = β·FlightSize");
    assert_eq!(c.w_max(), Some(100.0));
    let a = ack_full(NS_PER_SEC, MSS, &w);
    c.on_ack(&mut w, &a);
    let e = c.epoch().unwrap();
    assert_eq!(e.cwnd_epoch, 70.0);
    assert!((e.k - 4.217163).abs() < 1e-6, "K = {}", e.k);
    // W_cubic(0) = cwnd_epoch, W_cubic(K) = W_max.
    assert!((c.w_cubic(0.0) - 70.0).abs() < 1e-9);
    assert!((c.w_cubic(e.k) - 100.0).abs() < 1e-9);
}

#[test]
fn window_follows_the_cubic_after_a_loss() {
    // W_max = 1000 segments, RTT 100 ms: K = cbrt(750) = 9.086 s. The
    // Reno-friendly estimate grows α = 0.53 segment per RTT from 700 and
    // stays below W_cubic (746 against 1000 at t = K), so it stays out.
    let rtt = 100 * NS_PER_MS;
    let (mut c, mut w) = cubic(CubicParams::default());
    w.cwnd = 1000 * MSS;
    c.on_rtt_sample(Time::ZERO, rtt);
    loss(&mut c, &mut w, Time::ZERO, CongestionEvent::FastRetransmit);
    let k = 750f64.cbrt();
    let mut worst: f64 = 0.0;
    let mut started = None;
    // Closed form: with ~cwnd ACKs per RTT, each moving cwnd by
    // (W(t+R) − cwnd)/cwnd, cwnd obeys dc/dt = (W(t + R) − c)/R, whose
    // solution from c(0) = W(0) lags W(t) by R²·|W''|/2 ≤ 0.01·6C·K/2 =
    // 0.11 segment; the ACK spacing (R/cwnd) adds well under one more
    // per-ACK step. Tolerance: 0.5 segment over t in [0, 2K].
    drive(&mut c, &mut w, Time::ZERO, Time((2.0 * k * 1e9) as u64), rtt, |now, w| {
        let t0 = *started.get_or_insert(now);
        let t = (now - t0).0 as f64 / 1e9;
        let expect = 0.4 * (t - k).powi(3) + 1000.0;
        worst = worst.max((segs(w) - expect).abs());
    });
    println!("worst |cwnd − W_cubic(t)| = {worst:.3} segments over 2K = {:.2} s", 2.0 * k);
    assert!(worst < 0.5, "worst deviation {worst:.3} segments");
    // At 2K the window is past W_max on the convex side: W = 1000 + 0.4·K^3 = 1300.
    assert!((segs(&w) - 1300.0).abs() < 3.0, "cwnd {} at 2K", segs(&w));
}

#[test]
fn reno_friendly_region_engages_at_small_windows_and_short_rtt() {
    // W_max = 10 segments, RTT 10 ms: K = cbrt(7.5) = 1.96 s, 196 RTTs in
    // which Reno gains far more than the cubic's 3 segments. W_est grows by
    // α = 3·0.3/1.7 = 0.529 per RTT from 7 until it reaches cwnd_prior = 10
    // (3/0.529 = 5.67 RTTs), then by 1 per RTT: after 50 RTTs (0.5 s)
    // W_est = 10 + (50 − 5.67) = 54.3 segments. The ACK clock undershoots
    // that: a round has floor(c) ACKs, each adding α/c' with c' growing by
    // α during the round, so a round gains α·floor(c)/(c + α/2), short by
    // at most α·1.5/c; summed over c from 10 to 54 that is at most
    // 1.5·ln(54/10) = 2.5 segments. Window: [W_est − 2.5, W_est].
    let rtt = 10 * NS_PER_MS;
    let run = |reno_friendly: bool| {
        let (mut c, mut w) = cubic(CubicParams { reno_friendly, ..Default::default() });
        c.on_rtt_sample(Time::ZERO, rtt);
        loss(&mut c, &mut w, Time::ZERO, CongestionEvent::FastRetransmit);
        drive(&mut c, &mut w, Time::ZERO, 50 * rtt, rtt, |_, _| {});
        segs(&w)
    };
    let friendly = run(true);
    let cubic_only = run(false);
    let reno = 10.0 + (50.0 - 3.0 / Cubic::alpha(0.7));
    println!("after 0.5 s: Reno-friendly {friendly:.2}, W_est {reno:.2}, cubic only {cubic_only:.2}");
    assert!(friendly <= reno && friendly > reno - 2.5, "cwnd {friendly:.2} vs W_est {reno:.2}");
    // Cubic alone: W(0.5 s) = 0.4(0.5 − 1.96)^3 + 10 = 8.76, led by one RTT.
    let w_half = 0.4 * (0.5 - 7.5f64.cbrt()).powi(3) + 10.0;
    assert!((cubic_only - w_half).abs() < 0.5, "cubic only {cubic_only:.2} vs {w_half:.2}");
}

#[test]
fn fast_convergence_lowers_w_max() {
    for fc in [true, false] {
        let (mut c, mut w) = cubic(CubicParams { fast_convergence: fc, ..Default::default() });
        w.cwnd = 100 * MSS;
        loss(&mut c, &mut w, Time::ZERO, CongestionEvent::FastRetransmit);
        assert_eq!(c.w_max(), Some(100.0));
        // The next loss comes at 90 < W_max: W_max = 90·(1 + 0.7)/2 = 76.5.
        w.cwnd = 90 * MSS;
        loss(&mut c, &mut w, NS_PER_SEC, CongestionEvent::FastRetransmit);
        assert_eq!(c.w_max(), Some(if fc { 76.5 } else { 90.0 }));
        assert_eq!(w.ssthresh, 63 * MSS);
        // Above W_max the window is the new W_max either way.
        w.cwnd = 120 * MSS;
        loss(&mut c, &mut w, 2 * NS_PER_SEC, CongestionEvent::FastRetransmit);
        assert_eq!(c.w_max(), Some(120.0));
    }
}

#[test]
fn ssthresh_uses_flight_and_keeps_two_segments() {
    let (mut c, w) = cubic(CubicParams::default());
    let w = Window { cwnd: 100 * MSS, ..w };
    assert_eq!(c.ssthresh(&w, 50 * MSS, CongestionEvent::FastRetransmit, Time::ZERO), 35 * MSS);
    assert_eq!(c.ssthresh(&w, 2 * MSS, CongestionEvent::FastRetransmit, Time::ZERO), 2 * MSS);
}

#[test]
fn timeout_restarts_the_epoch_from_its_own_window() {
    // §4.8: after a timeout, slow start to ssthresh, then W_max = cwnd_epoch, K = 0.
    let rtt = 50 * NS_PER_MS;
    let (mut c, mut w) = cubic(CubicParams::default());
    w.cwnd = 100 * MSS;
    c.on_rtt_sample(Time::ZERO, rtt);
    loss(&mut c, &mut w, Time::ZERO, CongestionEvent::Timeout);
    assert_eq!((w.cwnd, w.ssthresh), (MSS, 70 * MSS));
    // Slow start from one segment reaches 70 in 7 RTTs (doubling); 8 to be sure.
    let end = drive(&mut c, &mut w, Time::ZERO, 8 * rtt, rtt, |_, _| {});
    let e = c.epoch().expect("congestion avoidance reached");
    assert_eq!(e.k, 0.0);
    assert_eq!(c.w_max(), Some(e.cwnd_epoch));
    assert!(e.cwnd_epoch >= 70.0 && e.cwnd_epoch < 71.0, "cwnd_epoch {}", e.cwnd_epoch);
    // Convex from the start: W(t) = C t^3 + W_max, 2 s later 3.2 above.
    let from = segs(&w);
    drive(&mut c, &mut w, end, 2 * NS_PER_SEC, rtt, |_, _| {});
    let t = (end + 2 * NS_PER_SEC - e.start).0 as f64 / 1e9;
    let expect = 0.4 * t.powi(3) + e.cwnd_epoch;
    // The Reno-friendly estimate leads: W_est starts at cwnd_epoch and,
    // below cwnd_prior = 100, gains α = 0.53 per RTT: 21 segments in 40
    // RTTs against the cubic's 3.2. Tolerance 1.5 segments (floor(cwnd)
    // ACKs per RTT, as in the Reno-friendly test).
    let reno = e.cwnd_epoch + Cubic::alpha(0.7) * t / 0.05;
    println!("after timeout: from {from:.1} to {:.1}; cubic {expect:.1}, W_est {reno:.1}", segs(&w));
    assert!((segs(&w) - reno).abs() < 1.5);
}

#[test]
fn undo_restores_w_max_k_and_the_epoch() {
    let rtt = 100 * NS_PER_MS;
    let (mut c, mut w) = cubic(CubicParams::default());
    w.cwnd = 100 * MSS;
    c.on_rtt_sample(Time::ZERO, rtt);
    loss(&mut c, &mut w, Time::ZERO, CongestionEvent::FastRetransmit);
    let end = drive(&mut c, &mut w, Time::ZERO, NS_PER_SEC, rtt, |_, _| {});
    let (epoch, w_max, before) = (c.epoch(), c.w_max(), w);
    // A spurious fast retransmit at 1 s: cwnd 0.7·, W_max lowered by fast convergence.
    c.on_state_change(&mut w, end, CaState::Open, CaState::Open, 0);
    loss(&mut c, &mut w, end, CongestionEvent::FastRetransmit);
    c.on_state_change(&mut w, end, CaState::Open, CaState::Recovery, 0);
    assert!(c.w_max() < w_max);
    c.undo(&mut w, &before);
    c.on_state_change(&mut w, end, CaState::Recovery, CaState::Open, 0);
    assert_eq!((c.epoch(), c.w_max()), (epoch, w_max));
    assert_eq!((w.cwnd, w.ssthresh), (before.cwnd, before.ssthresh));
}

#[test]
fn hystart_exit_starts_cubic_at_k_zero() {
    // Delay rises by 20 ms (> 12.5 ms threshold at 100 ms) from the third round on.
    let (mut c, mut w) = cubic(CubicParams { hystart: true, ..Default::default() });
    let mut now = Time::ZERO;
    let mut round = 0;
    let mut acked = 0;
    while c.epoch().is_none() {
        round += 1;
        assert!(round < 40, "HyStart++ never left slow start");
        let rtt = if round < 3 { 100 } else { 120 } * NS_PER_MS;
        let n = w.cwnd / MSS;
        for i in 0..n {
            let t = now + rtt * (i as u64 + 1) / n as u64;
            acked += MSS;
            // The sender filled the window after the previous ACK; this one
            // takes a segment out of flight.
            let in_flight = w.cwnd - MSS;
            let a = Ack { now: t, bytes_acked: MSS, bytes_delivered: MSS, prior_in_flight: in_flight + MSS, in_flight, rtt: Some(rtt), state: CaState::Open, cwnd_limited: true };
            c.on_rtt_sample(t, rtt);
            c.on_ack(&mut w, &a);
        }
        now += rtt;
    }
    let e = c.epoch().unwrap();
    assert_eq!(e.k, 0.0);
    assert_eq!(c.w_max(), Some(e.cwnd_epoch));
    assert_eq!(w.ssthresh, (e.cwnd_epoch * MSS as f64) as u64);
    // Slow start doubles 10 → 20 → 40 → 80 over rounds 1–3. HyStart++'s
    // rounds end a few ACKs before these (windowEnd is snd_nxt when a round
    // opens), so its third round still holds 100 ms samples; its fourth is
    // all 120 ms ≥ 100 + 12.5 and enters CSS at the 8th sample, cwnd ≈ 88.
    // CSS then grows at most ×1.25 per round for five rounds, the partial
    // one included: cwnd_epoch in [88·1.25^4, 88·1.25^5] = [215, 269],
    // where plain slow start would be at 88·2^5 = 2816.
    println!("HyStart++ left slow start after {round} rounds at {} segments ({acked} bytes acked)", e.cwnd_epoch);
    assert!(e.cwnd_epoch >= 215.0 && e.cwnd_epoch <= 269.0, "cwnd_epoch {}", e.cwnd_epoch);
    assert_eq!(round, 8, "3 rounds of slow start and 5 of CSS");
}

#[test]
fn scenario_names_cubic_and_its_parameters() {
    let text = r#"
preset = "dumbbell"
[simulation]
duration = "3s"
[dumbbell]
flows = 2
bottleneck_rate = "10Mbps"
bottleneck_delay = "20ms"
[dumbbell.tcp]
cc = "cubic"
[dumbbell.tcp.cubic]
beta = 0.8
hystart = true
"#;
    let s = crate::scenario::parse_str(text, "t.toml").unwrap();
    let crate::scenario::AppSpec::Bulk { tcp, .. } = &s.flows[0].app else { panic!("bulk flow expected") };
    let want = CubicParams { beta: 0.8, hystart: true, ..Default::default() };
    assert_eq!(tcp.cc, crate::scenario::CcAlgo::Cubic(want));
    assert_eq!(super::super::by_name(tcp.cc).name(), "cubic");
    // The run goes through and moves data.
    let r = crate::sim::run(&s, crate::sim::RunOptions::default()).unwrap();
    assert!(r.flows.iter().all(|f| f.bytes_delivered > 100_000), "{:?}", r.flows);
}

#[test]
fn a_window_it_does_not_fill_neither_grows_nor_ages_the_epoch() {
    // §5.8. W_max = 100, RTT 100 ms: 2 s window-limited, 3 s with half the
    // window in flight (rwnd- or application-limited), 1 s limited again.
    // The middle 3 s leave cwnd alone and do not count in t, so at the end
    // cwnd is on the curve at t = 3 s, not 6 s: W(3) = 0.4(3 − 4.217)^3 + 100
    // = 99.28, against W(6) = 102.27. Tolerance 0.5 segment as in
    // window_follows_the_cubic_after_a_loss.
    let rtt = 100 * NS_PER_MS;
    let (mut c, mut w) = cubic(CubicParams::default());
    w.cwnd = 100 * MSS;
    c.on_rtt_sample(Time::ZERO, rtt);
    loss(&mut c, &mut w, Time::ZERO, CongestionEvent::FastRetransmit);
    let mut t = drive(&mut c, &mut w, Time::ZERO, 2 * NS_PER_SEC, rtt, |_, _| {});
    let start = c.epoch().unwrap().start;
    let held = w.cwnd;
    for _ in 0..30 * 70 {
        t += rtt / 70;
        let a = Ack { prior_in_flight: w.cwnd / 2, ..ack_full(t, MSS, &w) };
        c.on_ack(&mut w, &a);
    }
    assert_eq!(w.cwnd, held, "no growth while the window is not full");
    let shifted = c.epoch().unwrap().start - start;
    assert!(shifted.abs_diff(3 * NS_PER_SEC) <= rtt / 70, "epoch moved by {shifted:?}");
    drive(&mut c, &mut w, t, NS_PER_SEC, rtt, |_, _| {});
    let expect = 0.4 * (3.0 - 75f64.cbrt()).powi(3) + 100.0;
    println!("after 2 + 3 (limited) + 1 s: cwnd {:.2}, W(3 s) {expect:.2}", segs(&w));
    assert!((segs(&w) - expect).abs() < 0.5, "cwnd {:.2} vs W(3 s) {expect:.2}", segs(&w));
}

fn linux(beta: f64) -> CubicParams {
    CubicParams { beta, linux: true, ..Default::default() }
}

#[test]
fn linux_beta_scale_is_tcp_cubic_c_integer_arithmetic() {
    // 8·(1024 + 819)/3/(1024 − 819) = 14744/3/205 = 4914/205 = 23;
    // 8·(1024 + 717)/3/307 = 4642/307 = 15.
    assert_eq!(Cubic::linux_beta_scale(0.8), 23);
    assert_eq!(Cubic::linux_beta_scale(0.7), 15);
}

#[test]
fn linux_sets_ssthresh_from_cwnd_and_looks_ahead_by_the_minimum_rtt() {
    // A loss at cwnd = 100 segments with only 50 in flight: Linux takes
    // β·cwnd = ⌊100·819/1024⌋ = 79 (the RFC β·FlightSize = 40).
    let (mut c, mut w) = cubic(linux(0.8));
    c.on_rtt_sample(Time::ZERO, 100 * NS_PER_MS);
    c.on_rtt_sample(Time::ZERO, 500 * NS_PER_MS); // SRTT rises; the minimum stays 100 ms
    w.cwnd = 100 * MSS;
    w.ssthresh = c.ssthresh(&w, 50 * MSS, CongestionEvent::FastRetransmit, Time::ZERO);
    assert_eq!(w.ssthresh, 79 * MSS);
    w.cwnd = w.ssthresh;
    // The first ACK of the epoch: K = cbrt(21/0.4) = 3.744 s, target
    // W(0 + 0.1 s) = 100 − ⌊0.4·3.644^3⌋ = 100 − ⌊19.37⌋ = 81, cnt = ⌊79/2⌋
    // = 39 (max_increment's floor ⌊79/16⌋ = 4 does not bind): one 1000 B
    // segment acked adds ⌊1000/39⌋ = 25 B.
    let a = ack_full(NS_PER_SEC, MSS, &w);
    c.on_ack(&mut w, &a);
    assert_eq!(w.cwnd, 79 * MSS + 25, "cwnd {}", w.cwnd);
    // Looking ahead by SRTT (150 ms after the two samples) would give
    // 100 − ⌊18.57⌋ = 82, cnt = ⌊79/3⌋ = 26 and 38 B.
}

#[test]
fn linux_reno_friendly_estimate_grows_eight_23rds_of_a_segment_per_rtt() {
    // W_max 10, cwnd ⌊10·819/1024⌋ = 7, RTT 10 ms: the cubic gains under 3
    // segments in 1 s, the Reno estimate one segment per ⌊cwnd·23/8⌋ ACKs
    // (an ACK per segment here), i.e. about 8/23 per RTT whatever the
    // window: 7 + 100·8/23 = 41.8 after 100 RTTs. cwnd follows
    // it within a window (cnt = cwnd/(W_est − cwnd)), and steps in whole
    // segments: [W_est − 2, W_est + 1].
    let rtt = 10 * NS_PER_MS;
    let (mut c, mut w) = cubic(linux(0.8));
    c.on_rtt_sample(Time::ZERO, rtt);
    w.cwnd = 10 * MSS;
    loss(&mut c, &mut w, Time::ZERO, CongestionEvent::FastRetransmit);
    assert_eq!(w.cwnd, 7 * MSS);
    drive(&mut c, &mut w, Time::ZERO, 100 * rtt, rtt, |_, _| {});
    let est = 7.0 + 100.0 * 8.0 / 23.0;
    assert!(segs(&w) > est - 2.0 && segs(&w) < est + 1.0, "cwnd {:.2} vs {est:.2}", segs(&w));
}

#[test]
fn linux_timeout_forgets_w_max_and_the_minimum_rtt() {
    let (mut c, mut w) = cubic(linux(0.8));
    c.on_rtt_sample(Time::ZERO, 100 * NS_PER_MS);
    w.cwnd = 100 * MSS;
    loss(&mut c, &mut w, Time::ZERO, CongestionEvent::Timeout);
    assert_eq!(c.w_max(), None);
    // The next epoch starts at its own window with K = 0, and with no loss
    // remembered cnt is 50: a 1000 B segment acked adds 20 B.
    w.ssthresh = MSS;
    w.cwnd = 20 * MSS;
    let a = ack_full(NS_PER_SEC, MSS, &w);
    c.on_ack(&mut w, &a);
    assert_eq!(c.epoch().unwrap().k, 0.0);
    assert_eq!(c.w_max(), Some(20.0));
    assert_eq!(w.cwnd, 20 * MSS + 20);
}

#[test]
fn linux_undo_gives_back_max_of_cwnd_and_w_max_not_the_cubic_state() {
    // A fast retransmit at 100 segments: W_max 100, ssthresh 79. Undone:
    // cwnd = max(79, 100) = 100 and the old ssthresh.
    let (mut c, mut w) = cubic(linux(0.8));
    w.cwnd = 100 * MSS;
    let before = w;
    loss(&mut c, &mut w, Time::ZERO, CongestionEvent::FastRetransmit);
    c.undo(&mut w, &before);
    assert_eq!((w.cwnd, w.ssthresh), (100 * MSS, before.ssthresh));
    // After a timeout the reset forgot W_max: the window stays where the
    // timeout left it (and slow-starts back to the old ssthresh).
    let (mut c, mut w) = cubic(linux(0.8));
    w.cwnd = 100 * MSS;
    let before = w;
    loss(&mut c, &mut w, Time::ZERO, CongestionEvent::Timeout);
    c.undo(&mut w, &before);
    assert_eq!(w.cwnd, MSS);
    assert_eq!(w.ssthresh, before.ssthresh);
}

#[test]
fn linux_beta_at_one_does_not_divide_by_zero() {
    // beta 0.9996 rounds to 1024/1024: held at 1023 as the kernel's int would be.
    assert_eq!(Cubic::linux_beta_scale(0.9996), 8 * 2047 / 3);
}
