//! The 1xEV-DO Rev. 0 reverse link with its own MAC (`[[user]]
//! reverse_mac`): a terminal's frames climb to 153.6 kb/s on an idle
//! sector, fall when the sector's RAB is set, and RLP's one resend turns
//! frame errors into the residual loss the arithmetic predicts.

mod common;
use common::assert_conserved;
use cdmasim_core::scenario::parse_str;
use cdmasim_core::sim::{self, RunOptions, RunResult};

fn run(text: &str) -> RunResult {
    let spec = parse_str(text, "t.toml").unwrap_or_else(|e| panic!("{e}"));
    let r = sim::run(&spec, RunOptions::default()).unwrap();
    assert_eq!(r, sim::run(&spec, RunOptions::default()).unwrap(), "not deterministic");
    assert_conserved(&r);
    r
}

/// A server behind a 100 Mb/s wire, one sector, and `users` terminals
/// each uploading with `flow` (TOML with FROM for the user's name).
fn scenario(duration: &str, users: usize, mac: &str, flow: &str, sector: &str) -> String {
    let mut s = format!(
        "[simulation]\nduration = \"{duration}\"\nseed = 3\n[[node]]\nname = \"server\"\n[[node]]\nname = \"bs\"\n\
         [[link]]\nname = \"wired\"\nfrom = \"server\"\nto = \"bs\"\nrate = \"100Mbps\"\ndelay = \"5ms\"\n\
         [[sector]]\nname = \"s\"\nnode = \"bs\"\n{sector}\n"
    );
    for k in 0..users {
        s += &format!(
            "[[user]]\nname = \"u{k}\"\nsector = \"s\"\ndrc = {{ constant = \"1228.8kbps\" }}\nreverse_mac = {mac}\n{}\n",
            flow.replace("FROM", &format!("u{k}"))
        );
    }
    s
}

const SATURATING: &str = "[[flow]]\nname = \"up.FROM\"\nfrom = \"FROM\"\nto = \"server\"\nkind = \"cbr\"\nrate = \"200kbps\"\npacket_size = \"500B\"\n";
const BULK_UP: &str = "[[flow]]\nname = \"up.FROM\"\nfrom = \"FROM\"\nto = \"server\"\nkind = \"bulk\"\n";

#[test]
fn a_lone_terminal_on_an_idle_sector_reaches_153_6_kbps() {
    // More than the link can take, so its buffer never empties: after the
    // climb from 9.6 kb/s (85 frames on average, 2.3 s) every frame is at
    // 153.6 kb/s.
    let r = run(&scenario("60s", 1, "{}", SATURATING, ""));
    let u = &r.hops.users[0];
    let frames = u.reverse_frames.unwrap();
    let top = u.reverse_frames_153k6.unwrap();
    // 60 s is 2250 frames.
    assert!(frames >= 2249, "it sends in every frame once it has data: {frames}");
    assert!(top > frames - 400, "{top} of {frames} frames at 153.6 kb/s");
    assert_eq!(u.reverse_busy_frames, Some(0), "alone, it never loads the sector past the RAB threshold");
    assert_eq!(r.hops.sectors[0].rab_busy, Some(0.0));
    // 500-byte packets, 508 octets with PPP's framing and stuffing, 506 per frame.
    let tput = u.reverse_throughput_bps.unwrap();
    let top_rate = 506.0 * 8.0 / (16.0 / 600.0) * 500.0 / 508.0;
    assert!(tput < top_rate && tput > 0.9 * top_rate, "uplink throughput {tput}, at most {top_rate}");
}

#[test]
fn a_loaded_reverse_link_sets_the_rab_and_its_terminals_fall_to_lower_rates() {
    // Three terminals uploading all they can: at 153.6 kb/s two alone pass
    // 7 dB of rise over thermal (15 dB), so the sector sets the RAB and they
    // step down to 76.8 kb/s at once (probability 1); three at 76.8 make
    // 3.6 dB, so they climb back slowly (8/255 a frame) and are sent down
    // again: the RAB is set now and then, and they spend most frames below
    // 153.6 kb/s.
    let r = run(&scenario("60s", 3, "{}", SATURATING, ""));
    let busy = r.hops.sectors[0].rab_busy.unwrap();
    assert!(busy > 0.02, "RAB set in {busy} of the frames");
    let mut total = 0.0;
    for u in &r.hops.users {
        let mean = u.reverse_mean_rate_bps.unwrap();
        println!("{}: mean frame rate {mean}, {:?} busy frames", u.name, u.reverse_busy_frames);
        assert!(mean < 110e3, "{}: mean frame rate {mean}", u.name);
        assert!(u.reverse_busy_frames.unwrap() > 0);
        total += u.reverse_throughput_bps.unwrap();
    }
    // The three together carry about what the RAB lets one sector take:
    // less than two terminals at 153.6 kb/s.
    assert!(total < 2.0 * 150e3, "sector total {total}");
    // Where each frame costs the sector less (a pilot target 8 dB lower:
    // three at 153.6 kb/s make 1.6 dB) they all climb and stay.
    let free = run(&scenario("60s", 3, "{}", SATURATING, "rab = { pilot = -30.0 }"));
    assert_eq!(free.hops.sectors[0].rab_busy, Some(0.0));
    assert!(free.hops.users.iter().all(|u| u.reverse_mean_rate_bps.unwrap() > 140e3));
}

