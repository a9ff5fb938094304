//! The sending side of a bulk TCP connection.
//!
//! - Handshake: SYN with MSS, SACK-permitted, window-scale and timestamp
//!   options, retransmitted on the RTO; IW of `initial_window` segments
//!   (RFC 6928/5681), one segment if the SYN had to be retransmitted
//!   (RFC 6298 §5.7). Optionally none (`handshake = false`): data from the
//!   start, as ns-2's one-way agents.
//! - Loss recovery, chosen by the scenario:
//!   Reno (RFC 5681 §3.2: fast retransmit, fast recovery ends on the first new ACK),
//!   NewReno (RFC 6582: stay in recovery until `recover` is acknowledged,
//!   retransmit on each partial ACK), or SACK (RFC 6675: scoreboard, pipe, NextSeg).
//! - Limited Transmit (RFC 3042), an option on by default as in Linux, ns-2
//!   and ns-3: the first two duplicate ACKs each let one new segment out.
//! - Retransmission timer per RFC 6298 with Karn's rule; after it expires,
//!   go-back-N from snd_una with cwnd = 1 SMSS (RFC 5681 §3.1).
//! - RTT samples come from per-segment send times of never-retransmitted
//!   segments; with timestamps (RFC 7323 §4) retransmitted ones are measured
//!   through TSecr too. Or (`rtt_sampling = "one_per_rtt"`) as BSD and ns-2
//!   do: one segment timed per round trip, the timing cancelled by any
//!   retransmission.

use super::cc::{Ack, AckEvent, CaState, CongestionControl, CongestionEvent, Window};
use super::rate::DeliveryRate;
use super::rtt::RttEstimator;
use super::scoreboard::{Next, Scoreboard};
use crate::engine::{Time, NS_PER_MS};
use crate::net::packet::{SynOptions, TcpFlags, TcpHeader};
use super::cc::CcAlgo;
use super::config::{LossResponse, RttSampling, SpuriousDetection, TcpSpec};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// The application has not started.
    Idle,
    /// A SYN is due (first or retransmitted).
    SynDue,
    SynSent,
    Established,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Recovery {
    Reno,
    NewReno,
    Sack,
}

#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    /// Data segments sent, retransmissions included.
    pub segments_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    /// Timeouts found spurious (RFC 3522 Eifel or RFC 5682 F-RTO detection).
    pub spurious_timeouts: u64,
    pub fast_recoveries: u64,
    pub rtt_samples: u64,
    pub rtt_sum: f64,
    pub rtt_min: Option<Time>,
    pub rtt_max: Option<Time>,
    pub completed_at: Option<Time>,
    /// Times of every congestion event (fast retransmit or timeout).
    pub congestion_events: Vec<Time>,
}

/// A retransmission timeout being tested for spuriousness (RFC 3522, RFC 5682).
#[derive(Clone, Copy, Debug)]
struct SpuriousCheck {
    /// TSval of the timeout's retransmission: an ACK echoing an older value
    /// was caused by the original transmission (RFC 3522 §2).
    retransmit_ts: u32,
    /// F-RTO: new ACKs seen since the timeout (RFC 5682 §2, steps 2 and 3).
    frto_acks: u8,
    /// The window before the timeout, for the response and the algorithm's undo.
    prev: Window,
    /// RFC 4015 §3.1: FlightSize at the timeout, or ssthresh if it came
    /// during fast recovery; the response restores ssthresh to it.
    pipe_prev: u64,
    /// snd_max at the timeout (RFC 5682's "recover").
    recover: u64,
}

/// The timestamp clock: milliseconds since the start of the run (RFC 7323 §5.4
/// allows 1 ms to 1 s per tick).
pub fn ts_clock(now: Time) -> u32 {
    (now / NS_PER_MS) as u32
}

pub struct TcpSender {
    spec: TcpSpec,
    mode: Recovery,
    cc: Box<dyn CongestionControl>,
    state: State,
    w: Window,
    rtt: RttEstimator,
    board: Scoreboard,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    rwnd: u64,
    /// Total payload bytes the application will write (None: unbounded).
    app_limit: Option<u64>,
    dupacks: u32,
    in_recovery: bool,
    ca_state: CaState,
    /// RFC 6582 `recover` (exclusive: first sequence number not yet sent at the event).
    recover: u64,
    /// RFC 6675 HighRxt (exclusive end of the highest retransmission).
    high_rxt: u64,
    partial_acks: u32,
    /// A retransmission to send at once, outside the window check.
    rtx_now: Option<u64>,
    rto_deadline: Option<Time>,
    syn_sent_at: Time,
    syn_retransmitted: bool,
    ts_recent: u32,
    rate: DeliveryRate,
    /// Pacing: the earliest time the next data segment may leave, and
    /// whether a poll was refused because of it (then it is a deadline).
    next_send_at: Time,
    pacing_blocked: bool,
    spurious: Option<SpuriousCheck>,
    /// F-RTO step 2b: new segments that may go beyond cwnd.
    frto_quota: u8,
    /// `rtt_sampling = "one_per_rtt"`: the segment being timed, as (end
    /// sequence number, send time).
    timed: Option<(u64, Time)>,
    pub stats: SenderStats,
    /// (time, cwnd, ssthresh) at every change, when the spec asks for it.
    pub cwnd_trace: Vec<(Time, u64, u64)>,
    /// (time, pacing rate in bytes/s) alongside, for an algorithm that paces.
    pub pacing_trace: Vec<(Time, u64)>,
}

