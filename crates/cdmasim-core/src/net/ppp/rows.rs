//! The `ppp` table's row: one direction of a link that runs PPP.

use crate::result::{rows, HopTable};
use serde::{Deserialize, Serialize};

rows! {
/// One direction of a link that runs PPP (Lee §3.3).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct PppResult {
    /// The link (or the EV-DO user's forward or reverse link) running PPP.
    pub link: String,
    /// "none", "vj" (RFC 1144) or "rohc" (RFC 6846).
    pub compression: String,
    /// Frames the compressor wrote (an EV-DO user's at the PDSN, those the
    /// base station's queue then dropped included: `dropped_in_queue`).
    pub frames: u64,
    /// Frames whose TCP/IP header went compressed.
    pub compressed: u64,
    /// Header bytes the frames were written with.
    pub header_bytes: u64,
    /// Header bytes they would have had uncompressed.
    pub full_header_bytes: u64,
    /// Frames lost below PPP (the link's residual loss).
    pub lost: u64,
    /// Frames the decompressor rebuilt with a wrong TCP header (they fail
    /// the checksum at their destination).
    pub corrupted: u64,
    /// Frames the decompressor discarded.
    pub discarded: u64,
    /// Frames written by the compressor whose packets a queue between it
    /// and the link dropped (the EV-DO base station's: `evdo::framing`):
    /// the decompressor misses them as it misses lost ones.
    #[serde(default)]
    pub dropped_in_queue: u64,
}
}

impl HopTable for PppResult {
    const DOC: &'static str = "one row per direction of a link that runs PPP: frames, header compression, and what lost frames cost (docs/ppp.md)";
}
