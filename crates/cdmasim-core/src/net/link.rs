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

/// The transmitter's current packet. The packet itself is already on the
/// wire list (unless the loss module took it), with the arrival time its
/// service will give it.
struct Service {
    remaining_bits: u64,
    since: Time,
    /// None while the rate is 0 (an outage pauses the packet).
    finish: Option<Time>,
    lost: bool,
}

/// What the world must do after a link operation (small and Copy: it is
/// returned on every packet's path).
#[derive(Clone, Copy, Debug, Default)]
pub struct Actions {
    /// A packet started service now: it is the newest on the wire, or, if
    /// `lost`, the one `take_lost` gives.
    pub started: bool,
    /// The packet that started was lost on the wire (random loss).
    pub lost: bool,
    /// Schedule an arrival at the far end at this time.
    pub arrive_at: Option<Time>,
    /// Schedule the end of the current service (time, generation): only
    /// needed while packets wait, to start the next one.
    pub tx_done: Option<(Time, u32)>,
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
    tx_gen: u32,
    tx_pending: bool,
    /// Packets in service or on the wire with their arrival times, in order
    /// (the delay is constant, so FIFO; Time::MAX while an outage pauses one).
    in_flight: std::collections::VecDeque<(Time, Packet)>,
    /// The packet the loss module took at the last service start.
    lost: Option<Packet>,
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
            tx_pending: false,
            in_flight: Default::default(),
            lost: None,
            stats: LinkStats::default(),
            last_touch: 0,
        }
    }

    /// Packets inside the link: queued, in service and on the wire.
    pub fn packets_inside(&self) -> u64 {
        self.queue.len_packets() as u64 + self.in_flight.len() as u64
    }

    /// The packet that started service last and is on the wire.
    pub fn newest_on_wire(&self) -> Option<&Packet> {
        self.in_flight.back().map(|e| &e.1)
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

    /// Forget a service that has finished by `now` (its end needed no event
    /// because nothing was waiting behind it).
    fn retire(&mut self, now: Time) {
        if self.service.as_ref().is_some_and(|s| s.finish.is_some_and(|f| f <= now)) {
            self.service = None;
            self.tx_pending = false;
        }
    }

    fn next_gen(&mut self) -> u32 {
        self.tx_gen = self.tx_gen.wrapping_add(1);
        self.tx_gen
    }

    /// Ask for an end-of-service event if packets wait and none is pending.
    fn want_tx_done(&mut self, a: &mut Actions) {
        if self.tx_pending || self.queue.len_packets() == 0 {
            return;
        }
        if let Some(f) = self.service.as_ref().and_then(|s| s.finish) {
            self.tx_pending = true;
            a.tx_done = Some((f, self.next_gen()));
        }
    }

    /// Start the next queued packet if the transmitter is free and the rate
    /// is not zero. Its arrival time is known at once, so the end of its
    /// service needs an event only if another packet waits behind it.
    fn start_next(&mut self, now: Time) -> Actions {
        let mut a = Actions::default();
        if self.service.is_some() || self.rate_bps == 0 {
            return a;
        }
        let Some(pkt) = self.queue.dequeue(now) else { return a };
        let bits = pkt.size as u64 * 8;
        let finish = now + tx_time_bits(bits, self.rate_bps);
        self.stats.pkts_sent += 1;
        self.stats.bytes_sent += pkt.size as u64;
        let lost = self.loss_rng.bernoulli(self.loss);
        a.started = true;
        if lost {
            self.stats.drops[DropReason::RandomLoss.index()] += 1;
            a.lost = true;
            self.lost = Some(pkt);
        } else {
            self.in_flight.push_back((finish + self.delay, pkt));
            a.arrive_at = Some(finish + self.delay);
        }
        self.service = Some(Service { remaining_bits: bits, since: now, finish: Some(finish), lost });
        self.tx_pending = false;
        self.want_tx_done(&mut a);
        a
    }

    /// Offer a packet to the queue; on a drop it comes back with the reason.
    pub fn offer(&mut self, now: Time, pkt: Packet) -> Result<Actions, (Packet, DropReason)> {
        self.touch(now);
        self.queue.enqueue(now, pkt).inspect_err(|(_, why)| self.stats.drops[why.index()] += 1)?;
        self.stats.enqueued += 1;
        self.retire(now);
        let mut a = self.start_next(now);
        if !a.started {
            self.want_tx_done(&mut a);
        }
        // Maximum of the waiting queue, after an idle transmitter took the packet.
        self.stats.max_pkts = self.stats.max_pkts.max(self.queue.len_packets() as u64);
        self.stats.max_bytes = self.stats.max_bytes.max(self.queue.len_bytes());
        Ok(a)
    }

    /// The end-of-service event `gen` fired: start the next packet.
    pub fn on_tx_done(&mut self, now: Time, gen: u32) -> Actions {
        if gen != self.tx_gen || !self.tx_pending {
            return Actions::default();
        }
        self.touch(now);
        self.service = None;
        self.tx_pending = false;
        self.start_next(now)
    }

    /// The packet the loss module took (after an `Actions` with `lost`).
    pub fn take_lost(&mut self) -> Option<Packet> {
        self.lost.take()
    }

    /// The arrival due now, if this is its time (events for arrival times
    /// that a rate change moved find another packet, or none, and do nothing).
    pub fn pop_arrival(&mut self, now: Time) -> Option<Packet> {
        if self.in_flight.front()?.0 == now {
            self.in_flight.pop_front().map(|e| e.1)
        } else {
            None
        }
    }

    /// The next rate step is due: apply it.
    pub fn apply_next_step(&mut self, now: Time) -> Actions {
        let (_, rate) = self.schedule[self.next_step];
        self.next_step += 1;
        self.set_rate(now, rate)
    }

    fn set_rate(&mut self, now: Time, rate: u64) -> Actions {
        self.touch(now);
        self.retire(now);
        let old = self.rate_bps;
        self.rate_bps = rate;
        self.queue.set_rate(rate);
        let Some(s) = self.service.as_mut() else { return self.start_next(now) };
        // The bits sent at the old rate stay sent; the rest go at the new rate.
        let sent = bits_in(now - s.since, old).min(s.remaining_bits);
        s.remaining_bits -= sent;
        s.since = now;
        s.finish = (rate > 0).then(|| now + tx_time_bits(s.remaining_bits, rate));
        let (finish, lost) = (s.finish, s.lost);
        let mut a = Actions::default();
        if !lost {
            let back = self.in_flight.back_mut().expect("the packet in service is on the wire list");
            back.0 = finish.map_or(Time::MAX, |f| f + self.delay);
            a.arrive_at = finish.map(|f| f + self.delay);
        }
        // Any pending end-of-service event is for the old finish time.
        self.next_gen();
        self.tx_pending = false;
        self.want_tx_done(&mut a);
        a
    }

    pub fn next_step_time(&self) -> Option<Time> {
        self.schedule.get(self.next_step).map(|s| s.0)
    }
}
