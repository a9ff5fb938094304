//! A unidirectional point-to-point link: a queue, a transmitter with a
//! piecewise-constant rate, an optional random-loss module on the wire, and
//! a propagation delay.
//!
//! The transmitter works in bits so that a rate change in the middle of a
//! packet is exact: the bits already sent at the old rate stay sent and the
//! rest go at the new rate. A rate of 0 is an outage: service pauses.
//! (At 9.6 kb/s a 500-byte packet takes 0.42 s, so in Paliwal et al.'s rate-switch
//! scenario this matters.)

use crate::net::NodeId;
use super::hop::{BuildContext, BuildError, Ends, Hop, HopConfig, HopEvent, HopKind, Port, Samples};
use super::queue::{self, AnyQueue, Queue, QueueMeter, QueueResult, QueueSpec};
use super::ppp::{Compression, Ppp};
use super::{DropReason, Headers, Packet};
use crate::channel::{link_rate, DrcSpec};
use crate::engine::time::bits_in;
use crate::engine::{Rng, Time, NS_PER_SEC};
use crate::result::Rows;
use serde::{Deserialize, Serialize};


/// A link as the scenario describes it (a duplex link in the file is two).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct LinkSpec {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    /// Bits per second at time 0 (the first step of `rate_changes` if it
    /// has one at 0).
    pub rate_bps: u64,
    pub delay: Time,
    pub queue: QueueSpec,
    /// How the rate changes after time 0.
    #[serde(default)]
    pub rate_changes: RateChanges,
    /// Bernoulli loss probability applied to each packet as it leaves the
    /// wire (with `ppp`: frames lost below PPP, the residual loss of the
    /// radio link's own error recovery).
    pub loss: f64,
    /// The link runs PPP with this header compression (`net::ppp`): frames
    /// are what it serialises, and a lost frame can put the decompressor
    /// out of step. None: IP packets as they are.
    #[serde(default)]
    pub ppp: Option<Compression>,
    /// A capture sees each packet as it is offered to the link, before its
    /// queue (as tcpdump on the sending host sees it, before the modem's
    /// buffer; packets the queue then drops included); otherwise as it
    /// starts on the wire.
    #[serde(default)]
    pub capture_at_entry: bool,
}

/// How a link's rate changes over the run. A rate of 0 is an outage:
/// service pauses and resumes where it stopped.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum RateChanges {
    /// It keeps its rate.
    #[default]
    None,
    /// Piecewise constant: (time, bit/s) steps in increasing time.
    Schedule(Vec<(Time, u64)>),
    /// `steps` (times in [0, period), the first at 0) repeat every `period`
    /// from `start` until the end of the run, drawn as the run goes.
    Periodic { steps: Vec<(Time, u64)>, start: Time, period: Time },
    /// Slot by slot, the rate a radio channel's sequence of rate requests
    /// gives (`channel::link_rate`: 1xEV-DO's DRC rates), drawn as the run
    /// goes: the link is one terminal's forward link, alone on its carrier.
    Channel(DrcSpec),
}

impl RateChanges {
    /// Its steps, from time 0 (the drawn ones up to `until`; a schedule's
    /// as written).
    fn steps(&self, name: &str, cx: &BuildContext, until: Time) -> Result<RateSteps, BuildError> {
        Ok(match self {
            RateChanges::None => Box::new(std::iter::empty()),
            RateChanges::Schedule(steps) => Box::new(steps.clone().into_iter()),
            RateChanges::Periodic { steps, start, period } => periodic_steps(steps.clone(), *start, *period, until),
            RateChanges::Channel(d) => {
                let channel = d.open(cx.rng).map_err(BuildError::channel(format!("link '{name}'")))?;
                Box::new(link_rate::RateSteps::new(channel, until))
            }
        })
    }

    /// The steps of a schedule, made (empty) if the rate did not change:
    /// for tests that add outages to a link. An empty schedule changes
    /// nothing, as `None` does.
    pub fn schedule_mut(&mut self) -> &mut Vec<(Time, u64)> {
        if *self == RateChanges::None {
            *self = RateChanges::Schedule(Vec::new());
        }
        match self {
            RateChanges::Schedule(steps) => steps,
            other => panic!("the link's rate changes as {other:?}, not by a schedule"),
        }
    }
}

impl HopConfig for LinkSpec {
    fn ports(&self) -> Vec<Ends> {
        vec![Ends { from: self.from, to: self.to }]
    }

