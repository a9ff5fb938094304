//! `[[cell]]` and `[[mobile]]` tables → raw cdma2000 1X cells and mobiles
//! (`resolve` makes each mobile a node with its reverse link and checks names).

use crate::cdma2000::keys::{self, DEFAULT_BTS, RATE_CHANGE};
use crate::input::error::ScenarioError;
use crate::input::kind::{err, KindTables, Names, Resolver};
use crate::input::queue::parse_queue;
use crate::input::reader::Named;
use crate::input::reader::{At, Res, Table, Val};
use crate::net::link::LinkSpec;
use crate::cdma2000::config::{
    default_bsc_queue, default_link_queue, is_sch_rate, CellConfig, DemandConfig, MobileConfig, RateChange,
    SchPlan,
    BASE_RATE_BPS, BSC_RATE_PER_MOBILE_BPS, TABLE1_DELAY,
};
use crate::engine::time::{from_secs_f64, secs};
use crate::engine::Time;
use crate::net::queue::QueueSpec;
use std::collections::HashMap;
use std::path::Path;


#[derive(Clone, Debug)]
pub(crate) enum RawSch {
    Plan(SchPlan),
    /// A file of (time, mobile name, rate) lines, read when the mobiles are known.
    File { path: String, at: At },
    /// Demand with the budget left to its default (the BTS's share of the BSC rate).
    Demand { cfg: DemandConfig, budget_given: bool },
}

#[derive(Clone, Debug)]
pub(crate) struct RawCell {
    pub name: Named,
    pub node: Named,
    /// None: 38.4 kb/s per mobile (Table I).
    pub bsc_rate_bps: Option<u64>,
    pub bsc_queue: QueueSpec,
    pub bts_delay: Time,
    pub radio_delay: Time,
    pub fch_bps: u64,
    pub rate_change: RateChange,
    pub sch: RawSch,
    /// Where to blame a schedule that does not fit the run.
    pub sch_at: At,
}

#[derive(Clone, Debug)]
pub(crate) struct RawMobile {
    pub name: Named,
    pub cell: Named,
    /// 0-based (1-based in the file, as the paper's i).
    pub bts: u32,
    pub queue: QueueSpec,
    pub reverse_rate_bps: u64,
    pub reverse_queue: QueueSpec,
}

/// "1x".."16x", or a rate that is one of them.
pub(crate) fn parse_sch_rate(v: &Val) -> Res<u64> {
    let s = v.str()?;
    let lower = s.trim().to_ascii_lowercase();
    let bps = match lower.strip_suffix('x').map(|n| n.parse::<u64>()) {
        Some(Ok(x)) => x.saturating_mul(BASE_RATE_BPS),
        Some(Err(_)) => 0,
        None => v.rate()?,
    };
    if !is_sch_rate(bps) {
        return Err(v.err(format!("'{s}' is not an SCH rate: IS-2000 Rate Set 1 has 1x, 2x, 4x, 8x and 16x (9.6 to 153.6 kb/s)")));
    }
    Ok(bps)
}

fn positive_time(v: &Val, what: &str) -> Res<Time> {
    let t = v.time()?;
    if t == Time::ZERO {
        return Err(v.err(format!("{what} must be positive")));
    }
    Ok(t)
}

