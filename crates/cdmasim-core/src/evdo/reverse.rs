//! The 1xEV-DO Revision 0 reverse traffic channel MAC (3GPP2 C.S0024-0,
//! Default Reverse Traffic Channel MAC Protocol): how a terminal picks the
//! rate of each 16-slot (26.67 ms) reverse frame, and how a sector's load
//! sets the Reverse Activity Bit (RAB) that slows its terminals down.
//!
//! Per frame a terminal with data does this (the rules below are the
//! standard's; where a number is not the standard's, its doc says so):
//! 1. **MaxRate** from the rate of its last frame (`CurrentRate`, 0 if it
//!    sent none) and the RAB of the frame before (`CombinedBusyBit`): not
//!    busy, it may step up one rate with the up-transition probability;
//!    busy, it steps down one rate with the down-transition probability;
//!    after a frame with nothing sent it starts again at 9.6 kb/s.
//! 2. **CurrentRateLimit**: the rate the access network allows it
//!    (`rate_limit`; networks broadcast 153.6 kb/s when unloaded).
//! 3. **Power**: the highest rate whose data channel, at its nominal gain
//!    over the pilot, fits the terminal's transmit-power headroom.
//! 4. **Data**: the lowest rate that carries what it has queued (sending
//!    fewer bits at less power costs the sector less; C.S0024 lets the
//!    terminal send at any rate up to the limits above).
//!
//! The sector's load is the standard CDMA uplink load of its terminals'
//! frames, each received at the closed-loop pilot target times the
//! frame's power over the pilot, with the other sectors' interference in
//! proportion: η = (1 + f) Σ x/(1 + x); the rise over thermal is
//! 1/(1 − η), and the sector sets the RAB for the next frame when it
//! exceeds `rab.threshold_db` (or η ≥ 1).

use crate::engine::{Rng, Time, NS_PER_SEC};
use serde::{Deserialize, Serialize};

/// Forward-link slots per reverse frame (C.S0024-0: a reverse physical
/// layer packet spans 16 slots, 26.67 ms).
pub const FRAME_SLOTS: u64 = 16;

/// Reverse rates by index: 0 is "no frame", 1..=5 the Rev. 0 rates, bit/s.
pub const RATE_BPS: [u64; 6] = [0, 9_600, 19_200, 38_400, 76_800, 153_600];
pub const MAX_RATE: u8 = 5;

/// Physical-layer packet bits of a frame at each rate: rate × 26.67 ms
/// (256 to 4096 bits, C.S0024-0 reverse traffic channel).
pub fn packet_bits(rate: u8) -> u32 {
    (RATE_BPS[rate as usize] * FRAME_SLOTS / 600) as u32
}

/// Bits of a reverse packet that are not PPP octets: the physical layer's
/// FCS (16) and tail (6), the MAC trailer (2), and the stream (2) and
/// default RLP (22) headers, the same layers `evdo::air` counts per
/// forward block.
pub const HEADER_BITS: u32 = 48;

/// PPP octets a frame at `rate` carries.
pub fn payload_bytes(rate: u8) -> u64 {
    if rate == 0 {
        return 0;
    }
    ((packet_bits(rate) - HEADER_BITS) / 8) as u64
}

/// Nominal gain of the data channel over the pilot at each rate, dB
/// (C.S0024-0 `DataOffsetNom` = 0 with the nominal per-rate offsets:
/// 3.75, 6.75, 9.75, 13.25 and 18.5 dB).
pub const DATA_GAIN_DB: [f64; 6] = [f64::NEG_INFINITY, 3.75, 6.75, 9.75, 13.25, 18.5];

/// The terminal's power at `rate` over its pilot alone, as a linear ratio.
pub fn power_over_pilot(rate: u8) -> f64 {
    1.0 + 10f64.powf(DATA_GAIN_DB[rate as usize] / 10.0)
}

