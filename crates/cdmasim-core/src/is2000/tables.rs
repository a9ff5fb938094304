//! `[[is2000_sector]]` tables: an IS-2000 sector (Dziong et al., §2, §3.4,
//! §5.2) serving nodes named in `users`, each over an RLP3 air link whose
//! rates the sector's MAC sets (FCH, SCH grants within the power and Walsh
//! codes), with the MAC states' dormancy. One hop; ports 2k and 2k + 1 are
//! user k's forward and reverse links. The `is2000` preset fills one in
//! with Dziong et al.'s system around it.

use crate::engine::Time;
use crate::net::NodeId;
use super::keys;
use crate::input::error::ScenarioError;
use crate::input::kind::{KindTables, Names, Resolver};
use crate::input::reader::Named;
use crate::input::reader::{Res, Table, Val};
use crate::cdma2000::config::BASE_RATE_BPS;
use crate::is2000::config::{Is2000Config, Is2000User, MacConfig};
use crate::is2000::dormancy::DormancyConfig;
use crate::is2000::power::{DistanceLaw, LinkBudget, PowerConfig};
use crate::is2000::radio::RadioConfig;
use crate::rlp::frame_errors::ErrorModel;
use crate::net::link::LinkSpec;
use crate::rlp::link::{ChannelConfig, RadioLinkConfig, RlpConfig, FRAME};


/// The sector before its nodes are resolved.
#[derive(Clone, Debug)]
pub(crate) struct RawIs2000 {
    pub name: Named,
    pub node: Named,
    pub users: Vec<Named>,
    pub cfg: Is2000Config,
}

fn fraction(t: &Table, key: &str, default: f64) -> Res<f64> {
    t.or(key, default, |v| v.probability())
}

fn parse_mac(v: &Val) -> Res<MacConfig> {
    let t = v.keys(keys::MAC)?;
    let d = MacConfig::default();
    let max_v = t.get("max_sch");
    let max_sch_bps = match &max_v {
        Some(m) => crate::cdma2000::tables::parse_sch_rate(m)?,
        None => d.max_sch_bps,
    };
    let burst = t.or("burst", d.burst, |v| v.time())?;
    if burst == Time::ZERO {
        return Err(t.get("burst").unwrap().err("burst must be positive"));
    }
    Ok(MacConfig {
        threshold_bytes: t.or("threshold", d.threshold_bytes, |v| v.size())?,
        grant_delay: t.or("grant_delay", d.grant_delay, |v| v.time())?,
        burst,
        max_sch_bps,
        after_denial: t.or("after_denial", d.after_denial, |v| v.one_of(keys::AFTER_DENIAL))?,
    })
}

/// `power = { model = "link_budget" | "distance", ..., codes, reserved_codes }`;
/// without `model`, the distance law's keys choose it and the link budget
/// is the default.
fn parse_power(v: &Val) -> Res<RadioConfig> {
    let t = v.keys_of(&[keys::POWER, keys::DISTANCE, keys::LINK_BUDGET])?;
    let d = RadioConfig::default();
    let distance = match t.get("model") {
        Some(m) => m.one_of(keys::MODEL)?,
        None => keys::DISTANCE.iter().any(|k| t.get(k.name).is_some()) || keys::MODEL[0].1,
    };
    let (theirs, model) = if distance { (keys::LINK_BUDGET, "distance") } else { (keys::DISTANCE, "link_budget") };
    if let Some((k, bad)) = theirs.iter().find_map(|k| t.get(k.name).map(|b| (k.name, b))) {
        return Err(bad.err(format!("{k} is not a key of the {model} power model")));
    }
    let power = if distance { PowerConfig::Distance(parse_distance_law(&t)?) } else { PowerConfig::LinkBudget(parse_link_budget(&t)?) };
    let codes = t.or("codes", d.codes, |v| v.count_u32())?;
    let reserved_codes = t.or("reserved_codes", d.reserved_codes, |v| v.count_u32())?;
    if codes > 256 || reserved_codes >= codes {
        let bad = t.get("reserved_codes").or(t.get("codes")).unwrap();
        return Err(bad.err("codes must be at most 256 and more than reserved_codes"));
    }
    Ok(RadioConfig { power, codes, reserved_codes })
}

