//! Dziong et al.'s multi-user system (seed 004, §4, §5.2) from a few lines:
//! a web server `server` behind the Internet (D_hi) and the PDSN `pdsn`,
//! whose IS-2000 sector `sector` serves `users` mobiles `u1`..`uN`, each
//! browsing (`web1`..`webN`, kind "http", Table 2's workload) over an RLP3
//! air link (D, frame errors) with the MAC granting SCHs within the power
//! and Walsh codes.

use super::super::raw::{Named, RawFlow, RawLink, RawScenario};
use super::super::reader::{Res, Table, Val};
use super::super::spec::{AppSpec, CcAlgo, QueueLimit, QueueSpec, TcpSpec};
use super::super::tcp::parse_tcp_over;
use super::super::web::{parse_http, HTTP_KEYS};
use crate::cdma2000::config::BASE_RATE_BPS;
use crate::engine::{NS_PER_MS, NS_PER_SEC};
use crate::is2000::config::{Is2000Config, Is2000User, MacConfig};
use crate::is2000::dormancy::DormancyConfig;
use crate::is2000::radio::RadioConfig;
use crate::rlp::frame_errors::ErrorModel;
use crate::rlp::link::{ChannelConfig, RadioLinkConfig, RlpConfig, FRAME};

const KEYS: &[&str] = &[
    "users", "fer", "fading", "speed_kmh", "delay", "internet_delay", "rlp", "web", "tcp", "mac", "power", "dormancy",
    "start_jitter",
];

/// Most users of one sector (64 Walsh codes bound those holding a channel
/// at once; many more may be dormant).
const MAX_USERS: u64 = 1_000;

/// The sector before its nodes are resolved.
#[derive(Clone, Debug)]
pub(crate) struct RawIs2000 {
    pub node: Named,
    pub users: Vec<Named>,
    pub cfg: Is2000Config,
}

fn fraction(t: &Table, key: &str, default: f64) -> Res<f64> {
    t.or(key, default, |v| v.probability())
}

fn parse_mac(v: &Val) -> Res<MacConfig> {
    let t = v.table(&["threshold", "grant_delay", "burst", "max_sch"])?;
    let d = MacConfig::default();
    let max_v = t.get("max_sch");
    let max_sch_bps = match &max_v {
        Some(m) => super::super::cell::parse_sch_rate(m)?,
        None => d.max_sch_bps,
    };
    let burst = t.or("burst", d.burst, |v| v.time())?;
    if burst == 0 {
        return Err(t.get("burst").unwrap().err("burst must be positive"));
    }
    Ok(MacConfig {
        threshold_bytes: t.or("threshold", d.threshold_bytes, |v| v.size())?,
        grant_delay: t.or("grant_delay", d.grant_delay, |v| v.time())?,
        burst,
        max_sch_bps,
    })
}

fn parse_power(v: &Val) -> Res<RadioConfig> {
    let t = v.table(&["p_edge", "p_min", "exponent", "overhead", "codes", "reserved_codes"])?;
    let d = RadioConfig::default();
    let exponent = t.or("exponent", d.exponent, |v| v.number())?;
    if !(0.0..=10.0).contains(&exponent) {
        return Err(t.get("exponent").unwrap().err("exponent must be between 0 and 10"));
    }
    let codes = t.or("codes", d.codes, |v| v.count_u32())?;
    let reserved_codes = t.or("reserved_codes", d.reserved_codes, |v| v.count_u32())?;
    if codes > 256 || reserved_codes >= codes {
        let bad = t.get("reserved_codes").or(t.get("codes")).unwrap();
        return Err(bad.err("codes must be at most 256 and more than reserved_codes"));
    }
    Ok(RadioConfig {
        p_edge: fraction(&t, "p_edge", d.p_edge)?,
        p_min: fraction(&t, "p_min", d.p_min)?,
        exponent,
        overhead: fraction(&t, "overhead", d.overhead)?,
        codes,
        reserved_codes,
    })
}

fn parse_dormancy(v: &Val) -> Res<DormancyConfig> {
    let keys = ["to_control_hold", "to_suspended", "to_dormant", "from_control_hold", "from_suspended", "from_dormant"];
    let t = v.table(&keys)?;
    let d = DormancyConfig::default();
    let c = DormancyConfig {
        to_control_hold: t.or(keys[0], d.to_control_hold, |v| v.time())?,
        to_suspended: t.or(keys[1], d.to_suspended, |v| v.time())?,
        to_dormant: t.or(keys[2], d.to_dormant, |v| v.time())?,
        from_control_hold: t.or(keys[3], d.from_control_hold, |v| v.time())?,
        from_suspended: t.or(keys[4], d.from_suspended, |v| v.time())?,
        from_dormant: t.or(keys[5], d.from_dormant, |v| v.time())?,
    };
    if !(c.to_control_hold <= c.to_suspended && c.to_suspended <= c.to_dormant) {
        return Err(v.err("the idle times must grow: to_control_hold <= to_suspended <= to_dormant"));
    }
    Ok(c)
}