#[test]
fn rlp_one_resend_turns_frame_errors_into_the_predicted_residual_loss() {
    // More UDP than the link takes, in 500-byte packets: 508 octets with
    // PPP's framing and stuffing against 506 per frame at 153.6 kb/s, so
    // every frame carries new octets of two packets, except a frame that
    // carries a resend (506 octets of one erased frame). A frame with new
    // octets erased (p (1 − p) per frame) is NAKed and sent once more; if
    // that copy is erased too (p), RLP gives up and both packets are lost:
    // 2 p² (1 − p) per frame. With p = 0.05 over 150000 frames that is 356
    // lost resends (Poisson sd 19), 713 packets.
    let r = run(&scenario("4000s", 1, "{ frame_error = 0.05 }", SATURATING, ""));
    let u = &r.hops.users[0];
    let frames = u.reverse_frames.unwrap() as f64;
    let erased = u.reverse_erased_frames.unwrap() as f64;
    let p = erased / frames;
    assert!((p - 0.05).abs() < 0.003, "erasure rate {p}");
    let lost = u.reverse_rlp_lost_packets.unwrap() as f64;
    let expected = frames * 2.0 * p * p * (1.0 - p);
    assert!((lost - expected).abs() < 0.2 * expected, "{lost} packets lost, {expected:.0} expected");
    // And without erasures nothing is lost.
    let clean = run(&scenario("60s", 1, "{ frame_error = 0.0 }", SATURATING, ""));
    assert_eq!(clean.hops.users[0].reverse_rlp_lost_packets, Some(0));
}

#[test]
fn a_terminal_far_from_the_base_station_is_held_down_by_its_power() {
    // At a constant 38.4 kb/s forward DRC (threshold −12 dB) the default
    // 20 dB of headroom leaves 8 dB: 19.2 kb/s (7.6 dB over the pilot) fits,
    // 38.4 (10.2 dB) does not.
    let text = scenario("30s", 1, "{}", SATURATING, "").replace("1228.8kbps", "38.4kbps");
    let r = run(&text);
    let u = &r.hops.users[0];
    println!("{u:?}");
    // Each step up that the transitions allow (1 in 16 frames at 19.2 kb/s) is capped.
    assert!(u.reverse_power_limited_frames.unwrap() > 30);
    let mean = u.reverse_mean_rate_bps.unwrap();
    assert!(mean <= 19.2e3 && mean > 15e3, "mean frame rate {mean}");
    // With no power cap it climbs as on a near channel.
    let r = run(&scenario("30s", 1, "{ headroom = \"none\" }", SATURATING, "").replace("1228.8kbps", "38.4kbps"));
    assert!(r.hops.users[0].reverse_mean_rate_bps.unwrap() > 130e3);
}

#[test]
fn bad_reverse_mac_settings_are_refused_with_their_field() {
    let cases = [
        ("{ rate_limit = \"100kbps\" }", "rate_limit must be a Rev. 0 reverse rate"),
        ("{ up = [0.1, 0.2] }", "takes 4 transition probabilities"),
        ("{ frame_error = 1.0 }", "frame_error must be below 1"),
        ("{ speed = 3 }", "speed"),
    ];
    for (mac, msg) in cases {
        let e = parse_str(&scenario("10s", 1, mac, BULK_UP, ""), "t.toml").unwrap_err().to_string();
        assert!(e.contains(msg) && e.contains("t.toml"), "{mac}: {e}");
    }
    let with_rate = scenario("10s", 1, "{}", BULK_UP, "").replace("reverse_mac = {}", "reverse_mac = {}\nreverse_rate = \"64kbps\"");
    let e = parse_str(&with_rate, "t.toml").unwrap_err().to_string();
    assert!(e.contains("reverse_rate is the constant reverse link's"), "{e}");
    let e = parse_str(&scenario("10s", 1, "{}", BULK_UP, "rab = { threshold = -1 }"), "t.toml").unwrap_err().to_string();
    assert!(e.contains("threshold must lie in"), "{e}");
}

#[test]
fn background_users_load_the_reverse_link_with_their_acks_or_their_uploads() {
    // Two full-buffer downloads share the sector with one uploading
    // terminal. Their ACKs (1/67 of what their forward link carries: a few
    // kb/s) leave the terminal alone at 153.6 kb/s; uploading too, the
    // three load the sector past the RAB threshold and the terminal falls.
    let acks = run(&scenario("60s", 1, "{}", SATURATING, "background = { users = 2, drc = { constant = \"1228.8kbps\" } }"));
    let bg = &acks.hops.users[1];
    let rate = bg.reverse_mean_rate_bps.unwrap();
    assert!(bg.reverse_frames.unwrap() > 1000 && rate < 40e3, "a background user's ACK frames: mean {rate}");
    assert!(acks.hops.users[0].reverse_mean_rate_bps.unwrap() > 140e3);
    let uploads =
        run(&scenario("60s", 1, "{}", SATURATING, "background = { users = 2, drc = { constant = \"1228.8kbps\" }, upload = true }"));
    assert!(uploads.hops.sectors[0].rab_busy.unwrap() > 0.02);
    let mean = uploads.hops.users[0].reverse_mean_rate_bps.unwrap();
    assert!(mean < 110e3, "with two uploads beside it: mean frame rate {mean}");
    // Without a reverse MAC user nobody would see the load.
    let text = scenario("10s", 1, "{}", BULK_UP, "background = { users = 1, upload = true }").replace("reverse_mac = {}\n", "");
    let e = parse_str(&text, "t.toml").unwrap_err().to_string();
    assert!(e.contains("only a [[user]] with reverse_mac sees"), "{e}");
}