fn parse_distance_law(t: &Table) -> Res<DistanceLaw> {
    let d = DistanceLaw::default();
    let exponent = within(t, "exponent", d.exponent, 0.0, 10.0)?;
    let law = DistanceLaw {
        p_edge: fraction(t, "p_edge", d.p_edge)?,
        p_min: fraction(t, "p_min", d.p_min)?,
        exponent,
        overhead: fraction(t, "overhead", d.overhead)?,
    };
    if law.p_min <= 0.0 {
        return Err(t.get("p_min").unwrap().err("p_min must be positive (a channel costs some power everywhere)"));
    }
    if law.overhead >= 1.0 {
        return Err(t.get("overhead").unwrap().err("overhead must be below 1 (pilot, sync and paging would take all the power)"));
    }
    Ok(law)
}

/// A number within [lo, hi].
fn within(t: &Table, key: &str, default: f64, lo: f64, hi: f64) -> Res<f64> {
    let x = t.or(key, default, |v| v.number())?;
    if !(lo..=hi).contains(&x) {
        return Err(t.get(key).unwrap().err(format!("{key} must be between {lo} and {hi}")));
    }
    Ok(x)
}

fn parse_link_budget(t: &Table) -> Res<LinkBudget> {
    let d = LinkBudget::default();
    let ebnt_db = match t.get("ebnt_db") {
        None => d.ebnt_db,
        Some(v) => {
            let xs = v.array()?.iter().map(|x| x.number()).collect::<Res<Vec<f64>>>()?;
            match <[f64; 5]>::try_from(xs) {
                Ok(a) if a.iter().all(|x| (-10.0..=30.0).contains(x)) => a,
                _ => return Err(v.err("ebnt_db must be five values in dB (-10 to 30), for 1X (and the FCH), 2X, 4X, 8X, 16X")),
            }
        }
    };
    let other_cell = match t.get("other_cell") {
        Some(_) => Some(within(t, "other_cell", 0.0, 0.0, 10.0)?),
        None => None,
    };
    let c = LinkBudget {
        site_distance_m: within(t, "site_distance_m", d.site_distance_m, 100.0, 100_000.0)?,
        path_loss_db: within(t, "path_loss_db", d.path_loss_db, 0.0, 300.0)?,
        path_loss_slope_db: within(t, "path_loss_slope_db", d.path_loss_slope_db, 0.0, 100.0)?,
        min_distance_m: within(t, "min_distance_m", d.min_distance_m, 1.0, 1_000.0)?,
        shadowing_db: within(t, "shadowing_db", d.shadowing_db, 0.0, 30.0)?,
        shadowing_correlation: within(t, "shadowing_correlation", d.shadowing_correlation, 0.0, 1.0)?,
        max_power_dbm: within(t, "max_power_dbm", d.max_power_dbm, -50.0, 100.0)?,
        antenna_gain_db: within(t, "antenna_gain_db", d.antenna_gain_db, -50.0, 50.0)?,
        noise_figure_db: within(t, "noise_figure_db", d.noise_figure_db, 0.0, 30.0)?,
        orthogonality_loss: within(t, "orthogonality_loss", d.orthogonality_loss, 0.0, 1.0)?,
        other_cell,
        ebnt_db,
        ebnt_offset_db: within(t, "ebnt_offset_db", d.ebnt_offset_db, -20.0, 20.0)?,
        pilot_db: within(t, "pilot_db", d.pilot_db, -60.0, 0.0)?,
        sync_db: within(t, "sync_db", d.sync_db, -60.0, 0.0)?,
        paging_db: within(t, "paging_db", d.paging_db, -60.0, 0.0)?,
    };
    if c.min_distance_m >= c.site_distance_m / 2.0 {
        let bad = t.get("min_distance_m").or(t.get("site_distance_m")).unwrap();
        return Err(bad.err("min_distance_m must be below half of site_distance_m"));
    }
    if c.overhead() >= 1.0 {
        return Err(t.get("pilot_db").or(t.get("paging_db")).or(t.get("sync_db")).unwrap().err("pilot, sync and paging together take all the power"));
    }
    Ok(c)
}

fn parse_dormancy(v: &Val) -> Res<DormancyConfig> {
    let t = v.keys(keys::DORMANCY)?;
    let d = DormancyConfig::default();
    let c = DormancyConfig {
        to_control_hold: t.or("to_control_hold", d.to_control_hold, |v| v.time())?,
        to_suspended: t.or("to_suspended", d.to_suspended, |v| v.time())?,
        to_dormant: t.or("to_dormant", d.to_dormant, |v| v.time())?,
        from_control_hold: t.or("from_control_hold", d.from_control_hold, |v| v.time())?,
        from_suspended: t.or("from_suspended", d.from_suspended, |v| v.time())?,
        from_dormant: t.or("from_dormant", d.from_dormant, |v| v.time())?,
    };
    if !(c.to_control_hold <= c.to_suspended && c.to_suspended <= c.to_dormant) {
        return Err(v.err("the idle times must grow: to_control_hold <= to_suspended <= to_dormant"));
    }
    Ok(c)
}

