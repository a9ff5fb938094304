//! Periodic samples, every `interval`: the queue length of every link and of
//! every user's base-station queue, RED's average queue, a cdma2000 cell's
//! buffers and its mobiles' radio rates, each EV-DO user's PF average and DRC
//! rate, and the bytes delivered by every flow. Per-event series (cwnd,
//! one-way delays) are kept by the endpoints themselves.

use super::hops::AnyHop;
use super::world::{Flow, FlowKind};
use crate::channel::drc::RATE_BPS;
use crate::engine::Time;

#[derive(Default)]
pub struct Sampler {
    pub interval: Option<Time>,
    pub t: Vec<Time>,
    /// (metric, subject) of each hop series, in the order `sample` visits them.
    pub names: Vec<(&'static str, String)>,
    pub hop_values: Vec<Vec<f64>>,
    /// Per flow: payload bytes delivered so far at each sample.
    pub delivered: Vec<Vec<u64>>,
}

pub fn delivered_bytes(f: &Flow) -> u64 {
    match &f.kind {
        FlowKind::Tcp(t) => t.receiver.delivered,
        FlowKind::Cbr { sink, .. } => sink.bytes,
        // Closed connections' bytes are in the totals; open ones are added by the caller.
        FlowKind::Web(w) => w.stats.bytes_delivered,
        FlowKind::Free => 0,
    }
}

/// Visit every sampled quantity of the hops, in a fixed order.
fn each_hop_value(hops: &[AnyHop], mut f: impl FnMut(&'static str, &dyn Fn() -> String, f64)) {
    for h in hops {
        match h {
            AnyHop::Link(l) => {
                f("queue_pkts", &|| l.name.clone(), l.queue.len_packets() as f64);
                if let Some(avg) = l.queue.average() {
                    f("red_avg", &|| l.name.clone(), avg);
                }
            }
            AnyHop::Cell(c) => {
                // Paliwal et al. Fig. 5(b): the shared buffer, RED's average
                // (frozen while no packet arrives), the sum of the link buffers.
                f("queue_pkts", &|| c.bsc.name.clone(), c.bsc.queue.len_packets() as f64);
                if let Some(avg) = c.bsc.queue.average() {
                    f("red_avg", &|| c.bsc.name.clone(), avg);
                }
                let links: usize = c.mobiles.iter().map(|m| m.link.queue.len_packets()).sum();
                f("link_queue_pkts", &|| c.name.clone(), links as f64);
                for m in &c.mobiles {
                    f("queue_pkts", &|| m.link.name.clone(), m.link.queue.len_packets() as f64);
                    f("rate_bps", &|| m.name.clone(), m.link.rate_bps() as f64);
                }
            }
            AnyHop::Rlp(r) => {
                // Seed 004 Figs. 9-12: the RLP sender's buffers, each way.
                for (d, dir) in r.dirs.iter().zip(["down", "up"]) {
                    f("rlp_new_data_bytes", &|| format!("{}.{dir}", r.name), d.arq.new_data_bytes() as f64);
                    f("rlp_rtx_bytes", &|| format!("{}.{dir}", r.name), d.arq.rtx_buffer_bytes() as f64);
                    f("rate_bps", &|| format!("{}.{dir}", r.name), d.rate_bps as f64);
                }
            }
            AnyHop::Is2000(s) => {
                // Seed 004 Fig. 14: the power in use.
                f("power_fraction", &|| s.name.clone(), s.power_fraction());
            }
            AnyHop::Evdo(r) => {
                for (i, u) in r.users.iter().enumerate() {
                    f("queue_pkts", &|| format!("{}.down", u.name), u.queue.len_packets() as f64);
                    let avg = r.sectors[u.sector].sched.user_state(i).unwrap_or(f64::NAN);
                    f("pf_avg_bps", &|| u.name.clone(), avg);
                    f("drc_bps", &|| u.name.clone(), RATE_BPS[u.drc as usize] as f64);
                }
            }
        }
    }
}

impl Sampler {
    pub fn new(interval: Option<Time>, hops: &[AnyHop], flows: &[Flow]) -> Self {
        let mut names = Vec::new();
        if interval.is_some() {
            each_hop_value(hops, |metric, subject, _| names.push((metric, subject())));
        }
        Sampler { interval, t: Vec::new(), hop_values: vec![Vec::new(); names.len()], names, delivered: vec![Vec::new(); flows.len()] }
    }

    pub fn sample(&mut self, now: Time, hops: &[AnyHop], flows: &[Flow]) {
        self.t.push(now);
        let mut i = 0;
        let values = &mut self.hop_values;
        each_hop_value(hops, |_, _, v| {
            values[i].push(v);
            i += 1;
        });
        for (s, f) in self.delivered.iter_mut().zip(flows) {
            s.push(delivered_bytes(f));
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
            let taken = w.samples.names.len() + w.samples.delivered.len();
            assert_eq!(taken as u64, spec.sampled_series(), "{name}");
            seen += 1;
        }
        assert!(seen >= 8, "examples read: {seen}");
    }
}
