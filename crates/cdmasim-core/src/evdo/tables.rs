//! `[[sector]]` and `[[user]]` tables: 1xEV-DO sectors and their users.
//! The sectors of one base-station node are one radio access network, one
//! hop; each user is a node of its own with its reverse link `USER.up`.

use crate::evdo::rlp::RlpConfig;
use crate::net::ppp::Compression;
use crate::input::drc::{self, parse_drc, DrcFrom, RawDrc, REVERSE_RATE_BPS};
use crate::evdo::keys::{self, DEFAULT_AIR_DELAY, DEFAULT_BUSY_PERIOD, DEFAULT_INTERLACE, DEFAULT_SCHEDULER, MAX_BACKGROUND_USERS};
use crate::input::error::ScenarioError;
use crate::input::kind::{KindTables, Names, Resolver};
use crate::input::queue::parse_queue;
use crate::input::reader::Named;
use crate::input::reader::{At, Res, Val};
use crate::net::link::LinkSpec;
use crate::engine::time::secs;
use crate::engine::Time;
use crate::evdo::air::AirOverhead;
use crate::evdo::config::{default_user_queue, Activity, BackgroundUser, HandoffPf, HandoffPlan, HandoffQueue, RanConfig, SectorConfig, UserConfig};
use crate::evdo::reverse::{self, RabConfig, ReverseConfig};
use crate::sched::{pf::PfConfig, SCHEDULERS};
use crate::evdo::uplink::UplinkConfig;
use crate::net::queue::QueueSpec;

#[derive(Clone, Debug)]
pub(crate) struct RawSector {
    pub name: Named,
    pub node: Named,
    pub scheduler: String,
    pub pf: PfConfig,
    pub interlace: u8,
    pub delay: Time,
    pub delay_at: At,
    pub air: AirOverhead,
    pub handoff_pf: HandoffPf,
    pub handoff_queue: HandoffQueue,
    /// Full-buffer users loading the sector: how many, and their channel.
    pub background: Option<(u32, RawDrc, Option<Activity>, bool)>,
    pub rab: RabConfig,
}

#[derive(Clone, Debug)]
pub(crate) enum RawHandoff {
    Never,
    At(Vec<(Time, Named)>),
    Every { min: Time, max: Time, sectors: Vec<Named> },
    Channel { sectors: Vec<Named>, at: At },
}

#[derive(Clone, Debug)]
pub(crate) struct RawUser {
    pub name: Named,
    pub sector: Named,
    pub drc: RawDrc,
    pub queue: QueueSpec,
    pub reverse_rate_bps: u64,
    pub reverse_queue: QueueSpec,
    pub handoff: RawHandoff,
    /// PPP with this header compression on the user's link, both ways.
    pub ppp: Option<Compression>,
    /// Residual loss below PPP, forward (on the air) and reverse.
    pub loss: f64,
    pub reverse_loss: f64,
    /// The forward link's RLP with erasures.
    pub rlp: Option<RlpConfig>,
    /// A capture sees the user's uplink packets as the user sends them,
    /// before its reverse link's buffer.
    pub uplink_capture_at_entry: bool,
    /// The reverse link through the RAN with the Rev. 0 MAC.
    pub reverse_mac: Option<ReverseConfig>,
}

