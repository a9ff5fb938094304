//! ROHC-TCP (RFC 6846), at the level that decides what a lost frame costs.
//!
//! Where VJ sends differences from the previous header, ROHC-TCP sends the
//! least significant bits of the fields (W-LSB encoding, RFC 4997 `lsb`)
//! with a master sequence number (MSN, 4 bits in the common formats) and a
//! 3-bit CRC over the whole rebuilt header. The decompressor decodes the
//! bits against its last header that passed the CRC, so a lost frame
//! changes nothing for the frames after it as long as the gap fits the
//! interpretation intervals; a wrong decode fails the CRC and is discarded
//! without touching the context (RFC 6846 §5.3.1.1).
//!
//! The model: a run of up to `TOLERATED_RUN` consecutive lost frames of a
//! context costs only those frames. The tightest interval of a bulk
//! transfer is the scaled sequence number's, `lsb(4, 7)`: 7 segments back
//! to 8 ahead. A longer run makes the next frame fail its CRC: it is
//! discarded and the decompressor sends a NACK, which the compressor
//! answers with a 7-bit-CRC packet (RFC 6846 §5.2.2.2); the model takes
//! that repair to arrive before the next frame (feedback faster than the
//! frame spacing), so such a run costs one more frame. A wrong decode that
//! slips past the 3-bit CRC (1 in 8) would reach TCP and fail its checksum
//! (carried whole); it is not modelled.
//!
//! Header sizes, from the formats of RFC 6846 §8 as the rohc library
//! (didier-barvaux/rohc) chooses them, each with the 2-byte TCP checksum
//! of the irregular chain and a 1-byte CID for contexts other than 0:
//! - a context's first packet: IR, the full header plus 4 bytes (type,
//!   profile, CRC-8, and the CID);
//! - in-order data: seq_2, 3 bytes, so 5;
//! - a pure ACK: seq_4, 2 bytes, so 4;
//! - timestamps: their LSBs in the irregular chain, 2 bytes each;
//! - anything else (a retransmission going backwards, SACK blocks, a
//!   SYN or FIN): co_common, 5 bytes with a 4-byte sequence number, a
//!   2-byte ACK number and 4 bytes per SACK block, with the checksum.

use super::{full_header, Connections, HeaderCompression, Outcome, Wire, WireBody};
#[cfg(test)]
use super::Frame;
use crate::net::{Body, Packet, TcpFlags};

/// Consecutive lost frames of a context that cost nothing more (the
/// interpretation interval of `lsb(4, 7)` on the scaled sequence number).
pub const TOLERATED_RUN: u32 = 7;

/// A connection's context (small CIDs, RFC 5795 §5.1.1: 0 to 15).
#[derive(Clone, Copy)]
struct Context {
    /// The highest sequence number sent (32-bit, as the header carries
    /// it), to see one go backwards.
    last_seq: u32,
    /// Frames lost since the last that reached the decompressor.
    lost_run: u32,
}

#[derive(Default)]
pub struct Rohc {
    contexts: Connections<Context>,
}

/// What a ROHC frame tells the decompressor: its context, and whether the
/// context was new (an IR packet, which the decompressor cannot fail).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Sent {
    context: usize,
    known: bool,
}

impl HeaderCompression for Rohc {
    fn compress(&mut self, pkt: &Packet, body: &Body) -> Wire {
        let full = full_header(body);
        let Body::Tcp(h) = body else { return Wire::plain(body) };
        let seq = h.seq as u32;
        let (i, known) = self.contexts.entry((pkt.flow, pkt.forward), || Context { last_seq: seq, lost_run: 0 });
        let cid = (i != 0) as u32;
        let c = self.contexts.get(i);
        let ts = if h.ts.is_some() { 4 } else { 0 };
        // Sequence numbers compared as 32-bit serial numbers (RFC 1982): a
        // real connection's wrap is not a step back.
        let behind = (seq.wrapping_sub(c.last_seq) as i32) < 0;
        let irregular = behind || !h.sack.is_empty() || h.flags.has(TcpFlags::SYN) || h.flags.has(TcpFlags::FIN);
        let header_bytes = if !known {
            full + 4
        } else if irregular {
            5 + 4 + 2 + 4 * h.sack.len() as u32 + 2 + ts + cid
        } else if h.len > 0 {
            5 + ts + cid
        } else {
            4 + ts + cid
        };
        if !behind {
            c.last_seq = seq;
        }
        Wire { header_bytes, body: WireBody::Rohc(Sent { context: i, known }) }
    }

