//! An in-memory per-slot trace and the source that plays it back.

use super::ChannelSource;

/// DRC index per slot, with optional SINR (dB) and hand-off slots.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DrcTrace {
    pub drc: Vec<u8>,
    pub sinr: Option<Vec<f32>>,
    pub handoffs: Vec<u64>,
}

impl DrcTrace {
    pub fn len(&self) -> usize {
        self.drc.len()
    }
    pub fn is_empty(&self) -> bool {
        self.drc.is_empty()
    }
}

/// Plays a trace from a start slot, looping at the end (as Mahimahi does) or not.
pub struct TraceSource {
    trace: std::sync::Arc<DrcTrace>,
    pos: usize,
    looping: bool,
    emitted: u64,
    pending_handoffs: Vec<u64>,
}

impl TraceSource {
    pub fn new(trace: std::sync::Arc<DrcTrace>, start: usize, looping: bool) -> Self {
        let pos = if trace.is_empty() { 0 } else { start % trace.len() };
        Self { trace, pos, looping, emitted: 0, pending_handoffs: Vec::new() }
    }
}

impl ChannelSource for TraceSource {
    fn fill(&mut self, drc: &mut [u8], mut sinr: Option<&mut [f32]>) -> usize {
        let t = self.trace.clone();
        let mut done = 0;
        while done < drc.len() && !t.is_empty() {
            if self.pos == t.len() {
                if !self.looping {
                    break;
                }
                self.pos = 0;
            }
            let k = (drc.len() - done).min(t.len() - self.pos);
            drc[done..done + k].copy_from_slice(&t.drc[self.pos..self.pos + k]);
            if let Some(s) = sinr.as_deref_mut() {
                match &t.sinr {
                    Some(v) => s[done..done + k].copy_from_slice(&v[self.pos..self.pos + k]),
                    None => s[done..done + k].fill(f32::NAN),
                }
            }
            // Hand-offs recorded in the trace, re-based on the emitted slot count.
            let (a, b) = (self.pos as u64, (self.pos + k) as u64);
            for &h in t.handoffs.iter().filter(|&&h| h >= a && h < b) {
                self.pending_handoffs.push(self.emitted + (h - a));
            }
            self.pos += k;
            self.emitted += k as u64;
            done += k;
        }
        done
    }

    fn has_sinr(&self) -> bool {
        self.trace.sinr.is_some()
    }

    fn take_handoffs(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.pending_handoffs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn loops_and_stops() {
        let t = Arc::new(DrcTrace { drc: vec![1, 2, 3], sinr: None, handoffs: vec![1] });
        let mut s = TraceSource::new(t.clone(), 1, true);
        let mut b = [0u8; 7];
        assert_eq!(s.fill(&mut b, None), 7);
        assert_eq!(b, [2, 3, 1, 2, 3, 1, 2]);
        assert_eq!(s.take_handoffs(), vec![0, 3, 6]);
        let mut s = TraceSource::new(t, 0, false);
        assert_eq!(s.fill(&mut b, None), 3);
    }
}
