//! Retransmission timer per RFC 6298: SRTT and RTTVAR with gains 1/8 and 1/4
//! (§2.3), RTO = SRTT + max(G, 4·RTTVAR) clamped to [min, max] (§2.4, §2.5),
//! 1 s before the first sample (§2.1), doubled on every expiry (§5.5) until
//! the next valid sample.

use crate::engine::{Time, NS_PER_MS};

/// Clock granularity G (RFC 6298 §2.3): one millisecond, as in Linux and ns-3.
const GRANULARITY: Time = NS_PER_MS;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<Time>,
    rttvar: Time,
    rto: Time,
    backoff: u32,
    min_rto: Time,
    max_rto: Time,
}

impl RttEstimator {
    pub fn new(initial_rto: Time, min_rto: Time, max_rto: Time) -> Self {
        Self { srtt: None, rttvar: 0, rto: initial_rto, backoff: 0, min_rto, max_rto }
    }

    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }

    /// The timeout to arm now, including the exponential backoff.
    pub fn rto(&self) -> Time {
        self.rto.saturating_mul(1 << self.backoff.min(20)).min(self.max_rto)
    }

    /// Times the timer has expired since the last valid RTT sample.
    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// A valid (Karn-safe) RTT measurement.
    pub fn sample(&mut self, r: Time) {
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
        self.rto = (srtt + GRANULARITY.max(4 * self.rttvar)).clamp(self.min_rto, self.max_rto);
        self.backoff = 0;
    }

    /// Forget the history and start again from one sample, as for the first
    /// measurement (§2.2): the Eifel response's RTO adaptation (RFC 4015 §4)
    /// after a spurious timeout, so that the delay spike that outlasted the
    /// old RTO sets the new one.
    pub fn restart(&mut self, r: Time) {
        self.srtt = None;
        self.sample(r);
    }

    /// §5.5: the timer expired; back off.
    pub fn on_timeout(&mut self) {
        self.backoff += 1;
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
}
