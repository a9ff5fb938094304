"""Sweeps and the result store: path syntax, grid/zip/seeds, the CLI's JSON
line, caching and edited sweeps, failed runs, load_sweep, SQL with DuckDB,
recovery from a SIGKILL, and a Dask LocalCluster against the local pool."""

import json
import os
import pathlib
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

import cdmasim
from cdmasim.result import TABLES
from cdmasim.sweep_spec import SweepError, load, set_path

ROOT = pathlib.Path(__file__).resolve().parent.parent

BASE = """
preset = "dumbbell"
[simulation]
duration = "3s"
seed = 1
[dumbbell]
flows = 2
bottleneck_rate = "2Mbps"
bottleneck_delay = "20ms"
access_rate = "100Mbps"
access_delay = "1ms"
queue = { kind = "droptail", limit = "20pkt" }
[dumbbell.tcp]
cc = "newreno"
"""


def write_sweep(tmp_path, body, name="s.toml", duration="3s"):
    (tmp_path / "base.toml").write_text(BASE.replace('duration = "3s"', f'duration = "{duration}"'))
    p = tmp_path / name
    p.write_text('[sweep]\nscenario = "base.toml"\n' + body)
    return p


def cli(*args, **kw):
    return subprocess.run([sys.executable, "-m", "cdmasim.cli", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, **kw)


def last_json(stdout):
    return json.loads(stdout.strip().splitlines()[-1])


# --- path syntax -----------------------------------------------------------

def doc():
    return {"link": [{"name": "a", "delay": "1ms"}, {"name": "b", "delay": "2ms"}],
            "flow": [{"name": "f", "tcp": {"cc": "reno"}}, {"name": "g", "tcp": {"cc": "reno"}}],
            "simulation": {"duration": "1s"}}


def test_path_reaches_every_element_one_by_index_and_one_by_name():
    d = set_path(doc(), "flow[*].tcp.cc", "cubic")
    assert [f["tcp"]["cc"] for f in d["flow"]] == ["cubic", "cubic"]
    d = set_path(doc(), "flow[1].tcp.cc", "vegas")
    assert [f["tcp"]["cc"] for f in d["flow"]] == ["reno", "vegas"]
    d = set_path(doc(), "link[b].delay", "9ms")
    assert [x["delay"] for x in d["link"]] == ["1ms", "9ms"]
    d = set_path(doc(), "simulation.seed", 7)          # a new last key is allowed
    assert d["simulation"]["seed"] == 7


@pytest.mark.parametrize("path, words", [
    ("flow[c].tcp.cc", "no element named 'c'"),
    ("flow[5].tcp.cc", "has 2 element(s)"),
    ("nothing.x", "does not exist"),
    ("simulation[0].x", "not an array"),
    ("flow[*].tcp", "is a table"),
    ("flow[*].tcp.cc.deeper", "is a value"),
])
def test_bad_paths_say_what_is_missing(path, words):
    with pytest.raises(ValueError, match=None) as e:
        set_path(doc(), path, 1)
    assert words in str(e.value)


def test_grid_times_zip_times_seeds():
    spec = load({"sweep": {"scenario": BASE, "seeds": {"first": 5, "count": 3}},
                 "grid": {"dumbbell.tcp.cc": ["reno", "cubic"], "dumbbell.flows": [1, 2]},
                 "zip": {"dumbbell.bottleneck_rate": ["1Mbps", "2Mbps"], "dumbbell.bottleneck_delay": ["5ms", "9ms"]}})
    runs = spec.runs()
    assert len(runs) == 2 * 2 * 2 * 3
    assert {s for _, s, _ in runs} == {5, 6, 7}
    # zipped values move together
    assert {(d["dumbbell"]["bottleneck_rate"], d["dumbbell"]["bottleneck_delay"]) for _, _, d in runs} == {
        ("1Mbps", "5ms"), ("2Mbps", "9ms")}
    assert spec.swept == ["dumbbell.tcp.cc", "dumbbell.flows", "dumbbell.bottleneck_rate", "dumbbell.bottleneck_delay"]


def test_zip_lists_of_different_lengths_are_refused():
    with pytest.raises(SweepError, match="different lengths"):
        load({"sweep": {"scenario": BASE}, "zip": {"dumbbell.flows": [1, 2], "dumbbell.tcp.cc": ["reno"]}})


# --- the CLI, the store and load_sweep --------------------------------------

def test_sweep_cli_json_cache_edit_and_failed_run(tmp_path):
    body = '[grid]\n"dumbbell.queue.limit" = ["5pkt", "50pkt"]\n"dumbbell.bottleneck_rate" = ["1Mbps", "-1Mbps"]\n'
    sw = write_sweep(tmp_path, body + '[zip]\n"dumbbell.tcp.cc" = ["newreno"]\n')
    store = tmp_path / "store"
    p = cli("sweep", sw, "--store", store, "--jobs", "2", "--json")
    assert p.returncode == 0, p.stderr
    r = last_json(p.stdout)
    # The negative rate fails validation in the run: recorded, the sweep goes on.
    assert (r["runs_total"], r["runs_done"], r["runs_failed"], r["runs_new"]) == (4, 2, 2, 4)
    df = cdmasim.load_sweep(store)
    assert len(df) == 4 and sorted(df.status) == ["done", "done", "failed", "failed"]
    failed = df[df.status == "failed"]
    assert failed["error"].str.contains("negative").all()
    assert set(failed["dumbbell.bottleneck_rate"]) == {"-1Mbps"}
    done = df[df.status == "done"].set_index("dumbbell.queue.limit")
    # swept fields as columns, flow and queue figures beside them
    assert done.loc["50pkt", "flow.flow0.goodput_bps"] > 0
    assert done.loc["5pkt", "queue.r1-r2.max_packets"] <= 5 < done.loc["50pkt", "queue.r1-r2.max_packets"]

    # Same command again: everything comes from the store.
    r2 = last_json(cli("sweep", sw, "--store", store, "--json").stdout)
    assert (r2["runs_new"], r2["runs_cached"], r2["runs_done"]) == (0, 4, 2)

    # An edited sweep runs only its new points.
    sw.write_text(sw.read_text().replace('"50pkt"]', '"50pkt", "100pkt"]'))
    r3 = last_json(cli("sweep", sw, "--store", store, "--json").stdout)
    assert (r3["runs_total"], r3["runs_new"], r3["runs_cached"]) == (6, 2, 4)
    assert len(cdmasim.load_sweep(store)) == 6


def test_python_twin_and_sql_over_the_store_with_duckdb(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    spec = {"sweep": {"name": "cc", "scenario": BASE, "seeds": [1, 2]},
            "grid": {"dumbbell.tcp.cc": ["newreno", "cubic"]}}
    r = cdmasim.sweep(spec, tmp_path / "st", jobs=1)
    assert (r["runs_total"], r["runs_done"]) == (4, 4)
    df = cdmasim.load_sweep(tmp_path / "st")
    # The documented query (docs/sweeps.md): per-run flow rows joined with
    # the swept values.
    con = duckdb.connect()
    st = (tmp_path / "st").as_posix()
    sql = f"""
        SELECT p."dumbbell.tcp.cc" AS cc, p.seed, SUM(f.goodput_bps) AS goodput
        FROM read_parquet('{st}/runs/*/point.parquet') p
        JOIN read_parquet('{st}/runs/*/flows.parquet') f USING (run)
        GROUP BY ALL ORDER BY cc, seed"""
    rows = con.execute(sql).fetchall()
    assert len(rows) == 4
    for cc, seed, goodput in rows:
        m = df[(df["dumbbell.tcp.cc"] == cc) & (df.seed == seed)]
        assert goodput == pytest.approx(m["flow.flow0.goodput_bps"].iloc[0] + m["flow.flow1.goodput_bps"].iloc[0])


def test_store_discards_what_a_killed_writer_left(tmp_path):
    from cdmasim.store import Store

    k1, k2, k3 = ("1" * 32, "2" * 32, "3" * 32)
    with Store(tmp_path / "st") as st:
        st.commit(k1, "s", {"x": 1}, 1, "done", files={"flows.parquet": b"x"})
    os.makedirs(tmp_path / "st" / "tmp" / k2 / "pcap")              # killed while writing
    os.makedirs(tmp_path / "st" / "runs" / k3)                       # killed after rename, before commit
    with Store(tmp_path / "st") as st:
        assert st.keys() == {k1}
    assert sorted(os.listdir(tmp_path / "st" / "runs")) == [k1]
    assert os.listdir(tmp_path / "st" / "tmp") == []


def test_equal_small_files_of_runs_are_one_file_linked_and_each_run_reads_as_written(tmp_path):
    from cdmasim.store import SHARED_MAX_BYTES, Store

    k1, k2, k3, k4 = ("1" * 32, "2" * 32, "3" * 32, "4" * 32)
    empty, big = b"PAR1 an empty table PAR1", b"y" * (SHARED_MAX_BYTES + 1)
    runs = tmp_path / "st" / "runs"
    with Store(tmp_path / "st") as st:
        st.commit(k1, "s", {}, 1, "done", files={"drops.parquet": empty, "flows.parquet": b"one", "series.parquet": big})
        st.commit(k2, "s", {}, 2, "done", files={"drops.parquet": empty, "flows.parquet": b"two", "series.parquet": big})
        assert os.path.samefile(runs / k1 / "drops.parquet", runs / k2 / "drops.parquet")
        assert (runs / k2 / "drops.parquet").stat().st_nlink == 2
        # Larger files, and files that differ, are each a file of their own.
        assert not os.path.samefile(runs / k1 / "series.parquet", runs / k2 / "series.parquet")
        assert [st.read_bytes(k, "flows.parquet") for k in (k1, k2)] == [b"one", b"two"]
        assert [st.read_bytes(k, "drops.parquet") for k in (k1, k2)] == [empty, empty]
        # A shared file damaged from outside damages both runs: both are
        # found, and a new run does not link to it.
        (runs / k1 / "drops.parquet").write_bytes(b"PAR1 damaged!! table PAR1")
        assert set(st.damaged(verify=True)) == {k1, k2}
        st.commit(k3, "s", {}, 3, "done", files={"drops.parquet": empty})
        assert st.read_bytes(k3, "drops.parquet") == empty
        assert not os.path.samefile(runs / k1 / "drops.parquet", runs / k3 / "drops.parquet")
        # The run linked to is forgotten: the next one writes its own copy.
        st.forget(k3)
        st.commit(k4, "s", {}, 4, "done", files={"drops.parquet": empty})
        assert st.read_bytes(k4, "drops.parquet") == empty
        assert (runs / k4 / "drops.parquet").stat().st_nlink == 1


def test_a_shared_file_is_linked_only_as_a_regular_file_of_the_store_and_copied_where_links_fail(
        tmp_path, monkeypatch):
    from cdmasim.store import SHARED_FILES, Store

    keys = [f"{i:032x}" for i in range(1, 40)]
    empty = b"PAR1 an empty table PAR1"
    runs = tmp_path / "st" / "runs"
    with Store(tmp_path / "st") as st:
        st.commit(keys[0], "s", {}, 1, "done", files={"drops.parquet": empty})
        # The file linked to becomes a symbolic link to an equal file outside
        # the store: the next run gets a copy of its own, not that file.
        outside = tmp_path / "outside.parquet"
        outside.write_bytes(empty)
        (runs / keys[0] / "drops.parquet").unlink()
        (runs / keys[0] / "drops.parquet").symlink_to(outside)
        st.commit(keys[1], "s", {}, 1, "done", files={"drops.parquet": empty})
        mine = runs / keys[1] / "drops.parquet"
        assert not mine.is_symlink() and mine.stat().st_nlink == 1 and not os.path.samefile(mine, outside)
        assert st.read_bytes(keys[1], "drops.parquet") == empty
        # Runs whose small files are all their own fill the memory of files;
        # a file that then recurs is still shared (the least recently used go).
        for k in keys[2:2 + SHARED_FILES // 8 + 1]:
            st.commit(k, "s", {}, 1, "done", files={f"t{j}.parquet": f"{k}/{j}".encode() for j in range(8)})
        late = b"PAR1 another empty table PAR1"
        a, b = keys[-2:]
        st.commit(a, "s", {}, 1, "done", files={"cells.parquet": late})
        st.commit(b, "s", {}, 1, "done", files={"cells.parquet": late})
        assert os.path.samefile(runs / a / "cells.parquet", runs / b / "cells.parquet")
        # Where the file system refuses a link, the file is written.
        def refuse(*args, **kw):
            raise PermissionError(1, "Operation not permitted")
        monkeypatch.setattr(os, "link", refuse)
        st.commit(keys[-3], "s", {}, 1, "done", files={"cells.parquet": late})
        assert (runs / keys[-3] / "cells.parquet").stat().st_nlink == 1
        assert st.read_bytes(keys[-3], "cells.parquet") == late


def test_a_run_that_cannot_be_recorded_stops_the_sweep_and_keeps_the_runs_before_it(tmp_path, monkeypatch):
    from cdmasim import store as store_module

    sw = write_sweep(tmp_path, '[grid]\n"dumbbell.queue.limit" = ["5pkt", "10pkt", "20pkt", "40pkt", "80pkt", "160pkt"]\n')
    real, calls = store_module.Store.commit, []

    def commit(self, key, *args, **kw):
        calls.append(key)
        if len(calls) == 3:
            raise cdmasim.InputError(f"cannot write run {key}: disk full")
        return real(self, key, *args, **kw)

    monkeypatch.setattr(store_module.Store, "commit", commit)
    with pytest.raises(cdmasim.InputError, match="cannot write run .*: disk full"):
        cdmasim.sweep(sw, tmp_path / "st", jobs=2)
    # Recorded in the order they finished, and nothing after the failure.
    assert len(calls) == 3
    assert sorted(cdmasim.load_sweep(tmp_path / "st").run) == sorted(calls[:2])
    monkeypatch.setattr(store_module.Store, "commit", real)
    again = cdmasim.sweep(sw, tmp_path / "st", jobs=2)
    assert (again["runs_cached"], again["runs_new"], again["runs_done"]) == (2, 4, 6)


def _manifest_rows(store):
    path = store / "manifest.sqlite"
    if not path.exists():
        return 0
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    try:
        return con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        con.close()


def test_sigkill_halfway_then_resume_gives_one_row_per_point(tmp_path):
    sw = write_sweep(tmp_path, '[grid]\n"dumbbell.queue.limit" = ["5pkt", "10pkt", "20pkt", "40pkt", "80pkt", "160pkt"]\n'
                     '"dumbbell.tcp.cc" = ["newreno", "cubic"]\n', duration="300s")
    store = tmp_path / "store"
    total = 12
    cmd = [sys.executable, "-m", "cdmasim.cli", "sweep", str(sw), "--store", str(store), "--jobs", "1", "--json"]
    killed_at = []
    # The kill takes the sweep and its workers: their folders stay in the
    # test's folder, not in the machine's temporary folder.
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch))
    for stop_after in (3, 7):
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True, env=env)
        while _manifest_rows(store) < stop_after and proc.poll() is None:
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        assert proc.returncode == -signal.SIGKILL, "the sweep finished before it could be killed"
        killed_at.append(_manifest_rows(store))
    assert all(0 < k < total for k in killed_at), killed_at
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    r = last_json(p.stdout)
    assert r["runs_total"] == total and r["runs_done"] == total and r["runs_failed"] == 0
    assert r["runs_cached"] == killed_at[-1] and r["runs_new"] == total - killed_at[-1]
    df = cdmasim.load_sweep(store)
    assert len(df) == total and df.run.is_unique
    assert len(df.groupby(["dumbbell.queue.limit", "dumbbell.tcp.cc", "seed"])) == total
    assert sorted(os.listdir(store / "runs")) == sorted(df.run)          # nothing half-written visible
    for key in df.run:
        assert sorted(os.listdir(store / "runs" / key)) == sorted(
            [f"{name}.parquet" for name in TABLES] + ["point.parquet", "summary.json"])
    assert os.listdir(store / "tmp") == []


