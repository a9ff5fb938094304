"""`cdmasim pcap analyze FILE [--peer FILE] [--json] [--csv] [--plot DIR]`:
tcptrace-style statistics per TCP connection, loss periods and the CCDF of
retransmissions per loss period, the fitted throughput model, and (with
--peer) excess one-way delay and end-to-end loss."""

import sys

from .._units import integer

TABLE = [
    ("total packets", "total_packets", "{}"),
    ("data pkts / bytes", ("actual_data_pkts", "actual_data_bytes"), "{}/{}"),
    ("unique bytes", "unique_bytes_sent", "{}"),
    ("rexmt pkts / bytes", ("rexmt_data_pkts", "rexmt_data_bytes"), "{}/{}"),
    ("retrans rate", "retrans_rate", "{:.4f}"),
    ("loss periods", "loss_periods", "{}"),
    ("out-of-order pkts", "outoforder_pkts", "{}"),
    ("duplicate acks", "duplicate_acks", "{}"),
    ("triple dupacks", "triple_dupacks", "{}"),
    ("sack pkts", "sack_pkts_sent", "{}"),
    ("zwnd probes", "zwnd_probe_pkts", "{}"),
    ("zero win adv", "zero_win_adv", "{}"),
    ("SYN/FIN", ("syn_pkts_sent", "fin_pkts_sent"), "{}/{}"),
    ("win adv min/avg/max", ("min_win_adv", "avg_win_adv", "max_win_adv"), "{}/{}/{}"),
    ("throughput (B/s)", "throughput_bps", "{:.0f}"),
    ("RTT samples", "rtt_samples", "{}"),
    ("RTT min/avg/max ms", ("rtt_min_ms", "rtt_avg_ms", "rtt_max_ms"), "{:.1f}/{:.1f}/{:.1f}"),
    ("RTT stdev ms", "rtt_stdev_ms", "{:.1f}"),
    ("idletime max ms", "idletime_max_ms", "{:.1f}"),
    ("cksum bad/checked", ("cksum_bad", "cksum_checked"), "{}/{}"),
]


def _connection_list(text):
    """'1,3,4' -> [1, 3, 4] (argparse type; a bad entry is a usage error)."""
    one = integer(0, 2**32, "--fit-connections")
    return [one(x) for x in str(text).split(",")]


def register(sub):
    p = sub.add_parser("pcap", help="analyse packet captures (tcptrace-compatible)")
    s = p.add_subparsers(dest="pcap_command", required=True)
    a = s.add_parser("analyze", help="per-connection TCP statistics of a pcap/pcapng file")
    a.add_argument("file", help="capture file (pcap or pcapng)")
    a.add_argument("--peer", metavar="FILE", help="capture of the same connections at the other end (one-way delay)")
    a.add_argument("--json", action="store_true", help="print the full report as JSON")
    a.add_argument("--csv", action="store_true", help="print one CSV row per connection and direction")
    a.add_argument("--plot", metavar="DIR", help="write time-sequence, throughput and RTT plots to DIR")
    a.add_argument("--no-checksums", action="store_true", help="do not verify TCP checksums")
    a.add_argument("--fit-connections", metavar="N,N,...", type=_connection_list,
                   help="fit the throughput model to these connections only (numbers as listed; default: all)")
    a.add_argument("--fit-min-packets", metavar="N", default=100, type=integer(0, 2**63, "--fit-min-packets"),
                   help="fit only connections with at least N data packets (default 100: leaves out control connections)")
    a.set_defaults(func=run)


def _cell(d, key, fmt):
    if isinstance(key, tuple):
        vals = [d[k] for k in key]
    else:
        vals = [d[key]]
    if any(v is None for v in vals):
        return "NA"
    if key == "loss_periods":
        return str(len(vals[0]))
    return fmt.format(*vals)


def print_text(report, owd, out):
    print(f"{report['packets_seen']} packets seen, {report['tcp_packets']} TCP packets, "
          f"{len(report['connections'])} connections", file=out)
    for c in report["connections"]:
        print(f"\nTCP connection {c['index']}: {c['host_a']}:{c['port_a']} <-> {c['host_b']}:{c['port_b']}"
              f"  complete: {c['complete']}  elapsed {c['elapsed_us'] / 1e6:.6f} s  packets {c['total_packets']}",
              file=out)
        print(f"  {'':22s} {'a->b':>24s} {'b->a':>24s}", file=out)
        for label, key, fmt in TABLE:
            print(f"  {label:22s} {_cell(c['a2b'], key, fmt):>24s} {_cell(c['b2a'], key, fmt):>24s}", file=out)
    if report["loss_ccdf"]:
        print("\nCCDF of retransmitted packets per loss period (P[X >= k]):", file=out)
        print("  " + "  ".join(f"{k}:{p:.3f}" for k, p in report["loss_ccdf"]), file=out)
    m = report.get("model")
    if m:
        print(f"\nThroughput model T = C*MTU/(RTT*sqrt(b*p)), MTU={m['mtu']:.0f} B, b={m['b']:g}: "
              f"C = {m['c']:.3f}, RMS relative error {m['rms_rel_error']:.3f} over {len(m['points'])} connection(s)",
              file=out)
    if owd:
        print("\nOne-way delay (excess over the minimum) and end-to-end loss:", file=out)
        for d in owd["directions"]:
            print(f"  {d['src']}:{d['sport']} -> {d['dst']}:{d['dport']}: matched {d['matched']}/{d['sent']}, "
                  f"loss {d['loss_rate']:.4%}, excess delay mean {d['mean_excess_ms']:.3f} ms "
                  f"std {d['std_excess_ms']:.3f} ms", file=out)


def run(args):
    import json

    from .. import pcap

    if args.plot:
        from .._files import check_output_dir

        check_output_dir("--plot", args.plot)
    report, owd = pcap.analyze_raw(args.file, peer=args.peer, series=bool(args.plot),
                                   checksums=not args.no_checksums, fit_connections=args.fit_connections,
                                   fit_min_packets=args.fit_min_packets)
    for w in report.get("warnings", []):
        print(f"cdmasim: warning: {args.file}: {w}", file=sys.stderr)
    if args.json:
        out = dict(report)
        out.pop("series", None)
        if owd is not None:
            out["owd"] = owd
        json.dump(out, sys.stdout, indent=1)
        print()
    elif args.csv:
        res = pcap.PcapResult(report, owd)
        res.connections.to_csv(sys.stdout, index=False)
    else:
        print_text(report, owd, sys.stdout)
    if args.plot:
        from ..pcap_plot import plot_all

        files = plot_all(pcap.PcapResult(report, owd), args.plot)
        print(f"wrote {len(files)} plot(s) to {args.plot}", file=sys.stderr)
    return 0
