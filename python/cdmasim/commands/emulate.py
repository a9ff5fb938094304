"""`cdmasim emulate SCENARIO --server CMD --user NAME=CMD ...`: real
programs through the scenario's simulated radio network (an EV-DO sector,
a cdma2000 cell, an RLP3 link, an IS-2000 sector), in real time
(python/cdmasim/emulate.py; docs/emulator.md)."""

import json
import os


def register(sub):
    p = sub.add_parser("emulate", help="run real programs through the scenario's radio network in real time (root)")
    p.add_argument("file", help="scenario TOML with radio hops ([[sector]]s and [[user]]s, a [[cell]] and its "
                                "[[mobile]]s, [[radio_link]]s, [[is2000_sector]]s) served from one node")
    p.add_argument("--server", metavar="CMD", help="shell command run on the server side (10.77.0.1), e.g. 'iperf3 -s'")
    p.add_argument("--user", metavar="NAME=CMD", action="append", default=[],
                   help="shell command run as user NAME (repeat); $CDMASIM_SERVER is the server's address")
    p.add_argument("--log", metavar="DIR", help="write per-user packet logs (Mahimahi's +/-/d lines), each program's "
                                                "output (NAME.out), report.json, users.csv and throughput.png")
    p.add_argument("--until-done", action="store_true",
                   help="relay until every user's program has exited, however long; by default the scenario's "
                        "duration ends the emulation and stops the programs still running")
    p.add_argument("--json", action="store_true",
                   help="print the report as JSON (the programs' output then goes to stderr)")
    p.set_defaults(func=main)


USER_COLUMNS = ["name", "address", "direction", "packets_in", "bytes_in", "delivered", "bytes_delivered", "dropped",
                "queued_at_end", "delay_mean_ms", "delay_max_ms", "slots_served", "slot_share", "queue_avg_pkts",
                "queue_max_pkts", "exit_code", "corrupted", "contended_share"]


def write_tables(out, log_dir):
    """users.csv (one row per user and direction) and throughput.png (each
    user's downlink goodput per 100 ms) beside the logs."""
    import csv

    rep = out["report"]
    with open(os.path.join(log_dir, "users.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(USER_COLUMNS)
        for u in rep["users"]:
            for d in ("down", "up"):
                x = u[d]
                w.writerow([u["name"], u["address"], d, x["packets_in"], x["bytes_in"], x["delivered"],
                            x["bytes_delivered"], sum(x["dropped"].values()), x["queued_at_end"],
                            f"{x['delay_mean_ms']:.3f}", f"{x['delay_max_ms']:.3f}", u.get("slots_served", 0),
                            f"{u.get('slot_share', 0):.4f}", f"{u.get('queue_avg_pkts', 0):.2f}",
                            u.get("queue_max_pkts", 0), out["exit_codes"].get(u["name"], ""), x.get("corrupted", 0),
                            f"{u.get('contended_share', 0):.4f}"])
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.4))
    for u in rep["users"]:
        b = u["down"]["bytes_per_100ms"]
        if any(b):
            ax.plot([i / 10 for i in range(len(b))], [x * 8 / 0.1 / 1000 for x in b], linewidth=0.8, label=u["name"])
    ax.set_xlabel("time (s)")
    ax.set_ylabel("downlink goodput (kb/s, 100 ms bins)")
    ax.set_title("cdmasim emulate: what each user received", fontsize=10)
    if ax.lines:
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(log_dir, "throughput.png"), dpi=90)
    plt.close(fig)


def main(args):
    """Exit status: 0 when every user's program exited 0 (or was stopped at
    the scenario's duration), 1 when one failed, 2 for bad input, 130 after
    Ctrl-C (docs/emulator.md)."""
    import sys

    from ..errors import InputError
    from ..emulate import emulate
    from .._files import check_output_dir, write_into

    users = {}
    for u in args.user:
        name, sep, cmd = u.partition("=")
        if not sep or not name or not cmd.strip():
            raise InputError(f"--user {u!r}: expected NAME=COMMAND")
        users[name] = cmd
    if not users:
        raise InputError("emulate: give at least one --user NAME=COMMAND")
    output = sys.stderr if args.json else sys.stdout
    run = dict(server=args.server, until_done=args.until_done, output=output)
    if args.log is not None:
        check_output_dir("--log", args.log)
        # The logs are written into a fresh folder inside --log whose files
        # take their places only when the emulation is over and every table
        # is written: a kill leaves --log as it was (and at most a hidden
        # .cdmasim-new-* folder); the folder's other files stay.
        result = {}

        def write(tmp):
            result["out"] = emulate(args.file, users, log_dir=tmp, **run)
            with open(os.path.join(tmp, "report.json"), "w", encoding="utf-8") as f:
                json.dump(result["out"], f, indent=1)
            write_tables(result["out"], tmp)

        try:
            write_into(args.log, write)
        except OSError as e:
            raise InputError(f"--log: {args.log}: cannot write: {e.strerror or e}") from None
        out = result["out"]
    else:
        out = emulate(args.file, users, **run)
    rep = out["report"]
    if args.json:
        print(json.dumps(out))
    else:
        print(f"relayed {rep['duration_s']:.1f} s; schedule error p50 {rep['schedule_error_p50_us']:.0f} us, "
              f"p99 {rep['schedule_error_p99_us']:.0f} us over {rep['deadlines']} deadlines")
        for u in rep["users"]:
            d, up = u["down"], u["up"]
            corrupt = f" ({d['corrupted']} with a failing checksum)" if d.get("corrupted") else ""
            print(f"  {u['name']} ({u['address']}): down {d['delivered']}/{d['packets_in']} packets{corrupt} "
                  f"({d['bytes_delivered'] * 8 / max(rep['duration_s'], 1e-9) / 1000:.1f} kb/s), dropped "
                  f"{sum(d['dropped'].values())}, queued {d['queued_at_end']}; up {up['delivered']}/{up['packets_in']}; "
                  f"exit {out['exit_codes'].get(u['name'], '-')}")
    if out["stopped"]:
        print(f"cdmasim: note: emulate: the scenario's duration ended the emulation; stopped: "
              f"{', '.join(out['stopped'])} (--until-done waits for them)", file=sys.stderr)
    failed = {n: c for n, c in out["exit_codes"].items() if c != 0 and n not in out["stopped"]}
    for name, code in failed.items():
        how = f"signal {-code}" if code < 0 else f"status {code}"
        print(f"cdmasim: emulate: {name}'s program exited with {how}", file=sys.stderr)
    return 1 if failed else 0
