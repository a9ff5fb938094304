//! Stories for the sender, driven by hand-written ACKs: ten segments go out,
//! segments 2 and 5 (0-based) are lost, and the receiver's ACKs come back.

use super::*;
use crate::net::packet::SackBlocks;
use crate::tcp::cc;

const MSS: u64 = 100;
const WND: u64 = 100_000;

fn sender(cc_algo: CcAlgo, sack: bool) -> TcpSender {
    sender_with(TcpSpec { cc: cc_algo, sack, mss: MSS as u32, initial_window: 10, limited_transmit: false, ..Default::default() })
}

fn sender_with(spec: TcpSpec) -> TcpSender {
    let mut s = TcpSender::new(spec.clone(), cc::by_name(spec.cc), None);
    s.start();
    let syn = s.poll(Time::ZERO).unwrap();
    assert!(syn.flags.has(TcpFlags::SYN));
    s.on_segment(Time(10), &TcpHeader { flags: TcpFlags(TcpFlags::SYN | TcpFlags::ACK), ack: 1, wnd: WND, ..Default::default() });
    s
}

fn drain(s: &mut TcpSender, now: Time) -> Vec<u64> {
    std::iter::from_fn(|| s.poll(now)).map(|h| (h.seq - 1) / MSS).collect()
}

fn ack(s: &mut TcpSender, now: Time, upto_seg: u64, sacked: &[(u64, u64)]) {
    let mut sack = SackBlocks::default();
    for &(a, b) in sacked.iter().take(4) {
        sack.push((1 + a * MSS, 1 + b * MSS));
    }
    s.on_segment(now, &TcpHeader { ack: 1 + upto_seg * MSS, wnd: WND, flags: TcpFlags(TcpFlags::ACK), sack, ..Default::default() });
}

/// ACKs for segments 0..10 with 2 and 5 lost: acks through 2, then duplicates.
fn first_round(s: &mut TcpSender, t: Time) -> Vec<u64> {
    assert_eq!(drain(s, t), (0..10).collect::<Vec<_>>());
    let mut sent = Vec::new();
    ack(s, t + Time(100), 1, &[]);
    ack(s, t + Time(101), 2, &[]);
    sent.extend(drain(s, t + Time(101)));
    // Segments 3, 4, 6, 7, 8, 9 arrive: six duplicate ACKs for 2.
    let arrived = [3, 4, 6, 7, 8, 9];
    for (i, seg) in arrived.iter().enumerate() {
        let blocks: Vec<(u64, u64)> = if *seg < 5 { vec![(3, seg + 1)] } else { vec![(6, seg + 1), (3, 5)] };
        ack(s, t + Time(102) + Time(i as u64), 2, &blocks);
        sent.extend(drain(s, t + Time(102) + Time(i as u64)));
    }
    sent
}

#[test]
fn newreno_repairs_both_losses_in_one_recovery() {
    let mut s = sender(CcAlgo::NewReno, false);
    let sent = first_round(&mut s, Time(20));
    // Slow start sent 11 and 12..13 on the two new ACKs; the third duplicate
    // ACK retransmits segment 2 (RFC 6582 step 2).
    assert!(sent.contains(&2), "fast retransmit of segment 2: {sent:?}");
    assert_eq!(s.stats.fast_recoveries, 1);
    // Segment 2 arrives: a partial ACK up to the second hole, 5.
    ack(&mut s, Time(300), 5, &[]);
    assert_eq!(drain(&mut s, Time(300)).first(), Some(&5), "partial ACK retransmits the next hole at once");
    assert!(s.in_recovery, "NewReno stays in recovery after a partial ACK");
    // Segment 5 arrives: everything up to `recover` is acknowledged.
    let recover = s.recover;
    s.on_segment(Time(400), &TcpHeader { ack: recover, wnd: WND, flags: TcpFlags(TcpFlags::ACK), ..Default::default() });
    assert!(!s.in_recovery);
    assert_eq!(s.stats.fast_recoveries, 1, "one window, one reduction");
    assert_eq!(s.stats.retransmits, 2);
    assert_eq!(s.stats.timeouts, 0);
    // ssthresh = FlightSize/2 at the event: 12 segments outstanding (2..13) → 6.
    assert_eq!(s.ssthresh(), 6 * MSS);
}

