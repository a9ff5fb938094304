//! Markov chains of any order over the 15 DRC states (Liu et al. eq. 2).
//!
//! Fitting counts (K+1)-grams: the maximum-likelihood estimate of
//! P(X_i | X_{i-1}..X_{i-K}) is the count of each next state divided by the
//! count of its context. Contexts are packed 4 bits per state, most recent
//! state in the low bits, so the order-k context of an order-K code is
//! `code & (16^k - 1)`. Generation backs off to the longest shorter context
//! that was seen when a context never occurred in the fitted trace (it can
//! happen only for contexts at the trace's end).

use super::error::{ChannelError, Result};
use super::ChannelSource;
use crate::engine::Rng;
use crate::channel::drc::NUM_DRC;
use std::collections::{BTreeMap, HashMap};

/// Highest order accepted: the packed context must fit in a u64.
pub const MAX_ORDER: usize = 15;

#[derive(Clone, Debug, PartialEq)]
pub struct MarkovModel {
    pub order: usize,
    /// Count of each next state per top-order context.
    pub counts: BTreeMap<u64, [u64; NUM_DRC]>,
}

fn mask(k: usize) -> u64 {
    if k == 0 {
        0
    } else {
        (1u64 << (4 * k)) - 1
    }
}

impl MarkovModel {
    pub fn fit(drc: &[u8], order: usize) -> MarkovModel {
        assert!(order <= MAX_ORDER);
        let mut counts: BTreeMap<u64, [u64; NUM_DRC]> = BTreeMap::new();
        if drc.len() > order {
            let m = mask(order);
            let mut ctx = 0u64;
            for &d in &drc[..order] {
                ctx = ((ctx << 4) | d as u64) & m;
            }
            if order <= 4 {
                // Dense table: 16^order rows, one pass.
                let mut dense = vec![[0u64; NUM_DRC]; 1usize << (4 * order)];
                for &d in &drc[order..] {
                    dense[ctx as usize][d as usize] += 1;
                    ctx = ((ctx << 4) | d as u64) & m;
                }
                for (c, row) in dense.into_iter().enumerate() {
                    if row.iter().any(|&x| x > 0) {
                        counts.insert(c as u64, row);
                    }
                }
            } else {
                let mut h: HashMap<u64, [u64; NUM_DRC]> = HashMap::new();
                for &d in &drc[order..] {
                    h.entry(ctx).or_insert([0; NUM_DRC])[d as usize] += 1;
                    ctx = ((ctx << 4) | d as u64) & m;
                }
                counts.extend(h);
            }
        }
        MarkovModel { order, counts }
    }

    /// Counts for a shorter order, by summing out the oldest states.
    pub fn counts_of_order(&self, k: usize) -> BTreeMap<u64, [u64; NUM_DRC]> {
        let m = mask(k.min(self.order));
        let mut out: BTreeMap<u64, [u64; NUM_DRC]> = BTreeMap::new();
        for (c, row) in &self.counts {
            let e = out.entry(c & m).or_insert([0; NUM_DRC]);
            for j in 0..NUM_DRC {
                e[j] += row[j];
            }
        }
        out
    }

    /// One-step transition matrix (rows with no data are zero).
    pub fn transition_matrix(&self) -> [[f64; NUM_DRC]; NUM_DRC] {
        let mut p = [[0.0; NUM_DRC]; NUM_DRC];
        for (c, row) in self.counts_of_order(1) {
            let tot: u64 = row.iter().sum();
            for j in 0..NUM_DRC {
                p[c as usize][j] = row[j] as f64 / tot.max(1) as f64;
            }
        }
        p
    }

    /// Add another fit's counts (for example of another segment of a trace).
    pub fn add(&mut self, other: &MarkovModel) {
        assert_eq!(self.order, other.order);
        for (c, row) in &other.counts {
            let e = self.counts.entry(*c).or_insert([0; NUM_DRC]);
            for j in 0..NUM_DRC {
                e[j] += row[j];
            }
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&self.to_value()).unwrap()
    }

    pub fn to_value(&self) -> serde_json::Value {
        let ctxs: Vec<serde_json::Value> = self
            .counts
            .iter()
            .map(|(c, row)| {
                let ctx: Vec<u64> = (0..self.order).rev().map(|i| (c >> (4 * i)) & 15).collect();
                serde_json::json!({"context": ctx, "next": row.to_vec()})
            })
            .collect();
        serde_json::json!({
            "format": "cdmasim-markov", "version": 1, "order": self.order,
            "states": NUM_DRC, "contexts": ctxs,
        })
    }

