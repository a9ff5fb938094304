//! BBR v1 (Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson, "BBR:
//! Congestion-Based Congestion Control", ACM Queue 14(5), 2016;
//! draft-cardwell-iccrg-bbr-congestion-control-00, 2017, cited as "draft §x").
//!
//! A model of the path from two filters: BtlBw, the windowed maximum of the
//! delivery rate over `bw_window_rounds` packet-timed round trips, and
//! RTprop, the minimum RTT seen in the last `min_rtt_window`. The sender
//! paces at pacing_gain × BtlBw and caps inflight at
//! cwnd_gain × BtlBw × RTprop + 3 send quanta (draft §4.2.3.2). Four modes:
//! Startup (both gains 2/ln 2) until the bandwidth stops growing by 25 % for
//! three rounds; Drain (pacing gain ln 2 / 2) until inflight ≤ one BDP;
//! ProbeBW cycling the pacing gain through [5/4, 3/4, 1, 1, 1, 1, 1, 1], one
//! RTprop per phase; ProbeRTT (cwnd 4 segments for 200 ms and a round) when
//! RTprop has not been refreshed for `min_rtt_window`.
//!
//! Choices where this differs from Linux's tcp_bbr.c (v1):
//! - Units are payload bytes; the pacing rate is converted to wire bytes
//!   (× (MSS + header) / MSS) because the sender spaces segments by wire
//!   size, as Linux does by multiplying its packets/s estimate by the MTU.
//! - No pacing margin (later Linux kernels pace at 99 %): gain 1 paces at
//!   exactly BtlBw, as in the paper and the draft.
//! - Send quantum one SMSS, as in ns-3's TcpBbr. Draft §4.2.2 sizes the
//!   quantum for senders that hand TSO/GSO aggregates to the NIC (pacing
//!   rate × 1 ms within [1 SMSS below 1.2 Mb/s else 2 SMSS, 64 KB]); this
//!   sender paces and transmits single segments, so its aggregate is one
//!   segment and the quantum only enters the cwnd budget (3 quanta). The
//!   draft's rule would make that budget jump from 3 to 6 segments at
//!   1.2 Mb/s: flows sharing a link near that rate then split into two
//!   groups whose windows, and so rates, differ by a factor of two.
//! - ProbeBW starts at phase 2 (the first gain-1 phase, as if the 3/4 phase
//!   had just drained the queue) instead of a random phase other than 3/4:
//!   deterministic without an RNG stream; flows entering ProbeBW at
//!   different times still have their cycles out of step.
//! - The BtlBw filter is an exact windowed max (monotone deque) rather than
//!   Linux's three-sample approximation; a sample lives for `bw_window_rounds`
//!   rounds (the current one and the nine before it by default).
//! - Not modelled: the long-term (policer) bandwidth estimate, restart after
//!   idle, and the per-ACK loss deduction from cwnd in recovery (the sender's
//!   ACK carries no loss count); a 5/4 phase counts as lossy while the sender
//!   is in Recovery or Loss.

use super::{Ack, CaState, CongestionControl, CongestionEvent, RateSample, Window};
use crate::engine::{Time, NS_PER_MS, NS_PER_SEC};
use std::collections::VecDeque;
use serde::{Deserialize, Serialize};

/// BBR v1 (Cardwell et al., ACM Queue 2016; draft-cardwell-iccrg-bbr-congestion-control-00).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BbrParams {
    /// Startup pacing and cwnd gain (2/ln 2).
    pub high_gain: f64,
    /// cwnd gain in ProbeBW (2).
    pub cwnd_gain: f64,
    /// Max filter window for the bottleneck bandwidth, in round trips (10).
    pub bw_window_rounds: u32,
    /// Min filter window for RTprop (10 s).
    pub min_rtt_window: Time,
    /// Time spent in ProbeRTT at 4 packets in flight (200 ms).
    pub probe_rtt_duration: Time,
    /// Startup ends when bandwidth grew less than this factor (1.25) ...
    pub full_bw_growth: f64,
    /// ... for this many round trips in a row (3).
    pub full_bw_rounds: u32,
}

