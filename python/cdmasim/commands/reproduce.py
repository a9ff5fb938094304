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
                    "by first author: liu, lee, paliwal, jung, dziong, or all. Prints a line per paper and writes "
                    "every item to OUT/report.html (and to stdout with --json).")
    p.add_argument("paper", metavar="PAPER", help="liu | lee | paliwal | jung | dziong | all")
    p.add_argument("--out", metavar="DIR", default="reproduce-out", help="output directory (default reproduce-out)")
    p.add_argument("--quick", action="store_true", help="shorter experiments (under a minute for all papers)")
    p.add_argument("--jobs", type=integer(1, 1024, "--jobs"), metavar="N", help="worker processes for the sweeps (default: all cores)")
    p.add_argument("--dask", metavar="ADDRESS", help="run the sweeps on a Dask cluster: tcp://HOST:PORT, or 'local'")
    p.add_argument("--pcap", nargs="+", metavar="FILE", help="lee: run the paper's analysis on these captures too")
    p.add_argument("--ns2", action="store_true",
                   help="paliwal: run the same configurations and seeds in ns-2.35 too (needs `ns`, apt package ns2) "
                        "and report its value beside each item (JSON fields ns2, ns2_spread)")
    p.add_argument("--sensitivity", action="store_true",
                   help="paliwal: Table II's 169 cells under each setting the paper leaves unstated (20 settings, "
                        "2 seeds; about 20 min on 2 cores): items table2.sensitivity.*, figure table2_sensitivity")
    p.add_argument("--json", action="store_true",
                   help="print each paper's report (every item) as one JSON line on stdout")
    p.add_argument("--items", action="store_true",
                   help="after each paper's line, one line per item with a published value (measured, published, "
                        "tolerance, verdict) and the reason beneath every one that differs, is inconclusive or "
                        "missed its target")
    p.add_argument("--quiet", action="store_true", help="no status line and no summary lines; errors only")
    p.set_defaults(func=main)


def headline(report):
    """A paper's result in one line: report.html's first table in words
    (report.tally: the same counts, the same words)."""
    from ..reproduce.report import tally

    # Every count the table has; beyond the first three, those at zero are left out.
    counts = "; ".join(f"{w}: {v}" for i, (v, w) in enumerate(tally(report["summary"]))
                       if i < 3 or v not in ("0", "0 of 0"))
    return f"{report['paper']}: {counts}; {len(report['figures'])} figures, {report['wall_s']:.1f} s"


def item_lines(report):
    """--items: one line per item that has a published value or a
    reason (id, measured [spread], published and tolerance, verdict), and
    the reason beneath one that differs, is inconclusive or missed its
    target."""
    from ..reproduce.report import verdict_label

    lines = []
    for it in report["items"]:
        if it["published"] is None and it["verdict"] != "not modelled":
            continue
        m = "—" if it["measured"] is None else f"{it['measured']:.4g}"
        if it["spread"] is not None:
            m += f" [{it['spread'][0]:.4g}, {it['spread'][1]:.4g}]"
        pub = "—" if it["published"] is None else f"{it['published']:.4g} {it['tolerance']}"
        lines.append(f"  {it['id']}: {m} against {pub} {it['unit']}: {verdict_label(it)}")
        note = it.get("why") or it.get("by_construction") or it.get("reason")
        if note:
            lines.append(f"      {note}")
    return lines


