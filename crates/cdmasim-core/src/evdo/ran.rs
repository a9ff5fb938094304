//! A 1xEV-DO radio access network as a hop of the packet world: the sectors
//! of one base station, each serving its users slot by slot with a
//! scheduler from `evdo::scheduler` (the same code as `cdmasim evdo
//! schedule`), and a per-user queue at the base station.
//!
//! Slot n (starting at n/600 s) goes like this, for all sectors at once
//! (EV-DO sectors are slot-synchronous):
//! 1. hand-offs due by the slot's start move users between sectors;
//! 2. every user's channel gives its DRC for the slot;
//! 3. in a control-channel slot no sector serves traffic (`air`);
//!    otherwise each sector's `SlotServer` continues the interlace's packet
//!    or asks the scheduler, which sees only its own backlogged users;
//! 4. a new physical-layer packet of DRC d takes up to
//!    `air.payload_bytes(bits(d))` of the user's PPP octets: the head IP
//!    packet's remaining octets, then whole packets from the queue; a packet
//!    whose last octet it carries is delivered when the physical-layer packet
//!    has had its last slot, plus the RAN's delay, and never before the user's
//!    previous packet (RLP hands data up in order).
//!
//! Users with `reverse_mac` send their packets up through the RAN too
//! (ports after the forward ones, user to base station): at every 16th
//! slot each terminal ends its reverse frame and picks the next one's rate
//! (`evdo::reverse`), seeing the RAB its sector set from the last frame's
//! load; background users' ACKs load the reverse link as well
//! (`evdo::uplink`).
//!
//! Sans I/O: driven only by `offer` and `on_timer`. While no user has data
//! and no packet is on the air, nothing is scheduled; the slots in between
//! are run when the next packet arrives or the run ends (channels advance,
//! PF averages decay), so an idle sector costs no events.

use crate::net::NodeId;
use super::air::AirOverhead;
use super::bearer::{Bearer, Fate};
use super::config::{Activity, HandoffPf, HandoffPlan, HandoffQueue, RanConfig};
use super::reverse::{RabConfig, RateControl, ReverseConfig, FRAME_SLOTS};
use super::rlp::{HandedUp, Load};
use super::uplink::{Carries, Uplink};
use super::scheduler::{drc_rates, SlotServer};
use crate::sched::{by_name, Scheduler};
use crate::channel::drc::RATE_BPS;
use crate::channel::link_rate::{slot_at_or_after, slot_start};
use crate::channel::slot_block::SlotBlock;
use crate::channel::source::SlotReader;
use crate::engine::{Rng, RngStreams, Time};
use crate::net::queue::Queue;
use crate::engine::time::secs;
use crate::net::hop::{BuildContext, BuildError, Ends, HopKind, Samples};
use crate::net::queue::QueueSpec;
use crate::channel::DrcSpec;
use crate::net::{DropReason, Headers, Hop, HopEvent, Packet, Port};
use crate::evdo::rows::{SectorResult, UserResult};
use crate::result::Rows;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Per-user figures, all over the run. The two every slot adds to come
/// first (`User`'s layout).
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct UserStats {
    /// Sum of the nominal DRC rate over every slot of the run (the channel's mean × slots).
    pub drc_rate_sum: f64,
    pub slots_seen: u64,
    /// Slots that carried this user's data.
    pub slots_served: u64,
    /// Those of `slots_served` in which another user of the serving
    /// sector had packets queued (a slot that goes on with a multi-slot
    /// packet counts too).
    pub slots_contended: u64,
    /// PPP octets carried.
    pub air_bytes: u64,
    /// IP packets and bytes delivered to the user.
    pub packets_delivered: u64,
    pub ip_bytes_delivered: u64,
    pub handoffs: u64,
}

/// A terminal of the RAN. What every slot reads and writes of it (its
/// sector, DRC, activity, uplink and the two per-slot tallies of `stats`)
/// is laid out first, in one cache line (`repr(C)`, aligned to a line):
/// with many sectors, each user's state is out of the caches by its next
/// slot, and a slot then costs one miss a user rather than one a field.
#[repr(C, align(64))]
pub struct User {
    pub sector: usize,
    /// A background user's busy and idle periods (None: always busy).
    /// Boxed, as `up`: a slot asks only whether there is one.
    activity: Option<Box<OnOff>>,
    /// Its reverse link with the Rev. 0 MAC (None: a link `NAME.up` of
    /// its own outside the RAN, or a background user of a RAN without one).
    pub up: Option<Box<Uplink>>,
    /// DRC of the current slot.
    pub drc: u8,
    /// A background user (`RanConfig::background`): backlogged without
    /// packets, all the time or while its `activity` is busy.
    full_buffer: bool,
    pub stats: UserStats,
    pub name: String,
    /// Its node; none for a background user, which stands for load in its
    /// sector only and is no port.
    pub node: Option<NodeId>,
    /// Its forward link: the base station's queue `NAME.down`, PPP from the
    /// PDSN to the terminal, RLP and the residual loss below PPP.
    pub down: Bearer,
    next_handoff: Option<Time>,
    handoff_rng: Rng,
    plan_pos: usize,
}

