//! The keys of the `[[is2000_sector]]` table and of the tables inside it,
//! each described once (`input::keys`): the parser (`is2000::tables`)
//! accepts these and no other and takes its defaults from the same values;
//! the `is2000` preset's table takes the sector's settings (`SETTINGS`)
//! as they are, and docs/scenario.md's tables of them are generated.

use super::config::{AfterDenial, MacConfig};
use super::dormancy::DormancyConfig;
use super::power::{DistanceLaw, LinkBudget};
use super::radio::RadioConfig;
use crate::engine::Time;
use crate::input::keys::{self, Described, Key};
use crate::rlp::link::RlpConfig;

/// D, one way (Dziong et al., Table 1).
pub(crate) const DEFAULT_DELAY: Time = Time::from_millis(100);
/// Every air link's frame error rate, both ways (the 1 % FER target).
pub(crate) const DEFAULT_FER: f64 = 0.01;
/// `fading`'s values, the default first: §4.2's single-path Rayleigh fading.
pub(crate) const FADING: &[(&str, bool)] = &[("rayleigh", true), ("iid", false)];
/// §4.2: pedestrians at 3 km/h.
pub(crate) const DEFAULT_SPEED_KMH: f64 = 3.0;
/// `after_denial`'s values, the default first.
pub(crate) const AFTER_DENIAL: &[(&str, AfterDenial)] = &[("stop", AfterDenial::Stop), ("continue", AfterDenial::Continue)];
/// `power.model`'s values (true: the distance law), the default first.
pub(crate) const MODEL: &[(&str, bool)] = &[("link_budget", false), ("distance", true)];

fn mac() -> MacConfig {
    MacConfig::default()
}
fn radio() -> RadioConfig {
    RadioConfig::default()
}
fn budget() -> LinkBudget {
    LinkBudget::default()
}
fn law() -> DistanceLaw {
    DistanceLaw::default()
}
fn dormancy() -> DormancyConfig {
    DormancyConfig::default()
}
fn number(x: f64) -> String {
    format!("{x:?}")
}

/// The sector's settings besides its name, node and users: the keys the
/// `is2000` preset's table takes too.
pub(crate) const SETTINGS: &[Key] = &[
    Key::value("fer", || DEFAULT_FER.to_string(), "Every air link's frame error rate, both ways."),
    Key::value("fading", || format!("\"{}\"", FADING[0].0), "`\"rayleigh\"`: single-path Rayleigh fading (§4.2), as `[[radio_link]]`'s; `\"iid\"`: i.i.d. frame errors."),
    Key::value("speed_kmh", || number(DEFAULT_SPEED_KMH), "The users' speed, km/h, > 0 (§4.2: pedestrians), under Rayleigh fading at 1.9 GHz."),
    Key::value("delay", || keys::time(DEFAULT_DELAY), "D (Table 1), at least one 20 ms frame."),
    Key::value("rlp", || {
        let d = RlpConfig::default();
        format!("{{naks = [{}], guard = {}}}", d.naks.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", "), keys::time(d.guard))
    }, "Every air link's RLP3: an `rlp` table, as `[[radio_link]]`'s."),
    Key::absent("mac", "the defaults below", "SCH requests and grants: a `mac` table, below."),
    Key::absent("power", "the defaults below", "The power model and the Walsh codes: a `power` table, below."),
    Key::absent("dormancy", "the defaults below", "The MAC states' idle times and the times back: a `dormancy` table, below."),
];

pub(crate) const SECTOR_OWN: &[Key] = &[
    Key::required("name", "The sector; drops are reported at `LINK.down` / `LINK.up` of a user's link."),
    Key::required("node", "The network-side node."),
    Key::required("users", "The nodes it serves (not its own), an array of names; a node is served by one sector at most."),
];

pub(crate) const MAC: &[Key] = &[
    Key::value("threshold", || keys::size(mac().threshold_bytes), "A user asks for an SCH when more than this waits in its forward new-data buffer."),
    Key::value("grant_delay", || keys::time(mac().grant_delay), "From a request to the pass that serves it (signalling)."),
    Key::value("burst", || keys::time(mac().burst), "The longest grant (the hold time of the one service class all users share, §4.2); > 0."),
    Key::value("max_sch", || format!("\"{}x\"", mac().max_sch_bps / crate::cdma2000::config::BASE_RATE_BPS), "The highest SCH rate granted: `\"1x\"` to `\"16x\"`."),
    Key::value("after_denial", || keys::named(AFTER_DENIAL, mac().after_denial), "`\"stop\"`: a request no rate fits ends the pass, and every request behind it waits for power to come back (users are served \"as long as the power resource is available\"); `\"continue\"`: the pass goes on down the list."),
];

pub(crate) const POWER: &[Key] = &[
    Key::value("model", || format!("\"{}\"", MODEL[0].0), "`\"link_budget\"`: φ(R, G) = (Eb/Nt)_req(R)·(R/W)·(α + 1/G), each user's geometry G drawn from a two-tier hexagonal layout with path loss and shadowing each time it comes back from dormant; `\"distance\"`: max(p_min, p_edge·d^exponent) per 9.6 kb/s (chosen too by any of its keys). The two models' keys do not mix (docs/is2000_power.md)."),
    Key::value("codes", || radio().codes.to_string(), "Walsh codes of length 64 (at most 256); an SCH of kX takes k."),
    Key::value("reserved_codes", || radio().reserved_codes.to_string(), "The codes the common channels hold (pilot, sync, one paging channel); below `codes`."),
];