def main(args):
    import os
    import time

    from ..errors import InputError
    from .. import reproduce as rp
    from ..reproduce.report import write_report
    from ..workers import collect_less
    from .._files import check_output_dir

    collect_less()

    if args.paper not in CHOICES:
        raise InputError(f"unknown paper '{args.paper}' (expected one of: {', '.join(CHOICES)})")
    if args.pcap and args.paper not in ("lee", "all"):
        raise InputError("--pcap is for the lee paper's analysis (reproduce lee --pcap FILE...)")
    # Everything that can be refused is refused before minutes of simulation.
    if args.ns2:
        from ..reproduce.ns2 import find

        if args.paper not in ("paliwal", "all"):
            raise InputError("--ns2 is for the paliwal paper (reproduce paliwal --ns2): the other papers did not use ns-2")
        if find() is None:
            raise InputError("--ns2: ns-2 not found on PATH (apt-get install ns2); nothing was run")
    if args.sensitivity and args.paper not in ("paliwal", "all"):
        raise InputError("--sensitivity is for the paliwal paper (reproduce paliwal --sensitivity)")
    if args.pcap:
        from ..reproduce.lee import check_captures

        check_captures(args.pcap)
    check_output_dir("--out", args.out)
    papers = rp.PAPERS if args.paper == "all" else (args.paper,)
    _check_outputs(args.out, papers)
    t0 = time.perf_counter()
    from ..progress import StatusLine

    now = {"paper": None}

    def status():
        tally = rp.TALLY
        runs = f" · runs {tally.done}/{tally.total}" if tally.total else ""
        doing = f"analysing {now['paper']}" if now["paper"] else "starting"
        return f"reproduce {args.paper}: {doing}{runs} · {time.perf_counter() - t0:.0f} s"

    line = StatusLine(status, enabled=False if args.quiet else None)
    printed = Printer(papers, args, line)
    pool = dask = ahead = None
    if args.dask:
        from ..sweeps import _DaskPool

        dask = _DaskPool(args.dask, args.jobs or os.cpu_count() or 1)    # refused here, before anything is written
    else:
        from ..workers import WorkerPool

        pool = WorkerPool(args.jobs or os.cpu_count() or 1)
    # One process draws every paper's figures, and then writes its
    # report.json, while the next paper is analysed.
    drawing = rp.figures.FigureWriter()
    interrupted = False
    try:
        try:
            os.makedirs(args.out, exist_ok=True)
        except OSError as e:
            raise InputError(f"--out: {args.out}: cannot create: {e.strerror or e}") from None
        from ..reproduce.ns2 import Ns2Error

        if pool is not None and len(papers) > 1:
            # Every paper's sweeps run ahead on a pool of their own while the
            # papers are analysed one by one, and the calls a paper declares
            # (liu's channel traces) on a third from the start, that paper
            # being analysed last (reproduce.Ahead).
            papers = rp.analysis_order(papers)
            ahead = rp.Ahead(rp.plans(papers, args.out, quick=args.quick, jobs=args.jobs, pcaps=args.pcap,
                                      sensitivity=args.sensitivity), os.path.join(args.out, "store"), pool.jobs,
                             tasks=rp.tasks(papers, args.out, quick=args.quick), kept=rp.CallCache(args.out))
        for paper in papers:
            now["paper"] = paper
            try:
                r = rp.run(paper, args.out, quick=args.quick, jobs=args.jobs,
                           pcaps=args.pcap if paper == "lee" else None, dask=dask, pool=pool, ns2=args.ns2,
                           sensitivity=args.sensitivity, ahead=ahead, drawing=drawing)
            except Ns2Error as e:
                # ns-2 itself failed: one line, and the runs cached so far stay.
                printed.flush()
                line.say(f"cdmasim: error: {e}", sys.stderr)
                return 1
            except BaseException:
                printed.flush()     # the papers done so far, before the error (or Ctrl-C)
                raise
            printed.done(r)
        drawing.wait()
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        # After an error the papers done so far keep their figures and
        # reports; Ctrl-C stops at once.
        drawing.close(finish=not interrupted)
        line.close()
        if ahead is not None:
            ahead.close()
        if pool is not None:
            pool.close()
        if dask is not None:
            dask.close()
    path = write_report(args.out)
    if not args.json and not args.quiet:
        print(f"report: {path}, every item beside the paper's number ({time.perf_counter() - t0:.1f} s)")
    return 0


def _check_outputs(out, papers):
    """What reproduce writes in OUT can be written: OUT/report.html and each
    OUT/PAPER/report.json and figure are files (or absent), OUT/PAPER and
    OUT/store and OUT/calls are folders (or absent). Checked before any
    simulation."""
    import os

    from ..errors import InputError

    def bad(path, what):
        raise InputError(f"--out: {path}: exists and is not {what}; reproduce writes one there (nothing was written)")

    report = os.path.join(out, "report.html")
    if os.path.lexists(report) and (not os.path.isfile(report) or os.path.islink(report)):
        bad(report, "a regular file")
    for sub in ("store", "calls", *papers):
        d = os.path.join(out, sub)
        if os.path.lexists(d) and not os.path.isdir(d):
            bad(d, "a folder")
        if sub in papers and os.path.isdir(d):
            for name in os.listdir(d):
                p = os.path.join(d, name)
                if (name.endswith(".png") or name == "report.json") and not os.path.isfile(p):
                    bad(p, "a regular file")


class Printer:
    """Reports go out in the papers' order (`papers`), whatever order they
    are analysed in: a report waits for those before it, and the status
    line says that it is done meanwhile."""

    def __init__(self, papers, args, line):
        self.order, self.args, self.line, self.reports, self.next = list(papers), args, line, {}, 0

    def done(self, r):
        self.reports[r["paper"]] = r
        while self.next < len(self.order) and self.order[self.next] in self.reports:
            self.next += 1      # first: a Ctrl-C inside the print does not print it twice
            self._said(self.reports[self.order[self.next - 1]])
        if r["paper"] in self.order[self.next:] and not self.line.enabled and not self.args.quiet:
            # Off a terminal (no status line), progress as lines of their own.
            self.line.say(f"cdmasim: {r['paper']}: {len(r['items'])} items, {r['wall_s']:.1f} s; reported after "
                          f"{self.order[self.next]}", sys.stderr)

    def flush(self):
        """What is done, in order, skipping what is not (before an error)."""
        rest, self.next = self.order[self.next:], len(self.order)
        for paper in rest:
            if paper in self.reports:
                self._said(self.reports[paper])

    def _said(self, r):
        """What a paper's run prints as it finishes: its report as a JSON
        line (--json), else its headline (nothing with --quiet)."""
        from ..reproduce import public

        paper = r["paper"]
        if self.args.json:
            self.line.say(json.dumps(public(r)))
        elif not self.args.quiet:
            self.line.say(headline(r))
            if getattr(self.args, "items", False):
                for text in item_lines(r):
                    self.line.say(text)
        if not r["items"]:
            self.line.say(f"cdmasim: note: {paper}: no items: " + "; ".join(r["pending"]), sys.stderr)
