//! Reader, decoder and analysis tests on hand-built captures.

use super::analysis::{analyze_bytes, AnalyzeOptions};
use super::decode::{decode, Decoded};
use super::error::PcapError;
use super::reader::*;
use super::testutil::*;

const A4: [u8; 4] = [10, 0, 0, 1];
const B4: [u8; 4] = [10, 0, 0, 2];

fn a6() -> [u8; 16] {
    let mut a = [0u8; 16];
    a[0] = 0x20;
    a[1] = 0x01;
    a[15] = 1;
    a
}
fn b6() -> [u8; 16] {
    let mut a = a6();
    a[15] = 2;
    a
}

fn seg(payload: &[u8]) -> Seg<'_> {
    Seg { seq: 5000, ack: 77, flags: 0x18, payload, ..Default::default() }
}

#[test]
fn every_link_type_byte_order_and_stamp_resolution() {
    let payload = [7u8; 100];
    let links = [
        LINKTYPE_ETHERNET,
        LINKTYPE_LINUX_SLL,
        LINKTYPE_LINUX_SLL2,
        LINKTYPE_RAW,
        LINKTYPE_IPV4,
        LINKTYPE_NULL,
        LINKTYPE_LOOP,
    ];
    let ts = 1_700_000_000_123_456_789u64;
    for &lt in &links {
        for v6 in [false, true] {
            if lt == LINKTYPE_IPV4 && v6 {
                continue;
            }
            let ip = if v6 { ipv6(a6(), b6(), &seg(&payload)) } else { ipv4(A4, B4, 9, &seg(&payload)) };
            let frame = link(lt, &ip);
            for be in [false, true] {
                for nanos in [false, true] {
                    let f = pcap_file(be, nanos, lt, 65535, &[(ts, frame.clone(), frame.len() as u32)]);
                    let mut r = Reader::new(&f).unwrap();
                    let rec = r.next().unwrap().unwrap();
                    assert_eq!(rec.index, 1);
                    assert_eq!(rec.offset, 24);
                    let want_ts = if nanos { ts } else { ts / 1000 * 1000 };
                    assert_eq!(rec.ts_ns, want_ts, "lt {lt} be {be} ns {nanos}");
                    let Decoded::Tcp(p) = decode(rec.linktype, rec.data) else { panic!("lt {lt} v6 {v6}: not TCP") };
                    assert_eq!((p.sport, p.dport, p.seq, p.ack), (1000, 80, 5000, 77));
                    assert_eq!(p.data_len(), 100);
                    assert_eq!(p.v6, v6);
                    assert_eq!(p.checksum_ok(), Some(true));
                    assert!(r.next().is_none());
                    assert!(r.warnings.is_empty());
                }
            }
        }
    }
}

#[test]
fn pcapng_enhanced_simple_and_resolutions() {
    let ip = ipv4(A4, B4, 1, &seg(b"hello"));
    let ts = 1_600_000_000_987_654_321u64;
    for be in [false, true] {
        for (res, tol) in [(None, 1000u64), (Some(9u8), 0), (Some(0x80 | 20), 1000)] {
            let f = pcapng_file(be, 1, res, false, &[(ts, link(1, &ip))]);
            let rec = Reader::new(&f).unwrap().next().unwrap().unwrap();
            assert!(ts.abs_diff(rec.ts_ns) <= tol, "{res:?}: {} vs {ts}", rec.ts_ns);
            assert!(matches!(decode(rec.linktype, rec.data), Decoded::Tcp(p) if p.data_len() == 5));
        }
        let f = pcapng_file(be, 101, None, true, &[(0, ip.clone()), (0, ip.clone())]);
        let recs: Vec<_> = Reader::new(&f).unwrap().collect::<Result<_, _>>().unwrap();
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[1].index, 2);
        assert_eq!(recs[0].data, &ip[..]);
    }
}

