//! One-way delay and end-to-end loss from captures at both ends of a path
//! (Liu et al. §4: "excess one-way delay ... the residual delay after
//! subtracting the smallest delay sample ... to minimize problems with clock
//! synchronization"). A constant clock offset between the two capture hosts
//! cancels in the excess delay; clock drift does not.
//!
//! Packets are matched by connection, direction, sequence and ACK numbers,
//! flags, payload length and the IPv4 identification, plus a hash of the
//! captured TCP options and payload (which separates retransmissions when
//! the IP id is 0, as in IPv6). The capture holding a direction's packets
//! first is that direction's sending side; its packets missing from the
//! other capture are the end-to-end losses.
//!
//! Memory: one table entry per packet of the first capture.

use super::{conn_key, KeyHash, Key};
use crate::pcap::decode::{decode, Decoded, TcpPacket};
use crate::pcap::error::PcapError;
use crate::pcap::reader::Records;
use serde::Serialize;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct PKey {
    conn: Key,
    fwd: bool,
    seq: u32,
    ack: u32,
    flags: u8,
    len: u32,
    ip_id: u16,
    hash: u64,
}

fn pkey(p: &TcpPacket) -> PKey {
    let conn = conn_key(p);
    let fwd = (p.src, p.sport) == (conn.0, conn.1);
    let mut h = KeyHash::default();
    h.write(p.options());
    let pl = p.payload();
    h.write(&pl[..pl.len().min(64)]);
    PKey { conn, fwd, seq: p.seq, ack: p.ack, flags: p.flags, len: p.data_len(), ip_id: p.ip_id, hash: h.finish() }
}

#[derive(Debug, Clone, Serialize)]
pub struct OwdDirection {
    pub src: String,
    pub dst: String,
    pub sport: u16,
    pub dport: u16,
    /// "a" if the first capture is the sending side, else "b".
    pub sender_capture: &'static str,
    pub sent: u64,
    pub matched: u64,
    pub lost: u64,
    pub loss_rate: f64,
    /// Smallest raw delay (includes the clock offset), ms.
    pub min_delay_ms: f64,
    pub mean_excess_ms: f64,
    pub std_excess_ms: f64,
    /// Every matched packet: (send time µs, excess delay µs).
    pub excess: Vec<(u64, f64)>,
}

#[derive(Debug, Clone, Serialize)]
pub struct OwdReport {
    pub directions: Vec<OwdDirection>,
    /// Packets appearing more than once with the same key in a capture
    /// (ambiguous, not matched).
    pub ambiguous: u64,
}

fn tcp_packets(mut records: impl Records, mut f: impl FnMut(u64, &TcpPacket<'_>)) -> Result<(), PcapError> {
    while let Some(rec) = records.next_record() {
        let rec = rec?;
        if let Decoded::Tcp(p) = decode(rec.linktype, rec.data) {
            f(rec.ts_ns, &p);
        }
    }
    Ok(())
}

#[derive(Default)]
struct Acc {
    sent_a: u64,
    sent_b: u64,
    /// (time in A, time in B) for matched packets.
    pairs: Vec<(u64, u64)>,
}

pub fn one_way_delay(a: impl Records, b: impl Records) -> Result<OwdReport, PcapError> {
    type H = BuildHasherDefault<KeyHash>;
    // Packets of capture A by key; u64::MAX marks a duplicate key.
    let mut table: HashMap<PKey, u64, H> = HashMap::default();
    let mut ambiguous = 0u64;
    let mut acc: HashMap<(Key, bool), Acc, H> = HashMap::default();
    tcp_packets(a, |t, p| {
        let k = pkey(p);
        acc.entry((k.conn, k.fwd)).or_default().sent_a += 1;
        table.entry(k).and_modify(|v| *v = u64::MAX).or_insert(t);
    })?;
    let mut seen_b: HashMap<PKey, (), H> = HashMap::default();
    tcp_packets(b, |t, p| {
        let k = pkey(p);
        let e = acc.entry((k.conn, k.fwd)).or_default();
        e.sent_b += 1;
        if seen_b.insert(k, ()).is_some() {
            ambiguous += 1;
            return;
        }
        if let Some(&ta) = table.get(&k) {
            if ta == u64::MAX {
                ambiguous += 1;
            } else {
                e.pairs.push((ta, t));
            }
        }
    })?;
    let mut dirs: Vec<_> = acc.into_iter().filter(|(_, v)| !v.pairs.is_empty()).collect();
    dirs.sort_by_key(|x| (x.0 .0, !x.0 .1));
    // Which capture sends a direction? With a clock offset θ (B's clock
    // minus A's), tB - tA is θ + delay for A->B packets and θ - delay for
    // B->A packets: of a connection's two directions, the one with the
    // larger median is A->B. With only one direction matched, fall back to
    // the sign (assumes |θ| below the delay).
    let median = |v: &Acc| {
        let mut d: Vec<i64> = v.pairs.iter().map(|&(ta, tb)| tb as i64 - ta as i64).collect();
        d.sort_unstable();
        d[d.len() / 2]
    };
    let medians: HashMap<(Key, bool), i64, H> = dirs.iter().map(|(k, v)| (*k, median(v))).collect();
    let mut out = Vec::new();
    for ((conn, fwd), v) in dirs {
        let mut d: Vec<i64> = v.pairs.iter().map(|&(ta, tb)| tb as i64 - ta as i64).collect();
        let mine = medians[&(conn, fwd)];
        let a_sends = match medians.get(&(conn, !fwd)) {
            Some(&other) => mine > other || (mine == other && fwd),
            None => mine >= 0,
        };
        if !a_sends {
            d.iter_mut().for_each(|x| *x = -*x);
        }
        let (sent, send_times): (u64, Vec<u64>) = if a_sends {
            (v.sent_a, v.pairs.iter().map(|p| p.0).collect())
        } else {
            (v.sent_b, v.pairs.iter().map(|p| p.1).collect())
        };
        let min = *d.iter().min().unwrap();
        let n = d.len() as f64;
        let ex: Vec<f64> = d.iter().map(|&x| (x - min) as f64 / 1000.0).collect();
        let mean = ex.iter().sum::<f64>() / n;
        let var = if d.len() > 1 { ex.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0) } else { 0.0 };
        let matched = d.len() as u64;
        let lost = sent.saturating_sub(matched);
        let v6 = conn.0[4..].iter().any(|&x| x != 0) || conn.2[4..].iter().any(|&x| x != 0);
        let ((sa, sp), (da, dp)) = if fwd { ((conn.0, conn.1), (conn.2, conn.3)) } else { ((conn.2, conn.3), (conn.0, conn.1)) };
        out.push(OwdDirection {
            src: super::report::addr_string(&sa, v6),
            dst: super::report::addr_string(&da, v6),
            sport: sp,
            dport: dp,
            sender_capture: if a_sends { "a" } else { "b" },
            sent,
            matched,
            lost,
            loss_rate: if sent == 0 { 0.0 } else { lost as f64 / sent as f64 },
            min_delay_ms: min as f64 / 1e6,
            mean_excess_ms: mean / 1000.0,
            std_excess_ms: var.sqrt() / 1000.0,
            excess: send_times.iter().zip(&ex).map(|(&t, &e)| (t / 1000, e)).collect(),
        });
    }
    Ok(OwdReport { directions: out, ambiguous })
}