#[test]
fn reno_leaves_recovery_on_the_partial_ack() {
    let mut s = sender(CcAlgo::Reno, false);
    first_round(&mut s, Time(20));
    ack(&mut s, Time(300), 5, &[]);
    assert!(!s.in_recovery, "Reno ends fast recovery on the first new ACK");
    assert_eq!(s.cwnd(), s.ssthresh());
    // Segment 5 is not retransmitted at once: Reno needs three more duplicates (or the RTO).
    assert!(!drain(&mut s, Time(300)).contains(&5));
}

#[test]
fn sack_retransmits_both_holes_within_one_round_trip() {
    let mut s = sender(CcAlgo::NewReno, true);
    let sent = first_round(&mut s, Time(20));
    // With SACK, IsLost(5) holds once three segments above it are SACKed (6, 7, 8),
    // and NextSeg picks it as soon as pipe allows, before any partial ACK.
    let pos2 = sent.iter().position(|x| *x == 2).expect("2 retransmitted");
    let pos5 = sent.iter().position(|x| *x == 5).expect("5 retransmitted before the partial ACK");
    assert!(pos2 < pos5);
    assert_eq!(s.stats.fast_recoveries, 1);
}

#[test]
fn timeout_goes_back_to_one_segment_and_backs_off() {
    let mut s = sender(CcAlgo::NewReno, false);
    assert_eq!(drain(&mut s, Time(20)).len(), 10);
    let d = s.deadline().expect("RTO armed");
    s.on_timer(d);
    assert_eq!(s.cwnd(), MSS);
    assert_eq!(drain(&mut s, d), vec![0], "go-back-N from snd_una, one segment");
    let d2 = s.deadline().unwrap();
    assert_eq!(d2 - d, 2 * (d - Time(20)), "RTO doubled (RFC 6298 §5.5)");
    // Karn: the ACK of a retransmitted segment gives no RTT sample.
    let samples = s.stats.rtt_samples;
    ack(&mut s, d + Time(50), 1, &[]);
    assert_eq!(s.stats.rtt_samples, samples);
}

#[test]
fn limited_transmit_turns_a_small_window_loss_into_a_fast_retransmit() {
    for lt in [false, true] {
        let spec = TcpSpec { mss: MSS as u32, initial_window: 3, limited_transmit: lt, ..Default::default() };
        let mut s = sender_with(spec);
        assert_eq!(drain(&mut s, Time(20)), vec![0, 1, 2]);
        // Segment 0 is lost; 1 and 2 arrive: two duplicate ACKs.
        ack(&mut s, Time(100), 0, &[]);
        let first = drain(&mut s, Time(100));
        ack(&mut s, Time(101), 0, &[]);
        let second = drain(&mut s, Time(101));
        if !lt {
            assert!(first.is_empty() && second.is_empty(), "cwnd is full: nothing may go out");
            continue;
        }
        // RFC 3042: one new segment per duplicate, cwnd unchanged.
        assert_eq!((first, second), (vec![3], vec![4]));
        assert_eq!(s.cwnd(), 3 * MSS);
        // Their ACKs are the third duplicate: fast retransmit instead of a timeout.
        ack(&mut s, Time(200), 0, &[]);
        assert_eq!(drain(&mut s, Time(200)).first(), Some(&0));
        assert_eq!(s.stats.fast_recoveries, 1);
    }
}

#[test]
fn a_timeout_that_clears_sacks_does_not_count_deliveries_twice() {
    let mut s = sender(CcAlgo::NewReno, true);
    assert_eq!(drain(&mut s, Time(20)).len(), 10);
    // Segment 0 is lost; 1..=9 arrive and are SACKed: 900 bytes delivered.
    ack(&mut s, Time(100), 0, &[(1, 10)]);
    drain(&mut s, Time(100));
    assert_eq!(s.rate.delivered, 900);
    // The timer expires: the SACK marks are cleared (the receiver may renege)
    // and go-back-N resends from segment 0.
    let d = s.deadline().expect("RTO armed");
    s.on_timer(d);
    assert_eq!(drain(&mut s, d).first(), Some(&0));
    // The cumulative ACK covers all ten segments: only segment 0 is new. The
    // rate sample must not see the 900 SACKed bytes again.
    ack(&mut s, d + Time(50), 10, &[]);
    assert_eq!(s.rate.delivered, 1000);
}