#[test]
fn snaplen_cut_keeps_true_lengths() {
    let payload = vec![1u8; 1400];
    let frame = link(1, &ipv4(A4, B4, 1, &seg(&payload)));
    let cut = frame[..18 + 20 + 20 + 10].to_vec();
    let f = pcap_file(false, false, 1, 68, &[(1_000_000, cut, frame.len() as u32)]);
    let rec = Reader::new(&f).unwrap().next().unwrap().unwrap();
    let Decoded::Tcp(p) = decode(rec.linktype, rec.data) else { panic!() };
    assert_eq!(p.data_len(), 1400);
    assert_eq!(p.payload().len(), 10);
    assert_eq!(p.checksum_ok(), None);
    let a = analyze_bytes(&f, &AnalyzeOptions::default()).unwrap();
    assert_eq!(a.conns[0].d[0].trunc_bytes, 1390);
    assert_eq!(a.conns[0].d[0].trunc_segs, 1);
    assert_eq!(a.conns[0].d[0].data_bytes, 1400);
    // TCP header itself cut: tcptrace's "too short to trace"
    let short = frame[..18 + 20 + 12].to_vec();
    assert!(matches!(decode(1, &short), Decoded::Truncated));
}

#[test]
fn checksum_detects_corruption() {
    let mut ip = ipv4(A4, B4, 1, &seg(b"some payload bytes"));
    let Decoded::Tcp(p) = decode(LINKTYPE_RAW, &ip) else { panic!() };
    assert_eq!(p.checksum_ok(), Some(true));
    let n = ip.len();
    ip[n - 3] ^= 0x40;
    let Decoded::Tcp(p) = decode(LINKTYPE_RAW, &ip) else { panic!() };
    assert_eq!(p.checksum_ok(), Some(false));
}

fn two_records() -> Vec<u8> {
    let fr = link(1, &ipv4(A4, B4, 1, &seg(b"abc")));
    pcap_file(false, false, 1, 65535, &[(1, fr.clone(), fr.len() as u32), (2, fr.clone(), fr.len() as u32)])
}

#[test]
fn corrupt_and_truncated_files() {
    // bad magic
    let mut f = two_records();
    f[0] = 0;
    assert!(matches!(Reader::new(&f), Err(PcapError::BadMagic { .. })));
    assert!(matches!(Reader::new(&[1, 2]), Err(PcapError::TooShort { len: 2 })));
    // cut in the middle of the second record: one packet and a warning naming record 2
    let f = two_records();
    let cut = &f[..f.len() - 5];
    let mut r = Reader::new(cut).unwrap();
    assert!(r.next().unwrap().is_ok());
    assert!(r.next().is_none());
    assert_eq!(r.warnings.len(), 1);
    assert!(r.warnings[0].starts_with("record 2 at byte"), "{}", r.warnings[0]);
    // cut inside a record header
    let rec_len = (f.len() - 24) / 2;
    let mut r = Reader::new(&f[..24 + rec_len + 7]).unwrap();
    assert_eq!(r.by_ref().count(), 1);
    assert!(r.warnings[0].contains("record header"));
    // absurd captured length in record 1
    let mut f = two_records();
    f[32..36].copy_from_slice(&0x7fff_fff0u32.to_le_bytes());
    let e = Reader::new(&f).unwrap().next().unwrap().unwrap_err();
    assert_eq!(e, PcapError::AbsurdLength { record: 1, offset: 24, len: 0x7fff_fff0, what: "captured length" });
    assert!(e.to_string().starts_with("record 1 at byte 24:"));
    // snaplen 0 in the header: a warning, packets still read
    let mut f = two_records();
    f[16..20].copy_from_slice(&0u32.to_le_bytes());
    let mut r = Reader::new(&f).unwrap();
    assert_eq!(r.by_ref().count(), 2);
    assert!(r.warnings[0].contains("snaplen 0"));
    // garbage after the header: an error naming record 1
    let mut f = two_records()[..24].to_vec();
    f.extend_from_slice(&[0xee; 40]);
    assert!(matches!(analyze_bytes(&f, &AnalyzeOptions::default()), Err(PcapError::AbsurdLength { record: 1, .. })));
    // pcapng: trailer length that disagrees
    let ip = ipv4(A4, B4, 1, &seg(b"x"));
    let mut f = pcapng_file(false, 101, None, false, &[(0, ip)]);
    let n = f.len();
    f[n - 4] ^= 4;
    let e = Reader::new(&f).unwrap().find_map(|r| r.err()).unwrap();
    assert!(matches!(e, PcapError::BadBlock { record: 3, .. }), "{e}");
}