impl TcpSender {
    pub fn new(spec: TcpSpec, cc: Box<dyn CongestionControl>, app_limit: Option<u64>) -> Self {
        let mode = if spec.sack {
            Recovery::Sack
        } else if matches!(spec.cc, CcAlgo::Reno) {
            Recovery::Reno
        } else {
            Recovery::NewReno
        };
        let mss = spec.mss as u64;
        let rtt = match spec.timer_granularity {
            None => RttEstimator::new(spec.initial_rto, spec.min_rto, spec.max_rto).with_rule(spec.rto_rule),
            Some(tick) => RttEstimator::with_tick(spec.initial_rto, spec.min_rto, spec.max_rto, tick),
        };
        TcpSender {
            mode,
            cc,
            state: State::Idle,
            w: Window { cwnd: spec.initial_window as u64 * mss, ssthresh: u64::MAX / 2, mss },
            rtt,
            board: Scoreboard::default(),
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            rwnd: mss,
            app_limit,
            dupacks: 0,
            in_recovery: false,
            ca_state: CaState::Open,
            recover: 0,
            high_rxt: 0,
            partial_acks: 0,
            rtx_now: None,
            rto_deadline: None,
            syn_sent_at: Time::ZERO,
            syn_retransmitted: false,
            ts_recent: 0,
            rate: DeliveryRate::default(),
            next_send_at: Time::ZERO,
            pacing_blocked: false,
            spurious: None,
            frto_quota: 0,
            timed: None,
            stats: SenderStats::default(),
            cwnd_trace: Vec::new(),
            pacing_trace: Vec::new(),
            spec,
        }
    }

    pub fn cwnd(&self) -> u64 {
        self.w.cwnd
    }
    pub fn ssthresh(&self) -> u64 {
        self.w.ssthresh
    }
    pub fn srtt(&self) -> Option<Time> {
        self.rtt.srtt()
    }
    /// Payload bytes acknowledged so far.
    pub fn bytes_acked(&self) -> u64 {
        self.snd_una.saturating_sub(1)
    }
    pub fn is_established(&self) -> bool {
        self.state == State::Established
    }

    /// The application opens the connection.
    pub fn start(&mut self) {
        if self.state == State::Idle {
            self.state = State::SynDue;
        }
    }

    /// The application stops writing: no new data beyond what has been sent.
    pub fn stop(&mut self) {
        let written = self.snd_max.saturating_sub(1);
        self.app_limit = Some(self.app_limit.map_or(written, |l| l.min(written)));
    }

    /// The application writes `bytes` more (an HTTP request or response on
    /// a connection kept open). A bulk sender without a limit ignores it.
    pub fn write(&mut self, bytes: u64) {
        if let Some(l) = &mut self.app_limit {
            *l += bytes;
            self.stats.completed_at = None;
        }
    }

    /// Everything the application wrote is acknowledged (false while unbounded).
    pub fn all_acked(&self) -> bool {
        self.app_limit.is_some_and(|l| self.state == State::Established && self.snd_una > l)
    }

    /// When the sender next needs `on_timer`.
    pub fn deadline(&self) -> Option<Time> {
        match (self.rto_deadline, self.pacing_blocked) {
            (Some(d), true) => Some(d.min(self.next_send_at)),
            (None, true) => Some(self.next_send_at),
            (d, false) => d,
        }
    }

    /// IPv4 + TCP header bytes of a data segment (timestamps add 12).
    fn header_bytes(&self) -> u32 {
        40 + if self.spec.timestamps { 12 } else { 0 }
    }

    /// Space data segments at the algorithm's pacing rate, by wire size.
    fn pace(&mut self, now: Time, len: u32) {
        if let Some(rate) = self.cc.pacing_rate() {
            let wire = (len + self.header_bytes()) as u64;
            self.next_send_at = self.next_send_at.max(now) + Time(wire * 1_000_000_000 / rate.max(1));
        }
    }

