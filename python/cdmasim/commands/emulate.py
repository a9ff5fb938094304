"""`cdmasim emulate SCENARIO --server CMD --user NAME=CMD ...`: real
programs through the scenario's simulated 1xEV-DO sector, in real time
(python/cdmasim/emulate.py; docs/emulator.md)."""

import json
import os
import sys


def register(sub):
    p = sub.add_parser("emulate", help="run real programs through the scenario's 1xEV-DO sector in real time (root)")
    p.add_argument("file", help="scenario TOML with one [[sector]] group and its [[user]]s")
    p.add_argument("--server", metavar="CMD", help="shell command run on the server side (10.77.0.1), e.g. 'iperf3 -s'")
    p.add_argument("--user", metavar="NAME=CMD", action="append", default=[],
                   help="shell command run as user NAME (repeat); $CDMASIM_SERVER is the server's address")
    p.add_argument("--log", metavar="DIR", help="write per-user packet logs (Mahimahi's +/-/d lines) and report.json")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=main)


def main(args):
    from .. import InputError
    from ..emulate import emulate
    from .outputs import check_output_dir

    users = {}
    for u in args.user:
        name, sep, cmd = u.partition("=")
        if not sep or not name or not cmd.strip():
            raise InputError(f"--user {u!r}: expected NAME=COMMAND")
        users[name] = cmd
    if not users:
        raise InputError("emulate: give at least one --user NAME=COMMAND")
    if args.log:
        check_output_dir("--log", args.log)
    out = emulate(args.file, users, server=args.server, log_dir=args.log)
    rep = out["report"]
    if args.log:
        with open(os.path.join(args.log, "report.json"), "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
    if args.json:
        print(json.dumps(out))
    else:
        print(f"relayed {rep['duration_s']:.1f} s; schedule error p50 {rep['schedule_error_p50_us']:.0f} us, "
              f"p99 {rep['schedule_error_p99_us']:.0f} us over {rep['deadlines']} deadlines")
        for u in rep["users"]:
            d, up = u["down"], u["up"]
            print(f"  {u['name']} ({u['address']}): down {d['delivered']}/{d['packets_in']} packets "
                  f"({d['bytes_delivered'] * 8 / max(rep['duration_s'], 1e-9) / 1000:.1f} kb/s), dropped "
                  f"{sum(d['dropped'].values())}, queued {d['queued_at_end']}; up {up['delivered']}/{up['packets_in']}; "
                  f"exit {out['exit_codes'].get(u['name'], '-')}")
    bad = [c for c in out["exit_codes"].values() if c != 0]
    return bad[0] if bad else 0
