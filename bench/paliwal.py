#!/usr/bin/env python3
"""Paliwal et al.'s cdma2000 1X cell: cdmasim against ns-2.35.

    python bench/paliwal.py                          # worst case + all 169 Table II cells
    python bench/paliwal.py --cells sample --jobs 2  # 7 cells, two runs at a time
    python bench/paliwal.py --cells 0.02x0.02,8x5 --no-worst --dead
    python bench/paliwal.py --only ns-2 --cells none # the worst case in ns-2 only

Runs the worst case (every mobile 9.6 -> 163.2 kb/s at 50 s, 100 s) and the
chosen Table II cells (finite bursts T_B on / T_D off, 220 s; a cell is
written T_BxT_D, e.g. 8x5) in ns-2.35 (python/cdmasim/reproduce/paliwal_ns2.tcl) and in
cdmasim (preset "cdma2000"), and prints wall time per simulator, the ratio
ns-2 / cdmasim, BSC drops and aggregate goodput side by side; --dead adds
traced ns-2 runs (untimed) for the dead periods. JSON goes to bench/out/.
Standard library only. See bench/README.md, "Paliwal et al.'s cdma2000
cell against ns-2.35".
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import datetime as dt
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
NS2_TCL = ROOT / "python" / "cdmasim" / "reproduce" / "paliwal_ns2.tcl"

# Table II: T_B (columns) and T_D (rows), seconds; percentage dead periods.
GRID = [0.02, 0.1, 0.5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
PAPER_TABLE2 = {  # T_D -> values for T_B in GRID order (percent)
    0.02: [0.26, 0.66, 0.66, 0.54, 0.71, 0.70, 0.62, 0.62, 0.70, 0.62, 0.62, 0.59, 0.59],
    0.1: [0.0, 0.59, 3.62, 2.26, 1.24, 1.34, 0.95, 1.04, 1.22, 0.94, 0.90, 0.97, 0.97],
    0.5: [0.0, 0.0, 4.5, 4.78, 2.80, 3.02, 2.68, 2.70, 1.52, 1.76, 1.90, 1.56, 1.93],
    1: [0.0, 0.0, 1.9, 1.7, 2.3, 2.46, 2.16, 2.85, 7.74, 1.36, 1.67, 1.72, 1.74],
    2: [0.0, 0.0, 0.76, 0.38, 1.90, 0.92, 0.52, 1.78, 6.56, 0.57, 1.5, 0.78, 0.83],
    3: [0.0, 0.04, 0.78, 0.59, 0.97, 0.82, 0.56, 3.85, 9.43, 2.0, 1.48, 1.34, 1.58],
    4: [0.0, 0.14, 0.38, 0.38, 1.10, 0.5, 0.59, 6.25, 12.04, 14.88, 1.38, 1.52, 2.48],
    5: [0.0, 0.0, 0.38, 0.28, 1.15, 0.35, 0.82, 7.10, 13.9, 16.18, 19.84, 3.56, 3.39],
    6: [0.0, 0.0, 0.70, 0.14, 0.70, 0.95, 1.8, 7.02, 10.6, 8.98, 9.0, 2.43, 3.52],
    7: [0.0, 0.0, 0.41, 0.17, 1.48, 0.88, 2.28, 6.70, 8.72, 11.6, 11.84, 2.83, 3.56],
    8: [0.0, 0.0, 0.10, 0.52, 1.7, 0.64, 2.16, 6.41, 9.09, 8.90, 15.1, 2.30, 2.66],
    9: [0.0, 0.0, 0.34, 1.10, 1.84, 0.47, 3.04, 8.30, 9.33, 10.16, 14.16, 8.91, 3.2],
    10: [0.0, 0.0, 0.23, 1.28, 0.22, 0.20, 3.62, 9.25, 15.3, 16.2, 17.4, 2.93, 4.90],
}
SAMPLE_CELLS = "0.02x0.02,0.1x0.1,1x1,5x5,6x4,8x5,10x10"
SIMS = ("ns-2", "cdmasim")
MSS = 960              # TCP payload; 1000-byte IP packets (Table I)
WINDOW_PKTS = 32       # 32 kB receiver buffer / 1000 B, ns-2's window_


def paper_rho(tb: float, td: float):
    row = PAPER_TABLE2.get(td)
    if row is None or tb not in GRID:
        return None
    return row[GRID.index(tb)]


# ------------------------------------------------------------------ cases

def case_key(c: dict) -> str:
    return "worst" if c["sch"] == "at" else f"{c['burst']:g}x{c['gap']:g}"


def worst_case(args) -> dict:
    return dict(sch="at", at=50.0, duration=args.worst_duration, m=args.m, n=args.n,
                queue=args.queue, seed=args.seed, topo=args.topo)


def burst_case(args, tb: float, td: float) -> dict:
    return dict(sch="bursts", burst=tb, gap=td, duration=args.duration, m=args.m, n=args.n,
                queue=args.queue, seed=args.seed, topo=args.topo)


def parse_cells(spec: str) -> list:
    spec = spec.strip()
    if spec in ("", "none"):
        return []
    if spec == "all":
        return [(tb, td) for td in GRID for tb in GRID]
    if spec == "sample":
        spec = SAMPLE_CELLS
    out = []
    for item in spec.split(","):
        item = item.strip().lower()
        if not item:
            continue
        try:
            tb, td = (float(x) for x in item.split("x"))
        except ValueError:
            raise SystemExit(f"paliwal: --cells: '{item}' is not T_BxT_D (e.g. 8x5)")
        if tb <= 0 or td <= 0:
            raise SystemExit(f"paliwal: --cells: '{item}': T_B and T_D must be > 0")
        out.append((tb, td))
    return out


# ------------------------------------------------------------------ ns-2

def ns2_ready() -> tuple:
    if shutil.which("ns") is None:
        return False, "ns-2 missing (apt-get install ns2)"
    return True, ""


def ensure_ns2(install: bool) -> None:
    if ns2_ready()[0] or not install:
        return
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        print("paliwal: ns-2 missing and not root: run `apt-get install ns2`", file=sys.stderr)
        return
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    cmd = ["apt-get", "install", "-y", "-q", "ns2"]
    print("paliwal: installing ns2", file=sys.stderr)
    if subprocess.run(cmd, env=env, capture_output=True).returncode != 0:
        subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True)
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if p.returncode != 0:
            print("paliwal: apt-get install failed: " + p.stderr.strip()[-300:], file=sys.stderr)


def ns2_command(c: dict, trace: str = "") -> list:
    cmd = ["ns", str(NS2_TCL), f"m={c['m']}", f"n={c['n']}", f"duration={c['duration']:g}",
           f"seed={c['seed']}", f"queue={c['queue']}", f"topo={c['topo']}", f"sch={c['sch']}",
           f"mss={MSS}", f"window={WINDOW_PKTS}"]
    if c["sch"] == "at":
        cmd.append(f"at={c['at']:g}")
    else:
        cmd += [f"burst={c['burst']:g}", f"gap={c['gap']:g}"]
    if trace:
        cmd.append(f"trace={trace}")
    return cmd


def _timed(cmd: list, timeout: float = 7200) -> tuple:
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    return p, time.perf_counter() - t0


def _last_line(text: str) -> str:
    lines = [l for l in (text or "").strip().splitlines() if l.strip()]
    return lines[-1][:200] if lines else ""


def run_ns2(c: dict) -> dict:
    ok, why = ns2_ready()
    if not ok:
        return {"available": False, "reason": why}
    cmd = ns2_command(c)
    p, wall = _timed(cmd)
    if p.returncode != 0:
        return {"available": False, "reason": f"ns-2 exited {p.returncode}: {_last_line(p.stderr)}",
                "wall_s": wall}
    try:
        d = json.loads(p.stdout)
    except json.JSONDecodeError:
        return {"available": False, "reason": "ns-2 printed no JSON: " + _last_line(p.stdout)}
    if d["sink_bytes_unexpected"]:
        return {"available": False, "reason": "TCPSink bytes_ not a multiple of 1000 (+40 SYN)"}
    return {"available": True, "wall_s": wall, "engine_s": d["engine_s"],
            "goodput_bps": d["goodput_bps"], "rx_bytes": d["rx_bytes"],
            "bsc_drops": d["bsc_drops"], "timeouts": d["timeouts"],
            "retransmits": d["retransmits"], "sch_switches": d["sch_switches"],
            "bsc_departures": d["bsc_departures"], "args": cmd[2:]}


def dead_from_ns2_trace(path: Path, links: list, duration: float) -> dict:
    """Dead periods from an ns-2 trace of B_cum and every BTS->MS link, by
    the definition `cdmasim reproduce paliwal --ns2` uses (its module
    cdmasim.reproduce.ns2, imported from the checkout)."""
    sys.path.insert(0, str(ROOT / "python"))
    from cdmasim.reproduce.ns2 import dead_periods

    dead = dead_periods(str(path), links, duration)
    dead_s = sum(b - a for a, b in dead)
    return {"dead_s": dead_s, "rho_dead": dead_s / duration, "intervals": len(dead),
            "long_intervals": [[round(a, 6), round(b, 6)] for a, b in dead if b - a >= 0.5]}


def run_ns2_dead(c: dict) -> dict:
    ok, why = ns2_ready()
    if not ok:
        return {"available": False, "reason": why}
    with tempfile.TemporaryDirectory(prefix="paliwal-ns2-") as tmp:
        tr = Path(tmp) / "links.tr"
        p, wall = _timed(ns2_command(c, str(tr)))
        if p.returncode != 0:
            return {"available": False, "reason": f"ns-2 exited {p.returncode}: {_last_line(p.stderr)}"}
        d = json.loads(p.stdout)
        dead = dead_from_ns2_trace(tr, d["traced_links"], float(c["duration"]))
    dead.update(available=True, traced_wall_s=wall)
    return dead


# ------------------------------------------------------------------ cdmasim

def find_cdmasim(explicit) -> str | None:
    if explicit:
        return explicit
    venv = ROOT / ".venv" / "bin" / "cdmasim"
    if venv.exists():
        return str(venv)
    return shutil.which("cdmasim")


def cdmasim_toml(c: dict) -> str:
    if c["queue"] == "red":
        q = ('{kind = "red", limit = "300pkt", min_th = "20pkt", max_th = "60pkt", '
             'gentle = false, mean_pkt_size = "1000B", variant = "ns2"}')
    else:
        q = '{kind = "droptail", limit = "5kB"}'
    if c["sch"] == "at":
        sch = f'{{kind = "at", at = "{c["at"]:g}s", rate = "16x"}}'
    else:
        sch = f'{{kind = "bursts", burst = "{c["burst"]:g}s", gap = "{c["gap"]:g}s", rate = "16x"}}'
    # rcv_buffer: 32 whole segments, ns-2's window_ 32 (a "32kB" buffer
    # would hold 33 segments of 960 B). rate_change: ns-2's links apply a
    # new bandwidth from the next packet on.
    return f"""\