const MS: Time = crate::engine::NS_PER_MS;

/// Ten segments leave at 20 ms, nothing comes back before the RTO (1 s): the
/// timeout retransmits segment 0. Returns the time of the timeout.
fn stall_until_timeout(s: &mut TcpSender) -> Time {
    assert_eq!(drain(s, 20 * MS).len(), 10);
    let d = s.deadline().expect("RTO armed");
    s.on_timer(d);
    assert_eq!(drain(s, d), vec![0]);
    d
}

fn ack_ts(s: &mut TcpSender, now: Time, upto_seg: u64, tsecr: u32) {
    let h = TcpHeader { ack: 1 + upto_seg * MSS, wnd: WND, flags: TcpFlags(TcpFlags::ACK), ts: Some((0, tsecr)), ..Default::default() };
    s.on_segment(now, &h);
}

fn spurious_spec(detection: SpuriousDetection, response: bool, ts: bool) -> TcpSpec {
    TcpSpec {
        mss: MSS as u32,
        initial_window: 10,
        timestamps: ts,
        spurious_detection: detection,
        eifel_response: response,
        ..Default::default()
    }
}

#[test]
fn eifel_detects_a_spurious_timeout_and_resumes_with_new_data() {
    let mut s = sender_with(spurious_spec(SpuriousDetection::Eifel, true, true));
    let d = stall_until_timeout(&mut s);
    // The delayed originals' ACK arrives, echoing their timestamp (20 ms),
    // older than the retransmission's.
    ack_ts(&mut s, d + 100 * MS, 5, 20);
    assert_eq!(s.stats.spurious_timeouts, 1);
    // RFC 4015: no go-back-N; cwnd = FlightSize (5 segments) + min(acked, IW) = 10 segments.
    assert_eq!(s.cwnd(), 10 * MSS);
    assert_eq!(s.ssthresh(), 10 * MSS, "pipe_prev: FlightSize at the timeout");
    assert_eq!(drain(&mut s, d + 100 * MS), (10..15).collect::<Vec<_>>());
    assert_eq!(s.stats.retransmits, 1);
    // The RTO restarts from the spike's RTT (about 1.1 s): at least 1.1 s + 4·0.55 s.
    let rto = s.deadline().unwrap() - (d + 100 * MS);
    assert!(rto >= 3_300 * MS, "rto {rto:?}");
}

#[test]
fn eifel_leaves_a_genuine_timeout_alone_and_detection_alone_only_counts() {
    // The ACK echoes the retransmission's timestamp: the original was lost.
    let mut s = sender_with(spurious_spec(SpuriousDetection::Eifel, true, true));
    let d = stall_until_timeout(&mut s);
    ack_ts(&mut s, d + 100 * MS, 1, ts_clock(d));
    assert_eq!(s.stats.spurious_timeouts, 0);
    assert_eq!(drain(&mut s, d + 100 * MS), vec![1, 2], "go-back-N in slow start");
    // Spurious, but without the response: counted, then go-back-N anyway.
    let mut s = sender_with(spurious_spec(SpuriousDetection::Eifel, false, true));
    let d = stall_until_timeout(&mut s);
    ack_ts(&mut s, d + 100 * MS, 5, 20);
    assert_eq!(s.stats.spurious_timeouts, 1);
    assert_eq!(drain(&mut s, d + 100 * MS), vec![5, 6]);
}