pub(crate) fn expand(v: &Val, raw: &mut RawScenario) -> Res<()> {
    let t = v.table(KEYS)?;
    let users_v = t.req("users")?;
    let n = users_v.count()?;
    if n == 0 || n > MAX_USERS {
        return Err(users_v.err(format!("users must be between 1 and {MAX_USERS}")));
    }
    let delay = t.or("delay", 100 * NS_PER_MS, |v| v.time())?;
    if delay < FRAME {
        return Err(t.get("delay").unwrap().err("delay must be at least one 20 ms frame"));
    }
    let internet_delay = t.or("internet_delay", 80 * NS_PER_MS, |v| v.time())?;
    let fer = t.or("fer", 0.01, |v| v.probability())?;
    // §4.2: pedestrians at 3 km/h in single-path Rayleigh fading.
    let errors = match t.get("fading") {
        Some(f) if f.str()? == "iid" => ErrorModel::Iid,
        Some(f) if f.str()? != "rayleigh" => {
            return Err(f.err(format!("unknown fading '{}' (expected \"iid\" or \"rayleigh\")", f.str()?)))
        }
        _ => {
            let kmh = t.or("speed_kmh", 3.0, |v| v.number())?;
            if kmh <= 0.0 {
                return Err(t.get("speed_kmh").unwrap().err("speed_kmh must be positive"));
            }
            ErrorModel::Rayleigh { speed_mps: kmh / 3.6, carrier_hz: 1.9e9 }
        }
    };
    let rlp = match t.get("rlp") {
        Some(r) => super::super::radio_link::parse_rlp(&r)?,
        None => RlpConfig::default(),
    };
    let http = match t.get("web") {
        Some(w) => parse_http(&w.table(HTTP_KEYS)?)?,
        None => Default::default(),
    };
    // Table 1's TCP, as for a kind = "http" flow.
    let default_tcp = TcpSpec { cc: CcAlgo::Reno, mss: 576, rcv_buffer: 32 * 1024, ..TcpSpec::default() };
    let tcp = t.or("tcp", default_tcp.clone(), |v| parse_tcp_over(v, &default_tcp))?;
    let mac = t.or("mac", MacConfig::default(), parse_mac)?;
    let radio = t.or("power", RadioConfig::default(), parse_power)?;
    let dormancy = t.or("dormancy", DormancyConfig::default(), parse_dormancy)?;
    // Users start reading at uniform times over a mean think time.
    let jitter = t.or("start_jitter", 30 * NS_PER_SEC, |v| v.time())?;

    let at = t.at();
    let named = |s: &str| Named { name: s.into(), at: at.clone() };
    raw.nodes.push(named("server"));
    raw.nodes.push(named("pdsn"));
    let unlimited = QueueSpec::DropTail { limit: QueueLimit::Unlimited };
    raw.links.push(RawLink {
        name: named("internet"),
        from: named("server"),
        to: named("pdsn"),
        rate_bps: 100_000_000,
        reverse_rate_bps: 100_000_000,
        delay: internet_delay,
        duplex: true,
        queue: unlimited.clone(),
        reverse_queue: unlimited,
        loss: 0.0,
        reverse_loss: 0.0,
        rate_schedule: Vec::new(),
        rate_period: None,
        drc: None,
    });
    let mut users = Vec::new();
    for k in 1..=n {
        let u = format!("u{k}");
        raw.nodes.push(named(&u));
        users.push(named(&u));
        raw.flows.push(RawFlow {
            name: named(&format!("web{k}")),
            from: named("server"),
            to: named(&u),
            start: 0,
            start_jitter: jitter,
            start_at: at.clone(),
            stop: None,
            app: AppSpec::Http { http: http.clone(), tcp: tcp.clone() },
        });
    }
    let fch = ChannelConfig { rate_bps: BASE_RATE_BPS, fer };
    raw.is2000.push(RawIs2000 {
        node: named("pdsn"),
        users,
        cfg: Is2000Config {
            name: "sector".into(),
            node: 0,
            users: Vec::new(),
            link: RadioLinkConfig { name: String::new(), bsc: 0, mobile: 0, down: fch.clone(), up: fch, delay, errors, rlp },
            mac,
            radio,
            dormancy,
        },
    });
    Ok(())
}

/// Node names → indices.
pub(crate) fn resolve(
    raw: &RawScenario,
    file: &str,
    nodes: &super::super::resolve::Names,
) -> Result<Vec<Is2000Config>, super::super::error::ScenarioError> {
    raw.is2000
        .iter()
        .map(|r| {
            let users = r
                .users
                .iter()
                .map(|u| Ok(Is2000User { name: u.name.clone(), node: nodes.get(file, u)? }))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Is2000Config { node: nodes.get(file, &r.node)?, users, ..r.cfg.clone() })
        })
        .collect()
}
