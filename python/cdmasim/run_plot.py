"""Figures of a simulation run (`cdmasim run FILE --plot DIR`): each TCP
flow's cwnd, ssthresh and advertised window, queue occupancy, goodput over time and the one-way
delay of CBR streams — whichever series the run recorded — and, per
cdma2000 cell, Paliwal et al.'s Fig. 5 (aggregate window and link queue;
shared buffer, RED average and dead periods). Runs with more than
MAX_PER_FLOW flows get aggregate figures instead of one per flow."""

import os

from . import _core
from ._files import check_output_dir, write_into
from ._plot import finish, pyplot

HINTS = {
    "cwnd": "no cwnd series: set trace_cwnd = true in a flow's tcp table",
    "queue_pkts": "no queue or goodput series: set [simulation] sample_interval",
}


MAX_PER_FLOW = 12


def _safe(name):
    """A flow's or cell's name in a file name: the core's escaping, so two
    names never share a figure (`x/y` and `x_y`)."""
    return _core.file_component(name)


def plot_run(result, outdir):
    """Write the figures into `outdir`, all together (they replace the
    figures an earlier run wrote there); returns (files written, hints for
    series the run lacks)."""
    check_output_dir("outdir", outdir)
    hints = []
    names = write_into(outdir, lambda tmp: hints.extend(_draw(result, tmp)))
    return [os.path.join(outdir, n) for n in names], hints


