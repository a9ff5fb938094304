"""Run a sweep into a result store: `cdmasim.sweep(...)` and the engine of
`cdmasim sweep` and `cdmasim reproduce`.

Workers (a local process pool, or Dask) only simulate: each returns its
run's files as bytes, and this process alone writes the store, so the store
has one writer and remote Dask workers need no shared file system. A run
already in the store (same key) is not run again, which is what makes a
killed sweep resumable and an edited sweep run only its new points."""

from __future__ import annotations

import io
import json
import logging
import os
import socket
import struct
import sys
import tempfile
import time
import zlib
from collections import namedtuple

from ._units import count, size_bytes
from .errors import InputError
from .result import table_names
from .simulate import ScenarioError, Source, parse, run, scenario_text
from .store import Store, canonical, run_key
from .sweep_spec import SweepError, SweepSpec, load, typed_point
from .workers import WorkerPool

DASK_CONNECT_TIMEOUT_S = 5


def _tables_as_parquet(result, key):
    """Each table of a Result as Parquet bytes, with the run key as first
    column so that SQL over runs/*/T.parquet can join on it (written from
    the records without pandas: a small run's DataFrames cost more
    than its simulation)."""
    out = {}
    for name in table_names():
        buf = io.BytesIO()
        if name in ("series", "drops"):
            # In pieces: a long run's table is never whole in memory.
            getattr(result, f"write_{name}_parquet")(buf, run_key=key)
        else:
            result.write_table_parquet(name, buf, run_key=key)
        out[f"{name}.parquet"] = buf.getvalue()
    return out


def _point_parquet(key, sweep_name, seed, point):
    """One row: the run key, sweep, seed and the swept values (one column
    per path), for SQL that joins runs/*/point.parquet with the tables
    (written with Arrow alone: read back, the same DataFrame pandas would
    have written, without importing pandas into the sweep's process)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    row = {"run": key, "sweep": sweep_name, "seed": seed}
    row.update({path: (json.dumps(v) if isinstance(v, (dict, list)) else v) for path, v in typed_point(point).items()})
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pylist([row]), buf)
    return buf.getvalue()


def execute(key, scenario, seed, pcap=False, sweep_name=None, point=None):
    """Run one scenario with `seed` (in a worker): the spec the sweep parsed
    and keyed (a `PackedSpec`), or a document that did not parse, to
    record why. Returns (status, error, files, wall_s); files maps names to
    bytes, point.parquet among them when `sweep_name` and `point` (the
    run's labels) are given."""
    t0 = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="cdmasim-run-") as tmp:
            pdir = os.path.join(tmp, "pcap") if pcap else None
            result = run(_unpacked(scenario), seed=seed, pcap_dir=pdir)
            files = _tables_as_parquet(result, key)
            files["summary.json"] = result.summary_json().encode()
            if pdir:
                for name in sorted(os.listdir(pdir)):
                    with open(os.path.join(pdir, name), "rb") as f:
                        files[f"pcap/{name}"] = f.read()
    except Exception as e:  # noqa: BLE001 - a failed run is recorded, the sweep goes on
        msg = " ".join(str(e).split()) or type(e).__name__
        return "failed", f"{type(e).__name__}: {msg}", None, time.perf_counter() - t0
    if sweep_name is not None:
        # Outside the run's failures: a fault here is the sweep's, not the run's.
        files["point.parquet"] = _point_parquet(key, sweep_name, seed, point)
    return "done", None, files, time.perf_counter() - t0


#: A point's spec as its runs hold it until a worker runs it: the core's
#: JSON, compressed (a cdma2000 cell of 100 mobiles is 141 KB of spec and
#: 6 KB packed), so that a plan of many points holds and ships little.
PackedSpec = namedtuple("PackedSpec", "data shown")


def _parsed(doc):
    """(what a point's runs hash, what they run, the scenario's error):
    the validated spec when the scenario parses (so '100ms' and '0.1s' are
    one run), which the workers then run as it is, once per seed; else the
    document itself (the run will fail, and is recorded once)."""
    try:
        spec = parse(doc)
    except ScenarioError as e:
        return canonical({"unparsed": doc}), doc, e
    source = scenario_text(spec)
    return spec._canonical, PackedSpec(zlib.compress(source.text.encode(), 1), source.shown), None


def _unpacked(scenario):
    """What `run` takes: a packed spec as its `Source`, anything else as it is."""
    if isinstance(scenario, PackedSpec):
        return Source(zlib.decompress(scenario.data).decode(), scenario.shown, "spec")
    return scenario