#[test]
fn frto_sends_new_data_and_declares_spurious_on_the_second_new_ack() {
    let mut s = sender_with(spurious_spec(SpuriousDetection::Frto, true, false));
    let d = stall_until_timeout(&mut s);
    // Step 2b: the first new ACK sends two new segments, not 1, 2, ...
    ack(&mut s, d + 100 * MS, 3, &[]);
    assert_eq!(drain(&mut s, d + 100 * MS), vec![10, 11]);
    // Step 3b: a second new ACK: spurious; the response resumes with new data.
    ack(&mut s, d + 101 * MS, 6, &[]);
    assert_eq!(s.stats.spurious_timeouts, 1);
    let sent = drain(&mut s, d + 101 * MS);
    assert!(!sent.is_empty() && sent.iter().all(|&x| x >= 12), "{sent:?}");
    assert_eq!(s.stats.retransmits, 1);
}

#[test]
fn frto_goes_back_on_a_duplicate_ack_after_the_new_segments() {
    let mut s = sender_with(spurious_spec(SpuriousDetection::Frto, true, false));
    let d = stall_until_timeout(&mut s);
    ack(&mut s, d + 100 * MS, 3, &[]);
    assert_eq!(drain(&mut s, d + 100 * MS), vec![10, 11]);
    // Step 3a: segment 3 was really lost: the new segments bring duplicates.
    ack(&mut s, d + 101 * MS, 3, &[]);
    assert_eq!(s.stats.spurious_timeouts, 0);
    assert!(s.cwnd() <= 3 * MSS);
    assert_eq!(drain(&mut s, d + 101 * MS).first(), Some(&3), "retransmission resumes from snd_una");
}

#[test]
fn after_a_timeout_only_what_go_back_n_resent_is_in_flight() {
    // For an algorithm that owns cwnd (BBR); the Reno family keeps FlightSize.
    let mut s = sender(CcAlgo::Bbr(Default::default()), false);
    let mut reno = sender(CcAlgo::NewReno, false);
    assert_eq!(drain(&mut s, Time(20)).len(), 10);
    assert_eq!(drain(&mut reno, Time(20)).len(), 10);
    assert_eq!(s.in_flight(), 10 * MSS);
    let d = s.deadline().expect("RTO armed");
    s.on_timer(d);
    reno.on_timer(reno.deadline().unwrap());
    assert_eq!(reno.in_flight(), 10 * MSS);
    // Everything outstanding is deemed lost; go-back-N resends from snd_una.
    assert_eq!(s.in_flight(), 0);
    assert_eq!(drain(&mut s, d), vec![0]);
    assert_eq!(s.in_flight(), MSS);
    // Segment 0's ACK: BBR lifts cwnd to its 4-segment floor, 1..=4 are
    // resent (the pacing rate from the 10 ns handshake RTT spaces them by 0 ns).
    ack(&mut s, d + Time(50), 1, &[]);
    assert_eq!(s.cwnd(), 4 * MSS);
    assert_eq!(drain(&mut s, d + Time(50)), vec![1, 2, 3, 4]);
    assert_eq!(s.in_flight(), 4 * MSS);
}

#[test]
fn without_sack_duplicate_acks_count_each_delivery_once() {
    let mut s = sender(CcAlgo::NewReno, false);
    first_round(&mut s, Time(20));
    // Segments 0, 1 cumulatively ACKed, 3, 4, 6..=9 announced by six duplicates.
    assert_eq!(s.rate.delivered, 8 * MSS);
    // The partial ACK for 2..5: segment 2 is new, 3 and 4 were counted.
    ack(&mut s, Time(300), 5, &[]);
    assert_eq!(s.rate.delivered, 9 * MSS);
    // Everything below `recover` delivered, each byte once.
    let recover = s.recover;
    s.on_segment(Time(400), &TcpHeader { ack: recover, wnd: WND, flags: TcpFlags(TcpFlags::ACK), ..Default::default() });
    assert_eq!(s.rate.delivered, recover - 1);
}

