//! Lee §3.3 as a story: a bulk download over a PPP link whose frames
//! are lost below PPP now and then (0.1 %). With Van Jacobson header
//! compression each lost frame puts the decompressor one packet behind:
//! every compressed segment after it reaches the receiver with a rebuilt
//! header that fails the TCP checksum, no ACK comes back, and the burst
//! ends only at the sender's timeout, whose retransmission goes
//! uncompressed and resynchronises the link. With the timestamp option
//! the options change on (almost) every segment, which then go
//! uncompressed, and a loss costs about one segment; ROHC-TCP decodes
//! against the last good header and never turns one loss into more.

mod common;
use cdmasim_core::net::ppp::Compression;
use cdmasim_core::scenario::TcpSpec;
use cdmasim_core::sim::RunResult;
use common::*;

const RATE: u64 = 1_000_000;

fn run(ppp: Option<Compression>, timestamps: bool) -> RunResult {
    let tcp = TcpSpec { timestamps, sack: true, rcv_buffer: 65535, ..Default::default() };
    let mut net = dumbbell(1, RATE, ms(50.0), droptail_bytes(64 * 1024), s(300.0), tcp);
    // Links 0 and 1: the bottleneck r1 -> r2 (data) and r2 -> r1 (ACKs).
    for l in [0, 1] {
        net.spec.link_mut(l).ppp = ppp;
    }
    net.spec.link_mut(0).loss = 0.001;
    net.run()
}

fn drops(r: &RunResult, reason: &str) -> usize {
    r.drops.iter().filter(|d| d.reason == reason).count()
}

struct Cost {
    losses: usize,
    retransmits: u64,
    timeouts: u64,
    checksum: u64,
}

fn cost(r: &RunResult) -> Cost {
    let f = &r.flows[0];
    let c = Cost { losses: drops(r, "random_loss"), retransmits: f.retransmits, timeouts: f.timeouts, checksum: f.checksum_failures };
    println!("losses {} retransmits {} timeouts {} checksum failures {} goodput {:.0}", c.losses, c.retransmits, c.timeouts, c.checksum, f.goodput_bps);
    assert_eq!(drops(r, "checksum"), c.checksum as usize, "every checksum failure is a drop at the receiver");
    c
}

#[test]
fn under_vj_one_lost_frame_costs_a_burst_that_ends_in_a_timeout() {
    let vj = cost(&run(Some(Compression::Vj), false));
    assert!(vj.losses >= 10, "enough losses to speak of: {}", vj.losses);
    // Each loss: the segments in flight behind it fail the checksum.
    assert!(vj.checksum as f64 >= 5.0 * vj.losses as f64);
    assert!(vj.retransmits as f64 >= 5.0 * vj.losses as f64);
    // ... and nothing comes back to trigger a fast retransmit: a timeout.
    assert!(vj.timeouts as f64 >= 0.8 * vj.losses as f64);
}

#[test]
fn without_compression_or_with_rohc_a_loss_costs_about_one_segment() {
    for ppp in [None, Some(Compression::None), Some(Compression::Rohc)] {
        let c = cost(&run(ppp, false));
        assert_eq!(c.checksum, 0, "{ppp:?}");
        assert!(c.losses >= 10);
        assert!(c.retransmits as f64 <= 1.5 * c.losses as f64, "{ppp:?}");
        assert!((c.timeouts as f64) < 0.3 * c.losses as f64, "{ppp:?}: SACK repairs single losses");
    }
}

#[test]
fn timestamps_turn_vj_compression_off_and_the_bursts_with_it() {
    let off = cost(&run(Some(Compression::Vj), false));
    let on = cost(&run(Some(Compression::Vj), true));
    let per_loss = |c: &Cost| c.retransmits as f64 / c.losses as f64;
    assert!(per_loss(&on) < per_loss(&off) / 3.0, "{} vs {}", per_loss(&on), per_loss(&off));
    assert!(on.checksum < off.checksum / 3);
}

#[test]
fn vj_shrinks_the_headers_it_can_and_the_link_reports_it() {
    let r = run(Some(Compression::Vj), false);
    let data = r.hops.ppp.iter().find(|p| p.link == "r1-r2").expect("the bottleneck's PPP row");
    assert_eq!(data.compression, "vj");
    assert!(data.compressed as f64 > 0.9 * data.frames as f64);
    // 40-byte headers down to 3 for in-order data.
    assert!((data.header_bytes as f64) < 0.2 * data.full_header_bytes as f64);
    assert_eq!(data.lost as usize, drops(&r, "random_loss"));
    assert_eq!(data.corrupted, r.flows[0].checksum_failures);
}

