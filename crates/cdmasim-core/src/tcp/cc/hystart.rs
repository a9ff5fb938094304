//! HyStart++ (RFC 9406): leave the initial slow start on a rise in the
//! round's minimum RTT instead of on the loss that an overshoot causes.
//!
//! Kept apart from any one algorithm: a caller asks [`HyStart::on_ack`] on
//! every ACK while in slow start, grows the window with [`HyStart::grow`],
//! and calls [`HyStart::stop`] on a congestion event (§4.3: HyStart++ runs in
//! the initial slow start only).
//!
//! Rounds (§4.2): a round ends when the ACK for `windowEnd` (snd_nxt when the
//! round began) arrives. The trait's ACK carries the bytes cumulatively acked
//! and the bytes in flight after the ACK (before the sender answers with new
//! data), so snd_una and snd_nxt are known relative to the start of the
//! connection: snd_una = Σ bytes_acked, snd_nxt = snd_una + in_flight (no
//! holes exist before the first congestion event, so the RFC 6675 pipe equals
//! snd_nxt − snd_una here).
//!
//! Deviation: growth in slow start is the sender's RFC 3465 byte counting with
//! L = 1 SMSS (reno::slow_start), not §4.2's L = 8 for unpaced senders, so that
//! turning HyStart++ on changes nothing but the exit.

use super::reno::slow_start;
use super::{Ack, Window};
use crate::engine::Time;

/// §4.3 constants.
pub const MIN_RTT_THRESH: Time = Time::from_millis(4);
pub const MAX_RTT_THRESH: Time = Time::from_millis(16);
pub const MIN_RTT_DIVISOR: u64 = 8;
pub const N_RTT_SAMPLE: u32 = 8;
pub const CSS_GROWTH_DIVISOR: u64 = 4;
pub const CSS_ROUNDS: u32 = 5;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Standard slow start, watching the round's minimum RTT.
    SlowStart,
    /// Conservative Slow Start: growth divided by CSS_GROWTH_DIVISOR.
    Css,
    /// HyStart++ is over: the caller enters congestion avoidance (after
    /// CSS_ROUNDS rounds of CSS: ssthresh = cwnd) or has seen a loss.
    Done,
}

#[derive(Clone, Debug)]
pub struct HyStart {
    phase: Phase,
    /// Bytes cumulatively acknowledged so far (snd_una from 0).
    acked: u64,
    /// windowEnd in the same coordinates; None before the first ACK.
    window_end: Option<u64>,
    last_round_min_rtt: Option<Time>,
    current_round_min_rtt: Option<Time>,
    rtt_sample_count: u32,
    css_baseline_min_rtt: Option<Time>,
    /// Rounds spent in CSS, the partial round CSS began in included (§4.2).
    css_rounds: u32,
    /// Bytes of CSS growth not yet added (the division leaves a remainder).
    css_credit: u64,
    /// Rounds seen (for tests and traces).
    pub rounds: u64,
}

impl Default for HyStart {
    fn default() -> Self {
        Self {
            phase: Phase::SlowStart,
            acked: 0,
            window_end: None,
            last_round_min_rtt: None,
            current_round_min_rtt: None,
            rtt_sample_count: 0,
            css_baseline_min_rtt: None,
            css_rounds: 0,
            css_credit: 0,
            rounds: 0,
        }
    }
}

impl HyStart {
    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn active(&self) -> bool {
        self.phase != Phase::Done
    }

    /// A congestion event: HyStart++ ends (§4.2: a loss in CSS ends it
    /// with the ssthresh the loss sets; §4.3: the initial slow start only).
    pub fn stop(&mut self) {
        self.phase = Phase::Done;
    }