    fn lose(&mut self, wire: &Wire) {
        if let WireBody::Rohc(sent) = wire.body {
            self.contexts.get(sent.context).lost_run += 1;
        }
    }

    fn decompress(&mut self, _pkt: &mut Packet, _h: &mut Body, wire: &Wire) -> Outcome {
        let WireBody::Rohc(sent) = wire.body else { return Outcome::Intact };
        let c = self.contexts.get(sent.context);
        let run = std::mem::take(&mut c.lost_run);
        if sent.known && run > TOLERATED_RUN { Outcome::Discarded } else { Outcome::Intact }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{ack, carry, data};
    use super::*;

    #[test]
    fn one_lost_frame_costs_that_frame_only() {
        let mut r = Rohc::default();
        let out: Vec<Frame> = (0..10).map(|k| carry(&mut r, &mut data(k, k, None), k == 3)).collect();
        assert_eq!(out[0].header_bytes, 44);
        assert!(out[1..].iter().all(|f| f.outcome == Outcome::Intact && f.header_bytes == 5));
    }

    #[test]
    fn a_run_longer_than_the_interval_costs_one_frame_more() {
        let mut r = Rohc::default();
        let lose = |k: u64| (2..2 + TOLERATED_RUN as u64 + 1).contains(&k);
        let out: Vec<Outcome> = (0..20).map(|k| carry(&mut r, &mut data(k, k, None), lose(k)).outcome).collect();
        let first_after = 2 + TOLERATED_RUN as usize + 1;
        assert_eq!(out[first_after], Outcome::Discarded);
        assert!(out[first_after + 1..].iter().all(|&o| o == Outcome::Intact));
    }

    #[test]
    fn acks_and_retransmissions_have_their_formats() {
        let mut r = Rohc::default();
        carry(&mut r, &mut ack(0, 2), false);
        assert_eq!(carry(&mut r, &mut ack(1, 4), false).header_bytes, 4);
        let mut d = Rohc::default();
        for k in 0..5 {
            carry(&mut d, &mut data(k, k, None), false);
        }
        // Segment 2 again: co_common with the full sequence number.
        assert_eq!(carry(&mut d, &mut data(9, 2, None), false).header_bytes, 13);
    }

    #[test]
    fn a_sequence_number_wrap_is_not_a_step_back() {
        // A real connection (the emulator's) crossing 2^32: segments after
        // the wrap stay in the 5-byte format; a retransmission before it is
        // still a step back.
        let mut r = Rohc::default();
        let start = 0xffff_f000u64;
        let sizes: Vec<u32> = (0..10)
            .map(|k| {
                let mut p = data(k, 0, None);
                if let Body::Tcp(h) = &mut p.h {
                    h.seq = (start + k * 1448) & 0xffff_ffff;
                }
                carry(&mut r, &mut p, false).header_bytes
            })
            .collect();
        assert_eq!(sizes[0], 44);
        assert!(sizes[1..].iter().all(|&b| b == 5), "{sizes:?}");
        let mut again = data(11, 0, None);
        if let Body::Tcp(h) = &mut again.h {
            h.seq = start + 1448;
        }
        assert_eq!(carry(&mut r, &mut again, false).header_bytes, 13);
    }
}
