//! An IS-2000 (cdma2000 1X) sector with many data users (Dziong et al.
//! §2, §3.4, §5.2), as one hop: each user has an RLP3 air link (`RlpLink`,
//! both directions), every admitted (active) user an FCH of 9.6 kb/s each
//! way, and the MAC grants forward SCHs on backlog within the sector's
//! power and Walsh codes, ranked by priority (`budget`), through the
//! cdma2000 cell's request → delay → grant → release life cycle. Users
//! idle long enough step down through control hold and suspended to
//! dormant (`dormancy`); a dormant user coming back has moved (its location
//! is drawn anew: "the users' location ... changes during the user think
//! time", §4.2).
//!
//! Admission: a user coming back to active gets its FCH only if its power
//! and a Walsh code fit in what is left; otherwise it waits (first come,
//! first served) until a channel is released, so the power in use never
//! passes the sector's.
//!
//! Ports: 2k is user k's forward link (from the sector's node to the
//! user), 2k + 1 its reverse link.

use crate::net::NodeId;
use super::budget::Is2000Budget;
use super::config::Is2000Config;
use super::dormancy::{Dormancy, Mode};
use crate::cdma2000::config::{DemandConfig, BASE_RATE_BPS};
use crate::cdma2000::sch::{Backlog, Grant, SchAllocator};
use crate::cdma2000::sch_demand::DemandAllocator;
use crate::engine::time::secs;
use crate::engine::{Rng, RngStreams, Time};
use crate::net::hop::{BuildContext, BuildError, Ends, HopKind, Samples};
use crate::net::{Headers, Hop, HopEvent, Packet, Port};
use crate::is2000::rows::Is2000Result;
use crate::result::Rows;
use crate::rlp::link::{RadioLinkConfig, RlpLink};
use crate::rlp::meter::Meter;
use std::collections::VecDeque;

pub struct SectorUser {
    pub name: String,
    pub node: NodeId,
    pub link: RlpLink,
    /// The forward backlog last told to the MAC.
    waiting: u64,
    pub grants: u64,
    pub active_time: Time,
    active_since: Option<Time>,
}

pub struct Is2000Sector {
    pub name: String,
    pub node: NodeId,
    pub users: Vec<SectorUser>,
    pub mac: DemandAllocator<Is2000Budget>,
    pub dormancy: Dormancy,
    /// Each user's stream of places (its own, so adding a user moves no other).
    places: Vec<Rng>,
    outbox: VecDeque<HopEvent>,
    /// Each user's link's deadline (Time::MAX: none), kept as the link
    /// changes (`after`, `set_rates`): the sector's deadline is asked after
    /// every event, and asking each link afresh made it a sixth of a
    /// loaded sector's run.
    due: Vec<Time>,
    /// The earliest of `due`, and whether it may have moved later (the
    /// link that held it ran): then it is found again once, when the
    /// sector's call ends, rather than after every link's change (in a
    /// slot every busy link changes).
    due_min: Time,
    due_stale: bool,
    grants: Vec<Grant>,
    changes: Vec<(usize, Mode, Mode)>,
    /// `apply`'s emptied lists of changes and grants, kept for their room.
    spare: (Vec<(usize, Mode, Mode)>, Vec<Grant>),
    /// Fraction of the sector's power in use, in basis points, over time (1 % bins).
    pub power: Meter,
    pub codes_max: u32,
    /// Users whose MAC state is active and who hold their FCH; those
    /// waiting for one, oldest first.
    admitted: Vec<bool>,
    waiting: VecDeque<usize>,
    /// Admissions that had to wait.
    pub admissions_deferred: u64,
}

