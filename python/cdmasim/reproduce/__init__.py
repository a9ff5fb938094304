"""`cdmasim reproduce`: run a paper's experiments and set every published
number beside the measured one.

One module per paper (liu, lee, paliwal, jung, dziong). Each defines TITLE,
CITATION, PENDING (claims not modelled, in words), `plan(ctx)`
(every sweep the paper runs, so that they run together on every core) and
`reproduce(ctx)`, which reads the sweeps back through `ctx.sweep` (from the
store), adds items with `ctx.item` and figures with `ctx.figure`. Item ids
are stable names `figure.quantity[.case]` and never change meaning;
alternative ids are kept as aliases.

Every item says what the paper's number is to the model (`basis`:
prediction, calibration or input; items.py) and comes from at least 5
seeds (3 with --quick), unless the experiment draws no random number or
the paper's statistic pools all runs. Only predictions count as
agreement; each figure also says how many of its predictions a trivial
answer (zeros, the paper's mean, the input unchanged) would pass.
"""

import importlib
import json
import os
import threading
import time

from .._files import write_file
from ..errors import InputError
from ..progress import Tally
from ..store import Store, load_runs
from ..sweeps import sweep_many
from ..workers import Slots, WorkerPool, call
from . import figures
from .calls import CallCache
from .items import Item, Tolerance, null_score
from .ns2 import Ns2, Recorded
from .why import explain

PAPERS = ("liu", "lee", "paliwal", "jung", "dziong")
COUNTED = ("agrees", "differs", "inconclusive", "not modelled", "no published value", "by construction")
#: Runs to do and done over every sweep reproduce runs in this process
#: (what `cdmasim reproduce`'s status line shows).
TALLY = Tally()


