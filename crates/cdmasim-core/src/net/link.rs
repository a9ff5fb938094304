//! A unidirectional point-to-point link: a queue, a transmitter with a
//! piecewise-constant rate, an optional random-loss module on the wire, and
//! a propagation delay.
//!
//! The transmitter works in bits so that a rate change in the middle of a
//! packet is exact: the bits already sent at the old rate stay sent and the
//! rest go at the new rate. A rate of 0 is an outage: service pauses.
//! (At 9.6 kb/s a 500-byte packet takes 0.42 s, so in seed 002's rate-switch
//! scenario this matters.)

use super::queue::Queue;
use super::{DropReason, Packet};
use crate::engine::time::bits_in;
use crate::engine::{Rng, Time, NS_PER_SEC};

struct Service {
    pkt: Packet,
    remaining_bits: u64,
    since: Time,
}

#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    pub enqueued: u64,
    pub drops: [u64; 5],
    pub pkts_sent: u64,
    pub bytes_sent: u64,
    pub max_pkts: u64,
    pub max_bytes: u64,
    /// Integrals of the queue length over time (packet·ns, byte·ns).
    pub area_pkts: f64,
    pub area_bytes: f64,
    /// Integral of the rate over time (bits the link could have sent).
    pub capacity_bits: f64,
}

pub struct Link {
    pub name: String,
    pub from: u32,
    pub to: u32,
    pub delay: Time,
    pub queue: Box<dyn Queue>,
    pub loss: f64,
    loss_rng: Rng,
    rate_bps: u64,
    /// Rate steps still to come: (time, bit/s).
    pub schedule: Vec<(Time, u64)>,
    pub next_step: usize,
    service: Option<Service>,
    /// Generation of the pending end-of-service event; stale ones are ignored.
    pub tx_gen: u32,
    /// Packets on the wire, in order (the delay is constant, so FIFO).
    pub in_flight: std::collections::VecDeque<Packet>,
    pub stats: LinkStats,
    last_touch: Time,
}

/// Time to serialise `bits` at `rate_bps`, rounded up. u64 arithmetic (a
/// 64-bit division, not a 128-bit one: this is on the per-packet path) is
/// exact while bits < 1.8e10, i.e. for any packet; beyond that, u128.
fn tx_time_bits(bits: u64, rate_bps: u64) -> Time {
    match bits.checked_mul(NS_PER_SEC) {
        Some(x) => x.div_ceil(rate_bps),
        None => (bits as u128 * NS_PER_SEC as u128).div_ceil(rate_bps as u128) as Time,
    }
}

impl Link {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        from: u32,
        to: u32,
        rate_bps: u64,
        delay: Time,
        queue: Box<dyn Queue>,
        loss: f64,
        loss_rng: Rng,
        schedule: Vec<(Time, u64)>,
    ) -> Self {
        Link {
            name,
            from,
            to,
            delay,
            queue,
            loss,
            loss_rng,
            rate_bps,
            schedule,
            next_step: 0,
            service: None,
            tx_gen: 0,
            in_flight: Default::default(),
            stats: LinkStats::default(),
            last_touch: 0,
        }
    }

    pub fn rate_bps(&self) -> u64 {
        self.rate_bps
    }

    pub fn busy(&self) -> bool {
        self.service.is_some()
    }

    /// Packets inside the link: queued, in service and on the wire.
    pub fn packets_inside(&self) -> u64 {
        self.queue.len_packets() as u64 + self.service.is_some() as u64 + self.in_flight.len() as u64
    }

    /// Bring the time integrals up to `now` (call before any change of queue or rate).
    fn touch(&mut self, now: Time) {
        let dt = (now - self.last_touch) as f64;
        self.stats.area_pkts += self.queue.len_packets() as f64 * dt;
        self.stats.area_bytes += self.queue.len_bytes() as f64 * dt;
        self.stats.capacity_bits += self.rate_bps as f64 * dt / NS_PER_SEC as f64;
        self.last_touch = now;
    }

    /// Close the integrals at the end of the run.
    pub fn finish_stats(&mut self, now: Time) {
        self.touch(now);
    }

    /// Offer a packet to the queue. Ok(Some(t)): the transmitter was idle and
    /// now finishes this packet at t (schedule the end of service).
    pub fn offer(&mut self, now: Time, pkt: Packet) -> Result<Option<Time>, (Packet, DropReason)> {
        self.touch(now);
        self.queue.enqueue(now, pkt).inspect_err(|(_, why)| self.stats.drops[why.index()] += 1)?;
        self.stats.enqueued += 1;
        let done = self.start_next(now);
        // Maximum of the waiting queue, after an idle transmitter took the packet.
        self.stats.max_pkts = self.stats.max_pkts.max(self.queue.len_packets() as u64);
        self.stats.max_bytes = self.stats.max_bytes.max(self.queue.len_bytes());
        Ok(done)
    }

    /// Start serialising the next queued packet if the transmitter is idle
    /// and the rate is not zero. Returns when it will finish.
    pub fn start_next(&mut self, now: Time) -> Option<Time> {
        if self.service.is_some() || self.rate_bps == 0 {
            return None;
        }
        self.touch(now);
        let pkt = self.queue.dequeue(now)?;
        let bits = pkt.size as u64 * 8;
        self.service = Some(Service { pkt, remaining_bits: bits, since: now });
        self.tx_gen = self.tx_gen.wrapping_add(1);
        Some(now + tx_time_bits(bits, self.rate_bps))
    }

    /// The packet in service has been serialised: it goes on the wire unless
    /// the loss module takes it. Returns the packet and whether it survived.
    pub fn end_service(&mut self, now: Time) -> (Packet, bool) {
        let s = self.service.take().expect("end of service with nothing in service");
        let _ = now;
        self.stats.pkts_sent += 1;
        self.stats.bytes_sent += s.pkt.size as u64;
        let survives = !self.loss_rng.bernoulli(self.loss);
        if survives {
            self.in_flight.push_back(s.pkt);
        } else {
            self.stats.drops[DropReason::RandomLoss.index()] += 1;
        }
        (s.pkt, survives)
    }

    /// The next rate step is due: apply it. Returns the new end-of-service
    /// time of the packet in service, or of a packet that can now start.
    pub fn apply_next_step(&mut self, now: Time) -> Option<Time> {
        let (_, rate) = self.schedule[self.next_step];
        self.next_step += 1;
        self.set_rate(now, rate)
    }

    pub fn set_rate(&mut self, now: Time, rate: u64) -> Option<Time> {
        self.touch(now);
        let old = self.rate_bps;
        self.rate_bps = rate;
        self.queue.set_rate(rate);
        match self.service.as_mut() {
            Some(s) => {
                let sent = bits_in(now - s.since, old).min(s.remaining_bits);
                s.remaining_bits -= sent;
                s.since = now;
                self.tx_gen = self.tx_gen.wrapping_add(1);
                (rate > 0).then(|| now + tx_time_bits(s.remaining_bits, rate))
            }
            None => self.start_next(now),
        }
    }

    pub fn next_step_time(&self) -> Option<Time> {
        self.schedule.get(self.next_step).map(|s| s.0)
    }
}
