"""`cdmasim reproduce PAPER`: run a paper's experiments and set every
published number beside the measured one.

One module per paper (liu, lee, paliwal, jung, dziong). Each defines
TITLE, CITATION, PENDING (what lands with other issues, in words) and
`reproduce(ctx)`, which runs its experiments through `ctx.sweep` (so they
are cached and resumable in the output directory's store), adds items with
`ctx.item` and figures with `ctx.figure`. A later issue adds a paper's
missing parts by adding items to its module; item ids are stable names
`paper.experiment.quantity` and never change meaning.
"""

import importlib
import json
import os
import time

from .. import InputError
from .items import Item

PAPERS = ("liu", "lee", "paliwal", "jung", "dziong")


class Context:
    """What a paper module gets: where to write, how hard to try, and the
    collectors for its items and figures."""

    def __init__(self, paper, out, quick=False, jobs=None, pcaps=None, dask=None, pool=None):
        self.paper, self.out, self.quick, self.jobs = paper, out, quick, jobs
        self.dask, self.pool = dask, pool
        self.pcaps = list(pcaps or [])
        self.store = os.path.join(out, "store")
        self.dir = os.path.join(out, paper)
        os.makedirs(self.dir, exist_ok=True)
        self.items, self.figures, self.notes = [], [], []

    def sweep(self, spec, pcap=False):
        """Run a sweep spec (dict) into the shared store; returns one row
        per run of it (as load_sweep) and the store."""
        from ..store import Store, load_runs
        from ..sweeps import sweep

        report = sweep(spec, self.store, jobs=self.jobs, pcap=pcap, dask=self.dask, pool=self.pool)
        df = load_runs(self.store, report["runs"])
        failed = df[df.status != "done"]
        if len(failed):
            raise RuntimeError(f"{self.paper}: {len(failed)} run(s) of {report['sweep']} failed: {failed.error.iloc[0]}")
        return df, Store(self.store, mode="r")

    def item(self, id, what, measured, unit, published=None, tolerance=None, figure=None):
        # Ids are the paper's own names (`fig6.gain.mobile.4`): the contract
        # scripts read `reproduce PAPER --json` by. `reproduce all` prefixes
        # them with the paper (`liu.fig6.gain.mobile.4`), where they would collide.
        it = Item(id, what, published, measured, unit, tolerance, figure)
        self.items.append(it)
        return it

    def figure(self, id, title, fig, items=()):
        """Save a matplotlib figure as PNG; `items` are the item ids it shows."""
        import matplotlib.pyplot as plt

        name = f"{id}.png"
        fig.savefig(os.path.join(self.dir, name), dpi=90, bbox_inches="tight")
        plt.close(fig)
        self.figures.append({"id": id, "title": title, "file": f"{self.paper}/{name}", "items": list(items)})

    def note(self, text):
        self.notes.append(text)


def _module(paper):
    if paper not in PAPERS:
        raise InputError(f"unknown paper '{paper}' (expected one of: {', '.join(PAPERS)}, all)")
    return importlib.import_module(f"cdmasim.reproduce.{paper}")


def run(paper, out="reproduce-out", quick=False, jobs=None, pcaps=None, dask=None, pool=None):
    """Reproduce one paper; returns its report dict (the --json shape plus
    'citation', 'pending' and 'notes', which the HTML report shows). Also
    writes OUT/PAPER/report.json. dask: a scheduler address (or 'local')
    for the sweeps; pool: a cdmasim.workers.WorkerPool to share between
    papers (one is started, and stopped at the end, otherwise)."""
    from ..workers import WorkerPool

    mod = _module(paper)
    t0 = time.perf_counter()
    own = pool is None and dask is None
    if own:
        pool = WorkerPool(jobs or os.cpu_count() or 1, "cdmasim.sweeps:execute")
    try:
        ctx = Context(paper, out, quick=quick, jobs=jobs, pcaps=pcaps, dask=dask, pool=pool)
        mod.reproduce(ctx)
    finally:
        if own:
            pool.close()
    report = {
        "paper": paper, "title": mod.TITLE,
        "items": [it.as_dict() for it in ctx.items],
        "figures": ctx.figures,
        "wall_s": round(time.perf_counter() - t0, 2),
        "citation": mod.CITATION, "pending": list(mod.PENDING), "notes": ctx.notes, "quick": quick,
    }
    with open(os.path.join(ctx.dir, "report.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    return report


def public(report):
    """The --json shape: exactly paper, title, items, figures, wall_s."""
    return {k: report[k] for k in ("paper", "title", "items", "figures", "wall_s")}


def combine(reports, wall_s):
    """`reproduce all`: one report whose items and figures are every paper's,
    their ids prefixed with the paper (`liu.fig6.gain.mobile.4`)."""
    def items(r):
        return [dict(i, id=f"{r['paper']}.{i['id']}") for i in r["items"]]

    def figures(r):
        return [dict(f, id=f"{r['paper']}.{f['id']}", items=[f"{r['paper']}.{i}" for i in f["items"]]) for f in r["figures"]]

    return {
        "paper": "all", "title": "All papers: " + "; ".join(r["title"] for r in reports),
        "items": [i for r in reports for i in items(r)],
        "figures": [f for r in reports for f in figures(r)],
        "wall_s": round(wall_s, 2),
    }
