#!/usr/bin/env python3
"""Dumbbell benchmark: cdmasim against ns-3 3.37 and ns-2.35, from one command.

    python bench/run.py                      # N = 1, 10, 100; 3 repeats each
    python bench/run.py --cases 10 --repeats 1 --only ns-2,ns-3
    python bench/run.py --variants           # newreno, cubic, vegas, westwood, bbr
                                             # vs ns-3; N = 1, 10; 1 repeat

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
import report_variants
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
    p.add_argument("--variants", action="store_true",
                   help="compare the congestion controls cdmasim and ns-3 both have "
                        "(cdmasim and ns-3 only; defaults --cases 1,10 --repeats 1 --sack on)")
    p.add_argument("--cc", default=None,
                   help="with --variants: comma-separated subset of " + ",".join(sims.CC_VARIANTS)
                        + " (default all)")
    p.add_argument("--sack", choices=("on", "off"), default=None,
                   help="SACK in both simulators (default: off, with --variants on)")
    p.add_argument("--cases", default=None, help="comma-separated flow counts (default 1,10,100; --variants 1,10)")
    p.add_argument("--repeats", type=int, default=None,
                   help="runs per case and simulator (median wall time; default 3, --variants 1)")
    p.add_argument("--duration", type=float, default=60.0, help="simulated seconds")
    p.add_argument("--only", default=None, help="subset of cdmasim,ns-2,ns-3 (default all; --variants cdmasim,ns-3)")
    p.add_argument("--cdmasim", default=None, help="path of the cdmasim CLI (default: .venv/bin/cdmasim, then PATH)")
    p.add_argument("--ns3-extra", action="append", default=[], metavar="ARG",
                   help="extra argument for the ns-3 program, e.g. "
                        "--ns3-extra=--ns3::TcpSocketBase::Sack=true (diagnostics; recorded in the JSON)")
    p.add_argument("--no-install", action="store_true", help="never apt-get install")
    p.add_argument("--out", default=str(sims.BENCH / "out"), help="directory for the JSON table")
    args = p.parse_args(argv)
    v = args.variants
    if args.cc is not None and not v:
        p.error("--cc needs --variants (the dumbbell benchmark is NewReno)")
    args.cc = args.cc or ",".join(sims.CC_VARIANTS)
    args.cases = args.cases or ("1,10" if v else "1,10,100")
    args.repeats = args.repeats or (1 if v else 3)
    args.only = args.only or ("cdmasim,ns-3" if v else ",".join(report.SIMS))
    args.sack = (args.sack or ("on" if v else "off")) == "on"
    return args


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
            print(f"bench: {sc.cc} N={sc.flows} {name} run {k + 1}/{repeats}: {state}", file=sys.stderr)
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
    ccs = [c.strip() for c in args.cc.split(",") if c.strip()] if args.variants else ["newreno"]
    bad = [c for c in ccs if c not in sims.CC_VARIANTS]
    if bad:
        print(f"bench: error: --cc: unknown variant(s) {bad} (expected {','.join(sims.CC_VARIANTS)})",
              file=sys.stderr)
        return 2
    ns = [int(x) for x in args.cases.split(",") if x.strip()]

    if which & {"ns-2", "ns-3"}:
        ensure_reference_tools(not args.no_install)
    if "ns-3" in which:
        ok, why = sims.build_ns3()
        if not ok:
            print(f"bench: ns-3 unavailable: {why}", file=sys.stderr)
    cli = sims.find_cdmasim(args.cdmasim)
    if cli is not None:
        sims.compile_cdmasim(sims.cdmasim_python(cli))

    out_dir = Path(args.out)
    workdir = out_dir / "scenarios"
    name = "variants" if args.variants else "dumbbell"
    result = {
        "benchmark": name,
        "when_utc": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": dict(sims.machine(), platform=platform.platform()),
        "repeats": args.repeats,
        "cdmasim_cli": cli,
        "ns3_extra_args": args.ns3_extra,
        "sack": args.sack,
        "scenario": asdict(sims.Dumbbell(flows=0, duration_s=args.duration)),
        "goals": {"goodput_tolerance_pct": report.GOODPUT_TOL_PCT,
                  "whole_process_speedup_vs_ns2": report.GOAL_NS2_SPEEDUP,
                  "whole_process_speedup_vs_ns3": report.GOAL_NS3_SPEEDUP},
        "cases": {},
    }
    for k in ("flows", "cc", "sack"):
        del result["scenario"][k]
    if args.variants:
        result["matching"] = {cc: asdict(sims.CC_MATCH[cc]) for cc in ccs}
        result["rows"] = []
    for cc in ccs:
        for n in ns:
            sc = sims.Dumbbell(flows=n, duration_s=args.duration, cc=cc, sack=args.sack)
            case = run_case(sc, which, args.repeats, cli, workdir, tuple(args.ns3_extra))
            if args.variants:
                result["cases"][report_variants.case_key(cc, n)] = case
                result["rows"].append(report_variants.row(cc, n, case))
            else:
                result["cases"][str(n)] = case

    text = report_variants.render(result) if args.variants else report.render(result)
    print(text)
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = result["when_utc"].replace(":", "").replace("-", "")
    for fname in (f"{name}-{stamp}.json", f"{name}-latest.json"):
        (out_dir / fname).write_text(json.dumps(result, indent=1) + "\n")
    print(f"\nJSON: {out_dir / f'{name}-{stamp}.json'}", file=sys.stderr)
    if args.variants and is_full_variant_run(args):
        # The full comparison is also kept in the repository (README quotes it).
        res = sims.BENCH / "results"
        res.mkdir(exist_ok=True)
        (res / "variants-latest.json").write_text(json.dumps(result, indent=1) + "\n")
        (res / "variants-latest.txt").write_text(text + "\n")
        print(f"bench: copied to {res / 'variants-latest.{json,txt}'}", file=sys.stderr)
    return 0


def is_full_variant_run(args) -> bool:
    """Every variant, both simulators, the default cases and no diagnostics
    arguments: only such a run replaces bench/results/variants-latest.*."""
    return (set(args.cc.split(",")) == set(sims.CC_VARIANTS) and args.cases == "1,10"
            and set(args.only.split(",")) == {"cdmasim", "ns-3"} and args.sack
            and not args.ns3_extra and args.duration == 60.0)


if __name__ == "__main__":
    sys.exit(main())