    /// Track rounds and RTTs for an ACK taken in slow start; returns the phase
    /// to grow in. `Done` means: set ssthresh = cwnd and enter congestion avoidance.
    pub fn on_ack(&mut self, ack: &Ack) -> Phase {
        if self.phase == Phase::Done {
            return Phase::Done;
        }
        self.acked += ack.bytes_acked;
        if self.window_end.is_none_or(|end| self.acked >= end) {
            self.start_round(ack.in_flight);
            if self.phase == Phase::Done {
                return Phase::Done;
            }
        }
        if let Some(r) = ack.rtt {
            self.current_round_min_rtt = Some(self.current_round_min_rtt.map_or(r, |m| m.min(r)));
            self.rtt_sample_count += 1;
        }
        if self.rtt_sample_count >= N_RTT_SAMPLE {
            let (Some(cur), last) = (self.current_round_min_rtt, self.last_round_min_rtt) else {
                return self.phase;
            };
            match (self.phase, last) {
                (Phase::SlowStart, Some(last)) => {
                    // RttThresh = clamp(lastRoundMinRTT / MIN_RTT_DIVISOR).
                    let thresh = (last / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
                    if cur >= last + thresh {
                        self.css_baseline_min_rtt = Some(cur);
                        self.phase = Phase::Css;
                        self.css_rounds = 1;
                    }
                }
                // The delay rise was spurious: back to slow start.
                (Phase::Css, _) if self.css_baseline_min_rtt.is_some_and(|b| cur < b) => {
                    self.css_baseline_min_rtt = None;
                    self.phase = Phase::SlowStart;
                }
                _ => {}
            }
        }
        self.phase
    }

    fn start_round(&mut self, in_flight: u64) {
        self.rounds += 1;
        self.window_end = Some(self.acked + in_flight);
        self.last_round_min_rtt = self.current_round_min_rtt;
        self.current_round_min_rtt = None;
        self.rtt_sample_count = 0;
        if self.phase == Phase::Css {
            if self.css_rounds >= CSS_ROUNDS {
                self.phase = Phase::Done;
            } else {
                self.css_rounds += 1;
            }
        }
    }

    /// Grow cwnd for `acked` bytes in `phase`; returns the bytes left over
    /// once cwnd reaches ssthresh (as reno::slow_start).
    pub fn grow(&mut self, w: &mut Window, acked: u64, phase: Phase) -> u64 {
        match phase {
            Phase::Css => {
                // §4.2: cwnd += min(N, L·SMSS) / CSS_GROWTH_DIVISOR.
                let credit = self.css_credit + acked.min(w.mss);
                w.cwnd += credit / CSS_GROWTH_DIVISOR;
                self.css_credit = credit % CSS_GROWTH_DIVISOR;
                0
            }
            _ => slow_start(w, acked),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::CaState;
    use crate::engine::NS_PER_MS;
    use super::*;

    const MSS: u64 = 1000;

    fn ack(bytes: u64, in_flight: u64, rtt: Time) -> Ack {
        Ack {
            now: Time::ZERO,
            bytes_acked: bytes,
            bytes_delivered: bytes,
            prior_in_flight: in_flight + bytes,
            in_flight,
            rtt: Some(rtt),
            state: CaState::Open,
            cwnd_limited: true,
        }
    }

    /// `n` ACKs of one segment each with `rtt`, `n` segments in flight after
    /// each: the first ACK of a call ends the previous round (windowEnd is n
    /// segments beyond the ACK that opened it), so calls and rounds align.
    fn round(h: &mut HyStart, n: u64, rtt: Time) -> Vec<Phase> {
        (0..n).map(|_| h.on_ack(&ack(MSS, n * MSS, rtt))).collect()
    }

    #[test]
    fn rounds_end_at_the_ack_for_window_end() {
        let mut h = HyStart::default();
        // First ACK opens round 1 with windowEnd = 1000 + 3000 (snd_nxt).
        h.on_ack(&ack(MSS, 3 * MSS, 100 * NS_PER_MS));
        assert_eq!(h.rounds, 1);
        // Acks up to 4000 bytes stay in round 1; the one reaching 4000 opens round 2.
        h.on_ack(&ack(MSS, 4 * MSS, 100 * NS_PER_MS));
        h.on_ack(&ack(MSS, 5 * MSS, 100 * NS_PER_MS));
        assert_eq!(h.rounds, 1);
        h.on_ack(&ack(MSS, 6 * MSS, 100 * NS_PER_MS));
        assert_eq!(h.rounds, 2);
        assert_eq!(h.window_end, Some(4 * MSS + 6 * MSS));
    }

    #[test]
    fn delay_rise_above_threshold_enters_css_and_css_rounds_end_it() {
        let base = 100 * NS_PER_MS;
        let mut h = HyStart::default();
        // Round 1 establishes lastRoundMinRTT = 100 ms.
        round(&mut h, 16, base);
        // RttThresh = clamp(100/8 = 12.5 ms, 4, 16) = 12.5 ms. A rise of 12 ms
        // stays in slow start; 13 ms enters CSS on the 8th sample of the round.
        let p = round(&mut h, 16, base + 12 * NS_PER_MS);
        assert!(p.iter().all(|&x| x == Phase::SlowStart), "{p:?}");
        let p = round(&mut h, 16, base + 25 * NS_PER_MS);
        // lastRoundMinRTT is now 112 ms: thresh 14 ms, so 125 ms (+13) is not
        // enough; one more round at +30 ms (142 ≥ 125 + 15.6) is.
        assert!(p.iter().all(|&x| x == Phase::SlowStart), "{p:?}");
        let p = round(&mut h, 16, base + 42 * NS_PER_MS);
        assert_eq!(p[6], Phase::SlowStart, "{p:?}");
        assert_eq!(p[7], Phase::Css, "the 8th sample decides: {p:?}");
        // The partial round counts: four more full rounds in CSS, then Done
        // at the start of the fifth.
        for _ in 0..4 {
            let p = round(&mut h, 16, base + 42 * NS_PER_MS);
            assert!(p.iter().all(|&x| x == Phase::Css), "{p:?}");
        }
        assert_eq!(h.on_ack(&ack(MSS, 15 * MSS, base + 42 * NS_PER_MS)), Phase::Done);
    }

    #[test]
    fn css_returns_to_slow_start_when_rtt_falls_below_baseline() {
        let base = 40 * NS_PER_MS;
        let mut h = HyStart::default();
        round(&mut h, 10, base);
        // thresh = max(4 ms, 40/8 = 5 ms) = 5 ms.
        round(&mut h, 10, base + 6 * NS_PER_MS);
        assert_eq!(h.phase(), Phase::Css);
        let p = round(&mut h, 10, base + NS_PER_MS);
        assert_eq!(p[7], Phase::SlowStart, "{p:?}");
    }

    #[test]
    fn css_grows_a_quarter_as_fast() {
        let mut h = HyStart::default();
        let mut w = Window { cwnd: 10 * MSS, ssthresh: u64::MAX / 2, mss: MSS };
        for _ in 0..10 {
            h.grow(&mut w, MSS, Phase::Css);
        }
        assert_eq!(w.cwnd, 10 * MSS + 10 * MSS / 4);
        for _ in 0..10 {
            h.grow(&mut w, MSS, Phase::SlowStart);
        }
        assert_eq!(w.cwnd, 20 * MSS + 10 * MSS / 4);
    }

    #[test]
    fn stop_ends_it() {
        let mut h = HyStart::default();
        h.stop();
        assert_eq!(h.on_ack(&ack(MSS, 0, NS_PER_MS)), Phase::Done);
        assert!(!h.active());
    }
}