preset = "cdma2000"

[simulation]
duration = "{c['duration']:g}s"
seed = {c['seed']}

[cdma2000]
m = {c['m']}
n = {c['n']}
rate_change = "next_packet"
bsc_queue = {q}
sch = {sch}
tcp = {{cc = "reno", mss = "{MSS}B", rcv_buffer = "{MSS * WINDOW_PKTS}B", min_rto = "1s"}}
"""


def run_cdmasim(c: dict, cli, workdir: Path, write_out: bool = False) -> dict:
    if cli is None:
        return {"available": False, "reason": "cdmasim not available (no `cdmasim` CLI found)"}
    key = case_key(c)
    (workdir / "scenarios").mkdir(parents=True, exist_ok=True)
    path = workdir / "scenarios" / f"paliwal-{c['queue']}-{key}.toml"
    path.write_text(cdmasim_toml(c))
    # Timed as ns-2 is: one summary, no tables. `--json` prints the same
    # summary that `--out DIR` writes as DIR/summary.json; --cdmasim-out
    # times `--out DIR` instead (it also writes the parquet tables).
    out = workdir / "cdmasim" / f"{c['queue']}-{key}"
    if out.exists():
        shutil.rmtree(out)
    if write_out:
        cmd = [cli, "run", str(path), "--out", str(out), "--quiet"]
    else:
        cmd = [cli, "run", str(path), "--json", "--quiet"]
    p, wall = _timed(cmd)
    if p.returncode != 0:
        return {"available": False,
                "reason": f"cdmasim not available: `cdmasim run` exited {p.returncode}: "
                          f"{_last_line(p.stderr)}", "wall_s": wall}
    try:
        d = json.loads((out / "summary.json").read_text() if write_out else p.stdout)
    except (OSError, json.JSONDecodeError):
        return {"available": False, "reason": "cdmasim printed/wrote no summary JSON"}
    r = cdmasim_from_summary(c, d, wall)
    r["scenario"] = str(path)
    shutil.rmtree(out, ignore_errors=True)  # parquet tables: not needed here
    return r


# A worker: the venv's Python with cdmasim imported once, running the cells
# it is sent (one JSON line each: the scenario TOML) and answering one JSON
# line each (time inside the worker for `cdmasim.run` + the summary, and the
# summary). This is how a user runs a grid from Python (or `cdmasim sweep`,
# which also writes every table): one import, many runs.
WORKER_SRC = r"""
import json, sys, time
from cdmasim.simulate import run
for line in sys.stdin:
    toml = json.loads(line)
    t0 = time.perf_counter()
    try:
        summary = run(toml).summary_json()
        out = {"ok": True, "wall_s": time.perf_counter() - t0, "summary": json.loads(summary)}
    except Exception as e:
        out = {"ok": False, "reason": type(e).__name__ + ": " + " ".join(str(e).split())}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
