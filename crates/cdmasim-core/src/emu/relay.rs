//! The emulator's relay: real packets through the scenario's very hops (the
//! 1xEV-DO sector as the simulator builds it, with its users' reverse links),
//! driven by the real clock. The server side and each user are TUN devices
//! in their own network namespaces; a packet read from the server's device
//! enters the network at the sector's node, bound for the user its
//! destination address names, and follows the simulator's routes; what
//! reaches a user's node is written to that user's device, and the reverse
//! way to the server's. The hops only see sizes: the bytes wait in a stash
//! keyed by the packet's id.
//!
//! Addresses: the server is 10.77.0.1; user k (the scenario's order, from
//! 0) is 10.77.(k+1).2.

use super::tun::Tun;
use crate::engine::Time;
use crate::net::packet::Packet;
use crate::net::{DropReason, Hop, HopEvent};
use crate::scenario::ScenarioSpec;
use crate::sim::build;
use crate::sim::hops::AnyHop;
use crate::net::routing::Routes;
use serde::Serialize;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

pub const SERVER_ADDR: [u8; 4] = [10, 77, 0, 1];

/// User k's address.
pub fn user_addr(k: usize) -> [u8; 4] {
    [10, 77, (k + 1) as u8, 2]
}

/// Most users: one /24 each under 10.77.0.0/16.
pub const MAX_USERS: usize = 254;

#[derive(Debug, Default, Clone, Serialize)]
pub struct Direction {
    pub packets_in: u64,
    pub bytes_in: u64,
    pub delivered: u64,
    pub bytes_delivered: u64,
    /// Dropped, by reason.
    pub dropped: HashMap<String, u64>,
    /// Still inside the sector or a link at the end.
    pub queued_at_end: u64,
    /// Time from arrival to delivery of the delivered packets, ms: mean and maximum.
    pub delay_mean_ms: f64,
    pub delay_max_ms: f64,
    /// Bytes delivered in each 100 ms of the run (for throughput plots).
    pub bytes_per_100ms: Vec<u64>,
}

#[derive(Debug, Default, Clone, Serialize)]
pub struct UserReport {
    pub name: String,
    pub address: String,
    pub down: Direction,
    pub up: Direction,
    /// Slots of the sector that carried this user's data, and their share
    /// of the slots that carried anyone's (the scheduler's split).
    pub slots_served: u64,
    pub slot_share: f64,
    /// The user's queue at the base station: time-average and maximum, packets.
    pub queue_avg_pkts: f64,
    pub queue_max_pkts: u64,
}

#[derive(Debug, Default, Clone, Serialize)]
pub struct RelayReport {
    pub duration_s: f64,
    pub users: Vec<UserReport>,
    /// How late the hops' deadlines (the sector's slots among them) were
    /// served, microseconds: median, 99th percentile, maximum, and how many.
    pub schedule_error_p50_us: f64,
    pub schedule_error_p99_us: f64,
    pub schedule_error_max_us: f64,
    pub deadlines: u64,
    /// Packets not IPv4 or for no user (left out, counted).
    pub ignored: u64,
}

/// Which way a packet goes, and for which user.
#[derive(Clone, Copy)]
struct Tag {
    user: usize,
    down: bool,
    arrived: Time,
}

/// A histogram of lateness in 1 µs bins up to 100 ms.
struct Lateness {
    bins: Vec<u64>,
    max: u64,
}

impl Lateness {
    fn add(&mut self, ns: u64) {
        let us = (ns / 1000) as usize;
        let i = us.min(self.bins.len() - 1);
        self.bins[i] += 1;
        self.max = self.max.max(ns / 1000);
    }
    fn quantile(&self, q: f64) -> f64 {
        let total: u64 = self.bins.iter().sum();
        if total == 0 {
            return 0.0;
        }
        let want = (q * total as f64).ceil() as u64;
        let mut acc = 0;
        for (i, &n) in self.bins.iter().enumerate() {
            acc += n;
            if acc >= want {
                return i as f64;
            }
        }
        (self.bins.len() - 1) as f64
    }
}

