//! A walker over the spanned TOML tree that knows, for every value, its
//! dotted path (`link[2].queue.limit`) and its line, so that each error the
//! parser raises says exactly where the problem is.

use super::error::ScenarioError;
use super::units;
use crate::engine::Time;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// The file being read: its name and where each line starts.
pub(crate) struct Source<'t> {
    pub file: &'t str,
    line_starts: Vec<usize>,
}

impl<'t> Source<'t> {
    pub fn new(file: &'t str, text: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Source { file, line_starts }
    }

    /// 1-based line of a byte offset.
    pub fn line(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&s| s <= offset)
    }

    pub fn error(&self, line: usize, field: &str, message: impl Into<String>) -> ScenarioError {
        // The CLI prints one line, so no message may span several.
        let message = message.into().trim().replace('\n', "; ");
        ScenarioError { file: self.file.to_string(), line, field: field.to_string(), message }
    }
}

/// Where to blame an error once the TOML tree is gone: a line and a field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct At {
    pub line: usize,
    pub field: String,
}

/// A name as written, with its position.
#[derive(Clone, Debug)]
pub(crate) struct Named {
    pub name: String,
    pub at: At,
}

impl Named {
    pub fn new((name, at): (String, At)) -> Self {
        Named { name, at }
    }
}

/// A value together with its path and position.
#[derive(Clone)]
pub(crate) struct Val<'a> {
    src: &'a Source<'a>,
    pub path: String,
    v: &'a Spanned<DeValue<'a>>,
}

pub(crate) type Res<T> = Result<T, ScenarioError>;

impl<'a> Val<'a> {
    pub fn root(src: &'a Source<'a>, v: &'a Spanned<DeValue<'a>>) -> Self {
        Val { src, path: String::new(), v }
    }

    pub fn line(&self) -> usize {
        self.src.line(self.v.span().start)
    }

    pub fn at(&self) -> At {
        At { line: self.line(), field: self.path.clone() }
    }

    pub fn err(&self, message: impl Into<String>) -> ScenarioError {
        self.src.error(self.line(), &self.path, message)
    }

