"""What committing a run to a result store costs, with equal small files
shared (hard links, the store's default) and with every file a copy of its
own, in the same run: the files of runs an earlier sweep wrote are
committed again into fresh stores, alternately one way and the other.

    cdmasim reproduce all --quick --out /tmp/rq --quiet
    python bench/store_commit.py /tmp/rq/store --runs 300 --rounds 3

Wall time counts the fsyncs, which dominate; CPU time is the process's.
Each round's stores are made beside the source store (the same file
system) and removed after it.
"""

import argparse
import os
import shutil
import tempfile
import time


def read_runs(store, n):
    """(key, {name: bytes}) of the first `n` run folders of `store`."""
    root = os.path.join(store, "runs")
    runs = []
    for key in sorted(os.listdir(root))[:n]:
        files = {}
        for dirpath, _, names in os.walk(os.path.join(root, key)):
            for name in names:
                path = os.path.join(dirpath, name)
                with open(path, "rb") as f:
                    files[os.path.relpath(path, os.path.join(root, key))] = f.read()
        runs.append((key, files))
    return runs


def commit_all(runs, path, shared):
    from cdmasim import store

    limit = store.SHARED_FILES
    store.SHARED_FILES = limit if shared else 0
    try:
        with store.Store(path) as st:
            cpu, wall = time.process_time(), time.perf_counter()
            for key, files in runs:
                st.commit(key, "bench", {}, 1, "done", None, files, 0.0)
            return time.process_time() - cpu, time.perf_counter() - wall
    finally:
        store.SHARED_FILES = limit


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store", help="a result store to take the runs' files from")
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    runs = read_runs(a.store, a.runs)
    n_files = sum(len(f) for _, f in runs)
    print(f"{len(runs)} runs, {n_files} files, {sum(len(b) for _, f in runs for b in f.values()) / 1e6:.1f} MB")
    parent = os.path.dirname(os.path.abspath(a.store))
    for r in range(a.rounds):
        for shared in (True, False):
            scratch = tempfile.mkdtemp(prefix="cdmasim-bench-store-", dir=parent)
            try:
                cpu, wall = commit_all(runs, os.path.join(scratch, "st"), shared)
                linked = sum(1 for dirpath, _, names in os.walk(scratch) for name in names
                             if os.stat(os.path.join(dirpath, name)).st_nlink > 1)
            finally:
                shutil.rmtree(scratch)
            print(f"round {r + 1} {'shared' if shared else 'copies'}: {wall / len(runs) * 1e3:.2f} ms wall, "
                  f"{cpu / len(runs) * 1e3:.2f} ms CPU a run; {linked} of {n_files} files share an inode")


if __name__ == "__main__":
    main()
