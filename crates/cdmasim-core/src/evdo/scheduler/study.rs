//! The full-buffer scheduler study of Liu et al. section 6 (Fig. 6).
//!
//! N users, every queue always full ("a perfect transport protocol"), each
//! with its own per-slot DRC sequence; the same sequences are served by each
//! discipline, and the system gain is T_PF / T_RR. Hand-offs either keep the
//! PF average A_i (as if one scheduler served the user throughout) or reset
//! it: the new sector serves the user as a new user (section 6, last
//! paragraph).

use super::{drc_rates, SlotServer};
use crate::sched::pf::{PfConfig, ProportionalFair};
use crate::sched::rr::RoundRobin;
use crate::sched::{by_name, Scheduler};
use serde::Serialize;

/// The most users a study takes: a 1xEV-DO Rev. 0 sector addresses at most
/// 59 (MAC indices 5-63); 1000 leaves room for studies beyond it while
/// refusing a mistyped count.
pub const MAX_USERS: usize = 1000;

/// Per-slot DRCs of all users, slot-major (slot n's users are contiguous,
/// which is what the scheduler reads each slot).
pub struct UserChannels {
    pub users: usize,
    pub slots: usize,
    pub drc: Vec<u8>,
    /// Hand-off slots per user, ascending.
    pub handoffs: Vec<Vec<u64>>,
}

impl UserChannels {
    /// Interleave per-user sequences (truncated to the shortest).
    pub fn from_users(seqs: &[Vec<u8>], handoffs: Vec<Vec<u64>>) -> Self {
        let users = seqs.len();
        let slots = seqs.iter().map(|s| s.len()).min().unwrap_or(0);
        let mut drc = vec![0u8; users * slots];
        for (u, s) in seqs.iter().enumerate() {
            for (n, &d) in s[..slots].iter().enumerate() {
                drc[n * users + u] = d;
            }
        }
        let mut handoffs = handoffs;
        handoffs.resize(users, Vec::new());
        Self { users, slots, drc, handoffs }
    }
}

/// Channels of `users` users drawn from a preset, each with its own seed
/// (co-located users with different statistics, Liu et al. section 5.1.3).
pub fn preset_channels(preset: &str, users: usize, slots: u64, seed: u64) -> Option<UserChannels> {
    use crate::channel::{collect, presets};
    let mut seqs = Vec::with_capacity(users);
    let mut hos = Vec::with_capacity(users);
    for k in 0..users {
        if crate::engine::interrupt::requested() {
            break;
        }
        let mut src = presets::source(preset, presets::user_seed(seed, k))?;
        let t = collect(src.as_mut(), slots);
        seqs.push(t.drc);
        hos.push(t.handoffs);
    }
    Some(UserChannels::from_users(&seqs, hos))
}

/// Channels of `users` users from recorded traces: user k plays trace
/// k mod len, looping; when users share traces each starts at an independent
/// random slot (Liu et al. section 6: "random start slots for users").
pub fn trace_channels(traces: &[std::sync::Arc<crate::channel::DrcTrace>], users: usize, slots: u64, seed: u64) -> UserChannels {
    use crate::channel::{collect, TraceSource};
    let mut rng = crate::engine::RngStreams::new(seed).stream("study/start");
    let mut seqs = Vec::with_capacity(users);
    let mut hos = Vec::with_capacity(users);
    for u in 0..users {
        let t = traces[u % traces.len()].clone();
        let start = if traces.len() < users { rng.below(t.len().max(1) as u64) as usize } else { 0 };
        let c = collect(&mut TraceSource::new(t, start, true), slots);
        seqs.push(c.drc);
        hos.push(c.handoffs);
    }
    UserChannels::from_users(&seqs, hos)
}

