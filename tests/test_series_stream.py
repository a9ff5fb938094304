"""Series and drops stream during a run and are written in pieces: a run's memory does not follow its simulated time or its sampling
interval, and what a reader gets back is what the in-memory tables were."""

import io
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import cdmasim
from cdmasim.sweeps import _tables_as_parquet

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


@pytest.mark.parametrize("name", ["cdma2000_switch", "dumbbell", "web_browsing"])
def test_tables_written_in_pieces_read_back_as_the_dataframes(tmp_path, name):
    r = cdmasim.run(EXAMPLES / f"{name}.toml")
    r.to_dir(tmp_path)
    stored = _tables_as_parquet(r, "k")
    for table in ("series", "drops"):
        df = getattr(r, table)
        # What DataFrame.to_parquet of the whole table reads back as.
        buf = io.BytesIO()
        df.to_parquet(buf, index=False, engine="pyarrow")
        want = pd.read_parquet(io.BytesIO(buf.getvalue()))
        assert pd.read_parquet(tmp_path / f"{table}.parquet").equals(want), table
        keyed = df.copy()
        keyed.insert(0, "run", "k")
        buf = io.BytesIO()
        keyed.to_parquet(buf, index=False, engine="pyarrow")
        assert pd.read_parquet(io.BytesIO(stored[f"{table}.parquet"])).equals(pd.read_parquet(io.BytesIO(buf.getvalue())))
    if name == "dumbbell":
        assert len(r.series) > 30_000 and len(r.drops) > 100


def _peak_mb(tmp_path, seconds):
    """Peak RSS of `cdmasim run --out` on the 10-flow dumbbell sampled every
    millisecond for `seconds`, read with wait4 by a small parent (a child of
    pytest itself would count pytest's pages)."""
    scen = tmp_path / f"db{seconds}.toml"
    scen.write_text((EXAMPLES / "dumbbell.toml").read_text().replace('duration = "60s"', f'duration = "{seconds}s"')
                    .replace('sample_interval = "100ms"', 'sample_interval = "1ms"'))
    measure = ("import os, subprocess, sys\n"
               "p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
               "_, status, u = os.wait4(p.pid, 0)\n"
               "print(os.waitstatus_to_exitcode(status), u.ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", measure, sys.executable, "-m", "cdmasim.cli", "run", str(scen), "--out",
                          str(tmp_path / f"out{seconds}"), "--quiet"], capture_output=True, text=True, check=True)
    code, peak = map(int, out.stdout.split())
    assert code == 0
    rows = len(pd.read_parquet(tmp_path / f"out{seconds}" / "series.parquet", columns=["t_s"]))
    return peak / 1024, rows


def test_memory_does_not_follow_simulated_time(tmp_path):
    """60 s and 300 s of 1 ms samples (3.1 M and 15.6 M series rows): the
    longer run's peak is within 40 MB of the shorter one's (measured: 147
    and 152 MB); holding the extra 12.5 M rows would take over 200 MB in the
    core alone, and several times that as a DataFrame."""
    short, short_rows = _peak_mb(tmp_path, 60)
    long, long_rows = _peak_mb(tmp_path, 300)
    assert long_rows == 5 * short_rows - 4 * 52   # every series sampled at 0 s too
    assert long - short < 40, f"peak {short:.0f} MB at 60 s, {long:.0f} MB at 300 s"
