//! The IS-2000 MAC's grant budget (Dziong et al. §2, §3.4). A user on its
//! FCH with more than the threshold waiting qualifies; qualified users are
//! ranked by priority — backlog over the power a 9.6 kb/s channel costs
//! them (their unit share, from the power model), so a full buffer and a
//! good channel come first — and each in turn gets a Walsh code tree entry
//! and the highest SCH rate that the power and codes left allow, no more
//! than its backlog can use in one burst (the class's hold time: all users
//! are of one class, §4.2). A user for whom no rate fits is denied, and
//! with `after_denial = "stop"` the pass ends there: the power is spent.
//! A user whose backlog fell to the threshold no longer qualifies and its
//! request is withdrawn. The request, delay, hold and release life cycle
//! is `cdma2000::sch_demand`'s.

use super::config::{AfterDenial, MacConfig};
use super::power::PowerModel;
use super::radio::RadioConfig;
use crate::cdma2000::config::{sch_index, BASE_RATE_BPS, SCH_MULTIPLES};
use crate::cdma2000::sch_demand::{Budget, Refusal};
use crate::engine::{time::secs, Rng, Time};

pub struct Is2000Budget {
    radio: RadioConfig,
    power: Box<dyn PowerModel + Send>,
    /// The model's constants, asked once: the common channels' share and
    /// each SCH multiple's rate factor (in `SCH_MULTIPLES` order). The link
    /// budget computes each from decibels (`powf`): asked at every grant
    /// and admission they were a tenth of a loaded sector's run.
    overhead: f64,
    rate_factors: [f64; SCH_MULTIPLES.len()],
    /// The grant's length: a rate beyond backlog·8 / burst would idle.
    burst: Time,
    /// A user qualifies with more than this waiting.
    threshold_bytes: u64,
    after_denial: AfterDenial,
    /// The share of the power a 9.6 kb/s channel needs at each user's place.
    unit: Vec<f64>,
    /// Whether it holds an FCH (power and a code) and a Walsh code for it.
    fch_power: Vec<bool>,
    fch_code: Vec<bool>,
    /// The shares charged for each user's FCH and SCH, given back as
    /// charged (a user's unit share may change between the two).
    fch_share: Vec<f64>,
    sch_share: Vec<f64>,
    power_used: f64,
    codes_used: u32,
    /// The SCHs' part of `power_used` and `codes_used`: what their release
    /// could give back.
    sch_power: f64,
    sch_codes: u32,
}

impl Is2000Budget {
    pub fn new(radio: RadioConfig, mac: &MacConfig, users: usize) -> Self {
        let power = radio.power.build();
        let overhead = power.overhead();
        let rate_factors = SCH_MULTIPLES.map(|m| power.rate_factor(m * BASE_RATE_BPS));
        Is2000Budget {
            radio,
            power,
            overhead,
            rate_factors,
            burst: mac.burst,
            threshold_bytes: mac.threshold_bytes,
            after_denial: mac.after_denial,
            unit: vec![0.0; users],
            fch_power: vec![false; users],
            fch_code: vec![false; users],
            fch_share: vec![0.0; users],
            sch_share: vec![0.0; users],
            power_used: 0.0,
            codes_used: 0,
            sch_power: 0.0,
            sch_codes: 0,
        }
    }

    /// Place user `k` anew, uniformly over the cell. A place where even
    /// the FCH would need more than the traffic channels' power is served
    /// at that power (no outage model).
    pub fn relocate(&mut self, k: usize, rng: &mut Rng) {
        debug_assert!(self.sch_share[k] == 0.0 && !self.fch_power[k], "user {k} moves while holding power");
        self.unit[k] = self.power.draw_unit_share(rng).min(self.traffic_power());
    }

    /// The share of the power a channel of `bps` takes for user `k`.
    fn share(&self, k: usize, bps: u64) -> f64 {
        self.unit[k] * self.rate_factors[sch_index(bps).expect("a rate of 1X, 2X, 4X, 8X or 16X")]
    }

    /// Power the traffic channels may use.
    pub fn traffic_power(&self) -> f64 {
        1.0 - self.overhead
    }

