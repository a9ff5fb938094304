//! Periodic samples, every `interval`: what every hop samples (`Hop::sample`:
//! queue lengths, RED's average, a cell's buffers and rates, each EV-DO
//! user's PF average and DRC rate, RLP buffers, a sector's power) and the
//! bytes delivered by every flow. Per-event series (cwnd, one-way delays)
//! are kept by the TCP endpoints and the applications themselves.

use super::apps::App;
use super::flows::Flow;
use super::series_spool::SeriesSpool;
use crate::engine::time::secs;
use crate::engine::Time;
use crate::network::Network;

#[derive(Default)]
pub struct Sampler {
    pub interval: Option<Time>,
    pub t: Vec<Time>,
    /// (metric, subject) of each hop series, in the order the hops sample them.
    pub names: Vec<(&'static str, String)>,
    pub hop_values: Vec<Vec<f64>>,
    /// Per flow: payload bytes delivered so far at each sample.
    pub delivered: Vec<Vec<u64>>,
    /// Samples taken (kept here or streamed).
    pub taken: u64,
    /// Samples the run will take (at 0, every interval, up to the horizon):
    /// kept series are given room for them at the first, as they would
    /// grow to it anyway (a vector grown by doubling copies itself about
    /// as often as it is long).
    expected: usize,
    /// Streaming: the spool's series of each hop series and of each flow's
    /// goodput, and each flow's bytes at the last sample.
    streamed: Option<(Vec<usize>, Vec<usize>, Vec<u64>)>,
}

/// A flow's goodput over one sampling interval: the payload bytes delivered
/// since the last sample, in bit/s.
pub fn goodput_bps(delivered: u64, before: u64, interval_s: f64) -> f64 {
    (delivered - before) as f64 * 8.0 / interval_s
}

impl Sampler {
    /// The sampling interval in seconds (1 without one).
    pub fn interval_s(&self) -> f64 {
        self.interval.map_or(1.0, secs)
    }

    pub fn new(interval: Option<Time>, horizon: Time, net: &Network, flows: &[Flow]) -> Self {
        let mut names = Vec::new();
        if interval.is_some() {
            net.sample(&mut |metric, subject, _| names.push((metric, subject())));
        }
        Sampler {
            interval,
            t: Vec::new(),
            hop_values: vec![Vec::new(); names.len()],
            names,
            delivered: vec![Vec::new(); flows.len()],
            taken: 0,
            expected: interval.map_or(0, |i| (horizon / i.max(Time(1))).saturating_add(1) as usize),
            streamed: None,
        }
    }

    /// Room for every sample the run will take, in each kept series.
    #[cold]
    fn reserve(&mut self) {
        let n = self.expected;
        self.t.reserve_exact(n);
        self.hop_values.iter_mut().for_each(|v| v.reserve_exact(n));
        self.delivered.iter_mut().for_each(|v| v.reserve_exact(n));
    }

    /// Take a sample: kept here, or written to `spool` when series stream
    /// (the same values: goodput is the bytes since the last sample over
    /// the interval, as `collect` computes it from the kept counts).
    pub fn sample(&mut self, now: Time, net: &Network, flows: &[Flow], apps: &[App], spool: Option<&mut SeriesSpool>) {
        self.taken += 1;
        if let Some(spool) = spool {
            let (n, dt) = (self.delivered.len(), self.interval_s());
            let (hops, goodput, last) = self.streamed.get_or_insert_with(|| {
                let hops = self.names.iter().map(|(m, s)| spool.id(m, s)).collect();
                let goodput = flows[..n].iter().map(|f| spool.id("goodput_bps", &f.name)).collect();
                (hops, goodput, vec![0; n])
            });
            let t = secs(now);
            let mut i = 0;
            net.sample(&mut |_, _, v| {
                spool.push(hops[i], t, v);
                i += 1;
            });
            for (k, app) in apps.iter().enumerate() {
                let x = app.delivered_bytes(k as u32, flows);
                spool.push(goodput[k], t, goodput_bps(x, last[k], dt));
                last[k] = x;
            }
            return;
        }
        if self.t.is_empty() {
            self.reserve();
        }
        self.t.push(now);
        let mut i = 0;
        let values = &mut self.hop_values;
        net.sample(&mut |_, _, v| {
            values[i].push(v);
            i += 1;
        });
        for (k, (s, app)) in self.delivered.iter_mut().zip(apps).enumerate() {
            s.push(app.delivered_bytes(k as u32, flows));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::NS_PER_SEC;
    use crate::scenario;

    /// Validation bounds samples x series with `ScenarioSpec::sampled_series`
    /// before the run; it must count exactly what the sampler visits.
    #[test]
    fn the_spec_counts_the_series_the_sampler_takes() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if !name.ends_with(".toml") || name.starts_with("sweep_") {
                continue;
            }
            let mut spec = scenario::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            spec.sample_interval = Some(NS_PER_SEC);
            let w = super::super::build::build(&spec).unwrap();
            let taken = w.hosts.samples.names.len() + w.hosts.samples.delivered.len();
            assert_eq!(taken as u64, spec.sampled_series(), "{name}");
            seen += 1;
        }
        assert!(seen >= 8, "examples read: {seen}");
    }
}
