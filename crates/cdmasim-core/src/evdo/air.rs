//! What the air costs between an IP packet and the DRC's nominal bits: the
//! overhead Liu et al. §7.3 alludes to when it calls 0.86–0.89 of the mean DRC
//! "reasonably efficient (given protocol overhead)".
//!
//! Three layers, each a default that can be changed or switched off:
//! - PPP in HDLC-like framing (RFC 1662) around every IP packet: a flag
//!   (consecutive frames share one), the 2-byte protocol field and the
//!   16-bit FCS, address and control fields compressed away (ACFC): 5 bytes.
//!   Byte stuffing doubles every 0x7E and 0x7D of the frame; in random
//!   payload that is 2 of 256 byte values, so a frame grows by 1/128.
//!   (The async control character map is negotiated to 0 on cdma2000 packet
//!   data, so no other byte is escaped.)
//! - RLP, stream and MAC headers inside each physical-layer packet (3GPP2
//!   C.S0024): per 1024-bit block, FCS 16 + tail 6 + MAC trailer 2 bits, and
//!   the stream (2) and default-RLP sequence number (22) headers: 976 bits,
//!   122 bytes, of PPP octets per 1024 bits.
//! - The control channel's slots: its synchronous capsule comes once per
//!   256-slot control-channel cycle; one 1024-bit packet at 76.8 kb/s takes
//!   8 slots on one interlace, which the forward traffic channel does not get
//!   (8/256 = 3.1 %).
//!
//! For 1500-byte IP packets these give 1500/1516.7 x 976/1024 x 248/256 =
//! 0.913 of the nominal DRC bits as IP bytes, and with 52 bytes of TCP/IP
//! headers 0.882 as TCP payload: the top of Liu et al.'s 0.85–0.89.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct AirOverhead {
    /// PPP/HDLC framing bytes per IP packet (5).
    pub ppp_bytes: u32,
    /// HDLC byte stuffing: one extra byte per this many bytes (128; 0 = none).
    pub escape_every: u32,
    /// Bits of PPP octets per 1024-bit physical-layer block (976; 1024 = none).
    pub payload_bits_per_1024: u32,
    /// Slots of every 256-slot control-channel cycle that carry the control
    /// channel (8; 0 = none).
    pub control_slots: u32,
}

impl Default for AirOverhead {
    fn default() -> Self {
        AirOverhead { ppp_bytes: crate::net::ppp::FRAMING_BYTES, escape_every: 128, payload_bits_per_1024: 976, control_slots: 8 }
    }
}

/// Slots of a control-channel cycle.
pub const CONTROL_CYCLE: u64 = 256;

impl AirOverhead {
    /// No overhead at all: the nominal DRC bits carry IP bytes.
    pub fn none() -> Self {
        AirOverhead { ppp_bytes: 0, escape_every: 0, payload_bits_per_1024: 1024, control_slots: 0 }
    }

    /// Bytes an IP packet of `size` bytes takes on the air.
    #[inline]
    pub fn air_bytes(&self, size: u32) -> u64 {
        let framed = size as u64 + self.ppp_bytes as u64;
        framed + if self.escape_every > 0 { framed / self.escape_every as u64 } else { 0 }
    }

    /// PPP octets a physical-layer packet of `packet_bits` carries.
    #[inline]
    pub fn payload_bytes(&self, packet_bits: u32) -> u64 {
        packet_bits as u64 * self.payload_bits_per_1024 as u64 / 1024 / 8
    }

    /// Whether slot `n` belongs to the control channel: the first
    /// `control_slots` slots of the cycle on interlace 0 (every `interlace`-th).
    #[inline]
    pub fn control_slot(&self, n: u64, interlace: u64) -> bool {
        let k = n % CONTROL_CYCLE;
        k % interlace == 0 && k / interlace < self.control_slots as u64
    }

    /// Fraction of the nominal DRC bits that reach the far end as IP bytes,
    /// for IP packets of `size` bytes.
    pub fn efficiency(&self, size: u32) -> f64 {
        let framing = size as f64 / self.air_bytes(size) as f64;
        let blocks = self.payload_bits_per_1024 as f64 / 1024.0;
        let slots = 1.0 - self.control_slots as f64 / CONTROL_CYCLE as f64;
        framing * blocks * slots
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_costs_are_those_of_the_module_comment() {
        let a = AirOverhead::default();
        assert_eq!(a.air_bytes(1500), 1505 + 11);
        assert_eq!(a.payload_bytes(1024), 122);
        assert_eq!(a.payload_bytes(4096), 488);
        assert!((a.efficiency(1500) - 0.913).abs() < 0.001, "{}", a.efficiency(1500));
        let control: u64 = (0..256).filter(|&n| a.control_slot(n, 4)).count() as u64;
        assert_eq!(control, 8);
        assert!(a.control_slot(28, 4) && !a.control_slot(32, 4) && !a.control_slot(1, 4));
        assert_eq!(AirOverhead::none().efficiency(1500), 1.0);
    }
}
