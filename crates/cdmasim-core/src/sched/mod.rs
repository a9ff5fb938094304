//! Slot schedulers: which user starts a transmission in a slot, for any
//! radio that serves one user at a time in fixed slots and hears each
//! user's requested rate per slot (1xEV-DO's forward link with its DRC; an
//! HSDPA-like downlink with its CQI would be another).
//!
//! One trait, one file per discipline (Proportional Fair, Round Robin, max
//! C/I), in the spirit of Linux's tcp_congestion_ops. A scheduler only
//! chooses: the radio owns the slot mechanics (EV-DO's interlaces and
//! multi-slot packets: `evdo::scheduler::SlotServer`) and tells it who was
//! served. The radio gives each user's requested rate as an index into its
//! own rate table (`RateTable`, fixed when the scheduler is built), and a
//! sector with per-user queues each user's backlog in the [`SlotView`]; a
//! full-buffer study passes none (every user always has data).

pub mod maxci;
pub mod pf;
pub mod rr;

/// Rate indices a radio may have: a rate table holds this many entries
/// (unused ones 0), so a scheduler looks a rate up by `index & (N - 1)`
/// with no bounds check.
pub const RATE_INDICES: usize = 32;

/// The rate (bit/s) of each rate index of a radio; index 0 is "nothing
/// requested".
pub type RateTable = [f64; RATE_INDICES];

/// A radio's rate table from its rates by index (at most `RATE_INDICES`).
pub fn rate_table(rates_bps: &[u64]) -> RateTable {
    assert!(rates_bps.len() <= RATE_INDICES, "{} rate indices, at most {RATE_INDICES}", rates_bps.len());
    let mut t = [0.0; RATE_INDICES];
    for (slot, &r) in t.iter_mut().zip(rates_bps) {
        *slot = r as f64;
    }
    t
}

/// What the scheduler sees in one slot.
#[derive(Clone, Copy, Debug)]
pub struct SlotView<'a> {
    pub slot: u64,
    /// The rate index each user requests for this slot (EV-DO: its DRC);
    /// 0 requests nothing.
    pub request: &'a [u8],
    /// Bits queued per user at the base station; `None` = full buffers.
    /// A user with zero backlog is not eligible.
    pub backlog_bits: Option<&'a [u64]>,
}

impl SlotView<'_> {
    #[inline]
    pub fn eligible(&self, user: usize) -> bool {
        self.request[user] != 0 && self.backlog_bits.is_none_or(|b| b[user] > 0)
    }
}

pub trait Scheduler: Send {
    fn name(&self) -> &'static str;

    /// The user who starts a new packet in this slot, or None when no user
    /// is eligible (null DRC or empty queue).
    fn pick(&mut self, view: &SlotView) -> Option<usize>;

    /// Called once at the end of every slot with the user who received data
    /// in it (a new packet or the next slot of a multi-slot one) and the
    /// packet's nominal rate, bit/s.
    fn end_slot(&mut self, served: Option<(usize, u64)>);

    /// Forget a user's history, as a new sector does after a hand-off
    /// (Liu et al. section 6, last paragraph).
    fn reset_user(&mut self, _user: usize) {}

    /// The user's history as a number that another sector's scheduler of the
    /// same kind can take over (PF: the average A_i, bit/s), if it has one.
    fn user_state(&self, _user: usize) -> Option<f64> {
        None
    }

    /// Take over a user's history from another sector (see `user_state`).
    fn set_user_state(&mut self, _user: usize, _state: f64) {}
}

/// Build a scheduler by name: "pf", "rr" or "maxci" (`pf` configures PF
/// only), for a radio whose rate index i is worth `rates[i]` bit/s.
pub fn by_name(name: &str, users: usize, pf: &pf::PfConfig, rates: &RateTable) -> Option<Box<dyn Scheduler>> {
    match name {
        "pf" => Some(Box::new(pf::ProportionalFair::new(users, pf.clone(), rates))),
        "rr" => Some(Box::new(rr::RoundRobin::new(users))),
        "maxci" => Some(Box::new(maxci::MaxCi::new(users, rates))),
        _ => None,
    }
}

pub const SCHEDULERS: &[&str] = &["pf", "rr", "maxci"];