"""


def find_python(cli) -> str | None:
    """The Python next to the cdmasim CLI (its venv), else this one."""
    if cli:
        py = Path(cli).resolve().parent / "python"
        if py.exists():
            return str(py)
    return sys.executable


class CdmasimWorkers:
    """`jobs` worker processes; `run(toml)` blocks until a free one answers."""

    def __init__(self, python: str, jobs: int):
        import queue
        self.free = queue.Queue()
        self.procs = []
        for _ in range(jobs):
            p = subprocess.Popen([python, "-c", WORKER_SRC], cwd=ROOT, stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True, bufsize=1)
            self.procs.append(p)
            self.free.put(p)

    def run(self, toml: str) -> dict:
        p = self.free.get()
        try:
            p.stdin.write(json.dumps(toml) + "\n")
            p.stdin.flush()
            line = p.stdout.readline()
        finally:
            self.free.put(p)
        if not line:
            return {"ok": False, "reason": f"worker exited {p.poll()}"}
        return json.loads(line)

    def close(self):
        for p in self.procs:
            p.stdin.close()
        for p in self.procs:
            p.wait(timeout=30)


def run_cdmasim_inprocess(c: dict, workers: CdmasimWorkers) -> dict:
    ans = workers.run(cdmasim_toml(c))
    if not ans.get("ok"):
        return {"available": False, "reason": f"cdmasim not available: {ans.get('reason')}"}
    return cdmasim_from_summary(c, ans["summary"], ans["wall_s"])


def cdmasim_from_summary(c: dict, d: dict, wall: float) -> dict:
    flows = d.get("flows") or []
    if len(flows) != c["m"] * c["n"]:
        return {"available": False, "reason": f"cdmasim reported {len(flows)} flows, expected {c['m'] * c['n']}"}
    rx = [f.get("bytes_delivered", 0) for f in flows]
    r = {"available": True, "wall_s": wall, "events": d.get("events"),
         "rx_bytes": rx, "goodput_bps": [b * 8.0 / c["duration"] for b in rx],
         "timeouts": [f.get("timeouts") for f in flows],
         "retransmits": [f.get("retransmits") for f in flows],
         "bsc_drops": _cdmasim_bsc_drops(d)}
    cells = d.get("cells") or []
    if cells and isinstance(cells[0], dict):
        cell = cells[0]
        rho = cell.get("rho_dead")
        periods = cell.get("dead_periods") or []
        r["dead"] = {"available": rho is not None, "dead_s": cell.get("dead_s"), "rho_dead": rho,
                     "intervals": len(periods),
                     "long_intervals": [list(p) for p in periods
                                        if isinstance(p, (list, tuple)) and len(p) == 2
                                        and p[1] - p[0] >= 0.5]}
    return r


def _cdmasim_bsc_drops(d: dict):
    for q in d.get("queues") or []:
        if str(q.get("link", "")).endswith(".bsc"):
            drops = q.get("drops")
            return sum(drops.values()) if isinstance(drops, dict) else drops
    drops = d.get("drops")
    if isinstance(drops, list):
        return sum(1 for x in drops if "bsc" in str(x.get("place", "")))
    return None


# ------------------------------------------------------------------ running

def run_all(cases: list, which: set, args, cli, workdir: Path) -> tuple:
    """Each simulator's runs as one phase (cdmasim, then ns-2, then the
    untimed traced ns-2 runs), `args.jobs` at a time, so that a phase's wall
    time is the grid's wall time on that many cores. Returns (cases, phases)."""
    res = {case_key(c): {"case": c, "runs": {s: [] for s in SIMS}, "dead": {}} for c in cases}

    # Longest first: the small-T_B/T_D cells dominate.
    def cost(c):
        w = 1.0 + 1.0 / (c["burst"] + c["gap"]) if c["sch"] == "bursts" else 1.0
        return -w * c["duration"]

    ordered = sorted(cases, key=cost)
    phases = {}
    for sim, kind in (("cdmasim", "timed"), ("ns-2", "timed"), ("ns-2", "dead")):
        if sim not in which or (kind == "dead" and not args.dead):
            continue
        tasks = [(c, k) for c in ordered for k in range(args.repeats if kind == "timed" else 1)]
        workers = None
        t0 = time.perf_counter()
        if sim == "cdmasim" and args.cdmasim_mode == "inprocess" and cli is not None:
            workers = CdmasimWorkers(find_python(cli), max(1, args.jobs))

        def work(t, sim=sim, kind=kind, workers=workers):
            c, _ = t
            try:
                if kind == "dead":
                    return t, run_ns2_dead(c)
                if sim == "ns-2":
                    return t, run_ns2(c)
                if workers is not None:
                    return t, run_cdmasim_inprocess(c, workers)
                return t, run_cdmasim(c, cli, workdir, args.cdmasim_out)
            except Exception as exc:  # one broken run must not lose the others
                return t, {"available": False, "reason": f"{type(exc).__name__}: {exc}"}

        with cf.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
            for fut in cf.as_completed([ex.submit(work, t) for t in tasks]):
                (c, k), r = fut.result()
                key = case_key(c)
                if kind == "dead":
                    res[key]["dead"]["ns-2"] = r
                else:
                    res[key]["runs"][sim].append(r)
                state = (f"{r['wall_s']:.2f}s" if r.get("wall_s") and r.get("available")
                         else (f"rho_dead {100 * r['rho_dead']:.2f}%" if r.get("rho_dead") is not None
                               else r.get("reason", "")))
                print(f"paliwal: {key} {sim} {kind}: {state}", file=sys.stderr)
        if workers is not None:
            workers.close()
        if kind == "timed":
            phases[sim] = {"wall_s": time.perf_counter() - t0, "runs": len(tasks), "jobs": max(1, args.jobs),
                           "mode": (args.cdmasim_mode if sim == "cdmasim" else "one `ns` process per run")}
    for key, e in res.items():
        e.update(summarise(e))
    return res, phases