    fn trace(&mut self, now: Time) {
        if self.spec.trace_cwnd {
            self.cwnd_trace.push((now, self.w.cwnd, self.w.ssthresh));
            if let Some(r) = self.cc.pacing_rate() {
                self.pacing_trace.push((now, r));
            }
        }
    }

    /// Bytes in flight: RFC 6675 pipe during SACK recovery, else snd_max − snd_una.
    /// After a timeout (Loss), for an algorithm that owns cwnd, only what
    /// go-back-N has resent: everything beyond snd_nxt is deemed lost (as
    /// Linux's packets_in_flight counts it), and F-RTO or the Eifel response
    /// move snd_nxt to snd_max when they decide otherwise. The Reno family
    /// keeps RFC 5681's FlightSize (Cubic's §5.8 check compares it with the
    /// window the Eifel response restores).
    fn in_flight(&self) -> u64 {
        if self.mode == Recovery::Sack && self.in_recovery {
            self.board.pipe(self.high_rxt)
        } else if self.ca_state == CaState::Loss && self.cc.owns_cwnd() {
            self.snd_nxt - self.snd_una
        } else {
            self.snd_max - self.snd_una
        }
    }

    fn set_state(&mut self, now: Time, to: CaState) {
        if self.ca_state != to {
            let in_flight = self.in_flight();
            self.cc.on_state_change(&mut self.w, now, self.ca_state, to, in_flight);
            self.ca_state = to;
        }
    }

    fn header(&self, now: Time, seq: u64, len: u32) -> TcpHeader {
        TcpHeader {
            seq,
            ack: 1,
            len,
            flags: TcpFlags(TcpFlags::ACK),
            wnd: 65_535,
            ts: self.spec.timestamps.then(|| (ts_clock(now), self.ts_recent)),
            ..Default::default()
        }
    }

    fn arm_if_idle(&mut self, now: Time) {
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
    }

    fn restart_timer(&mut self, now: Time) {
        self.rto_deadline = if self.snd_una < self.snd_max { Some(now + self.rtt.rto()) } else { None };
    }

    fn app_available(&self) -> bool {
        match self.app_limit {
            Some(l) => self.snd_max.saturating_sub(1) < l,
            None => true,
        }
    }

    /// `echo`: the sample is a timestamp's (TSecr), not a send time's.
    fn take_sample(&mut self, now: Time, r: Time, echo: bool) {
        self.rtt.sample_at(now, r, echo);
        self.cc.on_rtt_sample(now, r);
        let s = &mut self.stats;
        s.rtt_samples += 1;
        s.rtt_sum += r.0 as f64;
        s.rtt_min = Some(s.rtt_min.map_or(r, |m| m.min(r)));
        s.rtt_max = Some(s.rtt_max.map_or(r, |m| m.max(r)));
    }

    /// The next segment to send now, if any. Call until it returns None.
    pub fn poll(&mut self, now: Time) -> Option<TcpHeader> {
        match self.state {
            State::Idle | State::SynSent => None,
            // One-way TCP (ns-2's Agent/TCP without syn_): no SYN; the
            // connection is open from the start and data goes at once.
            State::SynDue if !self.spec.handshake => {
                self.establish(now, self.spec.rcv_buffer);
                self.poll_data(now)
            }
            State::SynDue => {
                self.state = State::SynSent;
                self.syn_sent_at = now;
                self.snd_max = 1;
                self.rto_deadline = Some(now + self.rtt.rto());
                let mut h = self.header(now, 0, 0);
                h.flags = TcpFlags(TcpFlags::SYN);
                h.ack = 0;
                h.syn_opts = Some(SynOptions { mss: self.spec.mss as u16, sack_permitted: self.spec.sack, wscale: 0 });
                Some(h)
            }
            State::Established => self.poll_data(now),
        }
    }

