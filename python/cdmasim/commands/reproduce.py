"""`cdmasim reproduce PAPER`: a paper's published numbers beside ours
(docs/reproduce.md)."""

import json
import sys

from .._units import integer

CHOICES = ("liu", "lee", "paliwal", "jung", "dziong", "all")


def register(subparsers):
    p = subparsers.add_parser(
        "reproduce", help="run a paper's experiments and compare with its published numbers",
        description="Run a paper's experiments (cached in OUT/store) and compare every published number; papers "
                    "by first author: liu, lee, paliwal, jung, dziong, or all. Writes OUT/report.html.")
    p.add_argument("paper", metavar="PAPER", help="liu | lee | paliwal | jung | dziong | all")
    p.add_argument("--out", metavar="DIR", default="reproduce-out", help="output directory (default reproduce-out)")
    p.add_argument("--quick", action="store_true", help="shorter experiments (under a minute for all papers)")
    p.add_argument("--jobs", type=integer(1, 1024, "--jobs"), metavar="N", help="worker processes for the sweeps (default: all cores)")
    p.add_argument("--dask", metavar="ADDRESS", help="run the sweeps on a Dask cluster: tcp://HOST:PORT, or 'local'")
    p.add_argument("--pcap", nargs="+", metavar="FILE", help="lee: run the paper's analysis on these captures too")
    p.add_argument("--json", action="store_true", help="print the report as one JSON line on stdout")
    p.set_defaults(func=main)


def _print_text(report):
    print(f"{report['paper']}: {report['title']}")
    for it in report["items"]:
        pub = "-" if it["published"] is None else f"{it['published']:.4g}"
        print(f"  {it['id']:<48} {it['measured']:>12.4g} {it['unit']:<10} published {pub:>8} "
              f"{it['tolerance']:<12} {it['verdict']}")
    for line in report.get("pending", []):
        print(f"  not built yet: {line}")
    print(f"  {len(report['items'])} items, {len(report['figures'])} figures, {report['wall_s']:.1f} s")


def main(args):
    import os
    import time

    from .. import InputError
    from .. import reproduce as rp
    from ..report import write_report
    from .outputs import check_output_dir

    if args.paper not in CHOICES:
        raise InputError(f"unknown paper '{args.paper}' (expected one of: {', '.join(CHOICES)})")
    if args.pcap and args.paper not in ("lee", "all"):
        raise InputError("--pcap is for the lee paper's analysis (reproduce lee --pcap FILE...)")
    # Everything that can be refused is refused before minutes of simulation.
    if args.pcap:
        from ..reproduce.lee import check_captures

        check_captures(args.pcap)
    check_output_dir("--out", args.out)
    report_html = os.path.join(args.out, "report.html")
    if os.path.isdir(report_html) or (os.path.lexists(report_html) and not os.access(report_html, os.W_OK)):
        raise InputError(f"--out: {report_html}: exists and cannot be replaced by the report")
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        raise InputError(f"--out: {args.out}: cannot create: {e.strerror or e}") from None
    papers = rp.PAPERS if args.paper == "all" else (args.paper,)
    t0 = time.perf_counter()
    reports = []
    pool = None
    if not args.dask:
        from ..workers import WorkerPool

        pool = WorkerPool(args.jobs or os.cpu_count() or 1, "cdmasim.sweeps:execute")
    try:
        for paper in papers:
            reports.append(rp.run(paper, args.out, quick=args.quick, jobs=args.jobs,
                                  pcaps=args.pcap if paper == "lee" else None, dask=args.dask, pool=pool))
            _said(reports[-1], args)
    finally:
        if pool is not None:
            pool.close()
    path = write_report(args.out)
    if not args.json:
        print(f"report: {path}")
    out = rp.public(reports[0]) if len(reports) == 1 else rp.combine(reports, time.perf_counter() - t0)
    if args.json:
        print(json.dumps(out))
    return 0


def _said(r, args):
    """What a paper's run prints as it finishes."""
    paper = r["paper"]
    if not args.json:
        _print_text(r)
    if not r["items"]:
        print(f"cdmasim: note: {paper}: no items: " + "; ".join(r["pending"]), file=sys.stderr)
    elif args.json and r["pending"]:
        # The text report lists what is pending; with --json say it here.
        print(f"cdmasim: note: {paper}: not built yet: " + "; ".join(r["pending"]), file=sys.stderr)
