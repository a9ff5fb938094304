#!/usr/bin/env python3
"""Benchmark: peak memory of `cdmasim run --out` against simulated time, with
series sampled. The 100-mobile cdma2000 cell example
(examples/cdma2000_cell.toml, 100 ms samples: about 3,400 series rows per
simulated second) is run for longer and longer durations; since the series
stream to a spool file during the run and are written to series.parquet
one series at a time, the peak should stay flat.

    python bench/series_memory.py [--example cdma2000_cell] [--durations 100,400,1600,3600] [--sample 100ms]

Each run is one `cdmasim run FILE --out DIR --quiet` process, measured by a
small parent with wait4 (peak RSS of that process alone). Standard library
only (plus cdmasim's CLI on PATH or in the venv).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MEASURE = ("import os, subprocess, sys, time\n"
           "t = time.perf_counter()\n"
           "p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
           "_, status, u = os.wait4(p.pid, 0)\n"
           "print(os.waitstatus_to_exitcode(status), time.perf_counter() - t, u.ru_maxrss)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--durations", default="100,400,1600,3600", help="simulated seconds, comma-separated")
    ap.add_argument("--sample", default="100ms", help="sample_interval of the runs")
    ap.add_argument("--example", default="cdma2000_cell", help="an example scenario (examples/NAME.toml)")
    a = ap.parse_args()
    base = (ROOT / "examples" / f"{a.example}.toml").read_text()
    base = re.sub(r'sample_interval = "[^"]*"', f'sample_interval = "{a.sample}"', base)
    with tempfile.TemporaryDirectory(prefix="series-memory-") as d:
        print(f"{'simulated s':>12} {'wall s':>8} {'peak RSS MB':>12} {'series rows':>12} {'series.parquet MB':>18}")
        for dur in [int(x) for x in a.durations.split(",")]:
            scen = Path(d) / f"{a.example}_{dur}.toml"
            scen.write_text(re.sub(r'duration = "[^"]*"', f'duration = "{dur}s"', base, count=1))
            out = Path(d) / f"out_{dur}"
            cmd = [sys.executable, "-c", MEASURE, sys.executable, "-m", "cdmasim.cli", "run", str(scen), "--out",
                   str(out), "--quiet"]
            code, wall, peak = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split()
            if int(code):
                sys.exit(f"cdmasim run failed for {dur} s (exit {code})")
            import pyarrow.parquet as pq

            rows = pq.ParquetFile(out / "series.parquet").metadata.num_rows
            size = (out / "series.parquet").stat().st_size / 1e6
            print(f"{dur:>12} {float(wall):>8.1f} {int(peak) / 1024:>12.0f} {rows:>12,} {size:>18.1f}")
            shutil.rmtree(out)


if __name__ == "__main__":
    main()
