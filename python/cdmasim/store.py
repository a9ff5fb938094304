"""The result store of sweeps: one directory, crash-safe, that cdmasim
recognises by its own marker and never lets touch anything it did not write.

    DIR/cdmasim-store.json   the marker: {"format": "cdmasim-store", "version": 1}
    DIR/manifest.sqlite      one row per finished run (done or failed), with
                             each of its files' size and CRC-32
    DIR/runs/KEY/            flows, queues, series, drops, ... point .parquet,
                             summary.json, pcap/ (when captured)
    DIR/tmp/KEY/             runs being written (never read)
    DIR/writer.lock          held (flock) by the one process writing the store

A folder becomes a store only if it is new or empty (or holds a store an
older cdmasim wrote, without the marker: a valid manifest and nothing but
run folders); any other folder is refused and left exactly as it was.

A run becomes visible in one step: its files are written and fsynced under
tmp/KEY, the folder is renamed to runs/KEY (atomic on one file system),
and only then is its manifest row committed (SQLite's journal makes that
atomic). A process killed at any moment leaves at worst a tmp/KEY folder
or a runs/KEY without a row; opening the store for writing removes both,
and the run is simply done again. A file whose bytes equal a small file
the same writer committed recently (most runs' empty tables: a cell has no
web pages, a web run no IS-2000 links) is a hard link to that file rather
than a copy of its own: creating and fsyncing each file is most of what
writing such a run costs. The store creates every file it writes (never
writes through an existing name), and a link is kept only once read back
equal; a file damaged from outside damages every run that shares it, and
each is found and redone as any damaged run is. Only names that are run keys (32 hex
digits) are ever removed. One process writes a store at a time: a second
one is refused (InputError) instead of taking the first one's runs in
progress for a killed writer's leftovers. The manifest is the single
source of truth for which runs exist; a done run whose files are missing or damaged (wrong
size, no Parquet magic, or with `verify` a wrong CRC-32) is forgotten by
`Store.repair` and runs again.

KEY is the first 32 hex digits of SHA-256 over the resolved scenario, the
seed and the cdmasim version with a fingerprint of the compiled core (see
run_key)."""

from __future__ import annotations

import errno
import fcntl
import hashlib
import io
import json
import os
import re
import shutil
import sqlite3
import stat
import threading
import zlib
from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from . import _core
from ._version import __version__
from .errors import InputError
from .result import table_names
from .simulate import canonical
from .sweep_spec import typed_point

if TYPE_CHECKING:
    import pandas