    fn poll_data(&mut self, now: Time) -> Option<TcpHeader> {
        if now < self.next_send_at && self.cc.pacing_rate().is_some() {
            self.pacing_blocked = true;
            return None;
        }
        self.pacing_blocked = false;
        if let Some(seq) = self.rtx_now.take() {
            if let Some(i) = self.board.index_of(seq) {
                return Some(self.retransmit(now, i));
            }
        }
        if self.mode == Recovery::Sack && self.in_recovery {
            let pipe = self.board.pipe(self.high_rxt);
            if self.w.cwnd < pipe + self.w.mss {
                return None;
            }
            return match self.board.next_seg(self.high_rxt, self.app_available()) {
                Next::Retransmit(i) => Some(self.retransmit(now, i)),
                // In SACK recovery pipe, not cwnd, gates sending; rwnd still binds.
                Next::NewData => self.send_new(now, self.send_limit()),
                Next::Nothing => None,
            };
        }
        let win = self.w.cwnd.min(self.send_limit());
        // Go-back-N after a timeout: resend what lies between snd_nxt and snd_max.
        while self.snd_nxt < self.snd_max {
            let i = self.board.index_of(self.snd_nxt)?;
            let seg = self.board[i];
            if seg.sacked {
                self.snd_nxt = seg.end();
                continue;
            }
            let flight = self.snd_nxt - self.snd_una;
            if flight > 0 && flight + seg.len as u64 > win {
                return None;
            }
            self.snd_nxt = seg.end();
            return Some(self.retransmit(now, i));
        }
        // RFC 5682 §2 step 2b: up to two new segments, whatever cwnd says.
        if self.frto_quota > 0 {
            let flight = self.snd_max - self.snd_una;
            let h = self.send_new(now, (flight + self.w.mss).min(self.send_limit()));
            if h.is_some() {
                self.frto_quota -= 1;
            }
            return h;
        }
        // RFC 3042: while fewer than DupThresh duplicates have come, each of the
        // first two allows one segment beyond cwnd (not beyond rwnd), cwnd unchanged.
        let extra = if self.spec.limited_transmit && !self.in_recovery {
            self.dupacks.min(2) as u64 * self.w.mss
        } else {
            0
        };
        self.send_new(now, (self.w.cwnd + extra).min(self.send_limit()))
    }

    /// What the window may never exceed, whatever cwnd says: the peer's
    /// advertised window, and the sender's own socket buffer, which must keep
    /// every unacknowledged byte until its ACK (RFC 9293 §3.8.6.2.1's "usable
    /// window" is the same bound seen from the receiver's side).
    fn send_limit(&self) -> u64 {
        self.rwnd.min(self.spec.snd_buffer.unwrap_or(u64::MAX))
    }

    fn send_new(&mut self, now: Time, win: u64) -> Option<TcpHeader> {
        if !self.app_available() {
            // draft-cheng-iccrg-delivery-rate-estimation §3.4: room in the
            // window but nothing to send makes the next samples app-limited.
            let in_flight = self.in_flight();
            if in_flight < self.w.cwnd {
                self.rate.mark_app_limited(in_flight);
            }
            return None;
        }
        let left = self.app_limit.map_or(u64::MAX, |l| l - (self.snd_max - 1));
        let mut len = left.min(self.w.mss);
        let flight = self.snd_max - self.snd_una;
        if flight + len > win {
            // Send a short segment only to get a stalled connection going.
            if flight > 0 || win == 0 {
                return None;
            }
            len = win;
        }
        let seq = self.snd_max;
        let rs = self.rate.on_send(now, self.snd_max == self.snd_una);
        self.board.push(seq, len as u32, now, rs);
        self.pace(now, len as u32);
        self.snd_max += len;
        self.snd_nxt = self.snd_max;
        if self.spec.rtt_sampling == RttSampling::OnePerRtt && self.timed.is_none() {
            // BSD / ns-2 (tcp.cc output: rtt_active_, rtt_seq_, rtt_ts_): time
            // the first new segment sent while no timing runs.
            self.timed = Some((self.snd_max, now));
        }
        self.stats.segments_sent += 1;
        self.arm_if_idle(now);
        Some(self.header(now, seq, len as u32))
    }

    fn retransmit(&mut self, now: Time, i: usize) -> TcpHeader {
        // Karn: any retransmission ends the timing (ns-2 clears rtt_active_
        // in reset_rtx_timer, on timeouts and fast retransmits).
        self.timed = None;
        let rs = self.rate.on_send(now, self.in_flight() == 0);
        let s = self.board.retransmitted(i, now, rs);
        let (seq, len, end) = (s.seq, s.len, s.end());
        self.high_rxt = self.high_rxt.max(end);
        self.stats.segments_sent += 1;
        self.stats.retransmits += 1;
        self.arm_if_idle(now);
        self.pace(now, len);
        self.header(now, seq, len)
    }

