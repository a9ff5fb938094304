//! Web browsing (Dziong et al. §3.1): pages of objects over TCP connections
//! opened and closed at run time. Checked against the path's round trips,
//! against the page/object definitions, and for bounded memory.

mod common;
use cdmasim_core::engine::time::tx_time;
use cdmasim_core::scenario::parse_str;
use cdmasim_core::sim::{self, RunOptions, RunResult};
use common::assert_conserved;

/// Server —(100 Mb/s, 80 ms)— PDSN —(38.4 kb/s, 100 ms)— mobile: Dziong et al.'s
/// Fig. 5 with D_hi = 80 ms and D = 100 ms, no losses.
fn scenario(duration: &str, flow: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
seed = 5
[[node]]
name = "server"
[[node]]
name = "pdsn"
[[node]]
name = "ue"
[[link]]
name = "internet"
from = "server"
to = "pdsn"
rate = "100Mbps"
delay = "80ms"
[[link]]
name = "air"
from = "pdsn"
to = "ue"
rate = "38.4kbps"
delay = "100ms"
[[flow]]
name = "web"
kind = "http"
from = "server"
to = "ue"
{flow}
"#
    )
}

fn run(text: &str) -> RunResult {
    let spec = parse_str(text, "t.toml").unwrap_or_else(|e| panic!("{e}"));
    let r = sim::run(&spec, RunOptions::default()).unwrap();
    assert_eq!(r, sim::run(&spec, RunOptions::default()).unwrap(), "not deterministic");
    assert_conserved(&r);
    r
}

#[test]
fn one_small_object_takes_two_round_trips() {
    // Handshake, then request and response: two round trips of 2·(80 + 100) ms,
    // plus serialising SYN, SYN-ACK, the request and the response at 38.4 kb/s.
    let r = run(&scenario(
        "10s",
        r#"pages = 1
objects_per_page = 1
object_size = "500B"
request_size = "250B"
tcp = { initial_window = 1 }"#,
    ));
    assert_eq!(r.objects.len(), 2);
    let main = &r.objects[0];
    let d = main.delay_s.expect("finished");
    let tx = |b: u64| tx_time(b, 38_400).0 as f64 / 1e9;
    // SYN and SYN-ACK carry the MSS and window-scale options (48 B); the
    // server's ACK of the request (40 B) precedes the response on the
    // downlink (an ACK does not ride on the other half's data); the wired
    // hop adds microseconds.
    let exact = 4.0 * 0.180 + 2.0 * tx(48) + tx(250 + 40) + tx(40) + tx(500 + 40);
    assert!(d >= exact && d <= exact + 1e-4, "object delay {d} s, expected {exact} s");
    // The embedded object starts when the main one is in, on a new connection.
    let emb = &r.objects[1];
    assert_eq!(emb.start_s, main.finish_s);
    // The same exchange again, except that the first connection's FIN and
    // final ACK (40 B each) may hold the downlink ahead of the SYN-ACK and
    // the response, and its FIN+ACK the uplink ahead of the SYN.
    let e = emb.delay_s.unwrap();
    assert!(e >= d - 1e-9 && e <= d + 3.0 * tx(40) + 1e-4, "embedded object {e} s vs main {d} s");
    let page = &r.pages[0];
    assert_eq!((page.objects, page.size_bytes), (2, 1000));
    assert_eq!(page.finish_s, emb.finish_s);
    assert!((page.normalized_s_per_kb.unwrap() - page.delay_s.unwrap() / 1.0).abs() < 1e-12);
    assert_eq!(r.flows[0].kind, "http");
    assert_eq!(r.flows[0].bytes_delivered, 1000);
    // Two objects, two connections, both closed by the end.
    assert_eq!((r.flows[0].connections_opened, r.flows[0].connections_open), (Some(2), Some(0)));
}