impl User {
    /// A user as it starts: nothing queued, in `sector`, no hand-off
    /// planned, no PPP compression, no residual loss; and its channel.
    fn new(name: &str, node: Option<NodeId>, sector: usize, queue: &QueueSpec, drc: &DrcSpec, rng: &RngStreams) -> Result<(User, SlotReader), BuildError> {
        let channel = SlotReader::new(drc.open(rng).map_err(BuildError::channel(format!("user '{name}'")))?);
        let user = User {
            name: name.to_string(),
            node,
            sector,
            down: Bearer::new(&format!("{name}.down"), queue, name, rng),
            up: None,
            drc: 0,
            next_handoff: None,
            handoff_rng: rng.stream(&format!("handoff/{name}")),
            plan_pos: 0,
            full_buffer: false,
            activity: None,
            stats: UserStats::default(),
        };
        Ok((user, channel))
    }

    /// Its reverse link's bearer, if it has a reverse MAC.
    fn uplink_bearer(&self) -> Option<&Bearer> {
        self.up.as_ref()?.bearer()
    }

    fn backlogged(&self) -> bool {
        let busy = self.full_buffer && self.activity.as_ref().map_or(true, |a| a.busy);
        busy || self.down.backlogged()
    }
}

/// A background user's busy and idle periods as they unfold.
struct OnOff {
    spec: Activity,
    busy: bool,
    /// When the current period ends.
    until: Time,
    rng: Rng,
}

impl OnOff {
    /// The state at time 0 drawn from the chain's stationary distribution;
    /// by memorylessness the period in progress has the full mean left.
    fn new(spec: Activity, mut rng: Rng) -> OnOff {
        let busy = rng.bernoulli(spec.busy);
        let mut a = OnOff { spec, busy, until: Time::ZERO, rng };
        a.until = a.draw();
        a
    }

    fn draw(&mut self) -> Time {
        let mean = if self.busy { self.spec.busy_period } else { self.spec.idle_period() };
        Time(self.rng.exponential(mean.0 as f64).round() as u64)
    }

    /// Bring the state up to time `t` (a slot's start).
    fn advance(&mut self, t: Time) {
        while self.until <= t {
            self.busy = !self.busy;
            self.until = self.until.saturating_add(self.draw().max(Time(1)));
        }
    }
}

/// Per-sector figures.
#[derive(Clone, Debug, Default)]
pub struct SectorStats {
    /// Slots the forward traffic channel had (control slots left out) and
    /// those that carried data.
    pub traffic_slots: u64,
    pub busy_slots: u64,
    /// PPP octets carried per user (index: user).
    pub air_bytes: Vec<u64>,
    /// Users that were attached to the sector at some time.
    pub attached: Vec<bool>,
    /// Reverse frames run, and those with the RAB set.
    pub frames: u64,
    pub busy_frames: u64,
}

pub struct Sector {
    pub name: String,
    pub sched: Box<dyn Scheduler>,
    server: SlotServer,
    handoff_pf: HandoffPf,
    handoff_queue: HandoffQueue,
    /// What the physical-layer packet on each interlace carries, for which
    /// user: RLP learns whether it was erased when it has had its last slot.
    lanes: Vec<Option<(usize, Load)>>,
    rab: RabConfig,
    /// The RAB it sets for the frame in progress, and the load being
    /// summed for the next.
    busy: bool,
    load: f64,
    pub stats: SectorStats,
}