#[test]
fn without_handshake_data_leaves_at_the_start_and_the_rto_waits_for_a_data_sample() {
    let spec = TcpSpec { mss: MSS as u32, initial_window: 2, handshake: false, initial_rto: 3_000 * MS, ..Default::default() };
    let mut s = TcpSender::new(spec.clone(), cc::by_name(spec.cc), None);
    assert!(s.poll(5 * MS).is_none(), "nothing before the application starts");
    s.start();
    let first = s.poll(5 * MS).expect("data at the start time");
    assert!(!first.flags.has(TcpFlags::SYN) && first.syn_opts.is_none());
    assert_eq!((first.seq, first.len), (1, MSS as u32), "payload byte k is still sequence number k + 1");
    assert_eq!(drain(&mut s, 5 * MS), vec![1], "the rest of the initial window");
    assert!(s.is_established());
    // No handshake sample: the timer runs on initial_rto.
    assert_eq!(s.stats.rtt_samples, 0);
    assert_eq!(s.deadline(), Some(3_005 * MS));
    ack(&mut s, 305 * MS, 1, &[]);
    assert_eq!((s.stats.rtt_samples, s.srtt()), (1, Some(300 * MS)));
    assert_eq!(s.bytes_acked(), MSS);
}

#[test]
fn a_500ms_timer_tick_arms_whole_ticks_from_the_handshake_sample() {
    // The SYN-ACK comes back after 10 ns: less than a tick, counted as one
    // (ns-2's t_rtt_ ≥ 1): srtt8 = 8, rttvar4 = 2, RTO = (16 + 8) >> 3 = 3 ticks.
    // RFC 6298 arithmetic would give 10 ns + 1 ms, raised to min_rto (1 s).
    for (tick, rto) in [(None, 1_000 * MS), (Some(500 * MS), 1_500 * MS)] {
        let spec = TcpSpec { mss: MSS as u32, timer_granularity: tick, ..Default::default() };
        let mut s = sender_with(spec);
        assert_eq!(drain(&mut s, 20 * MS).len(), 2);
        assert_eq!(s.deadline(), Some(20 * MS + rto), "tick {tick:?}");
    }
}

/// A steady transfer over a 100 ms path: every segment sent at t is
/// acknowledged alone at t + 100 ms. Returns the sender after `until`.
fn steady(sampling: RttSampling, until: Time) -> TcpSender {
    let spec = TcpSpec { mss: MSS as u32, initial_window: 2, rtt_sampling: sampling, ..Default::default() };
    let mut s = sender_with(spec);
    let mut acks = std::collections::VecDeque::new();
    let mut now = 20 * MS;
    loop {
        for seg in drain(&mut s, now) {
            acks.push_back((now + 100 * MS, seg + 1));
        }
        let Some((t, upto)) = acks.pop_front() else { break };
        if t > until {
            break;
        }
        now = t;
        ack(&mut s, now, upto, &[]);
    }
    s
}

#[test]
fn one_per_rtt_takes_one_sample_per_round_trip() {
    // Timed segments leave at 20, 120, ..., 920 ms and are acked 100 ms
    // later: ten samples by 1.02 s, plus the handshake's, each exactly 100 ms.
    let s = steady(RttSampling::OnePerRtt, 1_020 * MS);
    assert_eq!(s.stats.rtt_samples, 1 + 10);
    assert_eq!(s.stats.rtt_sum, (Time(10) + 10 * 100 * MS).0 as f64, "the handshake's 10 ns and ten of 100 ms");
    // every_ack: one per ACK, by then hundreds (slow start doubles each round).
    let e = steady(RttSampling::EveryAck, 1_020 * MS);
    assert!(e.stats.rtt_samples > 500, "{}", e.stats.rtt_samples);
    assert_eq!(e.bytes_acked(), s.bytes_acked(), "the sampling changes nothing else here");
}

