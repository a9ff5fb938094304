//! The 1xEV-DO forward-link DRC table.
//!
//! We follow 3GPP2 C.S0024-A (cdma2000 High Rate Packet Data Air Interface,
//! Revision A), the Forward Traffic Channel transmission formats of the
//! default (single-user) packet for each DRC index. DRC indices 0x0..0xC are
//! those of Revision 0 (C.S0024-0), with the same rates and slot counts;
//! Revision A adds 0xD (1536 kb/s, 5120 bits over 2 slots) and 0xE (3072 kb/s,
//! 5120 bits in 1 slot). Index 0 is the null rate (the terminal asks for no
//! data). This gives the 15 states of Liu et al. section 2 ("15 potential
//! values ... from 38.4 kbps up to 3.072 Mbps" plus the null state).
//!
//! A slot is 1/600 s, so the nominal rate is `packet_bits * 600 / slots`.
//! Multi-slot packets are sent on one interlace: slots n, n+4, n+8, ...
//! (C.S0024 forward-link four-slot interlacing); early termination is not
//! modelled, a packet always takes its nominal number of slots.

/// Number of DRC states (indices 0..=14).
pub const NUM_DRC: usize = 15;
/// Slots per second on the forward link.
pub const SLOTS_PER_SEC: u64 = 600;
/// Slot spacing of a multi-slot packet (four-slot interlace).
pub const INTERLACE: u64 = 4;

/// Which revision of C.S0024 restricts the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Revision {
    /// C.S0024-0: DRC 0..=12 (up to 2457.6 kb/s).
    Rev0,
    /// C.S0024-A: DRC 0..=14 (up to 3072 kb/s).
    RevA,
}

impl Revision {
    pub fn max_drc(self) -> u8 {
        match self {
            Revision::Rev0 => 12,
            Revision::RevA => 14,
        }
    }
}

/// One row of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrcFormat {
    pub index: u8,
    /// Nominal data rate, bit/s.
    pub rate_bps: u64,
    /// Nominal number of slots of one packet.
    pub slots: u8,
    /// Physical-layer packet size, bits.
    pub packet_bits: u32,
}

const fn f(index: u8, slots: u8, packet_bits: u32) -> DrcFormat {
    let rate_bps = if slots == 0 { 0 } else { packet_bits as u64 * SLOTS_PER_SEC / slots as u64 };
    DrcFormat { index, rate_bps, slots, packet_bits }
}

/// The table, indexed by DRC index. The rate column is derived from the
/// packet size and slot count so that the two can never disagree.
pub const DRC_TABLE: [DrcFormat; NUM_DRC] = [
    f(0, 0, 0),       // null rate
    f(1, 16, 1024),   // 38.4 kb/s
    f(2, 8, 1024),    // 76.8 kb/s
    f(3, 4, 1024),    // 153.6 kb/s
    f(4, 2, 1024),    // 307.2 kb/s (short)
    f(5, 4, 2048),    // 307.2 kb/s (long)
    f(6, 1, 1024),    // 614.4 kb/s (short)
    f(7, 2, 2048),    // 614.4 kb/s (long)
    f(8, 2, 3072),    // 921.6 kb/s
    f(9, 1, 2048),    // 1228.8 kb/s (short)
    f(10, 2, 4096),   // 1228.8 kb/s (long)
    f(11, 1, 3072),   // 1843.2 kb/s
    f(12, 1, 4096),   // 2457.6 kb/s
    f(13, 2, 5120),   // 1536.0 kb/s (Rev. A)
    f(14, 1, 5120),   // 3072.0 kb/s (Rev. A)
];

/// Nominal rate of each index in bit/s, as a plain array (hot loops index it).
pub const RATE_BPS: [u64; NUM_DRC] = {
    let mut r = [0u64; NUM_DRC];
    let mut i = 0;
    while i < NUM_DRC {
        r[i] = DRC_TABLE[i].rate_bps;
        i += 1;
    }
    r
};

pub fn format(index: u8) -> Option<&'static DrcFormat> {
    DRC_TABLE.get(index as usize)
}

/// The DRC index for an exact nominal rate. Two formats share 307.2, 614.4
/// and 1228.8 kb/s; the shorter (lower-index) one is returned.
pub fn index_of_rate(rate_bps: u64) -> Option<u8> {
    DRC_TABLE.iter().find(|d| d.rate_bps == rate_bps).map(|d| d.index)
}

/// The highest DRC whose nominal rate is at or below `rate_bps` (index 0 when
/// the rate is below 38.4 kb/s). Ties between formats go to the shorter one.
pub fn floor_index(rate_bps: f64, rev: Revision) -> u8 {
    let mut best = 0u8;
    for d in DRC_TABLE.iter().take(rev.max_drc() as usize + 1) {
        if (d.rate_bps as f64) <= rate_bps && d.rate_bps > RATE_BPS[best as usize] {
            best = d.index;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_matches_the_standard_rates() {
        let kbps: Vec<f64> = DRC_TABLE.iter().map(|d| d.rate_bps as f64 / 1000.0).collect();
        let want = [
            0.0, 38.4, 76.8, 153.6, 307.2, 307.2, 614.4, 614.4, 921.6, 1228.8, 1228.8, 1843.2, 2457.6, 1536.0,
            3072.0,
        ];
        for (a, b) in kbps.iter().zip(want) {
            assert!((a - b).abs() < 1e-9, "{a} vs {b}");
        }
        // Fifteen states, 14 non-null rates from 38.4 kb/s to 3.072 Mb/s.
        assert_eq!(DRC_TABLE.len(), 15);
        assert_eq!(RATE_BPS[1], 38_400);
        assert_eq!(RATE_BPS[14], 3_072_000);
    }

    #[test]
    fn floor_and_exact_lookups() {
        assert_eq!(index_of_rate(307_200), Some(4));
        assert_eq!(index_of_rate(1_000), None);
        assert_eq!(floor_index(10_000.0, Revision::RevA), 0);
        assert_eq!(floor_index(1_600_000.0, Revision::RevA), 13);
        assert_eq!(floor_index(1_600_000.0, Revision::Rev0), 9); // 1228.8 kb/s, short format
        assert_eq!(floor_index(5e6, Revision::Rev0), 12);
        assert_eq!(floor_index(5e6, Revision::RevA), 14);
    }
}