pub(crate) fn parse_sch(v: &Val) -> Res<RawSch> {
    let all = v.keys_of(&[keys::SCH_NONE, keys::SCH_AT, keys::SCH_RISE, keys::SCH_BURSTS, keys::SCH_FILE, keys::SCH_DEMAND])?;
    let kind_v = all.req("kind")?;
    let kind = kind_v.str()?;
    let plan = match kind {
        "none" => {
            v.keys(keys::SCH_NONE)?;
            SchPlan::None
        }
        "at" => {
            let t = v.keys(keys::SCH_AT)?;
            let at = t.req("at")?.time()?;
            let until = t.opt("until", |v| v.time())?;
            if let Some(u) = until.filter(|&u| u <= at) {
                return Err(t.get("until").unwrap().err(format!("until ({} s) must come after at ({} s)", secs(u), secs(at))));
            }
            SchPlan::At { at, until, sch_bps: parse_sch_rate(&t.req("rate")?)? }
        }
        "rise" => {
            let t = v.keys(keys::SCH_RISE)?;
            SchPlan::Rise { start: t.req("start")?.time()?, rise: t.req("rise_time")?.time()?, sch_bps: parse_sch_rate(&t.req("rate")?)? }
        }
        "bursts" => {
            let t = v.keys(keys::SCH_BURSTS)?;
            let spread = t.or("spread", keys::BURSTS_SPREAD, |v| v.number())?;
            if !(0.0..1.0).contains(&spread) {
                return Err(t.get("spread").unwrap().err(format!("spread is a fraction of T_B and T_D in [0, 1), not {spread}")));
            }
            SchPlan::Bursts {
                burst: positive_time(&t.req("burst")?, "the burst duration T_B")?,
                gap: positive_time(&t.req("gap")?, "the time between bursts T_D")?,
                start: t.or("start", Time::ZERO, |v| v.time())?,
                spread,
                order: t.or("order", keys::BURST_ORDER[0].1, |v| v.one_of(keys::BURST_ORDER))?,
                sch_bps: parse_sch_rate(&t.req("rate")?)?,
            }
        }
        "file" => {
            let t = v.keys(keys::SCH_FILE)?;
            let p = t.req("path")?;
            return Ok(RawSch::File { path: p.str()?.to_string(), at: p.at() });
        }
        "demand" => {
            let t = v.keys(keys::SCH_DEMAND)?;
            let budget = t.opt("budget", |v| v.rate())?;
            if let Some(b) = budget.filter(|&b| b < BASE_RATE_BPS) {
                return Err(t.get("budget").unwrap().err(format!("a budget of {b} bit/s cannot grant even a 1x SCH (9.6 kb/s)")));
            }
            let cfg = DemandConfig {
                threshold_bytes: t.or("threshold", keys::DEMAND_THRESHOLD, |v| v.size())?,
                grant_delay: t.or("grant_delay", keys::DEMAND_GRANT_DELAY, |v| v.time())?,
                burst: match t.get("burst") {
                    Some(b) => positive_time(&b, "the longest grant (burst)")?,
                    None => keys::DEMAND_BURST,
                },
                max_sch_bps: t.or("max_rate", keys::DEMAND_MAX_RATE_BPS, parse_sch_rate)?,
                bts_budget_bps: budget.unwrap_or(0),
            };
            return Ok(RawSch::Demand { cfg, budget_given: budget.is_some() });
        }
        other => {
            return Err(kind_v.err(format!("unknown sch kind '{other}' (known: none, at, rise, bursts, file, demand)")));
        }
    };
    Ok(RawSch::Plan(plan))
}

/// `rate_change` of a cell's table (the cell or the preset): "exact" (default) or "next_packet".
pub(crate) fn parse_rate_change(t: &Table) -> Res<RateChange> {
    t.or("rate_change", RATE_CHANGE[0].1, |r| r.one_of(RATE_CHANGE))
}

/// `sch` of a cell's table and where it was written (no SCH when absent).
pub(crate) fn parse_sch_of(t: &Table) -> Res<(RawSch, At)> {
    Ok(match t.get("sch") {
        Some(s) => (parse_sch(&s)?, s.at()),
        None => (RawSch::Plan(SchPlan::None), t.at()),
    })
}

fn parse_cell(v: &Val) -> Res<RawCell> {
    let t = v.keys(keys::CELL)?;
    let rate_change = parse_rate_change(&t)?;
    let (sch, sch_at) = parse_sch_of(&t)?;
    Ok(RawCell {
        name: Named::new(t.name("name")?),
        node: Named::new(t.name("node")?),
        bsc_rate_bps: t.opt("bsc_rate", |v| v.positive_rate())?,
        bsc_queue: t.or("bsc_queue", default_bsc_queue(), parse_queue)?,
        bts_delay: t.or("bts_delay", TABLE1_DELAY, |v| v.time())?,
        radio_delay: t.or("radio_delay", TABLE1_DELAY, |v| v.time())?,
        fch_bps: t.or("fch_rate", BASE_RATE_BPS, |v| v.positive_rate())?,
        rate_change,
        sch,
        sch_at,
    })
}

