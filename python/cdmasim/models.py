"""Closed-form models, evaluated by the Rust core (cdmasim_core::models);
this module names the inputs and results. Equations, sources and validity
ranges: docs/models.md.

Units: rates bit/s, sizes bytes, times seconds, `p` a per-packet loss
probability, `b` packets acknowledged per ACK."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from . import _core
from ._units import count
from .errors import InputError


def _check(**values):
    for name, v in values.items():
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
            raise InputError(f"{name} must be a finite number, got {v!r}")


def fluid_loss(mu_ll: float, mu_s: float, mu_lh: float, window_bytes: float, buffer_bytes: float, rtt: float,
               t0: float = 0.0) -> dict[str, Any]:
    """Paliwal et al. eqs. 1-6: bytes lost at the shared BSC buffer when the
    mobile's link rate switches from mu_ll to mu_lh at t0, for a fixed
    window W = window_bytes, shared-buffer space B = buffer_bytes served at
    mu_s, and round-trip propagation delay T = rtt.

    Returns a dict: case ('no_overflow', 'drop_feedback' = the paper's case
    3, 'link_drains_slowly' = case 2, 'link_empties_fast' = case 1), t_start
    (t0 + T), t_end (eq. 5), loss_volume_bytes (eq. 6),
    loss_volume_limit_bytes (mu_lh -> infinity), and the case boundaries
    drop_feedback_threshold_bps (eq. 4, W/(T + B/mu_s)) and
    link_empty_threshold_bps (W/T)."""
    _check(mu_ll=mu_ll, mu_s=mu_s, mu_lh=mu_lh, window_bytes=window_bytes, buffer_bytes=buffer_bytes, rtt=rtt, t0=t0)
    try:
        case, ts, te, lv, lim, th4, th1 = _core.model_fluid_loss(
            float(mu_ll), float(mu_s), float(mu_lh), float(window_bytes), float(buffer_bytes), float(rtt), float(t0))
    except ValueError as e:
        raise InputError(str(e)) from None
    return {
        "case": case, "t_start": ts, "t_end": te, "loss_volume_bytes": lv, "loss_volume_limit_bytes": lim,
        "drop_feedback_threshold_bps": th4, "link_empty_threshold_bps": th1,
    }


def mathis(mss_bytes: float, rtt_s: float, p: float, b: float = 1.0) -> float:
    """Mathis et al. 1997: MSS/RTT * sqrt(3/(2 b p)), bytes/s (infinite at p = 0)."""
    _check(mss_bytes=mss_bytes, rtt_s=rtt_s, p=p, b=b)
    _positive(mss_bytes=mss_bytes, rtt_s=rtt_s, b=b)
    _probability(p)
    return _core.model_mathis_bytes_per_s(float(mss_bytes), float(rtt_s), float(p), float(b))


def pftk(rtt_s: float, rto_s: float, p: float, mss_bytes: float, wmax_segments: float, b: float = 1.0) -> float:
    """Padhye et al. 1998 (full model, their eq. 33), bytes/s:
    min(Wmax/RTT, 1/(RTT sqrt(2bp/3) + T0 min(1, 3 sqrt(3bp/8)) p (1 + 32 p^2))) * MSS."""
    _check(rtt_s=rtt_s, rto_s=rto_s, p=p, mss_bytes=mss_bytes, wmax_segments=wmax_segments, b=b)
    _positive(rtt_s=rtt_s, rto_s=rto_s, mss_bytes=mss_bytes, wmax_segments=wmax_segments, b=b)
    _probability(p)
    return _core.model_pftk_bytes_per_s(float(rtt_s), float(rto_s), float(b), float(wmax_segments), float(p),
                                          float(mss_bytes))


def lee_eq1(rtt_s: float, p: float, c: float = 2.0, mtu_bytes: float = 1500.0, b: float = 2.0) -> float:
    """Lee et al. eq. 1: T = C MTU / (RTT sqrt(b p)), bytes/s (the paper's
    C = 2, b = 2, MTU = 1500 B by default)."""
    _check(rtt_s=rtt_s, p=p, c=c, mtu_bytes=mtu_bytes, b=b)
    _positive(rtt_s=rtt_s, mtu_bytes=mtu_bytes, b=b)
    _probability(p)
    return _core.model_lee_eq1_bytes_per_s(float(c), float(mtu_bytes), float(rtt_s), float(b), float(p))


def fit_lee_c(observations: Iterable[tuple[float, float, float]], mtu_bytes: float = 1500.0,
              b: float = 2.0) -> dict[str, Any]:
    """Lee eq. 1 fitted for C by least squares through the origin over
    (throughput bytes/s, RTT s, p) observations (each with p > 0):
    C = sum(y x) / sum(x^2), x = MTU / (RTT sqrt(b p)). Returns c,
    rel_residual, mean_abs_rel_error, n."""
    try:
        c, rr, mre, n = _core.model_fit_lee_c([tuple(map(float, o)) for o in observations], float(mtu_bytes),
                                               float(b))
    except (ValueError, TypeError) as e:
        raise InputError(str(e)) from None
    return {"c": c, "rel_residual": rr, "mean_abs_rel_error": mre, "n": n}


def reno_sawtooth(capacity_pkts_per_s: float, prop_rtt_s: float, buffer_pkts: float) -> dict[str, float]:
    """One Reno flow through a DropTail bottleneck (fluid sawtooth):
    U = 1 - (P - B)^2 / (4 (P^2 + P B + B^2)) for B < P, 1 otherwise, with
    P = C T. Returns bdp_pkts, w_max, w_min, utilisation,
    throughput_pkts_per_s, cycle_s, mean_queue_pkts."""
    _check(capacity_pkts_per_s=capacity_pkts_per_s, prop_rtt_s=prop_rtt_s, buffer_pkts=buffer_pkts)
    _positive(capacity_pkts_per_s=capacity_pkts_per_s, prop_rtt_s=prop_rtt_s)
    if buffer_pkts < 0:
        raise InputError(f"buffer_pkts must be >= 0, got {buffer_pkts}")
    names = ("bdp_pkts", "w_max", "w_min", "utilisation", "throughput_pkts_per_s", "cycle_s", "mean_queue_pkts")
    return dict(zip(names, _core.model_reno_sawtooth(float(capacity_pkts_per_s), float(prop_rtt_s),
                                                       float(buffer_pkts))))


def mean_sojourn_slots(p_ii: float) -> float:
    """Mean sojourn of a Markov chain state with self-transition probability
    p_ii: 1/(1 - p_ii) slots (geometric sojourn)."""
    _check(p_ii=p_ii)
    _probability(p_ii, "p_ii")
    return _core.model_mean_sojourn_slots(float(p_ii))


def stationary_distribution(matrix: Sequence[Sequence[float]]) -> list[float]:
    """pi with pi P = pi, sum(pi) = 1 for a row-stochastic matrix (list of rows)."""
    try:
        return list(_core.model_stationary_distribution([[float(x) for x in row] for row in matrix]))
    except (ValueError, TypeError) as e:
        raise InputError(str(e)) from None


def markov_sojourns(matrix: Sequence[Sequence[float]]) -> list[dict[str, float]]:
    """Per state: stationary probability and mean sojourn 1/(1 - p_ii) slots."""
    pi = stationary_distribution(matrix)
    return [{"state": i, "stationary": pi[i], "mean_sojourn_slots": mean_sojourn_slots(float(row[i]))}
            for i, row in enumerate(matrix)]


def jain_index(values: Iterable[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2)."""
    try:
        return _core.model_jain_index([float(v) for v in values])
    except (ValueError, TypeError) as e:
        raise InputError(str(e)) from None