    /// The queue's length, and RED's average where the queue is RED.
    fn sampled_series(&self) -> u64 {
        1 + matches!(self.queue, QueueSpec::Red(_)) as u64
    }
}

impl HopKind for Link {
    type Config = LinkSpec;

    /// The rate's changes are drawn lazily up to the end of the run; the
    /// queue and the loss module draw from streams named after the link.
    fn build(l: &LinkSpec, cx: &BuildContext) -> Result<Link, BuildError> {
        let steps = l.rate_changes.steps(&l.name, cx, cx.duration)?;
        let mut link = Link::new(
            l.name.clone(),
            l.from,
            l.to,
            l.rate_bps,
            l.delay,
            queue::build(&l.queue, l.rate_bps, cx.rng, &l.name),
            l.loss,
            cx.rng.stream(&format!("loss/{}", l.name)),
            steps,
        );
        link.ppp = l.ppp.map(Ppp::new);
        link.capture_at_entry = l.capture_at_entry;
        Ok(link)
    }
}

/// The rate steps still to come, (time, bit/s), in increasing time: a
/// fixed list or a lazily drawn DRC sequence (`channel::link_rate`).
pub type RateSteps = Box<dyn Iterator<Item = (Time, u64)> + Send>;

/// `steps` (times in [0, period), the first at 0) repeated every `period`
/// from `start` until `until`, drawn lazily: a periodic outage costs no list.
pub fn periodic_steps(steps: Vec<(Time, u64)>, start: Time, period: Time, until: Time) -> RateSteps {
    Box::new(Periodic { steps, period, until, base: start, i: 0 })
}

struct Periodic {
    steps: Vec<(Time, u64)>,
    period: Time,
    until: Time,
    /// Start of the current period, and the next step in it.
    base: Time,
    i: usize,
}

impl Iterator for Periodic {
    type Item = (Time, u64);
    fn next(&mut self) -> Option<(Time, u64)> {
        if self.i == self.steps.len() {
            self.i = 0;
            self.base = self.base.checked_add(self.period)?;
        }
        let (at, rate) = self.steps[self.i];
        let t = self.base.checked_add(at).filter(|&t| t <= self.until)?;
        self.i += 1;
        Some((t, rate))
    }
}

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

impl LinkStats {
    /// Bits the link could have sent.
    pub fn capacity_bits(&self) -> f64 {
        self.capacity_bit_ns as f64 / NS_PER_SEC.0 as f64
    }
}

#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    pub queue: QueueMeter,
    pub pkts_sent: u64,
    pub bytes_sent: u64,
    /// Integral of the rate over time, in bit·ns (bits the link could have
    /// sent × 1e9; integer, so the per-packet path has no division).
    pub capacity_bit_ns: u128,
}

pub struct Link {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub delay: Time,
    pub queue: AnyQueue,
    pub loss: f64,
    loss_rng: Rng,
    /// PPP framing and header compression, if the link runs PPP.
    pub ppp: Option<Ppp>,
    rate_bps: u64,
    /// Rate steps still to come, and the next one.
    steps: RateSteps,
    next_step: Option<(Time, u64)>,
    service: Option<Service>,
    /// End of the current service, when another packet waits behind it (the
    /// transmitter then needs a wake-up to start that one).
    tx_done_at: Option<Time>,
    /// Report `Transmit` for every packet that starts (a capture listens),
    /// or (`tap_entry`) for every packet offered, when the capture is at
    /// the link's entry (`capture_at_entry`).
    pub tap: bool,
    capture_at_entry: bool,
    tap_entry: bool,
    /// A rate change applies from the next packet on (ns-2's links), not in
    /// the middle of the packet in service (the default, exact).
    pub rate_from_next_packet: bool,
    /// Drops and transmissions to report; arrivals are reported straight
    /// from the wire list, up to `released` (no copy of the packet into a
    /// second queue on the per-packet path).
    outbox: std::collections::VecDeque<HopEvent>,
    released: Time,
    /// Packets in service or on the wire with their arrival times, in order
    /// (the delay is constant, so FIFO; Time::MAX while an outage pauses one).
    in_flight: std::collections::VecDeque<(Time, Packet)>,
    pub stats: LinkStats,
    /// Since when the rate has been what it is (the capacity integral is
    /// brought up to date only when it changes and at the end).
    rate_since: Time,
    /// (bytes, rate, transmission time) of the last packet served.
    last_tx: (u32, u64, Time),
}