class Context:
    """What a paper module gets: where to write, how hard to try (seeds,
    durations), the runners for its experiments, and the collectors for its
    items and figures."""

    def __init__(self, paper, out, quick=False, jobs=None, pcaps=None, dask=None, pool=None, ns2=None,
                 sensitivity=False, drawing=None):
        self.paper, self.out, self.quick, self.jobs = paper, out, quick, jobs
        #: Whether the paper's numbers were measured or simulated (an item may say otherwise).
        self.origin = getattr(_module(paper), "ORIGIN", "measurement") if paper in PAPERS else "measurement"
        #: paliwal --sensitivity: Table II under each unstated setting (paliwal_sensitivity.py).
        self.sensitivity = sensitivity
        #: An ns2.Ns2 runner when ns-2 should run beside cdmasim (paliwal --ns2), else None.
        self.ns2 = ns2
        self.dask, self.pool = dask, pool
        #: A figures.FigureWriter drawing the figures in the background, or None: drawn here.
        self.drawing = drawing
        self.pcaps = list(pcaps or [])
        self.store = os.path.join(out, "store")
        #: The results of `compute`'s calls, kept in OUT/calls.
        self.calls = CallCache(out)
        self.dir = os.path.join(out, paper)
        os.makedirs(self.dir, exist_ok=True)
        #: Seeds per experiment: every figure's items come from at least these many.
        self.min_seeds = 3 if quick else 5
        self.seeds = list(range(1, self.min_seeds + 1))
        self.items, self.figures, self.notes = [], [], []
        self._by_id, self._sources, self._aliases = {}, {}, {}
        #: Reports of the sweeps `prefetch` ran, by spec: `sweep` reads them back without planning again.
        self._done = {}
        #: The Ahead running every paper's plan (`reproduce all`), or None.
        self.ahead = None

    # -- experiments -------------------------------------------------------

    def prefetch(self, specs):
        """Run sweeps together (their runs share the workers); `specs` are
        sweep dicts or (sweep dict, pcap) pairs. Later `sweep` calls of the
        same specs read the store."""
        specs = list(specs)
        if specs:
            reports = sweep_many(specs, self.store, jobs=self.jobs, dask=self.dask, pool=self.pool, tally=TALLY)
            for spec, report in zip(specs, reports):
                self._done[_spec_key(spec)] = report

    def sweep(self, spec, pcap=False, figures=None):
        """Run a sweep spec (dict) into the shared store (or find it there);
        returns one row per run of it (as load_sweep; `figures`: only those
        tables' figures, as store.load_runs) and the store."""
        report = self._done.get(_spec_key((spec, pcap)) if pcap else _spec_key(spec))
        if report is None:       # not in the plan: run it now
            if self.ahead is not None:
                self.ahead.wait_all()    # one writer of the store at a time
            report = sweep_many([(spec, pcap)], self.store, jobs=self.jobs, dask=self.dask, pool=self.pool,
                                repair=False, tally=TALLY)[0]
        df = load_runs(self.store, report["runs"], figures)
        failed = df[df.status != "done"]
        if len(failed):
            raise RuntimeError(f"{self.paper}: {len(failed)} run(s) of {report['sweep']} failed: {failed.error.iloc[0]}")
        return df, Store(self.store, mode="r")

    def compute(self, target, arglist):
        """Call `target` ("module:function") once per argument tuple on the
        workers (in this process with a Dask cluster); results in order.
        Calls the paper declared in `tasks(ctx)` come from the Ahead that
        ran them, if there is one; calls computed before, from OUT/calls
        (`calls.CallCache`), where what is computed here is kept."""
        arglist = [tuple(a) for a in arglist]
        ready = self.ahead.computed(self.paper) if self.ahead is not None else {}
        out = {a: ready[(target, a)] for a in arglist if (target, a) in ready}
        found, todo = self.calls.take([(target, a) for a in arglist if a not in out])
        out.update((a, outcome) for (_, a), outcome in found.items())
        missing = [a for _, a in todo]
        if self.pool is None:
            out.update((a, ("ok", call(target, a))) for a in missing)
        elif missing:
            out.update((args, outcome) for (_, args), outcome in self.pool.map_unordered([(target, a) for a in missing]))
        for a in missing:
            self.calls.keep((target, a), out[a])
        for a in arglist:
            kind, value = out[a]
            if kind != "ok":
                raise RuntimeError(f"{self.paper}: {target}{a}: {value}")
        return [out[a][1] for a in arglist]

    # -- items and figures ---------------------------------------------------

    def item(self, id, what, unit, samples=None, published=None, tolerance=None, basis="prediction",
             basis_note="", source="", aliases=(), pooled=None, deterministic=False, not_modelled=None, also=(),
             null_input=None, measured=None, ns2=None, origin=None, by_construction=None, no_effect=None):
        """Add an item (items.Item). `samples`: one value per seed (at least
        `min_seeds` of them unless `pooled` (runs pooled into one value) or
        `deterministic` (the experiment draws no random number));
        `measured`: a single value, for pooled or deterministic items;
        `ns2`: ns-2's values for the same configuration and seeds; `origin`:
        the paper module's ORIGIN unless given."""
        if measured is not None:
            samples = [measured]
        if id in self._by_id or id in self._aliases:
            raise ValueError(f"{self.paper}: item {id} is added twice (or is another item's alias)")
        n = len(samples or [])
        if not_modelled is None and n < self.min_seeds and pooled is None and not deterministic:
            raise ValueError(f"{self.paper}: {id}: {n} seed(s); every item comes from at least {self.min_seeds}")
        it = Item(id, what, unit, samples, published, tolerance, basis, basis_note, source, aliases=aliases,
                  pooled=pooled, not_modelled=not_modelled, also=also, null_input=null_input, ns2=ns2,
                  origin=origin or self.origin, by_construction=by_construction, no_effect=no_effect)
        it.deterministic = deterministic
        if published is not None:
            # One claim of the paper, one scored item.
            key = " ".join(source.split()).lower()
            if key in self._sources:
                raise ValueError(f"{self.paper}: {id} scores the claim {self._sources[key]} already scores: {source}")
            self._sources[key] = id
        for a, scale in it.aliases:
            if a in self._by_id or a in self._aliases:
                raise ValueError(f"{self.paper}: alias {a} of {id} is already taken")
            self._aliases[a] = {"id": id, "scale": scale}
        self._by_id[id] = it
        self.items.append(it)
        return it

    def not_modelled(self, id, what, unit, why, published=None, tolerance=None, source="", aliases=()):
        """A claim the model cannot produce yet: the item exists, says why,
        and counts as `not modelled`."""
        return self.item(id, what, unit, published=published, tolerance=tolerance, source=source,
                         aliases=aliases, not_modelled=why)

    def figure(self, id, title, fig, items=()):
        """Save a matplotlib figure as PNG; `items` are the item ids it
        shows. Its score: predictions that agree, against what the null
        model passes."""
        import matplotlib.pyplot as plt

        name = f"{id}.png"
        if self.drawing is not None:
            self.drawing.write(fig, os.path.join(self.dir, name))
        else:
            figures.save(fig, os.path.join(self.dir, name))
            plt.close(fig)
        shown = [self._by_id[i] for i in items if i in self._by_id]
        self.figures.append({"id": id, "title": title, "file": f"{self.paper}/{name}", "items": list(items),
                             "score": figure_score(shown)})

    def note(self, text):
        self.notes.append(text)


