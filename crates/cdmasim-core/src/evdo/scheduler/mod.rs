//! Forward-link slot schedulers: which user starts a packet in slot n.
//!
//! One trait, one file per discipline (Proportional Fair, Round Robin, max
//! C/I), in the spirit of Linux's tcp_congestion_ops. The scheduler only
//! chooses; [`server::SlotServer`] owns the slot mechanics (interlaces and
//! multi-slot packets) and tells the scheduler who was served. A sector with
//! per-user queues passes each user's backlog in the [`SlotView`]; the
//! full-buffer study passes none (every user always has data).

pub mod maxci;
pub mod pf;
pub mod rr;
pub mod server;
pub mod study;

pub use server::{SlotOutcome, SlotServer};

/// What the scheduler sees in one slot.
#[derive(Clone, Copy, Debug)]
pub struct SlotView<'a> {
    pub slot: u64,
    /// DRC index each user requests for this slot.
    pub drc: &'a [u8],
    /// Bits queued per user at the base station; `None` = full buffers.
    /// A user with zero backlog is not eligible.
    pub backlog_bits: Option<&'a [u64]>,
}

impl SlotView<'_> {
    #[inline]
    pub fn eligible(&self, user: usize) -> bool {
        self.drc[user] != 0 && self.backlog_bits.is_none_or(|b| b[user] > 0)
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

/// Build a scheduler by name: "pf", "rr" or "maxci" (`pf` configures PF only).
pub fn by_name(name: &str, users: usize, pf: &pf::PfConfig) -> Option<Box<dyn Scheduler>> {
    match name {
        "pf" => Some(Box::new(pf::ProportionalFair::new(users, pf.clone()))),
        "rr" => Some(Box::new(rr::RoundRobin::new(users))),
        "maxci" => Some(Box::new(maxci::MaxCi::new(users))),
        _ => None,
    }
}

pub const SCHEDULERS: &[&str] = &["pf", "rr", "maxci"];