/// A terminal's reverse MAC, as `[[user]] reverse_mac = {...}` sets it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReverseConfig {
    /// The highest rate the network allows (`CurrentRateLimit`), a rate index 1..=5.
    pub rate_limit: u8,
    /// Probability of stepping up from rate i+1 to i+2 when not busy
    /// (9.6→19.2, 19.2→38.4, 38.4→76.8, 76.8→153.6).
    pub up: [f64; 4],
    /// Probability of stepping down from rate i+2 to i+1 when busy
    /// (19.2→9.6, 38.4→19.2, 76.8→38.4, 153.6→76.8).
    pub down: [f64; 4],
    /// The terminal's transmit-power headroom over its pilot when its
    /// forward-link SINR is 0 dB, dB; it moves dB for dB with the forward
    /// SINR (path loss is the same both ways). None: no power cap.
    pub headroom_db: Option<f64>,
    /// Probability that a reverse frame is erased (the reverse outer power
    /// loop aims at a 1 % packet error rate).
    pub frame_error: f64,
    /// From the end of an erased frame to when its octets may be resent:
    /// the base station's NAK on the forward link and the terminal's next
    /// frame.
    pub nak_delay: Time,
}

impl ReverseConfig {
    /// RateParameters defaults (C.S0024-0 Default Reverse Traffic Channel
    /// MAC; as commercial terminals report them, in 255ths): up 0x30,
    /// 0x10, 0x08, 0x08; down 0x10, 0x10, 0x20, 0xFF.
    pub const DEFAULT_UP: [f64; 4] = [48.0 / 255.0, 16.0 / 255.0, 8.0 / 255.0, 8.0 / 255.0];
    pub const DEFAULT_DOWN: [f64; 4] = [16.0 / 255.0, 16.0 / 255.0, 32.0 / 255.0, 1.0];
    /// Unsourced: 20 dB of headroom at a forward SINR of 0 dB lets a
    /// terminal send 153.6 kb/s (18.6 dB over its pilot) down to a forward
    /// SINR of about −1.5 dB, and 19.2 kb/s at the cell edge (−10 dB).
    pub const DEFAULT_HEADROOM_DB: f64 = 20.0;
    pub const DEFAULT_FRAME_ERROR: f64 = 0.01;
    /// One frame: the erased frame is found at its end, when the next
    /// frame has already started; the NAK reaches the terminal during that
    /// frame, and the octets go in the frame after it.
    pub const DEFAULT_NAK_DELAY: Time = Time(FRAME_SLOTS * NS_PER_SEC.0 / 600);
}

impl Default for ReverseConfig {
    fn default() -> Self {
        ReverseConfig {
            rate_limit: MAX_RATE,
            up: Self::DEFAULT_UP,
            down: Self::DEFAULT_DOWN,
            headroom_db: Some(Self::DEFAULT_HEADROOM_DB),
            frame_error: Self::DEFAULT_FRAME_ERROR,
            nak_delay: Self::DEFAULT_NAK_DELAY,
        }
    }
}

/// How a sector turns its terminals' frames into the RAB, as
/// `[[sector]] rab = {...}` sets it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RabConfig {
    /// Rise over thermal above which the sector sets the RAB, dB.
    /// Unsourced: operators set it; 7 dB is a common CDMA uplink operating
    /// point (load 0.8).
    pub threshold_db: f64,
    /// The pilot's received Ec/Nt that reverse power control holds, dB.
    /// Unsourced: −22 dB puts the data channel's Eb/Nt at 2.8 dB at
    /// 9.6 kb/s and 5.5 dB at 153.6 kb/s (processing gains 128 and 8).
    pub pilot_db: f64,
    /// Interference from the other sectors' terminals per unit of this
    /// sector's own: 0.55 (Viterbi, Viterbi and Zehavi, "Other-cell
    /// interference in cellular power-controlled CDMA", IEEE Trans.
    /// Commun. 1994: fourth-power path loss, 8 dB shadowing).
    pub other_cell: f64,
}

impl Default for RabConfig {
    fn default() -> Self {
        RabConfig { threshold_db: 7.0, pilot_db: -22.0, other_cell: 0.55 }
    }
}

