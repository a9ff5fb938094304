"""The congestion-control variant comparison (`run.py --variants`): one row
per (variant, N) with cdmasim and ns-3 side by side.

The cases are the same dicts run.run_case builds for the NewReno benchmark
(report.summarise per simulator, report.compare across them); this module
only picks the two simulators' numbers and prints them.
"""

from __future__ import annotations

from report import _f, _table

SIMS = ("cdmasim", "ns-3")


def case_key(cc: str, flows: int) -> str:
    return f"{cc}/N={flows}"


def _get(d: dict, key: str):
    return d.get(key) if d.get("available") else None


def row(cc: str, flows: int, case: dict) -> dict:
    """The numbers of one (variant, N) case; None wherever a simulator is n/a."""
    c, n3, cmp_ = case["cdmasim"], case["ns-3"], case["compare"]
    return {
        "cc": cc, "flows": flows,
        "cdmasim_mbps": _get(c, "total_goodput_mbps"),
        "ns3_mbps": _get(n3, "total_goodput_mbps"),
        "cdmasim_vs_ns3_pct": cmp_["cdmasim_vs_ns3_pct"],
        "jain_cdmasim": _get(c, "jain"), "jain_ns3": _get(n3, "jain"),
        "drops_cdmasim": _get(c, "bottleneck_drops"), "drops_ns3": _get(n3, "bottleneck_drops"),
        "rtos_cdmasim": _get(c, "timeouts_total"), "rtos_ns3": _get(n3, "timeouts_total"),
        "wall_cdmasim_s": _get(c, "wall_s_median"), "wall_ns3_s": _get(n3, "wall_s_median"),
        "ns3_over_cdmasim_wall": cmp_["ns3_over_cdmasim_wall"],
        "ns3_over_cdmasim_engine": cmp_["ns3_over_cdmasim_engine"],
    }


def render(result: dict) -> str:
    sc = result["scenario"]
    out = [
        "Congestion-control variants, cdmasim vs ns-3 3.37 on the dumbbell: "
        f"{sc['bottleneck_mbps']} Mb/s {sc['bottleneck_delay_ms']} ms bottleneck, DropTail "
        f"{sc['bottleneck_buffer_pkts']} pkt, IW {sc['initial_window']}, "
        f"SACK {'on' if result['sack'] else 'off'}, no timestamps, ACK every segment, "
        f"min RTO {sc['min_rto_s']:g} s, {sc['duration_s']:g} s simulated.",
        f"Wall times: median of {result['repeats']} run(s); machine {result['machine']}.",
        "",
        "Total goodput (Mb/s), Jain's index, bottleneck drops, timeouts, whole-process wall time (s)",
    ]
    hdr = ["cc", "N", "cdmasim", "ns-3", "cdm vs ns-3 %", "Jain cdm", "Jain ns-3",
           "drops cdm", "drops ns-3", "RTOs cdm", "RTOs ns-3", "wall cdm", "wall ns-3",
           "ns-3/cdm wall", "ns-3/cdm engine"]
    rows, notes = [], []
    for r in result["rows"]:
        case = result["cases"][case_key(r["cc"], r["flows"])]
        for s in SIMS:
            d = case[s]
            if not d["available"]:
                notes.append(f"{r['cc']} N={r['flows']} {s}: n/a: {d['reason']}")
            else:
                if not d["deterministic"]:
                    notes.append(f"{r['cc']} N={r['flows']} {s}: repeats differ (not deterministic)")
                if d["starved_flows"]:
                    notes.append(f"{r['cc']} N={r['flows']} {s}: {d['starved_flows']} flow(s) delivered nothing")
                if d["other_drops"]:
                    notes.append(f"{r['cc']} N={r['flows']} {s}: {d['other_drops']} drops outside the bottleneck")
        rows.append([r["cc"], r["flows"],
                     _f(r["cdmasim_mbps"], ".3f", "n/a"), _f(r["ns3_mbps"], ".3f", "n/a"),
                     _f(r["cdmasim_vs_ns3_pct"], "+.2f"),
                     _f(r["jain_cdmasim"], ".4f"), _f(r["jain_ns3"], ".4f"),
                     _f(r["drops_cdmasim"], "d"), _f(r["drops_ns3"], "d"),
                     _f(r["rtos_cdmasim"], "d"), _f(r["rtos_ns3"], "d"),
                     _f(r["wall_cdmasim_s"], ".3f"), _f(r["wall_ns3_s"], ".3f"),
                     _f(r["ns3_over_cdmasim_wall"], ".1f"), _f(r["ns3_over_cdmasim_engine"], ".1f")])
    out.append(_table(hdr, rows))
    out += ["", "Parameters matched per variant (cdmasim table / ns-3 arguments):"]
    for cc, m in result["matching"].items():
        cdm = ", ".join(f"{k}={v}" for k, v in m["cdmasim"].items()) or "defaults"
        ns3 = " ".join(m["ns3"]) or "defaults"
        out.append(f"  {cc}: cdmasim {cdm}; ns-3 {ns3}")
    if result.get("ns3_extra_args"):
        notes.append("ns-3 ran with extra arguments " + " ".join(result["ns3_extra_args"]))
    if notes:
        out += ["", "Notes:"] + [f"  - {x}" for x in dict.fromkeys(notes)]
    return "\n".join(out)