pub struct EvdoRan {
    pub node: NodeId,
    /// Users with a node (ports 0..ports); background users follow them in `users`.
    ports: usize,
    /// The users with a reverse MAC, in order: port `ports + k` is
    /// `reverse[k]`'s reverse link.
    reverse: Vec<usize>,
    delay: Time,
    pub air: AirOverhead,
    pub sectors: Vec<Sector>,
    pub users: Vec<User>,
    /// The users' channels, in the users' order.
    channels: SlotBlock,
    plans: Vec<HandoffPlan>,
    /// The earliest of the users' `next_handoff` (kept as they change):
    /// the deadline and every slot ask for it, and reading it from each
    /// user's state costs a cache miss per user where many sectors run.
    earliest_handoff: Option<Time>,
    /// The next slot to run.
    next_slot: u64,
    /// Scratch per slot: DRC as each sector sees it, and backlog.
    view_drc: Vec<u8>,
    backlog: Vec<u64>,
    /// Packets decoded and on their way to the users: (time, order, user, packet).
    arriving: BinaryHeap<Reverse<(Time, u64, u32, PacketBox)>>,
    order: u64,
    /// Scratch: the packets RLP hands up at once.
    handed: Vec<HandedUp>,
    outbox: VecDeque<HopEvent>,
    /// Report each packet as it goes on the air (a capture listens).
    tap: bool,
}

/// A packet in the arrival heap, ordered by nothing (the keys before it decide).
#[derive(Clone, Copy, Debug)]
struct PacketBox(Packet);

impl PartialEq for PacketBox {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl Eq for PacketBox {}
impl PartialOrd for PacketBox {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for PacketBox {
    fn cmp(&self, _: &Self) -> std::cmp::Ordering {
        std::cmp::Ordering::Equal
    }
}

impl EvdoRan {
    /// Build from a validated configuration; `rng` gives the hand-off streams
    /// and the RED streams of the users' queues.
    pub fn new(cfg: &RanConfig, rng: &RngStreams) -> Result<Self, BuildError> {
        let n = cfg.users.len() + cfg.background.len();
        let sectors = cfg
            .sectors
            .iter()
            .map(|s| Sector {
                name: s.name.clone(),
                sched: by_name(&s.scheduler, n, &s.pf, &drc_rates()).expect("scheduler name validated"),
                server: if s.interlace == 0 { SlotServer::per_slot_rates() } else { SlotServer::new(s.interlace as usize) },
                handoff_pf: s.handoff_pf,
                handoff_queue: s.handoff_queue,
                lanes: vec![None; s.interlace.max(1) as usize],
                rab: s.rab,
                busy: false,
                load: 0.0,
                stats: SectorStats { air_bytes: vec![0; n], attached: vec![false; n], ..Default::default() },
            })
            .collect::<Vec<_>>();
        let mut users = Vec::with_capacity(n);
        let mut channels = Vec::with_capacity(n);
        for u in &cfg.users {
            let (mut user, channel) = User::new(&u.name, Some(u.node), u.sector, &u.queue, &u.drc, rng)?;
            channels.push(channel);
            user.next_handoff = match &u.handoff {
                HandoffPlan::At(list) => list.first().map(|x| x.0),
                HandoffPlan::Every { min, max, .. } => Some(draw(&mut user.handoff_rng, *min, *max)),
                HandoffPlan::Never | HandoffPlan::Channel { .. } => None,
            };
            user.down.ppp = u.ppp.map(super::framing::Framing::new);
            user.down.loss = u.loss;
            user.down.rlp.configure(u.rlp);
            if let Some(up) = &u.reverse {
                let tag = format!("{}.up", u.name);
                let mut bearer = Bearer::new(&tag, &up.queue, &tag, rng).with_ppp(u.ppp);
                bearer.rlp.configure(Some(super::rlp::RlpConfig { frame_error: up.mac.frame_error, nak_delay: up.mac.nak_delay }));
                let mac = RateControl::new(up.mac, rng.stream(&format!("mac/{tag}")));
                user.up = Some(Box::new(Uplink::new(mac, Carries::Packets(bearer), up.capture_at_entry)));
            }
            users.push(user);
        }
        let reverse: Vec<usize> = (0..users.len()).filter(|&i| users[i].up.is_some()).collect();
        for b in &cfg.background {
            let (mut user, channel) = User::new(&b.name, None, b.sector, &crate::evdo::config::default_user_queue(), &b.drc, rng)?;
            channels.push(channel);
            user.full_buffer = true;
            user.activity = b.activity.map(|a| Box::new(OnOff::new(a, rng.stream(&format!("activity/{}", b.name)))));
            if !reverse.is_empty() {
                let mac = RateControl::new(ReverseConfig::default(), rng.stream(&format!("mac/{}.up", b.name)));
                let carries = if b.upload { Carries::Backlog } else { Carries::Acks { owed: 0.0 } };
                user.up = Some(Box::new(Uplink::new(mac, carries, false)));
            }
            users.push(user);
        }
        let mut ran = EvdoRan {
            node: cfg.node,
            ports: cfg.users.len(),
            reverse,
            delay: cfg.delay,
            air: cfg.air,
            sectors,
            plans: cfg.users.iter().map(|u| u.handoff.clone()).chain(cfg.background.iter().map(|_| HandoffPlan::Never)).collect(),
            users,
            channels: SlotBlock::new(channels),
            earliest_handoff: None,
            next_slot: 0,
            view_drc: vec![0; n],
            backlog: vec![0; n],
            arriving: BinaryHeap::new(),
            order: 0,
            handed: Vec::new(),
            outbox: VecDeque::new(),
            tap: false,
        };
        for (i, u) in ran.users.iter().enumerate() {
            ran.sectors[u.sector].stats.attached[i] = true;
        }
        ran.handoffs_changed();
        Ok(ran)
    }

