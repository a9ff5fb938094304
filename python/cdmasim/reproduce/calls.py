"""The results of the calls a paper's analysis makes outside its sweeps
(`Context.compute`: liu's day-long channel traces, about a quarter of
`reproduce all`'s CPU), kept in OUT/calls as they are kept for runs in
OUT/store: a second `reproduce` takes them from there.

A call's file is OUT/calls/KEY.json, KEY being the first 32 hex digits of
SHA-256 over the call's target and arguments, cdmasim's version with the
compiled core's fingerprint (`store.build_version`) and a fingerprint of
the package's Python sources (the task itself is Python): a rebuilt core
or an edited module computes the call again. The file holds the target,
the arguments and the value; it is written whole or not at all, and one
that does not read back as this call's is computed again and replaced.

Only values JSON gives back as they were are kept (dicts with string
keys, lists, strings, numbers, booleans, None; NaN and the infinities
included): a value holding a tuple, say, is computed every time."""

from __future__ import annotations

import hashlib
import json
import math
import os
from pathlib import Path

from .._files import write_file
from ..store import build_version

_SOURCES = None


def sources_fingerprint() -> str:
    """SHA-256 (12 hex digits) over the package's Python files, by path."""
    global _SOURCES
    if _SOURCES is None:
        root = Path(__file__).resolve().parent.parent
        h = hashlib.sha256()
        for path in sorted(root.rglob("*.py")):
            h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
        _SOURCES = h.hexdigest()[:12]
    return _SOURCES


def _plain(v) -> bool:
    """Whether JSON gives `v` back as it is."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return True
    if isinstance(v, list):
        return all(_plain(x) for x in v)
    if isinstance(v, dict):
        return all(isinstance(k, str) and _plain(x) for k, x in v.items())
    return False


def _same(a, b) -> bool:
    """Equal, NaN equal to NaN (a value read back against the one written)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


class CallCache:
    """OUT/calls: one JSON file per call computed."""

    def __init__(self, out: str | os.PathLike):
        self.dir = os.path.join(os.fspath(out), "calls")

    def _head(self, target: str, args: tuple) -> dict:
        return {"target": target, "args": list(args), "version": build_version(), "sources": sources_fingerprint()}

    def _path(self, head: dict) -> str:
        key = hashlib.sha256(json.dumps(head, sort_keys=True).encode()).hexdigest()[:32]
        return os.path.join(self.dir, f"{key}.json")

    def get(self, target: str, args: tuple) -> tuple[bool, object]:
        """(True, value) if the call's result is kept, else (False, None)."""
        head = self._head(target, args)
        try:
            with open(self._path(head), encoding="utf-8") as f:
                kept = json.load(f)
        except (OSError, ValueError, RecursionError):
            return False, None
        if not isinstance(kept, dict) or "value" not in kept or {k: kept.get(k) for k in head} != head:
            return False, None
        return True, kept["value"]

    def put(self, target: str, args: tuple, value) -> None:
        """Keep the call's value, if JSON gives it back as it is."""
        head = self._head(target, args)
        if not _plain(list(args)) or not _plain(value):
            return
        text = json.dumps({**head, "value": value})
        if not _same(json.loads(text)["value"], value):
            return
        os.makedirs(self.dir, exist_ok=True)

        def dump(tmp):
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(text)

        write_file(self._path(head), dump)