/// Time to serialise `bits` at `rate_bps`, rounded up. u64 arithmetic (a
/// 64-bit division, not a 128-bit one: this is on the per-packet path) is
/// exact while bits < 1.8e10, i.e. for any packet; beyond that, u128.
fn tx_time_bits(bits: u64, rate_bps: u64) -> Time {
    match bits.checked_mul(NS_PER_SEC.0) {
        Some(x) => Time(x.div_ceil(rate_bps)),
        None => Time((bits as u128 * NS_PER_SEC.0 as u128).div_ceil(rate_bps as u128) as u64),
    }
}

impl Link {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        from: NodeId,
        to: NodeId,
        rate_bps: u64,
        delay: Time,
        queue: AnyQueue,
        loss: f64,
        loss_rng: Rng,
        mut steps: RateSteps,
    ) -> Self {
        // Steps at time 0 set the starting rate.
        let mut rate_bps = rate_bps;
        let mut next_step = steps.next();
        while let Some((Time::ZERO, r)) = next_step {
            rate_bps = r;
            next_step = steps.next();
        }
        let mut queue = queue;
        queue.set_rate(rate_bps);
        Link {
            name,
            from,
            to,
            delay,
            queue,
            loss,
            loss_rng,
            ppp: None,
            rate_bps,
            steps,
            next_step,
            service: None,
            tx_done_at: None,
            tap: false,
            capture_at_entry: false,
            tap_entry: false,
            rate_from_next_packet: false,
            outbox: Default::default(),
            released: Time::ZERO,
            in_flight: Default::default(),
            stats: LinkStats::default(),
            rate_since: Time::ZERO,
            last_tx: (0, 0, Time::ZERO),
        }
    }

    /// Bring the queue's time integrals up to `now` (call before the queue changes).
    #[inline(always)]
    fn touch(&mut self, now: Time) {
        self.stats.queue.touch(now, &self.queue);
    }

    /// Bring the capacity integral up to `now` (call before the rate changes).
    fn integrate_rate(&mut self, now: Time) {
        self.stats.capacity_bit_ns += self.rate_bps as u128 * (now - self.rate_since).0 as u128;
        self.rate_since = now;
    }

    /// Forget a service that has finished by `now` (its end needed no wake-up
    /// because nothing was waiting behind it).
    fn retire(&mut self, now: Time) {
        if self.service.as_ref().is_some_and(|s| s.finish.is_some_and(|f| f <= now)) {
            self.service = None;
            self.tx_done_at = None;
        }
    }

    pub fn rate_bps(&self) -> u64 {
        self.rate_bps
    }

    /// Its row of the queues table: the queue, and the bytes sent over the
    /// capacity the rate offered over the run (utilisation in [0, 1]).
    pub fn row(&self, horizon: Time) -> QueueResult {
        let s = &self.stats;
        let utilization = if s.capacity_bit_ns > 0 { s.bytes_sent as f64 * 8.0 / s.capacity_bits() } else { 0.0 };
        s.queue.row(self.name.clone(), &self.queue, horizon, utilization, s.bytes_sent)
    }

    /// Until when the link is busy (a packet waiting or in transmission),
    /// if nothing more arrives: Time::MAX while packets wait or an outage
    /// pauses one, the end of the current transmission, or 0 if there is none.
    pub fn busy_until(&self) -> Time {
        if self.queue.len_packets() > 0 {
            return Time::MAX;
        }
        self.service.as_ref().map_or(Time::ZERO, |s| s.finish.unwrap_or(Time::MAX))
    }

    /// Ask for a wake-up at the end of the current service if packets wait.
    fn want_tx_done(&mut self) {
        self.tx_done_at = match self.service.as_ref() {
            Some(s) if self.queue.len_packets() > 0 => s.finish,
            _ => None,
        };
    }

    /// Start the next queued packet if the transmitter is free and the rate
    /// is not zero. Its arrival time is known at once, so the end of its
    /// service needs a wake-up only if another packet waits behind it.
    /// Returns whether a packet started (the wake-up is then asked for).
    fn start_next(&mut self, now: Time, hd: &mut Headers) -> bool {
        if self.service.is_some() || self.rate_bps == 0 {
            return false;
        }
        let Some(pkt) = self.queue.dequeue(now) else { return false };
        self.start(now, pkt, hd);
        self.want_tx_done();
        true
    }

    /// Start `pkt` on the free transmitter: through the loss module, then
    /// onto the wire (as a PPP frame on a PPP link).
    #[inline(always)]
    fn start(&mut self, now: Time, pkt: Packet, hd: &mut Headers) {
        let lost = self.loss_rng.bernoulli(self.loss);
        if self.ppp.is_some() {
            self.start_frame(now, pkt, lost, hd);
        } else {
            self.serve(now, pkt, pkt.size, lost.then_some(DropReason::RandomLoss), self.tap, hd);
        }
    }

    /// Serve `bytes` of the link for `pkt`: onto the wire list, or dropped
    /// (`dropped`: the loss module or a decompressor took it); `tap`: report
    /// it to a capture. The caller then says whether its end needs a
    /// wake-up (`want_tx_done`).
    #[inline(always)]
    fn serve(&mut self, now: Time, pkt: Packet, bytes: u32, dropped: Option<DropReason>, tap: bool, hd: &Headers) {
        let bits = bytes as u64 * 8;
        // A link carries a few packet sizes at one rate (data one way, ACKs
        // the other): the last one's time saves a division per packet.
        if self.last_tx.0 != bytes || self.last_tx.1 != self.rate_bps {
            self.last_tx = (bytes, self.rate_bps, tx_time_bits(bits, self.rate_bps));
        }
        let finish = now + self.last_tx.2;
        self.stats.pkts_sent += 1;
        self.stats.bytes_sent += bytes as u64;
        if let Some(reason) = dropped {
            self.lose(pkt, reason, tap, hd);
        } else {
            // The packet goes straight onto the wire list (one copy on the
            // per-packet path).
            self.in_flight.push_back((finish + self.delay, pkt));
            if tap {
                self.transmitted(pkt, hd);
            }
        }
        self.service = Some(Service { remaining_bits: bits, since: now, finish: Some(finish), lost: dropped.is_some() });
    }

    /// `pkt` is dropped here (by the queue on arrival, the loss module or a
    /// decompressor): counted among the link's drops and reported.
    #[cold]
    fn report_drop(&mut self, pkt: Packet, reason: DropReason) {
        self.stats.queue.drop(reason);
        self.outbox.push_back(HopEvent::Drop { port: 0, pkt, reason });
    }

    /// The loss module (or a header decompressor) took the packet that
    /// starts service: it is reported (as sent, to a tap) and dropped.
    #[cold]
    fn lose(&mut self, pkt: Packet, reason: DropReason, tap: bool, hd: &Headers) {
        if tap {
            self.transmitted(pkt, hd);
        }
        self.report_drop(pkt, reason);
    }

    /// Tell a capture that `pkt` is sent, with its header as it is now.
    #[cold]
    fn transmitted(&mut self, pkt: Packet, hd: &Headers) {
        self.outbox.push_back(HopEvent::transmit(0, pkt, hd));
    }

    /// Start `pkt` as a PPP frame (lost below PPP or not): a tap sees it as
    /// it was sent, the far end as the decompressor rebuilt it, and the
    /// link serialises the frame's bytes.
    #[inline(never)]
    fn start_frame(&mut self, now: Time, mut pkt: Packet, lost: bool, hd: &mut Headers) {
        if self.tap {
            self.transmitted(pkt, hd);
        }
        let header = hd.get_mut(pkt.hdr);
        let (size, dropped) = self.ppp.as_mut().expect("a PPP link").carry(&mut pkt, header, lost);
        self.serve(now, pkt, super::ppp::FRAMING_BYTES + size, dropped, false, hd);
    }

    /// The transmitter's rate becomes `rate` at `now` (a hop that owns the
    /// link, such as a cdma2000 cell granting a supplemental channel).
    pub fn set_rate(&mut self, now: Time, rate: u64, hd: &mut Headers) {
        self.touch(now);
        self.integrate_rate(now);
        self.retire(now);
        let old = self.rate_bps;
        self.rate_bps = rate;
        self.queue.set_rate(rate);
        let Some(s) = self.service.as_mut() else {
            self.start_next(now, hd);
            return;
        };
        if self.rate_from_next_packet && s.finish.is_some() {
            // ns-2 computes a packet's transmission time when it starts.
            return;
        }
        // The bits sent at the old rate stay sent; the rest go at the new rate.
        let sent = bits_in(now - s.since, old).min(s.remaining_bits);
        s.remaining_bits -= sent;
        s.since = now;
        s.finish = (rate > 0).then(|| now + tx_time_bits(s.remaining_bits, rate));
        let (finish, lost) = (s.finish, s.lost);
        if !lost {
            let back = self.in_flight.back_mut().expect("the packet in service is on the wire list");
            back.0 = finish.map_or(Time::MAX, |f| f + self.delay);
        }
        self.want_tx_done();
    }
}