    /// The name of a user's queue at the base station, or of its
    /// terminal's buffer for a reverse port.
    fn queue_name(&self, port: Port) -> String {
        match self.reverse_user(port) {
            Some(u) => format!("{}.up", self.users[u].name),
            None => format!("{}.down", self.users[port as usize].name),
        }
    }

    /// The user whose reverse link `port` is (None: a forward port).
    fn reverse_user(&self, port: Port) -> Option<usize> {
        (port as usize).checked_sub(self.ports).map(|k| self.reverse[k])
    }

    /// Whether a slot must be run as soon as it starts (someone has data, or
    /// a packet is on the air either way).
    fn active(&self) -> bool {
        self.users.iter().any(|u| u.backlogged() || u.up.as_deref().is_some_and(Uplink::busy))
            || self.sectors.iter().any(|s| s.server.busy())
    }

    /// The start of the slot in which the next hand-off takes effect (hand-offs
    /// act at slot boundaries: the first slot starting at or after their time).
    fn next_handoff(&self) -> Option<Time> {
        self.earliest_handoff.map(|h| slot_start(slot_at_or_after(h)))
    }

    /// A user's `next_handoff` was set: the earliest again.
    fn handoffs_changed(&mut self) {
        self.earliest_handoff = self.users.iter().filter_map(|u| u.next_handoff).min();
    }

    /// Run every slot that starts at or before `now` (`inclusive`) or before it.
    fn run_slots(&mut self, now: Time, inclusive: bool, hd: &mut Headers) {
        loop {
            let t = slot_start(self.next_slot);
            if t > now || (!inclusive && t == now) {
                break;
            }
            self.run_slot(t, hd);
        }
    }

    fn run_slot(&mut self, t: Time, hd: &mut Headers) {
        let n = self.next_slot;
        self.next_slot += 1;
        if n % FRAME_SLOTS == 0 && !self.reverse.is_empty() {
            self.reverse_frame(t, hd);
        }
        self.channels.advance();
        for u in 0..self.users.len() {
            // A user's own hand-off time is read only when some hand-off is due.
            if self.earliest_handoff.is_some_and(|h| h <= t) && self.users[u].next_handoff.is_some_and(|h| h <= t) {
                self.scheduled_handoff(t, u, hd);
            }
            let user = &mut self.users[u];
            if let Some(a) = user.activity.as_mut() {
                a.advance(t);
            }
            user.drc = self.channels.drc(u);
            if let Some(up) = user.up.as_mut() {
                up.observe(user.drc);
            }
            user.stats.drc_rate_sum += RATE_BPS[user.drc as usize] as f64;
            user.stats.slots_seen += 1;
            if self.channels.handoff_now(u) {
                if let HandoffPlan::Channel { sectors } = &self.plans[u] {
                    let to = next_in(sectors, user.sector);
                    self.handoff(t, u, to, hd);
                }
            }
        }
        for s in 0..self.sectors.len() {
            let interlace = self.sectors[s].server.interlace() as u64;
            if self.air.control_slot(n, interlace) {
                let sec = &mut self.sectors[s];
                sec.server.skip(sec.sched.as_mut());
                continue;
            }
            for (u, user) in self.users.iter().enumerate() {
                let here = user.sector == s;
                self.view_drc[u] = if here { user.drc } else { 0 };
                self.backlog[u] = if here && user.backlogged() { 1 } else { 0 };
            }
            let sec = &mut self.sectors[s];
            sec.stats.traffic_slots += 1;
            let Some(o) = sec.server.step(sec.sched.as_mut(), &self.view_drc, Some(&self.backlog)) else { continue };
            sec.stats.busy_slots += 1;
            // Contended: another user of the sector was backlogged too.
            let contended = self.backlog.iter().enumerate().any(|(u, &b)| b != 0 && u != o.user);
            let stats = &mut self.users[o.user].stats;
            stats.slots_served += 1;
            stats.slots_contended += contended as u64;
            if o.new_packet {
                let budget = self.air.payload_bytes(o.packet_bits);
                self.fill(t, s, o.user, o.lane, budget, hd);
            }
            if o.last_slot {
                if let Some((u, load)) = self.sectors[s].lanes[o.lane].take() {
                    self.users[u].down.rlp.ended(&load, slot_start(n + 1));
                    self.hand_up(u as Port, hd);
                }
            }
        }
    }