def test_dask_local_cluster_gives_the_same_store_as_the_local_pool(tmp_path):
    pytest.importorskip("distributed")
    sw = write_sweep(tmp_path, 'seeds = [1, 2]\n[grid]\n"dumbbell.tcp.cc" = ["newreno", "cubic", "vegas"]\n')
    a = cli("sweep", sw, "--store", tmp_path / "pool", "--jobs", "2", "--json")
    b = cli("sweep", sw, "--store", tmp_path / "dask", "--jobs", "2", "--dask", "local", "--json")
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    ra, rb = last_json(a.stdout), last_json(b.stdout)
    assert ra["runs_done"] == rb["runs_done"] == 6
    runs = sorted(os.listdir(tmp_path / "pool" / "runs"))
    assert runs == sorted(os.listdir(tmp_path / "dask" / "runs")) and len(runs) == 6
    for key in runs:
        for name in sorted(os.listdir(tmp_path / "pool" / "runs" / key)):
            x = (tmp_path / "pool" / "runs" / key / name).read_bytes()
            y = (tmp_path / "dask" / "runs" / key / name).read_bytes()
            assert x == y, f"{key}/{name} differs between the local pool and Dask"
    from cdmasim.store import Store

    def manifest(d):        # all but wall time and commit order
        with Store(d) as st:
            return sorted((r["run"], r["sweep"], r["status"], json.dumps(r["point"]), r["seed"]) for r in st.rows())

    assert manifest(tmp_path / "pool") == manifest(tmp_path / "dask")