impl Default for BbrParams {
    fn default() -> Self {
        Self {
            high_gain: 2.0 / std::f64::consts::LN_2,
            cwnd_gain: 2.0,
            bw_window_rounds: 10,
            min_rtt_window: 10 * crate::engine::NS_PER_SEC,
            probe_rtt_duration: 200 * crate::engine::NS_PER_MS,
            full_bw_growth: 1.25,
            full_bw_rounds: 3,
        }
    }
}


/// ProbeBW pacing gains, one phase per RTprop (paper, "ProbeBW"; draft §4.3.4.3).
pub const GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// The phase ProbeBW starts in (see the module notes).
pub const START_PHASE: usize = 2;
/// cwnd floor and the ProbeRTT window, in segments (draft: BBRMinPipeCwnd).
pub const MIN_PIPE_SEGS: u64 = 4;
/// RTT assumed for the initial pacing rate if the handshake gave no sample
/// (Linux uses 1 ms).
const DEFAULT_RTT: Time = NS_PER_MS;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// Exact maximum of the samples of the last `window` rounds.
#[derive(Clone, Debug)]
pub struct MaxFilter {
    window: u64,
    /// (round, value), rounds increasing, values decreasing.
    q: VecDeque<(u64, f64)>,
}

impl MaxFilter {
    pub fn new(window: u64) -> Self {
        MaxFilter { window: window.max(1), q: VecDeque::new() }
    }

    pub fn update(&mut self, round: u64, v: f64) {
        while self.q.back().is_some_and(|b| b.1 <= v) {
            self.q.pop_back();
        }
        self.q.push_back((round, v));
        while self.q.front().is_some_and(|f| f.0 + self.window <= round) {
            self.q.pop_front();
        }
    }

    pub fn get(&self) -> f64 {
        self.q.front().map_or(0.0, |f| f.1)
    }
}

pub struct Bbr {
    p: BbrParams,
    mode: Mode,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// BtlBw filter, payload bytes per second.
    bw: MaxFilter,
    /// RTprop and when it was last set.
    rt_prop: Option<Time>,
    rt_prop_stamp: Time,
    /// Total bytes delivered (from the latest rate sample).
    delivered: u64,
    /// A round ends when a packet sent after this much was delivered is delivered.
    next_round_delivered: u64,
    round_count: u64,
    round_start: bool,
    full_bw: f64,
    full_bw_count: u32,
    full_bw_reached: bool,
    cycle_index: usize,
    cycle_stamp: Time,
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    /// BBR's own app-limited marking for ProbeRTT (Linux sets tp->app_limited
    /// to delivered + inflight on every ProbeRTT ACK; it stays until that much
    /// is delivered): a packet sent while delivered was in [from, until] was
    /// sent under the mark. `until` is refreshed on every ProbeRTT ACK and
    /// frozen after it, which reproduces Linux's mark exactly.
    probe_rtt_al_from: u64,
    probe_rtt_al_until: u64,
    prior_cwnd: u64,
    prev_state: CaState,
    packet_conservation: bool,
    restore_cwnd: bool,
    /// Wire bytes per second; 0 until `init`.
    pacing_rate: u64,
    has_seen_rtt: bool,
    last_rtt: Option<Time>,
    header: u64,
    mss: u64,
    init_cwnd: u64,
    /// The rate sample of the ACK being processed (on_rate_sample comes first).
    sample: Option<RateSample>,
}

