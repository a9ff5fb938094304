//! BBR driven by hand-made ACKs on an ideal pipe: every ACK delivers one
//! 1000-byte segment, the segment left one RTT earlier when `rate × RTT`
//! fewer bytes had been delivered, so each rate sample measures `rate` and a
//! packet-timed round lasts one RTT of ACKs.

use super::*;

const MSS: u64 = 1000;
const MS: Time = NS_PER_MS;
/// Path: 1 MB/s (8 Mb/s payload), 40 ms RTT, BDP 40 000 B = 40 segments.
const C: f64 = 1e6;
const RTT: Time = Time::from_millis(40);
const BDP: u64 = 40_000;
/// 3 send quanta of one segment each (the sender transmits single segments:
/// see the module notes on draft §4.2.2).
const QUANTA: u64 = 3 * MSS;

struct Driver {
    b: Bbr,
    w: Window,
    now: Time,
    delivered: u64,
}

impl Driver {
    fn new(p: BbrParams) -> Self {
        let mut b = Bbr::new(p);
        let mut w = Window { cwnd: 10 * MSS, ssthresh: u64::MAX / 2, mss: MSS };
        b.on_rtt_sample(Time::ZERO, RTT);
        b.init(&mut w, Time::ZERO, 40);
        Driver { b, w, now: Time::ZERO, delivered: 0 }
    }

    /// One ACK `gap` after the last, delivering one segment.
    fn ack(&mut self, gap: Time, rate: f64, rtt: Time, in_flight: u64, state: CaState, app_limited: bool) {
        self.now += gap;
        self.delivered += MSS;
        let span = ((rate * rtt.0 as f64 / 1e9) as u64).clamp(MSS, self.delivered);
        let rs = RateSample { delivered: span, interval: rtt, prior_delivered: self.delivered - span, app_limited, rtt: Some(rtt) };
        self.b.on_rate_sample(self.now, &rs);
        let ack = Ack { now: self.now, bytes_acked: MSS, bytes_delivered: MSS, prior_in_flight: in_flight, in_flight, rtt: Some(rtt), state, cwnd_limited: true };
        self.b.on_ack(&mut self.w, &ack);
    }

    /// ACKs at the path rate (one per ms) for `n` ms.
    fn steady(&mut self, n: u64, in_flight: u64) {
        for _ in 0..n {
            self.ack(MS, C, RTT, in_flight, CaState::Open, false);
        }
    }

    /// A driver that has left Startup and Drain.
    fn in_probe_bw() -> Self {
        let mut d = Driver::new(BbrParams::default());
        while d.b.mode() != Mode::ProbeBw {
            d.steady(1, BDP);
            assert!(d.now < 2 * NS_PER_SEC, "never reached ProbeBW");
        }
        d
    }
}

#[test]
fn max_filter_keeps_the_last_window_rounds() {
    let mut f = MaxFilter::new(10);
    f.update(1, 5.0);
    f.update(2, 3.0);
    assert_eq!(f.get(), 5.0);
    f.update(10, 4.0);
    assert_eq!(f.get(), 5.0, "round 1 is one of the ten rounds 1..=10");
    f.update(11, 2.0);
    assert_eq!(f.get(), 4.0, "round 1 expired; 4 (round 10) beats 3 (round 2, dominated)");
    f.update(25, 1.0);
    assert_eq!(f.get(), 1.0);
}