/// `reverse_mac = {rate_limit = "153.6kbps", up = [4 probabilities], down =
/// [4 probabilities], headroom = 20.0 | "none", frame_error = 0.01,
/// nak_delay = "26.666666ms"}`, each key optional.
fn parse_reverse_mac(v: &Val) -> Res<ReverseConfig> {
    let t = v.keys(keys::REVERSE_MAC)?;
    let d = ReverseConfig::default();
    let rate_limit = match t.get("rate_limit") {
        None => d.rate_limit,
        Some(r) => {
            let bps = r.rate()?;
            match reverse::RATE_BPS.iter().position(|&x| x == bps) {
                Some(i) if i > 0 => i as u8,
                _ => return Err(r.err(format!("rate_limit must be a Rev. 0 reverse rate (9.6, 19.2, 38.4, 76.8 or 153.6 kbps), not {bps} bps"))),
            }
        }
    };
    let four = |key: &str, default: [f64; 4]| -> Res<[f64; 4]> {
        let Some(a) = t.get(key) else { return Ok(default) };
        let items = a.array()?;
        if items.len() != 4 {
            return Err(a.err(format!("{key} takes 4 transition probabilities (one per step between the 5 rates), not {}", items.len())));
        }
        let mut out = [0.0; 4];
        for (o, i) in out.iter_mut().zip(&items) {
            *o = i.probability()?;
        }
        Ok(out)
    };
    let headroom_db = match t.get("headroom") {
        None => d.headroom_db,
        Some(h) if h.str().is_ok_and(|s| s == "none") => None,
        Some(h) => {
            let x = h.number()?;
            if !x.is_finite() || x.abs() > 60.0 {
                return Err(h.err(format!("headroom is dB of transmit power over the pilot at a forward SINR of 0 dB: within ±60, not {x}")));
            }
            Some(x)
        }
    };
    let frame_error = t.or("frame_error", d.frame_error, |v| v.probability())?;
    if frame_error >= 1.0 {
        return Err(t.get("frame_error").unwrap().err("frame_error must be below 1 (every reverse frame erased)"));
    }
    Ok(ReverseConfig {
        rate_limit,
        up: four("up", d.up)?,
        down: four("down", d.down)?,
        headroom_db,
        frame_error,
        nak_delay: t.or("nak_delay", d.nak_delay, |v| v.time())?,
    })
}

/// `rab = {threshold = 7.0, pilot = -22.0, other_cell = 0.55}` (dB, dB, ratio).
fn parse_rab(v: &Val) -> Res<RabConfig> {
    let t = v.keys(keys::RAB)?;
    let d = RabConfig::default();
    let db = |key: &str, default: f64, lo: f64, hi: f64| -> Res<f64> {
        t.or(key, default, |v| {
            let x = v.number()?;
            if !(lo..=hi).contains(&x) {
                return Err(v.err(format!("{key} must lie in {lo}..={hi} dB, not {x}")));
            }
            Ok(x)
        })
    };
    let other_cell = t.or("other_cell", d.other_cell, |v| {
        let x = v.number()?;
        if !(0.0..=10.0).contains(&x) {
            return Err(v.err(format!("other_cell is the other sectors' interference per unit of this one's: 0..=10, not {x}")));
        }
        Ok(x)
    })?;
    Ok(RabConfig { threshold_db: db("threshold", d.threshold_db, 0.1, 30.0)?, pilot_db: db("pilot", d.pilot_db, -40.0, 0.0)?, other_cell })
}

/// `rlp = {frame_error = 0.01, nak_delay = "28.333333ms"}`, each key optional.
fn parse_rlp(v: &Val) -> Res<RlpConfig> {
    let t = v.keys(keys::RLP)?;
    let frame_error = t.or("frame_error", RlpConfig::DEFAULT_FRAME_ERROR, |v| v.probability())?;
    if frame_error >= 1.0 {
        return Err(t.get("frame_error").unwrap().err("frame_error must be below 1 (every physical-layer packet erased)"));
    }
    Ok(RlpConfig { frame_error, nak_delay: t.or("nak_delay", RlpConfig::DEFAULT_NAK_DELAY, |v| v.time())? })
}

