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
import os
import sys
from pathlib import Path

from .._files import write_file
from ..store import build_version

_SOURCES = None


def sources_fingerprint() -> str:
    """The package's Python sources' fingerprint (`fingerprint`), made once."""
    global _SOURCES
    if _SOURCES is None:
        _SOURCES = fingerprint(Path(__file__).resolve().parent.parent)
    return _SOURCES


def fingerprint(root: Path) -> str:
    """SHA-256 (12 hex digits) over the Python files under `root`: their
    paths and contents."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:12]


def _plain(v) -> bool:
    """Whether JSON gives `v` back as it is (of these exact types: a numpy
    float or an enum is not)."""
    if v is None or type(v) in (bool, int, float, str):
        return True
    if type(v) is list:
        return all(_plain(x) for x in v)
    if type(v) is dict:
        return all(type(k) is str and _plain(x) for k, x in v.items())
    return False


class CallCache:
    """OUT/calls: one JSON file per call computed."""

    def __init__(self, out: str | os.PathLike):
        self.dir = os.path.join(os.fspath(out), "calls")

    def _head(self, target: str, args: tuple) -> dict | None:
        """What a kept call's file names; None for a call that is not kept
        (arguments JSON would not give back as they are)."""
        if not _plain(list(args)):
            return None
        return {"target": target, "args": list(args), "version": build_version(), "sources": sources_fingerprint()}

    def _path(self, head: dict) -> str:
        key = hashlib.sha256(json.dumps(head, sort_keys=True).encode()).hexdigest()[:32]
        return os.path.join(self.dir, f"{key}.json")

    def get(self, target: str, args: tuple) -> tuple[bool, object]:
        """(True, value) if the call's result is kept, else (False, None)."""
        head = self._head(target, args)
        if head is None:
            return False, None
        try:
            with open(self._path(head), encoding="utf-8") as f:
                kept = json.load(f)
        except (OSError, ValueError, RecursionError):
            return False, None
        if not isinstance(kept, dict) or "value" not in kept or \
                json.dumps({k: kept.get(k) for k in head}, sort_keys=True) != json.dumps(head, sort_keys=True):
            return False, None
        return True, kept["value"]

    def take(self, calls) -> tuple[dict, list]:
        """Of `calls` ((target, args) pairs): {call: ("ok", value)} for
        those kept, and the others, in order."""
        found, todo = {}, []
        for call in calls:
            kept, value = self.get(*call)
            if kept:
                found[call] = ("ok", value)
            else:
                todo.append(call)
        return found, todo

    def keep(self, call, outcome) -> None:
        """Keep a call's outcome, ("ok", value) as a worker gives it, if it
        is a value JSON gives back as it is. A file that cannot be written
        is left out (the call is computed again next time), with a line on
        stderr."""
        kind, value = outcome
        head = self._head(*call)
        if kind != "ok" or head is None or not _plain(value):
            return
        text = json.dumps({**head, "value": value})

        def dump(tmp):
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(text)

        try:
            os.makedirs(self.dir, exist_ok=True)
            write_file(self._path(head), dump)
        except OSError as e:
            print(f"cdmasim: warning: {self.dir}: cannot keep a call's result: {e.strerror or e}", file=sys.stderr)
