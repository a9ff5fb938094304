//! The 1xEV-DO radio access network as a hop: it must behave as a link where
//! it is one, serve slots as the full-buffer scheduler study does (same
//! code, same numbers), and account for every packet, hand-offs included.

mod common;
use common::assert_conserved;
use cdmasim_core::sched::pf::PfConfig;
use cdmasim_core::evdo::scheduler::study::{self, HandoffPolicy};
use cdmasim_core::scenario::parse_str;
use cdmasim_core::sim::{self, RunOptions, RunResult};

/// Run a scenario twice: every sector test also checks determinism (the
/// same scenario and seed give the same result, bit for bit).
fn run(text: &str) -> RunResult {
    let spec = parse_str(text, "t.toml").unwrap_or_else(|e| panic!("{e}"));
    let r = sim::run(&spec, RunOptions::default()).unwrap();
    assert_eq!(r, sim::run(&spec, RunOptions::default()).unwrap(), "not deterministic");
    r
}

const HEAD: &str = r#"
[simulation]
duration = "DUR"
seed = 5
[[node]]
name = "server"
[[node]]
name = "bs"
[[link]]
name = "wired"
from = "server"
to = "bs"
rate = "100Mbps"
delay = "5ms"
"#;

fn head(duration: &str) -> String {
    HEAD.replace("DUR", duration)
}

/// One user on a constant 2457.6 kb/s DRC with no air overhead, against a
/// link of 2457.6 kb/s with the same delays and buffers.
fn one_user(flow: &str, sector: bool) -> RunResult {
    let radio = if sector {
        r#"
[[sector]]
name = "s"
node = "bs"
delay = "10ms"
overhead = "none"
[[user]]
name = "ue"
sector = "s"
drc = { constant = "2457.6kbps" }
"#
    } else {
        r#"
[[node]]
name = "ue"
[[link]]
name = "air"
from = "bs"
to = "ue"
rate = "2457.6kbps"
delay = "10ms"
queue = { kind = "droptail", limit = "64KB" }
reverse_rate = "153.6kbps"
reverse_queue = { kind = "droptail", limit = "64KB" }
"#
    };
    run(&format!("{}{radio}{flow}", head("30s")))
}

#[test]
fn one_user_on_a_constant_drc_is_a_link_of_the_same_rate() {
    // A receive window (48 KB) below the 64 KB buffer: no loss, so the
    // comparison is of the hops, not of two loss histories.
    let bulk = "[[flow]]\nname = \"f\"\nfrom = \"server\"\nto = \"ue\"\nkind = \"bulk\"\ntcp = { cc = \"cubic\", rcv_buffer = \"48KB\" }\n";
    let (s, l) = (one_user(bulk, true), one_user(bulk, false));
    assert_conserved(&s);
    assert_conserved(&l);
    let (gs, gl) = (s.flows[0].goodput_bps, l.flows[0].goodput_bps);
    println!("bulk: sector {gs:.0} b/s, link {gl:.0} b/s; drops {} / {}", s.drops.len(), l.drops.len());
    // The sector serves in whole slots (a packet waits up to one slot for
    // its start, 1.67 ms in an RTT of 30 ms and more): the same rate within 1 %.
    assert!((gs / gl - 1.0).abs() < 0.01, "sector {gs} vs link {gl}");
    assert_eq!((s.drops.len(), l.drops.len()), (0, 0));
    assert!(s.hops.users[0].utilisation > 0.9 && (s.hops.users[0].mean_drc_bps - 2_457_600.0).abs() < 1e-6);

    // A stream below capacity: the same packets arrive, each at most one
    // slot and one slot-boundary rounding later than over the link.
    let cbr = "[[flow]]\nname = \"v\"\nfrom = \"server\"\nto = \"ue\"\nkind = \"cbr\"\nrate = \"1Mbps\"\npacket_size = \"484B\"\n";
    let (s, l) = (one_user(cbr, true), one_user(cbr, false));
    assert_eq!(s.flows[0].packets_received, l.flows[0].packets_received);
    let extra = s.flows[0].owd_min_s.unwrap() - l.flows[0].owd_min_s.unwrap();
    let worst = s.flows[0].owd_max_s.unwrap() - l.flows[0].owd_max_s.unwrap();
    println!("cbr: extra delay min {extra:.6} s, max {worst:.6} s");
    assert!(extra >= -1e-9 && worst <= 1.0 / 600.0 + 1e-9, "{extra} {worst}");
}

