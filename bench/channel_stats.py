"""Benchmark: `cdmasim channel stats` on a 24-hour trace (51.84 million
slots) against a straightforward numpy implementation of the same
statistics (one bincount pass per depth and per lag), in the same run.

    python bench/channel_stats.py [--preset stationary|mobile] [--slots N] [--drc-only] [--skip-numpy]

Makes the trace with `cdmasim channel generate PRESET` into a temporary
directory (binary: 1 byte of DRC per slot, 52 MB, and 2 of SINR unless
--drc-only, 156 MB in all), then times
  (a) the CLI, `cdmasim channel stats FILE --json` (whole trace + 24 hourly
      windows, depths 1-4, lags 1-200), wall clock including start-up;
  (b) cdmasim.channel.reference_stats on the same slots, whole trace only;
and prints both, the ratio, the CLI's peak resident memory, and a check
that the two agree.
"""

import argparse
import json
import os
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
    ap.add_argument("--drc-only", action="store_true", help="generate the trace without its SINR column")
    a = ap.parse_args()
    import numpy as np

    from cdmasim import channel
    from sims import compile_cdmasim

    compile_cdmasim(sys.executable)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "day.drc")
        t0 = time.perf_counter()
        subprocess.run(cli("channel", "generate", a.preset, "--slots", a.slots, "--seed", a.seed, "--out", path,
                           *(["--drc-only"] if a.drc_only else [])), check=True, stdout=subprocess.DEVNULL)
        gen = time.perf_counter() - t0
        size = os.path.getsize(path)
        print(f"trace: {a.preset}, {a.slots} slots, {size / 1e6:.1f} MB, generated in {gen:.1f} s")
        # warm the page cache, as a second run would be
        with open(path, "rb") as fh:
            while fh.read(1 << 24):
                pass
        best, best_cpu, peak = None, None, 0
        # A small parent runs the CLI and reads its usage with wait4: a child
        # forked from this process would count this process's pages in its peak.
        measure = ("import os, subprocess, sys, time\n"
                   "t = time.perf_counter()\n"
                   "p = subprocess.Popen(sys.argv[2:], stdout=open(sys.argv[1], 'w'))\n"
                   "_, status, u = os.wait4(p.pid, 0)\n"
                   "print(os.waitstatus_to_exitcode(status), time.perf_counter() - t, u.ru_utime + u.ru_stime, u.ru_maxrss)")
        out_path = os.path.join(d, "stats.json")
        for _ in range(3):
            m = subprocess.run([sys.executable, "-c", measure, out_path, *cli("channel", "stats", path, "--json")],
                               check=True, capture_output=True, text=True).stdout.split()
            if int(m[0]):
                sys.exit(f"channel stats failed ({m[0]})")
            dt, cpu = float(m[1]), float(m[2])
            best = dt if best is None else min(best, dt)
            best_cpu = cpu if best_cpu is None else min(best_cpu, cpu)
            peak = max(peak, int(m[3]))
        with open(out_path) as fh:
            out = fh.read()
        ours = json.loads(out)[path]
        print(f"cdmasim channel stats (CLI, whole + {len(ours['windows'])} hourly windows): {best:.2f} s wall, "
              f"{best_cpu:.2f} s CPU (best of 3, Python start-up included), peak RSS {peak / 1024:.0f} MB")
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