MANIFEST = "manifest.sqlite"
MARKER = "cdmasim-store.json"
MARKER_CONTENT = {"format": "cdmasim-store", "version": 1}
KEY = re.compile(r"^[0-9a-f]{32}$")
WRITER_LOCK = "writer.lock"
_SQLITE_MAGIC = b"SQLite format 3\x00"
_PARQUET_MAGIC = b"PAR1"
#: Files up to this size are linked to an equal one already in the store,
#: and this many such files are remembered, the least recently used
#: forgotten first (a bound on the memory it takes).
SHARED_MAX_BYTES = 16384
SHARED_FILES = 64
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
    seq INTEGER NOT NULL,
    files TEXT
)"""
_COLUMNS = ("key", "sweep", "point", "seed", "status", "error", "version", "wall_s", "seq")


_BUILD = None


def build_version() -> str:
    """The cdmasim version plus a fingerprint of the compiled core: during
    development the version string stays put while the simulator changes,
    and a store must not hand back runs of an older core as if current."""
    global _BUILD
    if _BUILD is None:
        h = hashlib.sha256()
        with open(_core.__file__, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        _BUILD = f"{__version__}+core.{h.hexdigest()[:12]}"
    return _BUILD


def run_key(resolved: Any, seed: int, version: str | None = None, text: str | None = None) -> str:
    """Hash of (resolved scenario, seed, cdmasim version with the core's
    fingerprint): SHA-256 of the canonical JSON of {"scenario": resolved,
    "seed": seed, "version": version}. `resolved` is any JSON-able value;
    `text`, if given, is `canonical(resolved)` already made."""
    version = version or build_version()
    scenario = canonical(resolved) if text is None else text
    blob = f'{{"scenario":{scenario},"seed":{int(seed)},"version":{json.dumps(version, ensure_ascii=True)}}}'
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def _fsync_dir(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_file(path, data, new=False):
    """`data` into `path`, fsynced; `new`: the file must not exist (a run's
    files: never written through a name that may be a link to another
    run's file)."""
    with open(path, "xb" if new else "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


#: Stores this process writes: real path -> [lock file descriptor, Store
#: objects open for writing]. The flock is taken once per process (a
#: second flock in the same process would wait on the first), and a
#: killed writer's leftovers are removed only by the first opener.
_WRITING: dict[str, list[int]] = {}
_WRITING_GUARD = threading.Lock()


def _holds_a_store(path: str) -> bool:
    """Whether a folder is (or was) a result store itself: its marker or a
    manifest. Such a folder is never removed as a run folder, wherever it
    sits (a user's store reached through a link, or made inside a store
    written before the marker existed)."""
    return any(os.path.lexists(os.path.join(path, n)) for n in (MARKER, MANIFEST))


def _remove_run_folder(path: str):
    """Remove a run folder this store wrote (tmp/KEY or runs/KEY): never a
    link, and never a folder that holds a store of its own."""
    if os.path.islink(path) or not os.path.isdir(path) or _holds_a_store(path):
        return
    shutil.rmtree(path, ignore_errors=True)


def _why(e: BaseException) -> str:
    return " ".join(str(getattr(e, "strerror", None) or e).split()) or type(e).__name__


class Store:
    """A result store folder.

    mode "w" (sweeps): created if missing or empty, refused if it is a folder
    that is not a store; what a killed writer left is removed. mode "r"
    (load_sweep, reading tables): the folder must be a store; nothing is
    written, so a read-only store can be read."""

    def __init__(self, path: str | os.PathLike, mode: str = "w"):
        if mode not in ("r", "w"):
            raise ValueError(f"mode must be 'r' or 'w', not {mode!r}")
        if not isinstance(path, (str, os.PathLike)):
            raise InputError(f"a store is a folder path, not {type(path).__name__}")
        self.path = os.fspath(path)
        if isinstance(self.path, bytes):
            self.path = os.fsdecode(self.path)
        if not self.path:
            raise InputError("store: empty path (name a folder, e.g. --store out/mysweep)")
        if "\x00" in self.path:
            raise InputError("store: a folder name cannot hold a NUL character")
        self.mode = mode
        self.db = None
        # Small files committed, by their bytes: where a run's equal file links to.
        self._shared: dict[bytes, str] = {}
        self._held = None
        fresh = self._claim() if mode == "w" else self._check_is_store()
        try:
            self._connect(fresh)
            if mode == "w":
                # Held once the manifest and the layout are known good: a
                # damaged store is left exactly as it was, without a lock
                # file. The process's first writer recovers before any other
                # of its writers may commit.
                self._check_layout()
                with _WRITING_GUARD:
                    if self._hold():
                        self._recover()
        except BaseException:
            self.close()
            raise

    # -- opening -------------------------------------------------------------

    def _err(self, msg: str) -> InputError:
        return InputError(f"{self.path}: {msg}")

    def _claim(self) -> bool:
        """Make sure the folder is ours to write; returns True for a new store."""
        p = self.path
        if os.path.lexists(p) and not os.path.isdir(p):
            raise self._err("exists and is not a folder")
        if not os.path.exists(p):
            self._not_inside_a_store()
            try:
                os.makedirs(p)
            except OSError as e:
                raise self._err(f"cannot create the result store: {_why(e)}") from None
            return self._initialise()
        if not os.access(p, os.W_OK | os.X_OK):
            raise self._err("the result store is not writable")
        entries = self._entries()
        if MARKER in entries:
            self._check_marker()
            self._check_layout()
            return False
        if not entries:
            self._not_inside_a_store()
            return self._initialise()
        if self._legacy_store(entries):
            self._write_marker()
            return False
        raise self._err(f"not a cdmasim result store (no {MARKER}) and not empty: give a new or empty folder "
                        "(nothing in it was changed)")

    def _entries(self) -> list[str]:
        try:
            return os.listdir(self.path)
        except OSError as e:
            raise self._err(f"cannot read: {_why(e)}") from None

    def _not_inside_a_store(self):
        """A new store must not sit inside another one (its marker, or the
        manifest of one written before the marker existed), reached by
        links or not: that store's recovery would take it for a run folder
        left without a row."""
        d = os.path.dirname(os.path.realpath(self.path))
        while True:
            if os.path.isfile(os.path.join(d, MARKER)) or os.path.isfile(os.path.join(d, MANIFEST)):
                raise self._err(f"is inside the result store {d}: give a folder outside it")
            parent = os.path.dirname(d)
            if parent == d:
                return
            d = parent

    def _check_layout(self):
        """runs/ and tmp/ are real folders of the store, not files or links
        into someone else's folders (recovery removes what is in them)."""
        for sub in ("runs", "tmp"):
            d = os.path.join(self.path, sub)
            if os.path.islink(d) or (os.path.lexists(d) and not os.path.isdir(d)):
                raise self._err(f"{sub} is not a folder of the store (a file or a link); the store was left as it is")

    def _check_is_store(self) -> bool:
        p = self.path
        if not os.path.isdir(p):
            raise self._err("no such result store" if not os.path.lexists(p) else "not a folder")
        entries = self._entries()
        if MARKER in entries:
            self._check_marker()
        elif not self._legacy_store(entries):
            raise self._err(f"not a cdmasim result store (no {MARKER})")
        return False

    def _check_marker(self):
        try:
            with open(os.path.join(self.path, MARKER), encoding="utf-8") as f:
                marker = json.loads(f.read(1 << 16))
        except (OSError, ValueError, RecursionError) as e:
            why = "nested too deeply" if isinstance(e, RecursionError) else _why(e)
            raise self._err(f"{MARKER} is damaged ({why}); the store was left as it is") from None
        if not isinstance(marker, dict) or marker.get("format") != MARKER_CONTENT["format"]:
            raise self._err(f"{MARKER} does not describe a cdmasim store; the folder was left as it is")
        version = marker.get("version")
        if type(version) is not int or version != MARKER_CONTENT["version"]:
            raise self._err(f"a store of format version {marker.get('version')!r}; this cdmasim reads version "
                            f"{MARKER_CONTENT['version']}")

    def _legacy_store(self, entries: Iterable[str]) -> bool:
        """A store written before the marker existed: a valid manifest with
        the runs table, and nothing but runs/ and tmp/ holding run keys."""
        entries = set(entries)
        if MANIFEST not in entries or not entries <= {MANIFEST, "runs", "tmp", MANIFEST + "-journal", WRITER_LOCK}:
            return False
        for sub in ("runs", "tmp"):
            d = os.path.join(self.path, sub)
            if sub in entries and (not os.path.isdir(d) or os.path.islink(d) or not all(
                    KEY.match(n) and not _holds_a_store(os.path.join(d, n)) for n in os.listdir(d))):
                return False
        if not self._manifest_valid():
            return False
        return True

    def _manifest_valid(self) -> bool:
        path = os.path.join(self.path, MANIFEST)
        try:
            with open(path, "rb") as f:
                if f.read(16) != _SQLITE_MAGIC:
                    return False
            con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
            try:
                cols = {r[1] for r in con.execute("PRAGMA table_info(runs)")}
            finally:
                con.close()
        except (OSError, sqlite3.Error):
            return False
        return set(_COLUMNS) <= cols

    def _write_marker(self):
        tmp = os.path.join(self.path, f".{MARKER}.tmp")
        try:
            _write_file(tmp, (json.dumps(MARKER_CONTENT) + "\n").encode())
            os.replace(tmp, os.path.join(self.path, MARKER))
            _fsync_dir(self.path)
        except OSError as e:
            raise self._err(f"cannot write the result store: {_why(e)}") from None

    def _initialise(self) -> bool:
        """A new store in an empty folder: the manifest, runs/, tmp/, and the
        marker last, so that a marker always comes with a whole manifest."""
        try:
            os.makedirs(os.path.join(self.path, "runs"), exist_ok=True)
            os.makedirs(os.path.join(self.path, "tmp"), exist_ok=True)
            con = sqlite3.connect(os.path.join(self.path, MANIFEST), timeout=30)
            try:
                con.execute("PRAGMA synchronous=FULL")
                con.execute(_SCHEMA)
                con.commit()
            finally:
                con.close()
        except (OSError, sqlite3.Error) as e:
            raise self._err(f"cannot create the result store: {_why(e)}") from None
        self._write_marker()
        return True

    def _connect(self, fresh: bool):
        path = os.path.join(self.path, MANIFEST)
        try:
            size = os.path.getsize(path)
            with open(path, "rb") as f:
                head = f.read(16)
        except OSError as e:
            raise self._err(f"{MANIFEST} is missing or unreadable ({_why(e)}); the store was left as it is") from None
        if size == 0 or head != _SQLITE_MAGIC:
            raise self._err(f"{MANIFEST} is damaged ({'empty' if size == 0 else 'not an SQLite database'}); "
                            "the store was left as it is")
        writable = self.mode == "w" or os.access(self.path, os.W_OK)
        try:
            uri = f"file:{path}" + ("" if writable else "?mode=ro")
            self.db = sqlite3.connect(uri, uri=True, timeout=30)
            check = self.db.execute("PRAGMA quick_check").fetchall()
            if check != [("ok",)]:
                raise sqlite3.DatabaseError("; ".join(str(r[0]) for r in check[:3]))
            cols = [r[1] for r in self.db.execute("PRAGMA table_info(runs)")]
            if not set(_COLUMNS) <= set(cols):
                raise sqlite3.DatabaseError("no runs table of a cdmasim store")
            if self.mode == "w":
                self.db.execute("PRAGMA synchronous=FULL")
                if "files" not in cols:     # stores written before file checks existed
                    self.db.execute("ALTER TABLE runs ADD COLUMN files TEXT")
                    self.db.commit()
        except sqlite3.Error as e:
            if self.db is not None:
                self.db.close()
                self.db = None
            raise self._err(f"{MANIFEST} is damaged ({_why(e)}); the store was left as it is") from None

    def _hold(self) -> bool:
        """Take the store for this process (an exclusive flock on
        writer.lock, kept until the last of its writers closes); returns
        whether this is the process's first writer (which recovers). The
        caller holds _WRITING_GUARD."""
        real = os.path.realpath(self.path)
        held = _WRITING.get(real)
        if held is not None:
            held[1] += 1
            self._held = real
            return False
        lock = os.path.join(self.path, WRITER_LOCK)
        try:
            # Never through a link: the lock file is the store's own.
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
        except OSError as e:
            if e.errno == errno.ELOOP:
                raise self._err(f"{WRITER_LOCK} is a link, not the store's own file; the store was left as it is") from None
            raise self._err(f"cannot write the result store: {_why(e)}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            os.close(fd)
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise self._err("another cdmasim process is writing this result store; wait for it to finish or "
                                "give another folder (nothing was changed)") from None
            raise self._err(f"cannot lock the result store for writing ({_why(e)}; a file system without "
                            "locks, such as NFS without lockd, cannot hold one)") from None
        _WRITING[real] = [fd, 1]
        self._held = real
        return True

    def close(self):
        if self.db is not None:
            self.db.close()
            self.db = None
        if self._held is not None:
            with _WRITING_GUARD:
                held = _WRITING[self._held]
                held[1] -= 1
                if held[1] == 0:
                    del _WRITING[self._held]
                    os.close(held[0])
            self._held = None

    def __del__(self):
        # A writer left open (a forgotten Store in a notebook) releases the
        # store when it is collected, not only when the process ends.
        try:
            self.close()
        except Exception:  # noqa: BLE001 - at interpreter exit the module may be half gone
            pass

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc):
        self.close()

    def _query(self, sql: str, args: tuple = ()) -> list:
        try:
            return self.db.execute(sql, args).fetchall()
        except sqlite3.Error as e:
            raise self._err(f"{MANIFEST} is damaged ({_why(e)})") from None

    def _recover(self):
        """Remove what a killed writer left: tmp/KEY folders, and runs/KEY
        folders whose manifest row was never committed. Only run keys are
        touched; anything else in the folder stays. The caller has checked
        the layout (`_check_layout`)."""
        known = self.keys()
        for sub, keep in (("tmp", set()), ("runs", known)):
            d = os.path.join(self.path, sub)
            try:
                os.makedirs(d, exist_ok=True)
                names = os.listdir(d)
            except OSError as e:
                raise self._err(f"cannot use {sub}/: {_why(e)}") from None
            for name in names:
                if KEY.match(name) and name not in keep:
                    _remove_run_folder(os.path.join(d, name))

    # -- reading -------------------------------------------------------------

    def keys(self, status: str | None = None) -> set[str]:
        q = "SELECT key FROM runs" + (" WHERE status = ?" if status else "")
        return {k for (k,) in self._query(q, (status,) if status else ())}

    def run_dir(self, key: str) -> str:
        """A run's folder; the key is checked to be a run key (32 hex
        digits), never a path."""
        if not isinstance(key, str) or not KEY.match(key):
            raise InputError(f"not a run key: {key!r} (32 hexadecimal digits)")
        return os.path.join(self.path, "runs", key)

    def rows(self, sweep: str | None = None) -> list[dict]:
        """Manifest rows as dicts (run, sweep, point, seed, status, error,
        version, wall_s), in commit order."""
        q = "SELECT key, sweep, point, seed, status, error, version, wall_s FROM runs"
        args: tuple = ()
        if sweep is not None:
            q += " WHERE sweep = ?"
            args = (sweep,)
        cols = ["run", "sweep", "point", "seed", "status", "error", "version", "wall_s"]
        if sweep is not None and not isinstance(sweep, str):
            raise InputError(f"sweep: expected a sweep's name, got {sweep!r}")
        out = []
        for r in self._query(q + " ORDER BY seq", args):
            d = dict(zip(cols, r))
            try:
                d["point"] = json.loads(d["point"])
            except (ValueError, TypeError, RecursionError):
                d["point"] = None
            if not isinstance(d["point"], dict):
                raise self._err(f"{MANIFEST} is damaged (run {d['run']}: its point is not a table of values)")
            out.append(d)
        return out

    def _files(self, key: str) -> dict[str, list[int]] | None:
        rows = self._query("SELECT files FROM runs WHERE key = ?", (key,))
        if not rows or rows[0][0] is None:
            return None
        files = _file_list(rows[0][0])
        if files is None:
            raise self._err(f"{MANIFEST} is damaged (run {key}: its file list); `cdmasim sweep` on this store runs "
                            "it again")
        return files

    def read_bytes(self, key: str, name: str) -> bytes:
        """A file of a done run, checked against the size and CRC-32 the
        manifest holds; InputError naming the file if it is missing or
        damaged, or if the run has no file of that name (only the files the
        manifest lists are read: a name is never a path)."""
        return self._read(key, name, self._files(key))

    def _read(self, key: str, name: str, files: dict[str, list[int]] | None) -> bytes:
        """`read_bytes`, with the run's file list already taken from the manifest."""
        if files is None:
            # A run recorded without its file list (an older cdmasim): a
            # plain name inside its folder, read up to the core's limit.
            parts = name.split("/") if isinstance(name, str) else []
            if not 1 <= len(parts) <= 2 or any(p in ("", ".", "..") or "\x00" in p for p in parts):
                raise InputError(f"run {key}: {name!r} is not a file name of a run")
            size = 1 << 40
        elif name not in files:
            known = ", ".join(sorted(files)) or "none"
            raise InputError(f"run {key} has no file {name!r} (its files: {known})")
        else:
            size = files[name][0]
        path = os.path.join(self.run_dir(key), name)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
            with os.fdopen(fd, "rb") as f:
                if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                    raise self._damaged(path, "not a regular file")
                data = f.read(size + 1)
        except OSError as e:
            raise self._damaged(path, _why(e)) from None
        if files is not None and [len(data), zlib.crc32(data)] != list(files[name]):
            raise self._damaged(path, "its size or checksum differs from when it was written")
        return data

    def _damaged(self, path: str, why: str) -> InputError:
        return InputError(f"{path}: missing or damaged ({why}); `cdmasim sweep` on this store runs it again "
                          "(add --verify if the size looks right)")

    def table(self, key: str, name: str, filters: list[tuple] | None = None) -> pandas.DataFrame:
        """One table of a done run as a DataFrame (result.table_names(): 'flows',
        'queues', 'series', 'drops', 'users', ...). `filters`: only the rows
        that match, as pyarrow takes them (e.g. [("metric", "==", "cwnd")]),
        in the file's order with a fresh index; the row groups that cannot
        match are not decoded (a run's series are written a few series to
        a row group: one series of a 1.08 M-row table read in 24 ms, the
        whole table read and filtered in 380 ms)."""
        import pandas as pd

        path = os.path.join(self.run_dir(key), f"{name}.parquet")
        data = self.read_bytes(key, f"{name}.parquet")
        try:
            return pd.read_parquet(io.BytesIO(data), filters=filters)
        except Exception as e:  # noqa: BLE001 - pyarrow raises several types for a bad file
            if filters is not None:
                try:
                    pd.read_parquet(io.BytesIO(data))
                except Exception:  # noqa: BLE001 - the file itself is bad
                    pass
                else:
                    raise ValueError(f"{name}: filters {filters!r} do not apply: {_why(e)}") from None
            raise self._damaged(path, _why(e)) from None

    def summary(self, key: str) -> dict:
        path = os.path.join(self.run_dir(key), "summary.json")
        try:
            return json.loads(self.read_bytes(key, "summary.json"))
        except ValueError as e:
            raise self._damaged(path, _why(e)) from None

    # -- checking and repairing ----------------------------------------------

    def damaged(self, verify: bool = False, keys: Iterable[str] | None = None) -> dict[str, str]:
        """Done runs (of `keys`, or all) whose files are not as written:
        {key: reason}. Sizes and the Parquet magic at both ends are always
        checked (cheap); `verify` reads every byte against its CRC-32."""
        out = {}
        wanted = None if keys is None else set(keys)
        for key, files in self._query("SELECT key, files FROM runs WHERE status = 'done'"):
            if wanted is not None and key not in wanted:
                continue
            expected = _file_list(files) if files else {f"{t}.parquet": None for t in table_names()} | {"summary.json": None}
            if expected is None:
                out[key] = "its file list in the manifest is damaged"
                continue
            for name, sc in sorted(expected.items()):
                why = self._check_file(os.path.join(self.run_dir(key), name), sc, verify)
                if why:
                    out[key] = f"{name}: {why}"
                    break
        return out

    @staticmethod
    def _check_file(path: str, sc: list[int] | None, verify: bool) -> str | None:
        try:
            size = os.path.getsize(path)
            if sc is not None and size != sc[0]:
                return f"{size} bytes, written {sc[0]}"
            if size == 0 and sc is None:
                return "empty"
            if path.endswith(".parquet"):
                with open(path, "rb") as f:
                    head = f.read(4)
                    f.seek(max(size - 4, 0))
                    tail = f.read(4)
                if head != _PARQUET_MAGIC or tail != _PARQUET_MAGIC:
                    return "not a Parquet file"
            if verify and sc is not None:
                crc = 0
                with open(path, "rb") as f:
                    for block in iter(lambda: f.read(1 << 20), b""):
                        crc = zlib.crc32(block, crc)
                if crc != sc[1]:
                    return "checksum differs"
        except OSError as e:
            return _why(e)
        return None

    def repair(self, verify: bool = False, keys: Iterable[str] | None = None) -> dict[str, str]:
        """Forget every damaged run (of `keys`, or all; row and folder), so
        that a sweep runs it again; returns them as {key: reason}."""
        bad = self.damaged(verify, keys)
        for key in bad:
            self.forget(key)
        return bad

    def forget(self, key: str):
        """Remove one run: its row first, then its folder (a folder without a
        row is what a killed writer leaves, and is removed on the next open)."""
        try:
            with self.db:
                self.db.execute("DELETE FROM runs WHERE key = ?", (key,))
        except sqlite3.Error as e:
            raise self._err(f"cannot write {MANIFEST}: {_why(e)}") from None
        if KEY.match(key):
            _remove_run_folder(self.run_dir(key))

    # -- writing -------------------------------------------------------------

    def _link_shared(self, data: bytes, dest: str) -> bool:
        """Make `dest` a hard link to a committed file holding exactly
        `data`, if there is one; False if `data` is to be written. The link
        is made first and read back (a regular file, not followed through a
        symbolic link), so what it holds is what was checked."""
        src = self._shared.get(data) if len(data) <= SHARED_MAX_BYTES else None
        if src is None:
            return False
        try:
            os.link(src, dest, follow_symlinks=False)
        except OSError:
            # Gone with its run (forgotten, repaired), too many links (ext4
            # allows 65,000), or no hard links here: written anew.
            del self._shared[data]
            return False
        try:
            fd = os.open(dest, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
            with os.fdopen(fd, "rb") as f:
                same = stat.S_ISREG(os.fstat(f.fileno()).st_mode) and f.read(len(data) + 1) == data
        except OSError:
            same = False
        if not same:
            os.unlink(dest)
            del self._shared[data]
            return False
        # Most recently used last: the files that recur stay remembered,
        # those of one run only (its summary, its point) make room.
        self._shared[data] = self._shared.pop(data)
        return True

    def _remember_shared(self, files: Mapping[str, bytes], final: str):
        """The small files of a run just committed to `final`, as link targets."""
        for rel, data in files.items():
            if len(data) > SHARED_MAX_BYTES or data in self._shared or SHARED_FILES == 0:
                continue
            if len(self._shared) >= SHARED_FILES:
                del self._shared[next(iter(self._shared))]
            self._shared[data] = os.path.join(final, rel)

    def commit(self, key: str, sweep: str, point: Mapping, seed: int, status: str, error: str | None = None,
               files: Mapping[str, bytes] | None = None, wall_s: float | None = None):
        """Record one finished run. `files` maps relative names (e.g.
        'flows.parquet', 'pcap/a-b.pcap') to bytes; they become visible
        together with the manifest row, or not at all."""
        if not KEY.match(key):
            raise ValueError(f"not a run key: {key!r}")
        sizes = None
        try:
            if files:
                sizes = {rel: [len(data), zlib.crc32(data)] for rel, data in sorted(files.items())}
                tmp = os.path.join(self.path, "tmp", key)
                _remove_run_folder(tmp)
                for rel, data in sorted(files.items()):
                    dest = os.path.join(tmp, rel)
                    os.makedirs(os.path.dirname(dest), exist_ok=True)
                    if not self._link_shared(data, dest):
                        _write_file(dest, data, new=True)
                for d in {os.path.dirname(os.path.join(tmp, rel)) for rel in files}:
                    _fsync_dir(d)
                final = self.run_dir(key)
                # A folder here has no row (rows are committed after the
                # rename, and _recover removed row-less ones): replace it.
                _remove_run_folder(final)
                os.rename(tmp, final)
                _fsync_dir(os.path.dirname(final))
                self._remember_shared(files, final)
        except OSError as e:
            raise self._err(f"cannot write run {key}: {_why(e)}") from None
        try:
            with self.db:
                seq = self.db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM runs").fetchone()[0]
                self.db.execute(
                    "INSERT INTO runs (key, sweep, point, seed, status, error, version, wall_s, seq, files) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (key, sweep, json.dumps(point, sort_keys=True), int(seed), status, error, build_version(), wall_s,
                     seq, json.dumps(sizes) if sizes is not None else None),
                )
        except sqlite3.Error as e:
            raise self._err(f"cannot write {MANIFEST}: {_why(e)}") from None


def _file_list(text):
    """A manifest row's files, {name: [size, crc32]}, or None if damaged."""
    try:
        files = json.loads(text)
    except (ValueError, TypeError, RecursionError):
        return None
    ok = isinstance(files, dict) and all(
        isinstance(k, str) and "\x00" not in k and not os.path.isabs(k) and ".." not in k.split("/")
        and isinstance(v, list) and len(v) == 2 and all(type(x) is int and x >= 0 for x in v)
        for k, v in files.items())
    return files if ok else None


#: The tables whose numeric columns become a run's figures: (table, the
#: column naming each row, the figures' prefix).
FIGURE_TABLES = (("flows", "name", "flow"), ("queues", "link", "queue"), ("users", "name", "user"),
                 ("sectors", "name", "sector"), ("cells", "name", "cell"), ("mobiles", "name", "mobile"))


def _figures(st: Store, key: str, tables: Collection[str] | None = None) -> dict:
    """A done run's flow and queue figures as flow.NAME.COL / queue.LINK.COL
    (numeric columns; users, sectors, cells and mobiles likewise), of the
    tables named in `tables` (default all). Read with pyarrow alone,
    columns at once, empty tables skipped on their metadata: a sweep of a
    few hundred 100-mobile cells is read in seconds."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    row = {}
    files = st._files(key)
    for table, label, prefix in FIGURE_TABLES:
        if tables is not None and table not in tables:
            continue
        name = f"{table}.parquet"
        data = st._read(key, name, files)
        if data in _EMPTY_TABLES:
            continue
        try:
            pf = pq.ParquetFile(io.BytesIO(data))
            if pf.metadata.num_rows == 0:
                if len(_EMPTY_TABLES) >= 64:
                    _EMPTY_TABLES.clear()   # a bound: a store holds a few kinds of empty table
                _EMPTY_TABLES.add(data)
                continue
            # One small table: a thread pool would cost more than it saves.
            t = pf.read(use_threads=False)
        except Exception as e:  # noqa: BLE001 - pyarrow raises several types for a bad file
            raise st._damaged(os.path.join(st.run_dir(key), name), _why(e)) from None
        cols = [f.name for f in t.schema if f.name != "run" and (
            pa.types.is_integer(f.type) or pa.types.is_floating(f.type) or pa.types.is_boolean(f.type))]
        floats = {c for c in cols if pa.types.is_floating(t.schema.field(c).type)}
        values = [[float("nan") if v is None and c in floats else v for v in t.column(c).to_pylist()] for c in cols]
        # Entity by entity, column by column: the names are made once per
        # table shape (a sweep's runs share their entities and columns).
        entities = tuple(t.column(label).to_pylist())
        shape = (prefix, entities, tuple(cols))
        names = _FIGURE_NAMES.get(shape)
        if names is None:
            if len(_FIGURE_NAMES) >= 1024:
                _FIGURE_NAMES.clear()   # a bound, for sessions that read many differently named sweeps
            names = _FIGURE_NAMES[shape] = [f"{prefix}.{e}.{c}" for e in entities for c in cols]
        row.update(zip(names, (v[i] for i in range(len(entities)) for v in values)))
    return row


#: The column names `_figures` makes, by (prefix, entities, columns).
_FIGURE_NAMES: dict[tuple, list[str]] = {}

#: The bytes of tables `_figures` found empty (every run's empty table of a
#: kind is the same file), so that the next one is skipped unparsed.
_EMPTY_TABLES: set[bytes] = set()


def _open(path) -> Store:
    if path is None or not isinstance(path, (str, os.PathLike)):
        raise InputError(f"a result store is a folder path, not {type(path).__name__}")
    return Store(path, mode="r")


def load_sweep(path: str | os.PathLike, sweep: str | None = None) -> pandas.DataFrame:
    """One pandas DataFrame, one row per run of the store at `path` (only
    sweep `sweep` if given): run key, sweep, seed, status, error, wall_s,
    the swept fields (one column per path, as written; a quantity also as
    a number in base units in `PATH:bps`, `PATH:s`, `PATH:bytes` or
    `PATH:pkts`), then each flow's figures as `flow.NAME.COLUMN` and each
    queue's as `queue.LINK.COLUMN` (1xEV-DO users and sectors as
    `user.NAME.COLUMN` and `sector.NAME.COLUMN`, cdma2000 cells and mobiles
    as `cell.NAME.COLUMN` and `mobile.NAME.COLUMN`). Raises InputError for
    a folder that is not a store or a damaged file (naming it)."""
    with _open(path) as st:
        return _runs_frame(st, [(r, r["point"], r["seed"]) for r in st.rows(sweep)], typed_point)


def load_runs(path: str | os.PathLike, runs: Iterable[tuple[str, dict, int]],
              figures: Iterable[str] | str | None = None) -> pandas.DataFrame:
    """Like load_sweep, for given (key, point, seed) triples: the point
    labels are the caller's (a run shared by two sweeps is stored once,
    under the labels of the sweep that ran it first). `figures`: the
    table or tables whose figures to read (of flows, queues, users,
    sectors, cells, mobiles; default all): a 100-mobile cell has some 5000, and an
    analysis that needs one reads a table instead of six."""
    if figures is not None:
        figures = frozenset((figures,) if isinstance(figures, str) else figures)
    unknown = (figures or frozenset()) - {t for t, _, _ in FIGURE_TABLES}
    if unknown:
        raise ValueError(f"no figures in table(s) {sorted(unknown)}; tables: "
                         f"{', '.join(t for t, _, _ in FIGURE_TABLES)}")

    with _open(path) as st:
        stored = {r["run"]: r for r in st.rows()}
        picked = []
        for key, point, seed in runs:
            if key not in stored:
                raise InputError(f"{st.path}: no run {key} in the store")
            picked.append((stored[key], point, seed))
        return _runs_frame(st, picked, typed_point, with_sweep=False, figures=figures)


def _runs_frame(st: Store, picked, typed_point, with_sweep=True, figures=None):
    import pandas as pd

    rows = []
    for r, point, seed in picked:
        head = ("run", "sweep", "seed", "status", "error", "wall_s") if with_sweep else \
            ("run", "seed", "status", "error", "wall_s")
        row = {k: (seed if k == "seed" else r[k]) for k in head}
        row.update(typed_point(point))
        if r["status"] == "done":
            row.update(_figures(st, r["run"], figures))
        rows.append(row)
    return pd.DataFrame(rows)