fn parse_mobile(v: &Val) -> Res<RawMobile> {
    let t = v.keys(keys::MOBILE)?;
    let bts = match t.get("bts") {
        None => DEFAULT_BTS - 1,
        Some(b) => match b.count_u32()? {
            0 => return Err(b.err("BTSs are numbered from 1 (the paper's i)")),
            n if n > crate::input::limits::MAX_BTS_PER_CELL => {
                return Err(b.err(format!("BTS {n}: a cell's BTSs are numbered 1 to {}", crate::input::limits::MAX_BTS_PER_CELL)))
            }
            n => n - 1,
        },
    };
    Ok(RawMobile {
        name: Named::new(t.name("name")?),
        cell: Named::new(t.name("cell")?),
        bts,
        queue: t.or("queue", default_link_queue(), parse_queue)?,
        reverse_rate_bps: t.or("reverse_rate", BASE_RATE_BPS, |v| v.positive_rate())?,
        reverse_queue: t.or("reverse_queue", default_link_queue(), parse_queue)?,
    })
}

/// Check a schedule against the run and the cell's mobiles.
fn check_plan(plan: &SchPlan, duration: Time, file: &str, at: &At) -> Result<(), ScenarioError> {
    let late = |what: &str, t: Time| {
        Err(err(file, at, format!("{what} at {} s is at or after the end of the run ({} s)", secs(t), secs(duration))))
    };
    match *plan {
        SchPlan::At { at: t, .. } if t >= duration => late("the SCH allocation", t),
        SchPlan::Rise { start, rise, .. } if start.saturating_add(rise) >= duration => {
            late("the end of the rise (start + rise_time)", start.saturating_add(rise))
        }
        SchPlan::Bursts { start, .. } if start >= duration => late("the first burst", start),
        _ => Ok(()),
    }
}

/// Read an SCH schedule file: `TIME_S,MOBILE,RATE` per line (`#` comments).
fn read_sch_file(path: &str, scenario_file: &str, at: &At, mobiles: &HashMap<&str, usize>, duration: Time) -> Result<SchPlan, ScenarioError> {
    let dir = Path::new(scenario_file).parent().unwrap_or(Path::new(""));
    let full = dir.join(path);
    let shown = full.display().to_string();
    let text = crate::files::read_input_text(&full, crate::files::MAX_SMALL_INPUT_BYTES, "SCH schedule")
        .map_err(|e| err(scenario_file, at, format!("cannot read the SCH schedule '{shown}': {e}")))?;
    let mut out = Vec::new();
    let mut last = Time::ZERO;
    for (i, raw_line) in text.lines().enumerate() {
        let line = raw_line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let bad = |field: &str, m: String| ScenarioError { file: shown.clone(), line: i + 1, field: field.into(), message: m };
        let cols: Vec<&str> = line.split(',').map(str::trim).collect();
        if cols.len() != 3 {
            return Err(bad("", format!("expected TIME_S,MOBILE,RATE, found {} field(s)", cols.len())));
        }
        let t_s: f64 = cols[0].parse().map_err(|_| bad("time", format!("'{}' is not a number of seconds", cols[0])))?;
        if !(t_s.is_finite() && t_s >= 0.0) {
            return Err(bad("time", format!("'{}' is not a time in seconds", cols[0])));
        }
        let t = from_secs_f64(t_s);
        if t < last {
            return Err(bad("time", "times must not decrease".into()));
        }
        if t >= duration {
            return Err(bad("time", format!("{t_s} s is at or after the end of the run")));
        }
        last = t;
        let &k = mobiles.get(cols[1]).ok_or_else(|| bad("mobile", format!("no mobile named '{}' in this cell", cols[1])))?;
        let r = cols[2].to_ascii_lowercase();
        let bps = match r.as_str() {
            "0" | "off" | "none" => 0,
            x => match x.strip_suffix('x').and_then(|n| n.parse::<u64>().ok()) {
                Some(m) if is_sch_rate(m * BASE_RATE_BPS) => m * BASE_RATE_BPS,
                _ => return Err(bad("rate", format!("'{}' is not an SCH rate (1x, 2x, 4x, 8x, 16x, or off)", cols[2]))),
            },
        };
        out.push((t, k, bps));
    }
    Ok(SchPlan::List(out))
}