    /// The packets the RLP behind `port` can hand up: PPP rebuilds each
    /// (or knows it lost), and it reaches the far end the RAN's delay
    /// later, or is dropped.
    fn hand_up(&mut self, port: Port, hd: &mut Headers) {
        let bearer = match self.reverse_user(port) {
            Some(u) => self.users[u].up.as_deref_mut().and_then(Uplink::bearer_mut).expect("a reverse port's user sends packets"),
            None => &mut self.users[port as usize].down,
        };
        let (delay, outbox, arriving, order) = (self.delay, &mut self.outbox, &mut self.arriving, &mut self.order);
        bearer.hand_up(hd, &mut self.handed, |fate| match fate {
            Fate::Dropped { pkt, reason } => outbox.push_back(HopEvent::Drop { port, pkt, reason }),
            Fate::Arrives { at, pkt } => {
                *order += 1;
                arriving.push(Reverse((at + delay, *order, port, PacketBox(pkt))));
            }
        });
    }

    /// A new physical-layer packet for `u` on `lane` carries up to `budget`
    /// PPP octets (`Bearer::fill`); a background user fills every packet
    /// it is given.
    fn fill(&mut self, t: Time, s: usize, u: usize, lane: usize, budget: u64, hd: &Headers) {
        let air = self.air;
        let (tap, outbox) = (self.tap, &mut self.outbox);
        let user = &mut self.users[u];
        let mut load = Load::default();
        let carried = if user.full_buffer {
            if let Some(up) = user.up.as_mut() {
                up.acks_for(budget, &air);
            }
            budget
        } else {
            user.down.fill(t, budget, &air, &mut load, |pkt| {
                if tap {
                    outbox.push_back(HopEvent::transmit(u as Port, pkt, hd));
                }
            })
        };
        user.stats.air_bytes += carried;
        self.sectors[s].stats.air_bytes[u] += carried;
        if !user.full_buffer {
            self.sectors[s].lanes[lane] = Some((u, load));
        }
    }

    /// A reverse frame boundary at `t`: every terminal's frame ends (RLP
    /// learns whether it was erased and hands up what it can), each sector
    /// sets its RAB from the load of the frames that ended, and every
    /// terminal with data starts its next frame.
    fn reverse_frame(&mut self, t: Time, hd: &mut Headers) {
        for k in 0..self.reverse.len() {
            let u = self.reverse[k];
            let up = self.users[u].up.as_mut().expect("a reverse user has an uplink");
            let ended = match (up.on_air.take(), &mut up.carries) {
                (Some(load), Carries::Packets(b)) => {
                    b.rlp.ended(&load, t);
                    true
                }
                _ => false,
            };
            if ended {
                self.hand_up((self.ports + k) as Port, hd);
            }
        }
        for sec in &mut self.sectors {
            sec.busy = sec.rab.busy(sec.load);
            sec.load = 0.0;
            sec.stats.frames += 1;
            sec.stats.busy_frames += sec.busy as u64;
        }
        let air = self.air;
        let (tap, outbox) = (self.tap, &mut self.outbox);
        // The users that send packets are `reverse`, in user order: their
        // ports follow the forward ones in the same order.
        let mut next_port = self.ports as Port;
        for user in self.users.iter_mut() {
            let Some(up) = user.up.as_mut() else { continue };
            let port = next_port;
            next_port += up.bearer().is_some() as Port;
            let sec = &mut self.sectors[user.sector];
            let (rate, budget) = up.start_frame(t, sec.busy, &air);
            sec.load += sec.rab.load(rate);
            if rate == 0 {
                continue;
            }
            let capture = tap && !up.capture_at_entry;
            up.stats.air_bytes += match &mut up.carries {
                Carries::Packets(b) => {
                    let mut load = Load::default();
                    let carried = b.fill(t, budget, &air, &mut load, |pkt| {
                        if capture {
                            outbox.push_back(HopEvent::transmit(port, pkt, hd));
                        }
                    });
                    up.on_air = Some(load);
                    carried
                }
                Carries::Acks { owed } => {
                    *owed = (*owed - budget as f64).max(0.0);
                    budget
                }
                Carries::Backlog => budget,
            };
        }
    }