class SweepProgress:
    """'[####....] 12/40 runs, 1 failed, 20 s elapsed, ETA 45 s' on stderr,
    redrawn in place when stderr is a terminal (silent otherwise)."""

    WIDTH = 24

    def __init__(self, total, already, stream=None, enabled=None):
        self.stream = stream or sys.stderr
        self.total, self.done, self.failed, self.already = total, already, 0, already
        self.t0 = time.monotonic()
        self.enabled = (hasattr(self.stream, "isatty") and self.stream.isatty()) if enabled is None else enabled
        self.drawn = False

    def update(self, failed=False):
        self.done += 1
        self.failed += bool(failed)
        if not self.enabled:
            return
        frac = self.done / self.total if self.total else 1.0
        elapsed = time.monotonic() - self.t0
        ran = self.done - self.already
        eta = f"{elapsed / ran * (self.total - self.done):.0f} s" if ran else "?"
        filled = int(frac * self.WIDTH)
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (self.WIDTH - filled)}] {self.done}/{self.total} runs, "
            f"{self.failed} failed, {elapsed:.0f} s elapsed, ETA {eta} ")
        self.stream.flush()
        self.drawn = True

    def close(self):
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()


class _LocalPool:
    """Worker processes on this machine (cdmasim.workers.WorkerPool): one
    task each at a time, so a run that kills its worker is reported as
    failed and the others go on; the workers die with this process."""

    def __init__(self, jobs, memory=None, pool=None):
        self.own = pool is None
        self.pool = pool if pool is not None else WorkerPool(jobs, memory=memory)

    def map_unordered(self, calls):
        tasks = [("cdmasim.sweeps:execute", args) for args in calls]
        for (_, args), (kind, value) in self.pool.map_unordered(tasks):
            yield args[0], (value if kind == "ok" else _died(value))

    def close(self, interrupted=False):
        if self.own or interrupted:
            self.pool.close()


def _died(reason):
    """A run whose worker died: failed, with why."""
    return "failed", reason, None, None


def _probe_dask(address, timeout):
    """Check that a TCP address answers like a Dask scheduler before handing
    it to distributed (which waits past its own timeout on a silent peer and
    reads a stranger's bytes as frame lengths): a scheduler sends its
    handshake first, a length-prefixed msgpack frame naming its pickle
    protocol. Other schemes (tls://, ucx://) are left to distributed."""
    addr = address[len("tcp://"):] if address.startswith("tcp://") else address
    if "://" in addr:
        return
    host, sep, port = addr.rpartition(":")
    host = host.strip("[]")
    if not sep or not port.isdigit() or not host:
        raise InputError(f"--dask: '{address}' is not tcp://HOST:PORT (or 'local')")
    deadline = time.monotonic() + timeout

    def recv_exactly(sock, n):
        buf = b""
        while len(buf) < n:
            sock.settimeout(max(deadline - time.monotonic(), 0.01))
            chunk = sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("the peer closed the connection")
            buf += chunk
        return buf

    why = None
    try:
        with socket.create_connection((host, int(port)), timeout=timeout) as sock:
            (total,) = struct.unpack("<Q", recv_exactly(sock, 8))
            if not 16 <= total <= 1 << 20:
                why = "it does not speak Dask's protocol"
            else:
                body = recv_exactly(sock, total)
                if b"pickle-protocol" not in body:
                    why = "it does not speak Dask's protocol"
    except socket.timeout:
        why = f"no Dask handshake within {timeout:g} s"
    except (OSError, ConnectionError, struct.error) as e:
        why = " ".join(str(getattr(e, "strerror", None) or e).split())
    if why:
        raise InputError(f"--dask: cannot reach the Dask scheduler at {address}: {why}")


