"""Summarise repeated SimRuns into table rows and print them with the goals."""

from __future__ import annotations

import statistics
from typing import Optional

SIMS = ("cdmasim", "ns-2", "ns-3")
GOODPUT_TOL_PCT = 3.0      # goal: cdmasim goodput within 3 % of each reference
GOAL_NS2_SPEEDUP = 10.0    # goal: whole process >= 10x faster than ns-2
GOAL_NS3_SPEEDUP = 100.0   # goal: whole process >= 100x faster than ns-3


def jain(xs: list) -> Optional[float]:
    """Jain's fairness index (sum x)^2 / (n sum x^2); 1 = perfectly fair."""
    if not xs:
        return None
    sq = sum(x * x for x in xs)
    return (sum(xs) ** 2) / (len(xs) * sq) if sq > 0 else None


def summarise(runs: list) -> dict:
    """One simulator, one case, several repeats -> medians and the outcome of
    the first run (the simulators are deterministic; repeats are checked)."""
    first = runs[0]
    if not first.available:
        return {"available": False, "reason": first.reason}
    ok = [r for r in runs if r.available]
    totals = {round(sum(r.goodput_bps), 3) for r in ok}
    med = lambda xs: statistics.median(xs) if xs else None  # noqa: E731
    walls = [r.wall_s for r in ok]
    engines = [r.engine_s for r in ok if r.engine_s is not None]
    g = first.goodput_bps
    return {
        "available": True,
        "total_goodput_mbps": sum(g) / 1e6,
        "mean_flow_goodput_mbps": sum(g) / len(g) / 1e6,
        "min_flow_goodput_mbps": min(g) / 1e6,
        "max_flow_goodput_mbps": max(g) / 1e6,
        "starved_flows": sum(1 for x in g if x == 0),
        "jain": jain(g),
        "bottleneck_drops": first.bottleneck_drops,
        "other_drops": first.other_drops,
        "events": first.events,
        "timeouts_total": _sum_or_none(first.extra.get("timeouts")),
        "wall_s_median": med(walls),
        "wall_s_all": walls,
        "engine_s_median": med(engines),
        "engine_s_all": engines,
        "deterministic": len(totals) == 1,
        "repeats_ok": len(ok),
        "per_flow_goodput_bps": g,
        "extra": first.extra,
    }


def _sum_or_none(xs):
    return sum(xs) if xs and all(x is not None for x in xs) else None


def _ratio(a: Optional[float], b: Optional[float]) -> Optional[float]:
    return a / b if a is not None and b else None


def _diff_pct(x: dict, ref: dict) -> Optional[float]:
    if not (x["available"] and ref["available"]):
        return None
    return 100.0 * (x["total_goodput_mbps"] - ref["total_goodput_mbps"]) / ref["total_goodput_mbps"]


def compare(case: dict) -> dict:
    """Cross-simulator numbers for one case: goodput difference and speed-ups."""
    c, n2, n3 = (case[s] for s in SIMS)
    get = lambda d, k: d.get(k) if d["available"] else None  # noqa: E731
    out = {
        "cdmasim_vs_ns2_pct": _diff_pct(c, n2),
        "cdmasim_vs_ns3_pct": _diff_pct(c, n3),
        "ns2_over_cdmasim_wall": _ratio(get(n2, "wall_s_median"), get(c, "wall_s_median")),
        "ns3_over_cdmasim_wall": _ratio(get(n3, "wall_s_median"), get(c, "wall_s_median")),
        "ns2_over_cdmasim_engine": _ratio(get(n2, "engine_s_median"), get(c, "engine_s_median")),
        "ns3_over_cdmasim_engine": _ratio(get(n3, "engine_s_median"), get(c, "engine_s_median")),
        "cdmasim_events_per_s": _ratio(get(c, "events"), get(c, "engine_s_median")),
        "ns3_events_per_s": _ratio(get(n3, "events"), get(n3, "engine_s_median")),
    }
    out["goodput_goal_ns2"] = _goal(out["cdmasim_vs_ns2_pct"], lambda v: abs(v) <= GOODPUT_TOL_PCT)
    out["goodput_goal_ns3"] = _goal(out["cdmasim_vs_ns3_pct"], lambda v: abs(v) <= GOODPUT_TOL_PCT)
    out["speed_goal_ns2"] = _goal(out["ns2_over_cdmasim_wall"], lambda v: v >= GOAL_NS2_SPEEDUP)
    out["speed_goal_ns3"] = _goal(out["ns3_over_cdmasim_wall"], lambda v: v >= GOAL_NS3_SPEEDUP)
    return out


def _goal(v, test) -> str:
    return "n/a" if v is None else ("PASS" if test(v) else "FAIL")


def _f(v, fmt: str, na: str = "-") -> str:
    return na if v is None else format(v, fmt)


def _table(header: list, rows: list) -> str:
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    line = lambda r: "  ".join(str(c).rjust(w) for c, w in zip(r, widths))  # noqa: E731
    return "\n".join([line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in rows])