fn parse_sector(v: &Val) -> Res<RawSector> {
    let t = v.keys(keys::SECTOR)?;
    let scheduler = match t.get("scheduler") {
        Some(s) => {
            let name = s.str()?;
            if !SCHEDULERS.contains(&name) {
                return Err(s.err(format!("unknown scheduler '{name}' (known: {})", SCHEDULERS.join(", "))));
            }
            name.to_string()
        }
        None => DEFAULT_SCHEDULER.to_string(),
    };
    let mut pf = PfConfig::default();
    if let Some(a) = t.get("alpha") {
        if scheduler != "pf" {
            return Err(a.err(format!("alpha is the Proportional Fair averaging constant; scheduler '{scheduler}' has none")));
        }
        pf.alpha = a.number()?;
        if !(pf.alpha > 0.0 && pf.alpha < 1.0) {
            return Err(a.err(format!("alpha must lie strictly between 0 and 1 (Liu et al. eq. 5; 0.001 is usual), not {}", pf.alpha)));
        }
    }
    let interlace = match t.get("interlace") {
        Some(i) => match i.count()? {
            0 => 0,
            1 => 1,
            4 => 4,
            n => return Err(i.err(format!(
                "interlace must be 4 (C.S0024's four-slot interlace), 1 (consecutive slots) or 0 (every slot at its DRC's rate), not {n}"
            ))),
        },
        None => DEFAULT_INTERLACE,
    };
    let delay_v = t.get("delay");
    let air = match t.get("overhead") {
        None => AirOverhead::default(),
        Some(o) => match o.str() {
            Ok("default") => AirOverhead::default(),
            Ok("none") => AirOverhead::none(),
            Ok(other) => return Err(o.err(format!("unknown overhead '{other}' (\"default\", \"none\" or a table of {})", crate::input::keys::names(keys::OVERHEAD).join(", ")))),
            Err(_) => parse_overhead(&o)?,
        },
    };
    let handoff_pf = t.or("handoff_pf", keys::HANDOFF_PF[0].1, |h| h.one_of(keys::HANDOFF_PF))?;
    let handoff_queue = t.or("handoff_queue", keys::HANDOFF_QUEUE[0].1, |h| h.one_of(keys::HANDOFF_QUEUE))?;
    Ok(RawSector {
        name: Named::new(t.name("name")?),
        node: Named::new(t.name("node")?),
        scheduler,
        pf,
        interlace,
        delay: match &delay_v {
            Some(d) => d.time()?,
            None => DEFAULT_AIR_DELAY,
        },
        delay_at: delay_v.map(|d| d.at()).unwrap_or_else(|| t.at()),
        air,
        handoff_pf,
        handoff_queue,
        background: t.opt("background", parse_background)?,
        rab: t.or("rab", RabConfig::default(), parse_rab)?,
    })
}

/// `background = {users = N, drc = {...}, busy = F, busy_period = T}`: N
/// users loading the sector, each on its own draw of the channel (default:
/// the `stationary` preset), backlogged all the time (no `busy`: full
/// buffers) or a share F of it in busy periods of mean T (default 1 s).
fn parse_background(v: &Val) -> Res<(u32, RawDrc, Option<Activity>, bool)> {
    let t = v.keys(keys::BACKGROUND)?;
    let n_v = t.req("users")?;
    let n = n_v.count_u32()?;
    if n == 0 || n > MAX_BACKGROUND_USERS {
        return Err(n_v.err(format!("background users must number 1 to {MAX_BACKGROUND_USERS}, not {n}")));
    }
    let drc = match t.get("drc") {
        Some(d) => parse_drc(&d)?,
        None => RawDrc { from: DrcFrom::Preset { name: keys::BACKGROUND_PRESET.into(), seed: None, vehicle: None }, at: t.at(), window_at: None },
    };
    let busy = t.opt("busy", |v| {
        let x = v.probability()?;
        if x == 0.0 {
            return Err(v.err("busy must be a share of the time above 0 (a user never busy loads nothing)"));
        }
        Ok(x)
    })?;
    let busy_period = t.opt("busy_period", |v| v.time())?;
    // Periods are looked at slot by slot: shorter ones would only cost draws.
    if busy_period.is_some_and(|p| p < crate::channel::link_rate::slot_start(1)) {
        return Err(t.get("busy_period").unwrap().err("busy_period must be at least a slot (1.667ms)"));
    }
    let activity = match busy {
        // busy = 1 is a full buffer; busy_period then has nothing to set.
        Some(b) if b < 1.0 => Some(Activity { busy: b, busy_period: busy_period.unwrap_or(DEFAULT_BUSY_PERIOD) }),
        _ => None,
    };
    Ok((n, drc, activity, t.or("upload", keys::DEFAULT_UPLOAD, |v| v.bool())?))
}

