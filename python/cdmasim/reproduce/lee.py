"""Lee: measured TCP over a CDMA 1x EV-DO network (Table 1, Figs. 4-6).

The measured setup, simulated with captures: a server 47 ms from a router
whose EV-DO link (5 ms) follows the `mobile` DRC preset forward and 153.6
kb/s in reverse, with 64 KiB buffers; the laptop's receive window is
Windows XP's 64 KB. Bulk downloads (downlink)
and uploads (uplink) run separately, one per seed, each captured at the
sender's side; then the paper's own analysis runs on the captures
(cdmasim.pcap: tcptrace figures, loss periods and their CCDF, eq. 1 fitted
for C over all connections).

What is an input and what is measured (docs/reproduce.md): the path delay
is set so that the downlink's minimum RTT is the paper's 109.2 ms, and the
link loss probabilities are the paper's retransmission rates (0.2 % down,
4.7 % up, Bernoulli per packet); throughput, average and maximum RTT, the
uplink's minimum RTT, retransmission rates, loss periods and C are
outputs. The paper's losses are bursty (checksum failures after PPP header
compression); ours are independent, which the loss-period items show.

`--pcap FILE...` runs the same analysis on the user's own captures and
adds their figures as items without a published value."""

import os

from .common import comparison_figure, finish, subplots
from .items import Tolerance

TITLE = "Measured TCP Performance in CDMA 1x EV-DO Network"
CITATION = ("Y. Lee, \"Measured TCP Performance in CDMA 1x EV-DO Network\", Chungnam National University "
            "(passive measurements of long-lived TCP over a commercial 1x EV-DO network).")
PENDING = []

# Table 1 and section 3.3 of the paper.
PUBLISHED = {
    "downlink": {"throughput_kbps": 572.5, "rtt_min_ms": 109.2, "rtt_avg_ms": 417.4, "rtt_max_ms": 1278.7,
                 "retrans_pct": 0.2, "median_rexmits": 1, "rtt_avg_var": 14955.4},
    "uplink": {"throughput_kbps": 94.7, "rtt_min_ms": 170.3, "rtt_avg_ms": 730.9, "rtt_max_ms": 2097.1,
               "retrans_pct": 4.7, "median_rexmits": 3, "rtt_avg_var": 16628.1},
}
LOSS = {"downlink": 0.002, "uplink": 0.047}
# The capture at the sender's side sees every transmission (a packet lost
# on the radio link never reaches the other side's capture).
SENDER_CAPTURE = {"downlink": "internet.pcap", "uplink": "uplink.pcap"}


def _scenario(direction, duration_s):
    """One bulk transfer over the EV-DO path. The radio link is two one-way
    links so that the sender-side one comes first: a capture sits at the
    first-listed link's sending node (cdmasim_core::sim::run), so the
    uplink's capture is at the laptop, the downlink's at the server."""
    src, dst = ("server", "laptop") if direction == "downlink" else ("laptop", "server")
    buffer = {"kind": "droptail", "limit": "64KiB"}
    down = {"name": "downlink", "from": "router", "to": "laptop", "delay": "5ms", "duplex": False,
            "drc": {"preset": "mobile"}, "queue": buffer, "loss": LOSS["downlink"]}
    up = {"name": "uplink", "from": "laptop", "to": "router", "delay": "5ms", "duplex": False, "rate": "153.6kbps",
          "queue": buffer, "loss": LOSS["uplink"]}
    internet = {"name": "internet", "from": "server", "to": "router", "rate": "100Mbps", "delay": "47ms"}
    tcp = {"cc": "newreno", "sack": True}
    if direction == "downlink":
        # The laptop ran Windows XP, whose default window is 64 KB (65535 B).
        tcp["rcv_buffer"] = "65535B"
    return {
        "simulation": {"duration": f"{duration_s}s", "seed": 1},
        "node": [{"name": "server"}, {"name": "router"}, {"name": "laptop"}],
        "link": [internet, down, up] if direction == "downlink" else [up, down, internet],
        "flow": [{"name": direction, "from": src, "to": dst, "tcp": tcp}],
    }