def summarise(e: dict) -> dict:
    out = {}
    for sim in SIMS:
        runs = e["runs"][sim]
        ok = [r for r in runs if r.get("available")]
        if not ok:
            reason = runs[0].get("reason") if runs else "not selected (--only)"
            out[sim] = {"available": False, "reason": reason}
            continue
        r0 = ok[0]
        s = {"available": True, "wall_s": statistics.median(r["wall_s"] for r in ok),
             "walls_s": [r["wall_s"] for r in ok],
             "goodput_bps": sum(r0["goodput_bps"]),
             "goodput_min_bps": min(r0["goodput_bps"]), "goodput_max_bps": max(r0["goodput_bps"]),
             "bsc_drops": r0["bsc_drops"],
             "timeouts": sum(x or 0 for x in r0["timeouts"]),
             "retransmits": sum(x or 0 for x in r0["retransmits"])}
        if sim == "ns-2":
            s["engine_s"] = statistics.median(r["engine_s"] for r in ok)
            s["sch_switches"] = r0["sch_switches"]
            if "ns-2" in e["dead"]:
                s["dead"] = e["dead"]["ns-2"]
        else:
            s["events"] = r0.get("events")
            if "dead" in r0:
                s["dead"] = r0["dead"]
        out[sim] = s
    a, b = out["ns-2"], out["cdmasim"]
    out["ratio"] = (a["wall_s"] / b["wall_s"]) if a.get("available") and b.get("available") else None
    c = e["case"]
    out["paper_rho_dead_pct"] = paper_rho(c["burst"], c["gap"]) if c["sch"] == "bursts" else None
    return out