/// The `[[cell]]` and `[[mobile]]` tables (and what the cdma2000 preset adds).
#[derive(Default)]
pub(crate) struct CellTables {
    pub cells: Vec<RawCell>,
    pub mobiles: Vec<RawMobile>,
}

impl<H: From<LinkSpec> + From<CellConfig>> KindTables<H> for CellTables {
    fn tables(&self) -> &'static [&'static str] {
        &["cell", "mobile"]
    }

    fn keys(&self) -> &'static [crate::input::keys::Described] {
        keys::TABLES
    }

    fn parse(&mut self, table: &str, v: &Val) -> Res<()> {
        match table {
            "cell" => self.cells.push(parse_cell(v)?),
            _ => self.mobiles.push(parse_mobile(v)?),
        }
        Ok(())
    }

    /// Make each mobile a node with its reverse link (`MOBILE.up`, to the
    /// BSC), resolve every name and the SCH plans, and add the cells as hops.
    fn resolve(&self, cx: &mut Resolver<H>) -> Result<(), ScenarioError> {
        let file = cx.file.clone();
        let mut cell_names = Names::new("cell");
        let mut cells = Vec::new();
        for (i, c) in self.cells.iter().enumerate() {
            cell_names.add(&file, &c.name, i)?;
            let node = cx.node(&c.node)?;
            if let Some(j) = self.cells[..i].iter().position(|o| o.node.name == c.node.name) {
                return Err(cx.err(&c.node.at, format!("node '{}' is already the BSC of cell '{}'", c.node.name, self.cells[j].name.name)));
            }
            cells.push(CellConfig {
                name: c.name.name.clone(),
                node,
                bsc_rate_bps: 0,
                bsc_queue: c.bsc_queue.clone(),
                bts_delay: c.bts_delay,
                radio_delay: c.radio_delay,
                fch_bps: c.fch_bps,
                rate_change: c.rate_change,
                sch: SchPlan::None,
                mobiles: Vec::new(),
            });
        }
        let mut mobile_names = Names::new("mobile");
        for (k, m) in self.mobiles.iter().enumerate() {
            mobile_names.add(&file, &m.name, k)?;
            let c = cell_names.get(&file, &m.cell)?;
            let cell = &cells[c];
            let up = LinkSpec {
                rate_bps: m.reverse_rate_bps,
                delay: cell.radio_delay + cell.bts_delay,
                queue: m.reverse_queue.clone(),
                ..Default::default()
            };
            let node = cx.add_terminal("mobile", &m.name, cell.node, up)?;
            cells[c].mobiles.push(MobileConfig { name: m.name.name.clone(), node, bts: m.bts, queue: m.queue.clone() });
        }
        for (cell, raw_cell) in cells.iter_mut().zip(&self.cells) {
            if cell.mobiles.is_empty() {
                return Err(cx.err(&raw_cell.name.at, format!("cell '{}' has no mobile: add a [[mobile]] with cell = '{}'", cell.name, cell.name)));
            }
            let n = cell.mobiles.len() as u64;
            cell.bsc_rate_bps = raw_cell.bsc_rate_bps.unwrap_or(n * BSC_RATE_PER_MOBILE_BPS);
            let by_name: HashMap<&str, usize> = cell.mobiles.iter().enumerate().map(|(k, m)| (m.name.as_str(), k)).collect();
            cell.sch = match &raw_cell.sch {
                RawSch::Plan(p) => p.clone(),
                RawSch::File { path, at } => read_sch_file(path, &file, at, &by_name, cx.duration)?,
                RawSch::Demand { cfg, budget_given } => {
                    let mut cfg = cfg.clone();
                    if !budget_given {
                        // Each BTS may grant its share of the BSC's service rate.
                        let n_bts = cell.mobiles.iter().map(|m| m.bts + 1).max().unwrap_or(1) as u64;
                        cfg.bts_budget_bps = (cell.bsc_rate_bps / n_bts).max(BASE_RATE_BPS);
                    }
                    SchPlan::Demand(cfg)
                }
            };
            check_plan(&cell.sch, cx.duration, &file, &raw_cell.sch_at)?;
        }
        cx.hops.extend(cells.into_iter().map(H::from));
        Ok(())
    }
}