impl Hop for Link {
    #[inline(always)]
    fn offer(&mut self, now: Time, _port: Port, pkt: Packet, hd: &mut Headers) {
        self.touch(now);
        if self.tap_entry {
            self.transmitted(pkt, hd);
        }
        let free = self.service.as_ref().is_none_or(|s| s.finish.is_some_and(|f| f <= now));
        if free && self.rate_bps != 0 && self.queue.len_packets() == 0 {
            // The transmitter is free and nothing waits: the packet passes
            // the queue (its discipline still decides) and starts at once,
            // without a copy into the queue and out again.
            match self.queue.pass(now, pkt) {
                Ok(pkt) => {
                    self.stats.queue.enqueued += 1;
                    self.retire(now);
                    self.start(now, pkt, hd);
                    // Nothing waits behind it: its end needs no wake-up.
                    self.tx_done_at = None;
                }
                Err((pkt, reason)) => self.report_drop(pkt, reason),
            }
            return;
        }
        if let Err((pkt, reason)) = self.queue.enqueue(now, pkt) {
            self.report_drop(pkt, reason);
            return;
        }
        self.stats.queue.enqueued += 1;
        self.retire(now);
        // A packet that waits behind the one in service needs the wake-up at
        // the end of that service (a packet that starts asked for its own).
        if !self.start_next(now, hd) {
            self.want_tx_done();
        }
        // Maximum of the waiting queue, after an idle transmitter took the packet.
        self.stats.queue.peak(&self.queue);
    }

