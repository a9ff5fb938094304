//! The emulator's relay: real packets through the scenario's very network
//! (`network::Network`, the simulator's hops and routes: an EV-DO sector, a
//! cdma2000 cell, an RLP3 radio link, an IS-2000 sector, and the reverse
//! links and wired links around them), driven by the real clock. The relay
//! keeps only what is real-time: the devices, the packets' bytes and the
//! clock. The server side and each user are TUN devices in their own
//! network namespaces; a packet read from the server's device enters the
//! network at the radio hop's network-side node, bound for the user its
//! destination address names, and follows the simulator's routes; what
//! reaches a user's node is written to that user's device, and the reverse
//! way to the server's. The hops see each TCP segment's header and every
//! packet's size (`wire`): the bytes wait in a stash keyed by the packet's
//! id, and a segment whose header a decompressor rebuilt wrong goes out
//! with the rebuilt fields and a checksum that no longer fits.
//!
//! Users are the terminals of the scenario's radio hops (`attachment`).
//! Addresses: the server is 10.77.0.1; user k (in that order, from 0) is
//! 10.77.(k+1).2.

use crate::net::NodeId;
use super::tun::Tun;
use super::wire;
use crate::engine::{RngStreams, Time};
use crate::net::hop::BuildContext;
use crate::net::packet::{Body, Packet};
use crate::net::DropReason;
use crate::network::{DropRecord, Endpoints, Network};
use crate::network::HopRows;
use crate::scenario::ScenarioSpec;
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
    /// Of those, segments written with a header a decompressor rebuilt
    /// wrong (their checksum fails at the receiver: `wire`).
    pub corrupted: u64,
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
    /// Its share of the slots served while another user of its sector had
    /// packets queued (`slots_contended`), over all users. For users that
    /// all download throughout, the split a full-buffer study of the
    /// scheduler predicts, whatever slots their programs left idle.
    pub contended_share: f64,
    /// The user's queue at the base station (`USER.down`, where the hop
    /// has one: an EV-DO user, a cdma2000 mobile): time-average and
    /// maximum, packets.
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
    /// What the hops say of the run, as the simulator's result tables
    /// (`network::HopRows`: queues, ppp, users, sectors, ...).
    pub hops: HopRows,
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

/// What lies at the relayed network's edge: the devices, the packets'
/// bytes, and what is reported.
struct Edge<'a> {
    server: &'a Tun,
    users: &'a [Tun],
    stash: Stash,
    report: RelayReport,
    logs: Vec<[Option<BufWriter<File>>; 2]>,
}

impl Edge<'_> {
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

    /// A packet read from a device enters the network at `from`.
    fn enter(&mut self, net: &mut Network, now: Time, bytes: &[u8], tag: Tag, from: NodeId, to: NodeId) {
        let uid = self.stash.put(bytes, tag);
        let d = self.dir(tag);
        d.packets_in += 1;
        d.bytes_in += bytes.len() as u64;
        self.log(tag, format_args!("{} + {}\n", now.0 / 1_000_000, bytes.len()));
        let (pkt, header) = wire::packet_of(bytes, uid, wire::connection_of(bytes, tag.user), tag.down, from, to, now);
        net.send(now, from, pkt, header, self);
    }
}