def test_dask_scheduler_address_from_the_python_api(tmp_path):
    distributed = pytest.importorskip("distributed")
    import logging

    spec = {"sweep": {"name": "addr", "scenario": BASE, "seeds": [3]}, "grid": {"dumbbell.tcp.cc": ["reno", "cubic"]}}
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=logging.ERROR) as cluster:
        r = cdmasim.sweep(spec, tmp_path / "st", dask=cluster.scheduler_address)
    assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
    assert (r["runs_done"], r["runs_new"]) == (2, 2)
    local = cdmasim.sweep(spec, tmp_path / "local", jobs=1)
    for key in local["keys"]:
        assert (tmp_path / "st" / "runs" / key / "flows.parquet").read_bytes() == \
            (tmp_path / "local" / "runs" / key / "flows.parquet").read_bytes()


def test_progress_bar_counts_failures_and_gives_an_eta():
    import io

    from cdmasim.sweeps import SweepProgress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    out = Tty()
    bar = SweepProgress(total=4, already=1, stream=out)
    bar.update()
    bar.update(failed=True)
    bar.close()
    text = out.getvalue()
    assert "2/4 runs, 0 failed" in text and "3/4 runs, 1 failed" in text
    assert "ETA" in text and "ETA ?" not in text
    # Not a terminal: nothing drawn (the --json line stays the only output).
    quiet = io.StringIO()
    bar = SweepProgress(total=2, already=0, stream=quiet)
    bar.update()
    bar.close()
    assert quiet.getvalue() == ""


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("sweep_*.toml")), ids=lambda p: p.stem)
def test_example_sweeps_resolve_to_valid_scenarios(path):
    spec = load(path)
    runs = spec.runs()
    assert len(runs) > 1
    for _, _, doc in runs:
        cdmasim.parse(doc)     # raises on any field the sweep set wrongly


