//! A scenario table's keys, each described once: its name, what leaving it
//! out means, and what it does. The parser accepts a table's keys from its
//! list (`Val::keys`: any other is an error naming them) and reads only
//! keys the list holds (`Table::get` checks, in debug builds), and
//! docs/scenario.md's tables of keys are generated from the lists
//! (`scenario::documented_keys`, `python -m cdmasim.scenario_doc`), so the
//! parser, its defaults and the reference cannot drift apart. A default is shown from the value the
//! parser uses (`IfAbsent::Value`), not retyped.

use crate::engine::Time;
use crate::net::queue::{QueueLimit, QueueSpec};
use serde::Serialize;

/// One key of a scenario table.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    pub name: &'static str,
    pub default: IfAbsent,
    /// What it does, in Markdown (one paragraph: it is a table's cell).
    pub help: &'static str,
}

/// What leaving a key out means.
#[derive(Clone, Copy, Debug)]
pub enum IfAbsent {
    /// It must be given.
    Required,
    /// As this text says: nothing is set (the feature is off), or a value
    /// that depends on other keys, or one a table cannot write.
    Absent(&'static str),
    /// The value the parser uses, shown as the file would write it.
    Value(fn() -> String),
}

impl Key {
    pub const fn required(name: &'static str, help: &'static str) -> Key {
        Key { name, default: IfAbsent::Required, help }
    }
    pub const fn absent(name: &'static str, absent: &'static str, help: &'static str) -> Key {
        Key { name, default: IfAbsent::Absent(absent), help }
    }
    pub const fn value(name: &'static str, shown: fn() -> String, help: &'static str) -> Key {
        Key { name, default: IfAbsent::Value(shown), help }
    }
}

/// A table's keys as the reference shows them: `name` is where the table
/// is (`"sector.rab"`: the `rab` table of a `[[sector]]`; the part before
/// the first dot names its mark in docs/scenario.md) and `heading` how the
/// reference names it (Markdown).
#[derive(Clone, Copy, Debug)]
pub struct Described {
    pub name: &'static str,
    pub heading: &'static str,
    pub keys: &'static [Key],
    /// Keys another list describes that this table also takes, after `keys`.
    pub more: &'static [Key],
}

impl Described {
    pub const fn new(name: &'static str, heading: &'static str, keys: &'static [Key]) -> Described {
        Described { name, heading, keys, more: &[] }
    }
    /// A table that takes `keys` and then `more` (a list described elsewhere).
    pub const fn joined(name: &'static str, heading: &'static str, keys: &'static [Key], more: &'static [Key]) -> Described {
        Described { name, heading, keys, more }
    }
    /// Every key the table takes, in order.
    pub fn all_keys(&self) -> impl Iterator<Item = &'static Key> {
        self.keys.iter().chain(self.more)
    }
}

/// One described table for the reference.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TableDoc {
    pub name: &'static str,
    pub heading: &'static str,
    pub keys: Vec<KeyDoc>,
}

/// The names of `keys`, for the reader.
pub fn names(keys: &[Key]) -> Vec<&'static str> {
    keys.iter().map(|k| k.name).collect()
}

/// A table's keys as the reference shows them.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct KeyDoc {
    pub key: &'static str,
    /// What leaving it out means: "required" when it must be given, words
    /// when nothing is set, or the value the parser takes.
    pub default: String,
    /// `default` is a value, as the file would write it (the reference
    /// shows it as code).
    pub is_value: bool,
    pub help: &'static str,
}

/// A described table, as the reference shows it.
pub fn documented(table: &Described) -> TableDoc {
    TableDoc { name: table.name, heading: table.heading, keys: documented_keys(table.all_keys()) }
}

fn documented_keys<'k>(keys: impl Iterator<Item = &'k Key>) -> Vec<KeyDoc> {
    keys.map(|k| {
            let (default, is_value) = match k.default {
                IfAbsent::Required => ("required".into(), false),
                IfAbsent::Absent(text) => (text.into(), false),
                IfAbsent::Value(shown) => (shown(), true),
            };
            KeyDoc { key: k.name, default, is_value, help: k.help }
        })
        .collect()
}

/// A time as a file writes it, in the largest unit that shows it with at
/// most three decimals (`"10ms"`, `"37.5ms"`, `"5.12s"`) or whole
/// (`"1500us"`), or in ms with decimals where none does (`"28.333333ms"`);
/// zero as `"0s"`.
pub fn time(t: Time) -> String {
    let t = t.0;
    if t == 0 {
        return "\"0s\"".into();
    }
    // (unit, its ns, the step it is shown to)
    for (unit, ns, step) in [("s", 1_000_000_000u64, 1_000_000), ("ms", 1_000_000, 1_000), ("us", 1_000, 1_000)] {
        if t >= ns && t % step == 0 {
            return format!("\"{}{unit}\"", t as f64 / ns as f64);
        }
    }
    if t >= 1_000_000 {
        return format!("\"{}ms\"", t as f64 / 1e6);
    }
    format!("\"{t}ns\"")
}

