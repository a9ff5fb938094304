#!/usr/bin/env python3
"""Dumbbell benchmark: cdmasim against ns-3 3.37 and ns-2.35, from one command.

    python bench/run.py                      # N = 1, 10, 100; 3 repeats each
    python bench/run.py --cases 10 --repeats 1 --only ns-2,ns-3

Installs the reference simulators when they are missing and this runs as
root (apt-get install libns3-dev ns2 g++), builds bench/ns3/dumbbell.cc once
into bench/build/, runs every case in every simulator, prints one table and
writes it as JSON to bench/out/. See bench/README.md for what is measured.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import report
import sims

APT_PACKAGES = ["libns3-dev", "ns2", "g++"]


def ensure_reference_tools(install: bool) -> None:
    """apt-get install the reference simulators if missing (root only)."""
    missing = not sims.ns2_ready()[0] or not sims.ns3_ready()[0]
    if not missing or not install:
        return
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        print("bench: ns-2/ns-3 missing and not root: run "
              f"`apt-get install {' '.join(APT_PACKAGES)}`", file=sys.stderr)
        return
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    cmd = ["apt-get", "install", "-y", "-q"] + APT_PACKAGES
    print("bench: installing " + " ".join(APT_PACKAGES), file=sys.stderr)
    if subprocess.run(cmd, env=env, capture_output=True).returncode != 0:
        subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True)
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if p.returncode != 0:
            print("bench: apt-get install failed: " + p.stderr.strip()[-300:], file=sys.stderr)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", default="1,10,100", help="comma-separated flow counts")
    p.add_argument("--repeats", type=int, default=3, help="runs per case and simulator (median wall time)")
    p.add_argument("--duration", type=float, default=60.0, help="simulated seconds")
    p.add_argument("--only", default=",".join(report.SIMS), help="subset of cdmasim,ns-2,ns-3")
    p.add_argument("--cdmasim", default=None, help="path of the cdmasim CLI (default: .venv/bin/cdmasim, then PATH)")
    p.add_argument("--ns3-extra", action="append", default=[], metavar="ARG",
                   help="extra argument for the ns-3 program, e.g. "
                        "--ns3-extra=--ns3::TcpSocketBase::Sack=true (diagnostics; recorded in the JSON)")
    p.add_argument("--no-install", action="store_true", help="never apt-get install")
    p.add_argument("--out", default=str(sims.BENCH / "out"), help="directory for the JSON table")
    return p.parse_args(argv)


def run_case(sc: sims.Dumbbell, which: set, repeats: int, cli, workdir: Path,
             ns3_extra: tuple = ()) -> dict:
    case = {}
    for name in report.SIMS:
        if name not in which:
            case[name] = {"available": False, "reason": "not selected (--only)"}
            continue
        runs = []
        for k in range(repeats):
            if name == "cdmasim":
                r = sims.run_cdmasim(sc, cli, workdir)
            elif name == "ns-2":
                r = sims.run_ns2(sc)
            else:
                r = sims.run_ns3(sc, ns3_extra)
            runs.append(r)
            state = f"{r.wall_s:.2f}s" if r.available else r.reason
            print(f"bench: N={sc.flows} {name} run {k + 1}/{repeats}: {state}", file=sys.stderr)
            if not r.available:
                break  # a missing simulator stays missing; don't retry it
        case[name] = report.summarise(runs)
    case["compare"] = report.compare(case)
    return case


def main(argv=None) -> int:
    args = parse_args(argv)
    which = {s.strip() for s in args.only.split(",") if s.strip()}
    unknown = which - set(report.SIMS)
    if unknown:
        print(f"bench: error: --only: unknown simulator(s) {sorted(unknown)}", file=sys.stderr)
        return 2
    ns = [int(x) for x in args.cases.split(",") if x.strip()]

    if which & {"ns-2", "ns-3"}:
        ensure_reference_tools(not args.no_install)
    if "ns-3" in which:
        ok, why = sims.build_ns3()
        if not ok:
            print(f"bench: ns-3 unavailable: {why}", file=sys.stderr)
    cli = sims.find_cdmasim(args.cdmasim)

    out_dir = Path(args.out)
    workdir = out_dir / "scenarios"
    result = {
        "benchmark": "dumbbell",
        "when_utc": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": dict(sims.machine(), platform=platform.platform()),
        "repeats": args.repeats,
        "cdmasim_cli": cli,
        "ns3_extra_args": args.ns3_extra,
        "scenario": asdict(sims.Dumbbell(flows=0, duration_s=args.duration)),
        "goals": {"goodput_tolerance_pct": report.GOODPUT_TOL_PCT,
                  "whole_process_speedup_vs_ns2": report.GOAL_NS2_SPEEDUP,
                  "whole_process_speedup_vs_ns3": report.GOAL_NS3_SPEEDUP},
        "cases": {},
    }
    del result["scenario"]["flows"]
    for n in ns:
        sc = sims.Dumbbell(flows=n, duration_s=args.duration)
        result["cases"][str(n)] = run_case(sc, which, args.repeats, cli, workdir,
                                           tuple(args.ns3_extra))

    text = report.render(result)
    print(text)
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = result["when_utc"].replace(":", "").replace("-", "")
    for name in (f"dumbbell-{stamp}.json", "dumbbell-latest.json"):
        (out_dir / name).write_text(json.dumps(result, indent=1) + "\n")
    print(f"\nJSON: {out_dir / f'dumbbell-{stamp}.json'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