def _draw(result, outdir):
    """Draw every figure the run's series allow into `outdir`; returns the
    hints for series the run lacks."""
    plt = pyplot()
    by_metric = {}
    for metric, subject, t, v in result.series_arrays():
        by_metric.setdefault(metric, []).append((subject, t, v))
    written = []

    ssthresh = {s: (t, v) for s, t, v in by_metric.get("ssthresh", [])}
    rwnd = {s: (t, v) for s, t, v in by_metric.get("rwnd", [])}
    cwnds = by_metric.get("cwnd", [])
    pacing = {s: (t, v) for s, t, v in by_metric.get("pacing_rate_bps", [])}
    for subject, t, v in (cwnds if len(cwnds) <= MAX_PER_FLOW else []):
        fig, ax = plt.subplots(figsize=(9, 4.5))
        ax.step(t, v / 1000, where="post", label="cwnd", linewidth=0.9)
        if subject in pacing:
            # A model-based algorithm (BBR) paces and keeps no ssthresh worth
            # drawing: its pacing rate goes on a second axis instead.
            pt, pv = pacing[subject]
            ax2 = ax.twinx()
            ax2.step(pt, pv / 1e6, where="post", color="#e67e22", label="pacing rate", linewidth=0.8)
            ax2.set_ylabel("pacing rate (Mbit/s)")
            ax2.legend(loc="upper left", fontsize=8)
        elif subject in ssthresh:
            st, sv = ssthresh[subject]
            # Before the first loss ssthresh is "infinite": leave it off the scale.
            shown = sv <= 2 * max(v.max(), 1)
            if shown.any():
                ax.step(st[shown], sv[shown] / 1000, where="post", linestyle="--", label="ssthresh", linewidth=0.9)
        if subject in rwnd:
            rt, rv = rwnd[subject]
            # A fixed buffer's window is usually far above cwnd: show it only when it binds.
            if rv.min() <= 2 * max(v.max(), 1):
                ax.step(rt, rv / 1000, where="post", linestyle=":", label="advertised window", linewidth=0.9)
        ax.legend(loc="upper right", fontsize=8)
        finish(plt, fig, ax, "kB", f"congestion window, {subject}", os.path.join(outdir, f"cwnd_{_safe(subject)}.png"), written)

    # A cell's link buffers are drawn summed, in its own figure.
    per_mobile = {f"{m['name']}.down" for m in result.summary.get("mobiles", [])}
    queues = [(s, t, v) for s, t, v in by_metric.get("queue_pkts", []) if len(v) and v.max() > 0 and s not in per_mobile]
    if queues:
        fig, ax = plt.subplots(figsize=(9, 4.5))
        for s, t, v in queues:
            ax.step(t, v, where="post", label=s, linewidth=0.9)
        ax.legend(loc="upper right", fontsize=8)
        finish(plt, fig, ax, "packets", "queue occupancy (sampled)", os.path.join(outdir, "queues.png"), written)

    goodput = by_metric.get("goodput_bps", [])
    if goodput:
        _goodput_figure(plt, goodput, os.path.join(outdir, "goodput.png"), written)
    drops = result.drops
    if len(drops):
        _drops_figure(plt, drops, os.path.join(outdir, "drops.png"), written)

    for subject, t, v in by_metric.get("owd", []):
        fig, ax = plt.subplots(figsize=(9, 4.5))
        ax.plot(t, v * 1e3, ".", markersize=2)
        finish(plt, fig, ax, "one-way delay (ms)", f"one-way delay, {subject}", os.path.join(outdir, f"owd_{_safe(subject)}.png"), written)

    # 1xEV-DO users: each one's DRC rate and PF average over time (one
    # panel each, as the scheduler compares them), and the slot shares.
    drc = {s: (t, v) for s, t, v in by_metric.get("drc_bps", [])}
    pf = {s: (t, v) for s, t, v in by_metric.get("pf_avg_bps", [])}
    if drc:
        fig, axes = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
        for s, (t, v) in drc.items():
            axes[0].step(t, v / 1e6, where="post", label=s, linewidth=0.8)
            if s in pf and (pf[s][1] == pf[s][1]).any():  # NaN: the scheduler keeps no average (RR, max C/I)
                axes[1].plot(pf[s][0], pf[s][1] / 1e6, label=s, linewidth=0.9)
        axes[0].set_ylabel("Mbit/s")
        axes[0].set_title("1xEV-DO users: requested DRC rate (sampled)")
        axes[0].legend(loc="upper right", fontsize=8)
        fig.subplots_adjust(hspace=0.3)
        finish(plt, fig, axes[1], "Mbit/s", "PF average A_i (eq. 5, sampled)", os.path.join(outdir, "evdo_users.png"),
               written)
    users = result.summary.get("users", [])
    if users:
        fig, ax = plt.subplots(figsize=(max(5, 1.2 * len(users)), 4))
        names = [u["name"] for u in users]
        ax.bar(names, [100 * u["slot_share"] for u in users], color="#3b75af", label="slot share")
        ax.bar(names, [100 * u["utilisation"] for u in users], width=0.4, color="#e67e22",
               label="throughput / mean DRC")
        ax.legend(loc="upper right", fontsize=8)
        finish(plt, fig, ax, "%", "slot share and throughput / mean DRC per user",
               os.path.join(outdir, "evdo_shares.png"), written, xlabel="user")

    for c in result.summary.get("cells", []):
        _cell_figure(plt, c, by_metric, cwnds, os.path.join(outdir, f"cdma2000_{_safe(c['name'])}.png"), written)

    has_tcp = any(f.get("kind") == "tcp" for f in result.summary.get("flows", []))
    hints = []
    if has_tcp and "cwnd" not in by_metric:
        hints.append(HINTS["cwnd"])
    if "queue_pkts" not in by_metric:
        hints.append(HINTS["queue_pkts"])
    return hints


#: Goodput is smoothed over this many seconds: a sample interval's delivery
#: jumps above the link rate when a retransmission releases the data queued
#: behind it, which says nothing about the rate.
GOODPUT_WINDOW_S = 2.0