    fn type_name(&self) -> &'static str {
        match self.v.get_ref() {
            DeValue::String(_) => "a string",
            DeValue::Integer(_) => "an integer",
            DeValue::Float(_) => "a float",
            DeValue::Boolean(_) => "a boolean",
            DeValue::Datetime(_) => "a date-time",
            DeValue::Array(_) => "an array",
            DeValue::Table(_) => "a table",
        }
    }

    fn expected(&self, what: &str) -> ScenarioError {
        self.err(format!("expected {what}, found {}", self.type_name()))
    }

    /// One of the named `options` (a string), or an error naming them all.
    pub fn one_of<T: Copy>(&self, options: &[(&str, T)]) -> Res<T> {
        let name = self.str()?;
        if let Some((_, v)) = options.iter().find(|(n, _)| *n == name) {
            return Ok(*v);
        }
        let names: Vec<String> = options.iter().map(|(n, _)| format!("\"{n}\"")).collect();
        let expected = match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => names.join(""),
        };
        let key = self.path.rsplit('.').next().unwrap_or("value");
        Err(self.err(format!("unknown {key} '{name}' (expected {expected})")))
    }

    pub fn str(&self) -> Res<&'a str> {
        match self.v.get_ref() {
            DeValue::String(s) => Ok(s.as_ref()),
            _ => Err(self.expected("a string")),
        }
    }

    pub fn bool(&self) -> Res<bool> {
        match self.v.get_ref() {
            DeValue::Boolean(b) => Ok(*b),
            _ => Err(self.expected("true or false")),
        }
    }

    /// A plain non-negative integer (counts: flows, segments, seeds).
    pub fn count(&self) -> Res<u64> {
        match self.v.get_ref() {
            DeValue::Integer(i) => {
                let n = i128::from_str_radix(i.as_str(), i.radix()).map_err(|_| self.err("integer out of range"))?;
                u64::try_from(n).map_err(|_| self.err(format!("must not be negative (got {n})")))
            }
            DeValue::String(s) => Err(self.err(format!("expected a plain integer, found the string \"{s}\""))),
            _ => Err(self.expected("a plain integer")),
        }
    }

    pub fn count_u32(&self) -> Res<u32> {
        let n = self.count()?;
        u32::try_from(n).map_err(|_| self.err(format!("{n} is too large")))
    }

    /// A plain number (integer or float).
    pub fn number(&self) -> Res<f64> {
        let x = match self.v.get_ref() {
            DeValue::Integer(i) => i128::from_str_radix(i.as_str(), i.radix()).map(|n| n as f64).ok(),
            DeValue::Float(f) => f.as_str().parse::<f64>().ok(),
            _ => return Err(self.expected("a number")),
        };
        match x {
            Some(x) if x.is_finite() => Ok(x),
            _ => Err(self.err("must be a finite number")),
        }
    }

    /// A probability: a plain number in [0, 1] or a percentage string "1%".
    pub fn probability(&self) -> Res<f64> {
        let p = match self.v.get_ref() {
            DeValue::String(s) => units::parse_percent(s).map_err(|m| self.err(m))?,
            _ => self.number()?,
        };
        if !(0.0..=1.0).contains(&p) {
            return Err(self.err(format!("a probability must be within [0, 1] (got {p})")));
        }
        Ok(p)
    }

    /// A quantity string parsed by `parse`; a bare number gets a hint.
    fn quantity<T>(&self, example: &str, parse: fn(&str) -> Result<T, String>) -> Res<T> {
        match self.v.get_ref() {
            DeValue::String(s) => parse(s).map_err(|m| self.err(m)),
            DeValue::Integer(_) | DeValue::Float(_) => Err(self.err(format!(
                "a quantity needs a unit: write it as a string such as \"{example}\""
            ))),
            _ => Err(self.expected(&format!("a quantity string such as \"{example}\""))),
        }
    }

    pub fn rate(&self) -> Res<u64> {
        self.quantity("10Mbps", units::parse_rate)
    }

    /// A rate that must be strictly positive.
    pub fn positive_rate(&self) -> Res<u64> {
        let r = self.rate()?;
        if r == 0 {
            return Err(self.err("a rate must be positive"));
        }
        Ok(r)
    }

    pub fn time(&self) -> Res<Time> {
        self.quantity("20ms", units::parse_time)
    }

    pub fn size(&self) -> Res<u64> {
        self.quantity("64KB", units::parse_size)
    }

    pub fn limit(&self) -> Res<crate::net::queue::QueueLimit> {
        self.quantity("100pkt", units::parse_limit)
    }

    pub fn amount(&self) -> Res<units::Amount> {
        self.quantity("20pkt", units::parse_amount)
    }

    /// The elements of an array, each with its indexed path (`x[i]`, 0-based).
    pub fn array(&self) -> Res<Vec<Val<'a>>> {
        match self.v.get_ref() {
            DeValue::Array(a) => Ok(a
                .iter()
                .enumerate()
                .map(|(i, v)| Val { src: self.src, path: format!("{}[{i}]", self.path), v })
                .collect()),
            _ => Err(self.expected("an array")),
        }
    }

    /// A string entry of this table, looked at without any checking (used to
    /// let the preset's name decide which other keys are allowed).
    pub fn peek_str(&self, key: &str) -> Option<&'a str> {
        match self.v.get_ref() {
            DeValue::Table(t) => match t.get(key).map(|v| v.get_ref()) {
                Some(DeValue::String(s)) => Some(s.as_ref()),
                _ => None,
            },
            _ => None,
        }
    }

    pub fn is_table(&self) -> bool {
        matches!(self.v.get_ref(), DeValue::Table(_))
    }

    /// Whether this is a table with `key` in it (no checking otherwise).
    pub fn has(&self, key: &str) -> bool {
        matches!(self.v.get_ref(), DeValue::Table(t) if t.contains_key(key))
    }

    /// This value as a table whose keys must all be in `allowed`.
    pub fn table(&self, allowed: &[&str]) -> Res<Table<'a>> {
        let tbl = match self.v.get_ref() {
            DeValue::Table(t) => t,
            _ => return Err(self.expected("a table")),
        };
        // Report the unknown key nearest the top of the file.
        let mut unknown: Vec<_> = tbl.iter().filter(|(k, _)| !allowed.contains(&k.get_ref().as_ref())).collect();
        unknown.sort_by_key(|(k, _)| k.span().start);
        if let Some((k, _)) = unknown.first() {
            let name = k.get_ref().as_ref();
            let field = join(&self.path, name);
            let mut msg = format!("unknown key '{name}' (expected one of: {})", allowed.join(", "));
            if !self.path.is_empty() && name == "preset" {
                // TOML puts every key after a [table] header into that table.
                msg.push_str("; top-level keys such as preset must come before the first [table] header");
            }
            return Err(self.src.error(self.src.line(k.span().start), &field, msg));
        }
        Ok(Table {
            src: self.src,
            path: self.path.clone(),
            line: self.line(),
            tbl,
            #[cfg(debug_assertions)]
            allowed: allowed.iter().map(|k| k.to_string()).collect(),
        })
    }

    /// This value as a table of `keys` (`input::keys`: the table's keys,
    /// described once).
    pub fn keys(&self, keys: &[super::keys::Key]) -> Res<Table<'a>> {
        self.table(&super::keys::names(keys))
    }

    /// This value as a table of the keys of `lists` together (a table whose
    /// keys depend on one of them: a flow's on its `kind`).
    pub fn keys_of(&self, lists: &[&[super::keys::Key]]) -> Res<Table<'a>> {
        let mut names: Vec<&str> = Vec::new();
        for k in lists.iter().flat_map(|l| l.iter()) {
            if !names.contains(&k.name) {
                names.push(k.name);
            }
        }
        self.table(&names)
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// A table whose keys have been checked against the allowed list.
pub(crate) struct Table<'a> {
    src: &'a Source<'a>,
    pub path: String,
    pub line: usize,
    tbl: &'a DeTable<'a>,
    /// Its keys: the parser reads no other (a key it reads must be among
    /// those the table lists, and so described). Kept for the check of
    /// debug builds only.
    #[cfg(debug_assertions)]
    allowed: Vec<String>,
}