impl RabConfig {
    /// One terminal's share of the sector's received power when it sends
    /// a frame at `rate` (0: pilot only): x/(1 + x).
    pub fn load(&self, rate: u8) -> f64 {
        let x = 10f64.powf(self.pilot_db / 10.0) * if rate == 0 { 1.0 } else { power_over_pilot(rate) };
        x / (1.0 + x)
    }

    /// The rise over thermal (dB) of a sector whose terminals' loads sum to `own`.
    pub fn rise_db(&self, own: f64) -> f64 {
        let eta = (1.0 + self.other_cell) * own;
        if eta >= 1.0 {
            f64::INFINITY
        } else {
            -10.0 * (1.0 - eta).log10()
        }
    }

    /// Whether the sector sets the RAB after a frame of load `own`.
    pub fn busy(&self, own: f64) -> bool {
        self.rise_db(own) > self.threshold_db
    }
}

/// Why a frame went out at the rate it did (the tightest limit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// MaxRate, from the transitions and the RAB.
    MaxRate,
    RateLimit,
    Power,
    /// The data it had fit a lower rate.
    Data,
}

/// One terminal's rate control: the state C.S0024 keeps between frames.
pub struct RateControl {
    pub cfg: ReverseConfig,
    /// The rate of its last frame (0: none sent).
    pub current: u8,
    rng: Rng,
}

impl RateControl {
    pub fn new(cfg: ReverseConfig, rng: Rng) -> RateControl {
        RateControl { cfg, current: 0, rng }
    }

    /// MaxRate for the next frame (C.S0024-0's table): one draw per frame
    /// where a transition is possible.
    pub fn max_rate(&mut self, busy: bool) -> u8 {
        let c = self.current;
        if c == 0 {
            return 1;
        }
        let i = c as usize;
        if busy {
            if c > 1 && self.rng.bernoulli(self.cfg.down[i - 2]) {
                return c - 1;
            }
        } else if c < MAX_RATE && self.rng.bernoulli(self.cfg.up[i - 1]) {
            return c + 1;
        }
        c
    }

    /// The highest rate the terminal's power allows at a forward SINR of
    /// `sinr_db` (0 if not even 9.6 kb/s fits).
    pub fn power_cap(&self, sinr_db: f64) -> u8 {
        let Some(h) = self.cfg.headroom_db else { return MAX_RATE };
        let headroom = h + sinr_db;
        (1..=MAX_RATE).rev().find(|&r| 10.0 * power_over_pilot(r).log10() <= headroom).unwrap_or(0)
    }