def test_trace_paths_stay_relative_to_the_scenario_file(tmp_path):
    scen = tmp_path / "scen"
    scen.mkdir()
    p = cli("channel", "generate", "stationary", "--slots", "5s", "--seed", "1", "--out", scen / "ch.drc")
    assert p.returncode == 0, p.stderr
    (scen / "drc.toml").write_text(
        '[simulation]\nduration = "2s"\nseed = 1\n[[node]]\nname = "a"\n[[node]]\nname = "b"\n'
        '[[link]]\nname = "l"\nfrom = "a"\nto = "b"\ndelay = "10ms"\ndrc = { trace = "ch.drc" }\n'
        '[[flow]]\nname = "f"\nfrom = "a"\nto = "b"\n')
    sw = tmp_path / "sweeps" / "s.toml"
    sw.parent.mkdir()
    sw.write_text('[sweep]\nscenario = "../scen/drc.toml"\n[grid]\n"link[l].delay" = ["5ms", "20ms"]\n')
    r = last_json(cli("sweep", sw, "--store", tmp_path / "st", "--jobs", "1", "--json").stdout)   # cwd is the repo
    assert (r["runs_done"], r["runs_failed"]) == (2, 0)


def test_empty_tables_are_typed_files_whatever_the_run():
    """A run's empty tables (a dumbbell has no cells, objects, ...) are
    files with the table's columns and types, the same bytes whatever the
    run key (so every run's file of a table has one schema for SQL over
    runs/*/T.parquet), and read back with the Result's columns."""
    import io

    import pandas as pd
    import pyarrow.parquet as pq

    from cdmasim import sweeps

    doc = BASE.replace('duration = "3s"', 'duration = "1s"')
    status, _, first, _ = sweeps.execute("key-a", doc, 1)
    assert status == "done"
    _, _, other, _ = sweeps.execute("key-b", doc, 2)
    result = cdmasim.run(doc, seed=2)
    empty = [t for t in TABLES if len(getattr(result, t)) == 0]
    assert {"cells", "objects", "radio_links", "is2000"} <= set(empty)
    full = cdmasim.run(ROOT / "examples" / "web_browsing.toml")
    for t in empty:
        assert first[f"{t}.parquet"] == other[f"{t}.parquet"], t
        back = pd.read_parquet(io.BytesIO(other[f"{t}.parquet"]))
        assert list(back.columns) == ["run"] + list(getattr(result, t).columns) and len(back) == 0
        if t in ("objects", "pages", "radio_links"):
            buf = io.BytesIO()
            full.write_table_parquet(t, buf, run_key="k")
            assert pq.read_schema(io.BytesIO(other[f"{t}.parquet"])) == pq.read_schema(buf), t
    # A table with rows carries its own run key.
    assert pd.read_parquet(io.BytesIO(other["flows.parquet"]))["run"].unique().tolist() == ["key-b"]


