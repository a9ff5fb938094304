//! Periodic samples, every `interval`: what every hop samples (`Hop::sample`:
//! queue lengths, RED's average, a cell's buffers and rates, each EV-DO
//! user's PF average and DRC rate, RLP buffers, a sector's power) and the
//! bytes delivered by every flow. Per-event series (cwnd, one-way delays)
//! are kept by the endpoints themselves.

use super::flows::Flow;
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
}

impl Sampler {
    pub fn new(interval: Option<Time>, net: &Network, flows: &[Flow]) -> Self {
        let mut names = Vec::new();
        if interval.is_some() {
            net.sample(&mut |metric, subject, _| names.push((metric, subject())));
        }
        Sampler { interval, t: Vec::new(), hop_values: vec![Vec::new(); names.len()], names, delivered: vec![Vec::new(); flows.len()] }
    }

    pub fn sample(&mut self, now: Time, net: &Network, flows: &[Flow]) {
        self.t.push(now);
        let mut i = 0;
        let values = &mut self.hop_values;
        net.sample(&mut |_, _, v| {
            values[i].push(v);
            i += 1;
        });
        for (s, f) in self.delivered.iter_mut().zip(flows) {
            s.push(f.delivered_bytes());
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