    #[inline(always)]
    fn poll(&mut self) -> Option<HopEvent> {
        if let Some(e) = self.outbox.pop_front() {
            return Some(e);
        }
        // The packet is copied from the front of the wire list straight into
        // the event, and the entry then discarded (popping it first would
        // copy it twice: measured).
        let front = self.in_flight.front()?;
        if front.0 > self.released {
            return None;
        }
        let pkt = front.1;
        self.in_flight.pop_front();
        Some(HopEvent::Deliver { port: 0, pkt })
    }

    #[inline(always)]
    fn deadline(&self) -> Option<Time> {
        // Plain comparisons: this runs after every packet's every step. An
        // arrival of Time::MAX is a packet paused by an outage (no deadline).
        let mut d = self.in_flight.front().map_or(Time::MAX, |e| e.0);
        if let Some(t) = self.tx_done_at {
            d = d.min(t);
        }
        if let Some((t, _)) = self.next_step {
            d = d.min(t);
        }
        (d != Time::MAX).then_some(d)
    }

    #[inline(always)]
    fn on_timer(&mut self, now: Time, hd: &mut Headers) {
        // Rate steps first: a packet whose service ends at the very time of a
        // step is finished either way, and the next one starts at the new rate.
        while let Some((t, rate)) = self.next_step.filter(|s| s.0 <= now) {
            self.next_step = self.steps.next();
            self.set_rate(t, rate, hd);
        }
        if self.tx_done_at.is_some_and(|t| t <= now) {
            self.touch(now);
            self.service = None;
            self.tx_done_at = None;
            self.start_next(now, hd);
        }
        // Packets whose arrival time has come are handed on by `poll`.
        self.released = now;
    }

    fn ports(&self) -> Port {
        1
    }

    fn ends(&self, _port: Port) -> Ends {
        Ends { from: self.from, to: self.to }
    }

    fn place(&self, _port: Port) -> String {
        self.name.clone()
    }

    fn drops(&self) -> u64 {
        self.stats.queue.drops_total()
    }

    fn packets_inside(&self) -> u64 {
        self.queue.len_packets() as u64 + self.in_flight.len() as u64
    }

    /// The queue's length, and RED's average queue where the queue is RED.
    fn sample(&self, out: &mut impl Samples) {
        out("queue_pkts", &|| self.name.clone(), self.queue.len_packets() as f64);
        if let Some(avg) = self.queue.average() {
            out("red_avg", &|| self.name.clone(), avg);
        }
    }

    fn report(&self, horizon: Time, rows: &mut Rows) {
        rows.push(self.row(horizon));
        if let Some(p) = &self.ppp {
            rows.push(p.row(self.name.clone()));
        }
    }

    fn finish(&mut self, now: Time, _hd: &mut Headers) {
        self.touch(now);
        self.integrate_rate(now);
    }

    fn tap(&mut self) -> bool {
        if self.capture_at_entry {
            self.tap_entry = true;
        } else {
            self.tap = true;
        }
        true
    }
}