#[test]
fn startup_drain_probe_bw_on_a_full_pipe() {
    let mut d = Driver::new(BbrParams::default());
    let hg = 2.0 / std::f64::consts::LN_2;
    // Initial pacing: high_gain × IW × (1040/1000 wire bytes) / RTT (draft §4.2.1).
    let init = hg * 10_000.0 * 1.04 / 0.040;
    assert!((d.b.pacing_rate().unwrap() as f64 - init).abs() < 2.0);
    // Round 1 (the first 40 ACKs) measures a ramp below C; round 2 (ACK 41) the
    // full rate, more than 25 % above: full_bw resets. Rounds 3, 4, 5 bring no
    // growth: full_bw_rounds = 3 ends Startup at the start of round 5.
    // Keep inflight above one BDP so that Drain has a queue to drain.
    let mut acks = 0;
    while d.b.mode() == Mode::Startup {
        assert_eq!(d.b.pacing_gain(), hg);
        d.steady(1, 3 * BDP);
        acks += 1;
        assert!(acks < 1000);
    }
    assert_eq!(d.b.mode(), Mode::Drain);
    assert_eq!(d.b.round_count(), 5);
    assert_eq!(acks, 4 * 40 + 1, "round 5 starts on ACK 161");
    assert!((d.b.btl_bw() - C).abs() < 1.0);
    assert!((d.b.pacing_gain() - 1.0 / hg).abs() < 1e-12);
    // Drain lasts while inflight exceeds BDP + 3 quanta (draft §4.3.3).
    d.steady(5, BDP + QUANTA + 1);
    assert_eq!(d.b.mode(), Mode::Drain);
    // ssthresh was set on entry: one BDP plus the 3 quanta.
    assert_eq!(d.w.ssthresh, BDP + QUANTA, "Drain reports one BDP in ssthresh");
    d.steady(1, BDP + QUANTA);
    assert_eq!(d.b.mode(), Mode::ProbeBw);
    assert_eq!(d.b.pacing_gain(), GAIN_CYCLE[START_PHASE]);
    assert_eq!(d.b.cwnd_gain(), 2.0);
    // Gain 1: pacing = BtlBw in wire bytes; cwnd = 2 BDP + 3 quanta.
    d.steady(1, BDP);
    assert_eq!(d.b.pacing_rate(), Some(1_040_000));
    assert_eq!(d.w.cwnd, 2 * BDP + QUANTA);
}

#[test]
fn probe_bw_cycles_the_gains_one_rtprop_each() {
    let mut d = Driver::in_probe_bw();
    let mut gains = vec![(d.now, d.b.pacing_gain())];
    let mut index = d.b.cycle_index;
    while gains.len() < 12 {
        // Inflight reaches 5/4 BDP + quanta in the probing phase (so it may
        // end) and stays above BDP + quanta in the draining one (so it lasts).
        let g = d.b.pacing_gain();
        let inflight = if g > 1.0 { 60_000 } else if g < 1.0 { 50_000 } else { BDP };
        d.steady(1, inflight);
        if d.b.cycle_index != index {
            index = d.b.cycle_index;
            gains.push((d.now, d.b.pacing_gain()));
        }
    }
    let seq: Vec<f64> = gains.iter().map(|g| g.1).collect();
    let expect: Vec<f64> = (0..12).map(|i| GAIN_CYCLE[(START_PHASE + i) % 8]).collect();
    assert_eq!(seq, expect);
    // A phase ends on the first ACK more than RTprop (40 ms) after it began:
    // ACKs come every 1 ms, so every phase lasts 41 ms.
    for p in gains.windows(2) {
        assert_eq!(p[1].0 - p[0].0, 41 * MS);
    }
    // The 5/4 phase holds until inflight reaches 5/4 BDP + quanta ...
    while d.b.pacing_gain() <= 1.0 {
        d.steady(1, BDP);
    }
    d.steady(100, 5 * BDP / 4 + QUANTA - 1);
    assert_eq!(d.b.pacing_gain(), 1.25);
    assert_eq!(d.b.pacing_rate(), Some(1_300_000));
    d.steady(1, 5 * BDP / 4 + QUANTA);
    // ... and the 3/4 phase ends early once inflight is down to BDP + quanta.
    assert_eq!(d.b.pacing_gain(), 0.75);
    d.steady(1, BDP + QUANTA);
    assert_eq!(d.b.pacing_gain(), 1.0);
}