    /// The rate of the next frame for `pending` PPP octets queued, and
    /// what limited it; 0 when there is nothing to send. It becomes the
    /// current rate. A terminal whose power allows no rate sends at 9.6
    /// kb/s anyway (its frames then fail more often, which is not modelled).
    pub fn next_frame(&mut self, busy: bool, sinr_db: f64, pending: u64) -> (u8, Limit) {
        let max = self.max_rate(busy);
        let mut rate = max;
        let mut limit = Limit::MaxRate;
        if self.cfg.rate_limit < rate {
            rate = self.cfg.rate_limit;
            limit = Limit::RateLimit;
        }
        let power = self.power_cap(sinr_db).max(1);
        if power < rate {
            rate = power;
            limit = Limit::Power;
        }
        if pending == 0 {
            rate = 0;
            limit = Limit::Data;
        } else if let Some(r) = (1..rate).find(|&r| payload_bytes(r) >= pending) {
            rate = r;
            limit = Limit::Data;
        }
        self.current = rate;
        (rate, limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn control(cfg: ReverseConfig) -> RateControl {
        RateControl::new(cfg, Rng::from_seed(3))
    }

    #[test]
    fn frame_sizes_are_the_rate_times_sixteen_slots() {
        assert_eq!((1..=5).map(packet_bits).collect::<Vec<_>>(), vec![256, 512, 1024, 2048, 4096]);
        assert_eq!(payload_bytes(5), 506);
        assert_eq!(payload_bytes(1), 26);
    }

    #[test]
    fn a_lone_terminal_with_data_climbs_to_153_6_kbps_and_stays() {
        let mut c = control(ReverseConfig::default());
        let rates: Vec<u8> = (0..400).map(|_| c.next_frame(false, 5.0, 1 << 20).0).collect();
        assert_eq!(rates[0], 1, "a terminal starts at 9.6 kb/s");
        let first = rates.iter().position(|&r| r == MAX_RATE).expect("reaches 153.6 kb/s");
        // Mean climb: 255/48 + 255/16 + 2 × 255/8 = 85 frames.
        assert!(first > 10 && first < 300, "reached 153.6 kb/s after {first} frames");
        assert!(rates[first..].iter().all(|&r| r == MAX_RATE), "not busy: it never steps down");
        assert!(rates.windows(2).all(|w| w[1] <= w[0] + 1), "one step at a time");
    }

    #[test]
    fn a_busy_sector_brings_its_terminals_down_and_an_idle_frame_restarts_at_9_6() {
        let mut c = control(ReverseConfig::default());
        c.current = MAX_RATE;
        // 153.6 → 76.8 with probability 1, then down at 32/255 and 16/255.
        assert_eq!(c.next_frame(true, 5.0, 1 << 20).0, 4);
        let rates: Vec<u8> = (0..300).map(|_| c.next_frame(true, 5.0, 1 << 20).0).collect();
        assert_eq!(*rates.last().unwrap(), 1, "busy long enough, it ends at 9.6 kb/s");
        c.current = MAX_RATE;
        assert_eq!(c.next_frame(false, 5.0, 0).0, 0);
        assert_eq!(c.next_frame(false, 5.0, 1 << 20).0, 1, "after a frame with nothing sent");
    }

    #[test]
    fn the_up_transitions_happen_at_their_probability() {
        let mut c = control(ReverseConfig::default());
        let (mut ups, n) = (0u32, 100_000);
        for _ in 0..n {
            c.current = 1;
            ups += (c.max_rate(false) == 2) as u32;
        }
        // 48/255 = 0.188; binomial sd 0.0012.
        let p = ups as f64 / n as f64;
        assert!((p - 48.0 / 255.0).abs() < 0.005, "{p}");
    }

    #[test]
    fn power_and_data_cap_the_rate() {
        let mut c = control(ReverseConfig::default());
        // 18.56 dB for 153.6 kb/s: 20 dB headroom at SINR -1 dB is 19 dB.
        assert_eq!(c.power_cap(-1.0), 5);
        assert_eq!(c.power_cap(-2.0), 4);
        assert_eq!(c.power_cap(-10.0), 2); // 10 dB: 38.4 needs 10.2
        c.current = MAX_RATE;
        assert_eq!(c.next_frame(false, -2.0, 1 << 20), (4, Limit::Power));
        c.current = MAX_RATE;
        // Two 40-byte ACKs with PPP framing fit a 38.4 kb/s frame (122 octets).
        assert_eq!(c.next_frame(false, 5.0, 90), (3, Limit::Data));
        let limited = ReverseConfig { rate_limit: 3, ..ReverseConfig::default() };
        let mut c = control(limited);
        c.current = 4; // MaxRate 4 or 5, either way above the limit
        assert_eq!(c.next_frame(false, 5.0, 1 << 20), (3, Limit::RateLimit));
    }

    #[test]
    fn one_terminal_at_153_6_kbps_loads_a_sector_less_than_the_rab_threshold_and_three_more() {
        let rab = RabConfig::default();
        // x = 10^-2.2 × 71.8 = 0.453: share 0.312, η = 1.55 × 0.312 = 0.48, 2.9 dB.
        let one = rab.load(5);
        assert!((rab.rise_db(one) - 2.86).abs() < 0.05, "{}", rab.rise_db(one));
        assert!(!rab.busy(one));
        assert!(rab.busy(3.0 * one));
        assert!(rab.rise_db(10.0).is_infinite());
    }
}