/// The packets' bytes while the hops hold their sizes: a slab whose index is
/// the packet's id, and spare buffers, so a packet costs no allocation.
#[derive(Default)]
struct Stash {
    slots: Vec<Option<(Vec<u8>, Tag)>>,
    free: Vec<usize>,
    spare: Vec<Vec<u8>>,
}

impl Stash {
    fn put(&mut self, bytes: &[u8], tag: Tag) -> u64 {
        let mut buf = self.spare.pop().unwrap_or_default();
        buf.clear();
        buf.extend_from_slice(bytes);
        let i = self.free.pop().unwrap_or_else(|| {
            self.slots.push(None);
            self.slots.len() - 1
        });
        self.slots[i] = Some((buf, tag));
        i as u64
    }

    fn take(&mut self, uid: u64) -> Option<(Vec<u8>, Tag)> {
        let e = self.slots.get_mut(uid as usize)?.take()?;
        self.free.push(uid as usize);
        Some(e)
    }

    fn recycle(&mut self, buf: Vec<u8>) {
        self.spare.push(buf);
    }

    fn drain(&mut self) -> impl Iterator<Item = (Vec<u8>, Tag)> + '_ {
        self.slots.iter_mut().filter_map(Option::take)
    }
}

struct Relay<'a> {
    hops: Vec<AnyHop>,
    routes: Routes,
    sector_node: u32,
    user_nodes: Vec<u32>,
    server: &'a Tun,
    users: &'a [Tun],
    stash: Stash,
    report: RelayReport,
    logs: Vec<[Option<BufWriter<File>>; 2]>,
}

impl Relay<'_> {
    fn log(&mut self, tag: Tag, line: std::fmt::Arguments) {
        if let Some(w) = self.logs.get_mut(tag.user).and_then(|l| l[if tag.down { 0 } else { 1 }].as_mut()) {
            let _ = w.write_fmt(line);
        }
    }

    fn dir(&mut self, tag: Tag) -> &mut Direction {
        let u = &mut self.report.users[tag.user];
        if tag.down {
            &mut u.down
        } else {
            &mut u.up
        }
    }

    /// A packet read from a device enters at `node`.
    fn enter(&mut self, now: Time, bytes: &[u8], tag: Tag, from: u32, to: u32) {
        let uid = self.stash.put(bytes, tag);
        let d = self.dir(tag);
        d.packets_in += 1;
        d.bytes_in += bytes.len() as u64;
        self.log(tag, format_args!("{} + {}\n", now / 1_000_000, bytes.len()));
        // The hops see an IPv4 datagram of this size (28 bytes of headers
        // in a UDP body: only the size matters to them).
        let len = (bytes.len() as u32).max(28) - 28;
        let pkt = Packet::udp(uid, 0, from, to, now, uid, len);
        self.forward(now, from, pkt);
    }

    fn forward(&mut self, now: Time, node: u32, pkt: Packet) {
        let mut todo = vec![(node, pkt)];
        while let Some((node, pkt)) = todo.pop() {
            if node == pkt.dst {
                self.exit(now, &pkt);
                continue;
            }
            let Some(e) = self.routes.next(node, pkt.dst) else {
                self.dropped(now, &pkt, DropReason::NoRoute);
                continue;
            };
            let h = e.hop as usize;
            self.hops[h].offer(now, e.port, pkt);
            self.drain(now, h, &mut todo);
        }
    }

    fn drain(&mut self, now: Time, h: usize, todo: &mut Vec<(u32, Packet)>) {
        while let Some(ev) = self.hops[h].poll() {
            match ev {
                HopEvent::Deliver { port, pkt } => todo.push((self.hops[h].exit_node(port), pkt)),
                HopEvent::Drop { pkt, reason, .. } => self.dropped(now, &pkt, reason),
                HopEvent::Transmit { .. } => {}
            }
        }
    }

    fn dropped(&mut self, now: Time, pkt: &Packet, reason: DropReason) {
        if let Some((bytes, tag)) = self.stash.take(pkt.uid) {
            *self.dir(tag).dropped.entry(reason.as_str().to_string()).or_default() += 1;
            self.log(tag, format_args!("{} d {} {}\n", now / 1_000_000, bytes.len(), reason.as_str()));
            self.stash.recycle(bytes);
        }
    }

    fn exit(&mut self, now: Time, pkt: &Packet) {
        let Some((bytes, tag)) = self.stash.take(pkt.uid) else { return };
        let dev = if tag.down { &self.users[tag.user] } else { self.server };
        let _ = dev.write(&bytes);
        let d = self.dir(tag);
        d.delivered += 1;
        d.bytes_delivered += bytes.len() as u64;
        let ms = (now - tag.arrived) as f64 / 1e6;
        let bin = (now / 100_000_000) as usize;
        if d.bytes_per_100ms.len() <= bin {
            d.bytes_per_100ms.resize(bin + 1, 0);
        }
        d.bytes_per_100ms[bin] += bytes.len() as u64;
        d.delay_mean_ms += (ms - d.delay_mean_ms) / d.delivered as f64;
        d.delay_max_ms = d.delay_max_ms.max(ms);
        self.log(tag, format_args!("{} - {} {}\n", now / 1_000_000, bytes.len(), (now - tag.arrived) / 1_000_000));
        self.stash.recycle(bytes);
    }

    fn on_timers(&mut self, now: Time, late: &mut Lateness) {
        for h in 0..self.hops.len() {
            if let Some(d) = self.hops[h].deadline().filter(|&d| d <= now) {
                late.add(now - d);
                self.hops[h].on_timer(now);
                let mut todo = Vec::new();
                self.drain(now, h, &mut todo);
                for (node, pkt) in todo {
                    self.forward(now, node, pkt);
                }
            }
        }
    }

    fn next_deadline(&self) -> Option<Time> {
        self.hops.iter().filter_map(|h| h.deadline()).min()
    }
}