def _analyze(paths):
    """The paper's analysis over captures: per-connection data direction
    rows, pooled loss-period sizes, and (T, RTT, p) points for eq. 1."""
    import pandas as pd

    from .. import pcap

    conns, periods = [], []
    for path in paths:
        r = pcap.analyze(path)
        c = r.connections
        data = c[c.actual_data_pkts > 0].copy()
        data["file"] = os.path.basename(path)
        conns.append(data)
        lp = r.loss_periods.merge(data[["conn", "dir"]], on=["conn", "dir"])
        periods.append(lp)
    return pd.concat(conns, ignore_index=True), pd.concat(periods, ignore_index=True)


def check_captures(paths):
    """Refuse, before any simulation, a capture the paper's analysis cannot
    use: missing, not a capture, or without a TCP connection carrying data."""
    from .. import InputError, pcap

    for path in paths:
        c = pcap.analyze(path).connections
        if len(c) == 0 or "actual_data_pkts" not in c or not (c.actual_data_pkts > 0).any():
            raise InputError(f"{path}: no TCP connection carrying data in this capture")


def _figures_of(conns, periods):
    """Table 1 and section 3.3 figures of a set of connections."""
    import numpy as np

    rex = periods.rexmits.to_numpy()
    return {
        "throughput_kbps": float((conns.throughput_bps * 8 / 1e3).mean()),   # tcptrace's throughput is bytes/s
        "rtt_min_ms": float(conns.rtt_min_ms.mean()),
        "rtt_avg_ms": float(conns.rtt_avg_ms.mean()),
        "rtt_max_ms": float(conns.rtt_max_ms.mean()),
        # Table 1's "Variance of avg RTT (ms)", read as the variance of the
        # connections' average RTTs (ms^2, printed by the paper as ms).
        "rtt_avg_var": float(conns.rtt_avg_ms.var(ddof=1)) if len(conns) > 1 else float("nan"),
        "retrans_pct": float(100 * conns.rexmt_data_pkts.sum() / conns.actual_data_pkts.sum()),
        "median_rexmits": float(np.median(rex)) if len(rex) else float("nan"),
        "single_fraction": float((rex == 1).mean()) if len(rex) else float("nan"),
        "multi_fraction": float((rex >= 2).mean()) if len(rex) else float("nan"),
        "periods": len(rex),
    }


def _eq1_points(conns):
    ok = conns[(conns.rexmt_data_pkts > 0) & (conns.rtt_avg_ms > 0)]
    return [(t, rtt / 1e3, p) for t, rtt, p in zip(ok.throughput_bps, ok.rtt_avg_ms, ok.retrans_rate)]


def _ccdf_figure(ctx, by_dir):
    import numpy as np

    fig, ax = subplots()
    for direction, (_, periods) in by_dir.items():
        rex = np.sort(periods.rexmits.to_numpy())
        if not len(rex):
            continue
        ks = np.arange(1, rex.max() + 1)
        ax.step(ks, [(rex >= k).mean() for k in ks], where="post", label=f"{direction} (cdmasim, {len(rex)} periods)")
    ax.plot([1, 2], [1, 0.42], "kx", label="paper, downlink: 58 % single")
    ax.set_xscale("log")
    finish(ctx, fig, ax, "fig6", "Fig. 6(b): CCDF of retransmissions per loss period",
           "retransmitted packets in a loss period", "CCDF P[X >= k]",
           ["fig6.downlink_median_rexmits", "fig6.uplink_median_rexmits", "fig6.downlink_single_fraction",
            "fig6.uplink_multi_fraction"])


def _user_captures(ctx):
    from ..models import fit_lee_c

    conns, periods = _analyze(ctx.pcaps)
    f = _figures_of(conns, periods)
    for k, unit in (("throughput_kbps", "kb/s"), ("rtt_avg_ms", "ms"), ("retrans_pct", "%")):
        ctx.item(f"pcap.{k}", f"Your captures ({len(conns)} data directions): mean {k}", f[k], unit)
    if f["periods"]:
        ctx.item("pcap.median_rexmits", "Your captures: median retransmissions per loss period",
                 f["median_rexmits"], "packets")
    points = _eq1_points(conns)
    if points:
        ctx.item("pcap.eq1_c", f"Your captures: eq. 1 fitted for C over {len(points)} connection(s)",
                 fit_lee_c(points)["c"], "")
    else:
        ctx.note("Your captures have no connection with a retransmission: eq. 1 cannot be fitted.")