def test_load_runs_reads_only_the_figures_asked_for(tmp_path):
    """store.load_runs(figures=...) (what reproduce's Table II reads: the
    cells' figures of 100-mobile cell runs): those tables' columns, equal to
    the full frame's; a table that has no figures is refused."""
    import pandas as pd

    from cdmasim.store import Store, load_runs

    spec = {"sweep": {"name": "cells", "seeds": [1, 2],
                      "scenario": {"preset": "cdma2000", "simulation": {"duration": "4s"},
                                   "cdma2000": {"m": 2, "n": 2}}}}
    cdmasim.sweep(spec, tmp_path / "st", jobs=1)
    runs = [(r["run"], r["point"], r["seed"]) for r in Store(tmp_path / "st", mode="r").rows()]
    full = load_runs(tmp_path / "st", runs)
    cells = load_runs(tmp_path / "st", runs, figures=("cells",))
    figure = [c for c in full.columns if c.split(".")[0] in ("flow", "queue", "user", "sector", "cell", "mobile")]
    assert {c.split(".")[0] for c in figure} >= {"flow", "queue", "cell", "mobile"}
    kept = [c for c in cells.columns if c not in full.columns or c in figure]
    assert kept and all(c.startswith("cell.") for c in kept)
    assert kept == [c for c in figure if c.startswith("cell.")]
    pd.testing.assert_frame_equal(cells, full[[c for c in full.columns if c not in figure or c in kept]])
    with pytest.raises(ValueError, match="series"):
        load_runs(tmp_path / "st", runs, figures=("cells", "series"))
    # One name alone, or any iterable of names, read once.
    pd.testing.assert_frame_equal(load_runs(tmp_path / "st", runs, figures="cells"), cells)
    pd.testing.assert_frame_equal(load_runs(tmp_path / "st", runs, figures=(t for t in ["cells"])), cells)


