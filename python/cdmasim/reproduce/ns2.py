"""ns-2.35 beside cdmasim for Paliwal et al.'s cdma2000 cell:
`cdmasim reproduce paliwal --ns2` runs the same configurations with the
same seeds in ns-2 (paliwal_ns2.tcl, the system of bench/paliwal.py) and
puts ns-2's value and seed spread beside cdmasim's and the paper's.

Dead time is measured in both simulators by one definition (Paliwal et al.
§IV-E; docs/reproduce.md): the system is dead while the shared buffer
B_cum and every BTS -> mobile link are empty, nothing waiting and nothing
being sent. In ns-2 that is read from a trace of those links: a packet
occupies its link from its enqueue ("+") to its arrival ("r") less the
link's propagation delay, a dropped packet ("d") occupies nothing, and a
packet still inside at the end occupies its link to the end.

Without --ns2, the values come from RECORD, which ships with the package:
the runs of every configuration and seed `reproduce paliwal` (full and
--quick) asks for, made by this module with paliwal_ns2.tcl and gathered
by `python -m cdmasim.reproduce.ns2 record OUT/ns2` after a
`cdmasim reproduce paliwal --ns2 --out OUT` (and its --quick). The
record holds the script's digest: once the script changes, the record is
not used until it is made again.

Runs are cached in OUT/ns2/ (one JSON file per configuration and seed,
keyed by the arguments and the script's text), so a second reproduce
reads them back (a cached file that is not such a run is run again);
files there are the only ones this module writes, each replaced
atomically. Each `ns` runs in a process group of its own that dies with
cdmasim (even killed by SIGKILL), for at most TIMEOUT_S."""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import glob
import gzip
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import zlib

from .._files import temp_dir, write_file
from ..workers import dying_with_us

TCL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "paliwal_ns2.tcl")
#: ns-2's recorded runs (see the module's text).
RECORD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "paliwal_ns2_record.json.gz")
#: Dead periods at least this long are listed (the shorter ones only add up).
LONG_S = 0.1
#: Part of every cache key: bump it when what a cached run holds changes
#: (the trace reading, LONG_S, which runs keep drop times).
CACHE_FORMAT = 2
#: The longest one ns-2 run may take, seconds (the runs here take 1-20 s):
#: a hung `ns` is killed and named instead of waited for forever.
TIMEOUT_S = 600


class Ns2Error(RuntimeError):
    """An ns-2 run failed (its exit status and last line say why)."""


def find() -> str | None:
    """The `ns` executable (apt package ns2), or None."""
    return shutil.which("ns")


def read_trace(trace_path: str, links, duration: float) -> tuple[list[tuple[float, float]], list[float]]:
    """Dead intervals from an ns-2 trace of B_cum and every BTS -> mobile
    link (`links`: [from, to, propagation delay] of each traced link, B_cum
    first), and the times of B_cum's drops."""
    delay = {(int(a), int(b)): float(d) for a, b, d in links}
    bcum = (int(links[0][0]), int(links[0][1]))
    waiting = {}
    busy, drops = [], []
    with open(trace_path) as f:
        for line in f:
            ev = line[0]
            if ev not in "+rd":
                continue
            fs = line.split()
            key = (int(fs[2]), int(fs[3]), fs[11])
            if ev == "+":
                waiting[key] = float(fs[1])
            elif ev == "r":
                t0 = waiting.pop(key, None)
                if t0 is not None:
                    busy.append((t0, float(fs[1]) - delay[key[:2]]))
            else:
                waiting.pop(key, None)
                if key[:2] == bcum:
                    drops.append(float(fs[1]))
    busy.extend((t0, duration) for t0 in waiting.values())
    busy.sort()
    dead, t = [], 0.0
    for a, b in busy:
        if a > t:
            dead.append((t, a))
        t = max(t, b)
    if t < duration:
        dead.append((t, duration))
    return dead, drops


def dead_periods(trace_path: str, links, duration: float) -> list[tuple[float, float]]:
    """The dead intervals of `read_trace`."""
    return read_trace(trace_path, links, duration)[0]


#: A cached run: its fields and their types (anything else is run again).
_CACHED = {"args": dict, "rho_dead": (int, float), "dead": list, "bsc_drops": int, "goodput_bps": (int, float),
           "timeouts": int}


def _valid(run) -> bool:
    return isinstance(run, dict) and all(isinstance(run.get(k), t) and not isinstance(run.get(k), bool)
                                         for k, t in _CACHED.items()) and all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(x, (int, float)) for x in p) for p in run["dead"])