# ------------------------------------------------------------------ report

def _f(x, fmt="{:.2f}", na="n/a"):
    return na if x is None else fmt.format(x)


def _rho(s: dict):
    d = s.get("dead") if s.get("available") else None
    if not d or not d.get("available") or d.get("rho_dead") is None:
        return None
    return 100.0 * d["rho_dead"]


def render(result: dict) -> str:
    L = []
    cases = result["cases"]
    w = cases.get("worst")
    if w:
        c = w["case"]
        L.append(f"Worst case: {c['m']}x{c['n']} mobiles 9.6 -> 163.2 kb/s at {c['at']:g} s, "
                 f"{c['duration']:g} s, B_cum {c['queue']}, seed {c['seed']}")
        L.append(f"{'':28}{'ns-2.35':>14}{'cdmasim':>14}")
        rows = [("wall time (s)", "wall_s", "{:.2f}"),
                ("aggregate goodput (Mb/s)", "goodput_bps", "{:.4f}"),
                ("BSC drops", "bsc_drops", "{:d}"),
                ("timeouts (all flows)", "timeouts", "{:d}"),
                ("retransmitted packets", "retransmits", "{:d}")]
        for label, k, fmt in rows:
            vals = []
            for sim in SIMS:
                s = w[sim]
                v = s.get(k) if s.get("available") else None
                if k == "goodput_bps" and v is not None:
                    v = v / 1e6
                vals.append(_f(v, fmt))
            L.append(f"{label:28}{vals[0]:>14}{vals[1]:>14}")
        vals = [_f(_rho(w[s]), "{:.2f}") for s in SIMS]
        L.append(f"{'dead time (% of run)':28}{vals[0]:>14}{vals[1]:>14}")
        for sim in SIMS:
            d = w[sim].get("dead") if w[sim].get("available") else None
            if d and d.get("available"):
                ivs = ", ".join(f"[{a:.2f}, {b:.2f}]" for a, b in d["long_intervals"])
                L.append(f"  {sim} dead intervals >= 0.5 s: {ivs or 'none'}")
        L.append(f"ratio ns-2 / cdmasim wall time: {_f(w['ratio'])}")
        L.append("")
    grid = [k for k in cases if k != "worst"]
    if grid:
        c0 = cases[grid[0]]["case"]
        L.append(f"Table II cells: finite bursts, {c0['duration']:g} s, B_cum {c0['queue']}, "
                 f"seed {c0['seed']} (rho_dead in %; ns-2's needs --dead)")
        L.append(f"{'T_BxT_D':>10} {'ns-2 s':>8} {'cdmasim s':>9} {'ratio':>6} "
                 f"{'drops ns2':>9} {'cdmasim':>8} {'Mb/s ns2':>8} {'cdmasim':>8} "
                 f"{'rho ns2':>7} {'cdmasim':>7} {'paper':>6}")
        tot = {s: 0.0 for s in SIMS}
        n_ok = {s: 0 for s in SIMS}
        for k in grid:
            e = cases[k]
            a, b = e["ns-2"], e["cdmasim"]
            for sim in SIMS:
                if e[sim].get("available"):
                    tot[sim] += e[sim]["wall_s"]
                    n_ok[sim] += 1
            gp = [(_f(x["goodput_bps"] / 1e6, "{:.3f}") if x.get("available") else "n/a") for x in (a, b)]
            dr = [(_f(x["bsc_drops"], "{:d}") if x.get("available") else "n/a") for x in (a, b)]
            L.append(f"{k:>10} {_f(a.get('wall_s')) if a.get('available') else 'n/a':>8} "
                     f"{_f(b.get('wall_s')) if b.get('available') else 'n/a':>9} {_f(e['ratio'], '{:.1f}'):>6} "
                     f"{dr[0]:>9} {dr[1]:>8} {gp[0]:>8} {gp[1]:>8} "
                     f"{_f(_rho(a)):>7} {_f(_rho(b)):>7} {_f(e['paper_rho_dead_pct']):>6}")
        L.append("")
        for sim in SIMS:
            L.append(f"{sim} total wall time over {n_ok[sim]} cells: {tot[sim]:.1f} s")
        if n_ok["ns-2"] and n_ok["ns-2"] == n_ok["cdmasim"]:
            L.append(f"ratio of totals ns-2 / cdmasim: {tot['ns-2'] / tot['cdmasim']:.1f}")
    ph = result.get("phases") or {}
    if ph:
        L.append("")
        runs = {sim: ph[sim]["runs"] for sim in ph}
        for sim in SIMS:
            if sim in ph:
                L.append(f"{sim} phase: {ph[sim]['runs']} runs (worst case included), {ph[sim]['jobs']} at a time "
                         f"({ph[sim]['mode']}): {ph[sim]['wall_s']:.1f} s wall")
        if "ns-2" in ph and "cdmasim" in ph and runs["ns-2"] == runs["cdmasim"]:
            L.append(f"ratio of phase wall times ns-2 / cdmasim: {ph['ns-2']['wall_s'] / ph['cdmasim']['wall_s']:.1f}")
    notes = []
    for k, e in cases.items():
        for sim in SIMS:
            if not e[sim].get("available"):
                notes.append(f"{k} {sim}: n/a: {e[sim].get('reason')}")
    if notes:
        L.append("")
        L.append("Notes:")
        seen = set()
        for n_ in notes:
            tail = n_.split(": ", 1)[1]
            if tail not in seen:
                seen.add(tail)
                L.append("  " + n_)
    return "\n".join(L)


