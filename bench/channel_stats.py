"""Benchmark: `cdmasim channel stats` on a 24-hour trace (51.84 million
slots) against a straightforward numpy implementation of the same
statistics (one bincount pass per depth and per lag), in the same run.

    python bench/channel_stats.py [--preset stationary|mobile] [--slots N] [--skip-numpy]

Makes the trace with `cdmasim channel generate PRESET --drc-only` into a
temporary directory (binary, 1 byte per slot: 52 MB), then times
  (a) the CLI, `cdmasim channel stats FILE --json` (whole trace + 24 hourly
      windows, depths 1-4, lags 1-200), wall clock including start-up;
  (b) cdmasim.channel.reference_stats on the same slots, whole trace only;
and prints both, the ratio, and a check that the two agree.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def cli(*args):
    return [sys.executable, "-m", "cdmasim.cli", *map(str, args)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--preset", default="stationary")
    ap.add_argument("--slots", type=int, default=24 * 3600 * 600)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--skip-numpy", action="store_true")
    a = ap.parse_args()
    import numpy as np

    from cdmasim import channel

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "day.drc")
        t0 = time.perf_counter()
        subprocess.run(cli("channel", "generate", a.preset, "--slots", a.slots, "--seed", a.seed, "--out", path,
                           "--drc-only"), check=True, stdout=subprocess.DEVNULL)
        gen = time.perf_counter() - t0
        size = os.path.getsize(path)
        print(f"trace: {a.preset}, {a.slots} slots, {size / 1e6:.1f} MB, generated in {gen:.1f} s")
        # warm the page cache, as a second run would be
        with open(path, "rb") as fh:
            while fh.read(1 << 24):
                pass
        best, best_cpu = None, None
        for _ in range(3):
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            out = subprocess.run(cli("channel", "stats", path, "--json"), check=True, capture_output=True, text=True).stdout
            dt = time.perf_counter() - t0
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
            best = dt if best is None else min(best, dt)
            best_cpu = cpu if best_cpu is None else min(best_cpu, cpu)
        ours = json.loads(out)[path]
        print(f"cdmasim channel stats (CLI, whole + {len(ours['windows'])} hourly windows): {best:.2f} s wall, "
              f"{best_cpu:.2f} s CPU (best of 3, Python start-up included)")
        if a.skip_numpy:
            return
        x = channel.read(path)["drc"]
        t0, c0 = time.perf_counter(), time.process_time()
        ref = channel.reference_stats(x, max_order=4, max_lag=200)
        ref_t, ref_cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"numpy reference (whole trace only): {ref_t:.1f} s wall, {ref_cpu:.1f} s CPU")
        print(f"ratio numpy / cdmasim: {ref_t / best:.0f}x wall, {ref_cpu / best_cpu:.0f}x CPU")
        w = ours["whole"]
        err = max(
            float(np.max(np.abs(np.array(w["lag_entropy"]) - np.array(ref["lag_entropy"])))),
            float(np.max(np.abs(np.array(w["cond_entropy"]) - np.array(ref["cond_entropy"])))),
            abs(w["entropy_bits"] - ref["entropy_bits"]),
            abs(w["mean_bps"] - ref["mean_bps"]) / ref["mean_bps"],
        )
        print(f"largest difference between the two: {err:.2e}")
        print(f"whole trace: mean {w['mean_bps'] / 1e3:.0f} kb/s, std {w['std_bps'] / 1e3:.0f} kb/s, modal "
              f"{w['modal_fraction']:.3f}, H {w['entropy_bits']:.3f} bits, sojourn {w['mean_sojourn_slots']:.1f} slots, "
              f"H(n=1..4) {[round(v, 4) for v in w['cond_entropy']]}, H(lag 100) {w['lag_entropy'][99]:.3f}")


if __name__ == "__main__":
    main()