    /// Whether user `k`'s FCH fits in what is left (admission control: its
    /// power, and a Walsh code unless it holds one already).
    pub fn fch_fits(&self, k: usize) -> bool {
        let p = self.share(k, BASE_RATE_BPS);
        let code = if self.fch_code[k] { 0 } else { 1 };
        self.power_used + p <= self.traffic_power() + 1e-12 && self.codes_used + code <= self.radio.traffic_codes()
    }

    /// User `k`'s FCH: `power` (transmitting) and `code` (held); the sector
    /// admits it only when `fch_fits` (§2: every admitted user has one).
    pub fn set_fch(&mut self, k: usize, power: bool, code: bool) {
        if power != self.fch_power[k] {
            if power {
                self.fch_share[k] = self.share(k, BASE_RATE_BPS);
                self.power_used += self.fch_share[k];
            } else {
                self.power_used -= std::mem::take(&mut self.fch_share[k]);
            }
            self.fch_power[k] = power;
        }
        if code != self.fch_code[k] {
            if code {
                self.codes_used += 1;
            } else {
                self.codes_used -= 1;
            }
            self.fch_code[k] = code;
        }
    }

    /// Fraction of the sector's power in use, common channels included.
    pub fn power_fraction(&self) -> f64 {
        (self.overhead + self.power_used).max(self.overhead)
    }

    pub fn codes_used(&self) -> u32 {
        self.codes_used + self.radio.reserved_codes
    }
}

impl Budget for Is2000Budget {
    fn take(&mut self, k: usize, waiting: u64, max_bps: u64) -> Result<u64, Refusal> {
        // No longer qualified (its backlog drained while it waited, or it
        // holds no traffic channel, which the sector reports as none).
        if waiting <= self.threshold_bytes {
            return Err(Refusal::Withdrawn);
        }
        let power_left = self.traffic_power() - self.power_used;
        let codes_left = self.radio.traffic_codes().saturating_sub(self.codes_used);
        // The smallest rate that moves the backlog within one burst.
        let useful = (waiting as f64 * 8.0 / secs(self.burst).max(1e-3)).ceil() as u64;
        let fits = |r: u64| r <= max_bps && self.share(k, r) <= power_left + 1e-12 && self.radio.codes_for(r) <= codes_left;
        let rates = || SCH_MULTIPLES.iter().map(|x| x * BASE_RATE_BPS);
        let want = rates().find(|&r| r >= useful).unwrap_or(16 * BASE_RATE_BPS);
        let Some(r) = rates().rev().filter(|&r| r <= want).find(|&r| fits(r)) else {
            // Denied. The SCHs have spent the power only if this user's 1X
            // would fit once they were all released; a user whose place
            // makes even that too dear is passed over without ending the
            // pass, or it would hold every user behind it for good.
            let one_x = BASE_RATE_BPS;
            let fits_without_schs = self.share(k, one_x) <= power_left + self.sch_power + 1e-12
                && self.radio.codes_for(one_x) <= codes_left + self.sch_codes;
            return Err(Refusal::Denied { end_pass: self.after_denial == AfterDenial::Stop && fits_without_schs });
        };
        self.sch_share[k] = self.share(k, r);
        self.power_used += self.sch_share[k];
        self.sch_power += self.sch_share[k];
        self.codes_used += self.radio.codes_for(r);
        self.sch_codes += self.radio.codes_for(r);
        Ok(r)
    }

    fn give_back(&mut self, k: usize, sch_bps: u64) {
        let share = std::mem::take(&mut self.sch_share[k]);
        self.power_used -= share;
        self.sch_power -= share;
        self.codes_used -= self.radio.codes_for(sch_bps);
        self.sch_codes -= self.radio.codes_for(sch_bps);
    }