impl<'a> Table<'a> {
    pub fn get(&self, key: &str) -> Option<Val<'a>> {
        // A programming error, caught by the tests (built with debug assertions).
        #[cfg(debug_assertions)]
        assert!(self.allowed.iter().any(|k| k == key), "{}: the parser reads '{key}', which its table does not list", self.path);
        self.tbl.get(key).map(|v| Val { src: self.src, path: join(&self.path, key), v })
    }

    pub fn req(&self, key: &str) -> Res<Val<'a>> {
        self.get(key).ok_or_else(|| self.missing(key))
    }

    /// The error for a required key that is absent, on the table's line.
    pub fn missing(&self, key: &str) -> ScenarioError {
        self.src.error(self.line, &join(&self.path, key), "missing (this key is required)")
    }

    /// `missing` with a hint in place of "this key is required".
    pub fn missing_with(&self, key: &str, hint: &str) -> ScenarioError {
        self.src.error(self.line, &join(&self.path, key), format!("missing ({hint})"))
    }

    pub fn at(&self) -> At {
        At { line: self.line, field: self.path.clone() }
    }

    /// `key` parsed by `f`, or `default` when absent.
    pub fn or<T>(&self, key: &str, default: T, f: impl Fn(&Val<'a>) -> Res<T>) -> Res<T> {
        match self.get(key) {
            Some(v) => f(&v),
            None => Ok(default),
        }
    }

    /// `key` parsed by `f`, or None when absent.
    pub fn opt<T>(&self, key: &str, f: impl Fn(&Val<'a>) -> Res<T>) -> Res<Option<T>> {
        self.get(key).map(|v| f(&v)).transpose()
    }

    /// A required string naming something (a node, link or flow).
    pub fn name(&self, key: &str) -> Res<(String, At)> {
        let v = self.req(key)?;
        let s = v.str()?;
        if s.trim().is_empty() {
            return Err(v.err("a name must not be empty"));
        }
        Ok((s.to_string(), v.at()))
    }
}
