//! A test-only hop kind, written the way docs/ARCHITECTURE.md ("Adding a
//! radio hop") says a new kind is added: this one file (the hop, its
//! configuration, its scenario table) plus one line in each shared file
//! the document names. A `[[delay]]` table is a one-way hop from `from` to
//! `to` that hands every packet on exactly `delay` after it came in: no
//! queue, no service time, no loss.

use crate::engine::Time;
use crate::net::hop::{BuildContext, BuildError, Ends, Hop, HopConfig, HopEvent, HopKind, Port, Samples};
use crate::net::link::LinkSpec;
use crate::net::{Headers, Packet};
use crate::result::{HopRows, QueueResult};
use crate::input::error::ScenarioError;
use crate::input::kind::{KindTables, Names, Resolver};
use crate::input::reader::Named;
use crate::input::reader::{Res, Val};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DelayConfig {
    pub name: String,
    pub from: usize,
    pub to: usize,
    pub delay: Time,
}

impl HopConfig for DelayConfig {
    fn ports(&self) -> Vec<Ends> {
        vec![Ends { from: self.from as u32, to: self.to as u32 }]
    }

    /// The packets inside.
    fn sampled_series(&self) -> u64 {
        1
    }
}

pub struct DelayHop {
    cfg: DelayConfig,
    /// Packets with the time they leave, in order (the delay is constant).
    inside: VecDeque<(Time, Packet)>,
    released: Time,
    taken: u64,
    bytes: u64,
}

impl HopKind for DelayHop {
    type Config = DelayConfig;
    fn build(cfg: &DelayConfig, _cx: &BuildContext) -> Result<Self, BuildError> {
        Ok(DelayHop { cfg: cfg.clone(), inside: VecDeque::new(), released: 0, taken: 0, bytes: 0 })
    }
}

impl Hop for DelayHop {
    fn offer(&mut self, now: Time, _port: Port, pkt: Packet, _hd: &mut Headers) {
        self.taken += 1;
        self.bytes += pkt.size as u64;
        self.inside.push_back((now + self.cfg.delay, pkt));
    }

    fn poll(&mut self) -> Option<HopEvent> {
        let &(at, pkt) = self.inside.front()?;
        if at > self.released {
            return None;
        }
        self.inside.pop_front();
        Some(HopEvent::Deliver { port: 0, pkt })
    }

    fn deadline(&self) -> Option<Time> {
        self.inside.front().map(|e| e.0)
    }

    fn on_timer(&mut self, now: Time, _hd: &mut Headers) {
        self.released = now;
    }

    fn ports(&self) -> Port {
        1
    }

    fn ends(&self, _port: Port) -> Ends {
        self.cfg.ports()[0]
    }

    fn place(&self, _port: Port) -> String {
        self.cfg.name.clone()
    }

    fn drops(&self) -> u64 {
        0
    }

    fn packets_inside(&self) -> u64 {
        self.inside.len() as u64
    }

    fn sample(&self, out: &mut Samples) {
        out("queue_pkts", &|| self.cfg.name.clone(), self.inside.len() as f64);
    }

    /// One row of the queues table: what went in, nothing dropped.
    fn report(&self, _horizon: Time, rows: &mut HopRows) {
        rows.queues.push(QueueResult {
            link: self.cfg.name.clone(),
            kind: "delay".into(),
            drops: [("overflow".to_string(), 0)].into(),
            enqueued: self.taken,
            bytes_sent: self.bytes,
            ..Default::default()
        });
    }

    fn finish(&mut self, _now: Time, _hd: &mut Headers) {}
}

struct RawDelay {
    name: Named,
    from: Named,
    to: Named,
    delay: Time,
}

/// The `[[delay]]` tables.
#[derive(Default)]
pub(crate) struct DelayTables {
    delays: Vec<RawDelay>,
}

impl<H: From<LinkSpec> + From<DelayConfig>> KindTables<H> for DelayTables {
    fn tables(&self) -> &'static [&'static str] {
        &["delay"]
    }

    fn parse(&mut self, _table: &str, v: &Val) -> Res<()> {
        let t = v.table(&["name", "from", "to", "delay"])?;
        self.delays.push(RawDelay {
            name: Named::new(t.name("name")?),
            from: Named::new(t.name("from")?),
            to: Named::new(t.name("to")?),
            delay: t.req("delay")?.time()?,
        });
        Ok(())
    }

    fn resolve(&self, cx: &mut Resolver<H>) -> Result<(), ScenarioError> {
        let mut names = Names::new("delay");
        for (i, d) in self.delays.iter().enumerate() {
            names.add(&cx.file, &d.name, i)?;
            let (from, to) = (cx.node(&d.from)?, cx.node(&d.to)?);
            cx.hops.push(H::from(DelayConfig { name: d.name.name.clone(), from, to, delay: d.delay }));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::NS_PER_MS;
    use crate::scenario;
    use crate::sim::{self, RunOptions};

    const SCENARIO: &str = r#"
[simulation]
duration = "20s"
sample_interval = "1s"
[[node]]
name = "a"
[[node]]
name = "b"
[[delay]]
name = "ab"
from = "a"
to = "b"
delay = "40ms"
[[delay]]
name = "ba"
from = "b"
to = "a"
delay = "60ms"
[[flow]]
name = "voice"
from = "a"
to = "b"
kind = "cbr"
rate = "64kbps"
packet_size = "160B"
[[flow]]
name = "bulk"
from = "a"
to = "b"
bytes = "200kB"
"#;

    /// A scenario with only delay hops: every datagram takes exactly the
    /// delay, TCP's smallest RTT is the two delays, every packet is
    /// accounted for, and the hop reports and samples itself.
    #[test]
    fn a_scenario_of_delay_hops_runs() {
        let spec = scenario::parse_str(SCENARIO, "delay.toml").expect("parses");
        assert_eq!(spec.hops.len(), 2);
        assert_eq!(spec.sampled_series(), 2 + 2, "one series per delay hop and one per flow");
        let r = sim::run(&spec, RunOptions::default()).expect("runs");
        let voice = r.flows.iter().find(|f| f.name == "voice").unwrap();
        assert!(voice.packets_received > 900);
        assert_eq!((voice.owd_min_s, voice.owd_max_s), (Some(0.040), Some(0.040)));
        let bulk = r.flows.iter().find(|f| f.name == "bulk").unwrap();
        assert_eq!(bulk.bytes_delivered, 200_000);
        assert_eq!(bulk.rtt_min_s, Some((40 + 60) as f64 * NS_PER_MS as f64 / 1e9));
        let c = &r.conservation;
        assert_eq!((c.sent, c.dropped), (c.delivered + c.in_network, 0));
        let q: Vec<_> = r.hops.queues.iter().map(|q| (q.link.as_str(), q.kind.as_str())).collect();
        assert_eq!(q, [("ab", "delay"), ("ba", "delay")]);
        assert!(r.series.iter().any(|s| s.metric == "queue_pkts" && s.subject == "ab" && s.value.iter().any(|&v| v > 0.0)));
    }

    #[test]
    fn a_delay_table_names_its_nodes() {
        let bad = SCENARIO.replace("from = \"b\"\nto = \"a\"\ndelay", "from = \"x\"\nto = \"a\"\ndelay");
        let e = scenario::parse_str(&bad, "delay.toml").unwrap_err();
        assert_eq!(e.message, "no node named 'x'");
    }
}