impl Endpoints for Edge<'_> {
    /// The packet reached its user's node (or the server's): its bytes go
    /// out of that device.
    fn arrive(&mut self, _net: &mut Network, now: Time, pkt: &Packet, header: &Body) {
        let Some((mut bytes, tag)) = self.stash.take(pkt.uid) else { return };
        if pkt.corrupt {
            wire::write_rebuilt(&mut bytes, header);
            self.dir(tag).corrupted += 1;
        }
        let dev = if tag.down { &self.users[tag.user] } else { self.server };
        let _ = dev.write(&bytes);
        let d = self.dir(tag);
        d.delivered += 1;
        d.bytes_delivered += bytes.len() as u64;
        let ms = (now - tag.arrived).0 as f64 / 1e6;
        let bin = (now / 100_000_000).0 as usize;
        if d.bytes_per_100ms.len() <= bin {
            d.bytes_per_100ms.resize(bin + 1, 0);
        }
        d.bytes_per_100ms[bin] += bytes.len() as u64;
        d.delay_mean_ms += (ms - d.delay_mean_ms) / d.delivered as f64;
        d.delay_max_ms = d.delay_max_ms.max(ms);
        self.log(tag, format_args!("{} - {} {}\n", now.0 / 1_000_000, bytes.len(), (now - tag.arrived).0 / 1_000_000));
        self.stash.recycle(bytes);
    }

    fn dropped(&mut self, _net: &mut Network, d: DropRecord) {
        let reason: DropReason = d.reason;
        if let Some((bytes, tag)) = self.stash.take(d.pkt.uid) {
            *self.dir(tag).dropped.entry(reason.as_str().to_string()).or_default() += 1;
            self.log(tag, format_args!("{} d {} {}\n", d.t.0 / 1_000_000, bytes.len(), reason.as_str()));
            self.stash.recycle(bytes);
        }
    }

    /// The relay looks at every deadline itself (`Network::run_due`).
    fn wake(&mut self, _h: u32, _at: Time) {}

    /// The real receiver checks the checksum of what `arrive` writes.
    fn checks_checksums(&self) -> bool {
        false
    }
}

fn dst_user(ip: &[u8], users: usize) -> Option<usize> {
    if ip.len() < 20 || ip[0] >> 4 != 4 || ip[16] != 10 || ip[17] != 77 || ip[19] != 2 {
        return None;
    }
    let k = ip[18] as usize;
    (1..=users).contains(&k).then(|| k - 1)
}

/// Where the server attaches and who the users are: the terminals of the
/// scenario's radio hops (users of EV-DO or IS-2000 sectors, mobiles of a
/// cdma2000 cell, the far end of an RLP radio link), in hop order, all
/// served from one network-side node; without a radio hop, the first node
/// and every other. An error names what does not fit.
pub fn attachment(spec: &ScenarioSpec) -> Result<(NodeId, Vec<(String, NodeId)>), String> {
    let radio: Vec<(NodeId, Vec<NodeId>)> = spec.hops.iter().filter_map(|h| h.config().terminals()).collect();
    let Some(&(base, _)) = radio.first() else {
        return Ok((NodeId(0), spec.nodes.iter().enumerate().skip(1).map(|(i, n)| (n.name.clone(), NodeId::new(i))).collect()));
    };
    if let Some((other, _)) = radio.iter().find(|(b, _)| *b != base) {
        return Err(format!(
            "the radio hops are served from several nodes ('{}' and '{}'); give the scenario one",
            spec.nodes[base.index()].name, spec.nodes[other.index()].name
        ));
    }
    let users: Vec<(String, NodeId)> =
        radio.into_iter().flat_map(|(_, t)| t).map(|n| (spec.nodes[n.index()].name.clone(), n)).collect();
    Ok((base, users))
}

