//! Retransmission timer per RFC 6298: SRTT and RTTVAR with gains 1/8 and 1/4
//! (§2.3), RTO = SRTT + max(G, 4·RTTVAR) clamped to [min, max] (§2.4, §2.5),
//! 1 s before the first sample (§2.1), doubled on every expiry (§5.5) until
//! the next valid sample.
//!
//! With a clock tick given (`timer_granularity`), the arithmetic is instead
//! ns-2's (ns-2.35 tcp/tcp.cc: TcpAgent::rtt_update, rtt_timeout,
//! rtt_backoff): samples in whole ticks, SRTT and RTTVAR as fixed-point tick
//! counts (T_SRTT_BITS = 3, T_RTTVAR_BITS = 2, rttvar_exp_ = 2, the
//! ns-default.tcl values), so that the RTO is a whole number of ticks.

use super::config::RtoRule;
use crate::engine::{Time, NS_PER_MS};

/// Clock granularity G (RFC 6298 §2.3): one millisecond, as in Linux and ns-3.
const GRANULARITY: Time = NS_PER_MS;

/// ns-2's TcpAgent estimator state, in ticks of `tick` (its tcpTick_).
#[derive(Clone, Debug)]
struct TickClock {
    tick: Time,
    /// t_srtt_: 8 × SRTT in ticks (3 fraction bits); 0 = no history, ns-2's
    /// own marker: rtt_update then takes the sample as the first.
    srtt8: i64,
    /// t_rttvar_: 4 × RTTVAR in ticks (2 fraction bits).
    rttvar4: i64,
}

#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<Time>,
    rttvar: Time,
    /// The RTO before backoff (in tick mode ns-2's t_rtxcur_, before min_rto).
    rto: Time,
    backoff: u32,
    min_rto: Time,
    max_rto: Time,
    ticks: Option<TickClock>,
    rule: RtoRule,
}

impl RttEstimator {
    pub fn new(initial_rto: Time, min_rto: Time, max_rto: Time) -> Self {
        Self { srtt: None, rttvar: Time::ZERO, rto: initial_rto, backoff: 0, min_rto, max_rto, ticks: None, rule: RtoRule::Rfc6298 }
    }

    /// The RTO computed by `rule` (RFC 6298 by default).
    pub fn with_rule(self, rule: RtoRule) -> Self {
        Self { rule, ..self }
    }