impl UserChannels {
    /// Give users without hand-offs of their own one every `lo..=hi` slots
    /// (uniform), the first at a uniform point of the first interval.
    pub fn add_synthetic_handoffs(&mut self, lo: u64, hi: u64, seed: u64) {
        let hi = hi.max(lo).max(1);
        let mut rng = crate::engine::RngStreams::new(seed).stream("study/handoffs");
        for h in self.handoffs.iter_mut().filter(|h| h.is_empty()) {
            let mut t = rng.below(hi + 1);
            while t < self.slots as u64 {
                h.push(t);
                t += lo.max(1) + rng.below(hi - lo.max(1) + 1);
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HandoffPolicy {
    /// Ignore hand-offs: one scheduler serves the users throughout.
    Keep,
    /// At each hand-off the user's scheduler state is reset and its packet in
    /// flight abandoned.
    Reset,
}

#[derive(Clone, Debug, Serialize)]
pub struct StudyResult {
    pub scheduler: String,
    pub slots: u64,
    /// Per-user throughput, bit/s.
    pub user_bps: Vec<f64>,
    /// Fraction of slots carrying each user's data.
    pub user_share: Vec<f64>,
    pub system_bps: f64,
    /// Jain's index of the per-user throughputs.
    pub jain_throughput: f64,
    /// Jain's index of the per-user slot shares.
    pub jain_share: f64,
    pub idle_slots: u64,
    pub handoffs: u64,
    /// Wall-clock seconds of the slot loop (for the benchmark).
    pub loop_seconds: f64,
    /// CPU seconds of the slot loop on its thread (Linux; None elsewhere):
    /// the honest figure on a shared machine.
    pub loop_cpu_seconds: Option<f64>,
}

/// CPU time of the calling thread from /proc/thread-self/schedstat (ns on CPU).
fn thread_cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(s.split_whitespace().next()?.parse::<u64>().ok()? as f64 * 1e-9)
}

/// Jain's fairness index (models::jain); a study where nobody was served
/// counts as perfectly fair.
fn jain(x: &[f64]) -> f64 {
    crate::models::jain::jain_index(x).unwrap_or(1.0)
}

/// `interlace`: 0 = per-slot rates (every slot served at its DRC rate, as in
/// Liu et al.'s trace study); 1 = multi-slot packets in consecutive slots;
/// 4 = the standard four-slot interlace.
pub fn run(ch: &UserChannels, scheduler: &str, pf: &PfConfig, interlace: usize, policy: HandoffPolicy) -> Option<StudyResult> {
    // Concrete types so the slot loop inlines the scheduler (the trait object
    // path is what a sector uses; it costs a call per slot).
    match scheduler {
        "pf" => Some(run_with(ch, &mut ProportionalFair::new(ch.users, pf.clone(), &drc_rates()), interlace, policy)),
        "rr" => Some(run_with(ch, &mut RoundRobin::new(ch.users), interlace, policy)),
        _ => Some(run_with(ch, by_name(scheduler, ch.users, pf, &drc_rates())?.as_mut(), interlace, policy)),
    }
}

fn run_with<S: Scheduler + ?Sized>(ch: &UserChannels, sched: &mut S, interlace: usize, policy: HandoffPolicy) -> StudyResult {
    let scheduler = sched.name();
    let mut server = if interlace == 0 { SlotServer::per_slot_rates() } else { SlotServer::new(interlace) };
    let n = ch.users;
    let mut bits = vec![0f64; n];
    let mut served = vec![0u64; n];
    let mut idle = 0u64;
    // All hand-offs in slot order: (slot, user).
    let mut events: Vec<(u64, usize)> = Vec::new();
    if policy == HandoffPolicy::Reset {
        for (u, h) in ch.handoffs.iter().enumerate() {
            events.extend(h.iter().map(|&s| (s, u)));
        }
        events.sort_unstable();
    }
    let mut next_ev = 0;
    let t0 = std::time::Instant::now();
    let c0 = thread_cpu_seconds();
    let mut start = 0usize;
    while start < ch.slots {
        // Run without checks up to the next hand-off, a million slots at most
        // between looks at an outside stop (the caller discards the result).
        if crate::engine::interrupt::requested() {
            break;
        }
        let stop = events.get(next_ev).map_or(ch.slots, |e| (e.0 as usize).min(ch.slots)).min(start + (1 << 20));
        for slot in start..stop {
            let drc = &ch.drc[slot * n..slot * n + n];
            match server.step(sched, drc, None) {
                Some(o) => {
                    bits[o.user] += o.slot_bits;
                    served[o.user] += 1;
                }
                None => idle += 1,
            }
        }
        start = stop;
        while next_ev < events.len() && events[next_ev].0 as usize <= start {
            let u = events[next_ev].1;
            sched.reset_user(u);
            server.drop_user(u);
            next_ev += 1;
        }
    }
    let loop_seconds = t0.elapsed().as_secs_f64();
    let loop_cpu_seconds = match (c0, thread_cpu_seconds()) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    let secs = ch.slots as f64 / 600.0;
    let user_bps: Vec<f64> = bits.iter().map(|b| b / secs).collect();
    let user_share: Vec<f64> = served.iter().map(|&s| s as f64 / ch.slots as f64).collect();
    StudyResult {
        scheduler: scheduler.to_string(),
        slots: ch.slots as u64,
        system_bps: user_bps.iter().sum(),
        jain_throughput: jain(&user_bps),
        jain_share: jain(&user_share),
        user_bps,
        user_share,
        idle_slots: idle,
        handoffs: next_ev as u64,
        loop_seconds,
        loop_cpu_seconds,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Rng;

    #[test]
    fn jain_closed_forms() {
        assert!((jain(&[1.0, 1.0, 1.0]) - 1.0).abs() < 1e-12);
        assert!((jain(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        assert_eq!(jain(&[0.0, 0.0]), 1.0);
    }

    #[test]
    fn constant_channels_pf_equals_rr() {
        // Without variation there is nothing to exploit: PF shares time
        // equally like RR and the gain is 1.
        let seqs = vec![vec![12u8; 60_000], vec![6u8; 60_000], vec![9u8; 60_000]];
        let ch = UserChannels::from_users(&seqs, vec![]);
        let pf = run(&ch, "pf", &PfConfig::default(), 4, HandoffPolicy::Keep).unwrap();
        let rr = run(&ch, "rr", &PfConfig::default(), 4, HandoffPolicy::Keep).unwrap();
        assert!((pf.system_bps / rr.system_bps - 1.0).abs() < 0.01, "{} {}", pf.system_bps, rr.system_bps);
        for s in &pf.user_share {
            assert!((s - 1.0 / 3.0).abs() < 0.01, "{:?}", pf.user_share);
        }
        // RR throughput: each user 1/3 of the slots at its own rate.
        let want = (2_457_600.0 + 614_400.0 + 1_228_800.0) / 3.0;
        assert!((rr.system_bps / want - 1.0).abs() < 1e-3);
    }

    #[test]
    fn iid_two_state_channels_pf_gain_closed_form() {
        // Two users, each iid: 2457.6 kb/s or 1228.8 kb/s with prob 1/2, single
        // slot formats. Symmetric users: PF (small alpha) serves the user with
        // the higher rate whenever rates differ and splits ties; the system
        // rate is E[max(R1, R2)] = 2457.6 * 3/4 + 1228.8 / 4 against RR's
        // E[R] = 1843.2 kb/s: gain 2150.4 / 1843.2 = 1.1667.
        let mut rng = Rng::from_seed(4);
        let seqs: Vec<Vec<u8>> =
            (0..2).map(|_| (0..300_000).map(|_| if rng.bernoulli(0.5) { 12 } else { 9 }).collect()).collect();
        let ch = UserChannels::from_users(&seqs, vec![]);
        let pf = run(&ch, "pf", &PfConfig::default(), 1, HandoffPolicy::Keep).unwrap();
        let rr = run(&ch, "rr", &PfConfig::default(), 1, HandoffPolicy::Keep).unwrap();
        let g = pf.system_bps / rr.system_bps;
        assert!((g - 2150.4 / 1843.2).abs() < 0.01, "gain {g}");
        assert!(pf.jain_throughput > 0.999);
        let mc = run(&ch, "maxci", &PfConfig::default(), 1, HandoffPolicy::Keep).unwrap();
        assert!(mc.system_bps >= pf.system_bps * 0.999);
    }
}
