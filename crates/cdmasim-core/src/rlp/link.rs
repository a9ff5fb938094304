//! An IS-2000 radio link with RLP3 in both directions, as one hop (Dziong
//! et al. Fig. 5: the air link between the base station side and the
//! mobile). Port 0 is the forward link (entry: the network-side node, exit:
//! the mobile), port 1 the reverse link (entry: the mobile, exit: the
//! network side). The forward direction's NAKs and V(N) travel in the
//! reverse direction's frames and the other way round, so they take the
//! delay and suffer the frame errors of that direction.
//!
//! Time is slotted in 20 ms frames from t = 0. In each slot a direction
//! with a non-zero rate sends one frame of rate × 20 ms / 8 bytes (24 B at
//! 9.6 kb/s, 96 B at 38.4 kb/s, 384 B at 153.6 kb/s: Table 1's N_rlp·S_rlp)
//! if it has data, unconfirmed data (an idle frame), or control for the
//! other direction; the frame arrives after the one-way delay D unless the
//! channel's frame-error model loses it. The hop wakes only while a
//! direction has something to do: an idle link costs nothing.
//!
//! With a `queue`, forward packets wait whole in the network side's
//! per-mobile buffer (`buffer`) and enter RLP a frame's worth at a time;
//! without one, RLP's new-data buffer takes everything offered.

use crate::net::NodeId;
use super::arq::{Arq, Arrival, Frame};
use super::buffer::Buffer;
use super::frame_errors::{self, ErrorModel, FrameErrors};
use super::meter::Meter;
use crate::engine::time::secs;
use crate::engine::{RngStreams, Time, NS_PER_MS};
use crate::net::hop::{BuildContext, BuildError, Ends, HopConfig, HopKind, Samples};
use crate::net::queue::QueueSpec;
use crate::net::{DropReason, Headers, Hop, HopEvent, Packet, Port};
use crate::rlp::rows::RadioLinkResult;
use crate::result::Rows;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

pub const FRAME: Time = Time::from_millis(20);
/// A control frame (a NAK, or V(N) on its own): one RLP frame of the 1X
/// size, 9.6 kb/s × 20 ms.
pub const CONTROL_FRAME_BYTES: u64 = 24;

/// One direction's radio channel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChannelConfig {
    pub rate_bps: u64,
    pub fer: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RlpConfig {
    /// NAKs in each round (Table 1: rounds of 1, 2 and 3; §3.3's scheme is
    /// [2, 3]); empty: no retransmission, a lost frame's packet is dropped.
    pub naks: Vec<u32>,
    /// The guard time G between rounds (Table 1: 60 ms).
    pub guard: Time,
    /// How a receiver's control reaches the other end.
    pub control: Control,
}

/// Where a direction's NAKs and its receiver's V(N) travel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Control {
    /// Control frames of their own (Dziong et al. §5.1.4): a NAK takes an
    /// RLP frame of the 1X size (24 B; the whole slot at 9.6 kb/s, a
    /// quarter of it at 38.4 kb/s) ahead of data (control before
    /// retransmissions before new data),
    /// and the state variable V(N) rides only in room the data leaves, so
    /// a run of full frames (an HTTP request on the reverse link) delays it
    /// and the retransmission buffer it would free "could be greater" than
    /// 2D of data, while a TCP ACK (40 B of a 96 B frame) does not. After a
    /// round (2D + G) without V(N) while the far sender has unconfirmed
    /// data, V(N) takes such a frame too, so a bulk transfer the other way
    /// cannot starve it.
    Frames,
    /// Beside the data in every frame, at no cost (an idealisation).
    Piggyback,
}

