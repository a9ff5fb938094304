"""1xEV-DO scheduler study API (Liu et al. section 6): full-buffer users over
channel sources, Proportional Fair vs Round Robin (and max C/I)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas

from . import _core, _units
from .channel import _call
from .errors import InputError


def drc_table() -> pandas.DataFrame:
    """The C.S0024-A forward-link DRC table as a DataFrame."""
    import pandas as pd

    rows = [
        {"drc": i, "rate_kbps": r / 1e3, "slots": s, "packet_bits": b} for (i, r, s, b) in _core.evdo_drc_table()
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
    u = _units
    if traces is not None and (isinstance(traces, (str, bytes, os.PathLike)) or not _iterable(traces)):
        raise InputError(f"traces must be a list of trace files, got {traces!r}")
    traces = [u.path(t, "traces") for t in traces] if traces is not None else []
    if (preset is None) == (not traces):
        raise InputError("give either a preset or trace files")
    if preset is not None and not isinstance(preset, str):
        raise InputError(f"preset must be a preset's name, got {preset!r}")
    if isinstance(schedulers, (str, bytes)) or not _iterable(schedulers) or not list(schedulers):
        raise InputError("schedulers: give a list of one or more of pf, rr, maxci")
    schedulers = [u.choice(x, "schedulers", ("pf", "rr", "maxci")) for x in schedulers]
    users = u.count(users, "users", 1, _core.MAX_STUDY_USERS)
    slots = u.count(slots, "slots", 1, _core.MAX_SLOTS_IN_MEMORY // users)
    if handoff_every is not None:
        if isinstance(handoff_every, (str, bytes)) or not _iterable(handoff_every) or len(list(handoff_every)) != 2:
            raise InputError(f"handoff_every must be (lo, hi) slots, got {handoff_every!r}")
        lo, hi = (u.count(x, "handoff_every", 1) for x in handoff_every)
        if lo > hi:
            raise InputError(f"handoff_every: ({lo}, {hi}): lo is above hi")
        handoff_every = (lo, hi)
    out = _call(
        _core.evdo_schedule, users, slots, u.count(seed, "seed"), preset, traces or None, schedulers,
        u.number(alpha, "alpha", 0, 1, lo_open=True, hi_open=True), u.count(interlace, "interlace", 0, 4),
        u.choice(handoff, "handoff", ("keep", "reset", "both")), handoff_every, u.trace_format(format),
        u.mahimahi_window(mahimahi_window_ms), u.positive(pf_initial_avg_bps, "pf_initial_avg_bps"),
    )
    r = json.loads(out)
    rr = next((x["result"]["system_bps"] for x in r["runs"] if x["result"]["scheduler"] == "rr"), None)
    r["gain"] = {}
    for x in r["runs"]:
        res = x["result"]
        if rr and res["scheduler"] != "rr":
            r["gain"][f"{res['scheduler']}/{x['handoff']}"] = res["system_bps"] / rr
    return r


def _iterable(x):
    try:
        iter(x)
    except TypeError:
        return False
    return True


def summary(result: dict[str, Any]) -> pandas.DataFrame:
    """One row per run: scheduler, hand-off policy, system throughput, gain, Jain's indices."""
    import pandas as pd

    if not isinstance(result, dict) or not isinstance(result.get("runs"), list):
        raise InputError(f"result must be what schedule() returned, got {result!r:.80}")
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

    for name, v in (("users", users), ("seeds", seeds)):
        if isinstance(v, (str, bytes)) or not _iterable(v):
            raise InputError(f"{name} must be a list of integers, got {v!r}")
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
