//! `[[radio_link]]` tables → [`RadioLinkConfig`]: an IS-2000 air link with
//! RLP3 between a network-side node and a mobile (Dziong et al., Table 1), one
//! hop with both directions.

use crate::net::NodeId;
use crate::input::error::ScenarioError;
use crate::input::kind::{KindTables, Names, Resolver};
use crate::input::queue::parse_queue;
use crate::input::reader::Named;
use crate::input::reader::{Res, Val};
use crate::engine::Time;
use crate::rlp::keys::{self, CONTROL, DEFAULT_CARRIER_MHZ, DEFAULT_DELAY, DEFAULT_FER, DEFAULT_SPEED_KMH, FADING};
use crate::rlp::frame_errors::ErrorModel;
use crate::net::link::LinkSpec;
use crate::rlp::link::{ChannelConfig, RadioLinkConfig, RlpConfig, FRAME};

/// Most NAK rounds and NAKs per round (RLP3 has three rounds of at most three).
const MAX_ROUNDS: usize = 8;
const MAX_NAKS: u32 = 8;

#[derive(Clone, Debug)]
pub(crate) struct RawRadioLink {
    pub name: Named,
    pub bsc: Named,
    pub mobile: Named,
    /// The config with node indices still to fill in.
    pub cfg: RadioLinkConfig,
}

pub(crate) fn parse_rlp(v: &Val) -> Res<RlpConfig> {
    let t = v.keys(keys::RLP)?;
    let mut c = RlpConfig::default();
    if let Some(n) = t.get("naks") {
        let items = n.array()?;
        if items.len() > MAX_ROUNDS {
            return Err(n.err(format!("at most {MAX_ROUNDS} NAK rounds")));
        }
        c.naks = items.iter().map(|x| x.count_u32()).collect::<Res<_>>()?;
        if let Some((i, _)) = c.naks.iter().enumerate().find(|(_, &k)| k == 0 || k > MAX_NAKS) {
            return Err(items[i].err(format!("NAKs per round must be between 1 and {MAX_NAKS}")));
        }
    }
    c.guard = t.or("guard", c.guard, |v| v.time())?;
    c.control = t.or("control", c.control, |v| v.one_of(CONTROL))?;
    Ok(c)
}

fn positive(v: &Val, what: &str) -> Res<f64> {
    let x = v.number()?;
    if x <= 0.0 {
        return Err(v.err(format!("{what} must be positive")));
    }
    Ok(x)
}

fn parse_radio_link(v: &Val) -> Res<RawRadioLink> {
    let t = v.keys(keys::RADIO_LINK)?;
    let down = t.req("rate_down")?.positive_rate()?;
    let up = t.or("rate_up", down, |v| v.positive_rate())?;
    // A frame carries rate × 20 ms / 8 bytes: below 400 bit/s, none.
    for (key, rate) in [("rate_down", down), ("rate_up", up)] {
        if rate * FRAME.0 / 8_000_000_000 == 0 {
            let v = t.get(key).unwrap_or_else(|| t.req("rate_down").expect("given"));
            return Err(v.err(format!("{key} must carry at least a byte per 20 ms frame (400 bps or more)")));
        }
    }
    let delay_v = t.get("delay");
    let delay: Time = t.or("delay", DEFAULT_DELAY, |v| v.time())?;
    if delay < FRAME {
        return Err(delay_v.expect("given").err("delay must be at least one 20 ms frame"));
    }
    let fer = t.or("fer", DEFAULT_FER, |v| v.probability())?;
    let fer_down = t.or("fer_down", fer, |v| v.probability())?;
    let fer_up = t.or("fer_up", fer, |v| v.probability())?;
    let fading_v = t.get("fading");
    let errors = match fading_v.as_ref().map(|f| f.str()).transpose()?.unwrap_or(FADING[0]) {
        "iid" => ErrorModel::Iid,
        "rayleigh" => {
            let speed_kmh = t.get("speed_kmh").map_or(Ok(DEFAULT_SPEED_KMH), |v| positive(&v, "speed_kmh"))?;
            let carrier_mhz = t.get("carrier_mhz").map_or(Ok(DEFAULT_CARRIER_MHZ), |v| positive(&v, "carrier_mhz"))?;
            ErrorModel::Rayleigh { speed_mps: speed_kmh / 3.6, carrier_hz: carrier_mhz * 1e6 }
        }
        other => {
            let names: Vec<String> = FADING.iter().map(|f| format!("\"{f}\"")).collect();
            return Err(fading_v.expect("named").err(format!("unknown fading '{other}' (expected {})", names.join(" or "))));
        }
    };
    if !matches!(errors, ErrorModel::Rayleigh { .. }) {
        if let Some(k) = ["speed_kmh", "carrier_mhz"].iter().find_map(|k| t.get(k)) {
            return Err(k.err("speed_kmh and carrier_mhz apply to fading = \"rayleigh\""));
        }
    }
    let rlp = t.or("rlp", RlpConfig::default(), parse_rlp)?;
    // The network side's per-mobile buffer (forward link only); absent:
    // RLP's new-data buffer takes every packet, as Dziong et al. model it.
    let queue = t.get("queue").map(|q| parse_queue(&q)).transpose()?;
    Ok(RawRadioLink {
        name: Named::new(t.name("name")?),
        bsc: Named::new(t.name("bsc")?),
        mobile: Named::new(t.name("mobile")?),
        cfg: RadioLinkConfig {
            name: String::new(),
            bsc: NodeId(0),
            mobile: NodeId(0),
            down: ChannelConfig { rate_bps: down, fer: fer_down },
            up: ChannelConfig { rate_bps: up, fer: fer_up },
            delay,
            errors,
            rlp,
            queue,
        },
    })
}

/// The `[[radio_link]]` tables.
#[derive(Default)]
pub(crate) struct RadioLinkTables {
    pub links: Vec<RawRadioLink>,
}

impl<H: From<LinkSpec> + From<RadioLinkConfig>> KindTables<H> for RadioLinkTables {
    fn tables(&self) -> &'static [&'static str] {
        &["radio_link"]
    }

    fn keys(&self) -> &'static [crate::input::keys::Described] {
        keys::TABLES
    }

    fn parse(&mut self, _table: &str, v: &Val) -> Res<()> {
        self.links.push(parse_radio_link(v)?);
        Ok(())
    }

    fn resolve(&self, cx: &mut Resolver<H>) -> Result<(), ScenarioError> {
        let mut names = Names::new("radio link");
        for (i, r) in self.links.iter().enumerate() {
            names.add(&cx.file, &r.name, i)?;
            // Its buffer reports in the queues table and the queue_pkts
            // series under the link's own name, as a [[link]] does.
            if r.cfg.queue.is_some() && cx.link(&r.name.name).is_some() {
                return Err(cx.err(&r.name.at, format!("a [[link]] is named '{}' too: a radio link with a queue reports it under its own name", r.name.name)));
            }
            let bsc = cx.node(&r.bsc)?;
            let mobile = cx.node(&r.mobile)?;
            if bsc == mobile {
                return Err(cx.err(&r.mobile.at, "a radio link joins two different nodes"));
            }
            cx.hops.push(H::from(RadioLinkConfig { name: r.name.name.clone(), bsc, mobile, ..r.cfg.clone() }));
        }
        Ok(())
    }
}