def test_a_stored_table_read_with_filters_is_the_matching_rows(tmp_path):
    """Store.table(filters=...) (what reproduce reads one series with):
    the rows the filters match, in the file's order, as from the whole
    table."""
    import pandas as pd

    from cdmasim.store import Store

    spec = {"sweep": {"name": "sampled", "seeds": [1],
                      "scenario": BASE.replace('seed = 1', 'seed = 1\nsample_interval = "50ms"')}}
    cdmasim.sweep(spec, tmp_path / "st", jobs=1)
    st = Store(tmp_path / "st", mode="r")
    key = st.rows()[0]["run"]
    whole = st.table(key, "series")
    assert whole.metric.nunique() > 1 and whole.subject.nunique() > 1
    metric, subject = whole.metric.iloc[-1], whole.subject.iloc[-1]
    got = st.table(key, "series", filters=[("metric", "==", metric), ("subject", "==", subject)])
    want = whole[(whole.metric == metric) & (whole.subject == subject)].reset_index(drop=True)
    assert len(got) > 1
    pd.testing.assert_frame_equal(got, want)
    # A filter on a column the table lacks is the caller's mistake, not a
    # damaged file.
    with pytest.raises(ValueError, match="do not apply"):
        st.table(key, "series", filters=[("metrc", "==", metric)])