    fn scheduled_handoff(&mut self, t: Time, u: usize, hd: &mut Headers) {
        let from = self.users[u].sector;
        let to = match &self.plans[u] {
            HandoffPlan::At(list) => {
                let to = list[self.users[u].plan_pos].1;
                self.users[u].plan_pos += 1;
                self.users[u].next_handoff = list.get(self.users[u].plan_pos).map(|x| x.0);
                to
            }
            HandoffPlan::Every { min, max, sectors } => {
                let user = &mut self.users[u];
                user.next_handoff = Some(t + draw(&mut user.handoff_rng, *min, *max));
                next_in(sectors, from)
            }
            HandoffPlan::Never | HandoffPlan::Channel { .. } => return,
        };
        self.handoffs_changed();
        self.handoff(t, u, to, hd);
    }

    /// Move user `u` to sector `to` at `t`. A packet already on the air
    /// finishes in the old sector; the queued data follows the user or is
    /// dropped as the new sector's `handoff_queue` says; the new sector
    /// resets or takes over the user's PF average.
    fn handoff(&mut self, t: Time, u: usize, to: usize, hd: &mut Headers) {
        let from = self.users[u].sector;
        let user = &mut self.users[u];
        user.stats.handoffs += 1;
        user.sector = to;
        if self.sectors[to].handoff_queue == HandoffQueue::Drop {
            let outbox = &mut self.outbox;
            user.down.flush(t, DropReason::Handoff, |pkt| {
                outbox.push_back(HopEvent::Drop { port: u as Port, pkt, reason: DropReason::Handoff })
            });
            self.hand_up(u as Port, hd);
        }
        let state = self.sectors[from].sched.user_state(u);
        let new = &mut self.sectors[to];
        new.stats.attached[u] = true;
        match (new.handoff_pf, state) {
            (HandoffPf::Keep, Some(a)) => new.sched.set_user_state(u, a),
            _ => new.sched.reset_user(u),
        }
    }
}

/// Uniform in [min, max].
fn draw(rng: &mut Rng, min: Time, max: Time) -> Time {
    min + Time(rng.below((max - min).0 + 1))
}

/// The sector after `current` in `list` (cyclically); the first if it is not in it.
fn next_in(list: &[usize], current: usize) -> usize {
    match list.iter().position(|&s| s == current) {
        Some(i) => list[(i + 1) % list.len()],
        None => list[0],
    }
}

impl HopKind for EvdoRan {
    type Config = RanConfig;
    fn build(cfg: &RanConfig, cx: &BuildContext) -> Result<Self, BuildError> {
        EvdoRan::new(cfg, cx.rng)
    }
}

impl Hop for EvdoRan {
    fn offer(&mut self, now: Time, port: Port, pkt: Packet, hd: &mut Headers) {
        // Slots that started before the packet did not see it.
        self.run_slots(now, false, hd);
        let bearer = match self.reverse_user(port) {
            Some(u) => {
                let up = self.users[u].up.as_mut().expect("a reverse port's user has an uplink");
                if self.tap && up.capture_at_entry {
                    self.outbox.push_back(HopEvent::transmit(port, pkt, hd));
                }
                up.bearer_mut().expect("a reverse port's user sends packets")
            }
            None => &mut self.users[port as usize].down,
        };
        if let Err((pkt, reason)) = bearer.offer(now, pkt, hd) {
            self.outbox.push_back(HopEvent::Drop { port, pkt, reason });
        }
    }

    fn poll(&mut self) -> Option<HopEvent> {
        self.outbox.pop_front()
    }

    fn deadline(&self) -> Option<Time> {
        let slot = self.active().then(|| slot_start(self.next_slot));
        let arrival = self.arriving.peek().map(|r| r.0 .0);
        [slot, arrival, self.next_handoff()].into_iter().flatten().min()
    }

    fn on_timer(&mut self, now: Time, hd: &mut Headers) {
        self.run_slots(now, true, hd);
        while self.arriving.peek().is_some_and(|r| r.0 .0 <= now) {
            let Reverse((_, _, port, PacketBox(pkt))) = self.arriving.pop().expect("peeked");
            match self.reverse_user(port) {
                Some(u) => {
                    let st = &mut self.users[u].up.as_mut().expect("a reverse port's user has an uplink").stats;
                    st.packets_delivered += 1;
                    st.ip_bytes_delivered += pkt.size as u64;
                }
                None => {
                    let st = &mut self.users[port as usize].stats;
                    st.packets_delivered += 1;
                    st.ip_bytes_delivered += pkt.size as u64;
                }
            }
            self.outbox.push_back(HopEvent::Deliver { port, pkt });
        }
    }

