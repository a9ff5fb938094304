"""The result store of sweeps: one directory, crash-safe.

    DIR/manifest.sqlite      one row per finished run (done or failed)
    DIR/runs/KEY/            flows, queues, series, drops, point .parquet,
                             summary.json, pcap/ (when captured)
    DIR/tmp/                 runs being written (never read)

A run becomes visible in one step: its files are written and fsynced under
tmp/, the directory is renamed to runs/KEY (atomic on one file system),
and only then is its manifest row committed (SQLite's journal makes that
atomic). A process killed at any moment leaves at worst a tmp/ directory
or a runs/KEY without a row; opening the store removes both, and the run is
simply done again. The manifest is the single source of truth for which
runs exist.

KEY is the first 32 hex digits of SHA-256 over the resolved scenario, the
seed and the cdmasim version with a fingerprint of the compiled core (see
run_key)."""

import hashlib
import json
import os
import shutil
import sqlite3

from . import InputError, __version__

MANIFEST = "manifest.sqlite"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    key TEXT PRIMARY KEY,
    sweep TEXT NOT NULL,
    point TEXT NOT NULL,
    seed INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('done', 'failed')),
    error TEXT,
    version TEXT NOT NULL,
    wall_s REAL,
    seq INTEGER NOT NULL
)"""


_BUILD = None


def build_version():
    """The cdmasim version plus a fingerprint of the compiled core: during
    development the version string stays put while the simulator changes,
    and a store must not hand back runs of an older core as if current."""
    global _BUILD
    if _BUILD is None:
        from . import _core

        h = hashlib.sha256()
        with open(_core.__file__, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        _BUILD = f"{__version__}+core.{h.hexdigest()[:12]}"
    return _BUILD


def run_key(resolved, seed, version=None):
    """Hash of (resolved scenario, seed, cdmasim version with the core's
    fingerprint). `resolved` is any JSON-able value; keys are sorted so that
    dict order does not matter."""
    version = version or build_version()
    blob = json.dumps({"scenario": resolved, "seed": int(seed), "version": version}, sort_keys=True,
                      separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def _fsync_dir(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_file(path, data):
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


class Store:
    """A result store directory (created if missing)."""

    def __init__(self, path):
        self.path = os.fspath(path)
        try:
            os.makedirs(os.path.join(self.path, "runs"), exist_ok=True)
            os.makedirs(os.path.join(self.path, "tmp"), exist_ok=True)
            self.db = sqlite3.connect(os.path.join(self.path, MANIFEST), timeout=30)
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.execute(_SCHEMA)
            self.db.commit()
        except (OSError, sqlite3.Error) as e:
            raise InputError(f"{self.path}: cannot open the result store: {getattr(e, 'strerror', None) or e}") from None
        self._recover()

    def close(self):
        self.db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _recover(self):
        """Remove what a killed writer left: tmp/ contents, and run
        directories whose manifest row was never committed."""
        tmp = os.path.join(self.path, "tmp")
        for name in os.listdir(tmp):
            shutil.rmtree(os.path.join(tmp, name), ignore_errors=True)
        known = self.keys()
        runs = os.path.join(self.path, "runs")
        for name in os.listdir(runs):
            if name not in known:
                shutil.rmtree(os.path.join(runs, name), ignore_errors=True)

    def keys(self, status=None):
        q = "SELECT key FROM runs" + (" WHERE status = ?" if status else "")
        return {k for (k,) in self.db.execute(q, (status,) if status else ())}

    def run_dir(self, key):
        return os.path.join(self.path, "runs", key)

    def commit(self, key, sweep, point, seed, status, error=None, files=None, wall_s=None):
        """Record one finished run. `files` maps relative names (e.g.
        'flows.parquet', 'pcap/a-b.pcap') to bytes; they become visible
        together with the manifest row, or not at all."""
        if files:
            tmp = os.path.join(self.path, "tmp", key)
            shutil.rmtree(tmp, ignore_errors=True)
            for rel, data in sorted(files.items()):
                dest = os.path.join(tmp, rel)
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                _write_file(dest, data)
            for d in {os.path.dirname(os.path.join(tmp, rel)) for rel in files}:
                _fsync_dir(d)
            final = self.run_dir(key)
            # A directory here has no row (rows are committed after the
            # rename, and _recover removed row-less ones): replace it.
            shutil.rmtree(final, ignore_errors=True)
            os.rename(tmp, final)
            _fsync_dir(os.path.dirname(final))
        with self.db:
            seq = self.db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM runs").fetchone()[0]
            self.db.execute(
                "INSERT INTO runs (key, sweep, point, seed, status, error, version, wall_s, seq) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (key, sweep, json.dumps(point, sort_keys=True), int(seed), status, error, build_version(), wall_s, seq),
            )

    def rows(self, sweep=None):
        """Manifest rows as dicts, in commit order."""
        q = "SELECT key, sweep, point, seed, status, error, version, wall_s FROM runs"
        args = ()
        if sweep is not None:
            q += " WHERE sweep = ?"
            args = (sweep,)
        cols = ["run", "sweep", "point", "seed", "status", "error", "version", "wall_s"]
        out = []
        for r in self.db.execute(q + " ORDER BY seq", args):
            d = dict(zip(cols, r))
            d["point"] = json.loads(d["point"])
            out.append(d)
        return out

    def table(self, key, name):
        """One table of a done run (result.TABLES: 'flows', 'queues', 'series', 'drops', 'users', 'sectors', 'cells', 'mobiles', 'dead_periods')."""
        import pandas as pd

        return pd.read_parquet(os.path.join(self.run_dir(key), f"{name}.parquet"))

    def summary(self, key):
        with open(os.path.join(self.run_dir(key), "summary.json"), encoding="utf-8") as f:
            return json.load(f)


def _numeric(df, skip):
    return [c for c in df.columns if c not in skip and df[c].dtype.kind in "biuf"]


def _figures(st, key):
    """A done run's flow and queue figures as flow.NAME.COL / queue.LINK.COL."""
    row = {}
    for table, label, prefix in (("flows", "name", "flow"), ("queues", "link", "queue"), ("users", "name", "user"),
                                 ("sectors", "name", "sector"), ("cells", "name", "cell"),
                                 ("mobiles", "name", "mobile")):
        df = st.table(key, table)
        cols = _numeric(df, ("run",))
        for _, r in df.iterrows():
            for c in cols:
                row[f"{prefix}.{r[label]}.{c}"] = r[c]
    return row