/// Deterministic garbage: random bytes, random truncations and byte flips
/// of valid pcap and pcapng files. The reader and the analysis must return
/// (Ok or a typed error), never panic.
#[test]
fn garbage_corpus_never_panics() {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut rnd = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut seeds: Vec<Vec<u8>> = Vec::new();
    let mut recs = Vec::new();
    for i in 0..20u32 {
        let s = Seg { seq: 1000 + i * 100, ack: 1, flags: if i == 0 { 0x02 } else { 0x18 }, payload: &[5; 100], opts: &[2, 4, 5, 180, 1, 3, 3, 7, 4, 2, 1, 1, 5, 10, 0, 0, 0, 1, 0, 0, 0, 2, 1, 1], ..Default::default() };
        recs.push((i as u64 * 1000, link(1, &ipv4(A4, B4, i as u16, &s)), 0));
    }
    let recs: Vec<_> = recs.into_iter().map(|(t, d, _)| { let n = d.len() as u32; (t, d, n) }).collect();
    seeds.push(pcap_file(false, false, 1, 65535, &recs));
    seeds.push(pcap_file(true, true, 1, 65535, &recs));
    seeds.push(pcapng_file(false, 1, Some(9), false, &recs.iter().map(|(t, d, _)| (*t, d.clone())).collect::<Vec<_>>()));
    let opts = AnalyzeOptions { series: true, ..Default::default() };
    for round in 0..20000 {
        let base = &seeds[round % seeds.len()];
        let mut f = base.clone();
        match rnd() % 4 {
            0 => f.truncate((rnd() as usize) % (f.len() + 1)),
            1 => {
                for _ in 0..1 + rnd() % 8 {
                    let i = (rnd() as usize) % f.len();
                    f[i] = rnd() as u8;
                }
            }
            2 => {
                let keep = if base[0] == 0x0a { 28 } else { 24 };
                f.truncate(keep);
                for _ in 0..rnd() % 200 {
                    f.push(rnd() as u8);
                }
            }
            _ => {
                let i = 24 + (rnd() as usize) % (f.len() - 24);
                let n = (rnd() as usize) % 64;
                f.splice(i..i, (0..n).map(|_| rnd() as u8));
            }
        }
        if let Ok(mut a) = analyze_bytes(&f, &opts) {
            let _ = a.report(&opts);
        }
    }
}

/// A hand-built connection with a known story: handshake, three segments,
/// the second lost and retransmitted after three duplicate ACKs.
#[test]
fn analysis_of_a_known_story() {
    let mut recs = Vec::new();
    let mut t = 1_000_000_000u64;
    let mut push = |recs: &mut Vec<(u64, Vec<u8>, u32)>, from_a: bool, s: Seg, dt: u64| {
        t += dt;
        let ip = if from_a { ipv4(A4, B4, recs.len() as u16, &s) } else { ipv4(B4, A4, recs.len() as u16, &s) };
        let n = ip.len() as u32;
        recs.push((t, ip, n));
    };
    let d = [9u8; 1000];
    let c2s = |seq, ack, flags, payload| Seg { sport: 1000, dport: 80, seq, ack, flags, payload, win: 1000, ..Default::default() };
    let s2c = |seq, ack, flags| Seg { sport: 80, dport: 1000, seq, ack, flags, win: 2000, ..Default::default() };
    push(&mut recs, true, c2s(100, 0, 0x02, &[]), 0);
    push(&mut recs, false, s2c(900, 101, 0x12), 10_000_000); // RTT 10 ms
    push(&mut recs, true, c2s(101, 901, 0x10, &[]), 1_000);
    push(&mut recs, true, c2s(101, 901, 0x18, &d), 1_000);
    push(&mut recs, true, c2s(1101, 901, 0x18, &d), 1_000); // lost
    push(&mut recs, true, c2s(2101, 901, 0x18, &d), 1_000);
    push(&mut recs, true, c2s(3101, 901, 0x18, &d), 1_000);
    push(&mut recs, false, s2c(901, 1101, 0x10), 8_000); // acks first segment: RTT 11 ms
    push(&mut recs, false, s2c(901, 1101, 0x10), 1_000); // dup 1
    push(&mut recs, false, s2c(901, 1101, 0x10), 1_000); // dup 2
    push(&mut recs, true, c2s(1101, 901, 0x18, &d), 1_000); // fast retransmit
    push(&mut recs, false, s2c(901, 4101, 0x10), 10_000);
    let f = pcap_file(false, false, LINKTYPE_RAW, 65535, &recs);
    let opts = AnalyzeOptions::default();
    let mut a = analyze_bytes(&f, &opts).unwrap();
    let r = a.report(&opts);
    assert_eq!(r.connections.len(), 1);
    let c = &r.connections[0].a2b;
    assert_eq!(c.actual_data_pkts, 5);
    assert_eq!(c.actual_data_bytes, 5000);
    assert_eq!(c.unique_bytes_sent, 4000);
    assert_eq!(c.rexmt_data_pkts, 1);
    assert_eq!(c.rexmt_data_bytes, 1000);
    assert_eq!(c.duplicate_acks, 2);
    // samples: SYN (10 ms) and the first data segment (11 µs); the final ACK
    // covers a retransmitted segment (Karn) and segments sent before it.
    assert_eq!(c.rtt_samples, 2);
    assert_eq!((c.rtt_min_ms, c.rtt_max_ms), (0.011, 10.0));
    assert_eq!(c.loss_periods.len(), 1);
    assert_eq!(c.loss_periods[0].rexmits, 1);
    assert!((c.retrans_rate - 0.2).abs() < 1e-12);
    assert_eq!(c.cksum_checked, 7);
    assert_eq!(c.cksum_bad, 0);
    assert_eq!(r.connections[0].b2a.pure_acks_sent, 4);
    assert_eq!(r.connections[0].complete, "no");
}