def _script_digest() -> str:
    with open(TCL, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


class Ns2:
    """Runs paliwal_ns2.tcl for (arguments, seed) cases, `jobs` at a time,
    cached under `cache_dir`."""

    def __init__(self, cache_dir: str, jobs: int | None = None, executable: str | None = None):
        self.ns = executable or find()
        if self.ns is None:
            raise FileNotFoundError("ns-2 not found (apt-get install ns2)")
        self.cache_dir = cache_dir
        self.jobs = max(1, jobs or os.cpu_count() or 1)
        self.digest = _script_digest()

    def _path(self, args: dict) -> str:
        blob = json.dumps({"args": args, "script": self.digest, "format": CACHE_FORMAT,
                           "ns": os.path.realpath(self.ns)}, sort_keys=True)
        return os.path.join(self.cache_dir, hashlib.sha256(blob.encode()).hexdigest()[:32] + ".json")

    def _run_one(self, args: dict) -> dict:
        path = self._path(args)
        try:
            with open(path, encoding="utf-8") as f:
                cached = json.loads(f.read(1 << 24))
            if _valid(cached) and cached["args"] == args:
                return cached
        except (OSError, ValueError, RecursionError):
            pass
        duration = float(args["duration"])
        os.makedirs(self.cache_dir, exist_ok=True)
        # The trace (tens of MB) goes beside the cache, not to a small /tmp;
        # a killed run's folder is removed by the next run.
        tmp = temp_dir(self.cache_dir, ".trace-")
        try:
            trace = os.path.join(tmp, "links.tr")
            cmd = [self.ns, TCL, *(f"{k}={v}" for k, v in args.items()), f"trace={trace}"]
            what = " ".join(cmd[2:-1])
            stdout, stderr, code = self._ns(cmd, tmp, what)
            if code != 0:
                last = (stderr or stdout).strip().splitlines()[-1:] or [""]
                raise Ns2Error(f"ns-2 exited {code} for {what}: {last[0][:200]}")
            start = stdout.find("{")
            try:
                out = json.loads(stdout[start:]) if start >= 0 else None
            except (ValueError, RecursionError):
                out = None
            if not isinstance(out, dict) or "traced_links" not in out:
                raise Ns2Error(f"ns-2 printed no result for {what}: {stdout.strip()[-200:]!r}")
            try:
                dead, drops = read_trace(trace, out["traced_links"], duration)
                result = {
                    "args": args,
                    "script": self.digest,
                    "rho_dead": sum(b - a for a, b in dead) / duration,
                    "dead": [[a, b] for a, b in dead if b - a >= LONG_S],
                    "bsc_drops": int(out["bsc_drops"]),
                    # Kept for the worst case's episode only: a Table II run drops thousands.
                    "bsc_drop_times": drops if args.get("sch") == "at" else None,
                    "goodput_bps": float(sum(out["goodput_bps"])),
                    "timeouts": int(sum(out["timeouts"])),
                }
            except (OSError, ValueError, TypeError, KeyError, IndexError) as e:
                raise Ns2Error(f"ns-2's output for {what} is not what paliwal_ns2.tcl prints "
                               f"({type(e).__name__}: {str(e)[:120]})") from None
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

        def save(tmp_path):
            with open(tmp_path, "w", encoding="utf-8") as f:
                json.dump(result, f)

        write_file(path, save)
        return result

    @staticmethod
    def _ns(cmd, cwd, what):
        """Run one `ns` in a process group of its own that dies with
        cdmasim, for at most TIMEOUT_S: (stdout, stderr, exit status)."""
        # SIGKILL when cdmasim dies (even by SIGKILL): no `ns` outlives a killed reproduce.
        p = subprocess.Popen(dying_with_us(cmd), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd,
                             start_new_session=True)
        try:
            out, err = p.communicate(timeout=TIMEOUT_S)
        except BaseException as e:
            # A timeout or Ctrl-C: the whole group goes, then the pipes close.
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.communicate()
            if isinstance(e, subprocess.TimeoutExpired):
                raise Ns2Error(f"ns-2 did not finish within {TIMEOUT_S} s for {what}; it was stopped") from None
            raise
        return out, err, p.returncode

    def run(self, cases: list[dict], what: str = "runs") -> list[dict]:
        """Results in the order of `cases`; progress on stderr when it is a terminal."""
        t0, done = time.monotonic(), 0
        tty = sys.stderr.isatty()
        results = [None] * len(cases)
        pool = cf.ThreadPoolExecutor(self.jobs)
        try:
            futures = {pool.submit(self._run_one, c): i for i, c in enumerate(cases)}
            for fut in cf.as_completed(futures):
                results[futures[fut]] = fut.result()
                done += 1
                if tty:
                    sys.stderr.write(f"\rns-2 {what}: {done}/{len(cases)} ({time.monotonic() - t0:.0f} s) ")
                    sys.stderr.flush()
        finally:
            # A failure or Ctrl-C starts no further run (those running finish).
            pool.shutdown(wait=True, cancel_futures=True)
        if tty and cases:
            sys.stderr.write("\n")
        return results


def _key(args: dict) -> str:
    return json.dumps(args, sort_keys=True)


class Recorded:
    """ns-2's runs from RECORD, as `Ns2.run` gives them, for the cases it
    holds (made with the script as it is now)."""

    def __init__(self, runs: dict):
        self.runs = runs

    @classmethod
    def load(cls, path: str = RECORD) -> "Recorded | None":
        """The record, or None where it is absent or made with another script."""
        try:
            with gzip.open(path, "rt", encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError, EOFError, RecursionError, zlib.error):
            return None
        if not isinstance(doc, dict) or doc.get("script") != _script_digest() or doc.get("format") != CACHE_FORMAT:
            return None
        runs = doc.get("runs")
        if not isinstance(runs, list):
            return None
        return cls({_key(r["args"]): r for r in runs if _valid(r)})

    def run(self, cases: list[dict], what: str = "runs") -> list[dict] | None:
        """Results in the order of `cases`, or None if any is not recorded."""
        out = [self.runs.get(_key(c)) for c in cases]
        return None if any(r is None for r in out) else out


def record(cache_dir: str, path: str = RECORD) -> int:
    """Write RECORD from the runs cached in `cache_dir` that this script
    made (by any `ns`); returns how many it holds."""
    digest = _script_digest()
    runs = {}
    for name in sorted(glob.glob(os.path.join(cache_dir, "*.json"))):
        try:
            with open(name, encoding="utf-8") as f:
                run = json.loads(f.read(1 << 24))
        except (OSError, ValueError, RecursionError):
            continue
        if _valid(run) and run.get("script") == digest:
            runs[_key(run["args"])] = run
    doc = {"script": digest, "format": CACHE_FORMAT, "simulator": "ns-2.35",
           "made_by": "cdmasim reproduce paliwal --ns2 --out OUT (and with --quick); "
                      "python -m cdmasim.reproduce.ns2 record OUT/ns2",
           "runs": [runs[k] for k in sorted(runs)]}

    def save(tmp):
        # No name and mtime 0 in the header: the same runs give the same bytes.
        with open(tmp, "wb") as f:
            f.write(gzip.compress(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode(), mtime=0))

    write_file(path, save)
    return len(runs)


def dead_within(run: dict, t0: float, t1: float) -> float:
    """A cached run's dead time within [t0, t1], from its periods of LONG_S or more."""
    return sum(max(0.0, min(b, t1) - max(a, t0)) for a, b in run["dead"])


def cell_args(duration_s: float, seed: int, sch: str, **extra) -> dict:
    """paliwal_ns2.tcl's arguments for reproduce's 10 x 10 cell with Table I's
    RED shared buffer (the script's defaults are that system)."""
    return {"m": 10, "n": 10, "duration": f"{duration_s:g}", "seed": seed, "queue": "red", "sch": sch,
            **{k: (f"{v:g}" if isinstance(v, float) else v) for k, v in extra.items()}}


def main(argv=None) -> int:
    """`python -m cdmasim.reproduce.ns2 record OUT/ns2`: write RECORD."""
    p = argparse.ArgumentParser(prog="python -m cdmasim.reproduce.ns2",
                                description="Gather the ns-2 runs cached by `cdmasim reproduce paliwal --ns2 --out OUT` "
                                            "into the record that ships with the package.")
    p.add_argument("command", choices=["record"])
    p.add_argument("cache", help="the cache folder, OUT/ns2")
    p.add_argument("--to", default=RECORD, help="where to write the record (default: the package's)")
    args = p.parse_args(argv)
    if not os.path.isdir(args.cache):
        print(f"record: {args.cache}: not a folder", file=sys.stderr)
        return 2
    n = record(args.cache, args.to)
    print(f"record: {n} runs of paliwal_ns2.tcl (digest {_script_digest()}) -> {args.to}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