fn parse_overhead(v: &Val) -> Res<AirOverhead> {
    let t = v.keys(keys::OVERHEAD)?;
    let d = AirOverhead::default();
    let a = AirOverhead {
        ppp_bytes: t.or("ppp_bytes", d.ppp_bytes, |v| v.count_u32())?,
        escape_every: t.or("escape_every", d.escape_every, |v| v.count_u32())?,
        payload_bits_per_1024: t.or("payload_bits_per_1024", d.payload_bits_per_1024, |v| v.count_u32())?,
        control_slots: t.or("control_slots", d.control_slots, |v| v.count_u32())?,
    };
    if let Some(p) = t.get("payload_bits_per_1024") {
        if a.payload_bits_per_1024 == 0 || a.payload_bits_per_1024 > 1024 {
            return Err(p.err("payload_bits_per_1024 must lie in 1..=1024"));
        }
    }
    if let Some(c) = t.get("control_slots") {
        if a.control_slots >= 64 {
            return Err(c.err("control_slots must be below 64 (of a 256-slot cycle on one interlace)"));
        }
    }
    Ok(a)
}

fn parse_user(v: &Val) -> Res<RawUser> {
    let t = v.keys(keys::USER)?;
    let drc = match t.get("drc") {
        Some(d) => parse_drc(&d)?,
        None => return Err(t.missing_with("drc", "every user needs a channel: drc = {preset = ...}, {trace = ...} or {constant = RATE}")),
    };
    let handoff = match t.get("handoff") {
        None => RawHandoff::Never,
        Some(h) => parse_handoff(&h)?,
    };
    Ok(RawUser {
        name: Named::new(t.name("name")?),
        sector: Named::new(t.name("sector")?),
        drc,
        queue: t.or("queue", default_user_queue(), parse_queue)?,
        reverse_rate_bps: t.or("reverse_rate", REVERSE_RATE_BPS, |v| v.positive_rate())?,
        reverse_queue: t.or("reverse_queue", default_user_queue(), parse_queue)?,
        handoff,
        ppp: t.opt("ppp", crate::input::link::parse_ppp)?,
        loss: t.or("loss", keys::DEFAULT_LOSS, |v| v.probability())?,
        reverse_loss: t.or("reverse_loss", keys::DEFAULT_LOSS, |v| v.probability())?,
        rlp: t.opt("rlp", parse_rlp)?,
        uplink_capture_at_entry: t.or("uplink_capture", crate::input::link::CAPTURE[0].1, crate::input::link::parse_capture)?,
        reverse_mac: {
            let mac = t.opt("reverse_mac", parse_reverse_mac)?;
            // A reverse MAC picks its own rates and its RLP makes its losses.
            for key in ["reverse_rate", "reverse_loss"] {
                if let (Some(_), Some(k)) = (&mac, t.get(key)) {
                    return Err(k.err(format!("{key} is the constant reverse link's; with reverse_mac the Rev. 0 MAC sets the rate and its RLP the losses")));
                }
            }
            mac
        },
    })
}

fn names(v: &Val) -> Res<Vec<Named>> {
    v.array()?.iter().map(|s| Ok(Named::new((s.str()?.to_string(), s.at())))).collect()
}

/// `[{at = "20s", to = "s2"}, ...]`, `{every = "25s" | ["20s", "30s"], sectors = [...]}`
/// or `{channel = true, sectors = [...]}`.
fn parse_handoff(v: &Val) -> Res<RawHandoff> {
    if let Ok(items) = v.array() {
        let mut list: Vec<(Time, Named)> = Vec::new();
        for it in items {
            let t = it.keys(keys::HANDOFF_AT)?;
            let at_v = t.req("at")?;
            let at = at_v.time()?;
            if list.last().is_some_and(|l| at <= l.0) {
                return Err(at_v.err("hand-off times must be strictly increasing"));
            }
            list.push((at, Named::new(t.name("to")?)));
        }
        if list.is_empty() {
            return Err(v.err("the hand-off list is empty: remove it or give at least one {at, to}"));
        }
        return Ok(RawHandoff::At(list));
    }
    let t = v.keys(keys::HANDOFF)?;
    let sectors = match t.get("sectors") {
        Some(s) => {
            let n = names(&s)?;
            if n.is_empty() {
                return Err(s.err("sectors is empty"));
            }
            n
        }
        None => Vec::new(),
    };
    match (t.get("every"), t.get("channel")) {
        (Some(e), None) => {
            let (min, max) = match e.array() {
                Ok(pair) if pair.len() == 2 => (pair[0].time()?, pair[1].time()?),
                Ok(_) => return Err(e.err("every is a time or a pair [min, max] of times")),
                Err(_) => {
                    let x = e.time()?;
                    (x, x)
                }
            };
            if min == Time::ZERO || min > max {
                return Err(e.err("the time between hand-offs must be positive, and min <= max"));
            }
            Ok(RawHandoff::Every { min, max, sectors })
        }
        (None, Some(c)) => {
            if !c.bool()? {
                return Err(c.err("channel = false hands off never: remove the handoff key instead"));
            }
            Ok(RawHandoff::Channel { sectors, at: c.at() })
        }
        (Some(e), Some(_)) => Err(e.err("give every or channel, not both")),
        (None, None) => Err(v.err("a handoff table needs every = TIME or channel = true (or give a list of {at, to})")),
    }
}

