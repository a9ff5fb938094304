//! Dziong et al.'s multi-user system (§4, §5.2) from a few lines:
//! a web server `server` behind the Internet (D_hi) and the PDSN `pdsn`,
//! whose IS-2000 sector `sector` serves `users` mobiles `u1`..`uN`, each
//! browsing (`web1`..`webN`, kind "http", Table 2's workload) over an RLP3
//! air link (D, frame errors) with the MAC granting SCHs within the power
//! and Walsh codes.

use crate::is2000::keys::SETTINGS;
use crate::is2000::tables::{settings, RawIs2000};
use crate::input::keys::{self, Key};
use super::super::flow;
use crate::input::link::RawLink;
use super::super::raw::{RawFlow, RawScenario};
use crate::input::reader::Named;
use crate::input::reader::{Res, Val};
use super::super::spec::{AppSpec, QueueLimit, QueueSpec};
use super::super::tcp::parse_tcp_over;
use super::super::web::{self, parse_http};
use crate::engine::Time;

/// D_hi (Table 1), and the spread of the users' starts over a mean think time.
const INTERNET_DELAY: Time = Time::from_millis(80);
const START_JITTER: Time = Time::from_secs(30);

/// The preset's own keys; the sector's (`is2000::keys::SETTINGS`) go to its `[[is2000_sector]]`.
pub(crate) const KEYS: &[Key] = &[
    Key::required("users", "Mobiles, 1 to 1000."),
    Key::value("internet_delay", || keys::time(INTERNET_DELAY), "D_hi (Dziong et al. Table 1)."),
    Key::absent("web", "Table 2", "The keys of a `kind = \"http\"` flow's browser (`parallel`, `persistent`, `pages`, the four laws)."),
    flow::HTTP_TCP_KEY,
    Key::value("start_jitter", || keys::time(START_JITTER), "Users start at uniform times in [0, start_jitter)."),
];

/// Most users of one sector (64 Walsh codes bound those holding a channel
/// at once; many more may be dormant).
const MAX_USERS: u64 = 1_000;

pub(crate) fn expand(v: &Val, raw: &mut RawScenario) -> Res<()> {
    let t = v.keys_of(&[KEYS, SETTINGS])?;
    let users_v = t.req("users")?;
    let n = users_v.count()?;
    if n == 0 || n > MAX_USERS {
        return Err(users_v.err(format!("users must be between 1 and {MAX_USERS}")));
    }
    let sector = settings(&t, "sector")?;
    let internet_delay = t.or("internet_delay", INTERNET_DELAY, |v| v.time())?;
    let http = match t.get("web") {
        Some(w) => parse_http(&w.keys(web::HTTP)?)?,
        None => Default::default(),
    };
    // Table 1's TCP, as for a kind = "http" flow.
    let default_tcp = flow::http_tcp();
    let tcp = t.or("tcp", default_tcp.clone(), |v| parse_tcp_over(v, &default_tcp))?;
    let jitter = t.or("start_jitter", START_JITTER, |v| v.time())?;

    let at = t.at();
    let named = |s: &str| Named { name: s.into(), at: at.clone() };
    raw.nodes.push(named("server"));
    raw.nodes.push(named("pdsn"));
    let unlimited = QueueSpec::DropTail { limit: QueueLimit::Unlimited };
    raw.kinds.link.links.push(RawLink {
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
        ppp: None,
        capture_at_entry: false,
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
            start: Time::ZERO,
            start_jitter: jitter,
            start_at: at.clone(),
            stop: None,
            app: AppSpec::Http { http: http.clone(), tcp: tcp.clone() },
        });
    }
    raw.kinds.is2000.sectors.push(RawIs2000 { name: named("sector"), node: named("pdsn"), users, cfg: sector });
    Ok(())
}
