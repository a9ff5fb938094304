//! A cdma2000 1X cell as a hop of the packet world (Paliwal et al. Fig. 2):
//! the BSC's shared buffer B_cum, served at m·n·38.4 kb/s, feeds the BTSs
//! (d^t later); each mobile's link buffer B^dl at its BTS is served at its
//! radio rate R_ij = FCH + SCH and reaches the mobile d^m later.
//!
//! Both stages are `Link`s driven through the `Hop` methods, so queueing,
//! service and rate changes have one implementation. The cell hands its
//! links' wake-ups out in time order and keeps the dead-period meter.
//! Ports: mobile k is port k; port N (the number of mobiles) names the
//! shared buffer in drop reports.

use crate::net::NodeId;
use super::config::{CellConfig, RateChange};
use super::dead::DeadMeter;
use super::sch::{self, Backlog, Grant, SchAllocator};
use crate::engine::time::secs;
use crate::engine::{RngStreams, Time};
use crate::net::hop::{BuildContext, BuildError, Ends, HopKind, Samples};
use crate::net::queue::{self, Queue};
use crate::net::{Headers, Hop, HopEvent, Link, Packet, Port};
use crate::cdma2000::rows::{CellResult, MobileResult};
use crate::result::{Intervals, Rows};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

#[derive(Clone, Debug, Default)]
pub struct MobileStats {
    pub packets_delivered: u64,
    pub bytes_delivered: u64,
    /// SCH grants received, and the time an SCH was held.
    pub grants: u64,
    pub sch_time: Time,
    sch_since: Option<Time>,
}

pub struct Mobile {
    pub name: String,
    pub node: NodeId,
    pub bts: u32,
    /// The link buffer and the radio link to the mobile.
    pub link: Link,
    pub sch_bps: u64,
    pub stats: MobileStats,
}

pub struct Cell {
    pub name: String,
    pub node: NodeId,
    /// The shared buffer and the BSC → BTS stage.
    pub bsc: Link,
    pub mobiles: Vec<Mobile>,
    /// Port of each node (u32::MAX: not a mobile of this cell).
    port_of: Vec<u32>,
    fch_bps: u64,
    sch: Box<dyn SchAllocator>,
    pub dead: DeadMeter,
    outbox: VecDeque<HopEvent>,
    grants: Vec<Grant>,
    index: LinkIndex,
}

/// The mobiles' links by deadline (earliest first) and by busy time (latest
/// first), so that a step costs O(log N) per mobile it touches instead of a
/// scan of all N: heaps with lazy invalidation (an entry counts only while
/// it equals the link's current value), rebuilt when stale entries pile up
/// so that memory follows the number of mobiles, not the length of the run.
#[derive(Default)]
struct LinkIndex {
    due: Vec<Option<Time>>,
    busy: Vec<Time>,
    by_due: BinaryHeap<Reverse<(Time, u32)>>,
    by_busy: BinaryHeap<(Time, u32)>,
}

impl LinkIndex {
    fn new(n: usize) -> Self {
        LinkIndex { due: vec![None; n], busy: vec![Time::ZERO; n], ..Default::default() }
    }

    /// Mobile `k`'s link changed.
    fn update(&mut self, k: usize, link: &Link) {
        let d = link.deadline();
        if d != self.due[k] {
            self.due[k] = d;
            if let Some(t) = d {
                self.by_due.push(Reverse((t, k as u32)));
            }
        }
        let b = link.busy_until();
        if b != self.busy[k] {
            self.busy[k] = b;
            self.by_busy.push((b, k as u32));
        }
        let limit = 4 * self.due.len() + 64;
        if self.by_due.len() > limit {
            self.by_due = self.due.iter().enumerate().filter_map(|(k, d)| d.map(|t| Reverse((t, k as u32)))).collect();
        }
        if self.by_busy.len() > limit {
            self.by_busy = self.busy.iter().enumerate().map(|(k, &b)| (b, k as u32)).collect();
        }
        self.clean_top();
    }