    /// Highest priority first: backlog per unit of power (stable: the
    /// older request first among equals).
    fn order(&self, ready: &mut [usize], waiting: &[u64]) {
        let prio = |k: usize| waiting[k] as f64 / self.unit[k];
        ready.sort_by(|&a, &b| prio(b).total_cmp(&prio(a)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cdma2000::sch::{Backlog, SchAllocator};
    use crate::cdma2000::sch_demand::DemandAllocator;
    use crate::engine::{NS_PER_MS, NS_PER_SEC};
    use crate::is2000::power::{DistanceLaw, PowerConfig};

    /// Users at normalised distances `d` under the distance law.
    fn budget(d: &[f64]) -> Is2000Budget {
        let radio = RadioConfig { power: PowerConfig::Distance(LAW), ..RadioConfig::default() };
        let mut b = Is2000Budget::new(radio, &MacConfig { burst: NS_PER_SEC, threshold_bytes: 0, ..MacConfig::default() }, d.len());
        b.unit = d.iter().map(|&x| LAW.unit_share(x)).collect();
        b
    }

    const LAW: DistanceLaw = DistanceLaw { p_edge: 0.06, p_min: 0.005, exponent: 3.5, overhead: 0.2 };

    #[test]
    fn rate_follows_location_backlog_and_what_is_left() {
        let mut b = budget(&[1.0, 0.3, 0.3]);
        // At the edge 16X needs 96 % of the power: 8X (48 %) is the most.
        assert_eq!(b.take(0, 1_000_000, 153_600), Ok(76_800));
        // Near the BS 16X is cheap, but 2 KB in one second needs only 16 kb/s: 2X.
        assert_eq!(b.take(1, 2_000, 153_600), Ok(19_200));
        assert_eq!(b.take(2, 1_000_000, 153_600), Ok(153_600));
        let used = 0.48 + 2.0 * LAW.unit_share(0.3) + 16.0 * LAW.unit_share(0.3);
        assert!((b.power_fraction() - 0.2 - used).abs() < 1e-12);
        assert_eq!(b.codes_used(), 3 + 8 + 2 + 16);
        b.give_back(0, 76_800);
        assert_eq!(b.codes_used(), 3 + 2 + 16);
    }

    #[test]
    fn no_power_no_grant_and_walsh_codes_bound_it_too() {
        let mut b = budget(&[1.0, 1.0]);
        assert_eq!(b.take(0, 1_000_000, 153_600), Ok(76_800));
        // 32 % of power left: an edge user gets 4X (24 %), not 8X.
        assert_eq!(b.take(1, 1_000_000, 153_600), Ok(38_400));
        let mut c = budget(&vec![0.0; 70]);
        for k in 0..61 {
            c.set_fch(k, false, true);
        }
        // Every traffic code is held, by FCHs: denied, and as no SCH's release
        // would free a code, the pass goes on.
        assert_eq!(c.take(61, 1_000_000, 153_600), Err(Refusal::Denied { end_pass: false }));
    }

    #[test]
    fn power_is_given_back_as_charged_and_no_backlog_gets_no_grant() {
        let mut b = budget(&[1.0, 0.3]);
        assert_eq!(b.take(0, 0, 153_600), Err(Refusal::Withdrawn), "no backlog, no grant");
        assert_eq!(b.take(0, 1_000_000, 153_600), Ok(76_800));
        // The user's share changes while it holds the SCH (the unit share
        // of a new place): giving it back frees what was charged.
        b.unit[0] = LAW.unit_share(0.1);
        b.give_back(0, 76_800);
        b.set_fch(1, true, true);
        b.unit[1] = LAW.unit_share(1.0);
        b.set_fch(1, false, false);
        assert!((b.power_fraction() - 0.2).abs() < 1e-12, "{}", b.power_fraction());
    }

    #[test]
    fn priority_is_backlog_per_unit_power() {
        let b = budget(&[1.0, 0.2, 0.2]);
        let mut ready = vec![0, 1, 2];
        b.order(&mut ready, &[10_000, 1_000, 5_000]);
        assert_eq!(ready, vec![2, 1, 0], "the edge user's 10 KB ranks below 1 KB near the BS");
    }

    /// Five users with backlogs behind one sector's MAC (distance law,
    /// 80 % of the power for traffic, bursts of 1 s).
    fn sector(after_denial: AfterDenial) -> DemandAllocator<Is2000Budget> {
        use crate::cdma2000::config::DemandConfig;
        let radio = RadioConfig { power: PowerConfig::Distance(LAW), ..RadioConfig::default() };
        let mac = MacConfig { burst: NS_PER_SEC, after_denial, ..MacConfig::default() };
        let mut b = Is2000Budget::new(radio, &mac, 5);
        // Four users at the cell's edge (6 % of the power per 9.6 kb/s) and
        // one near the base station (0.5 %).
        b.unit = [1.0, 1.0, 1.0, 1.0, 0.2].iter().map(|&x| LAW.unit_share(x)).collect();
        let demand = DemandConfig {
            threshold_bytes: mac.threshold_bytes,
            grant_delay: mac.grant_delay,
            burst: mac.burst,
            max_sch_bps: mac.max_sch_bps,
            bts_budget_bps: u64::MAX,
        };
        let mut a = DemandAllocator::with_budget(demand, b, 5);
        let mut g = Vec::new();
        // Backlog over unit share ranks them 0, 1, 2, 3, then the near
        // user, whose 1.5 KB is little even at its low cost.
        for (k, bytes) in [(0, 1_000_000), (1, 900_000), (2, 800_000), (3, 100_000), (4, 1_500)] {
            a.on_backlog(Time::ZERO, k, Backlog { waiting_bytes: bytes, busy_until: Time::MAX }, &mut g);
        }
        a
    }

    #[test]
    fn an_sch_request_is_denied_when_the_sectors_power_is_spent() {
        let mut a = sector(AfterDenial::Stop);
        let mut g = Vec::new();
        a.on_timer(100 * NS_PER_MS, &mut g);
        // 8X (48 %), 4X (24 %) and 1X (6 %) of the 80 % for traffic: 2 %
        // is left, less than the fourth edge user's 1X. It is denied, and
        // the pass ends: the near user behind it, whose 2X would cost only
        // 1 %, gets nothing either (§2: "as long as the power resource is
        // available").
        assert_eq!(g, vec![(0, 76_800), (1, 38_400), (2, 9_600)]);
        assert_eq!(a.denials, 1);
        assert!((a.budget.power_fraction() - 0.98).abs() < 1e-9, "{}", a.budget.power_fraction());
        // The first user's buffer empties: its 48 % comes back, and the
        // denied user is served first, ahead of the near one.
        g.clear();
        a.on_backlog(500 * NS_PER_MS, 0, Backlog { waiting_bytes: 0, busy_until: 600 * NS_PER_MS }, &mut g);
        a.on_timer(600 * NS_PER_MS, &mut g);
        assert_eq!(g, vec![(0, 0), (3, 76_800), (4, 19_200)]);
    }

    #[test]
    fn a_user_too_dear_for_any_sch_is_passed_over_without_ending_the_pass() {
        let mut a = sector(AfterDenial::Stop);
        // The first user's place makes even a 1X cost more than the traffic
        // channels' power: no release could serve it, so it does not hold
        // the others back.
        a.budget.unit[0] = 0.9;
        let mut g = Vec::new();
        a.on_timer(100 * NS_PER_MS, &mut g);
        assert_eq!(g[..2], [(1, 76_800), (2, 38_400)]);
        assert!(a.sch_bps(0) == 0 && a.denials >= 1);
    }

    #[test]
    fn with_after_denial_continue_a_cheaper_user_takes_what_is_left() {
        let mut a = sector(AfterDenial::Continue);
        let mut g = Vec::new();
        a.on_timer(100 * NS_PER_MS, &mut g);
        assert_eq!(g, vec![(0, 76_800), (1, 38_400), (2, 9_600), (4, 19_200)]);
        assert_eq!(a.denials, 1, "the fourth edge user is denied all the same");
    }

    #[test]
    fn a_request_whose_backlog_went_is_withdrawn() {
        let mut a = sector(AfterDenial::Continue);
        let mut g = Vec::new();
        // The near user's FCH sends its 1.5 KB down to 500 B before the
        // grant: it no longer qualifies, and nothing is granted or kept for it.
        a.on_backlog(50 * NS_PER_MS, 4, Backlog { waiting_bytes: 500, busy_until: Time::MAX }, &mut g);
        a.on_timer(100 * NS_PER_MS, &mut g);
        assert_eq!(g, vec![(0, 76_800), (1, 38_400), (2, 9_600)]);
        assert_eq!(a.sch_bps(4), 0);
        // Withdrawn, it asks again when its backlog passes the threshold:
        // granted after the delay.
        a.on_backlog(200 * NS_PER_MS, 4, Backlog { waiting_bytes: 3_000, busy_until: Time::MAX }, &mut g);
        assert_eq!(a.deadline(), Some(300 * NS_PER_MS));
    }
}
