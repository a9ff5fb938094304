"""A real Dask cluster, as a user outgrowing one machine runs it: `dask
scheduler` and two `dask worker` processes started on their own, a sweep on
it with one worker killed (SIGKILL) mid-sweep, every run completed exactly
once and equal to the local pool's; then `reproduce jung --dask` on what is
left of the cluster."""

import json
import os
import pathlib
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

distributed = pytest.importorskip("distributed")

ROOT = pathlib.Path(__file__).resolve().parent.parent
BIN = pathlib.Path(sys.executable).parent
DASK = BIN / "dask"

SWEEP = f"""[sweep]
name = "cluster"
scenario = "{ROOT / 'examples' / 'dumbbell.toml'}"
seeds = [1, 2, 3]
[set]
"simulation.duration" = "240s"
[grid]
"dumbbell.tcp.cc" = ["newreno", "cubic", "vegas", "westwood"]
"""


def _wait(what, check, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _rows(store):
    try:
        con = sqlite3.connect(f"file:{store / 'manifest.sqlite'}?mode=ro", uri=True, timeout=30)
        try:
            return con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


@pytest.fixture
def cluster(tmp_path):
    if not DASK.exists():
        pytest.skip("the dask command is not installed beside this Python")
    procs = []

    # A killed worker cannot remove its run's files: they stay in the
    # test's folder, not in the machine's temporary folder.
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch))

    def start(*args, name):
        log = open(tmp_path / f"{name}.log", "w")
        p = subprocess.Popen([str(DASK), *args], stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path,
                             start_new_session=True, env=env)
        procs.append(p)
        return p

    info = tmp_path / "scheduler.json"
    start("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", str(info),
          name="scheduler")
    _wait("the scheduler", info.exists)
    address = json.loads(info.read_text())["address"]
    workers = [start("worker", "--scheduler-file", str(info), "--nthreads", "1", "--no-nanny", "--no-dashboard",
                     "--name", name, name=name) for name in ("w1", "w2")]
    with distributed.Client(address, timeout=30) as client:
        _wait("two workers", lambda: len(client.scheduler_info()["workers"]) == 2)
    try:
        yield address, workers
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def test_a_sweep_survives_a_killed_worker_and_completes_every_run_once(cluster, tmp_path):
    address, (w1, w2) = cluster
    sw = tmp_path / "cluster.toml"
    sw.write_text(SWEEP)
    store = tmp_path / "st"
    sweep = subprocess.Popen([sys.executable, "-m", "cdmasim.cli", "sweep", str(sw), "--store", str(store),
                              "--dask", address, "--json"], cwd=tmp_path, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    _wait("the first finished run", lambda: _rows(store) >= 1 or sweep.poll() is not None, timeout=120)
    assert sweep.poll() is None, "the sweep ended before a worker could be killed"
    os.killpg(w1.pid, signal.SIGKILL)
    out, err = sweep.communicate(timeout=600)
    assert sweep.returncode == 0, err
    r = json.loads(out)
    assert (r["runs_total"], r["runs_done"], r["runs_failed"], r["runs_new"]) == (12, 12, 0, 12)
    assert w1.wait() == -signal.SIGKILL and w2.poll() is None
    # Every run once: one manifest row and one run folder per key.
    df = __import__("cdmasim").load_sweep(store)
    assert len(df) == 12 and df.run.is_unique and (df.status == "done").all()
    assert sorted(os.listdir(store / "runs")) == sorted(df.run)
    # The cluster computed what the local pool computes.
    import cdmasim

    local = cdmasim.sweep(str(sw), tmp_path / "local", jobs=2)
    assert sorted(local["keys"]) == sorted(df.run)
    for key in local["keys"][:3]:
        for name in ("flows.parquet", "queues.parquet", "summary.json"):
            assert (store / "runs" / key / name).read_bytes() == (tmp_path / "local" / "runs" / key / name).read_bytes()


def test_reproduce_runs_its_sweeps_on_the_cluster(cluster, tmp_path):
    address, _ = cluster
    p = subprocess.run([sys.executable, "-m", "cdmasim.cli", "reproduce", "jung", "--quick", "--out", "rep",
                        "--dask", address, "--json"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    report = json.loads(p.stdout.strip().splitlines()[-1])
    assert report["paper"] == "jung" and len(report["items"]) > 5
    assert _rows(tmp_path / "rep" / "store") > 0