    /// The earliest deadline (the tops are kept valid by every change).
    fn next_due(&self) -> Option<Time> {
        self.by_due.peek().map(|r| r.0 .0)
    }

    /// A mobile whose deadline is at or before `t`, taken off the index.
    fn pop_due(&mut self, t: Time) -> Option<usize> {
        let &Reverse((d, k)) = self.by_due.peek()?;
        if d > t {
            return None;
        }
        self.by_due.pop();
        self.due[k as usize] = None;
        self.clean_top();
        Some(k as usize)
    }

    /// Drop stale entries from the tops.
    fn clean_top(&mut self) {
        while let Some(&Reverse((d, k))) = self.by_due.peek() {
            if self.due[k as usize] == Some(d) {
                break;
            }
            self.by_due.pop();
        }
        while let Some(&(b, k)) = self.by_busy.peek() {
            if self.busy[k as usize] == b {
                break;
            }
            self.by_busy.pop();
        }
    }

    fn busy_until(&self) -> Time {
        self.by_busy.peek().map_or(Time::ZERO, |x| x.0)
    }
}

impl Cell {
    pub fn new(cfg: &CellConfig, nodes: usize, rng: &RngStreams) -> Self {
        let no_steps = || Box::new(std::iter::empty()) as crate::net::link::RateSteps;
        let next_packet = cfg.rate_change == RateChange::NextPacket;
        let bsc_name = format!("{}.bsc", cfg.name);
        let bsc = Link::new(
            bsc_name.clone(),
            cfg.node,
            cfg.node,
            cfg.bsc_rate_bps,
            cfg.bts_delay,
            queue::build(&cfg.bsc_queue, cfg.bsc_rate_bps, rng, &bsc_name),
            0.0,
            rng.stream(&format!("loss/{bsc_name}")),
            no_steps(),
        );
        let mut port_of = vec![u32::MAX; nodes];
        let mobiles = cfg
            .mobiles
            .iter()
            .enumerate()
            .map(|(k, m)| {
                port_of[m.node.index()] = k as u32;
                let name = format!("{}.down", m.name);
                let mut link = Link::new(
                    name.clone(),
                    cfg.node,
                    m.node,
                    cfg.fch_bps,
                    cfg.radio_delay,
                    queue::build(&m.queue, cfg.fch_bps, rng, &name),
                    0.0,
                    rng.stream(&format!("loss/{name}")),
                    no_steps(),
                );
                link.rate_from_next_packet = next_packet;
                Mobile { name: m.name.clone(), node: m.node, bts: m.bts, link, sch_bps: 0, stats: MobileStats::default() }
            })
            .collect();
        let mut bsc = bsc;
        bsc.rate_from_next_packet = next_packet;
        Cell {
            name: cfg.name.clone(),
            node: cfg.node,
            bsc,
            mobiles,
            port_of,
            fch_bps: cfg.fch_bps,
            sch: sch::build(&cfg.sch, &cfg.mobiles, rng),
            dead: DeadMeter::default(),
            outbox: VecDeque::new(),
            grants: Vec::new(),
            index: LinkIndex::new(cfg.mobiles.len()),
        }
    }

    /// The port that names the shared buffer in drop reports.
    fn bsc_port(&self) -> Port {
        self.mobiles.len() as Port
    }

    /// Until when any link of the cell is busy (see `dead`).
    fn busy_until(&self) -> Time {
        self.index.busy_until().max(self.bsc.busy_until())
    }

    /// The earliest wake-up any part of the cell needs.
    /// (Plain comparisons: the world asks after every packet.)
    #[inline]
    fn next_due(&self) -> Option<Time> {
        let mut d = self.index.next_due().unwrap_or(Time::MAX);
        if let Some(t) = self.bsc.deadline() {
            d = d.min(t);
        }
        if let Some(t) = self.sch.deadline() {
            d = d.min(t);
        }
        (d != Time::MAX).then_some(d)
    }