def reproduce(ctx):
    from ..models import fit_lee_c

    seeds, duration = ([1, 2], 30) if ctx.quick else (list(range(1, 13)), 300)
    by_dir, all_conns = {}, []
    for direction in ("downlink", "uplink"):
        df, store = ctx.sweep({"sweep": {"name": f"lee_{direction}", "scenario": _scenario(direction, duration),
                                         "seeds": seeds}}, pcap=True)
        paths = [os.path.join(store.run_dir(k), "pcap", SENDER_CAPTURE[direction]) for k in df.run]
        conns, periods = _analyze(paths)
        by_dir[direction] = (conns, periods)
        all_conns.append(conns)
        f, pub = _figures_of(conns, periods), PUBLISHED[direction]
        over = f"({len(seeds)} connections x {duration} s)"
        ctx.item(f"table1.{direction}_throughput_kbps", f"Table 1: average TCP throughput, {direction} {over}",
                 f["throughput_kbps"], "kb/s", published=pub["throughput_kbps"], tolerance=Tolerance.rel(0.25))
        calibrated = " (an input: the path delay is set from it)" if direction == "downlink" else ""
        for q, tol in (("rtt_min_ms", 0.25), ("rtt_avg_ms", 0.25), ("rtt_max_ms", 0.5)):
            ctx.item(f"table1.{direction}_{q}", f"Table 1: {q.split('_')[1]} RTT, {direction}"
                     f"{calibrated if q == 'rtt_min_ms' else ''} {over}", f[q], "ms", published=pub[q],
                     tolerance=Tolerance.rel(tol))
        ctx.item(f"table1.{direction}_rtt_avg_variance", f"Table 1: variance of the connections' average RTTs, "
                 f"{direction} {over}", f["rtt_avg_var"], "ms^2", published=pub["rtt_avg_var"],
                 tolerance=Tolerance.rel(0.5))
        ctx.item(f"table1.{direction}_retrans_pct", f"Table 1: retransmission rate, {direction} (link loss set to "
                 f"{LOSS[direction] * 100:g} %) {over}", f["retrans_pct"], "%", published=pub["retrans_pct"],
                 tolerance=Tolerance.rel(0.5))
        ctx.item(f"fig6.{direction}_median_rexmits", f"Section 3.3: median retransmissions per loss period, "
                 f"{direction} ({f['periods']} periods)", f["median_rexmits"], "packets",
                 published=pub["median_rexmits"], tolerance=Tolerance.abs(0))
        if direction == "downlink":
            ctx.item("fig6.downlink_single_fraction", "Section 3.3: share of downlink loss periods with a single "
                     "retransmission", f["single_fraction"], "fraction", published=0.58, tolerance=Tolerance.abs(0.1))
        else:
            ctx.item("fig6.uplink_multi_fraction", "Section 3.3: share of uplink loss periods with multiple "
                     "retransmissions (read as >= 2)", f["multi_fraction"], "fraction", published=0.92,
                     tolerance=Tolerance.abs(0.1))
    import pandas as pd

    points = _eq1_points(pd.concat(all_conns, ignore_index=True))
    fit = fit_lee_c(points)
    ctx.item("eq1.fitted_c", f"Eq. 1 (T = C MTU / (RTT sqrt(b p)), b = 2, MTU = 1500 B) fitted for C over "
             f"{fit['n']} simulated connections; the paper uses C = 2", fit["c"], "", published=2.0,
             tolerance=Tolerance.rel(0.5))
    ctx.item("eq1.fit_rel_residual", "Eq. 1 fit: relative residual", fit["rel_residual"], "")
    rows = [(f"{d}\n{q}", PUBLISHED[d][q] / s, _figures_of(*by_dir[d])[q] / s)
            for d in ("downlink", "uplink") for q, s in (("throughput_kbps", 100), ("rtt_avg_ms", 100))]
    ctx.figure("table1", "Table 1: throughput (x100 kb/s) and average RTT (x100 ms)", comparison_figure(
        "Table 1: published vs simulated (units of 100 kb/s and 100 ms)", rows, ""),
        [f"table1.{d}_{q}" for d in ("downlink", "uplink") for q in ("throughput_kbps", "rtt_avg_ms")])
    _ccdf_figure(ctx, by_dir)
    if ctx.pcaps:
        _user_captures(ctx)