    fn ports(&self) -> Port {
        (self.ports + self.reverse.len()) as Port
    }

    fn ends(&self, port: Port) -> Ends {
        let node = |u: usize| self.users[u].node.expect("a port's user has a node");
        match self.reverse_user(port) {
            Some(u) => Ends { from: node(u), to: self.node },
            None => Ends { from: self.node, to: node(port as usize) },
        }
    }

    fn place(&self, port: Port) -> String {
        self.queue_name(port)
    }

    fn drops(&self) -> u64 {
        self.users.iter().map(|u| u.down.meter.drops_total() + u.uplink_bearer().map_or(0, |b| b.meter.drops_total())).sum()
    }

    /// Per user: the base-station queue, the PF average, the DRC rate;
    /// then per user with a reverse MAC its buffer and its frames' rate.
    fn sample(&self, out: &mut impl Samples) {
        for (i, u) in self.users.iter().enumerate() {
            out("queue_pkts", &|| format!("{}.down", u.name), u.down.queue.len_packets() as f64);
            let avg = self.sectors[u.sector].sched.user_state(i).unwrap_or(f64::NAN);
            out("pf_avg_bps", &|| u.name.clone(), avg);
            out("drc_bps", &|| u.name.clone(), RATE_BPS[u.drc as usize] as f64);
        }
        for &r in &self.reverse {
            let u = &self.users[r];
            let up = u.up.as_ref().expect("a reverse user has an uplink");
            out("queue_pkts", &|| format!("{}.up", u.name), u.uplink_bearer().map_or(0, |b| b.queue.len_packets()) as f64);
            out("reverse_rate_bps", &|| u.name.clone(), super::reverse::RATE_BPS[up.mac.current as usize] as f64);
        }
    }

    /// Its users (and their base-station queues, as rows of the queues
    /// table) and its sectors.
    fn report(&self, horizon: Time, rows: &mut Rows) {
        let run_s = secs(horizon.max(Time(1)));
        for (i, u) in self.users.iter().enumerate() {
            let s = &u.stats;
            let mean_drc = if s.slots_seen > 0 { s.drc_rate_sum / s.slots_seen as f64 } else { 0.0 };
            // A background user carries PPP octets, not packets: its throughput is theirs.
            let bytes = if u.full_buffer { s.air_bytes } else { s.ip_bytes_delivered };
            let throughput = bytes as f64 * 8.0 / run_s;
            let slots: u64 = self.sectors.iter().filter(|sec| sec.stats.attached[i]).map(|sec| sec.stats.traffic_slots).sum();
            // Octets carried / what the user's channel offered over the run.
            let utilization = if s.drc_rate_sum > 0.0 { s.air_bytes as f64 * 8.0 * 600.0 / s.drc_rate_sum } else { 0.0 };
            if !u.full_buffer {
                rows.push(u.down.meter.row(self.queue_name(i as Port), &u.down.queue, horizon, utilization, s.air_bytes));
            }
            if let Some(p) = &u.down.ppp {
                rows.push(p.row(self.queue_name(i as Port)));
            }
            let up = u.up.as_ref().map(|up| up.stats);
            if let (Some(b), Some(st)) = (u.uplink_bearer(), up) {
                let name = format!("{}.up", u.name);
                // Octets carried / what its frames offered.
                let offered: u64 = st.frames.iter().enumerate().map(|(r, &k)| k * super::reverse::payload_bytes(r as u8)).sum();
                let utilization = if offered > 0 { st.air_bytes as f64 / offered as f64 } else { 0.0 };
                rows.push(b.meter.row(name.clone(), &b.queue, horizon, utilization, st.air_bytes));
                if let Some(p) = &b.ppp {
                    rows.push(p.row(name));
                }
            }
            let rlp_up = u.uplink_bearer().map(|b| b.rlp.stats);
            rows.push(UserResult {
                name: u.name.clone(),
                sector: self.sectors[u.sector].name.clone(),
                throughput_bps: throughput,
                mean_drc_bps: mean_drc,
                utilisation: if mean_drc > 0.0 { throughput / mean_drc } else { 0.0 },
                slots_served: s.slots_served,
                slots_contended: s.slots_contended,
                slot_share: if slots > 0 { s.slots_served as f64 / slots as f64 } else { 0.0 },
                packets_delivered: s.packets_delivered,
                handoffs: s.handoffs,
                physical_packets: u.down.rlp.stats.physical_packets,
                erased_packets: u.down.rlp.stats.erasures,
                rlp_retransmitted_bytes: u.down.rlp.stats.retransmitted_bytes,
                rlp_aborts: u.down.rlp.stats.aborts,
                rlp_lost_packets: u.down.rlp.stats.lost_packets,
                reverse_throughput_bps: up.map(|st| st.ip_bytes_delivered as f64 * 8.0 / run_s),
                reverse_mean_rate_bps: up.map(|st| st.mean_rate_bps()),
                reverse_frames: up.map(|st| st.frames_sent()),
                reverse_frames_153k6: up.map(|st| st.frames[5]),
                reverse_busy_frames: up.map(|st| st.busy_frames),
                reverse_power_limited_frames: up.map(|st| st.power_limited),
                reverse_erased_frames: rlp_up.map(|r| r.erasures),
                reverse_rlp_lost_packets: rlp_up.map(|r| r.lost_packets),
            });
        }
        for sec in &self.sectors {
            let st = &sec.stats;
            let served: Vec<f64> = st.air_bytes.iter().zip(&st.attached).filter(|(_, &a)| a).map(|(&b, _)| b as f64).collect();
            rows.push(SectorResult {
                name: sec.name.clone(),
                scheduler: sec.sched.name().into(),
                traffic_slots: st.traffic_slots,
                utilisation: if st.traffic_slots > 0 { st.busy_slots as f64 / st.traffic_slots as f64 } else { 0.0 },
                throughput_bps: st.air_bytes.iter().sum::<u64>() as f64 * 8.0 / run_s,
                jain: crate::models::jain::jain_index(&served).unwrap_or(1.0),
                rab_busy: (!self.reverse.is_empty() && st.frames > 0).then(|| st.busy_frames as f64 / st.frames as f64),
            });
        }
    }