    /// A segment from the receiver (SYN-ACK or ACK).
    pub fn on_segment(&mut self, now: Time, h: &TcpHeader) {
        if let Some((tsval, _)) = h.ts {
            self.ts_recent = tsval;
        }
        if self.state == State::SynSent && h.flags.has(TcpFlags::SYN) {
            self.on_syn_ack(now, h);
            return;
        }
        if self.state != State::Established || h.ack > self.snd_max {
            return;
        }
        let prior_in_flight = self.in_flight();
        let prior_delivered = self.rate.delivered;
        let mut sacked = 0;
        if self.mode == Recovery::Sack {
            let rate = &mut self.rate;
            let blocks = h.sack.iter(h.ack).filter(|b| b.1 > h.ack);
            sacked = self.board.apply_sack(blocks, |s| rate.on_delivered(now, s.len, s.sent_at, s.retx, &s.rs));
            if sacked > 0 {
                // IsLost depends only on what is SACKed above a segment: refresh it
                // whenever that changes, in recovery or not.
                self.board.update_lost(self.spec.dupack_threshold, self.w.mss);
            }
        }
        let dupack = h.ack == self.snd_una && h.len == 0 && h.wnd == self.rwnd && self.snd_max > self.snd_una;
        let bytes_acked = h.ack.saturating_sub(self.snd_una);
        if dupack && self.mode != Recovery::Sack {
            self.rate.on_dupack(now, self.w.mss, self.snd_max - self.snd_una);
        }
        if bytes_acked > 0 || dupack {
            self.cc.on_ack_event(&AckEvent { now, bytes_acked, bytes_sacked: sacked, dupack });
        }
        let mut sample = None;
        if h.ack > self.snd_una {
            sample = self.on_new_ack(now, h, prior_in_flight, prior_delivered);
        } else if dupack {
            self.on_dupack(now);
        }
        if let Some(rs) = self.rate.take_sample(now) {
            self.cc.on_rate_sample(now, &rs);
        }
        let delivered = self.rate.delivered - prior_delivered;
        if self.cc.owns_cwnd() && delivered > 0 {
            self.cc_on_ack(now, bytes_acked, delivered, prior_in_flight, sample);
        }
        self.rwnd = h.wnd;
    }

    fn on_syn_ack(&mut self, now: Time, h: &TcpHeader) {
        if !self.syn_retransmitted {
            self.take_sample(now, now - self.syn_sent_at, false);
        }
        self.establish(now, h.wnd);
    }

    /// The connection is open: sequence numbers start after the SYN's (also
    /// without a handshake, so that payload byte k is always k + 1). `rwnd`
    /// is the SYN-ACK's window, or without one the receiver's buffer (the
    /// first ACK brings the real offer).
    fn establish(&mut self, now: Time, rwnd: u64) {
        self.state = State::Established;
        self.snd_una = 1;
        self.snd_nxt = 1;
        self.snd_max = 1;
        self.recover = 1;
        self.high_rxt = 1;
        self.rwnd = rwnd;
        if self.syn_retransmitted {
            self.w.cwnd = self.w.mss;
        }
        let hdr = self.header_bytes();
        self.cc.init(&mut self.w, now, hdr);
        self.rto_deadline = None;
        self.trace(now);
    }

    /// The algorithm's per-ACK window hook (see `CongestionControl::on_ack`).
    fn cc_on_ack(&mut self, now: Time, bytes_acked: u64, bytes_delivered: u64, prior_in_flight: u64, rtt: Option<Time>) {
        // RFC 7661 §4.3 (as Linux's tcp_is_cwnd_limited): in slow start the
        // window is in use if at least half of it was in flight, in
        // congestion avoidance if all but one segment was.
        let (cwnd, mss) = (self.w.cwnd, self.w.mss);
        let used = if self.w.in_slow_start() { 2 * prior_in_flight >= cwnd } else { prior_in_flight + mss >= cwnd };
        let cwnd_limited = used || !self.spec.cwnd_validation;
        if self.ns2_reno() {
            if cwnd_limited {
                self.ns2_open_cwnd();
            }
        } else {
            let ack = Ack { now, bytes_acked, bytes_delivered, prior_in_flight, in_flight: self.in_flight(), rtt, state: self.ca_state, cwnd_limited };
            self.cc.on_ack(&mut self.w, &ack);
        }
        self.trace(now);
    }

    /// ns-2's Reno agent's window arithmetic (halving and growth) applies:
    /// `LossResponse::Ns2` with Reno or NewReno (other algorithms keep their own).
    fn ns2_reno(&self) -> bool {
        self.ns2() && matches!(self.spec.cc, CcAlgo::Reno | CcAlgo::NewReno)
    }

    /// ns-2.35's opencwnd (tcp.cc), once per new ACK however much it
    /// acknowledges: one segment in slow start, 1/cwnd of a segment in
    /// congestion avoidance (cwnd_ is fractional there; here in bytes).
    /// RFC 3465's byte counting instead credits every byte acknowledged, so
    /// a cumulative ACK after go-back-N grows cwnd as much as the segments
    /// it covers: a sender held in congestion avoidance at 2 segments after
    /// a timeout regains its window at slow-start speed, and at the next
    /// up-switch more flows lose several packets (found against ns-2 in
    /// Paliwal's cell, docs/reproduce.md).
    fn ns2_open_cwnd(&mut self) {
        let mss = self.w.mss;
        self.w.cwnd += if self.w.cwnd < self.w.ssthresh { mss } else { (mss * mss / self.w.cwnd.max(1)).max(1) };
    }