/// Many connections at once, their packets interleaved: more than the
/// connection table's cache has slots, so connections share slots and the
/// map answers for the ones pushed out. Each connection's counters must be
/// its own, whichever way it was found, in both directions.
#[test]
fn interleaved_connections_each_count_their_own_packets() {
    let mut recs = Vec::new();
    let conns = 600u16;
    for round in 0..4u32 {
        for k in 0..conns {
            // Connection k: from port 2000 + k of A to port 80 + k % 3 of B
            // (so some share B's port); k's data segments carry k + 1 bytes.
            let (sport, dport) = (2000 + k, 80 + k % 3);
            let payload = vec![1u8; k as usize + 1];
            let seq = 1 + round * (k as u32 + 1);
            let data = Seg { sport, dport, seq, ack: 1, flags: 0x18, payload: &payload, ..Default::default() };
            let ip = ipv4(A4, B4, 1, &data);
            let n = ip.len() as u32;
            recs.push((1_000_000_000 + recs.len() as u64 * 1000, ip, n));
            let ack = Seg { sport: dport, dport: sport, seq: 1, ack: seq + k as u32 + 1, ..Default::default() };
            let ip = ipv4(B4, A4, 1, &ack);
            let n = ip.len() as u32;
            recs.push((1_000_000_000 + recs.len() as u64 * 1000, ip, n));
        }
    }
    let f = pcap_file(false, false, LINKTYPE_RAW, 65535, &recs);
    let opts = AnalyzeOptions::default();
    let mut a = analyze_bytes(&f, &opts).unwrap();
    let r = a.report(&opts);
    assert_eq!(r.connections.len(), conns as usize);
    for (k, c) in r.connections.iter().enumerate() {
        assert_eq!((c.a2b.actual_data_pkts, c.a2b.actual_data_bytes), (4, 4 * (k as u64 + 1)), "connection {k}");
        assert_eq!((c.b2a.pure_acks_sent, c.b2a.actual_data_pkts), (4, 0), "connection {k}");
        assert_eq!(c.a2b.rtt_samples, 4, "connection {k}");
    }
}

/// The same endpoints carry a second connection after a long idle time
/// (tcptrace's four minutes): the later packets count on the new
/// connection, found through the table's cache as the old one was.
#[test]
fn a_connection_superseded_on_the_same_endpoints_takes_its_later_packets() {
    let mut recs = Vec::new();
    let mut push = |t: u64, from_a: bool, seq: u32, payload: &[u8]| {
        let (sport, dport) = if from_a { (1000, 80) } else { (80, 1000) };
        let s = Seg { sport, dport, seq, ack: 1, flags: 0x18, payload, ..Default::default() };
        let ip = if from_a { ipv4(A4, B4, 1, &s) } else { ipv4(B4, A4, 1, &s) };
        let n = ip.len() as u32;
        recs.push((t, ip, n));
    };
    let s = 1_000_000_000u64;
    for k in 0..3u32 {
        push(s + k as u64 * 1_000_000, true, 1 + 10 * k, &[7u8; 10]);
    }
    push(s + 3_000_000, false, 1, &[]);
    // Five minutes later: a new connection on the same endpoints.
    let later = s + 300 * s;
    for k in 0..5u32 {
        push(later + k as u64 * 1_000_000, k % 2 == 0, 5000 + 20 * k, &[7u8; 20]);
    }
    let f = pcap_file(false, false, LINKTYPE_RAW, 65535, &recs);
    let opts = AnalyzeOptions::default();
    let mut a = analyze_bytes(&f, &opts).unwrap();
    let r = a.report(&opts);
    assert_eq!(r.connections.len(), 2);
    let (old, new) = (&r.connections[0], &r.connections[1]);
    assert_eq!((old.a2b.actual_data_pkts, old.b2a.total_packets), (3, 1));
    assert_eq!((new.a2b.actual_data_pkts, new.b2a.actual_data_pkts), (3, 2));
    assert_eq!(new.a2b.actual_data_bytes + new.b2a.actual_data_bytes, 100);
}

