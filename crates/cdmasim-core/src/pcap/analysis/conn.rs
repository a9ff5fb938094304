//! One TCP connection and the per-packet update of its two directions.
//!
//! The order of the updates and each counter's definition follow tcptrace's
//! dotrace() (trace.c, version 6.6.7) because that is the program the
//! figures are compared with; where tcptrace's definition is odd the comment
//! says so and docs/pcap.md lists it.

use super::direction::Dir;
use super::seqspace::AckKind;
use super::series::DirSeries;
use crate::pcap::decode::*;

pub type Endpoint = ([u8; 16], u16);

#[derive(Debug)]
pub struct Conn {
    pub a: Endpoint,
    pub b: Endpoint,
    pub v6: bool,
    pub first_time: u64,
    pub last_time: u64,
    pub packets: u64,
    pub d: [Dir; 2],
    /// Replaced by a new connection on the same endpoints.
    pub inactive: bool,
    pub series: Option<Box<[DirSeries; 2]>>,
}

fn seq_gt(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}
fn seq_lt(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

/// Idle time after which the same endpoints make a new connection
/// (tcptrace's default of 4 minutes).
const NEW_CONN_IDLE_US: u64 = 4 * 60 * 1_000_000;

impl Conn {
    pub fn new(p: &TcpPacket, series: bool) -> Conn {
        Conn {
            a: (p.src, p.sport),
            b: (p.dst, p.dport),
            v6: p.v6,
            first_time: 0,
            last_time: 0,
            packets: 0,
            d: [Dir::default(), Dir::default()],
            inactive: false,
            series: if series { Some(Box::default()) } else { None },
        }
    }

    /// `p`'s direction (0: from `a`), if `p` joins this connection's
    /// endpoints.
    #[inline(always)]
    pub fn direction(&self, p: &TcpPacket) -> Option<usize> {
        let (s, d) = (u128::from_ne_bytes(p.src), u128::from_ne_bytes(p.dst));
        let (a, b) = (u128::from_ne_bytes(self.a.0), u128::from_ne_bytes(self.b.0));
        if s == a && d == b && p.sport == self.a.1 && p.dport == self.b.1 {
            Some(0)
        } else if s == b && d == a && p.sport == self.b.1 && p.dport == self.a.1 {
            Some(1)
        } else {
            None
        }
    }

    /// tcptrace's heuristics for "these endpoints now carry a new
    /// connection" (trace.c FindTTP): long idle, or a SYN after FIN/RST
    /// outside the old window, or a SYN with a different ISN.
    pub fn is_new_connection(&self, dir: usize, p: &TcpPacket, now: u64) -> bool {
        let (this, other) = (&self.d[dir], &self.d[1 - dir]);
        let syn = p.has(TH_SYN);
        now.saturating_sub(self.last_time) > NEW_CONN_IDLE_US
            || (syn
                && (this.fin_count >= 1 || other.fin_count >= 1 || this.reset_count >= 1 || other.reset_count >= 1)
                && (seq_gt(p.seq, other.windowend) || seq_lt(p.seq, this.syn)))
            || (syn && this.syn_count > 1 && this.syn != p.seq)
    }

    #[inline(always)]
    pub fn on_packet(&mut self, dir: usize, p: &TcpPacket, now: u64, check_cksum: bool) {
        if self.first_time == 0 {
            self.first_time = now;
        }
        self.last_time = now;
        let (lo, hi) = self.d.split_at_mut(1);
        let (this, other) = if dir == 0 { (&mut lo[0], &mut hi[0]) } else { (&mut hi[0], &mut lo[0]) };
        let syn = p.has(TH_SYN);
        let fin = p.has(TH_FIN);
        let rst = p.has(TH_RST);
        let ackf = p.has(TH_ACK);

        if syn {
            this.syn_count += 1;
        }
        if rst {
            this.reset_count += 1;
        }
        if fin {
            this.fin_count += 1;
        }

        // Effective window: RFC 7323 §2.2 scaling applies only when both
        // SYNs asked for it, and never to a SYN's own window. The scale
        // used is the one known before this packet's options are read.
        let eff_win: u64 = if ackf || syn {
            let w = p.win as u64;
            // A bogus scale (RFC 7323 caps it at 14) shifts as tcptrace's C
            // does on x86-64: the count taken modulo 64.
            if this.f1323_ws && other.f1323_ws && !syn { w.wrapping_shl(this.window_scale as u32) } else { w }
        } else {
            0
        };

        if this.last_time != 0 {
            this.idle_max = this.idle_max.max(now.saturating_sub(this.last_time));
        }
        this.last_time = now;
        if this.first_time == 0 {
            this.first_time = now;
        }

        let data_len = p.data_len();
        let start = p.seq;
        let end = start.wrapping_add(data_len);

        if syn {
            this.syn = start;
            other.ack = start;
        }
        if fin {
            this.fin = end;
        }
        if ackf {
            this.windowend = p.ack.wrapping_add(eff_win as u32);
        }

        let o = parse_options(p.options());
        if let Some(m) = o.mss {
            this.mss = m as u64;
        }
        if let Some(ws) = o.ws {
            this.window_scale = ws;
            this.f1323_ws = true;
        }
        if o.tsval.is_some() {
            this.f1323_ts = true;
        }
        if !syn && (!this.f1323_ws || !other.f1323_ws) {
            this.window_scale = 0;
            other.window_scale = 0;
        }
        if o.sack_permitted {
            this.fsack_req = true;
        }
        if o.sack_count.is_some_and(|n| n > 0) {
            this.sacks_sent += 1;
        }

        if data_len > 0 {
            this.data_pkts += 1;
            if p.has(TH_PUSH) {
                this.data_pkts_push += 1;
            }
            this.data_bytes += data_len as u64;
            if p.has(TH_URG) {
                this.urg_data_pkts += 1;
                this.urg_data_bytes += p.urp as u64;
            }
            this.max_seg_size = this.max_seg_size.max(data_len as u64);
            if this.min_seg_size == 0 || (data_len as u64) < this.min_seg_size {
                this.min_seg_size = data_len as u64;
            }
            if this.first_data_time == 0 {
                this.first_data_time = now;
            }
            this.last_data_time = now;
        }

        self.packets += 1;
        this.packets += 1;
        if this.win_scaled {
            this.win_scaled_pkts += 1;
        }
        this.latest_seq = end;

        if !p.v6 {
            let (seq, id) = (p.seq, p.ip_id);
            if seq != 0 && id != 0 && this.hw_ring.contains(&(seq, id)) {
                this.hw_dups += 1;
            } else {
                this.hw_ring[this.hw_ix] = (seq, id);
                this.hw_ix = (this.hw_ix + 1) % this.hw_ring.len();
            }
        }

        if data_len > 0 {
            let hdr = p.hdr_len as usize;
            let saved = (p.tcp.len().saturating_sub(hdr)).min(data_len as usize) as u64;
            let missing = data_len as u64 - saved;
            if missing > 0 {
                this.trunc_bytes += missing;
                this.trunc_segs += 1;
            }
        }

        // Checksums (Lee §3.3: corruption shows as TCP checksum
        // failures) where the whole segment was captured.
        if check_cksum {
            if let Some(ok) = p.checksum_ok() {
                this.cksum_checked += 1;
                if !ok {
                    this.cksum_bad += 1;
                }
            }
        }

        // Retransmissions. SYN and FIN each occupy one sequence number.
        let mut retrans_bytes: u64 = 0;
        let mut out_order = false;
        let mut probe = false;
        if syn || fin || data_len > 0 {
            let len = data_len as u64 + syn as u64 + fin as u64;
            let mut retrans_cnt: i64 = 0;
            // tcptrace: data sent into a zero window is a probe, not a
            // retransmission candidate.
            if other.win_last == 0 && other.packets > 0 {
                probe = true;
                this.zwnd_probes += 1;
                this.zwnd_probe_bytes += data_len as u64;
            } else {
                let seq64 = this.unwrap_seq(start);
                let (r, oo) = this.ss.rexmit(seq64, len, now, &mut this.acc);
                retrans_bytes = r;
                retrans_cnt = r as i64;
                out_order = oo;
                let e = seq64 + len;
                if this.seq_ref.is_none_or(|r| e > r) {
                    this.seq_ref = Some(e);
                }
            }
            if out_order {
                this.out_order_pkts += 1;
            }
            let mut ulen = len as i64;
            if syn {
                ulen -= 1;
                if this.syn_count > 1 {
                    retrans_cnt -= 1;
                }
            }
            if fin {
                ulen -= 1;
                if this.fin_count > 1 {
                    retrans_cnt -= 1;
                }
            }
            if !probe && retrans_cnt < ulen {
                this.unique_bytes += (ulen - retrans_cnt) as u64;
            }
            if data_len > 0 && !probe {
                this.loss.on_segment(now, retrans_bytes > 0, (retrans_bytes as i64) < len as i64);
            }
        }

        // ACK processing: RTT samples and duplicate ACKs on the other
        // direction's segments.
        let mut ack_kind = AckKind::None;
        if ackf {
            if let Some(r) = other.seq_ref {
                let ack64 = super::direction::unwrap(r, p.ack);
                let dup_ok = p.ack == this.ack && data_len == 0 && eff_win == this.win_last && other.owin_tot != 0;
                ack_kind = other.ss.ack_in(ack64, dup_ok, now, &mut other.acc);
            }
            if p.ack == other.syn.wrapping_add(1) && other.syn_count == 1 {
                other.rtt_3whs = other.acc.rtt_last;
            }
        }

        let retrans = retrans_bytes > 0;
        if retrans {
            this.rexmit_pkts += 1;
            this.rexmit_bytes += retrans_bytes;
        }

        if let Some(s) = &mut self.series {
            s[dir].on_segment(now, start, end, syn, fin, data_len, retrans, out_order);
            if ackf {
                s[1 - dir].on_ack(now, p.ack, p.ack.wrapping_add(eff_win as u32), ack_kind, other.acc.rtt_last);
            }
        }

        if rst {
            if ackf {
                this.ack_pkts += 1;
            }
            return;
        }

        this.win_last = eff_win;
        if ackf || syn {
            this.win_max = this.win_max.max(eff_win);
            // Once both sides negotiated scaling, restart the window
            // statistics from the first scaled advertisement (tcptrace).
            if eff_win > 0 && this.f1323_ws && other.f1323_ws && !syn && !this.win_scaled {
                this.win_scaled = true;
                this.win_min = eff_win;
                this.win_max = eff_win;
                this.win_tot = 0;
                this.win_scaled_pkts = 1;
            } else if eff_win > 0 && (this.win_min == 0 || eff_win < this.win_min) {
                this.win_min = eff_win;
            }
            this.win_tot += eff_win;
        }

        if ackf {
            if eff_win == 0 {
                this.win_zero_ct += 1;
            }
            this.ack_pkts += 1;
            if data_len == 0 && !syn && !fin {
                this.pureack_pkts += 1;
            }
            if let Some(n) = o.sack_count.filter(|&n| n > 0) {
                this.num_sacks += 1;
                this.max_sack_blocks = this.max_sack_blocks.max(n as u64);
                // RFC 2883 D-SACK: first block below the cumulative ACK,
                // or inside / overlapping the second block. tcptrace
                // compares these as plain unsigned numbers.
                let (l0, r0) = o.sacks[0];
                let (l1, r1) = o.sacks[1];
                let dsack = r0 <= p.ack
                    || (n > 1 && ((r0 <= r1 && l0 >= l1) || (l0 <= l1 && r0 > l1) || (r0 >= r1 && l0 < r1)));
                if dsack {
                    this.num_dsacks += 1;
                }
            }
            this.ack = p.ack;
        }

        // Initial window: data sent before the first ACK of data.
        if !other.data_acked && ackf && other.syn.wrapping_add(1) != p.ack {
            other.data_acked = true;
        }
        if data_len > 0 && !this.data_acked && !retrans {
            this.initialwin_bytes += data_len as u64;
            this.initialwin_segs += 1;
        }

        if !syn && !out_order && !retrans {
            // tcptrace computes these in unsigned long arithmetic on
            // un-wrapped 32-bit values; mimic it exactly (the wrap matters).
            let end_l = start as u64 + data_len as u64;
            let owin = if other.ack == 0 { end_l.wrapping_sub(start as u64) } else { end_l.wrapping_sub((other.ack as u64).wrapping_sub(1)) };
            this.owin_tot = this.owin_tot.wrapping_add(owin);
        }
    }

    /// Both directions closed (two FINs) or reset.
    pub fn closed(&self) -> bool {
        let fins = (self.d[0].fin_count > 0) as u8 + (self.d[1].fin_count > 0) as u8;
        fins >= 2 || self.d[0].reset_count + self.d[1].reset_count > 0
    }

    /// tcptrace extends the idle time of connections still open at the end
    /// of the trace to the time of the last packet in the file.
    pub fn finish(&mut self, trace_end: u64) {
        if !self.closed() {
            for d in &mut self.d {
                if d.last_time != 0 {
                    d.idle_max = d.idle_max.max(trace_end.saturating_sub(d.last_time));
                }
            }
        }
        for d in &mut self.d {
            d.loss.close();
        }
    }

    /// Free the per-segment state (sequence lists); the counters stay.
    pub fn release(&mut self) {
        for d in &mut self.d {
            d.ss = Default::default();
        }
    }
}
