//! A channel as a scenario describes it, and the live source drawn from that
//! description when the world is built. The description is small (a preset
//! name and seed, a trace path, a constant DRC), so a scenario of any length
//! parses in constant memory; slots are drawn only as the run reaches them.

use super::{presets, read_trace, ChannelError, ChannelSource, Format, TraceSource};
use crate::engine::RngStreams;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum DrcSpec {
    /// A synthetic preset of `channel::presets`. Its seed is `seed` when the
    /// scenario pins one, else it comes from the run's seed: that seed
    /// itself, or for terminal `user` of an EV-DO sector its own stream of
    /// it (`presets::user_seed`). With `vehicle`, it rides in that vehicle
    /// with the other terminals of the same number
    /// (`presets::source_in_vehicle`), whose seed the run's seed draws too.
    /// The run's seed acts only when the world is built, so one parsed
    /// scenario runs under any seed.
    Preset {
        name: String,
        seed: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        user: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        vehicle: Option<u64>,
    },
    /// A trace file (path as the world will open it), looped when shorter
    /// than the run, starting at `start_slot`.
    Trace { path: String, format: Format, mahimahi_window_ms: u32, start_slot: u64 },
    /// The same DRC index in every slot.
    Constant { drc: u8 },
}

impl DrcSpec {
    /// The live source, for a run whose seed makes `run`'s streams.
    pub fn open(&self, run: &RngStreams) -> Result<Box<dyn ChannelSource>, ChannelError> {
        Ok(match self {
            DrcSpec::Preset { name, seed, user, vehicle } => {
                let seed = seed.unwrap_or_else(|| user.map_or(run.seed(), |k| presets::user_seed(run.seed(), k as usize)));
                match vehicle {
                    None => presets::source_checked(name, seed).map_err(|e| ChannelError::new(name.as_str(), e))?,
                    Some(v) => presets::source_in_vehicle(name, seed, run.stream(&format!("vehicle/{v}")).next_u64()),
                }
                .ok_or_else(|| ChannelError::new(name.as_str(), "unknown DRC preset"))?
            }
            DrcSpec::Trace { path, format, mahimahi_window_ms, start_slot } => {
                let t = read_trace(path, Some(*format), *mahimahi_window_ms)?;
                if t.is_empty() {
                    return Err(ChannelError::new(path.as_str(), "the trace holds no slots"));
                }
                let start = (*start_slot % t.len() as u64) as usize;
                Box::new(TraceSource::new(Arc::new(t), start, true))
            }
            DrcSpec::Constant { drc } => Box::new(super::constant::Constant { drc: *drc }),
        })
    }
}

/// A source read ahead in chunks, one slot at a time, keeping the hand-offs
/// it reports (slot numbers from its start).
pub struct SlotReader {
    src: Box<dyn ChannelSource>,
    buf: Vec<u8>,
    pos: usize,
    len: usize,
    /// Slots handed out so far.
    pub slot: u64,
    handoffs: std::collections::VecDeque<u64>,
}

const CHUNK: usize = 600;

impl SlotReader {
    pub fn new(src: Box<dyn ChannelSource>) -> Self {
        SlotReader { src, buf: vec![0; CHUNK], pos: 0, len: 0, slot: 0, handoffs: Default::default() }
    }

    /// The next slot's DRC (0, the null rate, once a finite source has ended).
    #[inline]
    pub fn next(&mut self) -> u8 {
        if self.pos == self.len {
            self.len = self.src.fill(&mut self.buf, None);
            self.pos = 0;
            self.handoffs.extend(self.src.take_handoffs());
            if self.len == 0 {
                self.slot += 1;
                return 0;
            }
        }
        let d = self.buf[self.pos];
        self.pos += 1;
        self.slot += 1;
        d
    }

    /// Whether the source reported a hand-off at the slot just read.
    pub fn handoff_now(&mut self) -> bool {
        let at = self.slot - 1;
        while self.handoffs.front().is_some_and(|&h| h < at) {
            self.handoffs.pop_front();
        }
        if self.handoffs.front() == Some(&at) {
            self.handoffs.pop_front();
            return true;
        }
        false
    }

    /// The next `n` slots as `next` then `handoff_now`, slot by slot, give
    /// them: `put(k, drc, handoff)` for k in 0..n. While no hand-off is
    /// held, the buffered slots go out in one run.
    #[inline]
    pub fn read(&mut self, n: usize, mut put: impl FnMut(usize, u8, bool)) {
        let mut k = 0;
        while k < n {
            let run = (self.len - self.pos).min(n - k);
            if run == 0 || !self.handoffs.is_empty() {
                let d = self.next();
                put(k, d, self.handoff_now());
                k += 1;
                continue;
            }
            for (i, &d) in self.buf[self.pos..self.pos + run].iter().enumerate() {
                put(k + i, d, false);
            }
            self.pos += run;
            self.slot += run as u64;
            k += run;
        }
    }
}