class _Stage:
    """A thread doing `work(item)` for each (paper, item) in turn: a
    paper's result once it is done (`get` waits for it), or the error that
    ended the thread. Nothing is kept once `stop` is set."""

    def __init__(self, name, items, work, stop):
        self.items, self.work, self.stop = items, work, stop
        self.results, self.error = {}, None
        self.ready = {paper: threading.Event() for paper, _ in items}
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.thread.start()

    def _run(self):
        try:
            for paper, item in self.items:
                if self.stop.is_set():
                    return
                result = self.work(item)
                if self.stop.is_set():
                    return
                self.results[paper] = result
                self.ready[paper].set()
        except BaseException as e:  # noqa: BLE001 - handed to the main thread, which raises it
            if not self.stop.is_set():      # a worker killed by the stop is no error
                self.error = e
        finally:
            for event in self.ready.values():
                event.set()

    def get(self, paper, what, name_the_paper=False):
        """`paper`'s result, once done, whatever a later paper's work met;
        else the thread's error (in a RuntimeError naming the paper, if
        asked) or RuntimeError("PAPER: its WHAT were stopped")."""
        self.ready[paper].wait()
        if paper in self.results:
            return self.results[paper]
        if self.error is not None and name_the_paper:
            raise RuntimeError(f"{paper}: its {what} could not run: {self.error}") from self.error
        if self.error is not None:
            raise self.error
        raise RuntimeError(f"{paper}: its {what} were stopped")


class Ahead:
    """`reproduce all` keeps every core busy: a thread runs each paper's
    planned sweeps, paper after paper, on a worker pool of its own, while
    the main thread analyses and plots the papers whose sweeps are done.
    Run one after the other, a paper's analysis leaves the workers idle and
    the next paper's sweeps wait for it.

    `tasks`: (paper, [(target, args), ...]) for the papers whose module
    declares the calls its analysis makes (`tasks(ctx)`, liu's day-long
    channel traces). A second thread runs them from the start on a third
    pool, so that the longest work does not wait for its paper's turn
    (on one worker fewer than `jobs`, so that the sweeps of the papers
    analysed first never wait for them);
    `Context.compute` takes their results (`computed`). `kept`: the
    calls.CallCache (OUT/calls) the calls are taken from when computed
    before, and kept in when computed here.

    The sweep thread is the store's only writer while it runs: a sweep
    outside the plans waits for it (`wait_all`). `close` stops both threads
    at their next result, recording nothing more (a run cut short runs
    again next time)."""

    def __init__(self, plans, store, jobs, tasks=(), kept=None):
        self.store, self.kept = store, kept
        tasks = [(p, list(c)) for p, c in tasks if c]
        self._stop = threading.Event()
        # The two pools share one slot per job: no more workers busy at
        # once than the user asked for (workers.Slots).
        self.slots = Slots(jobs) if tasks else None
        self.pool = WorkerPool(jobs, slots=self.slots)
        # The tasks leave a slot to the sweeps (with two jobs or more): the
        # papers analysed first wait for their sweeps, not for liu's
        # traces, which only its analysis, the last, takes.
        self.task_pool = WorkerPool(max(1, jobs - 1), slots=self.slots) if tasks else None
        self.calls = _Stage("cdmasim-reproduce-tasks", tasks, self._calls, self._stop) if tasks else None
        self.sweeps = _Stage("cdmasim-reproduce-ahead", plans, self._sweeps, self._stop)
        self.thread = self.sweeps.thread
        self.task_thread = self.calls.thread if self.calls else None

    def _sweeps(self, specs):
        reports = sweep_many(specs, self.store, pool=self.pool, stop=self._stop, tally=TALLY) if specs else []
        return {_spec_key(s): r for s, r in zip(specs, reports)}

    def _calls(self, calls):
        got, todo = self.kept.take(calls) if self.kept is not None else ({}, calls)
        for task, outcome in self.task_pool.map_unordered(todo):
            if self._stop.is_set():
                break
            got[task] = outcome
            if self.kept is not None:
                self.kept.keep(task, outcome)
        return got

    def computed(self, paper):
        """{(target, args): (kind, value)} of `paper`'s declared tasks, once
        they are done ({} for a paper that declares none)."""
        if self.calls is None or paper not in self.calls.ready:
            return {}
        return self.calls.get(paper, "tasks", name_the_paper=True)

    def wait(self, paper):
        """The reports of `paper`'s planned sweeps, by spec key, once they are done."""
        return self.sweeps.get(paper, "sweeps")

    def wait_all(self):
        self.thread.join()
        if self.sweeps.error is not None:
            raise self.sweeps.error

    def close(self):
        """Stop both threads at their next result (the runs and calls in
        progress are killed, and so is a worker started after the stop) and
        wait for them, a minute at most in all; then the pools go."""
        self._stop.set()
        pools = [p for p in (self.pool, self.task_pool) if p is not None]
        threads = [t for t in (self.thread, self.task_thread) if t is not None]
        deadline = time.monotonic() + 60
        while True:
            for pool in pools:
                for w in list(pool.workers):
                    w.proc.kill()
            alive = [t for t in threads if t.is_alive()]
            if not alive or time.monotonic() > deadline:
                break
            alive[0].join(timeout=0.1)
        for pool in pools:
            pool.close()
        # A thread past the deadline may still give a slot back: its pipe
        # is then left open rather than closed under it.
        if self.slots is not None and not any(t.is_alive() for t in threads):
            self.slots.close()