    /// Run everything due at or before `now`, earliest first.
    fn run_due(&mut self, now: Time, hd: &mut Headers) {
        while let Some(t) = self.next_due().filter(|&t| t <= now) {
            self.dead.enter(t);
            self.step(t, hd);
            let busy = self.busy_until();
            self.dead.leave(t, busy);
        }
    }

    /// Everything due at `t`: SCH changes first (a packet that starts at the
    /// time of a grant goes at the new rate), then the shared buffer's
    /// arrivals at the BTSs, then the radio links.
    fn step(&mut self, t: Time, hd: &mut Headers) {
        let mut g = std::mem::take(&mut self.grants);
        if self.sch.deadline().is_some_and(|d| d <= t) {
            self.sch.on_timer(t, &mut g);
        }
        self.apply(t, &mut g, hd);
        if self.bsc.deadline().is_some_and(|d| d <= t) {
            self.bsc.on_timer(t, hd);
            self.drain_bsc(t, &mut g, hd);
        }
        while let Some(k) = self.index.pop_due(t) {
            self.mobiles[k].link.on_timer(t, hd);
            self.drain_mobile(t, k, &mut g, hd);
        }
        self.grants = g;
    }

    /// Apply SCH changes (and those they cause, until none is left).
    fn apply(&mut self, t: Time, g: &mut Vec<Grant>, hd: &mut Headers) {
        while let Some((k, sch_bps)) = g.pop() {
            let m = &mut self.mobiles[k];
            let st = &mut m.stats;
            match (m.sch_bps > 0, sch_bps > 0) {
                (false, true) => {
                    st.grants += 1;
                    st.sch_since = Some(t);
                }
                (true, false) => st.sch_time += t - st.sch_since.take().unwrap_or(t),
                _ => {}
            }
            m.sch_bps = sch_bps;
            m.link.set_rate(t, self.fch_bps + sch_bps, hd);
            self.drain_mobile(t, k, g, hd);
        }
    }

    /// Hand on what the shared buffer has: arrivals go into their mobile's
    /// link buffer, drops are reported at the shared buffer's port.
    fn drain_bsc(&mut self, t: Time, g: &mut Vec<Grant>, hd: &mut Headers) {
        while let Some(ev) = self.bsc.poll() {
            match ev {
                HopEvent::Deliver { pkt, .. } => {
                    let k = self.port_of[pkt.dst.index()] as usize;
                    self.mobiles[k].link.offer(t, 0, pkt, hd);
                    self.drain_mobile(t, k, g, hd);
                }
                HopEvent::Drop { pkt, reason, .. } => self.outbox.push_back(HopEvent::Drop { port: self.bsc_port(), pkt, reason }),
                HopEvent::Transmit { .. } => {}
            }
        }
    }

    /// Hand on what mobile `k`'s link has, and tell the allocator.
    fn drain_mobile(&mut self, t: Time, k: usize, g: &mut Vec<Grant>, hd: &mut Headers) {
        let port = k as Port;
        let m = &mut self.mobiles[k];
        while let Some(ev) = m.link.poll() {
            self.outbox.push_back(match ev {
                HopEvent::Deliver { pkt, .. } => {
                    m.stats.packets_delivered += 1;
                    m.stats.bytes_delivered += pkt.size as u64;
                    HopEvent::Deliver { port, pkt }
                }
                HopEvent::Drop { pkt, reason, .. } => HopEvent::Drop { port, pkt, reason },
                HopEvent::Transmit { pkt, header, .. } => HopEvent::Transmit { port, pkt, header },
            });
        }
        self.index.update(k, &m.link);
        if self.sch.wants_backlog() {
            let b = Backlog { waiting_bytes: m.link.queue.len_bytes(), busy_until: m.link.busy_until() };
            let before = g.len();
            self.sch.on_backlog(t, k, b, g);
            if g.len() > before {
                self.apply(t, g, hd);
            }
        }
    }
}

impl HopKind for Cell {
    type Config = CellConfig;
    fn build(cfg: &CellConfig, cx: &BuildContext) -> Result<Self, BuildError> {
        Ok(Cell::new(cfg, cx.nodes, cx.rng))
    }
}