/// The link budget's keys (docs/is2000_power.md gives their sources).
pub(crate) const LINK_BUDGET: &[Key] = &[
    Key::value("site_distance_m", || number(budget().site_distance_m), "The site-to-site distance, m."),
    Key::value("path_loss_db", || number(budget().path_loss_db), "Path loss A + B·log10(d / 1 km): A, dB."),
    Key::value("path_loss_slope_db", || number(budget().path_loss_slope_db), "B, dB per decade."),
    Key::value("min_distance_m", || number(budget().min_distance_m), "Places closer to a site are taken at this distance; below half of `site_distance_m`."),
    Key::value("shadowing_db", || number(budget().shadowing_db), "Log-normal shadowing's standard deviation, dB."),
    Key::value("shadowing_correlation", || number(budget().shadowing_correlation), "Its correlation between sites."),
    Key::value("max_power_dbm", || number(budget().max_power_dbm), "A site's maximum transmit power, dBm."),
    Key::value("antenna_gain_db", || number(budget().antenna_gain_db), "The antenna gains less losses between a site and a mobile, dB."),
    Key::value("noise_figure_db", || number(budget().noise_figure_db), "The mobile's noise figure, dB."),
    Key::value("orthogonality_loss", || number(budget().orthogonality_loss), "α: the own sector's power seen as interference (0: orthogonal codes in flat fading, the paper's single path)."),
    Key::absent("other_cell", "the layout's own (0.68)", "The mean Ioc/Ior over places to impose (the other sites' power is scaled to it)."),
    Key::value("ebnt_db", || format!("[{}]", budget().ebnt_db.map(|x| number(x)).join(", ")), "(Eb/Nt)_req at 1 % FER, dB, for 1X (and the FCH), 2X, 4X, 8X, 16X."),
    Key::value("ebnt_offset_db", || number(budget().ebnt_offset_db), "Added to each `ebnt_db` (the link-level requirement as a whole)."),
    Key::value("pilot_db", || number(budget().pilot_db), "The pilot channel, dB relative to the sector's maximum power."),
    Key::value("sync_db", || number(budget().sync_db), "The sync channel, likewise."),
    Key::value("paging_db", || number(budget().paging_db), "The paging channel, likewise."),
];

/// The distance law's keys (`model = "distance"`).
pub(crate) const DISTANCE: &[Key] = &[
    Key::value("p_edge", || number(law().p_edge), "The share of the sector's power a 9.6 kb/s channel takes at the cell's edge."),
    Key::value("p_min", || number(law().p_min), "The least it takes anywhere; > 0."),
    Key::value("exponent", || number(law().exponent), "The share grows as distance^exponent (0 to 10)."),
    Key::value("overhead", || number(law().overhead), "The share the common channels take; below 1."),
];

pub(crate) const DORMANCY: &[Key] = &[
    Key::value("to_control_hold", || keys::time(dormancy().to_control_hold), "Idle time (from the last activity) before control hold (FCH power off)."),
    Key::value("to_suspended", || keys::time(dormancy().to_suspended), "... before suspended (code freed); ≥ `to_control_hold`."),
    Key::value("to_dormant", || keys::time(dormancy().to_dormant), "... before dormant; ≥ `to_suspended`."),
    Key::value("from_control_hold", || keys::time(dormancy().from_control_hold), "The time back to active from control hold."),
    Key::value("from_suspended", || keys::time(dormancy().from_suspended), "... from suspended."),
    Key::value("from_dormant", || keys::time(dormancy().from_dormant), "... from dormant."),
];

pub(crate) const TABLES: &[Described] = &[
    Described::new("is2000_sector", "`[[is2000_sector]]`", SECTOR_OWN),
    Described::new("is2000_sector.settings", "`[[is2000_sector]]`'s settings, which `[is2000]` takes too", SETTINGS),
    Described::new("is2000_sector.mac", "`mac` of `[[is2000_sector]]`", MAC),
    Described::new("is2000_sector.power", "`power` of `[[is2000_sector]]`", POWER),
    Described::new("is2000_sector.power.link_budget", "`power` of `[[is2000_sector]]`, `model = \"link_budget\"`", LINK_BUDGET),
    Described::new("is2000_sector.power.distance", "`power` of `[[is2000_sector]]`, `model = \"distance\"`", DISTANCE),
    Described::new("is2000_sector.dormancy", "`dormancy` of `[[is2000_sector]]`", DORMANCY),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::keys::testing::assert_defaults_taken;

    /// Every default shown is the one the parser takes.
    #[test]
    fn the_defaults_shown_are_the_defaults_taken() {
        let checked = assert_defaults_taken(TABLES, |table, _key, line| {
            let line = line.unwrap_or("");
            let sector = match table {
                "is2000_sector" | "is2000_sector.settings" => line.to_string(),
                "is2000_sector.power.distance" => format!("power = {{model = \"distance\", {line}}}"),
                "is2000_sector.power.link_budget" => format!("power = {{model = \"link_budget\", {line}}}"),
                inner => format!("{} = {{{line}}}", inner.rsplit('.').next().unwrap()),
            }
            .replace(", }", "}");
            format!(
                "[simulation]\nduration = \"1s\"\n[[node]]\nname = \"p\"\n[[node]]\nname = \"u\"\n[[is2000_sector]]\nname = \"s\"\nnode = \"p\"\nusers = [\"u\"]\n{sector}\n"
            )
        });
        assert_eq!(checked, 5 + 5 + 3 + 15 + 4 + 6);
    }
}
