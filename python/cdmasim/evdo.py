"""1xEV-DO scheduler study API (Liu et al. section 6): full-buffer users over
channel sources, Proportional Fair vs Round Robin (and max C/I)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas

from . import InputError, _units
from .channel import _call, _core


def drc_table() -> pandas.DataFrame:
    """The C.S0024-A forward-link DRC table as a DataFrame."""
    import pandas as pd

    rows = [
        {"drc": i, "rate_kbps": r / 1e3, "slots": s, "packet_bits": b} for (i, r, s, b) in _core().evdo_drc_table()
    ]
    return pd.DataFrame(rows)


def schedule(users: int, slots: int, seed: int = 1, preset: str | None = None,
             traces: Sequence[str | os.PathLike] | None = None, schedulers: Sequence[str] = ("pf", "rr", "maxci"),
             alpha: float = 1e-3, interlace: int = 4, handoff: str = "both",
             handoff_every: tuple[int, int] | None = None, format: str | None = None, mahimahi_window_ms: int = 100,
             pf_initial_avg_bps: float = 1.0) -> dict[str, Any]:
    """Run the full-buffer study. `interlace`: 4 (standard, multi-slot packets on
    one interlace), 1 (multi-slot packets in consecutive slots) or 0 (every
    slot served at its DRC rate, the per-slot model of Liu et al. Fig. 6).
    `handoff_every`: (lo, hi) slots of synthetic hand-offs for sources without
    their own. `pf_initial_avg_bps`: PF's A for a user that starts or
    (reset policy) hands off; 1 b/s = a brand-new user. Returns a dict with 'runs' (one per scheduler and hand-off
    policy) and 'gain' (T_PF / T_RR per policy)."""
    if (preset is None) == (not traces):
        raise InputError("give either a preset or trace files")
    if isinstance(schedulers, str) or not list(schedulers):
        raise InputError("schedulers: give a list of one or more of pf, rr, maxci")
    from ._units import count

    out = _call(
        _core().evdo_schedule, count(users, "users", 1), count(slots, "slots"), count(seed, "seed"), preset,
        [str(t) for t in traces] if traces else None, list(schedulers), float(alpha), int(interlace), handoff,
        tuple(handoff_every) if handoff_every else None, format, _units.mahimahi_window(mahimahi_window_ms), float(pf_initial_avg_bps),
    )
    r = json.loads(out)
    rr = next((x["result"]["system_bps"] for x in r["runs"] if x["result"]["scheduler"] == "rr"), None)
    r["gain"] = {}
    for x in r["runs"]:
        res = x["result"]
        if rr and res["scheduler"] != "rr":
            r["gain"][f"{res['scheduler']}/{x['handoff']}"] = res["system_bps"] / rr
    return r


def summary(result: dict[str, Any]) -> pandas.DataFrame:
    """One row per run: scheduler, hand-off policy, system throughput, gain, Jain's indices."""
    import pandas as pd

    rr = next((x["result"]["system_bps"] for x in result["runs"] if x["result"]["scheduler"] == "rr"), None)
    rows = []
    for x in result["runs"]:
        res = x["result"]
        rows.append({
            "scheduler": res["scheduler"],
            "handoff": x["handoff"] if res["scheduler"] == "pf" else "-",
            "system_kbps": res["system_bps"] / 1e3,
            "gain_vs_rr": res["system_bps"] / rr if rr else float("nan"),
            "jain_throughput": res["jain_throughput"],
            "jain_share": res["jain_share"],
            "user_kbps": " ".join(f"{u / 1e3:.0f}" for u in res["user_bps"]),
            "user_slots_per_cpu_s": result["users"] * res["slots"] / (res.get("loop_cpu_seconds") or res["loop_seconds"] or float("nan")),
        })
    return pd.DataFrame(rows)


def fig6(preset: str, users: Iterable[int] = (1, 2, 3, 4, 8), slots: int = 1_000_000, seeds: Iterable[int] = (1,),
         interlace: int = 0, alpha: float = 1e-3, pf_initial_avg_bps: float = 1.0) -> pandas.DataFrame:
    """PF/RR system gain vs number of users (Liu et al. Fig. 6), keep and reset."""
    import pandas as pd

    rows = []
    for n in users:
        for s in seeds:
            r = schedule(n, slots, s, preset=preset, schedulers=("pf", "rr"), interlace=interlace, alpha=alpha,
                         pf_initial_avg_bps=pf_initial_avg_bps)
            pf = {x["handoff"]: x["result"] for x in r["runs"] if x["result"]["scheduler"] == "pf"}
            rr = next(x["result"] for x in r["runs"] if x["result"]["scheduler"] == "rr")
            rows.append({
                "preset": preset, "users": n, "seed": s,
                "gain_keep": r["gain"]["pf/keep"], "gain_reset": r["gain"]["pf/reset"],
                "jain_pf": pf["keep"]["jain_throughput"], "jain_rr": rr["jain_throughput"],
                "jain_share_pf": pf["keep"]["jain_share"], "jain_share_rr": rr["jain_share"],
            })
    return pd.DataFrame(rows)