#[test]
fn one_per_rtt_drops_the_timing_on_a_retransmission_even_with_timestamps() {
    for sampling in [RttSampling::EveryAck, RttSampling::OnePerRtt] {
        let spec = TcpSpec { rtt_sampling: sampling, ..spurious_spec(SpuriousDetection::Off, false, true) };
        let mut s = sender_with(spec);
        // Segment 0, the timed one, is resent by the timeout; the ACK of all
        // ten echoes the retransmission's timestamp.
        let d = stall_until_timeout(&mut s);
        assert_eq!(s.stats.rtt_samples, 1, "the handshake's");
        ack_ts(&mut s, d + 100 * MS, 10, ts_clock(d));
        let one = sampling == RttSampling::OnePerRtt;
        // every_ack measures it through TSecr (RFC 7323); one_per_rtt takes no
        // sample from a retransmitted timed segment (Karn), timestamps or not.
        assert_eq!(s.stats.rtt_samples, if one { 1 } else { 2 }, "{sampling:?}");
        // The next new segment is timed afresh.
        assert_eq!(drain(&mut s, d + 100 * MS), vec![10, 11]);
        ack_ts(&mut s, d + 200 * MS, 11, ts_clock(d + 100 * MS));
        assert_eq!(s.stats.rtt_samples, if one { 2 } else { 3 }, "{sampling:?}");
        assert_eq!(s.stats.rtt_max.filter(|_| one), one.then_some(100 * MS));
    }
}

#[test]
fn one_per_rtt_cancels_the_timing_on_a_fast_retransmit() {
    let spec = TcpSpec { rtt_sampling: RttSampling::OnePerRtt, ..spurious_spec(SpuriousDetection::Off, false, false) };
    let spec = TcpSpec { limited_transmit: false, ..spec };
    let mut s = sender_with(spec);
    // Segment 0 is timed (sample at 120), then segment 10, sent on its ACK.
    // Segment 2 is lost: the third duplicate ACK retransmits it.
    first_round(&mut s, Time(20));
    assert_eq!((s.stats.rtt_samples, s.stats.fast_recoveries), (2, 1));
    // The ACK of everything through `recover` covers segment 10, never
    // retransmitted itself, but its timing was cancelled: no sample.
    ack(&mut s, Time(300), 5, &[]);
    let recover = s.recover;
    s.on_segment(Time(400), &TcpHeader { ack: recover, wnd: WND, flags: TcpFlags(TcpFlags::ACK), ..Default::default() });
    assert_eq!(s.stats.rtt_samples, 2);
}

/// Paliwal et al.'s radio link at its base rate: 1000-byte packets (960 B
/// segments) over 9.6 kb/s take 0.83 s each, on a 300 ms round trip. With
/// the handshake, the SYN / SYN-ACK's sample (small packets: 0.34 s) seeds
/// the RTO at 1 s (min_rto), armed when the first segments leave at 0.34 s;
/// their ACK comes at 0.34 + 0.83 + 0.3 = 1.47 s: a spurious timeout at 1.34 s. Without the
/// handshake the RTO waits on initial_rto (3 s here, in the range of ns-2's
/// rtxcur_init_) and the first ACK at 1.13 s arrives in time.
fn run_9k6(handshake: bool) -> (SenderStats, u64) {
    let text = format!(
        "[simulation]\nduration = \"20s\"\n[[node]]\nname = \"host\"\n[[node]]\nname = \"mobile\"\n\
         [[link]]\nname = \"radio\"\nfrom = \"host\"\nto = \"mobile\"\nrate = \"9.6kbps\"\ndelay = \"150ms\"\nduplex = false\n\
         queue = {{ kind = \"droptail\", limit = \"unlimited\" }}\n\
         [[link]]\nname = \"uplink\"\nfrom = \"mobile\"\nto = \"host\"\nrate = \"100Mbps\"\ndelay = \"150ms\"\nduplex = false\n\
         [[flow]]\nname = \"ftp\"\nfrom = \"host\"\nto = \"mobile\"\n\
         [flow.tcp]\ncc = \"reno\"\nmss = \"960B\"\nrcv_buffer = \"32kB\"\nmin_rto = \"1s\"\ninitial_rto = \"3s\"\nhandshake = {handshake}\n"
    );
    let spec = crate::scenario::parse_str(&text, "t.toml").unwrap();
    let mut w = crate::sim::build::build(&spec).unwrap();
    crate::sim::run_world(&mut w, None, None).unwrap();
    assert!(w.hosts.drop_log.records().is_empty(), "nothing is lost: any timeout is spurious");
    match &w.hosts.flows[0].transport {
        crate::sim::flows::Transport::Tcp(t) => (t.sender.stats.clone(), t.sender.bytes_acked()),
        _ => panic!("a TCP flow"),
    }
}