impl Bbr {
    pub fn new(p: BbrParams) -> Self {
        Bbr {
            mode: Mode::Startup,
            pacing_gain: p.high_gain,
            cwnd_gain: p.high_gain,
            bw: MaxFilter::new(p.bw_window_rounds as u64),
            rt_prop: None,
            rt_prop_stamp: Time::ZERO,
            delivered: 0,
            next_round_delivered: 0,
            round_count: 0,
            round_start: false,
            full_bw: 0.0,
            full_bw_count: 0,
            full_bw_reached: false,
            cycle_index: START_PHASE,
            cycle_stamp: Time::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            probe_rtt_al_from: 0,
            probe_rtt_al_until: 0,
            prior_cwnd: 0,
            prev_state: CaState::Open,
            packet_conservation: false,
            restore_cwnd: false,
            pacing_rate: 0,
            has_seen_rtt: false,
            last_rtt: None,
            header: 40,
            mss: 1460,
            init_cwnd: 0,
            sample: None,
            p,
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }
    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }
    pub fn cwnd_gain(&self) -> f64 {
        self.cwnd_gain
    }
    /// BtlBw in payload bytes per second.
    pub fn btl_bw(&self) -> f64 {
        self.bw.get()
    }
    pub fn rt_prop(&self) -> Option<Time> {
        self.rt_prop
    }
    pub fn round_count(&self) -> u64 {
        self.round_count
    }
    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }

    /// Wire bytes per payload byte of a full segment.
    fn wire_factor(&self) -> f64 {
        (self.mss + self.header) as f64 / self.mss as f64
    }

    /// Draft §4.2.3.2 BBRInflight: gain × BtlBw × RTprop + 3 send quanta
    /// (bytes); the initial window while there is no model yet.
    pub fn inflight(&self, gain: f64) -> u64 {
        let (Some(rt), bw) = (self.rt_prop, self.bw.get()) else { return self.init_cwnd };
        if bw <= 0.0 {
            return self.init_cwnd;
        }
        let bdp = bw * rt.0 as f64 / NS_PER_SEC.0 as f64;
        (gain * bdp).ceil() as u64 + 3 * self.send_quantum()
    }

    /// Draft §4.2.2's send quantum is the largest aggregate the sender
    /// transmits at once; here every transmission is one segment (see the
    /// module notes), so it is one SMSS whatever the pacing rate.
    fn send_quantum(&self) -> u64 {
        self.mss
    }

    /// Paper: pacing_rate = pacing_gain × BtlBw; Startup never lowers it
    /// (Linux bbr_set_pacing_rate).
    fn set_pacing_rate(&mut self) {
        if !self.has_seen_rtt {
            if let Some(rtt) = self.last_rtt {
                self.init_pacing_rate(rtt);
            }
        }
        let bw = self.bw.get();
        if bw <= 0.0 {
            return;
        }
        let rate = (self.pacing_gain * bw * self.wire_factor()) as u64;
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate.max(1);
        }
    }

    /// Draft §4.2.1 BBRInitPacingRate: high_gain × initial cwnd / RTT.
    fn init_pacing_rate(&mut self, rtt: Time) {
        self.has_seen_rtt = true;
        let bytes = self.init_cwnd as f64 * self.wire_factor();
        self.pacing_rate = ((self.p.high_gain * bytes * NS_PER_SEC.0 as f64 / rtt.max(Time(1)).0 as f64) as u64).max(1);
    }

    fn enter_startup(&mut self) {
        self.mode = Mode::Startup;
        self.pacing_gain = self.p.high_gain;
        self.cwnd_gain = self.p.high_gain;
    }

    fn enter_probe_bw(&mut self, now: Time) {
        self.mode = Mode::ProbeBw;
        self.cwnd_gain = self.p.cwnd_gain;
        self.cycle_index = START_PHASE;
        self.pacing_gain = GAIN_CYCLE[self.cycle_index];
        self.cycle_stamp = now;
    }

    /// After ProbeRTT: back to Startup if the pipe was never filled.
    fn reset_mode(&mut self, now: Time) {
        if self.full_bw_reached {
            self.enter_probe_bw(now);
        } else {
            self.enter_startup();
        }
    }

    /// Remember the last cwnd that recovery or ProbeRTT did not cut.
    fn save_cwnd(&mut self, cwnd: u64) {
        if self.prev_state == CaState::Open && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    /// The sample counts as app-limited (the sender's mark or ProbeRTT's).
    fn app_limited(&self, rs: &RateSample) -> bool {
        rs.app_limited
            || (self.probe_rtt_al_until != 0
                && rs.prior_delivered >= self.probe_rtt_al_from
                && rs.prior_delivered <= self.probe_rtt_al_until)
    }

    /// Draft §4.1.1.3 / §4.5.1: count rounds and feed the BtlBw filter.
    fn update_bw(&mut self, rs: &RateSample, app_limited: bool) {
        self.round_start = false;
        // A sample spanning less than RTprop is not a delivery rate of the
        // path (Linux tcp_rate_gen discards it).
        if rs.delivered == 0 || rs.interval == Time::ZERO || self.rt_prop.is_some_and(|m| rs.interval < m) {
            return;
        }
        if rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = self.delivered;
            self.round_count += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        let rate = rs.rate();
        // App-limited samples enter only if they raise the estimate.
        if !app_limited || rate >= self.bw.get() {
            self.bw.update(self.round_count, rate);
        }
    }

    /// Draft §4.3.4.3: advance the ProbeBW phase.
    fn update_cycle_phase(&mut self, now: Time, prior_in_flight: u64, lossy: bool) {
        if self.mode != Mode::ProbeBw {
            return;
        }
        let full_length = self.rt_prop.is_some_and(|m| now - self.cycle_stamp > m);
        let next = if self.pacing_gain > 1.0 {
            full_length && (lossy || prior_in_flight >= self.inflight(self.pacing_gain))
        } else if self.pacing_gain < 1.0 {
            full_length || prior_in_flight <= self.inflight(1.0)
        } else {
            full_length
        };
        if next {
            self.cycle_index = (self.cycle_index + 1) % GAIN_CYCLE.len();
            self.cycle_stamp = now;
            self.pacing_gain = GAIN_CYCLE[self.cycle_index];
        }
    }

    /// Draft §4.3.2.2 BBRCheckFullPipe: full_bw_rounds rounds in a row in
    /// which BtlBw grew by less than full_bw_growth.
    fn check_full_bw(&mut self, app_limited: bool) {
        if self.full_bw_reached || !self.round_start || app_limited {
            return;
        }
        let bw = self.bw.get();
        if bw >= self.full_bw * self.p.full_bw_growth {
            self.full_bw = bw;
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_reached = self.full_bw_count >= self.p.full_bw_rounds;
    }

    /// Draft §4.3.3: Startup → Drain → ProbeBW.
    fn check_drain(&mut self, w: &mut Window, now: Time, in_flight: u64) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.pacing_gain = 1.0 / self.p.high_gain;
            self.cwnd_gain = self.p.high_gain;
            // Reported only (Linux does the same): one BDP.
            w.ssthresh = self.inflight(1.0);
        }
        if self.mode == Mode::Drain && in_flight <= self.inflight(1.0) {
            self.enter_probe_bw(now);
        }
    }

    /// Draft §4.1.2.3 and §4.3.5: RTprop filter and ProbeRTT.
    fn update_rt_prop(&mut self, w: &Window, now: Time, rtt: Option<Time>, in_flight: u64) {
        let expired = now > self.rt_prop_stamp + self.p.min_rtt_window;
        if let Some(r) = rtt {
            if self.rt_prop.is_none_or(|m| r <= m) || expired {
                self.rt_prop = Some(r);
                self.rt_prop_stamp = now;
            }
        }
        if expired && self.mode != Mode::ProbeRtt {
            self.save_cwnd(w.cwnd);
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.probe_rtt_done = None;
            self.probe_rtt_al_from = self.delivered;
        }
        if self.mode != Mode::ProbeRtt {
            return;
        }
        // The low rates of this mode must not enter the BtlBw filter.
        self.probe_rtt_al_until = (self.delivered + in_flight).max(1);
        match self.probe_rtt_done {
            None if in_flight <= MIN_PIPE_SEGS * self.mss => {
                self.probe_rtt_done = Some(now + self.p.probe_rtt_duration);
                self.probe_rtt_round_done = false;
                self.next_round_delivered = self.delivered;
            }
            None => {}
            Some(done) => {
                self.probe_rtt_round_done |= self.round_start;
                if self.probe_rtt_round_done && now > done {
                    self.rt_prop_stamp = now;
                    self.restore_cwnd = true;
                    self.reset_mode(now);
                }
            }
        }
    }

    /// Draft §4.2.3: cwnd toward cwnd_gain × BDP; packet conservation in the
    /// first round of recovery; the saved cwnd back after recovery or ProbeRTT.
    fn set_cwnd(&mut self, w: &mut Window, ack: &Ack) {
        let acked = ack.bytes_delivered;
        let mut cwnd = w.cwnd;
        if ack.state == CaState::Recovery && self.prev_state != CaState::Recovery {
            // Draft §4.2.3.4: first round of recovery; start that round now.
            self.packet_conservation = true;
            self.next_round_delivered = self.delivered;
            cwnd = ack.in_flight + acked;
        } else if self.prev_state != CaState::Open && ack.state == CaState::Open {
            self.restore_cwnd = true;
            self.packet_conservation = false;
        }
        self.prev_state = ack.state;
        if self.restore_cwnd {
            cwnd = cwnd.max(self.prior_cwnd);
            self.restore_cwnd = false;
        }
        if self.packet_conservation {
            cwnd = cwnd.max(ack.in_flight + acked);
        } else {
            let target = self.inflight(self.cwnd_gain);
            if self.full_bw_reached {
                cwnd = (cwnd + acked).min(target);
            } else if cwnd < target || self.delivered < self.init_cwnd {
                cwnd += acked;
            }
            cwnd = cwnd.max(MIN_PIPE_SEGS * self.mss);
        }
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(MIN_PIPE_SEGS * self.mss);
        }
        w.cwnd = cwnd;
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    fn owns_cwnd(&self) -> bool {
        true
    }

    fn init(&mut self, w: &mut Window, now: Time, header_bytes: u32) {
        self.mss = w.mss;
        self.header = header_bytes as u64;
        self.init_cwnd = w.cwnd;
        if let Some(r) = self.last_rtt {
            // Linux starts min_rtt from the handshake's RTT.
            self.rt_prop = Some(r);
        }
        self.rt_prop_stamp = now;
        self.cycle_stamp = now;
        self.init_pacing_rate(self.last_rtt.unwrap_or(DEFAULT_RTT));
        self.has_seen_rtt = self.last_rtt.is_some();
    }

    fn on_rtt_sample(&mut self, _now: Time, rtt: Time) {
        self.last_rtt = Some(rtt);
    }

    fn on_rate_sample(&mut self, _now: Time, rs: &RateSample) {
        self.sample = Some(*rs);
    }

    /// Every delivering ACK (the sender calls this in any state: owns_cwnd).
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        self.mss = w.mss;
        if self.init_cwnd == 0 {
            self.init_cwnd = w.cwnd;
        }
        let sample = self.sample.take();
        // A duplicate ACK without SACK delivers a segment but gives no sample.
        self.delivered = sample.map_or(self.delivered + ack.bytes_delivered, |rs| rs.prior_delivered + rs.delivered);
        if let Some(rs) = sample {
            let app_limited = self.app_limited(&rs);
            self.update_bw(&rs, app_limited);
            self.update_cycle_phase(ack.now, ack.prior_in_flight, ack.state != CaState::Open);
            self.check_full_bw(app_limited);
            self.check_drain(w, ack.now, ack.in_flight);
            self.update_rt_prop(w, ack.now, rs.rtt, ack.in_flight);
        }
        self.set_pacing_rate();
        self.set_cwnd(w, ack);
    }

    /// BBR v1 does not reduce on a congestion event: it notes cwnd to restore
    /// after recovery and leaves ssthresh (Linux bbr_ssthresh).
    fn ssthresh(&mut self, w: &Window, _in_flight: u64, _ev: CongestionEvent, _now: Time) -> u64 {
        self.save_cwnd(w.cwnd);
        w.ssthresh
    }

    fn on_state_change(&mut self, _w: &mut Window, _now: Time, _from: CaState, to: CaState, _in_flight: u64) {
        if to == CaState::Loss {
            // Linux bbr_set_state: a timeout restarts the full-pipe check.
            self.prev_state = CaState::Loss;
            self.full_bw = 0.0;
        }
    }

    /// A spurious event: cwnd comes back on the return to Open (set_cwnd);
    /// only the full-pipe counters restart (Linux bbr_undo_cwnd).
    fn undo(&mut self, _w: &mut Window, _saved: &Window) {
        self.full_bw = 0.0;
        self.full_bw_count = 0;
    }

    fn pacing_rate(&self) -> Option<u64> {
        (self.pacing_rate > 0).then_some(self.pacing_rate)
    }
}

#[cfg(test)]
#[path = "bbr_tests.rs"]
mod tests;