def rlp_max_retransmission_buffer(rounds: int, delay_s: float, guard_s: float, rate_bps: float,
                                  window_bytes: float = float("inf")) -> float:
    """Dziong et al. section 5.1.4: the largest RLP retransmission buffer, bytes,
    min{W, [(2n + 2) D + n G + 1] N_rlp S_rlp} with n NAK rounds, D and G in
    20 ms frames and N_rlp S_rlp = rate x 20 ms / 8 (4800 B for n = 3,
    D = 100 ms, G = 60 ms at 38.4 kb/s)."""
    _check(delay_s=delay_s, guard_s=guard_s, rate_bps=rate_bps)
    _positive(rate_bps=rate_bps)
    if window_bytes != float("inf"):
        _check(window_bytes=window_bytes)
    n = _units_count(rounds, "rounds")
    try:
        return _core.model_rlp_max_retransmission_buffer(n, float(delay_s), float(guard_s), float(rate_bps),
                                                          float(window_bytes) if window_bytes != float("inf") else 1e300)
    except (ValueError, TypeError) as e:
        raise InputError(str(e)) from None


def _units_count(value, name):
    return count(value, name, lo=0, hi=64)


def _positive(**values):
    for name, v in values.items():
        if v <= 0:
            raise InputError(f"{name} must be > 0, got {v}")


def _probability(p, name="p"):
    if not 0 <= p <= 1:
        raise InputError(f"{name} must be a probability in [0, 1], got {p}")