impl Is2000Sector {
    pub fn new(cfg: &Is2000Config, rng: &RngStreams) -> Self {
        let users: Vec<SectorUser> = cfg
            .users
            .iter()
            .map(|u| {
                let link_cfg = RadioLinkConfig { name: u.name.clone(), bsc: cfg.node, mobile: u.node, ..cfg.link.clone() };
                let mut link = RlpLink::new(&link_cfg, rng);
                // Dormant at the start: no channel either way.
                link.set_rate(Time::ZERO, 0, 0);
                link.set_rate(Time::ZERO, 1, 0);
                SectorUser { name: u.name.clone(), node: u.node, link, waiting: 0, grants: 0, active_time: Time::ZERO, active_since: None }
            })
            .collect();
        let n = users.len();
        let demand = DemandConfig {
            threshold_bytes: cfg.mac.threshold_bytes,
            grant_delay: cfg.mac.grant_delay,
            burst: cfg.mac.burst,
            max_sch_bps: cfg.mac.max_sch_bps,
            bts_budget_bps: u64::MAX,
        };
        let mut budget = Is2000Budget::new(cfg.radio.clone(), &cfg.mac, n);
        let mut places: Vec<Rng> = cfg.users.iter().map(|u| rng.stream(&format!("is2000/{}/location/{}", cfg.name, u.name))).collect();
        for (k, place) in places.iter_mut().enumerate() {
            budget.relocate(k, place);
        }
        let due: Vec<Time> = users.iter().map(|u| u.link.deadline().unwrap_or(Time::MAX)).collect();
        let due_min = due.iter().copied().min().unwrap_or(Time::MAX);
        let mut power = Meter::new(100);
        power.set(Time::ZERO, (budget.power_fraction() * 10_000.0).round() as u64);
        Is2000Sector {
            name: cfg.name.clone(),
            node: cfg.node,
            users,
            mac: DemandAllocator::with_budget(demand, budget, n),
            dormancy: Dormancy::new(cfg.dormancy.clone(), n),
            places,
            outbox: VecDeque::new(),
            due,
            due_min,
            due_stale: false,
            grants: Vec::new(),
            changes: Vec::new(),
            spare: (Vec::new(), Vec::new()),
            power,
            codes_max: cfg.radio.reserved_codes,
            admitted: vec![false; n],
            waiting: VecDeque::new(),
            admissions_deferred: 0,
        }
    }


    /// User `k`'s link did something at `now`: hand on what it delivered,
    /// and tell the MAC and the MAC states what it holds now.
    fn after(&mut self, now: Time, k: usize) {
        let u = &mut self.users[k];
        while let Some(ev) = u.link.poll() {
            let shift = |p: Port| 2 * k as Port + p;
            self.outbox.push_back(match ev {
                HopEvent::Deliver { port, pkt } => HopEvent::Deliver { port: shift(port), pkt },
                HopEvent::Drop { port, pkt, reason } => HopEvent::Drop { port: shift(port), pkt, reason },
                HopEvent::Transmit { port, pkt, header } => HopEvent::Transmit { port: shift(port), pkt, header },
            });
        }
        let busy = u.link.dirs.iter().any(|d| d.arq.sender_busy());
        self.refresh_due(k);
        self.dormancy.set_busy(now, k, busy);
        self.report_backlog(now, k);
        self.apply(now);
    }

    fn refresh_due(&mut self, k: usize) {
        let (was, due) = (self.due[k], self.users[k].link.deadline().unwrap_or(Time::MAX));
        self.due[k] = due;
        if due < self.due_min {
            self.due_min = due;
        } else if was == self.due_min && due > was {
            self.due_stale = true;
        }
    }

    /// Find the earliest link deadline again if it may have moved.
    fn settle_due(&mut self) {
        if self.due_stale {
            self.due_stale = false;
            self.due_min = self.due.iter().copied().min().unwrap_or(Time::MAX);
        }
    }

    /// The forward new-data backlog, as the MAC sees it: none while the
    /// user holds no traffic channel.
    fn report_backlog(&mut self, now: Time, k: usize) {
        let u = &mut self.users[k];
        let waiting = if self.admitted[k] { u.link.dirs[0].arq.new_data_bytes() } else { 0 };
        if waiting != u.waiting {
            u.waiting = waiting;
            let busy_until = if waiting == 0 { now } else { Time::MAX };
            self.mac.on_backlog(now, k, Backlog { waiting_bytes: waiting, busy_until }, &mut self.grants);
        }
    }