def test_run_keys_are_the_documented_hash():
    """A run key is SHA-256 of the canonical JSON of {scenario, seed,
    version} (docs/sweeps.md): the key a sweep composes from a point's text
    made once equals that formula, so stores written before stay valid."""
    import hashlib
    import json

    from cdmasim.store import build_version, canonical, run_key

    for name in ("dumbbell", "cdma2000_cell", "web_browsing", "evdo_sector"):
        resolved = cdmasim.parse(ROOT / "examples" / f"{name}.toml")
        for seed in (1, 7, 2**40):
            blob = json.dumps({"scenario": resolved, "seed": seed, "version": build_version()}, sort_keys=True,
                              separators=(",", ":"), ensure_ascii=True)
            want = hashlib.sha256(blob.encode()).hexdigest()[:32]
            assert run_key(resolved, seed) == want
            assert run_key(None, seed, text=canonical(resolved)) == want


def test_a_sweep_parses_each_point_once_and_its_seeds_run_that_spec(monkeypatch):
    """A point is parsed once, in the planning process, whatever its seeds;
    each of its runs carries the spec that was keyed (the core's "spec"
    form, run as it is), and running it with a seed is bit for bit running
    the point's document with that seed."""
    from cdmasim import simulate, sweeps

    parsed = []
    real = simulate.core.parse_scenario
    monkeypatch.setattr(simulate.core, "parse_scenario", lambda *a: parsed.append(a[2]) or real(*a))
    doc = BASE.replace('duration = "3s"', 'duration = "1s"').replace("[dumbbell]", '[dumbbell]\nstart_jitter = "300ms"')
    plan = sweeps.Plan({"sweep": {"name": "once", "scenario": doc, "seeds": [1, 2, 3]},
                        "grid": {"dumbbell.tcp.cc": ["reno", "cubic"]}})
    assert parsed == ["json", "json"], "one parse a point"
    assert len(plan.runs) == 6 and len({r[0] for r in plan.runs}) == 6
    for point in range(2):
        packed = [r[3] for r in plan.runs[3 * point:3 * point + 3]]
        assert all(s is packed[0] for s in packed) and sweeps._unpacked(packed[0]).form == "spec"
    monkeypatch.undo()
    _, point, seed, packed = plan.runs[4]
    source = sweeps._unpacked(packed)
    document = plan.spec.runs()[4][2]
    assert (point, seed) == ({"dumbbell.tcp.cc": "cubic"}, 2)
    a, b = cdmasim.run(source, seed=seed), cdmasim.run(document, seed=seed)
    assert a.summary_json() == b.summary_json()
    assert a.summary_json() != cdmasim.run(source, seed=3).summary_json(), "the seed still draws the start jitter"


def test_running_a_parsed_scenario_is_running_the_scenario():
    """parse(x, seed=s) differs from parse(x) in the seed alone (start
    jitter and preset channels are drawn when the run starts); running what
    parse returned, with or without a seed, is bit for bit running x."""
    for name in ("dumbbell", "evdo_sector"):
        path = ROOT / "examples" / f"{name}.toml"
        text = path.read_text().replace('duration = "60s"', 'duration = "3s"')
        spec = cdmasim.parse(text, seed=4)
        assert spec["seed"] == 4 and cdmasim.parse(text) == dict(spec, seed=1)
        assert cdmasim.run(spec).summary_json() == cdmasim.run(text, seed=4).summary_json()
        assert cdmasim.run(cdmasim.parse(text), seed=4).summary_json() == cdmasim.run(text, seed=4).summary_json()


def test_the_twin_of_a_parsed_scenario_keeps_the_seed_it_was_parsed_with():
    from cdmasim.emulate import simulated_twin, users

    path = ROOT / "examples" / "emulate_four_users.toml"
    for seed in (None, 5):
        parsed = cdmasim.parse(path, seed=seed)
        twin = simulated_twin(parsed, {u: {} for u in users(path)}, "1s")
        assert cdmasim.parse(twin)["seed"] == parsed["seed"] == (seed or cdmasim.parse(path)["seed"])