impl Default for RlpConfig {
    fn default() -> Self {
        RlpConfig { naks: vec![1, 2, 3], guard: 60 * NS_PER_MS, control: Control::Frames }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RadioLinkConfig {
    pub name: String,
    /// The network-side node (BSC/PDSN) and the mobile's node.
    pub bsc: NodeId,
    pub mobile: NodeId,
    /// Forward (port 0) and reverse (port 1) channels.
    pub down: ChannelConfig,
    pub up: ChannelConfig,
    /// One-way latency D (Table 1: 100 ms), at least one frame.
    pub delay: Time,
    pub errors: ErrorModel,
    pub rlp: RlpConfig,
    /// The network side's per-mobile buffer in front of the forward RLP
    /// sender (Jung et al. §III); None: RLP takes every packet offered.
    #[serde(default)]
    pub queue: Option<QueueSpec>,
}

/// A frame on its way, and whether the channel lost it.
struct InFlight {
    arrive: Time,
    lost: bool,
    frame: Frame,
}

pub struct Direction {
    pub rate_bps: u64,
    pub arq: Arq,
    errors: Box<dyn FrameErrors>,
    flying: VecDeque<InFlight>,
    /// Frames sent, and lost on the air.
    pub frames_sent: u64,
    pub frames_lost: u64,
    /// Time-weighted occupancy of the new-data and retransmission buffers (bytes).
    pub new_data: Meter,
    pub rtx_buffer: Meter,
    /// Channel ON periods: runs of consecutive slots carrying data, in frames.
    pub on_runs: Meter,
    run: u64,
    /// Frames this direction sent since one carried the other's V(N).
    vn_age: u32,
}

impl Direction {
    fn new(rate_bps: u64, arq: Arq, errors: Box<dyn FrameErrors>) -> Self {
        Direction {
            rate_bps,
            arq,
            errors,
            flying: VecDeque::new(),
            frames_sent: 0,
            frames_lost: 0,
            new_data: Meter::new(24),
            rtx_buffer: Meter::new(24),
            on_runs: Meter::new(1),
            run: 0,
            vn_age: 0,
        }
    }

    /// Payload bytes one frame carries at the current rate.
    pub fn frame_bytes(&self) -> u64 {
        self.rate_bps * FRAME.0 / 8_000_000_000
    }

    fn record(&mut self, now: Time) {
        self.new_data.set(now, self.arq.new_data_bytes());
        self.rtx_buffer.set(now, self.arq.rtx_buffer_bytes());
    }
}

pub struct RlpLink {
    pub name: String,
    pub bsc: NodeId,
    pub mobile: NodeId,
    delay: Time,
    /// [forward, reverse].
    pub dirs: [Direction; 2],
    /// The next slot not yet run.
    next_slot: u64,
    outbox: VecDeque<HopEvent>,
    control: Control,
    /// A NAK round, 2D + G, in frames: the longest V(N) waits behind data.
    round: u32,
    /// The forward direction's per-mobile buffer, if the link has one.
    buffer: Option<Buffer>,
    /// What the last frame received completed, emptied into `outbox` at
    /// once (kept for its lists' room).
    arrival: Arrival,
}

impl RlpLink {
    pub fn new(cfg: &RadioLinkConfig, rng: &RngStreams) -> Self {
        let round = (2 * cfg.delay + cfg.rlp.guard).div_ceil(FRAME) as u32;
        let dir = |ch: &ChannelConfig, which: &str| {
            let errors = frame_errors::build(&cfg.errors, ch.fer, rng.stream(&format!("fer/{}/{which}", cfg.name)));
            Direction::new(ch.rate_bps, Arq::new(cfg.rlp.naks.clone(), round), errors)
        };
        RlpLink {
            name: cfg.name.clone(),
            bsc: cfg.bsc,
            mobile: cfg.mobile,
            delay: cfg.delay.max(FRAME),
            dirs: [dir(&cfg.down, "down"), dir(&cfg.up, "up")],
            next_slot: 0,
            outbox: VecDeque::new(),
            control: cfg.rlp.control,
            round,
            buffer: cfg.queue.as_ref().map(|q| Buffer::new(q, cfg.down.rate_bps, rng, &cfg.name)),
            arrival: Arrival::default(),
        }
    }

    /// The forward RLP sender takes from the buffer what its next frame needs.
    fn refill(&mut self, now: Time) {
        if let Some(b) = &mut self.buffer {
            let frame = self.dirs[0].frame_bytes();
            b.refill(now, &mut self.dirs[0].arq, frame);
            self.dirs[0].record(now);
        }
    }

    /// A MAC changes a direction's rate at `now` (0: the channel is
    /// released); from the next frame on. Slots before `now` are gone: a
    /// link that waited without a channel starts at the next boundary.
    pub fn set_rate(&mut self, now: Time, dir: usize, bps: u64) {
        self.dirs[dir].rate_bps = bps;
        self.next_slot = self.next_slot.max(now.div_ceil(FRAME));
        if dir == 0 {
            if let Some(b) = &mut self.buffer {
                b.set_rate(bps);
            }
            self.refill(now);
        }
    }

    /// Whether direction `d` would send a frame in a slot now.
    fn wants_frame(&self, d: usize) -> bool {
        let (me, other) = (&self.dirs[d], &self.dirs[1 - d]);
        me.rate_bps > 0 && (me.arq.sender_busy() || other.arq.nak_due() || other.arq.sender_busy())
    }

    /// The link has work only while a direction sends, a frame flies, or a
    /// receiver waits on a timer (kept running by the other side's frames).
    fn next_slot_needed(&self) -> bool {
        (0..2).any(|d| self.wants_frame(d))
    }

    fn next_arrival(&self) -> Option<Time> {
        self.dirs.iter().filter_map(|d| d.flying.front().map(|f| f.arrive)).min()
    }

    fn run_slot(&mut self, slot: u64) {
        let now = slot * FRAME;
        for d in 0..2 {
            if !self.wants_frame(d) {
                let dir = &mut self.dirs[d];
                dir.on_runs.add_sample(dir.run);
                dir.run = 0;
                continue;
            }
            let (frame, control) = self.build_frame(d);
            let dir = &mut self.dirs[d];
            // The channel is ON while it carries data, or a control frame
            // in the midst of a transfer; an idle frame ends the period.
            if frame.data.is_some() || control {
                dir.run += 1;
            } else {
                dir.on_runs.add_sample(dir.run);
                dir.run = 0;
            }
            let lost = dir.errors.lost(slot);
            dir.frames_sent += 1;
            dir.frames_lost += lost as u64;
            dir.flying.push_back(InFlight { arrive: now + self.delay, lost, frame });
            dir.record(now);
        }
        self.refill(now);
    }

    /// Direction `d`'s frame for this slot: its data and the other
    /// direction's receiver control, by the link's `Control`.
    /// Also whether it is a control frame (a NAK, or V(N) that took room
    /// ahead of data) with this direction's data waiting behind it.
    fn build_frame(&mut self, d: usize) -> (Frame, bool) {
        let cap = self.dirs[d].frame_bytes();
        let [a, b] = &mut self.dirs;
        let (me, other) = if d == 0 { (a, b) } else { (b, a) };
        let (data, retransmission, vn, nak, control) = match self.control {
            Control::Piggyback => {
                let (vn, nak) = other.arq.control();
                let (data, rt) = me.arq.take_data(cap);
                (data, rt, Some(vn), nak, false)
            }
            // A NAK, or V(N) held back by full frames for a round (2D + G)
            // while the far sender waits on it, takes the slot ahead of data.
            // The control frame is one RLP frame of the 1X size; at kX the
            // rest of the 20 ms frame still carries data (Table 1: N_rlp
            // frames of S_rlp bytes per 20 ms).
            Control::Frames if other.arq.nak_due() || (me.vn_age >= self.round && other.arq.rtx_buffer_bytes() > 0) => {
                let (vn, nak) = other.arq.control();
                let (data, rt) = me.arq.take_data(cap.saturating_sub(CONTROL_FRAME_BYTES));
                // In the midst of a transfer when data still waits behind it.
                (data, rt, Some(vn), nak, me.arq.new_data_bytes() > 0)
            }
            Control::Frames => {
                let (data, rt) = me.arq.take_data(cap);
                // V(N) takes room the data leaves: a full frame has none.
                let room = data.is_none_or(|(a, b)| b - a < cap);
                let vn = room.then(|| other.arq.vr());
                (data, rt, vn, None, false)
            }
        };
        me.vn_age = if vn.is_some() { 0 } else { me.vn_age + 1 };
        (Frame { data, retransmission, vs: me.arq.vs(), vn, nak }, control)
    }

    fn arrive(&mut self, d: usize) {
        let f = self.dirs[d].flying.pop_front().expect("a frame in flight");
        if f.lost {
            return;
        }
        self.dirs[d].arq.on_frame(&f.frame, &mut self.arrival);
        self.dirs[1 - d].arq.on_control(f.frame.vn, f.frame.nak);
        for dir in &mut self.dirs {
            dir.record(f.arrive);
        }
        let port = d as Port;
        for pkt in self.arrival.delivered.drain(..) {
            self.outbox.push_back(HopEvent::Deliver { port, pkt });
        }
        for pkt in self.arrival.aborted.drain(..) {
            self.outbox.push_back(HopEvent::Drop { port, pkt, reason: DropReason::RlpAbort });
        }
    }

    /// Its two rows of the radio_links table (down, up).
    pub fn rows(&self) -> [RadioLinkResult; 2] {
        [0, 1].map(|d| {
            let (dir, s) = (&self.dirs[d], &self.dirs[d].arq.stats);
            RadioLinkResult {
                name: self.name.clone(),
                direction: ["down", "up"][d].into(),
                rate_bps: dir.rate_bps as f64,
                packets_in: s.ip_in,
                packets_delivered: s.ip_delivered,
                packets_aborted: s.ip_aborted,
                frames_sent: dir.frames_sent,
                frames_new: s.frames_new,
                frames_retransmitted: s.frames_retransmitted,
                frames_idle: s.frames_idle,
                frames_lost: dir.frames_lost,
                fer: if dir.frames_sent > 0 { dir.frames_lost as f64 / dir.frames_sent as f64 } else { 0.0 },
                naks_sent: s.naks_sent,
                new_data_mean_bytes: dir.new_data.mean(),
                new_data_max_bytes: dir.new_data.max,
                rtx_mean_bytes: dir.rtx_buffer.mean(),
                rtx_max_bytes: dir.rtx_buffer.max,
                new_data_cdf: dir.new_data.cdf(1.0),
                rtx_cdf: dir.rtx_buffer.cdf(1.0),
                on_periods: dir.on_runs.weights.iter().sum::<f64>() as u64,
                on_time_cdf: dir.on_runs.cdf(secs(FRAME)),
                sector: None,
                sch_grants: None,
                active_s: None,
            }
        })
    }
}

/// Port 0 forward (network side to mobile), port 1 reverse.
impl HopConfig for RadioLinkConfig {
    fn ports(&self) -> Vec<Ends> {
        let (bsc, mobile) = (self.bsc, self.mobile);
        vec![Ends { from: bsc, to: mobile }, Ends { from: mobile, to: bsc }]
    }

    /// Each way: the new-data and retransmission buffers and the rate;
    /// and the per-mobile buffer's length.
    fn sampled_series(&self) -> u64 {
        6 + self.queue.is_some() as u64
    }

    fn terminals(&self) -> Option<(NodeId, Vec<NodeId>)> {
        Some((self.bsc, vec![self.mobile]))
    }
}

impl HopKind for RlpLink {
    type Config = RadioLinkConfig;
    fn build(cfg: &RadioLinkConfig, cx: &BuildContext) -> Result<Self, BuildError> {
        Ok(RlpLink::new(cfg, cx.rng))
    }
}

impl Hop for RlpLink {
    fn offer(&mut self, now: Time, port: Port, pkt: Packet, _hd: &mut Headers) {
        match &mut self.buffer {
            Some(b) if port == 0 => {
                if let Err((pkt, reason)) = b.offer(now, pkt) {
                    self.outbox.push_back(HopEvent::Drop { port, pkt, reason });
                    return;
                }
                self.refill(now);
            }
            _ => {
                let dir = &mut self.dirs[port as usize];
                dir.arq.push(pkt);
                dir.record(now);
            }
        }
        // A packet that arrives while the link slept waits for the next slot.
        let next = now.div_ceil(FRAME);
        if self.next_slot < next {
            self.next_slot = next;
        }
    }

    fn poll(&mut self) -> Option<HopEvent> {
        self.outbox.pop_front()
    }

    fn deadline(&self) -> Option<Time> {
        let slot = self.next_slot_needed().then_some(self.next_slot * FRAME);
        match (slot, self.next_arrival()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn on_timer(&mut self, now: Time, _hd: &mut Headers) {
        loop {
            // Arrivals before a slot at the same time: the slot's frame then
            // carries what they taught (a NAK, a newer V(N)).
            let arrival = self.dirs.iter().enumerate().filter_map(|(d, x)| x.flying.front().map(|f| (f.arrive, d))).min();
            let slot = self.next_slot_needed().then_some(self.next_slot * FRAME);
            match (arrival, slot) {
                (Some((t, d)), s) if t <= now && s.is_none_or(|s| t <= s) => self.arrive(d),
                (_, Some(s)) if s <= now => {
                    self.run_slot(self.next_slot);
                    self.next_slot += 1;
                }
                _ => break,
            }
        }
        // Asleep, the slot clock jumps to the present when work comes back.
        if !self.next_slot_needed() {
            self.next_slot = self.next_slot.max(now.div_ceil(FRAME));
        }
    }

    /// Port 0 forward (network side to mobile), port 1 reverse.
    fn ports(&self) -> Port {
        2
    }

    fn ends(&self, port: Port) -> Ends {
        if port == 0 {
            Ends { from: self.bsc, to: self.mobile }
        } else {
            Ends { from: self.mobile, to: self.bsc }
        }
    }

    /// `NAME.down` or `NAME.up`.
    fn place(&self, port: Port) -> String {
        format!("{}.{}", self.name, if port == 0 { "down" } else { "up" })
    }

    /// Captured at the mobile, where tcpdump on the terminal runs, and
    /// named after the reverse direction (`NAME.up`), as a 1xEV-DO user is.
    fn capture_port(&self, _port: Port) -> Port {
        1
    }

    /// IP packets RLP gave up on, and those the buffer turned away.
    fn drops(&self) -> u64 {
        self.dirs.iter().map(|d| d.arq.stats.ip_aborted).sum::<u64>() + self.buffer.as_ref().map_or(0, |b| b.drops())
    }

    fn packets_inside(&self) -> u64 {
        self.dirs.iter().map(|d| d.arq.packets_inside()).sum::<u64>()
            + self.buffer.as_ref().map_or(0, |b| b.len_packets() as u64)
    }

    /// Dziong et al. Figs. 9-12: the RLP sender's buffers and the rate, each
    /// way; the per-mobile buffer's length under the link's name.
    fn sample(&self, out: &mut impl Samples) {
        if let Some(b) = &self.buffer {
            out("queue_pkts", &|| self.name.clone(), b.len_packets() as f64);
        }
        for (d, dir) in self.dirs.iter().zip(["down", "up"]) {
            out("rlp_new_data_bytes", &|| format!("{}.{dir}", self.name), d.arq.new_data_bytes() as f64);
            out("rlp_rtx_bytes", &|| format!("{}.{dir}", self.name), d.arq.rtx_buffer_bytes() as f64);
            out("rate_bps", &|| format!("{}.{dir}", self.name), d.rate_bps as f64);
        }
    }

    fn report(&self, horizon: Time, rows: &mut Rows) {
        rows.extend(self.rows());
        if let Some(b) = &self.buffer {
            rows.push(b.row(self.name.clone(), horizon, self.dirs[0].rate_bps));
        }
    }

    fn finish(&mut self, now: Time, _hd: &mut Headers) {
        if let Some(b) = &mut self.buffer {
            b.finish(now);
        }
        for d in &mut self.dirs {
            d.record(now);
            d.new_data.finish(now);
            d.rtx_buffer.finish(now);
            d.on_runs.add_sample(d.run);
            d.run = 0;
        }
    }
}