    /// Idle slots run only when the sector is woken: a sample wakes it so
    /// that channels and PF averages are current.
    fn lazy(&self) -> bool {
        true
    }

    /// A packet is reported as it starts on the air (as sent, before any
    /// header compression); its arrival at the user as it is handed on.
    fn tap(&mut self) -> bool {
        self.tap = true;
        true
    }

    /// A user with a reverse MAC is captured at its own end, and the
    /// capture named after its reverse link (`NAME.up`), as when that was
    /// a link of its own.
    fn capture_port(&self, port: Port) -> Port {
        match self.reverse.binary_search(&(port as usize)) {
            Ok(k) if self.reverse_user(port).is_none() => (self.ports + k) as Port,
            _ => port,
        }
    }

    fn packets_inside(&self) -> u64 {
        // Queued, or between the queue and the user (the head, on the air,
        // waiting for RLP), or decoded and on the way.
        let queued: u64 =
            self.users.iter().map(|u| u.down.packets_inside() + u.uplink_bearer().map_or(0, Bearer::packets_inside)).sum();
        queued + self.arriving.len() as u64
    }

    fn finish(&mut self, now: Time, hd: &mut Headers) {
        // Run the idle slots up to the end, so that every user's channel
        // statistics cover the whole run.
        self.run_slots(now, false, hd);
        for u in &mut self.users {
            u.down.touch(now);
            if let Some(b) = u.up.as_deref_mut().and_then(Uplink::bearer_mut) {
                b.touch(now);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_MS;

    #[test]
    fn a_background_users_busy_share_and_busy_periods_have_their_means() {
        // busy 0.3, busy periods of mean 200 ms (idle 466.7 ms), sampled at
        // every slot for 2000 s: about 3000 cycles. The share's standard
        // error is sqrt(2 a² c² / ((a + c)³ T)) = 0.0086 (a, c the means,
        // T the time): tolerance 0.03. The mean busy period's standard
        // error is 200 ms / sqrt(3000) = 3.7 ms, plus a slot of rounding
        // at each end: tolerance 15 ms.
        let spec = Activity { busy: 0.3, busy_period: 200 * NS_PER_MS };
        assert_eq!(spec.idle_period(), Time(466_666_667));
        let mut a = OnOff::new(spec, Rng::from_seed(7));
        let slots = 2000 * 600;
        let (mut busy, mut periods, mut was) = (0u64, 0u64, false);
        for n in 0..slots {
            a.advance(slot_start(n));
            busy += a.busy as u64;
            periods += (a.busy && !was) as u64;
            was = a.busy;
        }
        let share = busy as f64 / slots as f64;
        let mean_ms = busy as f64 / periods as f64 / 0.6;
        assert!((share - 0.3).abs() < 0.03, "busy share {share:.4}");
        assert!((mean_ms - 200.0).abs() < 15.0, "mean busy period {mean_ms:.1} ms over {periods} periods");
    }
}