    /// Returns the RTT sample the ACK gave.
    fn on_new_ack(&mut self, now: Time, h: &TcpHeader, prior_in_flight: u64, prior_delivered: u64) -> Option<Time> {
        let acked = h.ack - self.snd_una;
        let mut sample = None;
        let rate = &mut self.rate;
        let acked_segs = self.board.ack_through(h.ack, |s| rate.on_delivered(now, s.len, s.sent_at, s.retx, &s.rs));
        if self.spec.rtt_sampling == RttSampling::OnePerRtt {
            // The timed segment's ACK gives the round trip's one sample; its
            // timestamps, if any, give none (one sample per RTT either way).
            if let Some((_, sent_at)) = self.timed.filter(|&(end, _)| h.ack >= end) {
                sample = Some((now - sent_at, false));
                self.timed = None;
            }
        } else if let Some((sent_at, any_retx)) = acked_segs {
            if !any_retx {
                sample = Some((now - sent_at, false));
            } else if let (true, Some((_, tsecr))) = (self.spec.timestamps, h.ts) {
                // RFC 7323 §4.1: TSecr measures retransmitted segments unambiguously.
                sample = Some(((now - (tsecr as u64 * NS_PER_MS)).max(Time(1)), true));
            }
        }
        if let Some((r, echo)) = sample {
            self.take_sample(now, r, echo);
        }
        if self.spurious.is_some() {
            self.check_spurious_on_ack(now, h, acked, sample);
        }
        self.snd_una = h.ack;
        self.snd_nxt = self.snd_nxt.max(self.snd_una);
        let mut restart = true;
        if self.in_recovery {
            if h.ack >= self.recover {
                self.exit_recovery(now);
            } else {
                self.partial_ack(now, acked, &mut restart);
            }
        } else {
            self.dupacks = 0;
            if self.ca_state == CaState::Loss && h.ack >= self.recover {
                self.set_state(now, CaState::Open);
            }
            if !self.cc.owns_cwnd() {
                self.cc_on_ack(now, acked, self.rate.delivered - prior_delivered, prior_in_flight, sample.map(|(r, _)| r));
            }
        }
        if restart {
            // RFC 6298 §5.2, §5.3.
            self.restart_timer(now);
        }
        if let (Some(l), None) = (self.app_limit, self.stats.completed_at) {
            if self.snd_una > l {
                self.stats.completed_at = Some(now);
            }
        }
        sample.map(|(r, _)| r)
    }

    /// The first (Eifel) or first two (F-RTO) new ACKs after a timeout decide
    /// whether it was spurious.
    fn check_spurious_on_ack(&mut self, now: Time, h: &TcpHeader, acked: u64, sample: Option<(Time, bool)>) {
        let Some(mut c) = self.spurious.take() else { return };
        let spurious = match self.spec.spurious_detection {
            SpuriousDetection::Off => false,
            // RFC 3522 §2: the first acceptable ACK echoes a timestamp older
            // than the retransmission's.
            SpuriousDetection::Eifel => h.ts.is_some_and(|(_, tsecr)| tsecr < c.retransmit_ts),
            // RFC 5682 §2 step 2a: everything outstanding at the timeout is
            // acknowledged: proceed as usual.
            SpuriousDetection::Frto if h.ack >= c.recover => false,
            SpuriousDetection::Frto if c.frto_acks == 0 => {
                // Step 2b: the window advanced; send new data instead of going
                // back, and let the next ACK tell.
                c.frto_acks = 1;
                self.spurious = Some(c);
                self.snd_nxt = self.snd_max;
                self.frto_quota = 2;
                return;
            }
            // Step 3b: a second new ACK: the originals were only delayed.
            SpuriousDetection::Frto => true,
        };
        self.frto_quota = 0;
        if !spurious {
            return;
        }
        self.stats.spurious_timeouts += 1;
        if !self.spec.eifel_response {
            // Detection only: carry on with go-back-N as after any timeout.
            self.snd_nxt = self.snd_una;
            return;
        }
        // RFC 4015 §3.2: resume with new data (no go-back-N), give back the
        // window: cwnd = FlightSize + min(bytes_acked, IW), ssthresh = pipe_prev.
        // FlightSize leaves out what this ACK SACKs, and cwnd is bounded by
        // pipe_prev + IW: after a timeout in SACK recovery snd_max − snd_una
        // also counts data the receiver already holds, and the RFC's formula
        // would release a line-rate burst of twice the old window.
        self.snd_nxt = self.snd_max;
        self.cc.undo(&mut self.w, &c.prev);
        let iw = self.spec.initial_window as u64 * self.w.mss;
        let flight = (self.snd_max - h.ack).saturating_sub(self.board.sacked_bytes());
        self.w.cwnd = (flight + acked.min(iw)).min(c.pipe_prev + iw);
        self.w.ssthresh = c.pipe_prev.max(2 * self.w.mss);
        // §4: adapt the RTO to the delay that caused the timeout.
        if let (true, Some((r, echo))) = (self.spec.timestamps, sample) {
            self.rtt.restart(now, r, echo);
        }
        // Losses of data sent before the timeout may again start fast recovery.
        self.recover = h.ack;
        self.set_state(now, CaState::Open);
        self.trace(now);
    }