fn page_and_objects(parallel: u32, persistent: bool) -> (f64, f64, u64) {
    let r = run(&scenario(
        "300s",
        &format!(
            r#"pages = 5
parallel = {parallel}
persistent = {persistent}
objects_per_page = 4
object_size = "8KB"
request_size = "300B"
think_time = "5s""#
        ),
    ));
    assert_eq!(r.pages.len(), 5);
    assert!(r.pages.iter().all(|p| p.finish_s.is_some()));
    let page = r.pages.iter().map(|p| p.delay_s.unwrap()).sum::<f64>() / 5.0;
    let emb: Vec<f64> = r.objects.iter().filter(|o| o.index > 0).map(|o| o.delay_s.unwrap()).collect();
    (page, emb.iter().sum::<f64>() / emb.len() as f64, r.flows[0].packets_sent)
}

#[test]
fn parallel_connections_shorten_pages_and_lengthen_objects() {
    // Dziong et al. §5.1.1: C = 4 shares the link among objects (each takes
    // longer) but overlaps their round trips (the page takes less).
    let (page1, obj1, _) = page_and_objects(1, false);
    let (page4, obj4, _) = page_and_objects(4, false);
    assert!(page4 < page1 * 0.8, "page C=4 {page4} vs C=1 {page1}");
    assert!(obj4 > obj1 * 1.5, "object C=4 {obj4} vs C=1 {obj1}");
}

#[test]
fn persistent_connections_save_handshakes_and_closings() {
    let (page, _, packets) = page_and_objects(1, false);
    let (page_p, _, packets_p) = page_and_objects(1, true);
    // One handshake and one close per page instead of per object: 4 fewer
    // of each per page, about 0.36 s of round trip each.
    assert!(page_p < page - 1.0, "persistent {page_p} vs {page}");
    assert!(packets_p < packets, "{packets_p} vs {packets}");
}

#[test]
fn think_time_separates_pages() {
    let r = run(&scenario("200s", "pages = 4\nobjects_per_page = 2\nobject_size = \"2KB\"\nthink_time = \"7s\""));
    for w in r.pages.windows(2) {
        let gap = w[1].start_s - w[0].finish_s.unwrap();
        assert!((gap - 7.0).abs() < 1e-9, "think time {gap}");
    }
}

#[test]
fn memory_follows_open_connections_not_the_run() {
    // A long run of short pages: thousands of connections come and go; the
    // arena must stay at the scenario's flow plus C connections of two halves.
    let text = scenario("3000s", "parallel = 4\nobject_size = \"1KB\"\nthink_time = \"0.5s\"");
    let spec = parse_str(&text, "t.toml").unwrap();
    let mut w = sim::build::build(&spec).unwrap();
    sim::run_world(&mut w, None, None).unwrap();
    let r = sim::collect::collect(&mut w, 5);
    assert_conserved(&r);
    let done = r.objects.iter().filter(|o| o.finish_s.is_some()).count();
    assert!(done > 2_000, "only {done} objects");
    // At most C open connections and about as many closing (a FIN exchange
    // is shorter than an object), two halves each.
    assert!(w.hosts.flows.len() <= 1 + 2 * 2 * 4, "{} flow slots for {done} objects", w.hosts.flows.len());
}

#[test]
fn the_default_count_law_can_be_written_out_with_its_fractional_median() {
    // Table 2's embedded objects per page, ⌈lognormal(median 0.8, σ 1.5)⌉ up to 100,
    // written in the scenario gives the very run the default gives; a fixed
    // count must still be whole.
    let written = run(&scenario("600s", "pages = 6\nobjects_per_page = { dist = \"lognormal\", median = 0.8, sigma = 1.5, max = 100 }"));
    let default = run(&scenario("600s", "pages = 6"));
    assert_eq!(written, default);
    assert!(written.objects.len() > 6, "embedded objects were drawn");
    let err = parse_str(&scenario("60s", "objects_per_page = 2.5"), "t.toml").unwrap_err().to_string();
    assert!(err.contains("objects_per_page"), "{err}");
}