    /// Apply the MAC states' transitions and the SCH grants to the links.
    fn apply(&mut self, now: Time) {
        while !self.changes.is_empty() || !self.grants.is_empty() {
            // Each list is swapped with an empty one that keeps its room
            // (what the steps below add goes there): no allocation a pass.
            let mut changes = std::mem::replace(&mut self.changes, std::mem::take(&mut self.spare.0));
            for (k, mode, was) in changes.drain(..) {
                if mode == Mode::Active && was == Mode::Dormant {
                    self.mac.budget.relocate(k, &mut self.places[k]);
                }
                if mode == Mode::Active {
                    if self.mac.budget.fch_fits(k) {
                        self.admit(now, k);
                    } else {
                        self.admissions_deferred += 1;
                        self.waiting.push_back(k);
                    }
                } else {
                    let (power, code) = mode.holds();
                    self.mac.budget.set_fch(k, power, code);
                    self.set_admitted(now, k, false);
                    self.admit_waiting(now);
                }
            }
            self.spare.0 = changes;
            let mut grants = std::mem::replace(&mut self.grants, std::mem::take(&mut self.spare.1));
            for (k, sch) in grants.drain(..) {
                if sch > 0 {
                    self.users[k].grants += 1;
                }
                self.set_rates(now, k);
                if sch == 0 {
                    self.admit_waiting(now);
                }
            }
            self.spare.1 = grants;
        }
        self.codes_max = self.codes_max.max(self.mac.budget.codes_used());
        self.power.set(now, (self.mac.budget.power_fraction() * 10_000.0).round() as u64);
    }

    fn admit(&mut self, now: Time, k: usize) {
        self.mac.budget.set_fch(k, true, true);
        self.set_admitted(now, k, true);
    }

    /// Users waiting for an FCH, in order, while theirs fits.
    fn admit_waiting(&mut self, now: Time) {
        while let Some(&k) = self.waiting.front() {
            if self.dormancy.mode(k) != Mode::Active || self.admitted[k] {
                self.waiting.pop_front();
            } else if self.mac.budget.fch_fits(k) {
                self.waiting.pop_front();
                self.admit(now, k);
            } else {
                break;
            }
        }
    }

    fn set_admitted(&mut self, now: Time, k: usize, on: bool) {
        self.admitted[k] = on;
        let u = &mut self.users[k];
        match (on, u.active_since) {
            (true, None) => u.active_since = Some(now),
            (false, Some(t)) => {
                u.active_time += now - t;
                u.active_since = None;
            }
            _ => {}
        }
        self.set_rates(now, k);
        self.report_backlog(now, k);
    }

    fn set_rates(&mut self, now: Time, k: usize) {
        let active = self.admitted[k];
        let fch = if active { BASE_RATE_BPS } else { 0 };
        let sch = if active { self.mac.sch_bps(k) } else { 0 };
        let link = &mut self.users[k].link;
        link.set_rate(now, 0, fch + sch);
        link.set_rate(now, 1, fch);
        self.refresh_due(k);
    }

    /// Its row of the is2000 table: power, grants, and the ON periods of
    /// every user's forward link.
    fn row(&self) -> Is2000Result {
        let mut on = Meter::new(1);
        for u in &self.users {
            let w = &u.link.dirs[0].on_runs.weights;
            for (i, &x) in w.iter().enumerate() {
                on.add_weight(i as u64, x);
            }
        }
        Is2000Result {
            name: self.name.clone(),
            users: self.users.len() as u64,
            power_mean: self.power.mean() / 10_000.0,
            power_max: self.power.max as f64 / 10_000.0,
            power_cdf: self.power.cdf(1.0 / 10_000.0),
            sch_grants: self.mac.grants_made,
            sch_denials: self.mac.denials,
            codes_max: self.codes_max as u64,
            admissions_deferred: self.admissions_deferred,
            active_s: self.users.iter().map(|u| secs(u.active_time)).sum(),
            on_periods: on.weights.iter().sum::<f64>() as u64,
            on_time_cdf: on.cdf(secs(crate::rlp::link::FRAME)),
        }
    }
}