    fn partial_ack(&mut self, now: Time, acked: u64, restart: &mut bool) {
        match self.mode {
            // RFC 5681 §3.2 step 6: the first new ACK ends fast recovery.
            Recovery::Reno => self.exit_recovery(now),
            // RFC 6582 §3.2 step 5: retransmit the first unacknowledged
            // segment, deflate by the amount acked, add back one SMSS if that
            // was at least one SMSS; reset the timer on the first partial ACK only.
            Recovery::NewReno => {
                self.rtx_now = Some(self.snd_una);
                if !self.cc.owns_cwnd() {
                    self.w.cwnd = self.w.cwnd.saturating_sub(acked);
                    if acked >= self.w.mss {
                        self.w.cwnd += self.w.mss;
                    }
                    self.w.cwnd = self.w.cwnd.max(self.w.mss);
                }
                self.partial_acks += 1;
                *restart = self.partial_acks == 1;
                self.trace(now);
            }
            // RFC 6675: the scoreboard and pipe carry on.
            Recovery::Sack => {}
        }
    }

    fn exit_recovery(&mut self, now: Time) {
        self.in_recovery = false;
        self.dupacks = 0;
        match self.mode {
            _ if self.cc.owns_cwnd() => {}
            // RFC 6582 §3.2 step 3, option (1): cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS).
            Recovery::NewReno => {
                let flight = self.snd_max - self.snd_una;
                self.w.cwnd = self.w.ssthresh.min(flight.max(self.w.mss) + self.w.mss);
            }
            Recovery::Reno | Recovery::Sack => self.w.cwnd = self.w.ssthresh,
        }
        if self.ns2_reno() {
            // ns-2 opens cwnd on the ACK that ends fast recovery too.
            self.ns2_open_cwnd();
        }
        self.set_state(now, CaState::Open);
        self.trace(now);
    }

    fn on_dupack(&mut self, now: Time) {
        self.dupacks += 1;
        if let Some(c) = self.spurious.filter(|_| self.spec.spurious_detection == SpuriousDetection::Frto) {
            self.spurious = None;
            // RFC 5682 §2: a duplicate ACK as the first ACK (step 2a) means a
            // real loss: conventional recovery. As the second (step 3a), also:
            // go back, with cwnd at most 3 segments, in slow start.
            self.frto_quota = 0;
            if c.frto_acks == 1 {
                self.snd_nxt = self.snd_una;
                self.w.cwnd = self.w.cwnd.min(3 * self.w.mss);
                self.trace(now);
            }
        }
        if self.in_recovery {
            if self.mode != Recovery::Sack && !self.cc.owns_cwnd() {
                // RFC 5681 §3.2 step 4: inflate by one SMSS per duplicate ACK.
                self.w.cwnd += self.w.mss;
            }
            return;
        }
        let lost_head = self.mode == Recovery::Sack && self.board.front().is_some_and(|s| s.lost);
        if self.dupacks < self.spec.dupack_threshold && !lost_head {
            return;
        }
        // RFC 6582 §3.2 step 1 (and RFC 6675's RecoveryPoint): no second
        // reduction for losses from the window that was already reduced.
        if self.mode != Recovery::Reno && self.snd_una < self.recover {
            return;
        }
        // ns-2's bugFix_ (tcp-reno.cc dupack_action), for Reno too: only once
        // the ACK passes the highest segment sent at the last timeout or fast
        // retransmit (highest_ack_ > recover_).
        if self.ns2() && self.snd_una <= self.recover {
            return;
        }
        self.enter_recovery(now);
    }

    /// FlightSize for RFC 5681 eq. (4), bounded by the window that was in force
    /// (during recovery the un-inflated one, ssthresh), as Linux and ns-2 bound
    /// it: after a long NewReno recovery snd_max − snd_una also counts data the
    /// receiver holds out of order, and halving that would set ssthresh far
    /// above what the path carried.
    fn flight_for_ssthresh(&self) -> u64 {
        let window = if self.in_recovery { self.w.ssthresh } else { self.w.cwnd };
        (self.snd_max - self.snd_una).min(window)
    }

    /// ns-2's agents and this scenario's loss response (`LossResponse::Ns2`).
    fn ns2(&self) -> bool {
        self.spec.loss_response == LossResponse::Ns2
    }