fn dst_user(ip: &[u8], users: usize) -> Option<usize> {
    if ip.len() < 20 || ip[0] >> 4 != 4 || ip[16] != 10 || ip[17] != 77 || ip[19] != 2 {
        return None;
    }
    let k = ip[18] as usize;
    (1..=users).contains(&k).then(|| k - 1)
}

/// Where the server attaches and who the users are: the scenario's sector
/// (its node; its users), or without one its first node and every other.
pub fn attachment(spec: &ScenarioSpec) -> (u32, Vec<(String, u32)>) {
    match spec.rans.first() {
        Some(ran) => (ran.node as u32, ran.users.iter().map(|u| (u.name.clone(), u.node as u32)).collect()),
        None => (0, spec.nodes.iter().enumerate().skip(1).map(|(i, n)| (n.name.clone(), i as u32)).collect()),
    }
}

/// Relay until `stop`.
pub fn run(spec: &ScenarioSpec, server: &Tun, users: &[Tun], stop: &AtomicBool, log_dir: Option<&Path>) -> std::io::Result<RelayReport> {
    let (sector_node, attached) = attachment(spec);
    if attached.len() != users.len() {
        return Err(std::io::Error::other(format!("{} users in the scenario, {} devices", attached.len(), users.len())));
    }
    let w = build::build(spec).map_err(|e| std::io::Error::other(e.to_string()))?;
    let names: Vec<String> = attached.iter().map(|u| u.0.clone()).collect();
    let mut logs = Vec::new();
    for n in &names {
        let open = |d: &str| -> std::io::Result<Option<BufWriter<File>>> {
            log_dir.map(|dir| File::create(dir.join(format!("{n}.{d}.log"))).map(BufWriter::new)).transpose()
        };
        logs.push([open("down")?, open("up")?]);
    }
    let mut r = Relay {
        hops: w.hops,
        routes: w.routes,
        sector_node,
        user_nodes: attached.iter().map(|u| u.1).collect(),
        server,
        users,
        stash: Stash::default(),
        report: RelayReport {
            users: names
                .iter()
                .enumerate()
                .map(|(k, n)| UserReport { name: n.clone(), address: ip_text(user_addr(k)), ..Default::default() })
                .collect(),
            ..Default::default()
        },
        logs,
    };
    // Timer slack 1 ns: the kernel's default 50 µs would be the schedule error.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1, 0, 0, 0) };
    let start = Instant::now();
    let mut late = Lateness { bins: vec![0; 100_000], max: 0 };
    let mut buf = vec![0u8; 65_536];
    let mut fds: Vec<libc::pollfd> = std::iter::once(server.raw_fd())
        .chain(users.iter().map(|u| u.raw_fd()))
        .map(|fd| libc::pollfd { fd, events: libc::POLLIN, revents: 0 })
        .collect();
    while !stop.load(Ordering::Relaxed) {
        let now = start.elapsed().as_nanos() as Time;
        // Sleep until the next deadline (at most 5 ms, to look at `stop`),
        // spinning through its last 20 µs.
        let wait = r.next_deadline().map_or(5_000_000, |d| d.saturating_sub(now)).min(5_000_000);
        let timeout = if wait > 20_000 { wait - 20_000 } else { 0 };
        let ts = libc::timespec { tv_sec: (timeout / 1_000_000_000) as _, tv_nsec: (timeout % 1_000_000_000) as _ };
        let n = unsafe { libc::ppoll(fds.as_mut_ptr(), fds.len() as _, &ts, std::ptr::null()) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
        let now = start.elapsed().as_nanos() as Time;
        for (i, pfd) in fds.iter_mut().enumerate() {
            if pfd.revents & libc::POLLIN == 0 {
                continue;
            }
            pfd.revents = 0;
            let dev = if i == 0 { server } else { &users[i - 1] };
            for _ in 0..256 {
                let Some(len) = dev.read(&mut buf)? else { break };
                let pkt = &buf[..len];
                if i == 0 {
                    match dst_user(pkt, users.len()) {
                        Some(k) => {
                            let tag = Tag { user: k, down: true, arrived: now };
                            r.enter(now, pkt, tag, r.sector_node, r.user_nodes[k]);
                        }
                        None => r.report.ignored += 1,
                    }
                } else if len >= 20 && pkt[0] >> 4 == 4 {
                    let tag = Tag { user: i - 1, down: false, arrived: now };
                    r.enter(now, pkt, tag, r.user_nodes[i - 1], r.sector_node);
                } else {
                    r.report.ignored += 1;
                }
            }
        }
        if r.next_deadline().is_some_and(|d| d > now && d - now <= 20_000) {
            // Spin to the deadline: the slot clock follows the real one.
            let d = r.next_deadline().unwrap();
            while (start.elapsed().as_nanos() as Time) < d {
                std::hint::spin_loop();
            }
        }
        let now = start.elapsed().as_nanos() as Time;
        r.on_timers(now, &mut late);
    }
    let end = start.elapsed().as_nanos() as Time;
    // Bring the sector up to the end and read its per-user slot counts.
    for h in &mut r.hops {
        h.on_timer(end);
        h.finish(end);
    }
    if let Some(AnyHop::Evdo(ran)) = r.hops.iter().find(|h| matches!(h, AnyHop::Evdo(_))) {
        let total: u64 = ran.users.iter().map(|u| u.stats.slots_served).sum();
        for (u, rep) in ran.users.iter().zip(r.report.users.iter_mut()) {
            rep.slots_served = u.stats.slots_served;
            rep.slot_share = if total > 0 { u.stats.slots_served as f64 / total as f64 } else { 0.0 };
            rep.queue_avg_pkts = u.stats.queue.area_pkts / end.max(1) as f64;
            rep.queue_max_pkts = u.stats.queue.max_pkts;
        }
    }
    let queued: Vec<Tag> = r.stash.drain().map(|e| e.1).collect();
    for tag in queued {
        r.dir(tag).queued_at_end += 1;
    }
    for l in r.logs.iter_mut().flatten().flatten() {
        l.flush()?;
    }
    let mut rep = r.report;
    rep.duration_s = end as f64 / 1e9;
    rep.schedule_error_p50_us = late.quantile(0.5);
    rep.schedule_error_p99_us = late.quantile(0.99);
    rep.schedule_error_max_us = late.max as f64;
    rep.deadlines = late.bins.iter().sum();
    Ok(rep)
}

pub fn ip_text(a: [u8; 4]) -> String {
    format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3])
}
