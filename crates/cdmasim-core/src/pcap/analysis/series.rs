//! Optional per-direction time series for plots (collected only when asked:
//! they grow with the number of packets). Sequence numbers are relative to
//! the direction's first sequence number, as `tcptrace -zxy` draws them.

use super::seqspace::AckKind;

#[derive(Debug, Default, serde::Serialize)]
pub struct DirSeries {
    /// Data segments: (t µs, first seq, end seq, kind) with kind 0 = new,
    /// 1 = retransmitted, 2 = out of order, 3 = SYN/FIN.
    pub segments: Vec<(u64, i64, i64, u8)>,
    /// ACKs for this direction's data: (t µs, ack, ack + window).
    pub acks: Vec<(u64, i64, i64)>,
    /// RTT samples: (t µs, rtt µs).
    pub rtt: Vec<(u64, u64)>,
    #[serde(skip)]
    base: Option<u32>,
}

impl DirSeries {
    fn rel(&mut self, s: u32) -> i64 {
        let b = *self.base.get_or_insert(s);
        s.wrapping_sub(b) as i32 as i64
    }

    #[allow(clippy::too_many_arguments)]
    pub fn on_segment(&mut self, t: u64, start: u32, end: u32, syn: bool, fin: bool, data_len: u32, retrans: bool, out_order: bool) {
        if data_len == 0 && !syn && !fin {
            return;
        }
        let kind = if syn || (fin && data_len == 0) { 3 } else if retrans { 1 } else if out_order { 2 } else { 0 };
        let (a, b) = (self.rel(start), self.rel(end));
        self.segments.push((t, a, b, kind));
    }

    pub fn on_ack(&mut self, t: u64, ack: u32, win_end: u32, kind: AckKind, rtt_last: u64) {
        if self.base.is_none() {
            return;
        }
        let (a, w) = (self.rel(ack), self.rel(win_end));
        self.acks.push((t, a, w));
        if kind == AckKind::Normal {
            self.rtt.push((t, rtt_last));
        }
    }
}