impl HopKind for Is2000Sector {
    type Config = Is2000Config;
    fn build(cfg: &Is2000Config, cx: &BuildContext) -> Result<Self, BuildError> {
        Ok(Is2000Sector::new(cfg, cx.rng))
    }
}

impl Hop for Is2000Sector {
    fn offer(&mut self, now: Time, port: Port, pkt: Packet, hd: &mut Headers) {
        let k = (port / 2) as usize;
        self.users[k].link.offer(now, port % 2, pkt, hd);
        self.after(now, k);
        self.settle_due();
    }

    fn poll(&mut self) -> Option<HopEvent> {
        self.outbox.pop_front()
    }

    fn deadline(&self) -> Option<Time> {
        debug_assert!(
            self.users.iter().zip(&self.due).all(|(u, &d)| u.link.deadline().unwrap_or(Time::MAX) == d),
            "a link's deadline moved without refresh_due"
        );
        debug_assert!(!self.due_stale && self.due.iter().copied().min().unwrap_or(Time::MAX) == self.due_min);
        let links = Some(self.due_min).filter(|&d| d != Time::MAX);
        links.into_iter().chain(self.mac.deadline()).chain(self.dormancy.deadline()).min()
    }

    fn on_timer(&mut self, now: Time, hd: &mut Headers) {
        self.dormancy.on_timer(now, &mut self.changes);
        self.mac.on_timer(now, &mut self.grants);
        self.apply(now);
        for k in 0..self.users.len() {
            if self.due[k] <= now {
                self.users[k].link.on_timer(now, hd);
                self.after(now, k);
            }
        }
        self.settle_due();
    }

    /// Port 2k: user k's forward link, 2k + 1 its reverse link.
    fn ports(&self) -> Port {
        2 * self.users.len() as Port
    }

    fn ends(&self, port: Port) -> Ends {
        let user = self.users[(port / 2) as usize].node;
        if port % 2 == 0 {
            Ends { from: self.node, to: user }
        } else {
            Ends { from: user, to: self.node }
        }
    }

    fn place(&self, port: Port) -> String {
        self.users[(port / 2) as usize].link.place(port % 2)
    }

    /// Each user captured where its radio link alone would be (at the
    /// user, `USER.up`).
    fn capture_port(&self, port: Port) -> Port {
        port - port % 2 + self.users[(port / 2) as usize].link.capture_port(port % 2)
    }

    fn drops(&self) -> u64 {
        self.users.iter().map(|u| u.link.drops()).sum()
    }

    fn packets_inside(&self) -> u64 {
        self.users.iter().map(|u| u.link.packets_inside()).sum()
    }

    /// Dziong et al. Fig. 14: the fraction of the sector's power in use.
    fn sample(&self, out: &mut impl Samples) {
        out("power_fraction", &|| self.name.clone(), self.mac.budget.power_fraction());
    }

    /// Every user's air link (both directions; its sector, SCH grants and
    /// active time on the forward row), and the sector.
    fn report(&self, _horizon: Time, rows: &mut Rows) {
        for u in &self.users {
            let mut r = u.link.rows();
            r[0].sector = Some(self.name.clone());
            r[0].sch_grants = Some(u.grants);
            r[0].active_s = Some(secs(u.active_time));
            rows.extend(r);
        }
        rows.push(self.row());
    }

    fn finish(&mut self, now: Time, hd: &mut Headers) {
        for u in &mut self.users {
            u.link.finish(now, hd);
            if let Some(t) = u.active_since.take() {
                u.active_time += now - t;
            }
        }
        self.power.finish(now);
    }
}