def plans(papers, out, quick=False, jobs=None, pcaps=None, sensitivity=False):
    """(paper, its planned sweep specs) for each paper, as `run` plans them."""
    out_plans = []
    for paper in papers:
        ctx = Context(paper, out, quick=quick, jobs=jobs, pcaps=pcaps if paper == "lee" else None,
                      sensitivity=sensitivity and paper == "paliwal")
        out_plans.append((paper, list(_module(paper).plan(ctx))))
    return out_plans


def tasks(papers, out, quick=False):
    """(paper, its declared calls) for each paper whose module declares
    the calls its analysis makes (`tasks(ctx)`), in `papers`' order."""
    out_tasks = []
    for paper in papers:
        mod = _module(paper)
        if hasattr(mod, "tasks"):
            out_tasks.append((paper, [(target, tuple(a)) for target, args in mod.tasks(Context(paper, out, quick=quick))
                                      for a in args]))
    return out_tasks


def analysis_order(papers):
    """The order `reproduce all` analyses papers in: those that declare
    tasks last, so their tasks run (from the start) while the others are
    analysed."""
    declares = [hasattr(_module(p), "tasks") for p in papers]
    return [p for p, d in zip(papers, declares) if not d] + [p for p, d in zip(papers, declares) if d]


def _spec_key(spec):
    """A sweep spec (or (spec, pcap)) as the text that identifies it."""
    if isinstance(spec, tuple):
        spec, pcap = spec
        return json.dumps([spec, bool(pcap)], sort_keys=True, default=str)
    return json.dumps([spec, False], sort_keys=True, default=str)


def figure_score(items):
    """{'predictions': judged predictions, 'agree': of them agreeing, 'null':
    the best trivial answer's count and name, 'uninformative': cdmasim
    agrees on some and the null model scores as well}."""
    judged = [it for it in items if it.judged]
    agree = sum(it.verdict == "agrees" for it in judged)
    null = null_score(items)
    return {"predictions": len(judged), "agree": agree, "null": null["passes"], "null_answer": null["answer"],
            "uninformative": agree > 0 and null["passes"] >= agree}


def summary(items, figures):
    """The report's first table, per paper: predictions by verdict,
    calibration targets and inputs apart, and the null model's score over
    the paper's predictions (the best of its trivial answers)."""
    preds = [it for it in items if it.basis == "prediction"]
    out = {"predictions": {v: sum(it.verdict == v for it in preds) for v in COUNTED},
           "calibration": sum(it.basis == "calibration" for it in items),
           "input": sum(it.basis == "input" for it in items)}
    out["predictions"]["total"] = len(preds)
    # Judged: compared with a published number (the count agreement is "of").
    out["predictions"]["judged"] = sum(out["predictions"][v] for v in ("agrees", "differs", "inconclusive"))
    null = null_score(items)
    out["null"] = {"passes": null["passes"], "of": null["of"], "answer": null["answer"]}
    out["uninformative_figures"] = [f["id"] for f in figures if f["score"]["uninformative"]]
    # The headline: agreements outside the figures the null model scores as
    # well on (those tell nothing), of every judged prediction.
    told_nothing = {i for f in figures if f["score"]["uninformative"] for i in f["items"]}
    out["headline"] = {"agree": sum(it.verdict == "agrees" and it.id not in told_nothing for it in preds),
                       "judged": out["predictions"]["judged"]}
    checks = [it for it in items if it.basis == "model check" and it.target is not None]
    out["model_check"] = {"total": len(checks), "hit": sum(it.target == "hit" for it in checks)}
    # Findings among what is not counted: a calibration or input the model
    # misses, and a prediction by construction that fails (a bug).
    out["targets_missed"] = [it.id for it in items if it.basis != "model check" and it.target == "missed"]
    return out