#[test]
fn full_buffers_get_the_slots_of_the_scheduler_study() {
    // Four stationary users, each sent more than any DRC can carry, so no
    // queue ever empties: the sector is the full-buffer study of Fig. 6.
    let mut text = head("20s");
    text += "[[sector]]\nname = \"s\"\nnode = \"bs\"\noverhead = \"none\"\nscheduler = \"SCHED\"\n";
    for u in 0..4 {
        text += &format!("[[user]]\nname = \"u{u}\"\nsector = \"s\"\ndrc = {{ preset = \"stationary\" }}\n");
        text += &format!("[[flow]]\nname = \"f{u}\"\nfrom = \"bs\"\nto = \"u{u}\"\nkind = \"cbr\"\nrate = \"4Mbps\"\npacket_size = \"1472B\"\n");
    }
    for sched in ["pf", "rr"] {
        let r = run(&text.replace("SCHED", sched));
        assert_conserved(&r);
        let slots = r.hops.sectors[0].traffic_slots;
        let ch = study::preset_channels("stationary", 4, slots, 5).unwrap();
        let want = study::run(&ch, sched, &PfConfig::default(), 4, HandoffPolicy::Keep).unwrap();
        let got: Vec<u64> = r.hops.users.iter().map(|u| u.slots_served).collect();
        let expected: Vec<u64> = want.user_share.iter().map(|s| (s * want.slots as f64).round() as u64).collect();
        println!("{sched}: {slots} slots, sector {got:?}, study {expected:?}, jain {:.4}", r.hops.sectors[0].jain);
        assert_eq!(got, expected, "{sched}");
        assert_eq!(r.hops.sectors[0].utilisation, 1.0 - want.idle_slots as f64 / slots as f64);
    }
}

#[test]
fn background_users_take_the_slots_full_buffer_users_would() {
    // The same four stationary channels (the background users' seeds follow
    // the user's, as a fourth user's would), but only u0 is a user with
    // packets: the other three are `background` users. The sector serves
    // exactly the slots the full-buffer study gives, to every one of them.
    let mut text = head("20s");
    text += "[[sector]]\nname = \"s\"\nnode = \"bs\"\noverhead = \"none\"\nscheduler = \"SCHED\"\n";
    text += "background = { users = 3, drc = { preset = \"stationary\" } }\n";
    text += "[[user]]\nname = \"u0\"\nsector = \"s\"\ndrc = { preset = \"stationary\" }\n";
    text += "[[flow]]\nname = \"f0\"\nfrom = \"bs\"\nto = \"u0\"\nkind = \"cbr\"\nrate = \"4Mbps\"\npacket_size = \"1472B\"\n";
    for sched in ["pf", "rr"] {
        let r = run(&text.replace("SCHED", sched));
        assert_conserved(&r);
        let slots = r.hops.sectors[0].traffic_slots;
        let ch = study::preset_channels("stationary", 4, slots, 5).unwrap();
        let want = study::run(&ch, sched, &PfConfig::default(), 4, HandoffPolicy::Keep).unwrap();
        let got: Vec<u64> = r.hops.users.iter().map(|u| u.slots_served).collect();
        let expected: Vec<u64> = want.user_share.iter().map(|s| (s * want.slots as f64).round() as u64).collect();
        assert_eq!(r.hops.users.iter().map(|u| u.name.as_str()).collect::<Vec<_>>(), ["u0", "s.bg1", "s.bg2", "s.bg3"]);
        // One slot may differ: the background users have data before time 0
        // ends, so the sector's first slot (at 0 s) runs before u0's first
        // packet is offered at the same instant; the study has everyone
        // backlogged from slot 0. Under round robin that slot also shifts
        // whose turn comes when: where the turn falls on a two-slot packet
        // (1536 kb/s, which the stationary channel's loaded regime reaches)
        // one more slot moves. Every other slot is the study's.
        println!("{sched}: sector {got:?}, study {expected:?}");
        assert_eq!(got.iter().sum::<u64>(), expected.iter().sum::<u64>());
        let moved: u64 = got.iter().zip(&expected).map(|(a, b)| a.abs_diff(*b)).sum();
        assert!(moved <= if sched == "pf" { 2 } else { 4 }, "{sched}: {got:?} against {expected:?}");
        // Only the user with packets has a base-station queue.
        assert_eq!(r.hops.queues.iter().filter(|q| q.link.ends_with(".down")).count(), 1);
    }
}