#[test]
fn option_parsing() {
    use super::decode::parse_options;
    let o = parse_options(&[1, 1, 8, 10, 0, 0, 0, 5, 0, 0, 0, 6]);
    assert_eq!(o.tsval, Some((5, 6)));
    assert_eq!(o.sack_count, None);
    // MSS, SACK-permitted, timestamps, NOP, window scale (a SYN)
    let o = parse_options(&[2, 4, 5, 180, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7]);
    assert_eq!((o.mss, o.ws, o.sack_permitted, o.tsval), (Some(1460), Some(7), true, Some((1, 0))));
    // two SACK blocks after NOP NOP
    let o = parse_options(&[1, 1, 5, 18, 0, 0, 0, 10, 0, 0, 0, 20, 0, 0, 0, 30, 0, 0, 0, 40]);
    assert_eq!(o.sack_count, Some(2));
    assert_eq!(o.sacks, [(10, 20), (30, 40)]);
    // zero-length and truncated options stop the parse without panicking
    assert_eq!(parse_options(&[2, 0, 2, 4, 5, 180]).mss, None);
    assert_eq!(parse_options(&[1, 2, 4, 5]).mss, None);
}

#[test]
fn absurd_window_scale_does_not_panic() {
    let ws = [3u8, 3, 200, 1];
    let mk = |from_a: bool, flags: u8, opts: &'static [u8]| {
        let s = Seg { sport: if from_a { 1 } else { 2 }, dport: if from_a { 2 } else { 1 }, flags, opts, ..Default::default() };
        let ip = if from_a { ipv4(A4, B4, 1, &s) } else { ipv4(B4, A4, 1, &s) };
        let n = ip.len() as u32;
        (1_000u64, ip, n)
    };
    let opts: &'static [u8] = Box::leak(Box::new(ws));
    let recs = vec![mk(true, 0x02, opts), mk(false, 0x12, opts), mk(true, 0x10, &[])];
    let f = pcap_file(false, false, LINKTYPE_RAW, 65535, &recs);
    let mut a = analyze_bytes(&f, &AnalyzeOptions::default()).unwrap();
    let r = a.report(&AnalyzeOptions::default());
    assert_eq!(r.connections[0].a2b.max_win_adv, 65535u64.wrapping_shl(200));
}

/// A flow with `handshake = false` (one-way TCP, no SYN): the simulator still
/// writes its capture, and the analysis takes it as a connection caught
/// mid-stream (no SYNs, unscaled windows) with every data byte counted.
#[test]
fn simulated_capture_without_a_handshake_is_written_and_analysed() {
    let text = "[simulation]\nduration = \"5s\"\n[[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n\
        [[link]]\nname = \"ab\"\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\ndelay = \"10ms\"\n\
        [[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\nbytes = \"50kB\"\n\
        [flow.tcp]\nhandshake = false\nmss = \"1000B\"\ntimestamps = true\n";
    let spec = crate::scenario::parse_str(text, "t.toml").unwrap();
    let dir = std::env::temp_dir().join(format!("cdmasim-nosyn-{}", std::process::id()));
    let opts = crate::sim::RunOptions { pcap_dir: Some(dir.clone()), ..Default::default() };
    let res = crate::sim::run(&spec, opts).unwrap();
    assert_eq!(res.flows[0].bytes_delivered, 50_000);
    let an = AnalyzeOptions::default();
    let mut a = super::analysis::analyze_file(&dir.join("ab.pcap"), &an).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let r = a.report(&an);
    assert_eq!(r.connections.len(), 1);
    let c = &r.connections[0];
    assert_eq!((c.syns, c.a2b.syn_pkts_sent), (0, 0));
    assert_eq!((c.a2b.unique_bytes_sent, c.a2b.rexmt_data_pkts), (50_000, 0));
    assert!(c.a2b.rtt_samples > 0, "data segments are still timed from their ACKs");
    assert_eq!(c.a2b.first_data_us, c.first_packet_us, "the first packet is data");
}