class _DaskPool:
    """A Dask distributed Client: `local` starts a LocalCluster of `jobs`
    single-threaded worker processes, anything else is a scheduler address.
    `reproduce` makes one and hands it to every sweep (`dask=` takes it)."""

    def __init__(self, address, jobs):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise InputError("--dask needs the 'distributed' package (pip install 'dask[distributed]')") from None
        if not isinstance(address, str) or not address.strip():
            raise InputError(f"--dask: expected 'local' or tcp://HOST:PORT, got {address!r}")
        self.cluster = None
        if address != "local":
            _probe_dask(address, DASK_CONNECT_TIMEOUT_S)
        try:
            if address == "local":
                self.cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                                            dashboard_address=None, silence_logs=logging.ERROR)
                self.client = Client(self.cluster)
            else:
                self.client = Client(address, timeout=DASK_CONNECT_TIMEOUT_S)
        except Exception as e:  # noqa: BLE001 - distributed raises many kinds for a bad peer
            if self.cluster is not None:
                self.cluster.close()
            msg = " ".join(str(e).split()) or type(e).__name__
            raise InputError(f"--dask: cannot reach the Dask scheduler at {address}: {msg}") from None

    def map_unordered(self, calls):
        from distributed import as_completed

        futures = {}
        for args in calls:
            # pure=False: equal arguments are still separate runs to Dask.
            futures[self.client.submit(execute, *args, pure=False)] = args[0]
        for fut in as_completed(list(futures)):
            try:
                outcome = fut.result()
            except Exception as e:  # noqa: BLE001 - e.g. KilledWorker: the run killed every worker it met
                outcome = _died(f"{type(e).__name__}: {' '.join(str(e).split())}")
            yield futures[fut], outcome

    def close(self, interrupted=False):
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def sweep(spec: str | os.PathLike | dict | SweepSpec, store: str | os.PathLike, jobs: int | None = None,
          dask: str | None = None, progress: bool = False, pcap: bool = False, retry_failed: bool = False,
          verify: bool = False, worker_memory: int | str | None = None, pool: WorkerPool | None = None) -> dict:
    """Run every point x seed of `spec` (a sweep file path, TOML string,
    dict or SweepSpec) that `store` (a folder: new, empty, or a result
    store) does not hold yet.

    jobs: worker processes (default: all cores). dask: None (local
    workers), 'local' (a LocalCluster) or a scheduler address
    'tcp://HOST:PORT'. pcap: keep each run's pcap captures in the store
    (runs/KEY/pcap/). retry_failed: run again the runs recorded as failed.
    verify: check every stored file's CRC-32, not only its size, and redo
    damaged runs. worker_memory: bytes (or "4GB") each local worker may
    allocate; a run that needs more fails alone. pool: a
    cdmasim.workers.WorkerPool to use (and leave running) instead of
    starting one.

    A run whose worker dies is recorded as failed with the reason; the
    sweep goes on. Returns {'runs_total', 'runs_done', 'runs_failed',
    'runs_cached', 'runs_new', 'runs_new_failed', 'runs_repaired', 'store',
    'sweep', 'wall_s'} (the --json line) plus 'keys' (every run's key) and
    'runs' ((key, point, seed) per point and seed, for store.load_runs).
    Raises InputError (SweepError for the sweep file) on bad input."""
    return sweep_many([spec], store, jobs=jobs, dask=dask, progress=progress, pcap=pcap, retry_failed=retry_failed,
                      verify=verify, worker_memory=worker_memory, pool=pool)[0]


#: What a worker may be held to, in the units a size is written in: Python
#: with pandas and pyarrow needs about 200 MB before a run starts; 1000 GB is
#: far above any machine a sweep runs on (and RLIMIT_DATA's range).
MIN_WORKER_MEMORY = 256_000_000
MAX_WORKER_MEMORY = 1000_000_000_000


def worker_memory_bytes(value, what="--worker-memory"):
    """None, or bytes from an integer or a size such as '4GB', in
    [256MB, 1000GB]."""
    if value is None:
        return None
    n = size_bytes(value, what) if isinstance(value, str) else count(value, what)
    if not MIN_WORKER_MEMORY <= n <= MAX_WORKER_MEMORY:
        raise InputError(f"{what}: {n} bytes is outside 256MB .. 1000GB (a worker needs about 200 MB to start)")
    return n


class Plan:
    """A sweep's runs, keyed: (key, point, seed, scenario to run) in the file's order."""

    def __init__(self, spec, pcap=False):
        self.spec, self.pcap = load(spec), pcap
        self.runs, self.failures, self.first_error = [], 0, None
        parsed_of = {}    # a point's seeds share its document: parsed and made canonical once
        for point, seed, doc in self.spec.runs():
            at = json.dumps(doc, sort_keys=True, default=str)
            if at not in parsed_of:
                parsed_of[at] = _parsed(doc)
            text, scenario, err = parsed_of[at]
            if err is not None and "unknown key" in err.message:
                # A swept or set path that the scenario format does not have.
                raise SweepError(f"{self.spec.source}: {err.field or 'scenario'}: {err.message}")
            if err is not None:
                self.failures += 1
                self.first_error = self.first_error or str(err)
            self.runs.append((run_key(None, seed, text=text), point, seed, scenario))
        # One key may come from several points (e.g. a swept value equal to
        # the default); it runs once.
        self.unique = {}
        for r in self.runs:
            self.unique.setdefault(r[0], r)
        if self.failures == len(self.runs):
            # Not one point makes a valid scenario: the base is at fault, not a swept value.
            raise SweepError(f"{self.spec.source}: no run of the sweep is a valid scenario, e.g. {self.first_error}")