#[test]
fn probe_rtt_after_ten_seconds_without_a_lower_rtt() {
    // The entering ACK still had a full BDP in flight; the next one, 10 ms
    // later, finds 4 segments and starts the clock. The mode ends on the first
    // ACK strictly after max(duration, one round): with ACKs 10 ms apart,
    // 10 + 200 + 10 ms; and 10 + 40 ms when a round (4 ACKs) outlasts 10 ms.
    // 600 ms is 15 rounds, longer than the 10-round BtlBw window: only the
    // app-limited marking keeps its low rates out of the filter.
    for (duration, stay_expected) in [(200 * MS, 220 * MS), (10 * MS, 50 * MS), (600 * MS, 620 * MS)] {
        let mut d = Driver::new(BbrParams { probe_rtt_duration: duration, ..Default::default() });
        while d.b.mode() != Mode::ProbeBw {
            d.steady(1, BDP);
        }
        let last_40 = d.now;
        let cwnd = d.w.cwnd;
        // RTT 50 ms from now on: RTprop (40 ms) is not refreshed.
        while d.b.mode() == Mode::ProbeBw {
            d.ack(MS, C, 50 * MS, BDP, CaState::Open, false);
        }
        assert_eq!(d.b.mode(), Mode::ProbeRtt);
        // Entered on the first ACK after min_rtt_window (10 s) from the last 40 ms sample.
        assert_eq!(d.now, last_40 + 10 * NS_PER_SEC + MS);
        assert_eq!(d.w.cwnd, MIN_PIPE_SEGS * MSS);
        assert_eq!(d.b.pacing_gain(), 1.0);
        // Four segments per 40 ms round: one ACK every 10 ms, at a rate far
        // below BtlBw that must not enter the filter.
        let entered = d.now;
        let mut done_at = None;
        while d.b.mode() == Mode::ProbeRtt {
            d.ack(10 * MS, C / 10.0, RTT, MIN_PIPE_SEGS * MSS, CaState::Open, false);
            done_at = Some(d.now);
            assert!(d.now - entered < NS_PER_SEC);
        }
        assert_eq!(done_at.unwrap() - entered, stay_expected, "ProbeRTT of {duration:?}");
        assert_eq!(d.b.mode(), Mode::ProbeBw);
        assert!((d.b.btl_bw() - C).abs() < 1.0, "ProbeRTT rates were ignored: {}", d.b.btl_bw());
        assert_eq!(d.b.rt_prop(), Some(RTT));
        assert_eq!(d.w.cwnd, cwnd, "cwnd restored");
    }
}

#[test]
fn app_limited_samples_enter_only_above_the_max() {
    let mut d = Driver::in_probe_bw();
    // Twelve rounds of app-limited samples at half the rate: ignored, and so
    // the full-rate sample outlives the 10-round window.
    for _ in 0..12 * 40 {
        d.ack(MS, C / 2.0, RTT, BDP, CaState::Open, true);
    }
    assert!((d.b.btl_bw() - C).abs() < 1.0);
    // One that is not app-limited replaces the expired maximum.
    d.ack(MS, C / 2.0, RTT, BDP, CaState::Open, false);
    assert!((d.b.btl_bw() - C / 2.0).abs() < 1.0, "{}", d.b.btl_bw());
    // An app-limited sample above the maximum enters.
    d.ack(MS, 2.0 * C, RTT, BDP, CaState::Open, true);
    assert!((d.b.btl_bw() - 2.0 * C).abs() < 1.0);
}

#[test]
fn recovery_conserves_packets_then_restores_cwnd_and_keeps_ssthresh() {
    let mut d = Driver::in_probe_bw();
    d.steady(1, BDP);
    let cwnd = d.w.cwnd;
    assert_eq!(cwnd, 2 * BDP + QUANTA);
    // Fast retransmit: ssthresh stays where it was (BBR v1 does not cut).
    let before = d.w.ssthresh;
    assert_eq!(d.b.ssthresh(&d.w, 70_000, CongestionEvent::FastRetransmit, d.now), before);
    d.b.on_state_change(&mut d.w, d.now, CaState::Open, CaState::Recovery, 70_000);
    // First recovery ACK: cwnd = inflight + acked (packet conservation).
    d.ack(MS, C, RTT, 30_000, CaState::Recovery, false);
    assert_eq!(d.w.cwnd, 31_000);
    // Within that round cwnd never falls below inflight + acked, nor grows beyond it.
    d.ack(MS, C, RTT, 35_000, CaState::Recovery, false);
    assert_eq!(d.w.cwnd, 36_000);
    d.ack(MS, C, RTT, 20_000, CaState::Recovery, false);
    assert_eq!(d.w.cwnd, 36_000);
    // Back to Open: the cwnd saved at the event returns.
    d.ack(MS, C, RTT, 20_000, CaState::Open, false);
    assert_eq!(d.w.cwnd, cwnd);

    // A timeout: the sender sets one segment; BBR lifts it to its 4-segment
    // floor, grows by the bytes delivered per ACK and restores on Open.
    d.b.ssthresh(&d.w, 70_000, CongestionEvent::Timeout, d.now);
    d.w.cwnd = MSS;
    d.b.on_state_change(&mut d.w, d.now, CaState::Open, CaState::Loss, 0);
    d.ack(MS, C, RTT, MSS, CaState::Loss, false);
    assert_eq!(d.w.cwnd, MIN_PIPE_SEGS * MSS);
    d.ack(MS, C, RTT, 2 * MSS, CaState::Loss, false);
    assert_eq!(d.w.cwnd, (MIN_PIPE_SEGS + 1) * MSS);
    d.ack(MS, C, RTT, 2 * MSS, CaState::Open, false);
    assert_eq!(d.w.cwnd, cwnd);
}