def _goodput_figure(plt, goodput, path, written):
    """Goodput per flow, as a moving average over GOODPUT_WINDOW_S, stacked
    (the top edge is the total), so that ten flows read as shares of one
    link rather than as crossing lines."""
    import numpy as np

    t = goodput[0][1]
    dt = float(t[1] - t[0]) if len(t) > 1 else 1.0
    k = max(1, int(round(GOODPUT_WINDOW_S / dt)))
    kernel = np.ones(k) / k
    smooth = [np.convolve(v, kernel, mode="same") / 1e6 for _, _, v in goodput]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    if len(goodput) > MAX_PER_FLOW:
        ax.plot(t, np.sum(smooth, axis=0), label=f"all {len(goodput)} flows", linewidth=0.9)
    else:
        ax.stackplot(t, smooth, labels=[s for s, _, _ in goodput], linewidth=0.3)
    ax.legend(loc="upper right", fontsize=8)
    finish(plt, fig, ax, "Mbit/s", f"goodput, stacked, {k * dt:g} s moving average", path, written)


def _drops_figure(plt, drops, path, written):
    """Every drop: when, where (one row per place) and why (colour)."""
    places = sorted(drops.place.unique())
    fig, ax = plt.subplots(figsize=(9, max(2.5, 0.5 * len(places) + 1.5)))
    y = drops.place.map({p: i for i, p in enumerate(places)})
    for reason, g in drops.groupby("reason"):
        ax.plot(g.t_s, y[g.index], "|", markersize=9, label=f"{reason} ({len(g)})")
    ax.set_yticks(range(len(places)))
    ax.set_yticklabels(places, fontsize=8)
    ax.legend(loc="upper right", fontsize=8)
    finish(plt, fig, ax, "where (queue or hop)", "drops: time, place and reason", path, written)


def _cell_figure(plt, cell, by_metric, cwnds, path, written):
    """Paliwal et al. Fig. 5: (a) the senders' aggregate window and the
    cell's aggregate link-buffer queue; (b) the shared buffer, RED's average
    and the dead periods."""
    import numpy as np

    name = cell["name"]
    links = {s: (t, v) for s, t, v in by_metric.get("link_queue_pkts", [])}
    bsc = {s: (t, v) for s, t, v in by_metric.get("queue_pkts", [])}.get(f"{name}.bsc")
    red = {s: (t, v) for s, t, v in by_metric.get("red_avg", [])}.get(f"{name}.bsc")
    fig, axes = plt.subplots(2, 1, figsize=(9, 6.5), sharex=True)
    handles = []
    if name in links:
        t, v = links[name]
        handles += axes[0].step(t, v, where="post", label="aggregate link queue (packets, left)", linewidth=0.9)
        if cwnds:
            # Each flow's cwnd is a step function: read it at the sample
            # times; in kB on an axis of its own (the queue is in packets).
            total = np.zeros(len(t))
            for _, ct, cv in cwnds:
                i = np.searchsorted(ct, t, side="right") - 1
                total += np.where(i >= 0, cv[np.clip(i, 0, None)], 0.0)
            right = axes[0].twinx()
            handles += right.step(t, total / 1000, where="post", color="#e67e22", label="aggregate cwnd (kB, right)",
                                  linewidth=0.9)
            right.set_ylabel("aggregate cwnd (kB)")
    axes[0].set_ylabel("link queue (packets)")
    axes[0].set_xlabel("time (s)")
    if handles:
        axes[0].legend(handles=handles, loc="upper right", fontsize=8)
    axes[0].set_title(f"cdma2000 cell '{name}': (a) aggregate window and link queue")
    if bsc is not None:
        axes[1].step(bsc[0], bsc[1], where="post", label="shared buffer B_cum", linewidth=0.9)
    if red is not None:
        axes[1].plot(red[0], red[1], label="RED average", linewidth=0.9)
    label = "dead period"
    for a, b in cell.get("dead_periods", []):
        if b - a >= 0.1:  # shorter ones would not show at this scale
            axes[1].axvspan(a, b, color="#f0c0c0", alpha=0.6, label=label)
            label = None
    axes[1].legend(loc="upper right", fontsize=8)
    fig.subplots_adjust(hspace=0.3)
    finish(plt, fig, axes[1], "packets", f"(b) shared buffer; dead {cell.get('rho_dead', 0) * 100:.2f} % of the run",
           path, written)
