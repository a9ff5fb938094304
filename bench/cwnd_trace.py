#!/usr/bin/env python3
"""One flow's congestion window in cdmasim and in ns-3, side by side, for
finding where the two simulators part on a variant of the dumbbell.

    .venv/bin/python bench/cwnd_trace.py --cc cubic --flows 1
    .venv/bin/python bench/cwnd_trace.py --cc bbr --flows 10 --flow 3 --until 20

Runs the scenario `run.py --variants` runs (same Dumbbell, same matched
parameters, SACK on unless --sack off) once in each simulator with the flow's
cwnd traced (cdmasim: `trace_cwnd = true`; ns-3: `--traceFlow=K`), writes
both traces as CSV (t_s, cwnd_segments) and a plot to bench/out/, and prints
for each: the time-weighted mean cwnd over [--from, --until], its maximum,
and the number of window reductions (drops of more than 10 %, i.e. loss
responses, not Vegas's one-segment steps). Needs the interpreter of the
cdmasim package (it imports cdmasim).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import sims


def ns3_trace(sc: sims.Dumbbell, flow: int, extra: tuple) -> list:
    """(t_s, cwnd bytes) of `flow` from the ns-3 program's --traceFlow output."""
    ok, why = sims.build_ns3()
    if not ok:
        raise SystemExit(f"cwnd_trace: ns-3 unavailable: {why}")
    p = subprocess.run(sims.ns3_command(sc, (*extra, f"--traceFlow={flow}")),
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"cwnd_trace: ns-3 exited {p.returncode}: {p.stderr.strip()[-300:]}")
    out = []
    for line in p.stderr.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] == "cwnd":
            out.append((float(f[0]), float(f[2])))
    return out


def cdmasim_trace(sc: sims.Dumbbell, flow: int) -> list:
    import cdmasim

    text = sims.cdmasim_toml(sc).replace("[dumbbell.tcp]\n", "[dumbbell.tcp]\ntrace_cwnd = true\n", 1)
    s = cdmasim.run(text).series
    s = s[(s["metric"] == "cwnd") & (s["subject"] == f"flow{flow}")]
    return list(zip(s["t_s"].tolist(), s["value"].tolist()))


def settle(trace: list) -> list:
    """The last value at each instant: several changes within one event (ns-3
    BBR sets cwnd two or three times per ACK, once transiently to a wrapped
    uint32 of ~4.3e9 bytes) are one step of the window."""
    out = []
    for t, w in trace:
        if out and out[-1][0] == t:
            out[-1] = (t, w)
        else:
            out.append((t, w))
    return out


def stats(trace: list, mss: int, t0: float, t1: float) -> dict:
    """Time-weighted mean and max of cwnd (segments) over [t0, t1], and the
    number of reductions by more than 10 % anywhere in the trace."""
    area = 0.0
    peak = 0.0
    cuts = 0
    for i, (t, w) in enumerate(trace):
        if i and w < 0.9 * trace[i - 1][1]:
            cuts += 1
        t_next = trace[i + 1][0] if i + 1 < len(trace) else t1
        lo, hi = max(t, t0), min(t_next, t1)
        if hi > lo:
            area += (hi - lo) * w
            peak = max(peak, w)
    span = t1 - t0
    return {"mean_cwnd_segments": area / span / mss if span > 0 else None,
            "max_cwnd_segments": peak / mss, "reductions": cuts, "changes": len(trace)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cc", default="newreno", choices=sims.CC_VARIANTS)
    p.add_argument("--flows", type=int, default=1)
    p.add_argument("--flow", type=int, default=0, help="which flow to trace (0-based)")
    p.add_argument("--duration", type=float, default=60.0)
    p.add_argument("--sack", choices=("on", "off"), default="on")
    p.add_argument("--from", dest="t0", type=float, default=5.0, help="start of the averaging window (s)")
    p.add_argument("--until", type=float, default=None, help="end of averaging window and plot (s)")
    p.add_argument("--ns3-extra", action="append", default=[], metavar="ARG")
    p.add_argument("--out", default=str(sims.BENCH / "out"))
    a = p.parse_args(argv)
    sc = sims.Dumbbell(flows=a.flows, duration_s=a.duration, cc=a.cc, sack=a.sack == "on")
    t1 = a.until or a.duration
    traces = {"cdmasim": settle(cdmasim_trace(sc, a.flow)),
              "ns-3": settle(ns3_trace(sc, a.flow, tuple(a.ns3_extra)))}
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"cwnd-{sims.scenario_name(sc)}-flow{a.flow}"
    for name, tr in traces.items():
        st = stats(tr, sc.mss, a.t0, t1)
        print(f"{name:8} mean cwnd {st['mean_cwnd_segments']:.1f} seg over [{a.t0:g}, {t1:g}] s, "
              f"max {st['max_cwnd_segments']:.1f}, {st['reductions']} reductions, {st['changes']} steps")
        with open(out / f"{stem}-{name}.csv", "w") as f:
            f.write("t_s,cwnd_segments\n")
            f.writelines(f"{t:.6f},{w / sc.mss:.3f}\n" for t, w in tr)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("cwnd_trace: matplotlib missing, no plot", file=sys.stderr)
        return 0
    fig, ax = plt.subplots(figsize=(10, 4))
    for name, tr in traces.items():
        ax.step([t for t, _ in tr], [w / sc.mss for _, w in tr], where="post", label=name, lw=0.8)
    ax.set_xlim(0, t1)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (segments)")
    ax.set_title(f"{a.cc}, N = {a.flows}, flow {a.flow}, SACK {a.sack}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / f"{stem}.png", dpi=90)
    print(f"plot: {out / f'{stem}.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