impl Hop for Cell {
    fn offer(&mut self, now: Time, _port: Port, pkt: Packet, hd: &mut Headers) {
        // Wake-ups due by now come first (the world may offer before the
        // cell's timer at the same instant fires).
        self.run_due(now, hd);
        self.dead.enter(now);
        self.bsc.offer(now, 0, pkt, hd);
        let mut g = std::mem::take(&mut self.grants);
        self.drain_bsc(now, &mut g, hd);
        self.grants = g;
        let busy = self.busy_until();
        self.dead.leave(now, busy);
    }

    fn poll(&mut self) -> Option<HopEvent> {
        self.outbox.pop_front()
    }

    fn deadline(&self) -> Option<Time> {
        self.next_due()
    }

    fn on_timer(&mut self, now: Time, hd: &mut Headers) {
        self.run_due(now, hd);
    }

    fn ports(&self) -> Port {
        self.mobiles.len() as Port
    }

    fn ends(&self, port: Port) -> Ends {
        Ends { from: self.node, to: self.mobiles[port as usize].node }
    }

    /// A mobile's link buffer (`MOBILE.down`), or past the last mobile the
    /// shared buffer (`CELL.bsc`).
    fn place(&self, port: Port) -> String {
        match self.mobiles.get(port as usize) {
            Some(m) => m.link.name.clone(),
            None => self.bsc.name.clone(),
        }
    }

    fn drops(&self) -> u64 {
        self.bsc.drops() + self.mobiles.iter().map(|m| m.link.drops()).sum::<u64>()
    }

    fn packets_inside(&self) -> u64 {
        self.bsc.packets_inside() + self.mobiles.iter().map(|m| m.link.packets_inside()).sum::<u64>()
    }

    /// Paliwal et al. Fig. 5(b): the shared buffer and RED's average (frozen
    /// while no packet arrives), the sum of the link buffers; per mobile its
    /// link buffer and radio rate.
    fn sample(&self, out: &mut impl Samples) {
        self.bsc.sample(out);
        let links: usize = self.mobiles.iter().map(|m| m.link.queue.len_packets()).sum();
        out("link_queue_pkts", &|| self.name.clone(), links as f64);
        for m in &self.mobiles {
            out("queue_pkts", &|| m.link.name.clone(), m.link.queue.len_packets() as f64);
            out("rate_bps", &|| m.name.clone(), m.link.rate_bps() as f64);
        }
    }

    /// The shared buffer and the link buffers as rows of the queues table,
    /// the mobiles, and the cell with its dead periods.
    fn report(&self, horizon: Time, rows: &mut Rows) {
        let run_s = secs(horizon.max(Time(1)));
        rows.push(self.bsc.row(horizon));
        for m in &self.mobiles {
            rows.push(m.link.row(horizon));
            rows.push(MobileResult {
                name: m.name.clone(),
                cell: self.name.clone(),
                bts: m.bts + 1,
                throughput_bps: m.stats.bytes_delivered as f64 * 8.0 / run_s,
                packets_delivered: m.stats.packets_delivered,
                sch_grants: m.stats.grants,
                sch_s: secs(m.stats.sch_time),
            });
        }
        rows.push(CellResult {
            name: self.name.clone(),
            mobiles: self.mobiles.len() as u64,
            bsc_rate_bps: self.bsc.rate_bps() as f64,
            dead_s: secs(self.dead.total),
            rho_dead: secs(self.dead.total) / run_s,
            dead_periods: Intervals(self.dead.intervals.iter().map(|&(a, b)| (secs(a), secs(b))).collect()),
            sch_grants: self.mobiles.iter().map(|m| m.stats.grants).sum(),
        });
    }

    fn finish(&mut self, now: Time, hd: &mut Headers) {
        self.bsc.finish(now, hd);
        for m in &mut self.mobiles {
            m.link.finish(now, hd);
            if let Some(s) = m.stats.sch_since.take() {
                m.stats.sch_time += now - s;
            }
        }
        self.dead.finish(now);
    }
}