#[test]
fn at_9k6_the_handshake_sample_causes_a_spurious_timeout_near_1_3_s() {
    let (on, on_acked) = run_9k6(true);
    assert!(on.timeouts >= 1);
    let first = on.congestion_events[0];
    assert!((1_300 * MS..1_400 * MS).contains(&first), "first timeout at {first:?}");
    // The SYN's 48 bytes (with options) take 40 ms at 9.6 kb/s: a 340 ms sample.
    assert!(on.rtt_min.is_some_and(|r| (340 * MS..341 * MS).contains(&r)), "{:?}", on.rtt_min);
    let (off, off_acked) = run_9k6(false);
    assert_eq!((off.timeouts, off.congestion_events.len()), (0, 0));
    assert!(off_acked > on_acked, "the go-back-N resend wasted the link: {off_acked} vs {on_acked}");
}

#[test]
fn the_send_buffer_caps_the_flight_whatever_cwnd_and_rwnd_allow() {
    // cwnd 10 segments and a 100 000 B advertised window, but a 350 B socket
    // buffer: three whole segments fit, and each ACK frees room for one more.
    let mut s = sender_with(TcpSpec {
        cc: CcAlgo::NewReno,
        mss: MSS as u32,
        initial_window: 10,
        snd_buffer: Some(350),
        ..Default::default()
    });
    assert_eq!(drain(&mut s, Time(20)), vec![0, 1, 2]);
    ack(&mut s, Time(120), 1, &[]);
    assert_eq!(drain(&mut s, Time(120)), vec![3]);
    ack(&mut s, Time(121), 3, &[]);
    assert_eq!(drain(&mut s, Time(121)), vec![4, 5]);
    // Without the cap the same sender fills cwnd.
    let mut free = sender_with(TcpSpec { cc: CcAlgo::NewReno, mss: MSS as u32, initial_window: 10, ..Default::default() });
    assert_eq!(drain(&mut free, Time(20)).len(), 10);
}

fn reno_with(loss_response: LossResponse) -> TcpSender {
    sender_with(TcpSpec { cc: CcAlgo::Reno, mss: MSS as u32, initial_window: 10, limited_transmit: false, loss_response, ..Default::default() })
}

/// ns-2.35 restarts the retransmission timer at a fast retransmit
/// (tcp-reno.cc reno_action: reset_rtx_timer(1, 0)); under the RFCs it runs
/// on from the last new ACK.
#[test]
fn ns2_restarts_the_timer_at_fast_retransmit() {
    for (response, restarts) in [(LossResponse::Rfc, false), (LossResponse::Ns2, true)] {
        let mut s = reno_with(response);
        assert_eq!(drain(&mut s, Time(20)).len(), 10);
        // Segment 2 is lost: two new ACKs, then duplicates.
        ack(&mut s, Time(100), 1, &[]);
        ack(&mut s, Time(101), 2, &[]);
        drain(&mut s, Time(101));
        for t in [102, 103] {
            ack(&mut s, Time(t), 2, &[]);
            drain(&mut s, Time(t));
        }
        let before = s.rto_deadline;
        ack(&mut s, Time(104), 2, &[]);
        assert_eq!(s.stats.fast_recoveries, 1, "the third duplicate: fast retransmit");
        let want = if restarts { Some(Time(104) + s.rtt.rto()) } else { before };
        assert_eq!(s.rto_deadline, want, "{response:?}");
        if restarts {
            assert_ne!(want, before, "the restart moves the deadline");
        }
    }
}