/// A rate as a file writes it (`"153.6kbps"`, `"2Mbps"`).
pub fn rate(bps: u64) -> String {
    for (unit, per) in [("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3)] {
        if bps as f64 >= per {
            return format!("\"{}{unit}\"", bps as f64 / per);
        }
    }
    format!("\"{bps}bps\"")
}

/// A size in bytes as a file writes it, in binary units where it is a
/// whole number of them (`"64KiB"`), else decimal (`"5kB"`) or bytes.
pub fn size(bytes: u64) -> String {
    for (unit, per) in [("MiB", 1 << 20), ("KiB", 1 << 10)] {
        if bytes >= per && bytes % per == 0 {
            return format!("\"{}{unit}\"", bytes / per);
        }
    }
    for (unit, per) in [("MB", 1_000_000), ("kB", 1_000)] {
        if bytes >= per && bytes % per == 0 {
            return format!("\"{}{unit}\"", bytes / per);
        }
    }
    format!("\"{bytes}B\"")
}

/// The name `options` give `value`, quoted as a file writes it.
pub fn named<T: PartialEq>(options: &[(&str, T)], value: T) -> String {
    let (name, _) = options.iter().find(|(_, v)| *v == value).expect("the default is one of the options");
    format!("\"{name}\"")
}

/// A queue's limit as a file writes it (`"100pkt"`, `"64KiB"`, `"unlimited"`).
pub fn limit(l: &QueueLimit) -> String {
    match l {
        QueueLimit::Packets(n) => format!("\"{n}pkt\""),
        QueueLimit::Bytes(b) => size(*b),
        QueueLimit::Unlimited => "\"unlimited\"".into(),
    }
}

/// A DropTail queue as a file writes it (`{kind = "droptail", limit =
/// "64KiB"}`); a default queue is never RED.
pub fn queue(q: &QueueSpec) -> String {
    match q {
        QueueSpec::DropTail { limit: l } => format!("{{kind = \"droptail\", limit = {}}}", limit(l)),
        QueueSpec::Red(_) => unreachable!("a default queue is DropTail"),
    }
}

/// For the kinds' tests of their keys.
#[cfg(test)]
pub(crate) mod testing {
    use super::{Described, IfAbsent};

    /// Every default `tables` shows is the one the parser takes: a
    /// scenario with `KEY = shown default` written where `table`'s key goes
    /// (`scenario(table, key, Some(line))`) parses to the spec of the one
    /// that leaves it out (`scenario(table, key, None)`). Returns how many
    /// defaults it checked.
    pub(crate) fn assert_defaults_taken(
        tables: &[Described],
        scenario: impl Fn(&str, &str, Option<&str>) -> String,
    ) -> usize {
        let spec = |text: String| {
            let spec = crate::scenario::parse_str(&text, "keys.toml").unwrap_or_else(|e| panic!("{text}\n{e}"));
            serde_json::to_string(&spec).unwrap()
        };
        let mut checked = 0;
        for described in tables {
            let table = described.name;
            for k in described.all_keys() {
                let IfAbsent::Value(shown) = k.default else { continue };
                let line = format!("{} = {}", k.name, shown());
                let (given, left_out) = (spec(scenario(table, k.name, Some(&line))), spec(scenario(table, k.name, None)));
                assert_eq!(given, left_out, "[{table}] {line}: not what leaving it out gives");
                checked += 1;
            }
        }
        checked
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::units::{parse_rate, parse_size, parse_time};

    /// What the reference shows reads back as the value it was made from.
    #[test]
    fn shown_values_read_back() {
        let unquote = |s: String| s.trim_matches('"').to_string();
        for t in [0, 1, 999, 37_500_000, 5_120_000_000, 1_001_000, 1_000, 10_000_000, 28_300_000, 26_700_000, 1_000_000_000, 1_500_000_000] {
            assert_eq!(parse_time(&unquote(time(Time(t)))), Ok(Time(t)), "{}", time(Time(t)));
        }
        for r in [1, 9_600, 153_600, 1_000_000, 2_000_000, 2_457_600, 10_000_000_000] {
            assert_eq!(parse_rate(&unquote(rate(r))), Ok(r), "{}", rate(r));
        }
        for b in [1, 500, 5_000, 64 * 1024, 65_000, 1 << 20, 3_000_000] {
            assert_eq!(parse_size(&unquote(size(b))), Ok(b), "{}", size(b));
        }
        assert_eq!((time(Time(10_000_000)), rate(153_600), size(64 * 1024)), ("\"10ms\"".into(), "\"153.6kbps\"".into(), "\"64KiB\"".into()));
        let shown = [37_500_000, 5_120_000_000, 28_300_000, 1_500_500, 999_000, 28_333_333].map(|t| time(Time(t)));
        assert_eq!(shown, ["\"37.5ms\"", "\"5.12s\"", "\"28.3ms\"", "\"1.5005ms\"", "\"999us\"", "\"28.333333ms\""].map(String::from));
    }
}
