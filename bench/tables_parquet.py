"""CPU a sweep worker spends turning one run's results into the store's
Parquet files (`sweeps._tables_as_parquet`), on one Table II run (the
220-s, 100-mobile cdma2000 cell): the per-run cost besides the engine.

    python bench/tables_parquet.py                 # this checkout's Python
    PYTHONPATH=OTHER/python python bench/tables_parquet.py --label other

Run two builds alternately for a same-run comparison; CPU time (not wall
time) of blocks of --runs conversions, each block's mean per run.
"""

import argparse
import time


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--blocks", type=int, default=5, help="blocks timed (default 5)")
    p.add_argument("--runs", type=int, default=20, help="conversions per block (default 20)")
    p.add_argument("--label", default="this build", help="name printed with the figures")
    args = p.parse_args()

    from cdmasim import sweeps
    from cdmasim.reproduce.paliwal_cell import TABLE2_S, cell_doc
    from cdmasim.simulate import run

    result = run(cell_doc(TABLE2_S, {"kind": "bursts", "burst": "2s", "gap": "3s", "rate": "16x"}), seed=1)
    key = "0" * 32
    sweeps._tables_as_parquet(result, key)  # imports and one-time caches outside the timing
    per_run = []
    for _ in range(args.blocks):
        t0 = time.process_time()
        for _ in range(args.runs):
            sweeps._tables_as_parquet(result, key)
        per_run.append((time.process_time() - t0) / args.runs * 1e3)
    print(f"{args.label}: a Table II run's tables as Parquet, ms of CPU per run: "
          + " ".join(f"{x:.1f}" for x in per_run))


if __name__ == "__main__":
    main()
