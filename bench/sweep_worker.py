"""CPU a sweep worker spends on each run of `cdmasim reproduce`'s plans,
split into the engine (`_core.run_scenario`) and the rest (the summary's
JSON, the tables as Parquet, the run's temporary files): the per-run
overhead in Python, paper by paper.

    python bench/sweep_worker.py                    # --quick plans, every run
    python bench/sweep_worker.py --full --sample 300
    PYTHONPATH=OTHER/python python bench/sweep_worker.py --label other

Each run is `sweeps.execute`, as a worker calls it, in this process; CPU
time (not wall time), so the load of the machine moves it little. Run two
builds one after the other for a comparison (the same sample: --seed).
"""

import argparse
import collections
import inspect
import random
import time


def plan_runs(quick):
    """(paper, key, scenario, seed, pcap) of every distinct run of every
    paper's plan, as `reproduce all` runs them."""
    import tempfile

    from cdmasim import reproduce
    from cdmasim.sweeps import Plan

    runs = []
    with tempfile.TemporaryDirectory(prefix="cdmasim-bench-") as out:    # the papers' folders planning makes
        for paper, specs in reproduce.plans(list(reproduce.PAPERS), out, quick=quick):
            for spec in specs:
                spec, pcap = spec if isinstance(spec, tuple) else (spec, False)
                plan = Plan(spec, pcap)
                for key, point, seed, scenario in plan.unique.values():
                    runs.append((paper, key, scenario, seed, pcap, plan.spec.name, point))
    return runs


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--full", action="store_true", help="the full plans (default: --quick's)")
    p.add_argument("--sample", type=int, default=0, help="runs drawn at random (default 0: every run)")
    p.add_argument("--seed", type=int, default=1, help="the sample's seed (default 1)")
    p.add_argument("--label", default="this build", help="name printed with the figures")
    args = p.parse_args()

    from cdmasim import _core, simulate
    from cdmasim.sweeps import execute

    runs = plan_runs(quick=not args.full)
    if "point" not in inspect.signature(execute).parameters:
        runs = [r[:5] for r in runs]   # a build whose main process made point.parquet
    if args.sample:
        runs = random.Random(args.seed).sample(runs, min(args.sample, len(runs)))
    engine = [0.0]
    core_run = _core.run_scenario

    def timed(*a, **k):
        t0 = time.process_time()
        try:
            return core_run(*a, **k)
        finally:
            engine[0] += time.process_time() - t0

    simulate.core.run_scenario = timed
    execute(*runs[0][1:])  # imports and one-time caches outside the timing
    per = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for paper, *call in runs:
        engine[0] = 0.0
        t0 = time.process_time()
        status, error, _, _ = execute(*call)
        if status != "done":
            raise SystemExit(f"{paper}: a run failed: {error}")
        row = per[paper]
        row[0] += 1
        row[1] += time.process_time() - t0
        row[2] += engine[0]
    print(f"{args.label}: {'full' if args.full else 'quick'} plans, {len(runs)} runs, ms of CPU per run")
    print(f"{'paper':8s} {'runs':>5s} {'total':>8s} {'engine':>8s} {'rest':>8s}")
    for paper, (n, total, eng) in per.items():
        print(f"{paper:8s} {n:5d} {total / n * 1e3:8.1f} {eng / n * 1e3:8.1f} {(total - eng) / n * 1e3:8.1f}")
    n, total, eng = (sum(r[i] for r in per.values()) for i in range(3))
    print(f"{'all':8s} {n:5d} {total:7.2f}s {eng:7.2f}s {total - eng:7.2f}s")


if __name__ == "__main__":
    main()
