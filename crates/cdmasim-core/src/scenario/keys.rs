//! The keys of the scenario's own tables (`[simulation]`, `[[node]]`,
//! `[[route]]`, `[[flow]]` and the tables inside a flow, the presets'), each
//! described once (`input::keys`); the hop kinds describe theirs in their
//! folders. `TABLES` lists them all for the reference.

use super::parse::DEFAULT_SEED;
use super::presets::{cdma2000, dumbbell, is2000};
use super::{cc, flow, tcp, web};
use crate::input::keys::{Described, Key};

pub(crate) const SIMULATION: &[Key] = &[
    Key::required("duration", "The simulated time; > 0."),
    Key::value("seed", || DEFAULT_SEED.to_string(), "The seed of every random stream (an integer ≥ 0), the DRC sequence of a `drc = {preset = ...}` without its own `seed` included. `--seed` (Python: `run(..., seed=)`) overrides it, and so also draws another channel."),
    Key::absent("sample_interval", "none (no sampled series)", "The period of the sampled series (queue length, goodput, ...); > 0."),
];

pub(crate) const NODE: &[Key] = &[Key::required("name", "The node (unique).")];

pub(crate) const ROUTE: &[Key] = &[
    Key::required("node", "Where the route applies."),
    Key::required("dest", "The destination it applies to (an error if no such node)."),
    Key::required("link", "The next link: it must start at `node` (reverse links are `\"NAME/rev\"`)."),
];

/// The scenario's own tables, then the queue tables, as the reference shows them.
pub(crate) const TABLES: &[Described] = &[
    Described::new("simulation", "`[simulation]`", SIMULATION),
    Described::new("node", "`[[node]]`", NODE),
    Described::new("route", "`[[route]]`", ROUTE),
    Described::new("flow", "`[[flow]]`", flow::FLOW),
    Described::new("flow.bulk", "a `kind = \"bulk\"` flow", flow::BULK),
    Described::new("flow.cbr", "a `kind = \"cbr\"` flow", flow::CBR),
    Described::joined("http", "a `kind = \"http\"` flow", flow::HTTP, web::HTTP),
    Described::new("http.exponential", "a law, `dist = \"exponential\"`", web::EXPONENTIAL),
    Described::new("http.lognormal", "a law, `dist = \"lognormal\"`", web::LOGNORMAL),
    Described::new("tcp", "a TCP table: `[flow.tcp]`, `[dumbbell.tcp]`", tcp::TCP),
    Described::new("tcp.vegas", "`[flow.tcp.vegas]`", cc::VEGAS),
    Described::new("tcp.westwood", "`[flow.tcp.westwood]`", cc::WESTWOOD),
    Described::new("tcp.cubic", "`[flow.tcp.cubic]`", cc::CUBIC),
    Described::new("tcp.bbr", "`[flow.tcp.bbr]`", cc::BBR),
    Described::new("tcp.rbsmq", "`[flow.tcp.rbsmq]`", cc::RBSMQ),
    Described::new("dumbbell", "`[dumbbell]`", dumbbell::KEYS),
    Described::new("cdma2000", "`[cdma2000]`", cdma2000::KEYS),
    Described::new("cdma2000.join", "`join` of `[cdma2000]`", cdma2000::JOIN),
    Described::new("is2000", "`[is2000]`, besides the sector's settings", is2000::KEYS),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::keys::testing::assert_defaults_taken;

    const BASE: &str = r#"PRESET
[simulation]
duration = "100s"
SIMULATION
[[node]]
name = "a"
[[node]]
name = "b"
[[link]]
name = "ab"
from = "a"
to = "b"
rate = "1Mbps"
delay = "1ms"
queue = QUEUE
[[flow]]
name = "f"
from = "a"
to = "b"
FLOW
"#;

    /// `{line}` as an inline table's keys after `before` (both may be empty).
    fn inline(before: &str, line: &str) -> String {
        let keys: Vec<&str> = [before, line].into_iter().filter(|s| !s.is_empty()).collect();
        format!("{{{}}}", keys.join(", "))
    }

    /// Every table a scenario may hold at its top is described (`preset`
    /// is a key, and the preset's table is described by its name).
    #[test]
    fn every_top_level_table_is_described() {
        let described: Vec<&str> = crate::scenario::documented_keys().iter().map(|t| t.name).collect();
        for table in crate::scenario::top_level_tables() {
            assert!(table == "preset" || described.contains(&table), "[{table}] has no described keys");
        }
    }

    /// Every default shown is the one the parser takes.
    #[test]
    fn the_defaults_shown_are_the_defaults_taken() {
        let checked = assert_defaults_taken(&[TABLES, crate::input::queue::TABLES].concat(), |table, key, line| {
            let line = line.unwrap_or("");
            let (mut preset, mut sim, mut queue, mut flow) = (String::new(), "", "{kind = \"droptail\"}".to_string(), String::new());
            // delack_timeout is delayed_ack's: give it on both sides.
            let tcp_line = if key == "delack_timeout" { format!("delayed_ack = \"on\", {line}").trim_end_matches(", ").to_string() } else { line.to_string() };
            match table {
                "simulation" => sim = line,
                "queue.droptail" => queue = inline("kind = \"droptail\"", line),
                "queue.red" => queue = inline("kind = \"red\", limit = \"50pkt\", min_th = \"5pkt\", max_th = \"15pkt\"", line),
                "flow" | "flow.bulk" => flow = line.to_string(),
                "flow.cbr" => flow = format!("kind = \"cbr\"\npacket_size = \"100B\"\nrate = \"10kbps\"\n{line}"),
                "http" => flow = format!("kind = \"http\"\n{line}"),
                "http.exponential" => flow = format!("kind = \"http\"\nthink_time = {}", inline("dist = \"exponential\", mean = \"10s\"", line)),
                "http.lognormal" => flow = format!("kind = \"http\"\nobject_size = {}", inline("dist = \"lognormal\", median = \"2kB\", sigma = 1.0", line)),
                "tcp" => flow = format!("tcp = {}", inline("", &tcp_line)),
                "tcp.rbsmq" => flow = format!("tcp = {{rwnd = \"rbsmq\", rbsmq = {}}}", inline("", line)),
                t if t.starts_with("tcp.") => {
                    let cc = &t[4..];
                    flow = format!("tcp = {{cc = \"{cc}\", {cc} = {}}}", inline("", line));
                }
                "dumbbell" => preset = format!("preset = \"dumbbell\"\n[dumbbell]\nflows = 1\nbottleneck_rate = \"1Mbps\"\nbottleneck_delay = \"10ms\"\n{line}"),
                "cdma2000" => preset = format!("preset = \"cdma2000\"\n[cdma2000]\nm = 1\nn = 1\n{line}"),
                "cdma2000.join" => preset = format!("preset = \"cdma2000\"\n[cdma2000]\nm = 1\nn = 2\njoin = {}", inline("at = \"50s\", initial = 1", line)),
                "is2000" => preset = format!("preset = \"is2000\"\n[is2000]\nusers = 1\n{line}"),
                other => unreachable!("{other}: write where its keys go"),
            }
            BASE.replace("PRESET", &preset).replace("SIMULATION", sim).replace("QUEUE", &queue).replace("FLOW", &flow)
        });
        assert_eq!(checked, 87);
    }
}