    /// ns-2's slowdown(CLOSE_SSTHRESH_HALF) for Reno: half the usable window
    /// min(cwnd, wnd) in whole segments, at least 2 (tcp.cc TcpAgent::slowdown).
    /// In fast recovery ns-2's cwnd_ is the halved window (the inflation is
    /// its separate dupwnd_): here ssthresh.
    fn ns2_half_window(&self) -> u64 {
        let cwnd = if self.in_recovery { self.w.ssthresh } else { self.w.cwnd };
        let segs = cwnd.min(self.rwnd) / self.w.mss;
        (segs / 2).max(2) * self.w.mss
    }

    /// ssthresh at a loss: the congestion control's, or ns-2's halving for
    /// Reno and NewReno under `LossResponse::Ns2`.
    fn loss_ssthresh(&mut self, flight: u64, event: CongestionEvent, now: Time) -> u64 {
        if self.ns2_reno() {
            self.ns2_half_window()
        } else {
            self.cc.ssthresh(&self.w, flight, event, now)
        }
    }

    fn enter_recovery(&mut self, now: Time) {
        let flight = self.flight_for_ssthresh();
        self.w.ssthresh = self.loss_ssthresh(flight, CongestionEvent::FastRetransmit, now);
        self.recover = self.snd_max;
        self.in_recovery = true;
        self.partial_acks = 0;
        self.stats.fast_recoveries += 1;
        self.stats.congestion_events.push(now);
        self.w.cwnd = match self.mode {
            _ if self.cc.owns_cwnd() => self.w.cwnd,
            // RFC 6675 §5 step 4.2: cwnd = ssthresh; pipe governs sending.
            Recovery::Sack => self.w.ssthresh,
            // RFC 5681 §3.2 step 3: inflate by the segments that left the network.
            _ => self.w.ssthresh + self.spec.dupack_threshold as u64 * self.w.mss,
        };
        self.high_rxt = self.snd_una;
        self.rtx_now = Some(self.snd_una);
        self.timed = None;
        if self.ns2() {
            // tcp-reno.cc reno_action: reset_rtx_timer(1, 0), a full RTO from now.
            self.restart_timer(now);
        }
        self.set_state(now, CaState::Recovery);
        self.trace(now);
    }

    /// The retransmission timer may have expired.
    pub fn on_timer(&mut self, now: Time) {
        if self.pacing_blocked && self.next_send_at <= now {
            // The world polls after every timer: the next segment may go.
            self.pacing_blocked = false;
        }
        match self.rto_deadline {
            Some(d) if d <= now => {}
            _ => return,
        }
        self.rto_deadline = None;
        if self.state == State::SynSent {
            self.syn_retransmitted = true;
            self.rtt.on_timeout();
            self.stats.timeouts += 1;
            self.state = State::SynDue;
            return;
        }
        if self.snd_una >= self.snd_max {
            return;
        }
        self.stats.timeouts += 1;
        self.stats.congestion_events.push(now);
        let flight = self.flight_for_ssthresh();
        let check = SpuriousCheck {
            retransmit_ts: ts_clock(now),
            frto_acks: 0,
            prev: self.w,
            pipe_prev: if self.in_recovery { self.w.ssthresh } else { self.snd_max - self.snd_una },
            recover: self.snd_max,
        };
        // The first timeout of an episode: the segment was not yet retransmitted by the timer.
        let first = self.rtt.backoff() == 0;
        self.spurious = match self.spec.spurious_detection {
            SpuriousDetection::Off => None,
            // RFC 3522 §2: the check belongs to the first retransmission; a
            // backed-off one keeps it (an ACK older than the first
            // retransmission shows all of them were needless).
            SpuriousDetection::Eifel if first => Some(check),
            SpuriousDetection::Eifel => self.spurious,
            // RFC 5682 §2 step 1: a timeout during RTO recovery continues it
            // conventionally.
            SpuriousDetection::Frto => first.then_some(check),
        };
        self.frto_quota = 0;
        self.timed = None;
        // RFC 5681 §3.1: hold ssthresh if this segment was already retransmitted
        // by the timer. ns-2 halves min(cwnd, wnd) at every timeout (tcp.cc
        // timeout: slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART)), so a
        // backed-off one leaves ssthresh at 2 segments.
        if first || self.ns2_reno() {
            self.w.ssthresh = self.loss_ssthresh(flight, CongestionEvent::Timeout, now);
        }
        self.w.cwnd = self.w.mss;
        self.in_recovery = false;
        self.dupacks = 0;
        self.rtx_now = None;
        self.recover = self.snd_max;
        self.high_rxt = self.snd_una;
        if self.mode == Recovery::Sack {
            self.board.clear_sacks();
        }
        self.snd_nxt = self.snd_una;
        self.rtt.on_timeout();
        self.rto_deadline = Some(now + self.rtt.rto());
        self.set_state(now, CaState::Loss);
        self.trace(now);
    }
}

#[cfg(test)]
#[path = "sender_tests.rs"]
mod tests;