    /// ns-2's arithmetic on a clock of `tick`.
    pub fn with_tick(initial_rto: Time, min_rto: Time, max_rto: Time, tick: Time) -> Self {
        assert!(tick > Time::ZERO, "a clock tick must be positive");
        Self { ticks: Some(TickClock { tick, srtt8: 0, rttvar4: 0 }), ..Self::new(initial_rto, min_rto, max_rto) }
    }

    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }

    /// The timeout to arm now, including the exponential backoff.
    pub fn rto(&self) -> Time {
        let Some(c) = &self.ticks else {
            return self.rto.saturating_mul(1 << self.backoff.min(20)).min(self.max_rto);
        };
        // rtt_timeout with rfc2988_ (the ns-2.35 default): minrto_ applies
        // before the backoff, maxrto_ after it, and never below two ticks.
        let base = self.rto.max(self.min_rto);
        base.saturating_mul(1 << self.backoff.min(20)).min(self.max_rto).max(2 * c.tick)
    }

    /// Times the timer has expired since the last valid RTT sample.
    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// A valid (Karn-safe) RTT measurement. In tick mode it counts as a
    /// segment sent at time 0 and acknowledged at `r` (see `sample_at`).
    pub fn sample(&mut self, r: Time) {
        self.sample_at(r, r, false);
    }

    /// A valid (Karn-safe) RTT measurement `r` taken at `now`; `echo`: it
    /// comes from a timestamp echo rather than from a segment's send time
    /// (only tick mode tells them apart, as ns-2 does).
    pub fn sample_at(&mut self, now: Time, r: Time, echo: bool) {
        if self.ticks.is_some() {
            self.sample_ticks(now, r, echo);
            return;
        }
        match self.srtt {
            None => {
                // §2.2: SRTT = R, RTTVAR = R/2.
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                // §2.3: RTTVAR first, with the old SRTT.
                let err = srtt.abs_diff(r);
                self.rttvar = (3 * self.rttvar + err) / 4;
                self.srtt = Some((7 * srtt + r) / 8);
            }
        }
        let srtt = self.srtt.unwrap();
        let var = match self.rule {
            RtoRule::Rfc6298 => GRANULARITY.max(4 * self.rttvar),
            RtoRule::Linux => self.min_rto.max(4 * self.rttvar),
        };
        self.rto = (srtt + var).clamp(self.min_rto, self.max_rto);
        self.backoff = 0;
    }

    /// ns-2.35 tcp.cc, TcpAgent::rtt_update.
    fn sample_ticks(&mut self, now: Time, r: Time, echo: bool) {
        let c = self.ticks.as_mut().expect("tick mode");
        let tick = c.tick;
        // t_rtt_: with timestamps the sample rounded to ticks; otherwise the
        // tick boundaries passed between sending and now. (ns-2 truncates
        // (tao + fmod(sendtime + boot_time_, tick)) / tick, boot_time_ being a
        // random phase; here the phase is 0, ticks fall on multiples of
        // `tick` from t = 0, and that count is ⌊now/tick⌋ − ⌊sent/tick⌋.)
        let ticks = if echo { (2 * r + tick) / (2 * tick) } else { now / tick - (now - r) / tick };
        let m = ticks.max(1) as i64;
        if c.srtt8 != 0 {
            // srtt += (m − srtt)/8, then rttvar += (|m − srtt_old| − rttvar)/4,
            // in fixed point, each kept at least 1 in its units.
            let delta = m - (c.srtt8 >> 3);
            c.srtt8 = (c.srtt8 + delta).max(1);
            c.rttvar4 = (c.rttvar4 + delta.abs() - (c.rttvar4 >> 2)).max(1);
        } else {
            // srtt = m, rttvar = m/2.
            c.srtt8 = m << 3;
            c.rttvar4 = m << 1;
        }
        // t_rtxcur_ = srtt + 2^rttvar_exp_ · rttvar, truncated to whole ticks:
        // ((t_rttvar_ << (rttvar_exp_ + T_SRTT_BITS − T_RTTVAR_BITS)) + t_srtt_) >> T_SRTT_BITS.
        let rto_ticks = ((c.rttvar4 << 3) + c.srtt8) >> 3;
        self.rto = tick * rto_ticks as u64;
        self.srtt = Some(tick * c.srtt8 as u64 / 8);
        self.rttvar = tick * c.rttvar4 as u64 / 4;
        self.backoff = 0;
    }

    /// Forget the history and start again from one sample, as for the first
    /// measurement (§2.2): the Eifel response's RTO adaptation (RFC 4015 §4)
    /// after a spurious timeout, so that the delay spike that outlasted the
    /// old RTO sets the new one.
    pub fn restart(&mut self, now: Time, r: Time, echo: bool) {
        self.srtt = None;
        if let Some(c) = self.ticks.as_mut() {
            c.srtt8 = 0;
        }
        self.sample_at(now, r, echo);
    }

    /// §5.5: the timer expired; back off.
    pub fn on_timeout(&mut self) {
        self.backoff += 1;
        // ns-2 rtt_backoff: once t_backoff_ exceeds 8 (a fourth expiry),
        // t_srtt_ = 0: the next sample starts the estimate afresh. The RTO
        // in force (t_rtxcur_) stays until that sample.
        if let Some(c) = self.ticks.as_mut() {
            if self.backoff >= 4 {
                c.srtt8 = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_SEC;

    #[test]
    fn follows_rfc6298() {
        let mut e = RttEstimator::new(NS_PER_SEC, 200 * NS_PER_MS, 60 * NS_PER_SEC);
        assert_eq!(e.rto(), NS_PER_SEC);
        e.sample(100 * NS_PER_MS);
        // SRTT 100 ms, RTTVAR 50 ms: RTO = 100 + 200 = 300 ms.
        assert_eq!(e.rto(), 300 * NS_PER_MS);
        e.sample(100 * NS_PER_MS);
        // RTTVAR = 3/4·50 = 37.5 ms: RTO = 100 + 150 = 250 ms.
        assert_eq!(e.rto(), 250 * NS_PER_MS);
        e.on_timeout();
        e.on_timeout();
        assert_eq!(e.rto(), 1000 * NS_PER_MS);
        e.sample(100 * NS_PER_MS);
        assert!(e.rto() < 250 * NS_PER_MS && e.rto() >= 200 * NS_PER_MS);
        // The minimum applies.
        for _ in 0..50 {
            e.sample(10 * NS_PER_MS);
        }
        assert_eq!(e.rto(), 200 * NS_PER_MS);
    }

    #[test]
    fn linux_adds_the_minimum_to_srtt() {
        // A steady 400 ms path (a full 64 KB buffer at 1.2 Mb/s): RTTVAR
        // decays towards 0, so RFC 6298 arms SRTT + 4 RTTVAR, a few ms
        // beyond SRTT, while Linux arms SRTT + 200 ms.
        let mut rfc = RttEstimator::new(NS_PER_SEC, 200 * NS_PER_MS, 60 * NS_PER_SEC);
        let mut linux = rfc.clone().with_rule(RtoRule::Linux);
        for _ in 0..40 {
            rfc.sample(400 * NS_PER_MS);
            linux.sample(400 * NS_PER_MS);
        }
        assert!(rfc.rto() <= 401 * NS_PER_MS, "{:?}", rfc.rto()); // the clock granularity, 1 ms
        assert!(linux.rto() >= 600 * NS_PER_MS && linux.rto() < 601 * NS_PER_MS, "{:?}", linux.rto());
        // A segment delayed to 550 ms (a rate drop behind the queue) fires
        // RFC 6298's timer, spuriously, but not Linux's.
        assert!(rfc.rto() < 550 * NS_PER_MS && linux.rto() > 550 * NS_PER_MS);
        // With a large variance both add 4 RTTVAR.
        let mut a = RttEstimator::new(NS_PER_SEC, 200 * NS_PER_MS, 60 * NS_PER_SEC).with_rule(RtoRule::Linux);
        a.sample(100 * NS_PER_MS);
        assert_eq!(a.rto(), 300 * NS_PER_MS); // RTTVAR 50 ms: 100 + max(200, 200)
    }

    /// ns-2's arithmetic (tcp.cc rtt_update / rtt_timeout) on a 500 ms tick,
    /// worked by hand: (srtt8, rttvar4) are t_srtt_ and t_rttvar_.
    #[test]
    fn tick_mode_follows_ns2_by_hand() {
        const T: Time = Time::from_millis(500);
        let ms = |x: u64| x * NS_PER_MS;
        let mut e = RttEstimator::with_tick(3 * NS_PER_SEC, NS_PER_SEC, 60 * NS_PER_SEC, T);
        assert_eq!(e.rto(), 3 * NS_PER_SEC, "initial_rto until the first sample");
        // Sent at 0.2 s, acked at 1.4 s: ticks 0 → 2, m = 2: srtt8 = 16,
        // rttvar4 = 4, RTO = (4·8 + 16) >> 3 = 6 ticks.
        e.sample_at(ms(1400), ms(1200), false);
        assert_eq!(e.rto(), 6 * T);
        // Sent at 0.4 s, acked at 1.1 s: 0.7 s, but two tick boundaries
        // (0.5 s, 1.0 s): m = 2. delta 0: srtt8 16, rttvar4 = 4 − 1 = 3: RTO 5 ticks.
        e.sample_at(ms(1100), ms(700), false);
        assert_eq!(e.rto(), 5 * T);
        // Sent at 2.3 s, acked at 2.6 s: m = 1. delta −1: srtt8 15,
        // rttvar4 = 3 + 1 − 0 = 4: RTO = (32 + 15) >> 3 = 5 ticks.
        e.sample_at(ms(2600), ms(300), false);
        assert_eq!(e.rto(), 5 * T);
        // A timestamp sample of 0.74 s rounds to m = 1. delta = 1 − (15 >> 3) = 0:
        // srtt8 15, rttvar4 = 4 − 1 = 3: RTO = (24 + 15) >> 3 = 4 ticks.
        e.sample_at(ms(3000), ms(740), true);
        assert_eq!(e.rto(), 4 * T);
        assert_eq!(e.srtt(), Some(15 * T / 8));
        // (RFC 6298 on the same four samples, 1.2, 0.7, 0.3 and 0.74 s, gives
        // about 3.21 s: not a multiple of the tick.)
        e.on_timeout();
        e.on_timeout();
        assert_eq!(e.rto(), 16 * T, "backoff doubles the whole-tick RTO");
        // A fourth expiry (t_backoff_ 16 > 8) discards the history: the next
        // sample is a first one. Sent 10.0 s, acked 11.2 s: m = 2 → 6 ticks.
        e.on_timeout();
        e.on_timeout();
        e.sample_at(ms(11_200), ms(1200), false);
        assert_eq!((e.rto(), e.backoff()), (6 * T, 0));
        // max_rto applies after the backoff, then the two-tick floor.
        let mut e = RttEstimator::with_tick(3 * NS_PER_SEC, Time::ZERO, 600 * NS_PER_MS, T);
        e.sample_at(ms(1400), ms(1200), false);
        assert_eq!(e.rto(), 2 * T);
        // min_rto before the backoff (rfc2988_): 10 ms ticks, 100 ms samples → 300 ms, raised to 1 s.
        let mut e = RttEstimator::with_tick(3 * NS_PER_SEC, NS_PER_SEC, 60 * NS_PER_SEC, ms(10));
        e.sample_at(ms(100), ms(100), false);
        assert_eq!(e.rto(), NS_PER_SEC);
        e.on_timeout();
        assert_eq!(e.rto(), 2 * NS_PER_SEC);
    }
}