    pub fn from_json(name: &str, text: &str) -> Result<MarkovModel> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| ChannelError::at(name, e.line() as u64, "json", e.to_string()))?;
        Self::from_value(name, &v)
    }

    /// A model from its JSON value; `name` (file and path within it) heads errors.
    pub fn from_value(name: &str, v: &serde_json::Value) -> Result<MarkovModel> {
        if v.get("format").and_then(|f| f.as_str()) != Some("cdmasim-markov") {
            return Err(ChannelError::new(name, "format: not a cdmasim Markov model (\"format\": \"cdmasim-markov\")"));
        }
        let order = v.get("order").and_then(|o| o.as_u64()).ok_or_else(|| ChannelError::new(name, "order: missing"))? as usize;
        if order > MAX_ORDER {
            return Err(ChannelError::new(name, format!("order: {order} above {MAX_ORDER}")));
        }
        let mut counts = BTreeMap::new();
        let list = v.get("contexts").and_then(|c| c.as_array()).ok_or_else(|| ChannelError::new(name, "contexts: missing"))?;
        for (i, e) in list.iter().enumerate() {
            let bad = |what: &str| ChannelError::new(name, format!("contexts[{i}]: {what}"));
            let ctx = e.get("context").and_then(|c| c.as_array()).ok_or_else(|| bad("context missing"))?;
            if ctx.len() != order {
                return Err(bad("context length differs from the order"));
            }
            let mut code = 0u64;
            for s in ctx {
                let s = s.as_u64().filter(|&s| (s as usize) < NUM_DRC).ok_or_else(|| bad("state outside 0-14"))?;
                code = (code << 4) | s;
            }
            let next = e.get("next").and_then(|c| c.as_array()).ok_or_else(|| bad("next missing"))?;
            if next.len() != NUM_DRC {
                return Err(bad("next must have 15 counts"));
            }
            let mut row = [0u64; NUM_DRC];
            for (j, x) in next.iter().enumerate() {
                row[j] = x.as_u64().ok_or_else(|| bad("counts must be whole numbers"))?;
            }
            counts.insert(code, row);
        }
        if counts.values().all(|r| r.iter().all(|&x| x == 0)) {
            return Err(ChannelError::new(name, "contexts: the model has no transitions"));
        }
        // Every sum the model takes (a row, a context of a shorter order, the
        // whole) is at most the total: if the total fits in 64 bits, they all do.
        if counts.values().flatten().try_fold(0u64, |acc, &x| acc.checked_add(x)).is_none() {
            return Err(ChannelError::at(name, 0, "contexts", "the counts add up to more than 2^64 - 1"));
        }
        Ok(MarkovModel { order, counts })
    }

    pub fn read(path: &str) -> Result<MarkovModel> {
        let t = crate::files::read_input_text(std::path::Path::new(path), crate::files::MAX_SMALL_INPUT_BYTES, "channel model")
            .map_err(|e| ChannelError::io(path, e))?;
        Self::from_json(path, &t)
    }
}

/// Cumulative next-state thresholds out of 2^32 for each seen context of one order.
struct Rows {
    index: HashMap<u64, u32>,
    dense: Option<Vec<u32>>,
    cum: Vec<[u64; NUM_DRC]>,
}

impl Rows {
    fn new(counts: &BTreeMap<u64, [u64; NUM_DRC]>, order: usize) -> Rows {
        let mut index = HashMap::new();
        let mut cum = Vec::new();
        for (c, row) in counts {
            let tot: u64 = row.iter().sum();
            if tot == 0 {
                continue;
            }
            let mut acc = 0u64;
            let mut r = [0u64; NUM_DRC];
            for j in 0..NUM_DRC {
                acc += row[j];
                r[j] = ((acc as u128) << 32).div_euclid(tot as u128) as u64;
            }
            index.insert(*c, cum.len() as u32);
            cum.push(r);
        }
        let dense = (order <= 5).then(|| {
            let mut d = vec![u32::MAX; 1usize << (4 * order)];
            for (&c, &i) in &index {
                d[c as usize] = i;
            }
            d
        });
        Rows { index, dense, cum }
    }

    #[inline]
    fn get(&self, c: u64) -> Option<&[u64; NUM_DRC]> {
        let i = match &self.dense {
            Some(d) => d[c as usize],
            None => *self.index.get(&c)?,
        };
        (i != u32::MAX).then(|| &self.cum[i as usize])
    }
}

/// Generates DRC sequences from a fitted model.
pub struct MarkovSource {
    order: usize,
    rows: Vec<Rows>, // rows[k]: order-k contexts
    ctx: u64,
    rng: Rng,
}