/// The sector's settings (`keys::SETTINGS`) from `t`, with Dziong et al.'s defaults:
/// 1 % frame errors in single-path Rayleigh fading at 3 km/h (§4.2), a
/// one-way air delay D of 100 ms, Table 1's RLP3, and our MAC, power and
/// dormancy assumptions (docs/scenario.md).
pub(crate) fn settings(t: &Table, name: &str) -> Res<Is2000Config> {
    let delay = t.or("delay", keys::DEFAULT_DELAY, |v| v.time())?;
    if delay < FRAME {
        return Err(t.get("delay").unwrap().err("delay must be at least one 20 ms frame"));
    }
    let fer = t.or("fer", keys::DEFAULT_FER, |v| v.probability())?;
    let rayleigh = t.or("fading", keys::FADING[0].1, |f| f.one_of(keys::FADING))?;
    let errors = match rayleigh {
        false => ErrorModel::Iid,
        true => {
            let kmh = t.or("speed_kmh", keys::DEFAULT_SPEED_KMH, |v| v.number())?;
            if kmh <= 0.0 {
                return Err(t.get("speed_kmh").unwrap().err("speed_kmh must be positive"));
            }
            ErrorModel::Rayleigh { speed_mps: kmh / 3.6, carrier_hz: 1.9e9 }
        }
    };
    let rlp = match t.get("rlp") {
        Some(r) => crate::rlp::tables::parse_rlp(&r)?,
        None => RlpConfig::default(),
    };
    let fch = ChannelConfig { rate_bps: BASE_RATE_BPS, fer };
    Ok(Is2000Config {
        name: name.into(),
        node: NodeId(0),
        users: Vec::new(),
        link: RadioLinkConfig { name: String::new(), bsc: NodeId(0), mobile: NodeId(0), down: fch.clone(), up: fch, delay, errors, rlp, queue: None },
        mac: t.or("mac", MacConfig::default(), parse_mac)?,
        radio: t.or("power", RadioConfig::default(), parse_power)?,
        dormancy: t.or("dormancy", DormancyConfig::default(), parse_dormancy)?,
    })
}

fn parse_sector(v: &Val) -> Res<RawIs2000> {
    let t = v.keys_of(&[keys::SECTOR_OWN, keys::SETTINGS])?;
    let name = Named::new(t.name("name")?);
    let users_v = t.req("users")?;
    let users: Vec<Named> = users_v.array()?.iter().map(|u| Ok(Named::new((u.str()?.to_string(), u.at())))).collect::<Res<_>>()?;
    if users.is_empty() {
        return Err(users_v.err("users is empty: name the nodes the sector serves"));
    }
    let cfg = settings(&t, &name.name)?;
    Ok(RawIs2000 { name, node: Named::new(t.name("node")?), users, cfg })
}

/// The `[[is2000_sector]]` tables (and the one the `is2000` preset adds).
#[derive(Default)]
pub(crate) struct Is2000Tables {
    pub sectors: Vec<RawIs2000>,
}

impl<H: From<LinkSpec> + From<Is2000Config>> KindTables<H> for Is2000Tables {
    fn tables(&self) -> &'static [&'static str] {
        &["is2000_sector"]
    }

    fn keys(&self) -> &'static [crate::input::keys::Described] {
        keys::TABLES
    }

    fn parse(&mut self, _table: &str, v: &Val) -> Res<()> {
        self.sectors.push(parse_sector(v)?);
        Ok(())
    }

    /// Node names → indices; a node is served by one sector at most.
    fn resolve(&self, cx: &mut Resolver<H>) -> Result<(), ScenarioError> {
        let mut names = Names::new("IS-2000 sector");
        let mut served = Names::new("IS-2000 user");
        for (i, r) in self.sectors.iter().enumerate() {
            names.add(&cx.file, &r.name, i)?;
            let node = cx.node(&r.node)?;
            let mut users = Vec::new();
            for u in &r.users {
                let n = cx.node(u)?;
                if n == node {
                    return Err(cx.err(&u.at, format!("'{}' is the sector's own node, not a user", u.name)));
                }
                served.add(&cx.file, u, n.index())?;
                users.push(Is2000User { name: u.name.clone(), node: n });
            }
            cx.hops.push(H::from(Is2000Config { node, users, ..r.cfg.clone() }));
        }
        Ok(())
    }
}