/// ns-2.35 halves min(cwnd, wnd) at every timeout (tcp.cc timeout:
/// slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART)), so a second, backed-off
/// timeout leaves ssthresh at 2 segments; RFC 5681 §3.1 holds it.
#[test]
fn ns2_halves_the_window_at_every_timeout() {
    for (response, after_second) in [(LossResponse::Rfc, 5 * MSS), (LossResponse::Ns2, 2 * MSS)] {
        let mut s = reno_with(response);
        assert_eq!(drain(&mut s, Time(20)).len(), 10);
        let d = s.deadline().unwrap();
        s.on_timer(d);
        // cwnd and flight are both 10 segments: either rule gives 5.
        assert_eq!(s.ssthresh(), 5 * MSS, "{response:?}");
        assert_eq!(drain(&mut s, d), vec![0]);
        let d2 = s.deadline().unwrap();
        s.on_timer(d2);
        assert_eq!(s.ssthresh(), after_second, "{response:?}");
        assert_eq!(s.cwnd(), MSS);
    }
}

/// ns-2.35's bugFix_ (on by default) keeps Reno from a second fast
/// retransmit for losses of the window it already reduced: three more
/// duplicates after the partial ACK retransmit segment 5 under the RFCs,
/// and nothing under ns-2 (segment 5 waits for the timer).
#[test]
fn ns2_reno_does_not_fast_retransmit_twice_in_one_window() {
    for (response, second_retransmit) in [(LossResponse::Rfc, true), (LossResponse::Ns2, false)] {
        let mut s = reno_with(response);
        first_round(&mut s, Time(20));
        ack(&mut s, Time(300), 5, &[]);
        assert!(!s.in_recovery);
        drain(&mut s, Time(300));
        let mut sent = Vec::new();
        for i in 0..3 {
            ack(&mut s, Time(310 + i), 5, &[]);
            sent.extend(drain(&mut s, Time(310 + i)));
        }
        assert_eq!(sent.first() == Some(&5), second_retransmit, "{response:?}: {sent:?}");
        assert_eq!(s.stats.fast_recoveries, 1 + second_retransmit as u64, "{response:?}");
    }
}

/// ns-2.35's opencwnd: one increase per new ACK, whatever it covers. After
/// two timeouts ssthresh is 2 segments; the ACK of the retransmission takes
/// cwnd to 2 (slow start), then a cumulative ACK of five segments (the
/// receiver held them) adds 1/cwnd of a segment, not one per segment
/// covered as RFC 3465's byte counting would over a window.
#[test]
fn ns2_grows_cwnd_once_per_ack() {
    let mut s = reno_with(LossResponse::Ns2);
    assert_eq!(drain(&mut s, Time(20)).len(), 10);
    let d = s.deadline().unwrap();
    s.on_timer(d);
    assert_eq!(drain(&mut s, d), vec![0]);
    let d2 = s.deadline().unwrap();
    s.on_timer(d2);
    assert_eq!((s.ssthresh(), s.cwnd()), (2 * MSS, MSS));
    assert_eq!(drain(&mut s, d2), vec![0]);
    ack(&mut s, d2 + Time(10), 1, &[]);
    assert_eq!(s.cwnd(), 2 * MSS, "slow start: one segment for the ACK");
    ack(&mut s, d2 + Time(20), 6, &[]);
    assert_eq!(s.cwnd(), 2 * MSS + MSS / 2, "congestion avoidance: MSS^2/cwnd for one ACK of five segments");
    ack(&mut s, d2 + Time(30), 7, &[]);
    assert_eq!(s.cwnd(), 2 * MSS + MSS / 2 + MSS * MSS / (2 * MSS + MSS / 2));
}

/// Under `loss_response = "ns2"` only Reno and NewReno take ns-2's halving;
/// Cubic keeps RFC 5681 §3.1's hold of ssthresh at a backed-off timeout.
#[test]
fn ns2_halving_is_reno_arithmetic_only() {
    for response in [LossResponse::Rfc, LossResponse::Ns2] {
        let spec = TcpSpec { cc: CcAlgo::Cubic(Default::default()), mss: MSS as u32, initial_window: 10, loss_response: response, ..Default::default() };
        let mut s = sender_with(spec);
        assert_eq!(drain(&mut s, Time(20)).len(), 10);
        let d = s.deadline().unwrap();
        s.on_timer(d);
        let first = s.ssthresh();
        drain(&mut s, d);
        let d2 = s.deadline().unwrap();
        s.on_timer(d2);
        assert_eq!(s.ssthresh(), first, "{response:?}");
    }
}