impl MarkovSource {
    pub fn new(model: &MarkovModel, rng: Rng) -> MarkovSource {
        let rows: Vec<Rows> = (0..=model.order).map(|k| Rows::new(&model.counts_of_order(k), k)).collect();
        let mut s = MarkovSource { order: model.order, rows, ctx: 0, rng };
        // Start from a context drawn with its observed frequency.
        let tot: u64 = model.counts.values().map(|r| r.iter().sum::<u64>()).sum();
        let mut u = s.rng.below(tot.max(1));
        for (c, r) in &model.counts {
            let w: u64 = r.iter().sum();
            if u < w {
                s.ctx = *c;
                break;
            }
            u -= w;
        }
        s
    }

    /// The last `order` states, most recent in the low 4 bits.
    pub fn context(&self) -> u64 {
        self.ctx
    }

    /// Continue from another source's history (a regime change).
    pub fn set_context(&mut self, ctx: u64) {
        self.ctx = ctx & mask(self.order);
    }

    #[inline]
    pub fn step(&mut self) -> u8 {
        let u = self.rng.next_u64() >> 32;
        let mut k = self.order;
        let row = loop {
            if let Some(r) = self.rows[k].get(self.ctx & mask(k)) {
                break r;
            }
            k -= 1; // order 0 always has a row
        };
        let mut j = 0;
        while u >= row[j] {
            j += 1;
        }
        self.ctx = ((self.ctx << 4) | j as u64) & mask(self.order);
        j as u8
    }
}

impl ChannelSource for MarkovSource {
    fn fill(&mut self, drc: &mut [u8], sinr: Option<&mut [f32]>) -> usize {
        for d in drc.iter_mut() {
            *d = self.step();
        }
        if let Some(s) = sinr {
            s.fill(f32::NAN);
        }
        drc.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::collect;

    #[test]
    fn fit_recovers_a_known_chain_and_round_trips() {
        // Two-state chain 3 <-> 9 with p(3->3)=0.9, p(9->9)=0.6.
        let mut rng = Rng::from_seed(5);
        let mut x = 3u8;
        let seq: Vec<u8> = (0..200_000)
            .map(|_| {
                let stay = if x == 3 { 0.9 } else { 0.6 };
                if !rng.bernoulli(stay) {
                    x = if x == 3 { 9 } else { 3 };
                }
                x
            })
            .collect();
        let m = MarkovModel::fit(&seq, 1);
        let p = m.transition_matrix();
        // Binomial standard error with ~1.4e5 / 6e4 visits is below 0.003.
        assert!((p[3][3] - 0.9).abs() < 0.005, "{}", p[3][3]);
        assert!((p[9][9] - 0.6).abs() < 0.01, "{}", p[9][9]);
        let back = MarkovModel::from_json("m", &m.to_json()).unwrap();
        assert_eq!(back, m);
        // Generated data refits to the same matrix.
        let g = collect(&mut MarkovSource::new(&m, Rng::from_seed(9)), 200_000);
        let q = MarkovModel::fit(&g.drc, 1).transition_matrix();
        assert!((q[3][3] - 0.9).abs() < 0.006 && (q[9][9] - 0.6).abs() < 0.012);
    }

    #[test]
    fn higher_orders_and_bad_json() {
        // A deterministic period-3 pattern is captured exactly at order 2.
        let seq: Vec<u8> = (0..3000).map(|i| [1u8, 1, 5][i % 3]).collect();
        for k in [2usize, 6] {
            let m = MarkovModel::fit(&seq, k);
            let g = collect(&mut MarkovSource::new(&m, Rng::from_seed(1)), 300);
            let start = g.drc.iter().position(|&d| d == 5).unwrap();
            for (i, d) in g.drc[start..].iter().enumerate() {
                assert_eq!(*d, [5u8, 1, 1][i % 3]);
            }
        }
        assert!(MarkovModel::from_json("m.json", "{\"format\":1}").is_err());
        assert!(MarkovModel::from_json("m.json", "{").unwrap_err().to_string().starts_with("m.json:1: json"));
    }

    #[test]
    fn counts_that_overflow_are_refused() {
        let big = u64::MAX / 2 + 1;
        let text = format!(r#"{{"format": "cdmasim-markov", "order": 1, "contexts": [{{"context": [3], "next": [{big},{big},0,0,0,0,0,0,0,0,0,0,0,0,0]}}]}}"#);
        let e = MarkovModel::from_json("m.json", &text).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains("more than 2^64 - 1"), "{e}");
    }
}