# ------------------------------------------------------------------ main

def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cells", default="all",
                   help=f"Table II cells: all (169), sample ({SAMPLE_CELLS}), none, "
                        "or a list T_BxT_D,... (default all)")
    p.add_argument("--no-worst", action="store_true", help="skip the worst case")
    p.add_argument("--duration", type=float, default=220.0, help="simulated seconds per Table II cell")
    p.add_argument("--worst-duration", type=float, default=100.0, help="simulated seconds of the worst case")
    p.add_argument("--queue", choices=("red", "droptail"), default="red",
                   help="B_cum: RED 300 pkt (default) or DropTail 5 kB")
    p.add_argument("--topo", choices=("flat", "bts"), default="flat",
                   help="ns-2 graph: flat = cdmasim's (default), bts = one node per BTS (Fig. 2)")
    p.add_argument("--m", type=int, default=10, help="BTSs")
    p.add_argument("--n", type=int, default=10, help="mobiles per BTS")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--repeats", type=int, default=1, help="timed runs per case and simulator (median)")
    p.add_argument("--jobs", type=int, default=2,
                   help="runs at a time, per simulator (default 2: the grid on 2 cores); "
                        "the simulators run one after the other")
    p.add_argument("--dead", action="store_true",
                   help="also run ns-2 traced (untimed) for its dead periods")
    p.add_argument("--only", default="ns-2,cdmasim", help="subset of ns-2,cdmasim")
    p.add_argument("--cdmasim", default=None, help="cdmasim CLI (default .venv/bin/cdmasim, then PATH)")
    p.add_argument("--cdmasim-mode", choices=("inprocess", "cli"), default="inprocess",
                   help="inprocess (default): --jobs worker processes, each imports cdmasim once and "
                        "runs cells with cdmasim.simulate.run; cli: one `cdmasim run` process per cell")
    p.add_argument("--cdmasim-out", action="store_true",
                   help="time `cdmasim run FILE --out DIR` (summary + parquet tables) "
                        "instead of `--json` (the summary only, as ns-2 prints)")
    p.add_argument("--no-install", action="store_true", help="never apt-get install")
    p.add_argument("--out", default=str(BENCH / "out"), help="directory for the JSON and scratch files")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    which = {s.strip() for s in args.only.split(",") if s.strip()}
    if which - set(SIMS):
        print(f"paliwal: --only: unknown simulator(s) {sorted(which - set(SIMS))}", file=sys.stderr)
        return 2
    cells = parse_cells(args.cells)
    cases = ([] if args.no_worst else [worst_case(args)]) + [burst_case(args, tb, td) for tb, td in cells]
    if not cases:
        print("paliwal: nothing to run", file=sys.stderr)
        return 2
    if "ns-2" in which:
        ensure_ns2(not args.no_install)
    cli = find_cdmasim(args.cdmasim) if "cdmasim" in which else None
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    res, phases = run_all(cases, which, args, cli, out_dir / "paliwal")
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    result = {
        "benchmark": "paliwal",
        "when_utc": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": {"nproc": os.cpu_count(), "loadavg_end": load, "platform": platform.platform()},
        "jobs": args.jobs, "repeats": args.repeats, "cdmasim_cli": cli,
        "cdmasim_mode": args.cdmasim_mode,
        "cdmasim_timed_command": ("cdmasim.simulate.run(TOML).summary_json() in a worker process"
                                  if args.cdmasim_mode == "inprocess" else
                                  "run FILE --out DIR --quiet" if args.cdmasim_out else "run FILE --json --quiet"),
        "topo": args.topo,
        "phases": phases,
        "total_wall_s": time.perf_counter() - t0,
        "cases": res,
    }
    text = render(result)
    print(text)
    stamp = result["when_utc"].replace(":", "").replace("-", "")
    for fname in (f"paliwal-{stamp}.json", "paliwal-latest.json"):
        (out_dir / fname).write_text(json.dumps(result, indent=1) + "\n")
    print(f"\nJSON: {out_dir / f'paliwal-{stamp}.json'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
