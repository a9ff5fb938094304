//! The IS-2000 MAC states of a packet-data user (Dziong et al. §3.4): active
//! (the FCH carries traffic), control hold (the dedicated channel is kept
//! but gated: no traffic power), suspended (its Walsh code is given up) and
//! dormant (nothing is held). Timers move an idle user down; data for it
//! or from it brings it back to active after a delay that grows with how
//! far down it was. The paper gives no values; ours (defaults below) are
//! of the order IS-707-A-2.12 packet data implementations used.

use crate::engine::{Time, NS_PER_MS, NS_PER_SEC};
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DormancyConfig {
    /// Idle time before control hold, suspended, dormant (cumulative from
    /// the last activity).
    pub to_control_hold: Time,
    pub to_suspended: Time,
    pub to_dormant: Time,
    /// Time back to active from control hold, suspended, dormant.
    pub from_control_hold: Time,
    pub from_suspended: Time,
    pub from_dormant: Time,
}

impl Default for DormancyConfig {
    fn default() -> Self {
        DormancyConfig {
            to_control_hold: 500 * NS_PER_MS,
            to_suspended: 5 * NS_PER_SEC,
            to_dormant: 20 * NS_PER_SEC,
            from_control_hold: 40 * NS_PER_MS,
            from_suspended: 200 * NS_PER_MS,
            from_dormant: NS_PER_SEC,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Active,
    ControlHold,
    Suspended,
    Dormant,
}

impl Mode {
    /// Whether the FCH transmits (power) and holds its Walsh code.
    pub fn holds(self) -> (bool, bool) {
        match self {
            Mode::Active => (true, true),
            Mode::ControlHold => (false, true),
            Mode::Suspended | Mode::Dormant => (false, false),
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct User {
    mode: Mode,
    busy: bool,
    /// When the user last went idle (valid while not busy).
    idle_since: Time,
    /// A pending return to active.
    waking_at: Option<Time>,
}

pub struct Dormancy {
    cfg: DormancyConfig,
    users: Vec<User>,
    /// (time, user) of each user's next transition; stale entries (no
    /// longer that user's next) are skipped.
    timers: BinaryHeap<Reverse<(Time, usize)>>,
}

impl Dormancy {
    /// Every user starts dormant.
    pub fn new(cfg: DormancyConfig, users: usize) -> Self {
        let u = User { mode: Mode::Dormant, busy: false, idle_since: Time::ZERO, waking_at: None };
        Dormancy { cfg, users: vec![u; users], timers: BinaryHeap::new() }
    }

    pub fn mode(&self, k: usize) -> Mode {
        self.users[k].mode
    }

    fn next_time(&self, k: usize) -> Option<Time> {
        let u = &self.users[k];
        if let Some(w) = u.waking_at {
            return Some(w);
        }
        if u.busy {
            return None;
        }
        let c = &self.cfg;
        match u.mode {
            Mode::Active => Some(u.idle_since + c.to_control_hold),
            Mode::ControlHold => Some(u.idle_since + c.to_suspended),
            Mode::Suspended => Some(u.idle_since + c.to_dormant),
            Mode::Dormant => None,
        }
    }

    fn arm(&mut self, k: usize) {
        if let Some(t) = self.next_time(k) {
            self.timers.push(Reverse((t, k)));
        }
    }

    /// User `k` has data waiting (either way) or not, from `now` on.
    pub fn set_busy(&mut self, now: Time, k: usize, busy: bool) {
        let u = &mut self.users[k];
        if u.busy == busy {
            return;
        }
        u.busy = busy;
        if !busy {
            u.idle_since = now;
        } else if u.mode != Mode::Active && u.waking_at.is_none() {
            let c = &self.cfg;
            let delay = match u.mode {
                Mode::ControlHold => c.from_control_hold,
                Mode::Suspended => c.from_suspended,
                _ => c.from_dormant,
            };
            u.waking_at = Some(now + delay);
        }
        self.arm(k);
    }

    pub fn deadline(&self) -> Option<Time> {
        self.timers.peek().map(|r| r.0 .0)
    }

    /// Transitions due by `now`, pushed as (user, new mode, was dormant).
    pub fn on_timer(&mut self, now: Time, out: &mut Vec<(usize, Mode, Mode)>) {
        while let Some(&Reverse((t, k))) = self.timers.peek() {
            if t > now {
                break;
            }
            self.timers.pop();
            if self.next_time(k) != Some(t) {
                continue; // stale
            }
            let u = &mut self.users[k];
            let was = u.mode;
            if u.waking_at.take().is_some() {
                u.mode = Mode::Active;
            } else {
                u.mode = match u.mode {
                    Mode::Active => Mode::ControlHold,
                    Mode::ControlHold => Mode::Suspended,
                    _ => Mode::Dormant,
                };
            }
            out.push((k, u.mode, was));
            self.arm(k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_user_steps_down_and_data_brings_it_back() {
        let mut d = Dormancy::new(DormancyConfig::default(), 2);
        let mut out = Vec::new();
        d.set_busy(Time::ZERO, 0, true);
        assert_eq!(d.deadline(), Some(NS_PER_SEC), "dormant: one second back");
        d.on_timer(NS_PER_SEC, &mut out);
        assert_eq!(out, vec![(0, Mode::Active, Mode::Dormant)]);
        out.clear();
        d.set_busy(3 * NS_PER_SEC, 0, false);
        d.on_timer(3 * NS_PER_SEC + 500 * NS_PER_MS, &mut out);
        assert_eq!(d.mode(0), Mode::ControlHold);
        // Data again after 2 s in control hold: back in 40 ms, timers reset.
        d.set_busy(5 * NS_PER_SEC, 0, true);
        assert_eq!(d.deadline(), Some(5 * NS_PER_SEC + 40 * NS_PER_MS));
        d.on_timer(6 * NS_PER_SEC, &mut out);
        assert_eq!(d.mode(0), Mode::Active);
        d.set_busy(7 * NS_PER_SEC, 0, false);
        out.clear();
        d.on_timer(7 * NS_PER_SEC + 20 * NS_PER_SEC, &mut out);
        let modes: Vec<Mode> = out.iter().map(|o| o.1).collect();
        assert_eq!(modes, vec![Mode::ControlHold, Mode::Suspended, Mode::Dormant]);
        assert_eq!(d.deadline(), None);
        assert_eq!(d.mode(1), Mode::Dormant, "the other user never moved");
    }

    #[test]
    fn busy_again_before_a_step_cancels_it() {
        let mut d = Dormancy::new(DormancyConfig::default(), 1);
        let mut out = Vec::new();
        d.set_busy(Time::ZERO, 0, true);
        d.on_timer(NS_PER_SEC, &mut out);
        d.set_busy(2 * NS_PER_SEC, 0, false);
        d.set_busy(2 * NS_PER_SEC + 100 * NS_PER_MS, 0, true);
        out.clear();
        d.on_timer(10 * NS_PER_SEC, &mut out);
        assert!(out.is_empty(), "{out:?}");
        assert_eq!(d.mode(0), Mode::Active);
    }
}