def _open(path):
    if not os.path.exists(os.path.join(os.fspath(path), MANIFEST)):
        raise InputError(f"{os.fspath(path)}: not a result store (no {MANIFEST})")
    return Store(path)


def load_sweep(path, sweep=None):
    """One pandas DataFrame, one row per run of the store at `path` (only
    sweep `sweep` if given): run key, sweep, seed, status, error, wall_s,
    the swept fields (one column per path), then each flow's figures as
    `flow.NAME.COLUMN` and each queue's as `queue.LINK.COLUMN` (1xEV-DO
    users and sectors as `user.NAME.COLUMN` and `sector.NAME.COLUMN`, cdma2000
    cells and mobiles as `cell.NAME.COLUMN` and `mobile.NAME.COLUMN`)."""
    import pandas as pd

    with _open(path) as st:
        rows = []
        for r in st.rows(sweep):
            row = {k: r[k] for k in ("run", "sweep", "seed", "status", "error", "wall_s")}
            row.update(r["point"])
            if r["status"] == "done":
                row.update(_figures(st, r["run"]))
            rows.append(row)
    return pd.DataFrame(rows)


def load_runs(path, runs):
    """Like load_sweep, for given (key, point, seed) triples: the point
    labels are the caller's (a run shared by two sweeps is stored once,
    under the labels of the sweep that ran it first)."""
    import pandas as pd

    with _open(path) as st:
        stored = {r["run"]: r for r in st.rows()}
        rows = []
        for key, point, seed in runs:
            r = stored[key]
            row = {"run": key, "seed": seed, "status": r["status"], "error": r["error"], "wall_s": r["wall_s"]}
            row.update(point)
            if r["status"] == "done":
                row.update(_figures(st, key))
            rows.append(row)
    return pd.DataFrame(rows)