/// Runs `text` with captures into a fresh folder; (file names, folder).
fn captured(text: &str, tag: &str) -> (Vec<String>, std::path::PathBuf) {
    let spec = crate::scenario::parse_str(text, "t.toml").unwrap_or_else(|e| panic!("{e}"));
    let dir = std::env::temp_dir().join(format!("cdmasim-{tag}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    let opts = crate::sim::RunOptions { pcap_dir: Some(dir.clone()), ..Default::default() };
    crate::sim::run(&spec, opts).unwrap();
    let mut files: Vec<String> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    files.sort();
    (files, dir)
}

const RADIO_LINK: &str = "[simulation]\nduration = \"20s\"\n[[node]]\nname = \"pdsn\"\n[[node]]\nname = \"ue\"\n\
    [[radio_link]]\nname = \"air\"\nbsc = \"pdsn\"\nmobile = \"ue\"\nrate_down = \"38.4kbps\"\n\
    [[flow]]\nname = \"f\"\nfrom = \"pdsn\"\nto = \"ue\"\nbytes = \"20kB\"\n";

/// A hop that does not report when a transmission starts (the IS-2000
/// radio link) is still captured: at the mobile, named after its reverse
/// direction, its ACKs as they are offered to the radio link and the data
/// as it arrives.
#[test]
fn a_hop_without_transmission_reports_is_captured_at_the_mobile() {
    let (files, dir) = captured(RADIO_LINK, "offered");
    assert_eq!(files, ["air.up.pcap"], "one capture for the one pair of nodes");
    let an = AnalyzeOptions::default();
    let mut a = super::analysis::analyze_file(&dir.join(&files[0]), &an).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let r = a.report(&an);
    assert_eq!(r.connections.len(), 1);
    let c = &r.connections[0];
    assert_eq!((c.a2b.syn_pkts_sent, c.b2a.syn_pkts_sent), (1, 1), "the handshake, both ways");
    assert_eq!((c.a2b.unique_bytes_sent, c.a2b.rexmt_data_pkts), (20_000, 0));
    assert!(c.b2a.pure_acks_sent > 0, "the mobile's ACKs");
}

/// Two pairs whose places would give one file name (a link called
/// `air.up` between other nodes) get two files, the second `-2`.
#[test]
fn captures_whose_places_share_a_name_get_two_files() {
    let text = format!(
        "{RADIO_LINK}[[node]]\nname = \"x\"\n[[link]]\nname = \"air.up\"\nfrom = \"pdsn\"\nto = \"x\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
         [[flow]]\nname = \"g\"\nfrom = \"pdsn\"\nto = \"x\"\nkind = \"cbr\"\npacket_size = \"100B\"\nrate = \"8kbps\"\n"
    );
    let (files, dir) = captured(&text, "clash");
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(files, ["air.up-2.pcap", "air.up.pcap"]);
}

/// An IS-2000 sector: each user captured at its own end, as `USER.up`.
#[test]
fn an_is2000_sector_is_captured_at_each_user() {
    let text = "preset = \"is2000\"\n[simulation]\nduration = \"40s\"\nseed = 3\n[is2000]\nusers = 2\n";
    let (files, dir) = captured(text, "is2000");
    let an = AnalyzeOptions::default();
    for user in ["u1.up.pcap", "u2.up.pcap"] {
        assert!(files.iter().any(|f| f == user), "{user} in {files:?}");
        let mut a = super::analysis::analyze_file(&dir.join(user), &an).unwrap();
        let r = a.report(&an);
        assert!(!r.connections.is_empty(), "{user}: a browser's connections");
        let bytes: u64 = r.connections.iter().map(|c| c.a2b.unique_bytes_sent + c.b2a.unique_bytes_sent).sum();
        assert!(bytes > 0, "{user}: the pages' bytes");
    }
    std::fs::remove_dir_all(&dir).ok();
}
