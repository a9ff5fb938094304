//! Why a packet was dropped. Every drop records one of these and its place.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum DropReason {
    /// The queue was full (DropTail, or RED's hard limit).
    Overflow,
    /// RED's probabilistic ("unforced") drop, min_th <= avg < max_th (or the gentle region).
    RedEarly,
    /// RED's forced drop: avg at or above max_th (2 max_th in gentle mode).
    RedForced,
    /// Lost on the wire by the link's random-loss module.
    RandomLoss,
    /// A node had no route to the destination.
    NoRoute,
    /// Queued for a user when it was handed off to a sector that does not
    /// take over the old sector's queue.
    Handoff,
    /// An RLP receiver gave up on a missing frame after its last NAK round
    /// (IS-707 RLP3's abort): the IP packet with the hole is not delivered.
    RlpAbort,
    /// The destination's TCP discarded a segment whose checksum failed: its
    /// header was rebuilt wrong below IP (VJ header compression out of step
    /// after a lost frame, `net::ppp`; Lee §3.3).
    ChecksumFailure,
    /// A header decompressor could not rebuild the packet and discarded it
    /// (no context, or a failed ROHC CRC).
    Decompression,
}

impl DropReason {
    pub const ALL: [DropReason; 9] = [
        DropReason::Overflow,
        DropReason::RedEarly,
        DropReason::RedForced,
        DropReason::RandomLoss,
        DropReason::NoRoute,
        DropReason::Handoff,
        DropReason::RlpAbort,
        DropReason::ChecksumFailure,
        DropReason::Decompression,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DropReason::Overflow => "overflow",
            DropReason::RedEarly => "red_early",
            DropReason::RedForced => "red_forced",
            DropReason::RandomLoss => "random_loss",
            DropReason::NoRoute => "no_route",
            DropReason::Handoff => "handoff",
            DropReason::RlpAbort => "rlp_abort",
            DropReason::ChecksumFailure => "checksum",
            DropReason::Decompression => "decompression",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}