/// The `[[sector]]` and `[[user]]` tables.
#[derive(Default)]
pub(crate) struct EvdoTables {
    pub sectors: Vec<RawSector>,
    pub users: Vec<RawUser>,
}

impl<H: From<LinkSpec> + From<RanConfig>> KindTables<H> for EvdoTables {
    fn tables(&self) -> &'static [&'static str] {
        &["sector", "user"]
    }

    fn keys(&self) -> &'static [crate::input::keys::Described] {
        keys::TABLES
    }

    fn parse(&mut self, table: &str, v: &Val) -> Res<()> {
        match table {
            "sector" => self.sectors.push(parse_sector(v)?),
            _ => self.users.push(parse_user(v)?),
        }
        Ok(())
    }

    /// Group the sectors by base-station node into radio access networks,
    /// make each user's node and its reverse link (`USER.up`, to the base
    /// station), resolve every name, and add the networks as hops.
    fn resolve(&self, cx: &mut Resolver<H>) -> Result<(), ScenarioError> {
        if self.sectors.is_empty() {
            if let Some(u) = self.users.first() {
                return Err(cx.err(&u.sector.at, format!("no sector named '{}': add a [[sector]] table", u.sector.name)));
            }
            return Ok(());
        }
        let file = cx.file.clone();
        let mut sector_names = Names::new("sector");
        let mut rans: Vec<RanConfig> = Vec::new();
        // (ran, index in it) of every sector, in file order.
        let mut place = Vec::new();
        for (i, s) in self.sectors.iter().enumerate() {
            sector_names.add(&file, &s.name, i)?;
            let node = cx.node(&s.node)?;
            let r = match rans.iter().position(|r| r.node == node) {
                Some(r) => {
                    if rans[r].delay != s.delay {
                        return Err(cx.err(&s.delay_at, format!(
                            "the sectors of node '{}' must have one delay (this one differs from an earlier sector's)",
                            s.node.name
                        )));
                    }
                    r
                }
                None => {
                    rans.push(RanConfig {
                        node,
                        delay: s.delay,
                        air: s.air,
                        sectors: Vec::new(),
                        users: Vec::new(),
                        background: Vec::new(),
                    });
                    rans.len() - 1
                }
            };
            place.push((r, rans[r].sectors.len()));
            rans[r].sectors.push(SectorConfig {
                name: s.name.name.clone(),
                scheduler: s.scheduler.clone(),
                pf: s.pf.clone(),
                interlace: s.interlace,
                handoff_pf: s.handoff_pf,
                handoff_queue: s.handoff_queue,
                rab: s.rab,
            });
        }
        let mut user_names = Names::new("user");
        for (k, u) in self.users.iter().enumerate() {
            user_names.add(&file, &u.name, k)?;
            let (r, sector) = place[sector_names.get(&file, &u.sector)?];
            let ran_node = rans[r].node;
            // The other sectors a hand-off may name must be those of this base station.
            let local = |n: &Named| -> Result<usize, ScenarioError> {
                let (r2, s) = place[sector_names.get(&file, n)?];
                if r2 != r {
                    return Err(cx.err(&n.at, format!(
                        "sector '{}' belongs to node '{}', not to '{}' where '{}' starts: hand-offs stay within one base station",
                        n.name,
                        cx.node_name(rans[r2].node),
                        cx.node_name(ran_node),
                        u.name.name
                    )));
                }
                Ok(s)
            };
            let list = |names: &[Named]| -> Result<Vec<usize>, ScenarioError> {
                if names.is_empty() {
                    Ok((0..rans[r].sectors.len()).collect())
                } else {
                    names.iter().map(local).collect()
                }
            };
            let handoff = match &u.handoff {
                RawHandoff::Never => HandoffPlan::Never,
                RawHandoff::At(items) => {
                    let mut out = Vec::new();
                    for (at, to) in items {
                        if *at >= cx.duration {
                            return Err(cx.err(&to.at, format!("a hand-off at {} s, at or after the end of the run", secs(*at))));
                        }
                        out.push((*at, local(to)?));
                    }
                    HandoffPlan::At(out)
                }
                RawHandoff::Every { min, max, sectors } => HandoffPlan::Every { min: *min, max: *max, sectors: list(sectors)? },
                RawHandoff::Channel { sectors, at } => {
                    let mobile = matches!(&u.drc.from, DrcFrom::Preset { name, .. } if name == "mobile");
                    let traced = matches!(&u.drc.from, DrcFrom::Trace { .. });
                    if !mobile && !traced {
                        return Err(cx.err(at, "channel hand-offs come from the channel: only the mobile preset and recorded traces have them"));
                    }
                    HandoffPlan::Channel { sectors: list(sectors)? }
                }
            };
            let drc = drc::resolve(&u.drc, &file, Some(k as u64)).map_err(|(at, m)| cx.err(&at, m))?;
            let (node, reverse) = match u.reverse_mac {
                Some(mac) => {
                    let node = cx.add_terminal_node("user", &u.name)?;
                    (node, Some(UplinkConfig { mac, queue: u.reverse_queue.clone(), capture_at_entry: u.uplink_capture_at_entry }))
                }
                None => {
                    let up = LinkSpec {
                        rate_bps: u.reverse_rate_bps,
                        delay: rans[r].delay,
                        queue: u.reverse_queue.clone(),
                        loss: u.reverse_loss,
                        ppp: u.ppp,
                        capture_at_entry: u.uplink_capture_at_entry,
                        ..Default::default()
                    };
                    (cx.add_terminal("user", &u.name, ran_node, up)?, None)
                }
            };
            rans[r].users.push(UserConfig {
                name: u.name.name.clone(),
                node,
                sector,
                drc,
                queue: u.queue.clone(),
                handoff,
                ppp: u.ppp,
                loss: u.loss,
                rlp: u.rlp,
                reverse,
            });
        }
        // Background users, numbered after the users for their channels' seeds.
        let mut k = self.users.len();
        for (s, (r, local)) in self.sectors.iter().zip(&place) {
            let Some((n, raw, activity, upload)) = &s.background else { continue };
            for j in 1..=*n {
                let drc = drc::resolve(raw, &file, Some(k as u64)).map_err(|(at, m)| cx.err(&at, m))?;
                k += 1;
                let name = format!("{}.bg{j}", s.name.name);
                rans[*r].background.push(BackgroundUser { name, sector: *local, drc, activity: *activity, upload: *upload });
            }
        }
        if let Some(ran) = rans.iter().find(|r| r.background.iter().any(|b| b.upload) && r.users.iter().all(|u| u.reverse.is_none())) {
            let s = self.sectors.iter().find(|s| cx.nodes.find(&s.node.name) == Some(ran.node.index())).expect("a RAN has a sector");
            return Err(cx.err(&s.name.at, format!(
                "background upload loads the reverse link, which only a [[user]] with reverse_mac sees: none of node '{}' has one",
                s.node.name
            )));
        }
        if let Some(ran) = rans.iter().find(|r| r.users.is_empty()) {
            let s = self.sectors.iter().find(|s| cx.nodes.find(&s.node.name) == Some(ran.node.index())).expect("a RAN has a sector");
            return Err(cx.err(&s.name.at, format!("the sectors of node '{}' serve no user: add a [[user]] with sector = '{}'", s.node.name, s.name.name)));
        }
        cx.hops.extend(rans.into_iter().map(H::from));
        Ok(())
    }
}