def sweep_many(specs, store, jobs=None, dask=None, progress=False, pcap=False, retry_failed=False, verify=False,
               worker_memory=None, pool=None, repair=True, stop=None, tally=None):
    """Several sweeps into one store at once, their runs sharing the
    workers (what `reproduce` uses to keep every core busy); one report per
    sweep, as `sweep` returns. A spec may be (spec, pcap) to set pcap per
    sweep. A run two sweeps share runs once, under the first one's labels.
    stop: a threading.Event; once it is set no further result is recorded
    and [] is returned (for a sweep in a thread that another one stops).
    tally: a progress.Tally told the runs to do and each one done."""
    t0 = time.perf_counter()
    plans = [Plan(*s) if isinstance(s, tuple) else Plan(s, pcap) for s in specs]
    jobs = (os.cpu_count() or 1) if jobs is None else count(jobs, "jobs", 1, 1024)
    worker_memory = worker_memory_bytes(worker_memory, "worker_memory")
    if dask is not None and not isinstance(dask, _DaskPool) and (not isinstance(dask, str) or not dask.strip()):
        raise InputError(f"--dask: expected 'local' or tcp://HOST:PORT, got {dask!r}")
    if pool is not None:
        if not isinstance(pool, WorkerPool):
            raise InputError(f"pool: expected a cdmasim.workers.WorkerPool, got {type(pool).__name__}")
    union = {}
    for p in plans:
        for key, r in p.unique.items():
            union.setdefault(key, (p, r))
    # With --dask, connect first (even when nothing is left to run): a wrong
    # address is reported before anything is written, not hidden by a
    # complete store.
    own_dask = isinstance(dask, str)
    dask_pool = _DaskPool(dask, jobs) if own_dask else dask
    try:
        st = Store(store)
    except BaseException:
        if own_dask:
            dask_pool.close()
        raise
    try:
        # The sweep's own runs: a check that follows the sweep, not the store.
        repaired = st.repair(verify=verify, keys=union) if repair else {}
        if retry_failed:
            for k in st.keys("failed") & set(union):
                st.forget(k)
        have = st.keys()
        todo = {k: pr for k, pr in union.items() if k not in have}
        bar = SweepProgress(len(union), len(union) - len(todo), enabled=None if progress else False)
        if tally is not None:
            tally.expect(len(todo))
        new_failed = set()
        if todo:
            workers = dask_pool or _LocalPool(min(jobs, len(todo)), worker_memory, pool)
            interrupted = True
            try:
                # The worker makes the run's point.parquet too: the main
                # process commits, and also analyses under `reproduce`.
                calls = [(k, r[3], r[2], p.pcap, p.spec.name, r[1]) for k, (p, r) in todo.items()]
                for key, (status, error, files, wall_s) in workers.map_unordered(calls):
                    if stop is not None and stop.is_set():
                        # Its worker may have been killed by the stop: not a failed run.
                        return []
                    p, (_, point, seed, _) = todo[key]
                    st.commit(key, p.spec.name, point, seed, status, error, files, wall_s)
                    if status == "failed":
                        new_failed.add(key)
                    bar.update(status == "failed")
                    if tally is not None:
                        tally.count()
                interrupted = False
            finally:
                if workers is not dask_pool:
                    workers.close(interrupted)
                bar.close()
        statuses = {r["run"]: r["status"] for r in st.rows()}
        reports = []
        for p in plans:
            keys = list(p.unique)
            reports.append({
                "runs_total": len(keys),
                "runs_done": sum(statuses.get(k) == "done" for k in keys),
                "runs_failed": sum(statuses.get(k) == "failed" for k in keys),
                "runs_cached": sum(k not in todo for k in keys),
                "runs_new": sum(k in todo for k in keys),
                "runs_new_failed": len(new_failed & set(keys)),
                "runs_repaired": len(set(repaired) & set(keys)),
                "store": os.fspath(store),
                "sweep": p.spec.name,
                "wall_s": round(time.perf_counter() - t0, 3),
                "keys": keys,
                "runs": [(k, point, seed) for k, point, seed, _ in p.runs],
            })
        return reports
    finally:
        st.close()
        if own_dask:
            dask_pool.close()


def describe(report):
    """The one-line summary `cdmasim sweep` prints."""
    repaired = f", {report['runs_repaired']} damaged run(s) redone" if report.get("runs_repaired") else ""
    return (f"sweep {report['sweep']}: {report['runs_done']} done, {report['runs_failed']} failed "
            f"of {report['runs_total']} runs ({report['runs_new']} run now, {report['runs_cached']} from the store"
            f"{repaired}) in {report['store']}, {report['wall_s']:.1f} s")


def report_json(report):
    """The --json line: the report without the (long) key and run lists."""
    return json.dumps({k: v for k, v in report.items() if k not in ("keys", "runs")})