def _module(paper):
    if paper not in PAPERS:
        raise InputError(f"unknown paper '{paper}' (expected one of: {', '.join(PAPERS)}, all)")
    return importlib.import_module(f"cdmasim.reproduce.{paper}")


def run(paper, out="reproduce-out", quick=False, jobs=None, pcaps=None, dask=None, pool=None, ns2=False,
        sensitivity=False, ahead=None, drawing=None):
    """Reproduce one paper; returns its report dict (the --json shape plus
    'citation', 'pending', 'notes' and 'quick', which the HTML report
    shows). Also writes OUT/PAPER/report.json. dask: a scheduler address
    (or 'local') for the sweeps; pool: a cdmasim.workers.WorkerPool to
    share between papers (one is started, and stopped at the end,
    otherwise). ns2: run paliwal's configurations in ns-2.35 too (cached
    in OUT/ns2); without it, ns-2's values come from the package's record
    (ns2.RECORD) where it holds them. sensitivity: paliwal's Table II under each setting the
    paper leaves unstated (20 grids of 169 cells, about 20 min on 2 cores).
    ahead: an Ahead already running this paper's planned sweeps.
    drawing: a figures.FigureWriter to hand the figures to, and the
    report.json, written once they are (the caller waits for it); without
    one, one is started here, and both are written when this returns."""
    mod = _module(paper)
    t0 = time.perf_counter()
    own = pool is None and dask is None
    if own:
        pool = WorkerPool(jobs or os.cpu_count() or 1)
    own_drawing = drawing is None
    if own_drawing:
        drawing = figures.FigureWriter()
    try:
        try:
            runner = None
            if paper == "paliwal":
                runner = Ns2(os.path.join(out, "ns2"), jobs) if ns2 else Recorded.load()
            recorded = runner is not None and not ns2
            ctx = Context(paper, out, quick=quick, jobs=jobs, pcaps=pcaps, dask=dask, pool=pool, ns2=runner,
                          sensitivity=sensitivity and paper == "paliwal", drawing=drawing)
            if recorded:
                ctx.note("ns-2.35's values beside the items are the package's record of the project's ns-2 script "
                         "(cdmasim/reproduce/paliwal_ns2_record.json.gz, made by `cdmasim reproduce paliwal --ns2` and "
                         "`python -m cdmasim.reproduce.ns2 record`); --ns2 runs ns-2 again. A configuration the record "
                         "does not hold shows no ns-2 value.")
            if ahead is not None:
                ctx.ahead = ahead
                ctx._done.update(ahead.wait(paper))
            else:
                ctx.prefetch(mod.plan(ctx))
            mod.reproduce(ctx)
        finally:
            if own:
                pool.close()

        for it in ctx.items:
            it.why = explain(paper, it)
        items = [it.as_dict() for it in ctx.items]
        report = {
            "paper": paper, "title": mod.TITLE, "items": items, "figures": ctx.figures,
            "wall_s": round(time.perf_counter() - t0, 2),
            "summary": summary(ctx.items, ctx.figures),
            "aliases": dict(ctx._aliases),
            "citation": mod.CITATION, "pending": list(mod.PENDING), "notes": ctx.notes, "quick": quick,
        }

        def dump(tmp):
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(report, f, indent=1)

        # After its figures: report.html, made from every report.json, links them.
        drawing.then(lambda: write_file(os.path.join(ctx.dir, "report.json"), dump))
        if own_drawing:
            drawing.wait()
    finally:
        if own_drawing:
            drawing.close()
    return report


def public(report):
    """The --json shape: paper, title, items, figures, wall_s, summary, aliases."""
    return {k: report[k] for k in ("paper", "title", "items", "figures", "wall_s", "summary", "aliases")}


__all__ = ["PAPERS", "Ahead", "CallCache", "Context", "analysis_order", "plans", "tasks", "Item", "Tolerance", "run",
           "public", "summary", "figure_score"]