def render(result: dict) -> str:
    sc, cases = result["scenario"], result["cases"]
    out = [
        f"Dumbbell: N NewReno flows ({'SACK' if result.get('sack') else 'no SACK'}, no timestamps, "
        f"IW {sc['initial_window']}, "
        f"ACK every segment, min RTO {sc['min_rto_s']:g} s), "
        f"{sc['bottleneck_mbps']} Mb/s {sc['bottleneck_delay_ms']} ms bottleneck, "
        f"DropTail {sc['bottleneck_buffer_pkts']} pkt, {sc['duration_s']:g} s simulated; "
        f"rwnd {sc['rcv_buffer_bytes'] // 1024} KiB.",
        f"Wall times: median of {result['repeats']} runs; machine {result['machine']}.",
        "",
        "Goodput (Mb/s, payload delivered in order / (duration - start)), fairness and drops",
    ]
    hdr = ["N"]
    for s in SIMS:
        hdr += [f"{s} total", "mean/flow", "Jain", "drops"]
    hdr += ["cdm vs ns-2 %", "cdm vs ns-3 %", f"goal |d|<={GOODPUT_TOL_PCT:g}%"]
    rows = []
    notes = []
    for n, case in cases.items():
        r = [n]
        for s in SIMS:
            d = case[s]
            if d["available"]:
                r += [_f(d["total_goodput_mbps"], ".3f"), _f(d["mean_flow_goodput_mbps"], ".4f"),
                      _f(d["jain"], ".4f"), _f(d["bottleneck_drops"], "d", "?")]
                if d["bottleneck_drops"] is None:
                    notes.append(f"N={n} {s}: no queue on link \"r1-r2\" in the output")
                if d["other_drops"]:
                    notes.append(f"N={n} {s}: {d['other_drops']} drops outside the bottleneck")
                if d["starved_flows"]:
                    notes.append(f"N={n} {s}: {d['starved_flows']} flow(s) delivered nothing")
                if not d["deterministic"]:
                    notes.append(f"N={n} {s}: repeats gave different goodput (not deterministic)")
            else:
                r += ["n/a", "", "", ""]
                notes.append(f"N={n} {s}: {d['reason']}")
        cmp_ = case["compare"]
        r += [_f(cmp_["cdmasim_vs_ns2_pct"], "+.2f"), _f(cmp_["cdmasim_vs_ns3_pct"], "+.2f"),
              f"{cmp_['goodput_goal_ns2']}/{cmp_['goodput_goal_ns3']}"]
        rows.append(r)
    out.append(_table(hdr, rows))
    out += ["", "Time (s; whole process = perf_counter around subprocess.run, "
            "engine = the simulator's own timer around its event loop)"]
    hdr = ["N", "cdm wall", "ns-2 wall", "ns-3 wall", "cdm engine", "ns-2 engine", "ns-3 engine",
           f"ns-2/cdm wall (goal>={GOAL_NS2_SPEEDUP:g}x)", f"ns-3/cdm wall (goal>={GOAL_NS3_SPEEDUP:g}x)",
           "ns-2/cdm engine", "ns-3/cdm engine", "cdm events/s", "ns-3 events/s"]
    rows = []
    for n, case in cases.items():
        g = lambda s, k: case[s].get(k) if case[s]["available"] else None  # noqa: E731
        c = case["compare"]
        rows.append([n, _f(g("cdmasim", "wall_s_median"), ".3f"), _f(g("ns-2", "wall_s_median"), ".3f"),
                     _f(g("ns-3", "wall_s_median"), ".3f"), _f(g("cdmasim", "engine_s_median"), ".3f"),
                     _f(g("ns-2", "engine_s_median"), ".3f"), _f(g("ns-3", "engine_s_median"), ".3f"),
                     f"{_f(c['ns2_over_cdmasim_wall'], '.1f')} {c['speed_goal_ns2']}",
                     f"{_f(c['ns3_over_cdmasim_wall'], '.1f')} {c['speed_goal_ns3']}",
                     _f(c["ns2_over_cdmasim_engine"], ".1f"), _f(c["ns3_over_cdmasim_engine"], ".1f"),
                     _f(c["cdmasim_events_per_s"], ".3g"), _f(c["ns3_events_per_s"], ".3g")])
    out.append(_table(hdr, rows))
    out += ["", "Per-flow spread (Mb/s) and retransmission timeouts summed over flows"]
    hdr = ["N"] + [f"{s} {k}" for s in SIMS for k in ("min", "max", "RTOs")]
    rows = []
    for n, case in cases.items():
        r = [n]
        for s in SIMS:
            d = case[s]
            if d["available"]:
                r += [_f(d["min_flow_goodput_mbps"], ".4f"), _f(d["max_flow_goodput_mbps"], ".4f"),
                      _f(d["timeouts_total"], "d")]
            else:
                r += ["n/a", "", ""]
        rows.append(r)
    out.append(_table(hdr, rows))
    if result.get("ns3_extra_args"):
        notes.append("ns-3 ran with extra arguments " + " ".join(result["ns3_extra_args"]))
    if notes:
        out += ["", "Notes:"] + [f"  - {x}" for x in dict.fromkeys(notes)]
    return "\n".join(out)
