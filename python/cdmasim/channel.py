"""Channel analysis API: read DRC traces, compute Liu et al. section 5
statistics, fit and generate Markov models, draw presets, and plot.

Results are plain dicts (and pandas DataFrames from `summary`). The work is
done by the Rust core (`cdmasim._core`); `reference_stats` is a
straightforward numpy implementation of the same statistics, used by the
tests and the benchmark as a cross-check.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy
    import pandas

from . import _core, _units
from ._files import check_output_dir, check_output_file, write_file, write_into
from .errors import InputError

STATE_COUNT = 15


def _call(fn, *a, **k):
    try:
        return fn(*a, **k)
    except ValueError as e:  # the core's FILE:LINE: FIELD: message
        raise InputError(str(e)) from None


def _nan(v):
    if isinstance(v, list):
        return [_nan(x) for x in v]
    return float("nan") if v is None else v


def _clean(s):
    for k in ("sojourn_observed", "sojourn_analytic", "cond_entropy", "lag_entropy"):
        s[k] = _nan(s[k])
    for k in ("sojourn_rmse",):
        s[k] = _nan(s[k])
    return s


def rates_bps() -> numpy.ndarray:
    """Nominal rate of each DRC index (C.S0024-A), as a numpy array."""
    import numpy as np

    return np.array([r for (_, r, _, _) in _core.evdo_drc_table()], dtype=np.float64)


def read(path: str | os.PathLike, format: str | None = None, mahimahi_window_ms: int = 100) -> dict[str, Any]:
    """Read a trace: {'drc': uint8 array, 'sinr': float32 array or None, 'handoffs': list}."""
    import numpy as np

    drc, sinr, ho = _call(_core.channel_read, _units.path(path, "path"), _units.trace_format(format),
                          _units.mahimahi_window(mahimahi_window_ms))
    return {
        "drc": np.frombuffer(drc, dtype=np.uint8),
        "sinr": None if sinr is None else np.frombuffer(sinr, dtype="<f4"),
        "handoffs": list(ho),
    }


def stats(source: str | os.PathLike | Iterable[int], sinr: Iterable[float] | None = None,
          window_slots: int | Sequence[int] = 2_160_000, max_order: int = 4, max_lag: int = 200,
          format: str | None = None, mahimahi_window_ms: int = 100, slots: int | None = None,
          seed: int | None = None) -> dict[str, Any] | list[dict[str, Any]]:
    """Statistics of a trace file (path) or a DRC array; or, with `slots`
    and `seed`, of `slots` slots drawn from a preset, 'constant:N' or a
    model file (the trace sample() draws, computed as it is drawn: a day
    of slots needs 10 MB, not the trace's 260 MB). A drawn source may take
    a list of window lengths: one pass, a list of results, one per length.

    Returns {'whole': {...}, 'windows': [{...}, ...], 'window_slots': W,
    'window_sinr_rate_corr': correlation of window mean SINR and mean rate
    (None without SINR or with fewer than 3 windows)}; each
    entry has mean_bps, std_bps, modal_state, modal_fraction, entropy_bits,
    mean_sojourn_slots, sojourn_observed/analytic (per state), sojourn_rmse
    (eq. 4), cond_entropy (n = 1..max_order, eq. 3 normalised), lag_entropy
    (d = 1..max_lag), sinr_mean_db and sinr_rate_corr.
    """
    max_order, max_lag = _stats_depths(max_order, max_lag)
    if slots is not None or seed is not None:
        for name, given in (("sinr", sinr is not None), ("format", format is not None),
                            ("mahimahi_window_ms", mahimahi_window_ms != 100)):
            if given:
                raise InputError(f"{name}: it reads a trace; a drawn source (slots, seed) has none")
        return _stats_drawn(source, slots, seed, window_slots, max_order, max_lag)
    if _units.integer_value(window_slots) is None:
        raise InputError("window_slots: a list of window lengths is for a drawn source (slots, seed); "
                         f"a trace takes one length, got {window_slots!r}")
    window_slots = _units.count(window_slots, "window_slots")
    if isinstance(source, (str, bytes, os.PathLike)):
        out = _call(_core.channel_stats_file, _units.path(source, "source"), _units.trace_format(format),
                    _units.mahimahi_window(mahimahi_window_ms), window_slots, max_order, max_lag)
    else:
        import numpy as np

        for name, given in (("format", format is not None), ("mahimahi_window_ms", mahimahi_window_ms != 100)):
            if given:
                raise InputError(f"{name}: it describes a trace file; a DRC array has none")
        if source is None or isinstance(source, (bool, int, float)):
            raise InputError(f"source must be a trace file's path, a DRC array or a preset with slots and seed, "
                             f"got {source!r}")
        values = np.asarray(source)
        if values.dtype.kind not in "iu" or (values.size and (values.min() < 0 or values.max() > 14)):
            raise InputError("a DRC array holds integer DRC indices 0-14")
        drc = np.ascontiguousarray(values, dtype=np.uint8)
        sb = None if sinr is None else np.ascontiguousarray(sinr, dtype="<f4").tobytes()
        out = _call(_core.channel_stats_bytes, drc.tobytes(), sb, window_slots, max_order, max_lag)
    return _stats_result(out)


def _stats_depths(max_order, max_lag):
    """max_order (1 to 4) and max_lag (1 to the core's MAX_LAG) as ints."""
    return (_units.count(max_order, "max_order", 1, 4),
            _units.count(max_lag, "max_lag", 1, _core.MAX_LAG))


def _stats_result(text):
    r = json.loads(text)
    r["whole"] = _clean(r["whole"])
    r["windows"] = [_clean(w) for w in r["windows"]]
    return r


def _stats_drawn(source, slots, seed, window_slots, max_order, max_lag):
    count = _units.count
    if not isinstance(source, (str, bytes, os.PathLike)):
        raise InputError("slots, seed: they draw from a preset, 'constant:N' or a model file; a DRC array is a trace already")
    if slots is None or seed is None:
        raise InputError("slots, seed: a drawn source needs both")
    many = _units.integer_value(window_slots) is None
    try:
        if many and (isinstance(window_slots, (str, bytes)) or not len(window_slots)):
            raise TypeError
        windows = [count(w, "window_slots") for w in (window_slots if many else [window_slots])]
    except TypeError:
        raise InputError(f"window_slots must be an integer or a non-empty list of integers, got {window_slots!r}") from None
    outs = _call(_core.channel_stats_source, _units.path(source, "source"), count(slots, "slots"),
                 count(seed, "seed"), windows, max_order, max_lag)
    results = [_stats_result(o) for o in outs]
    return results if many else results[0]


def stats_at(source: str, seed: int, at: Iterable[tuple[int, int]], max_order: int = 1,
             max_lag: int = 1) -> list[dict[str, Any]]:
    """Statistics of windows of a drawn source (a preset, 'constant:N' or a
    model file) placed anywhere in its time: `at` lists (first slot, slots)
    pairs in order, none overlapping the next. The source jumps the gaps
    (exactly, for a stationary preset: each slow process by its n-step
    law), so half-hour traces spread over weeks cost their half hours.
    Returns one dict per window, of the keys stats() gives a trace's whole.
    """
    windows = _windows_at(at)
    max_order, max_lag = _stats_depths(max_order, max_lag)
    outs = _call(_core.channel_stats_at, _units.path(source, "source"), _units.count(seed, "seed"), windows,
                 max_order, max_lag)
    return [_clean(json.loads(o)["whole"]) for o in outs]


def stats_at_day_scales(preset: str, seed: int, at: Iterable[tuple[int, int]], day_sd_db: Iterable[float],
                        max_order: int = 1, max_lag: int = 1) -> list[list[dict[str, Any]]]:
    """stats_at() of a stationary preset (with settings after a colon, as
    'location1:day_corr_days=7') under each day-scale offset of
    `day_sd_db` (dB, each replacing the preset's own): one list of windows
    per day scale, equal to stats_at() of the preset with that day_sd_db
    added to its settings ('location1:day_corr_days=7,day_sd_db=2'), at
    about the cost of one. Every draw but the offset's is the same whatever
    the day scale, so it is drawn once (docs/channel.md)."""
    windows = _windows_at(at)
    if not isinstance(preset, str) or not preset:
        raise InputError(f"preset must be a stationary preset's name (location1, ...), got {preset!r}")
    if isinstance(day_sd_db, (str, bytes)) or not isinstance(day_sd_db, Iterable):
        raise InputError(f"day_sd_db must be a list of standard deviations (dB), got {day_sd_db!r}")
    sds = [_units.number(x, f"day_sd_db[{i}]", lo=0) for i, x in enumerate(day_sd_db)]
    max_order, max_lag = _stats_depths(max_order, max_lag)
    outs = _call(_core.channel_stats_at_day_scales, preset, _units.count(seed, "seed"), windows, sds, max_order,
                 max_lag)
    return [[_clean(json.loads(o)["whole"]) for o in scale] for scale in outs]


def _windows_at(at):
    """`at` as (first slot, slots) pairs of counts, or InputError."""
    try:
        pairs = [tuple(w) for w in at]
    except TypeError:
        pairs = None
    if not pairs or any(len(w) != 2 for w in pairs):
        raise InputError(f"at must be a non-empty list of (first slot, slots) pairs, got {at!r}")
    return [(_units.count(a, f"at[{i}] first slot"), _units.count(n, f"at[{i}] slots", 1))
            for i, (a, n) in enumerate(pairs)]


def _check_results(results):
    if not isinstance(results, Mapping) or not results:
        raise InputError(f"results must be a non-empty dict of name -> stats() result, got {results!r}")
    for name, r in results.items():
        if not isinstance(r, Mapping) or not isinstance(r.get("whole"), Mapping) or "windows" not in r:
            raise InputError(f"results[{name!r}]: not a stats() result of a trace (a drawn source with a list of "
                             "window lengths gives a list: take one of its items)")


def summary(results: Mapping[str, dict]) -> pandas.DataFrame:
    """One row per trace (dict name -> stats() result): the headline numbers."""
    import pandas as pd

    _check_results(results)
    rows = []
    for name, r in results.items():
        w = r["whole"]
        row = {
            "trace": name,
            "slots": w["slots"],
            "mean_kbps": w["mean_bps"] / 1e3,
            "std_kbps": w["std_bps"] / 1e3,
            "modal_state": w["modal_state"],
            "modal_fraction": w["modal_fraction"],
            "entropy_bits": w["entropy_bits"],
            "mean_sojourn_slots": w["mean_sojourn_slots"],
            "sojourn_rmse": w["sojourn_rmse"],
        }
        for n, v in enumerate(w["cond_entropy"], 1):
            row[f"H_n{n}"] = v
        for d in (1, 10, 50, 100, 200):
            if d <= len(w["lag_entropy"]):
                row[f"H_lag{d}"] = w["lag_entropy"][d - 1]
        row["sinr_rate_corr"] = w["sinr_rate_corr"]
        row["windows"] = len(r["windows"])
        row["window_sinr_rate_corr"] = r.get("window_sinr_rate_corr")
        rows.append(row)
    return pd.DataFrame(rows)


def fit(path: str | os.PathLike, order: int, out: str | os.PathLike | None = None, format: str | None = None,
        mahimahi_window_ms: int = 100, regimes: int = 1, regime_window: str | int = "10s") -> dict[str, Any]:
    """Fit a Markov chain of `order`; write it to `out` if given; return the model dict.

    With `regimes` > 1 the trace is cut into windows of `regime_window` (a
    duration such as "10s", or slots), the windows are grouped by mean rate
    into that many regimes, and each regime gets its own chain; the model
    also holds the window-to-window regime transitions (docs/channel.md,
    "Long-term variation")."""
    path = _units.path(path, "path")
    order = _units.count(order, "order", 0, _core.MAX_MARKOV_ORDER)
    regimes = _units.count(regimes, "regimes", 1, 64)
    if _units.integer_value(regime_window) is not None:
        window = _units.count(regime_window, "regime_window", 1)
    else:
        window = _units.slots(regime_window, "regime_window")
    if window < 1:
        raise InputError("regime_window: must be at least one slot")
    if out is not None:
        # Before the fit: a long fit is not lost to a path that cannot be written.
        out = check_output_file("out", out)
    text = _call(_core.channel_fit, path, order, _units.trace_format(format),
                 _units.mahimahi_window(mahimahi_window_ms), regimes, window)
    if out is not None:
        def save(tmp):
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(text)

        try:
            write_file(out, save)
        except OSError as e:
            raise InputError(f"out: {out}: cannot write: {e.strerror or e}") from None
    return json.loads(text)


def presets() -> list[str]:
    """The names of the channel presets (Liu et al. section 5: stationary, mobile, ...)."""
    return list(_core.channel_presets())


def generate(source: str | os.PathLike, slots: int, seed: int, out: str | os.PathLike,
             drc_only: bool = False) -> dict[str, Any]:
    """Write `slots` slots from a preset, 'constant:N' or a model file to `out`
    (binary if it ends in .drc). Returns {'slots', 'sinr', 'handoffs'}."""
    source, slots, seed = _drawn(source, slots, seed)
    out = check_output_file("out", out)
    n, has_sinr, ho = _call(_core.channel_generate, source, slots, seed, out, _units.flag(drc_only, "drc_only"))
    return {"slots": n, "sinr": has_sinr, "handoffs": ho}


def _drawn(source, slots, seed):
    """A source to draw from (a preset, 'constant:N' or a model file) and
    how much: `slots` at most the core's MAX_SLOTS_IN_MEMORY."""
    if isinstance(source, bool) or not isinstance(source, (str, bytes, os.PathLike)):
        raise InputError(f"source must be a preset name, 'constant:N' or a model file, got {source!r}")
    return (_units.path(source, "source"), _units.count(slots, "slots", 0, _core.MAX_SLOTS_IN_MEMORY),
            _units.count(seed, "seed"))


def sample(source: str | os.PathLike, slots: int, seed: int) -> dict[str, Any]:
    """Draw from a preset / 'constant:N' / model file into memory (same shape as read())."""
    import numpy as np

    drc, sinr, ho = _call(_core.channel_sample, *_drawn(source, slots, seed))
    return {
        "drc": np.frombuffer(drc, dtype=np.uint8),
        "sinr": None if sinr is None else np.frombuffer(sinr, dtype="<f4"),
        "handoffs": list(ho),
    }


# ---------------------------------------------------------------------------
# Reference implementation (numpy, one bincount pass per depth and per lag).


def _h(counts):
    import numpy as np

    c = counts[counts > 0].astype(np.float64)
    t = c.sum()
    return float(np.log2(t) - (c * np.log2(c)).sum() / t) if t > 0 else 0.0


def reference_stats(drc: Iterable[int], sinr: Iterable[float] | None = None, max_order: int = 4,
                    max_lag: int = 200) -> dict[str, Any]:
    """The same statistics as `stats()['whole']`, computed the obvious way."""
    import numpy as np

    max_order, max_lag = _stats_depths(max_order, max_lag)
    if drc is None or isinstance(drc, (str, bytes)):
        raise InputError(f"drc must be a sequence of DRC indices 0-14, got {drc!r}")
    x = np.asarray(drc)
    if x.ndim != 1 or x.dtype.kind not in "iu" or (x.size and (x.min() < 0 or x.max() > 14)) or x.size <= max(4, max_lag):
        raise InputError("drc must be a sequence of more than max(4, max_lag) DRC indices 0-14")
    x = x.astype(np.int64)
    n = len(x)
    rates = rates_bps()
    cnt = np.bincount(x, minlength=STATE_COUNT).astype(np.float64)
    p = cnt / n
    mean = float((p * rates).sum())
    std = float(math.sqrt((p * (rates - mean) ** 2).sum()))
    modal = int(np.argmax(cnt))
    # runs
    change = np.flatnonzero(x[1:] != x[:-1]) + 1
    starts = np.concatenate(([0], change))
    states = x[starts]
    nruns = np.bincount(states, minlength=STATE_COUNT)
    soj_obs = np.where(nruns > 0, cnt / np.maximum(nruns, 1), np.nan)
    # one-step fit: p_ii = self transitions / transitions from i
    pairs = np.bincount(x[:-1] * STATE_COUNT + x[1:], minlength=STATE_COUNT**2).reshape(STATE_COUNT, STATE_COUNT)
    from_i = pairs.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        pii = np.diag(pairs) / from_i
        soj_an = np.where((from_i > 0) & (pii < 1), 1.0 / (1.0 - pii), np.nan)
        rel = np.abs((soj_obs - soj_an) / soj_an)
    ok = np.isfinite(rel)
    rmse = float(rel[ok].mean()) if ok.any() else float("nan")
    # conditional entropy over i = 4..n-1, one bincount per depth
    cond = []
    hx = _h(np.bincount(x[4:], minlength=STATE_COUNT))
    for k in range(1, max_order + 1):
        code_ctx = np.zeros(n - 4, dtype=np.int64)
        for j in range(1, k + 1):
            code_ctx = code_ctx * 16 + x[4 - j : n - j]
        code_joint = code_ctx * 16 + x[4:]
        hj = _h(np.bincount(code_joint))
        hc = _h(np.bincount(code_ctx))
        cond.append((hj - hc) / hx if hx > 0 else float("nan"))
    # lagged conditional entropy, one bincount per lag
    lag = []
    for d in range(1, max_lag + 1):
        j = np.bincount(x[:-d] * STATE_COUNT + x[d:], minlength=STATE_COUNT**2).reshape(STATE_COUNT, STATE_COUNT)
        hy = _h(j.sum(axis=0))
        lag.append((_h(j.ravel()) - _h(j.sum(axis=1))) / hy if hy > 0 else float("nan"))
    corr = None
    if sinr is not None:
        s = np.asarray(sinr, dtype=np.float64)
        corr = float(np.corrcoef(s, rates[x])[0, 1])
    return {
        "slots": n,
        "mean_bps": mean,
        "std_bps": std,
        "modal_state": modal,
        "modal_fraction": float(p[modal]),
        "entropy_bits": _h(cnt),
        "mean_sojourn_slots": n / len(starts),
        "sojourn_observed": soj_obs.tolist(),
        "sojourn_analytic": soj_an.tolist(),
        "sojourn_rmse": rmse,
        "cond_entropy": cond,
        "lag_entropy": lag,
        "sinr_rate_corr": corr,
    }


# ---------------------------------------------------------------------------
# Figures in the manner of Liu et al. Figs. 1-5.


def plot(results: Mapping[str, dict], outdir: str | os.PathLike) -> list[str]:
    """Write PNG figures for {name: stats() result} into outdir, all
    together (they replace the figures an earlier call wrote there); return
    the paths."""
    _check_results(results)
    outdir = check_output_dir("outdir", outdir)
    return [os.path.join(outdir, n) for n in write_into(outdir, lambda tmp: _draw(results, tmp))]


def _draw(results, outdir):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    files = []

    def save(fig, name):
        p = os.path.join(outdir, name)
        fig.tight_layout()
        fig.savefig(p, dpi=110)
        plt.close(fig)
        files.append(p)

    names = list(results)
    label = {n: os.path.basename(str(n)) or str(n) for n in names}
    # Fig. 1: per-window mean rate and modal fraction.
    fig, ax = plt.subplots(1, 2, figsize=(10, 3.6))
    for nm in names:
        w = results[nm]["windows"] or [results[nm]["whole"]]
        ax[0].plot(range(1, len(w) + 1), [s["mean_bps"] / 1e3 for s in w], marker="o", label=label[nm])
        ax[1].plot(range(1, len(w) + 1), [s["modal_fraction"] for s in w], marker="o", label=label[nm])
    ax[0].set(xlabel="window", ylabel="mean DRC rate (kb/s)", title="Mean DRC per window")
    ax[1].set(xlabel="window", ylabel="modal fraction", title="Modal fraction per window", ylim=(0, 1))
    ax[0].legend(fontsize=7)
    save(fig, "fig1_windows.png")
    # Fig. 2 left / Fig. 4 left: CDFs of modal fraction and entropy over windows.
    fig, ax = plt.subplots(1, 2, figsize=(10, 3.6))
    for nm in names:
        w = results[nm]["windows"] or [results[nm]["whole"]]
        for a, key in ((ax[0], "modal_fraction"), (ax[1], "entropy_bits")):
            v = np.sort([s[key] for s in w])
            a.step(v, np.arange(1, len(v) + 1) / len(v), where="post", label=label[nm])
    ax[0].set(xlabel="modal fraction", ylabel="CDF", title="CDF of modal fraction")
    ax[1].set(xlabel="entropy (bits)", ylabel="CDF", title="CDF of entropy (eq. 1)")
    ax[0].legend(fontsize=7)
    save(fig, "fig2_cdfs.png")
    # Fig. 3: mean, std, modal fraction per trace.
    fig, ax = plt.subplots(1, 3, figsize=(12, 3.6))
    xs = np.arange(len(names))
    for a, key, scale, lab in (
        (ax[0], "mean_bps", 1e-3, "mean (kb/s)"),
        (ax[1], "std_bps", 1e-3, "std (kb/s)"),
        (ax[2], "modal_fraction", 1, "modal fraction"),
    ):
        a.bar(xs, [results[n]["whole"][key] * scale for n in names])
        a.set_xticks(xs, [label[n] for n in names], rotation=30, ha="right", fontsize=7)
        a.set_xlabel("trace")
        a.set_ylabel(lab)
    save(fig, "fig3_mean_std_modal.png")
    # Fig. 4 middle/right: sojourn time and eq. 4 RMSE.
    # Bars on a linear scale, from zero (a bar's length on a log axis starts
    # at an arbitrary floor: 94.5 and 102 slots looked tenfold apart), with
    # the values written on them; the RMSE spans decades, so it is drawn as
    # points on a log axis, where only positions count.
    fig, ax = plt.subplots(1, 2, figsize=(10, 3.6))
    sojourn = [results[n]["whole"]["mean_sojourn_slots"] for n in names]
    bars = ax[0].bar(xs, sojourn)
    ax[0].bar_label(bars, labels=[f"{v:.3g}" for v in sojourn], fontsize=7)
    ax[0].set(ylabel="mean sojourn (slots)", title="Time in any state", ylim=(0, max(sojourn + [1]) * 1.15))
    ax[1].plot(xs, [max(results[n]["whole"]["sojourn_rmse"], 1e-9) for n in names], "o")
    ax[1].set_yscale("log")
    ax[1].set(ylabel="RMSE (eq. 4)", title="Observed vs one-step Markov sojourn")
    for a in ax:
        a.set_xticks(xs, [label[n] for n in names], rotation=30, ha="right", fontsize=7)
        a.set_xlabel("trace")
    save(fig, "fig4_sojourn.png")
    # Fig. 5: normalised conditional entropy vs depth n and vs lag d.
    fig, ax = plt.subplots(1, 2, figsize=(10, 3.6))
    for nm in names:
        w = results[nm]["whole"]
        ax[0].plot(range(1, len(w["cond_entropy"]) + 1), w["cond_entropy"], marker="o", label=label[nm])
        ax[1].plot(range(1, len(w["lag_entropy"]) + 1), w["lag_entropy"], label=label[nm])
    # Normalised entropies lie in [0, 1]: the full range, so that a flat
    # curve looks flat instead of being zoomed into.
    ax[0].set(xlabel="history n (slots)", ylabel="H(X_i | past n) / H(X)", title="Conditional entropy vs depth",
              ylim=(0, 1.05))
    ax[1].set(xlabel="lag d (slots)", ylabel="H(X_{i+d} | X_i) / H(X)", title="Conditional entropy vs lag",
              ylim=(0, 1.05))
    ax[0].legend(fontsize=7)
    save(fig, "fig5_memory.png")
    return files