/// Relay until `stop`.
pub fn run(spec: &ScenarioSpec, server: &Tun, users: &[Tun], stop: &AtomicBool, log_dir: Option<&Path>) -> std::io::Result<RelayReport> {
    let (base, attached) = attachment(spec).map_err(std::io::Error::other)?;
    if attached.len() != users.len() {
        return Err(std::io::Error::other(format!("{} users in the scenario, {} devices", attached.len(), users.len())));
    }
    let rng = RngStreams::new(spec.seed);
    let cx = BuildContext { rng: &rng, duration: spec.duration, nodes: spec.nodes.len() };
    let routes = spec.routes().map_err(|e| std::io::Error::other(e.to_string()))?;
    let mut net = Network::new(&spec.hops, routes, &cx).map_err(|e| std::io::Error::other(e.to_string()))?;
    let user_nodes: Vec<NodeId> = attached.iter().map(|u| u.1).collect();
    let mut logs = Vec::new();
    for (n, _) in &attached {
        let open = |d: &str| -> std::io::Result<Option<BufWriter<File>>> {
            // The user's name escaped as one file name (no `/`, no `..`).
            let name = format!("{}.{d}.log", crate::files::file_component(n));
            log_dir.map(|dir| File::create(dir.join(name)).map(BufWriter::new)).transpose()
        };
        logs.push([open("down")?, open("up")?]);
    }
    let mut edge = Edge {
        server,
        users,
        stash: Stash::default(),
        report: RelayReport {
            users: attached
                .iter()
                .enumerate()
                .map(|(k, (n, _))| UserReport { name: n.clone(), address: ip_text(user_addr(k)), ..Default::default() })
                .collect(),
            ..Default::default()
        },
        logs,
    };
    // Timer slack 1 ns: the kernel's default 50 µs would be the schedule error.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1, 0, 0, 0) };
    let start = Instant::now();
    // The emulation's clock: real time since the relay started.
    let clock = || Time(start.elapsed().as_nanos() as u64);
    let mut late = Lateness { bins: vec![0; 100_000], max: 0 };
    let mut buf = vec![0u8; 65_536];
    let mut fds: Vec<libc::pollfd> = std::iter::once(server.raw_fd())
        .chain(users.iter().map(|u| u.raw_fd()))
        .map(|fd| libc::pollfd { fd, events: libc::POLLIN, revents: 0 })
        .collect();
    while !stop.load(Ordering::Relaxed) {
        let now = clock();
        // Sleep until the next deadline (at most 5 ms, to look at `stop`),
        // spinning through its last 20 µs.
        let wait = net.next_deadline().map_or(5_000_000, |d| d.saturating_sub(now).0).min(5_000_000);
        let timeout = if wait > 20_000 { wait - 20_000 } else { 0 };
        let ts = libc::timespec { tv_sec: (timeout / 1_000_000_000) as _, tv_nsec: (timeout % 1_000_000_000) as _ };
        let n = unsafe { libc::ppoll(fds.as_mut_ptr(), fds.len() as _, &ts, std::ptr::null()) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
        let now = clock();
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
                            edge.enter(&mut net, now, pkt, tag, base, user_nodes[k]);
                        }
                        None => edge.report.ignored += 1,
                    }
                } else if len >= 20 && pkt[0] >> 4 == 4 {
                    let tag = Tag { user: i - 1, down: false, arrived: now };
                    edge.enter(&mut net, now, pkt, tag, user_nodes[i - 1], base);
                } else {
                    edge.report.ignored += 1;
                }
            }
        }
        if let Some(d) = net.next_deadline().filter(|&d| d > now && d - now <= Time(20_000)) {
            // Spin to the deadline: the slot clock follows the real one.
            while clock() < d {
                std::hint::spin_loop();
            }
        }
        let now = clock();
        net.run_due(now, &mut edge, &mut |l| late.add(l.0));
    }
    let end = clock();
    // Bring every hop up to the end (a sleeping sector runs its idle
    // slots) and close its statistics.
    net.timers_at_end(end);
    net.finish(end);
    let mut rep = edge.report;
    rep.hops = net.report(end);
    // The scheduler's split: a user's share of the slots that carried anyone's data.
    let share = |part: u64, whole: u64| if whole > 0 { part as f64 / whole as f64 } else { 0.0 };
    let total: u64 = rep.hops.users.iter().map(|u| u.slots_served).sum();
    let contended: u64 = rep.hops.users.iter().map(|u| u.slots_contended).sum();
    for u in &mut rep.users {
        if let Some(row) = rep.hops.users.iter().find(|r| r.name == u.name) {
            u.slots_served = row.slots_served;
            u.slot_share = share(row.slots_served, total);
            u.contended_share = share(row.slots_contended, contended);
        }
        let queue = format!("{}.down", u.name);
        if let Some(q) = rep.hops.queues.iter().find(|q| q.link == queue) {
            u.queue_avg_pkts = q.avg_packets;
            u.queue_max_pkts = q.max_packets;
        }
    }
    let queued: Vec<Tag> = edge.stash.drain().map(|e| e.1).collect();
    for tag in queued {
        let d = if tag.down { &mut rep.users[tag.user].down } else { &mut rep.users[tag.user].up };
        d.queued_at_end += 1;
    }
    for l in edge.logs.iter_mut().flatten().flatten() {
        l.flush()?;
    }
    rep.duration_s = end.0 as f64 / 1e9;
    rep.schedule_error_p50_us = late.quantile(0.5);
    rep.schedule_error_p99_us = late.quantile(0.99);
    rep.schedule_error_max_us = late.max as f64;
    rep.deadlines = late.bins.iter().sum();
    Ok(rep)
}

pub fn ip_text(a: [u8; 4]) -> String {
    format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3])
}