#[test]
fn a_duplicate_ack_without_sack_counts_and_conserves_packets() {
    // Without SACK each duplicate ACK delivers a segment but yields no rate
    // sample: BBR counts it and, in recovery, lets one segment out per ACK.
    let mut d = Driver::in_probe_bw();
    let before = d.b.delivered;
    d.b.ssthresh(&d.w, 70_000, CongestionEvent::FastRetransmit, d.now);
    for (i, in_flight) in [60_000u64, 60_000, 61_000].into_iter().enumerate() {
        let ack = Ack { now: d.now, bytes_acked: 0, bytes_delivered: MSS, prior_in_flight: in_flight, in_flight, rtt: None, state: CaState::Recovery, cwnd_limited: true };
        d.b.on_ack(&mut d.w, &ack);
        assert_eq!(d.b.delivered, before + (i as u64 + 1) * MSS);
        assert_eq!(d.w.cwnd, in_flight + MSS, "packet conservation");
    }
    // The round of conservation started at the first of them.
    assert_eq!(d.b.next_round_delivered, before + MSS);
}

/// The cwnd budget must not jump with the pacing rate. Draft §4.2.2's
/// quantum (1 SMSS below a 1.2 Mb/s pacing rate, 2 SMSS above) is meant for
/// TSO/GSO aggregates; applied to a sender of single segments it turned
/// 3 quanta from 3 into 6 segments at 1.2 Mb/s, and ten flows sharing 10 Mb/s
/// (fair share 1 Mb/s, right at the step) split into two groups whose windows
/// 2 BDP + 3 quanta differed by a factor of two (Jain 0.91 vs ns-3's 0.99;
/// ns-3's TcpBbr::SetSendQuantum uses one segment, as this sender does).
/// Two paths whose BtlBw straddles the step (payload 1.12 and 1.28 Mb/s,
/// wire pacing × 1.04 = 1.165 and 1.331 Mb/s at gain 1) both get exactly
/// cwnd_gain × BtlBw × RTprop + 3 segments (draft §4.2.3.2).
#[test]
fn cwnd_budget_is_three_segments_on_both_sides_of_1_2_mbps() {
    for rate in [140_000.0, 160_000.0] {
        let mut d = Driver::new(BbrParams::default());
        let bdp = (rate * RTT.0 as f64 / 1e9) as u64;
        while d.b.mode() != Mode::ProbeBw {
            d.ack(MS, rate, RTT, bdp, CaState::Open, false);
            assert!(d.now < 5 * NS_PER_SEC, "never reached ProbeBW at {rate} B/s");
        }
        d.ack(MS, rate, RTT, bdp, CaState::Open, false);
        assert_eq!(d.b.pacing_gain(), 1.0);
        let pacing_bps = d.b.pacing_rate().unwrap() * 8;
        assert!((pacing_bps as f64 - rate * 8.0 * 1.04).abs() < 8.0, "pacing {pacing_bps} b/s");
        assert_eq!(d.b.inflight(2.0), 2 * bdp + 3 * MSS, "BtlBw {rate} B/s (pacing {pacing_bps} b/s)");
    }
}
