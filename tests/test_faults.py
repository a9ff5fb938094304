"""Every promise kept under faults: the store never deletes what it
did not write, damaged stores are refused or repaired, a run that kills its
worker is recorded as failed while the sweep goes on, workers die with their
parent, and every hostile input below gives its one line, exit code 2, and
leaves the folder as it was."""

import json
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import cdmasim
from cdmasim.store import MARKER

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
PY = sys.executable

SWEEP = f"""[sweep]
name = "tiny"
scenario = "{EXAMPLES / 'dumbbell.toml'}"
seeds = [1]
[set]
"simulation.duration" = "2s"
"dumbbell.flows" = 1
[grid]
"dumbbell.tcp.cc" = ["reno", "cubic"]
"""


def cdmasim_cli(*args, cwd, **kw):
    return subprocess.run([PY, "-m", "cdmasim.cli", *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=kw.pop("timeout", 120), **kw)


def one_line(p):
    """The single stderr line of a refused command (exit 2, no traceback)."""
    assert p.returncode == 2, (p.returncode, p.stderr[-3000:])
    assert "Traceback" not in p.stderr and "panicked" not in p.stderr, p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1, p.stderr
    return lines[0]


def snapshot(folder):
    """Every path under `folder` with its size (what 'nothing changed' compares)."""
    out = {}
    for dirpath, dirs, files in os.walk(folder):
        for name in dirs + files:
            p = os.path.join(dirpath, name)
            out[os.path.relpath(p, folder)] = os.path.getsize(p) if os.path.isfile(p) else "dir"
    return out


# --- the store: recognised by its marker, never deleting what it did not write


def test_a_folder_that_is_not_a_store_is_refused_and_left_alone(tmp_path):
    (tmp_path / "sw.toml").write_text(SWEEP)
    mine = tmp_path / "notstore"
    (mine / "runs" / "my_experiment").mkdir(parents=True)
    (mine / "runs" / "my_experiment" / "data.txt").write_text("a week of measurements")
    (mine / "tmp" / "x").mkdir(parents=True)
    before = snapshot(mine)
    line = one_line(cdmasim_cli("sweep", "sw.toml", "--store", "notstore", cwd=tmp_path))
    assert line == ("cdmasim: error: notstore: not a cdmasim result store (no cdmasim-store.json) and not empty: "
                    "give a new or empty folder (nothing in it was changed)")
    assert snapshot(mine) == before
    assert (mine / "runs" / "my_experiment" / "data.txt").read_text() == "a week of measurements"


def test_an_empty_store_path_is_refused(tmp_path):
    (tmp_path / "sw.toml").write_text(SWEEP)
    line = one_line(cdmasim_cli("sweep", "sw.toml", "--store", "", cwd=tmp_path))
    assert line == "cdmasim: error: store: empty path (name a folder, e.g. --store out/mysweep)"
    assert sorted(os.listdir(tmp_path)) == ["sw.toml"]


def test_a_zero_byte_manifest_is_refused_not_taken_as_a_new_store(tmp_path):
    (tmp_path / "sw.toml").write_text(SWEEP)
    key = "a" * 32
    # Without the marker: not a store (the run folder is not deleted).
    (tmp_path / "old" / "runs" / key).mkdir(parents=True)
    (tmp_path / "old" / "manifest.sqlite").write_bytes(b"")
    line = one_line(cdmasim_cli("sweep", "sw.toml", "--store", "old", cwd=tmp_path))
    assert "old: not a cdmasim result store" in line
    assert os.listdir(tmp_path / "old" / "runs") == [key]
    # With the marker: a damaged store, left as it is.
    (tmp_path / "st" / "runs" / key).mkdir(parents=True)
    (tmp_path / "st" / MARKER).write_text('{"format": "cdmasim-store", "version": 1}\n')
    (tmp_path / "st" / "manifest.sqlite").write_bytes(b"")
    before = snapshot(tmp_path / "st")
    line = one_line(cdmasim_cli("sweep", "sw.toml", "--store", "st", cwd=tmp_path))
    assert line == "cdmasim: error: st: manifest.sqlite is damaged (empty); the store was left as it is"
    assert snapshot(tmp_path / "st") == before


def test_a_garbled_manifest_is_one_line_from_the_cli_and_an_input_error_from_load_sweep(tmp_path):
    (tmp_path / "sw.toml").write_text(SWEEP)
    p = cdmasim_cli("sweep", "sw.toml", "--store", "st", "--jobs", "1", "--quiet", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    manifest = tmp_path / "st" / "manifest.sqlite"
    data = bytearray(manifest.read_bytes())
    data[100:700] = b"\xde\xad\xbe\xef" * 150           # the schema page
    manifest.write_bytes(bytes(data))
    before = snapshot(tmp_path / "st")
    line = one_line(cdmasim_cli("sweep", "sw.toml", "--store", "st", cwd=tmp_path))
    assert re.fullmatch(r"cdmasim: error: st: manifest\.sqlite is damaged \(.+\); the store was left as it is", line)
    with pytest.raises(cdmasim.InputError, match=r"manifest\.sqlite is damaged"):
        cdmasim.load_sweep(tmp_path / "st")
    assert snapshot(tmp_path / "st") == before


def test_a_store_written_before_the_marker_is_adopted(tmp_path):
    # Stores of earlier cdmasim versions have no marker: a valid manifest and
    # run folders only. They keep working (and gain the marker).
    r = cdmasim.sweep(SWEEP, tmp_path / "st", jobs=1)
    (tmp_path / "st" / MARKER).unlink()
    again = cdmasim.sweep(SWEEP, tmp_path / "st", jobs=1)
    assert again["runs_cached"] == r["runs_total"] == 2 and again["runs_new"] == 0
    assert (tmp_path / "st" / MARKER).exists()


def test_recovery_removes_only_run_keys_it_could_have_written(tmp_path):
    cdmasim.sweep(SWEEP, tmp_path / "st", jobs=1)
    (tmp_path / "st" / "runs" / "notes").mkdir()
    (tmp_path / "st" / "runs" / "notes" / "a.txt").write_text("mine")
    (tmp_path / "st" / "tmp" / ("b" * 32)).mkdir()
    cdmasim.sweep(SWEEP, tmp_path / "st", jobs=1)
    assert (tmp_path / "st" / "runs" / "notes" / "a.txt").read_text() == "mine"
    assert not (tmp_path / "st" / "tmp" / ("b" * 32)).exists()


def test_a_second_writer_process_is_refused_and_the_first_ones_run_in_progress_stays(tmp_path):
    """Two processes on one store: the second is refused in one line,
    instead of taking the first one's run in progress (tmp/KEY, or runs/KEY
    before its row) for a killed writer's leftovers and removing it."""
    cdmasim.sweep(SWEEP, tmp_path / "st", jobs=1)
    holder = subprocess.Popen([PY, "-c", "import sys, cdmasim.store as s; st = s.Store(sys.argv[1]); "
                               "print('open', flush=True); sys.stdin.read()", str(tmp_path / "st")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        in_progress = tmp_path / "st" / "tmp" / ("c" * 32)
        in_progress.mkdir()
        (in_progress / "flows.parquet").write_bytes(b"PAR1")
        (tmp_path / "sw.toml").write_text(SWEEP.replace('"2s"', '"1s"'))
        before = snapshot(tmp_path / "st")
        p = cdmasim_cli("sweep", "sw.toml", "--store", "st", cwd=tmp_path)
        assert one_line(p) == ("cdmasim: error: st: another cdmasim process is writing this result store; wait for "
                               "it to finish or give another folder (nothing was changed)")
        assert snapshot(tmp_path / "st") == before
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    # The first writer gone, the next one takes the store (and its leftovers).
    p = cdmasim_cli("sweep", "sw.toml", "--store", "st", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert not in_progress.exists()


def test_a_linked_writer_lock_or_a_file_system_without_locks_is_one_line(tmp_path, monkeypatch):
    import errno
    import fcntl

    from cdmasim import InputError
    from cdmasim.store import Store

    cdmasim.sweep(SWEEP, tmp_path / "st", jobs=1)
    # A link in the lock's place: refused, and nothing made where it points.
    (tmp_path / "st" / "writer.lock").unlink()
    (tmp_path / "st" / "writer.lock").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(InputError, match="writer.lock is a link"):
        Store(tmp_path / "st")
    assert not (tmp_path / "elsewhere").exists()
    (tmp_path / "st" / "writer.lock").unlink()

    def no_locks(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    with pytest.raises(InputError, match=r"cannot lock the result store for writing \(No locks available"):
        Store(tmp_path / "st")


def test_writers_in_one_process_share_the_store():
    """Two Store objects open for writing in one process (threads of
    `reproduce all`) share the lock; the first one's close keeps it."""
    import tempfile

    from cdmasim.store import Store

    with tempfile.TemporaryDirectory() as d:
        a = Store(os.path.join(d, "st"))
        b = Store(os.path.join(d, "st"))
        a.close()
        p = subprocess.run([PY, "-c", "import sys, cdmasim.store as s; s.Store(sys.argv[1])", os.path.join(d, "st")],
                           capture_output=True, text=True, timeout=60)
        assert "another cdmasim process is writing" in p.stderr
        b.close()
        p = subprocess.run([PY, "-c", "import sys, cdmasim.store as s; s.Store(sys.argv[1])", os.path.join(d, "st")],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr


def test_a_read_only_store_is_refused_for_writing_and_readable(as_nobody):
    # Under /tmp itself: pytest's tmp_path is private to root, and the
    # unprivileged user must be able to read the sweep file.
    base = pathlib.Path(f"/tmp/cdmasim-ro-{os.getpid()}")
    base.mkdir(mode=0o755)
    try:
        (base / "sw.toml").write_text(SWEEP)
        cdmasim.sweep(str(base / "sw.toml"), base / "st", jobs=1)
        os.chmod(base / "sw.toml", 0o644)
        for dirpath, dirs, files in os.walk(base / "st"):
            os.chmod(dirpath, 0o555)
            for f in files:
                os.chmod(os.path.join(dirpath, f), 0o444)
        edited = SWEEP.replace('"2s"', '"1s"')
        (base / "sw2.toml").write_text(edited)
        os.chmod(base / "sw2.toml", 0o644)
        before = snapshot(base / "st")
        nobody = as_nobody
        p = subprocess.run([*nobody, PY, "-m", "cdmasim.cli", "sweep", "sw2.toml", "--store", "st"], cwd=base,
                           capture_output=True, text=True, timeout=120,
                           env={**os.environ, "PYTHONPATH": str(ROOT / "python"), "HOME": "/tmp"})
        assert one_line(p) == "cdmasim: error: st: the result store is not writable"
        p = subprocess.run([*nobody, PY, "-c", "import cdmasim; print(len(cdmasim.load_sweep('st')))"], cwd=base,
                           capture_output=True, text=True, timeout=120,
                           env={**os.environ, "PYTHONPATH": str(ROOT / "python"), "HOME": "/tmp"})
        assert p.returncode == 0 and p.stdout.strip() == "2", p.stderr
        assert snapshot(base / "st") == before
    finally:
        for dirpath, dirs, files in os.walk(base):
            os.chmod(dirpath, 0o755)
        shutil.rmtree(base)


# --- damaged run files: refused by load_sweep, repaired by the next sweep


def _one_run_file(store, name):
    runs = sorted((store / "runs").iterdir())
    return runs[0] / name


def test_missing_or_truncated_tables_are_named_and_a_rerun_repairs_them(tmp_path):
    st = tmp_path / "st"
    first = cdmasim.sweep(SWEEP, st, jobs=1)
    good = cdmasim.load_sweep(st)
    victim = _one_run_file(st, "flows.parquet")
    victim.unlink()
    with pytest.raises(cdmasim.InputError, match=re.escape(str(victim)) + r": missing or damaged"):
        cdmasim.load_sweep(st)
    again = cdmasim.sweep(SWEEP, st, jobs=1)
    assert (again["runs_repaired"], again["runs_new"], again["runs_done"]) == (1, 1, 2)
    assert cdmasim.load_sweep(st).drop(columns="wall_s").sort_values("run").reset_index(drop=True).equals(
        good.drop(columns="wall_s").sort_values("run").reset_index(drop=True))
    # Truncated (a disk that filled up, a copy cut short): found by its size.
    victim = _one_run_file(st, "queues.parquet")
    victim.write_bytes(victim.read_bytes()[:50])
    with pytest.raises(cdmasim.InputError, match="queues.parquet: missing or damaged"):
        cdmasim.load_sweep(st)
    assert cdmasim.sweep(SWEEP, st, jobs=1)["runs_repaired"] == 1
    assert len(cdmasim.load_sweep(st)) == first["runs_total"]


def test_a_flipped_byte_is_caught_by_its_checksum_and_verify_redoes_the_run(tmp_path):
    st = tmp_path / "st"
    cdmasim.sweep(SWEEP, st, jobs=1)
    victim = _one_run_file(st, "flows.parquet")
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0xFF
    victim.write_bytes(bytes(data))
    with pytest.raises(cdmasim.InputError, match="checksum differs|size or checksum"):
        cdmasim.load_sweep(st)
    assert cdmasim.sweep(SWEEP, st, jobs=1)["runs_repaired"] == 0      # same size: only --verify reads it all
    p = cdmasim_cli("sweep", _write(tmp_path, SWEEP), "--store", st, "--verify", "--json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["runs_repaired"] == 1
    assert len(cdmasim.load_sweep(st)) == 2


def _write(tmp_path, text, name="sw.toml"):
    (tmp_path / name).write_text(text)
    return tmp_path / name


# --- runs that kill their worker, and workers that outlive their parent


CELL_SWEEP = f"""[sweep]
name = "memory"
scenario = "{EXAMPLES / 'cdma2000_cell.toml'}"
[grid]
"simulation.sample_interval" = ["100ms", "1.25ms"]
"""


def test_a_run_that_kills_its_worker_is_recorded_as_failed_and_the_sweep_goes_on(tmp_path):
    # 80,000 samples of 605 series (48 M rows): the core streams them to its
    # spool, but the worker hands the run's tables to the sweep as bytes,
    # and series.parquet alone is about 250 MB, more than the 600 MB each
    # worker may hold with Python and pandas can take twice: the worker dies
    # of the allocation; the other point runs.
    sw = _write(tmp_path, CELL_SWEEP)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch))
    p = cdmasim_cli("sweep", sw, "--store", "st", "--jobs", "2", "--worker-memory", "600MB", "--json", cwd=tmp_path,
                    env=env)
    assert p.returncode == 0, p.stderr
    # The dead worker's run could not remove its files; the pool removed
    # the worker's folder with them.
    assert os.listdir(scratch) == []
    r = json.loads(p.stdout)
    assert (r["runs_done"], r["runs_failed"]) == (1, 1)
    df = cdmasim.load_sweep(tmp_path / "st").set_index("simulation.sample_interval")
    assert df.loc["100ms", "status"] == "done"
    assert df.loc["1.25ms", "status"] == "failed"
    err = df.loc["1.25ms", "error"]
    assert err.startswith("worker process died (") and ("MemoryError" in err or "memory allocation of" in err), err
    # The failed run is remembered: a second sweep does not run (and crash) again...
    p = cdmasim_cli("sweep", sw, "--store", "st", "--jobs", "2", "--worker-memory", "600MB", "--json", cwd=tmp_path)
    assert json.loads(p.stdout)["runs_new"] == 0
    # ...unless asked to (it fails the same way again, alone).
    p = cdmasim_cli("sweep", sw, "--store", "st", "--jobs", "2", "--worker-memory", "600MB", "--retry-failed",
                    "--json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert (r["runs_new"], r["runs_new_failed"], r["runs_done"]) == (1, 1, 1)


def _workers_of(pid):
    """Live cdmasim worker processes whose parent was `pid` (by the parent
    pid they were started with, which survives re-parenting)."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            argv = open(f"/proc/{d}/cmdline", "rb").read().split(b"\0")
        except OSError:
            continue
        if b"cdmasim.workers" in argv and len(argv) > 5 and argv[5] == str(pid).encode():
            out.append(int(d))
    return out


def test_sigkill_of_a_sweep_leaves_no_worker_behind(tmp_path):
    sw = _write(tmp_path, SWEEP.replace('"2s"', '"600s"').replace('["reno", "cubic"]', '["reno", "cubic", "vegas"]'))
    # Its workers' folders stay with the killed sweep: in the test's folder.
    env = dict(os.environ, TMPDIR=str(tmp_path))
    proc = subprocess.Popen([PY, "-m", "cdmasim.cli", "sweep", str(sw), "--store", "st", "--jobs", "2", "--quiet"],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    deadline = time.monotonic() + 60
    while len(_workers_of(proc.pid)) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    workers = _workers_of(proc.pid)
    assert len(workers) == 2, "the sweep did not start its two workers"
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 10
    while any(os.path.exists(f"/proc/{w}") and _alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [w for w in workers if _alive(w)], "workers outlived the sweep"


def _alive(pid):
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


# --- the sweep file: limits and shapes checked when it is read


@pytest.mark.parametrize("name, text, expected", [
    ("seeds_count_1e12", f'[sweep]\nscenario = "{EXAMPLES / "dumbbell.toml"}"\nseeds = {{ first = 1, count = 1000000000000 }}\n',
     "sw.toml: sweep.seeds: count = 1000000000000; a sweep holds at most 100000 runs"),
    ("grid_1e12", f'[sweep]\nscenario = "{EXAMPLES / "dumbbell.toml"}"\n[grid]\n' + "".join(
        f'"{p}" = [{", ".join(f(i) for i in range(1, 1001))}]\n' for p, f in [
            ("dumbbell.queue.limit", lambda i: f'"{i}pkt"'), ("dumbbell.flows", str),
            ("simulation.duration", lambda i: f'"{i}s"'), ("dumbbell.bottleneck_rate", lambda i: f'"{i}kbps"')]),
     "sw.toml: 1000000000000 points x 1 seed(s) = 1000000000000 runs; a sweep holds at most 100000"),
    ("sweep_is_5", "sweep = 5\n", "sw.toml: sweep: expected a table [sweep] (name, scenario, seeds)"),
    ("simulation_is_5", "[sweep]\n[scenario]\nsimulation = 5\n", "sw.toml: scenario: simulation: expected a table [simulation]"),
    ("base_seed_abc", '[sweep]\n[scenario]\nsimulation = { duration = "1s", seed = "abc" }\n',
     "sw.toml: scenario: simulation.seed: 'abc' is not an integer in [0, 2^63)"),
    ("base_seed_list", '[sweep]\n[scenario]\nsimulation = { duration = "1s", seed = [1] }\n',
     "sw.toml: scenario: simulation.seed: [1] is not an integer in [0, 2^63)"),
    ("grid_and_zip_same_path", f'[sweep]\nscenario = "{EXAMPLES / "dumbbell.toml"}"\n[grid]\n"dumbbell.tcp.cc" = ["reno"]\n'
     '[zip]\n"dumbbell.tcp.cc" = ["vegas"]\n', 'sw.toml: "dumbbell.tcp.cc" is in both [grid] and [zip]: vary a path in one of them'),
], ids=lambda x: x if isinstance(x, str) and "\n" not in x and len(x) < 30 else "")
def test_sweep_files_that_cannot_run_are_one_line(tmp_path, name, text, expected):
    _write(tmp_path, text)
    line = one_line(cdmasim_cli("sweep", "sw.toml", "--store", "st", cwd=tmp_path))
    assert line == "cdmasim: error: " + expected
    assert sorted(os.listdir(tmp_path)) == ["sw.toml"], "nothing written"


# --- Dask addresses that are not a scheduler


def _listener(send=None):
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen()
    held = []

    def serve():
        while True:
            try:
                c, _ = srv.accept()
            except OSError:
                return
            held.append(c)
            if send:
                c.sendall(send)

    threading.Thread(target=serve, daemon=True).start()
    return srv, f"tcp://127.0.0.1:{srv.getsockname()[1]}"


@pytest.mark.parametrize("send, why", [
    (None, "no Dask handshake within 5 s"),
    (b"HTTP/1.1 400 Bad Request\r\n\r\n" + b"x" * 64, "it does not speak Dask's protocol"),
    (b"\xff" * 64, "it does not speak Dask's protocol"),
], ids=["silent", "http", "garbage"])
def test_dask_pointed_at_something_else_is_one_line_within_the_promised_time(tmp_path, send, why):
    pytest.importorskip("distributed")
    _write(tmp_path, SWEEP)
    srv, address = _listener(send)
    try:
        t0 = time.monotonic()
        line = one_line(cdmasim_cli("sweep", "sw.toml", "--store", "st", "--dask", address, cwd=tmp_path))
        assert time.monotonic() - t0 < 20       # 5 s promised, plus start-up on a busy machine
    finally:
        srv.close()
    assert line == f"cdmasim: error: --dask: cannot reach the Dask scheduler at {address}: {why}"


# --- the other commands: refused before any work, nothing written


def _header_only_pcap(path):
    path.write_bytes(bytes.fromhex("d4c3b2a1020004000000000000000000ffff000001000000"))


COMMAND_CASES = [
    ("reproduce_out_proc", None, ["reproduce", "jung", "--quick", "--out", "/proc/sys/kernel"],
     "--out: /proc/sys/kernel: not writable"),
    ("report_html_is_a_folder", lambda d: (d / "rep" / "report.html").mkdir(parents=True),
     ["reproduce", "jung", "--quick", "--out", "rep"],
     "--out: rep/report.html: exists and is not a regular file; reproduce writes one there (nothing was written)"),
    ("reproduce_lee_header_only_pcap", lambda d: _header_only_pcap(d / "hdr.pcap"),
     ["reproduce", "lee", "--quick", "--out", "rl", "--pcap", "hdr.pcap"],
     "hdr.pcap: no TCP connection carrying data in this capture"),
    ("reproduce_lee_not_a_pcap", lambda d: (d / "np.pcap").write_text("not a capture"),
     ["reproduce", "lee", "--quick", "--out", "rl", "--pcap", "np.pcap"],
     "np.pcap: bad magic number 0x6e6f7420: not a pcap (a1b2c3d4/a1b23c4d) or pcapng (0a0d0d0a) file"),
    ("emulate_log_proc", None, ["emulate", str(EXAMPLES / "emulate_four_users.toml"), "--user", "ue1=true",
                                "--log", "/proc/x"], "--log: /proc/x: cannot be created (/proc is not a writable folder)"),
    ("mahimahi_window_10000h", lambda d: (d / "t.txt").write_text("3\n4\n5\n"),
     ["channel", "stats", "t.txt", "--mahimahi-window", "10000h"],
     "--mahimahi-window: 36000000000 ms is outside 1 ms .. 1 h"),
    ("channel_stats_plot_cannot_be_made", lambda d: (d / "t.txt").write_text("3\n4\n5\n"),
     ["channel", "stats", "t.txt", "--plot", "/proc/x/y"], "--plot: /proc/x/y: cannot be created (/proc is not a writable folder)"),
    ("pcap_plot_cannot_be_made", lambda d: _header_only_pcap(d / "c.pcap"),
     ["pcap", "analyze", "c.pcap", "--plot", "/proc/x/y"], "--plot: /proc/x/y: cannot be created (/proc is not a writable folder)"),
    ("evdo_scheduler_comma", None, ["evdo", "schedule", "--preset", "stationary", "--users", "2", "--slots", "1000",
                                    "--scheduler", ","], "--scheduler: ',' names no scheduler (give pf, rr and/or maxci)"),
    ("objects_per_page_1e9", lambda d: (d / "web.toml").write_text(
        (EXAMPLES / "web_browsing.toml").read_text().replace("[[flow]]", "[[flow]]\nobjects_per_page = 1000000000", 1)),
     ["run", "web.toml"], None),
    ("sample_interval_1ms_for_an_hour", lambda d: (d / "cell.toml").write_text(
        (EXAMPLES / "cdma2000_cell.toml").read_text().replace('duration = "100s"', 'duration = "3600s"')
        .replace('sample_interval = "100ms"', 'sample_interval = "1ms"')),
     ["run", "cell.toml"], "cell.toml:15: simulation.sample_interval: 3600000 samples x 605 series = 2178000000 values "
                           "over the run (at most 50000000): give a longer sample_interval"),
]


# --- the Python API: InputError for every bad argument


@pytest.mark.parametrize("call, words", [
    (lambda t: cdmasim.run(EXAMPLES / "generic.toml").to_dir("/proc/x"), "/proc/x: cannot be created"),
    (lambda t: cdmasim.sweep(SWEEP, t / "st", jobs="2"), "jobs must be an integer"),
    (lambda t: cdmasim.sweep(SWEEP, t / "st", jobs=0), "jobs must be an integer"),
    (lambda t: cdmasim.sweep(SWEEP, t / "st", dask=5), "dask: expected"),
    (lambda t: cdmasim.sweep(SWEEP, t / "st", worker_memory="lots"), "worker_memory"),
    (lambda t: cdmasim.sweep(SWEEP, None), "a store is a folder path"),
    (lambda t: cdmasim.run(123), "a scenario is a path, a TOML string or a dict, not int"),
    (lambda t: cdmasim.run(EXAMPLES / "generic.toml", pcap_dir=5), "pcap_dir"),
    (lambda t: cdmasim.run(EXAMPLES / "generic.toml", progress="yes"), "progress"),
    (lambda t: cdmasim.load_sweep(None), "a result store is a folder path, not NoneType"),
    (lambda t: cdmasim.load_sweep(t), "not a cdmasim result store"),
    (lambda t: cdmasim.load_sweep(t / "absent"), "no such result store"),
    (lambda t: cdmasim.evdo.schedule(2, 100, preset="stationary", schedulers=[]), "schedulers"),
    (lambda t: cdmasim.channel.stats(str(EXAMPLES / "dumbbell.toml"), format="mahimahi", mahimahi_window_ms=2**40),
     "mahimahi_window_ms"),
], ids=["to_dir_proc", "sweep_jobs_str", "sweep_jobs_0", "sweep_dask_int", "sweep_worker_memory", "sweep_store_none",
        "run_123", "run_pcap_dir_int", "run_progress_str", "load_sweep_none", "load_sweep_not_a_store",
        "load_sweep_absent", "schedule_no_schedulers", "mahimahi_window_huge"])
def test_bad_api_arguments_are_input_errors(tmp_path, call, words):
    with pytest.raises(cdmasim.InputError) as e:
        call(tmp_path)
    assert words in str(e.value) and "\n" not in str(e.value)
    assert not (tmp_path / "st").exists()


def test_numpy_integers_are_seeds_in_sweeps_and_dicts(tmp_path):
    spec = {"sweep": {"name": "np", "scenario": str(EXAMPLES / "dumbbell.toml"), "seeds": list(np.arange(2, 4))},
            "set": {"simulation.duration": "1s", "dumbbell.flows": np.int64(1)}}
    r = cdmasim.sweep(spec, tmp_path / "st", jobs=1)
    assert r["runs_done"] == 2
    assert sorted(cdmasim.load_sweep(tmp_path / "st").seed) == [2, 3]
    import tomllib

    doc = tomllib.loads((EXAMPLES / "dumbbell.toml").read_text())
    doc["simulation"].update(duration="1s", seed=np.int64(3))
    doc["dumbbell"]["flows"] = np.int32(1)
    assert cdmasim.run(doc).summary["seed"] == 3


def test_emulate_takes_shell_commands_as_the_docs_say():
    from cdmasim.emulate import _check_command

    for ok in ("exit 1", "cd /tmp && true", "FOO=1 true", "if true; then true; fi", "iperf3 -v"):
        if ok.startswith("iperf3") and shutil.which("iperf3") is None:
            continue
        _check_command("--user ue1", ok)
    with pytest.raises(cdmasim.InputError, match="--user ue1: program 'nosuchprogram' not found"):
        _check_command("--user ue1", "FOO=1 nosuchprogram -x")
    with pytest.raises(cdmasim.InputError, match="unbalanced quotes"):
        _check_command("--user ue1", "echo 'oops")


# --- swept fields come back typed


def test_swept_quantities_come_back_as_numbers_in_base_units_beside_the_text(tmp_path):
    spec = f"""[sweep]
name = "typed"
scenario = "{EXAMPLES / 'dumbbell.toml'}"
[set]
"simulation.duration" = "1s"
"dumbbell.flows" = 1
[grid]
"dumbbell.queue.limit" = ["10pkt", "200pkt", "50pkt"]
"dumbbell.bottleneck_rate" = ["1.5Mbps", "800kbps"]
[zip]
"dumbbell.bottleneck_delay" = ["20ms", "0.1s"]
"dumbbell.tcp.cc" = ["reno", "cubic"]
"""
    cdmasim.sweep(spec, tmp_path / "st", jobs=2)
    df = cdmasim.load_sweep(tmp_path / "st")
    assert len(df) == 12
    # Text as written, and numbers that sort as numbers.
    assert set(df["dumbbell.queue.limit"]) == {"10pkt", "200pkt", "50pkt"}
    assert sorted(set(df["dumbbell.queue.limit:pkts"])) == [10.0, 50.0, 200.0]
    assert df["dumbbell.queue.limit:pkts"].dtype.kind == "f"
    assert set(df["dumbbell.bottleneck_rate:bps"]) == {1.5e6, 8e5}
    assert set(df["dumbbell.bottleneck_delay:s"]) == {0.02, 0.1}
    assert "dumbbell.tcp.cc:s" not in df and not any(c.startswith("dumbbell.tcp.cc:") for c in df)
    ordered = df.sort_values("dumbbell.queue.limit:pkts")["dumbbell.queue.limit"].drop_duplicates().tolist()
    assert ordered == ["10pkt", "50pkt", "200pkt"]
    # The same columns in each run's point.parquet, for SQL over the store.
    import pandas as pd

    point = pd.read_parquet(next((tmp_path / "st" / "runs").iterdir()) / "point.parquet")
    assert {"dumbbell.queue.limit", "dumbbell.queue.limit:pkts", "dumbbell.bottleneck_delay:s"} <= set(point.columns)


def test_a_queue_limit_swept_in_packets_and_bytes_gets_a_column_each(tmp_path):
    spec = f"""[sweep]
name = "mixed"
scenario = "{EXAMPLES / 'dumbbell.toml'}"
[set]
"simulation.duration" = "1s"
"dumbbell.flows" = 1
[grid]
"dumbbell.queue.limit" = ["10pkt", "15kB"]
"""
    cdmasim.sweep(spec, tmp_path / "st", jobs=1)
    df = cdmasim.load_sweep(tmp_path / "st").set_index("dumbbell.queue.limit")
    assert df.loc["10pkt", "dumbbell.queue.limit:pkts"] == 10.0 and np.isnan(df.loc["10pkt", "dumbbell.queue.limit:bytes"])
    assert df.loc["15kB", "dumbbell.queue.limit:bytes"] == 15000.0 and np.isnan(df.loc["15kB", "dumbbell.queue.limit:pkts"])


# --- the second catalogue: hostile inputs to the outputs, the store and the API


def test_run_out_keeps_the_files_already_in_the_folder(tmp_path):
    # `--out .` must not empty the working folder, the scenario file included.
    scenario = tmp_path / "mini.toml"
    scenario.write_text((EXAMPLES / "generic.toml").read_text())
    (tmp_path / "thesis.tex").write_text("mine")
    (tmp_path / "data").mkdir()
    p = cdmasim_cli("run", "mini.toml", "--out", ".", "--quiet", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "thesis.tex").read_text() == "mine" and (tmp_path / "data").is_dir()
    assert scenario.exists() and (tmp_path / "flows.parquet").exists() and (tmp_path / "summary.json").exists()
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".cdmasim-new-")]


def test_a_store_cannot_be_made_inside_another_store(tmp_path):
    cdmasim.sweep(SWEEP, tmp_path / "S", jobs=1)
    inner = tmp_path / "S" / "runs" / ("f" * 32)
    with pytest.raises(cdmasim.InputError, match="is inside the result store"):
        cdmasim.sweep(SWEEP, inner, jobs=1)
    assert not inner.exists()


def test_a_store_whose_runs_folder_is_a_link_is_refused_and_the_target_kept(tmp_path):
    cdmasim.sweep(SWEEP, tmp_path / "S", jobs=1)
    victim = tmp_path / "victim" / ("0123456789abcdef" * 2)
    victim.mkdir(parents=True)
    (victim / "data").write_text("mine")
    shutil.rmtree(tmp_path / "S" / "runs")
    os.symlink(tmp_path / "victim", tmp_path / "S" / "runs")
    with pytest.raises(cdmasim.InputError, match="runs is not a folder of the store"):
        cdmasim.sweep(SWEEP, tmp_path / "S", jobs=1)
    assert (victim / "data").read_text() == "mine"


def _sql(store, sql):
    import sqlite3

    con = sqlite3.connect(store / "manifest.sqlite")
    with con:
        con.execute(sql)
    con.close()


@pytest.mark.parametrize("files", ["'garbage'", "'[1,2]'", "'{\"flows.parquet\": 5}'"])
def test_a_damaged_file_list_in_the_manifest_is_redone_by_a_sweep_and_named_by_load_sweep(tmp_path, files):
    st = tmp_path / "S"
    cdmasim.sweep(SWEEP, st, jobs=1)
    key = sorted(os.listdir(st / "runs"))[0]
    _sql(st, f"UPDATE runs SET files = {files} WHERE key = '{key}'")
    with pytest.raises(cdmasim.InputError, match=f"run {key}: its file list"):
        cdmasim.load_sweep(st)
    r = cdmasim.sweep(SWEEP, st, jobs=1)
    assert (r["runs_repaired"], r["runs_done"]) == (1, 2)
    assert len(cdmasim.load_sweep(st)) == 2


def test_a_manifest_point_that_is_not_a_table_is_named(tmp_path):
    st = tmp_path / "S"
    cdmasim.sweep(SWEEP, st, jobs=1)
    _sql(st, "UPDATE runs SET point = '[1]'")
    with pytest.raises(cdmasim.InputError, match="its point is not a table of values"):
        cdmasim.load_sweep(st)


PROBE_CASES = [
    ("sweep_value_is_a_date", lambda d: _write(d, SWEEP.replace('["reno", "cubic"]', "[1979-05-27T07:32:00Z]")),
     ["sweep", "sw.toml", "--store", "st"], 'sw.toml: grid."dumbbell.tcp.cc": a datetime is not a scenario value '
                                            "(text, number, boolean, list or table)"),
    ("sweep_file_not_utf8", lambda d: (d / "sw.toml").write_bytes(b"# \xff\n[sweep]\n"),
     ["sweep", "sw.toml", "--store", "st"], "sw.toml: cannot read: not UTF-8 text"),
    ("sweep_nested_500_deep", lambda d: _write(d, SWEEP.replace('["reno", "cubic"]', "[" * 500 + "1" + "]" * 500)),
     ["sweep", "sw.toml", "--store", "st"], "sw.toml: invalid TOML: nested too deeply"),
    ("sweep_seeds_at_2_63", lambda d: _write(d, SWEEP.replace("seeds = [1]", "seeds = { first = 9223372036854775807, count = 2 }")),
     ["sweep", "sw.toml", "--store", "st"],
     "sw.toml: sweep.seeds: seeds 9223372036854775807..9223372036854775808 are not all in [0, 2^63)"),
    ("sweep_file_is_dev_zero", None, ["sweep", "/dev/zero", "--store", "st"], "/dev/zero: a device, not a regular file"),
    ("run_file_is_dev_zero", None, ["run", "/dev/zero"], "/dev/zero: a device, not a regular file"),
    ("run_file_is_a_fifo", lambda d: os.mkfifo(d / "f"), ["run", "f"], "f: a FIFO, not a regular file"),
    ("sweep_scenario_is_dev_zero", lambda d: _write(d, '[sweep]\nscenario = "/dev/zero"\n'),
     ["sweep", "sw.toml", "--store", "st"], "/dev/zero: a device, not a regular file"),
    ("sweep_base_scenario_invalid", lambda d: _write(d, '[sweep]\n[scenario]\nsimulation = { duration = "0s" }\n'),
     ["sweep", "sw.toml", "--store", "st"], None),
    ("worker_memory_1kB", lambda d: _write(d, SWEEP), ["sweep", "sw.toml", "--store", "st", "--worker-memory", "1kB"],
     "--worker-memory: 1000 bytes is outside 256MB .. 1000GB (a worker needs about 200 MB to start)"),
    ("worker_memory_2_64", lambda d: _write(d, SWEEP),
     ["sweep", "sw.toml", "--store", "st", "--worker-memory", "18446744073709551615B"],
     "--worker-memory: 18446744073709551615 bytes is outside 256MB .. 1000GB (a worker needs about 200 MB to start)"),
    ("dask_empty_address", lambda d: _write(d, SWEEP), ["sweep", "sw.toml", "--store", "st", "--dask", ""],
     "--dask: expected 'local' or tcp://HOST:PORT, got ''"),
    ("dask_refused_writes_no_store", lambda d: _write(d, SWEEP),
     ["sweep", "sw.toml", "--store", "st", "--dask", "tcp://127.0.0.1:9"], None),
    ("reproduce_paper_folder_is_a_file", lambda d: ((d / "o").mkdir(), (d / "o" / "jung").write_text("x")),
     ["reproduce", "jung", "--quick", "--out", "o"],
     "--out: o/jung: exists and is not a folder; reproduce writes one there (nothing was written)"),
    ("reproduce_calls_folder_is_a_file", lambda d: ((d / "o").mkdir(), (d / "o" / "calls").write_text("x")),
     ["reproduce", "liu", "--quick", "--out", "o"],
     "--out: o/calls: exists and is not a folder; reproduce writes one there (nothing was written)"),
    ("reproduce_report_json_is_a_folder", lambda d: (d / "o" / "jung" / "report.json").mkdir(parents=True),
     ["reproduce", "jung", "--quick", "--out", "o"],
     "--out: o/jung/report.json: exists and is not a regular file; reproduce writes one there (nothing was written)"),
    ("reproduce_figure_is_a_folder", lambda d: (d / "o" / "jung" / "fig1.png").mkdir(parents=True),
     ["reproduce", "jung", "--quick", "--out", "o"],
     "--out: o/jung/fig1.png: exists and is not a regular file; reproduce writes one there (nothing was written)"),
    ("reproduce_dask_refused_writes_nothing", None,
     ["reproduce", "jung", "--quick", "--out", "o", "--dask", "tcp://127.0.0.1:9"], None),
    ("examples_path_long_name", None, ["examples", "path", "a" * 300], None),
    ("examples_path_outside", lambda d: (d / "bad.toml").write_text("x ="), ["examples", "path", "bad"],
     None),
]


@pytest.mark.parametrize("name, setup, argv, expected", COMMAND_CASES + PROBE_CASES,
                         ids=[c[0] for c in COMMAND_CASES + PROBE_CASES])
def test_commands_refuse_bad_input_before_any_work(tmp_path, name, setup, argv, expected):
    if setup:
        setup(tmp_path)
    before = snapshot(tmp_path)
    line = one_line(cdmasim_cli(*argv, cwd=tmp_path))
    if expected is not None:
        assert line == "cdmasim: error: " + expected
    assert snapshot(tmp_path) == before, "nothing written"
    if name == "objects_per_page_1e9":
        assert re.fullmatch(r"cdmasim: error: web\.toml:\d+: flow\[0\]\.objects_per_page: at most 10000 objects "
                            r"per page \(for a law: its mean or max\)", line), line
    if name == "sweep_base_scenario_invalid":
        assert "no run of the sweep is a valid scenario" in line
    if name.startswith("examples_path"):
        assert "no example named" in line


@pytest.mark.parametrize("call, words", [
    (lambda t: cdmasim.sweep(b"sw.toml", t / "st"), "a sweep is a file path, TOML text or a dict, not bytes"),
    (lambda t: cdmasim.sweep(5, t / "st"), "a sweep is a file path, TOML text or a dict, not int"),
    (lambda t: cdmasim.sweep({"sweep": {"scenario": str(EXAMPLES / "dumbbell.toml")}, "grid": {1: [1]}}, t / "st"),
     "a path is text"),
    (lambda t: cdmasim.sweep({"sweep": {"scenario": str(EXAMPLES / "dumbbell.toml")},
                              "grid": {"dumbbell.flows": [object()]}}, t / "st"), "a object is not a scenario value"),
    (lambda t: cdmasim.sweep({"sweep": {"scenario": str(EXAMPLES / "dumbbell.toml")},
                              "grid": {"dumbbell.flows": [10**5000]}}, t / "st"), "too large"),
    (lambda t: cdmasim.sweep({"sweep": {"scenario": str(EXAMPLES / "dumbbell.toml"), "seeds": [2**63]}}, t / "st"),
     "[0, 2^63)"),
    (lambda t: cdmasim.sweep(SWEEP, "a\x00b"), "NUL"),
    (lambda t: cdmasim.sweep(SWEEP, t / "st", pool="x"), "pool: expected"),
    (lambda t: cdmasim.run("a\x00b"), "NUL"),
    (lambda t: cdmasim.run(EXAMPLES / "generic.toml", progress=lambda a, b: True, progress_every=1e300), "progress_every"),
    (lambda t: cdmasim.run(EXAMPLES / "generic.toml", progress=lambda a, b: True, progress_every=b"1"), "progress_every"),
    (lambda t: cdmasim.load_sweep(t, sweep=[1]), "not a cdmasim result store"),
], ids=["sweep_bytes", "sweep_int", "grid_key_int", "grid_value_object", "grid_value_huge_int", "seed_2_63",
        "store_nul", "pool_str", "run_nul", "progress_every_1e300", "progress_every_bytes", "load_sweep_bad_sweep"])
def test_the_probe_catalogue_in_python(tmp_path, call, words):
    with pytest.raises(cdmasim.InputError) as e:
        call(tmp_path)
    assert words in str(e.value) and "\n" not in str(e.value)


def test_a_numpy_array_is_a_list_of_values_in_a_sweep(tmp_path):
    spec = {"sweep": {"name": "arr", "scenario": str(EXAMPLES / "dumbbell.toml"),
                      "seeds": {"first": np.int64(1), "count": np.int64(1)}},
            "set": {"simulation.duration": "1s"}, "grid": {"dumbbell.flows": np.array([1, 2])}}
    assert cdmasim.sweep(spec, tmp_path / "st", jobs=1)["runs_done"] == 2


def test_an_edited_parsed_scenario_holding_an_object_is_refused():
    p = cdmasim.parse(EXAMPLES / "generic.toml")
    p["x"] = object()
    with pytest.raises(cdmasim.InputError, match="changed after parse"):
        cdmasim.run(p)


def test_a_point_the_scenario_refuses_is_recorded_as_failed_and_the_sweep_goes_on(tmp_path):
    # objects_per_page = 10^9 would be a 7.5 GB allocation: the scenario
    # reader refuses it, the point is recorded as failed with that line, and
    # a rerun does not run it again.
    spec = {"sweep": {"name": "objects", "scenario": str(EXAMPLES / "web_browsing.toml")},
            "set": {"simulation.duration": "30s"}, "grid": {"flow[0].objects_per_page": [3, 1_000_000_000]}}
    r = cdmasim.sweep(spec, tmp_path / "st", jobs=2)
    assert (r["runs_done"], r["runs_failed"]) == (1, 1)
    df = cdmasim.load_sweep(tmp_path / "st").set_index("flow[0].objects_per_page")
    assert df.loc[1_000_000_000, "error"] == ("ScenarioError: <dict>: flow[0].objects_per_page: at most 10000 objects "
                                              "per page (for a law: its mean or max)")
    assert cdmasim.sweep(spec, tmp_path / "st", jobs=2)["runs_new"] == 0