#[test]
fn a_loaded_sector_halves_a_downloads_throughput() {
    // One bulk download on a constant 1.2288 Mb/s channel, alone and with
    // one background user on the same channel: PF gives each half the slots.
    let text = |background: &str| {
        format!(
            "{}[[sector]]\nname = \"s\"\nnode = \"bs\"\n{background}\n[[user]]\nname = \"u\"\nsector = \"s\"\n\
             drc = {{ constant = \"1228.8kbps\" }}\n[[flow]]\nname = \"f\"\nfrom = \"server\"\nto = \"u\"\n",
            head("60s")
        )
    };
    let alone = run(&text(""));
    let shared = run(&text("background = { users = 1, drc = { constant = \"1228.8kbps\" } }"));
    assert_conserved(&shared);
    let ratio = shared.flows[0].goodput_bps / alone.flows[0].goodput_bps;
    let share = shared.hops.users[0].slot_share;
    println!("alone {:.0} shared {:.0} ratio {ratio:.3} slot share {share:.3}", alone.flows[0].goodput_bps, shared.flows[0].goodput_bps);
    assert!((0.45..0.55).contains(&share), "{share}");
    assert!((0.45..0.56).contains(&ratio), "{ratio}");
    // The shared download waits for its slots: a longer round trip.
    assert!(shared.flows[0].rtt_avg_s.unwrap() > 1.5 * alone.flows[0].rtt_avg_s.unwrap());
    // Alone, no slot was contended; beside a user that always waits, every
    // slot the download got was, and the background user's were only
    // while the download had packets too.
    assert_eq!(alone.hops.users[0].slots_contended, 0);
    let (u, bg) = (&shared.hops.users[0], &shared.hops.users[1]);
    assert_eq!(u.slots_contended, u.slots_served);
    assert!(bg.slots_contended > u.slots_served / 2 && bg.slots_contended < bg.slots_served, "{bg:?}");
}

#[test]
fn a_hand_off_moves_the_user_and_accounts_for_its_queue() {
    let mut text = head("6s");
    text += "[[sector]]\nname = \"s1\"\nnode = \"bs\"\n[[sector]]\nname = \"s2\"\nnode = \"bs\"\nhandoff_queue = \"drop\"\n";
    text += "[[user]]\nname = \"ue\"\nsector = \"s1\"\ndrc = { constant = \"153.6kbps\" }\nhandoff = [{ at = \"3s\", to = \"s2\" }]\n";
    text += "[[flow]]\nname = \"f\"\nfrom = \"server\"\nto = \"ue\"\nkind = \"bulk\"\n";
    let r = run(&text);
    assert_conserved(&r);
    assert_eq!((r.hops.users[0].sector.as_str(), r.hops.users[0].handoffs), ("s2", 1));
    // The 64 KB queue was full of a bulk flow's segments at 3 s: dropped there.
    let dropped = r.drops.iter().filter(|d| d.reason == "handoff").count();
    println!("dropped at the hand-off: {dropped}; goodput {:.0}", r.flows[0].goodput_bps);
    assert!(dropped > 10, "{dropped}");
    assert!(r.drops.iter().filter(|d| d.reason == "handoff").all(|d| (d.t_s - 3.0).abs() < 0.002 && d.place == "ue.down"));
    // Forwarded instead, nothing is lost at the hand-off.
    let r = run(&text.replace("handoff_queue = \"drop\"", "handoff_queue = \"forward\""));
    assert_conserved(&r);
    assert_eq!(r.drops.iter().filter(|d| d.reason == "handoff").count(), 0);
    // Both sectors served the user: half the run each.
    assert!(r.hops.users[0].slot_share > 0.0 && r.hops.sectors.iter().all(|s| s.throughput_bps > 0.0));
}

#[test]
fn a_hand_off_due_while_the_sector_sleeps_happens_at_the_next_slot() {
    // No traffic after 1 s: the sector sleeps, and its only deadlines are
    // the hand-offs, at times between slot boundaries (a slot is 1/600 s).
    let mut text = head("70s");
    text += "[[sector]]\nname = \"s1\"\nnode = \"bs\"\n[[sector]]\nname = \"s2\"\nnode = \"bs\"\n";
    text += "[[user]]\nname = \"a\"\nsector = \"s1\"\ndrc = { preset = \"mobile\" }\nhandoff = [{ at = \"2.0001s\", to = \"s2\" }, { at = \"5.00005s\", to = \"s1\" }]\n";
    text += "[[user]]\nname = \"b\"\nsector = \"s1\"\ndrc = { preset = \"mobile\" }\nhandoff = { every = [\"20s\", \"30s\"] }\n";
    text += "[[flow]]\nname = \"f\"\nfrom = \"server\"\nto = \"a\"\nkind = \"cbr\"\nrate = \"100kbps\"\npacket_size = \"500B\"\nstop = \"1s\"\n";
    let r = run(&text);
    assert_conserved(&r);
    assert_eq!((r.hops.users[0].handoffs, r.hops.users[0].sector.as_str()), (2, "s1"));
    // Every 20-30 s in 70 s: two or three hand-offs, each to the next sector.
    assert!((2..=3).contains(&r.hops.users[1].handoffs), "{}", r.hops.users[1].handoffs);
    // The sector ran every slot of the run, busy or not: 42000 slots less
    // the control channel's (8 per 256-slot cycle on interlace 0: 164 whole
    // cycles, and slots 0, 4, 8, 12 of the last 16).
    for s in &r.hops.sectors {
        assert_eq!(s.traffic_slots, 42_000 - (164 * 8 + 4), "{}", s.name);
    }
}