/// The same story on a 1xEV-DO user's PPP link: the sector's queue, the
/// scheduler and the air carry the frames; one lost below PPP costs a burst
/// under VJ, one segment under ROHC.
/// A 1xEV-DO user on a constant 1.2288 Mb/s channel downloading for 300 s;
/// `user_keys` go in its `[[user]]` table (PPP, the loss below PPP).
fn sector_with(user_keys: &str, timestamps: bool) -> RunResult {
    let text = format!(
        r#"
[simulation]
duration = "300s"
seed = 2
[[node]]
name = "server"
[[node]]
name = "bs"
[[link]]
name = "wired"
from = "server"
to = "bs"
rate = "100Mbps"
delay = "40ms"
[[sector]]
name = "s1"
node = "bs"
[[user]]
name = "laptop"
sector = "s1"
drc = {{ constant = "1228.8kbps" }}
{user_keys}
[[flow]]
name = "download"
from = "server"
to = "laptop"
tcp = {{ sack = true, rcv_buffer = "65535B", timestamps = {timestamps} }}
"#
    );
    let spec = cdmasim_core::scenario::parse_str(&text, "t.toml").unwrap_or_else(|e| panic!("{e}"));
    let r = cdmasim_core::sim::run(&spec, cdmasim_core::sim::RunOptions::default()).unwrap();
    assert_conserved(&r);
    r
}

/// The user loses 0.1 % of its packets below PPP.
fn sector(ppp: &str) -> RunResult {
    sector_with(&format!("loss = 0.001\n{ppp}"), false)
}

#[test]
fn an_evdo_users_ppp_link_turns_a_lost_frame_into_a_burst_under_vj_only() {
    let vj = cost(&sector(r#"ppp = "vj""#));
    assert!(vj.losses >= 10 && vj.checksum as f64 >= 5.0 * vj.losses as f64);
    assert!(vj.timeouts as f64 >= 0.8 * vj.losses as f64);
    for ppp in ["", r#"ppp = "rohc""#] {
        let c = cost(&sector(ppp));
        assert_eq!(c.checksum, 0);
        assert!(c.retransmits as f64 <= 1.5 * c.losses as f64, "{ppp}");
    }
    let r = sector(r#"ppp = "vj""#);
    let row = r.hops.ppp.iter().find(|p| p.link == "laptop.down").expect("the user's PPP row");
    assert_eq!(row.corrupted, r.flows[0].checksum_failures - r.hops.ppp.iter().find(|p| p.link == "laptop.up").unwrap().corrupted);
}

/// The same user with the forward link's RLP instead of a residual loss:
/// 1 % of physical-layer packets erased, each hole resent once.
fn sector_rlp(ppp: &str, timestamps: bool) -> RunResult {
    sector_with(&format!("rlp = {{ frame_error = 0.01 }}\n{ppp}"), timestamps)
}

#[test]
fn rlp_recovers_most_erasures_and_the_holes_it_gives_up_become_vj_bursts() {
    // Without PPP compression: RLP's one retransmission repairs all but
    // about frame_error of the holes; the ones it gives up are the only
    // losses, each costing TCP about one segment.
    let r = sector_rlp("", false);
    let u = &r.hops.users[0];
    let fer = u.erased_packets as f64 / u.physical_packets as f64;
    assert!((fer - 0.01).abs() < 0.002, "erasure rate {fer}");
    assert!(u.rlp_aborts > 0 && (u.rlp_aborts as f64) < 0.03 * u.erased_packets as f64, "{u:?}");
    assert_eq!(drops(&r, "random_loss") as u64, u.rlp_lost_packets);
    // A 1500-byte packet spans six 2048-bit physical packets at 1228.8 kb/s:
    // lost with probability about 6 × 0.01² = 6e-4 (and the packets sharing
    // an aborted hole's physical packet go with it).
    let loss = u.rlp_lost_packets as f64 / (u.rlp_lost_packets + u.packets_delivered) as f64;
    assert!(loss > 2e-4 && loss < 2e-3, "residual loss {loss}");
    let c = cost(&r);
    assert_eq!(c.checksum, 0);
    assert!(c.retransmits as f64 <= 1.5 * c.losses as f64);
    // Under VJ each hole RLP gives up is a lost frame below PPP: a burst of
    // checksum failures until a timeout; with timestamps, about one segment.
    let vj = cost(&sector_rlp(r#"ppp = "vj""#, false));
    assert!(vj.losses >= 5 && vj.checksum as f64 >= 5.0 * vj.losses as f64, "{}/{}", vj.checksum, vj.losses);
    let ts = cost(&sector_rlp(r#"ppp = "vj""#, true));
    assert!((ts.checksum as f64) < 0.2 * vj.checksum as f64, "{} against {}", ts.checksum, vj.checksum);
}
