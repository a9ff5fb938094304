"""Plots of a capture analysis (matplotlib, Agg): the time-sequence graph as
tcptrace draws it for xplot (segments as vertical bars, retransmissions red,
out-of-order pink, the ACK line green, the advertised window yellow),
throughput over time and RTT samples over time, one set per direction that
carries data."""

import os

from ._files import check_output_dir, write_into
from ._plot import finish as _finish, pyplot


def plot_all(result, outdir):
    """Write the figures into `outdir`, all together (they replace the
    figures an earlier call wrote there); returns their paths."""
    outdir = check_output_dir("outdir", outdir)
    return [os.path.join(outdir, n) for n in write_into(outdir, lambda tmp: _draw(result, tmp))]


def _draw(result, outdir):
    plt = pyplot()
    written = []
    series = result.series or []
    t0 = result.report["first_us"]
    for conn, pair in zip(result.report["connections"], series):
        for side, s in zip(("a2b", "b2a"), pair):
            if not s["segments"] or all(k == 3 for *_, k in s["segments"]):
                continue
            stem = os.path.join(outdir, f"conn{conn['index']}_{side}")
            name = f"{conn['host_a']}:{conn['port_a']} {'->' if side == 'a2b' else '<-'} {conn['host_b']}:{conn['port_b']}"
            retx = [(t - t0) / 1e6 for t, _, _, k in s["segments"] if k == 1]
            # A second panel zooms on the first retransmission: on the whole
            # run's scale a retransmitted bar is one pixel under the others.
            fig, axes = plt.subplots(1, 2 if retx else 1, figsize=(14 if retx else 9, 5), squeeze=False)
            _tsg(axes[0][0], s, t0)
            if retx:
                rtts = sorted(r for _, r in s["rtt"]) or [100_000]
                half = max(5 * rtts[len(rtts) // 2] / 1e6, 0.05)
                _tsg(axes[0][1], s, t0, (retx[0] - half, retx[0] + half))
                axes[0][1].set_title(f"around the first retransmission ({len(retx)} in all)", fontsize=9)
                axes[0][1].set_xlabel("time (s)")
            axes[0][0].legend(loc="upper left", fontsize=8)
            axes[0][0].set_ylabel("sequence offset (bytes)")
            axes[0][0].set_title(f"time-sequence graph {name}")
            fig.tight_layout()
            _finish(plt, fig, axes[0][0], "sequence offset (bytes)", f"time-sequence graph {name}", stem + "_tsg.png",
                    written)

            # throughput: new bytes per bin
            segs = [(t, b - a) for t, a, b, k in s["segments"] if k in (0, 2)]
            if segs:
                tmin, tmax = segs[0][0], segs[-1][0]
                span = max(tmax - tmin, 1)
                nbins = 100 if span > 100_000 else 10
                width = span / nbins
                bins = [0.0] * (nbins + 1)
                for t, n in segs:
                    bins[min(int((t - tmin) / width), nbins)] += n
                fig, ax = plt.subplots(figsize=(9, 4))
                ax.step([(tmin - t0 + i * width) / 1e6 for i in range(nbins + 1)],
                        [8 * v / (width / 1e6) / 1e6 for v in bins], where="post")
                _finish(plt, fig, ax, "throughput (Mbit/s)", f"throughput {name}", stem + "_tput.png", written)
            if s["rtt"]:
                fig, ax = plt.subplots(figsize=(9, 4))
                ax.plot([(t - t0) / 1e6 for t, _ in s["rtt"]], [r / 1000 for _, r in s["rtt"]], ".", markersize=2)
                _finish(plt, fig, ax, "RTT (ms)", f"RTT samples {name}", stem + "_rtt.png", written)
    return written


def _tsg(ax, s, t0, window=None):
    """tcptrace's time-sequence graph on `ax`, within `window` (s) if given:
    retransmissions drawn last, with a marker, so that none hides under data."""
    colors = {0: "black", 2: "magenta", 3: "orange", 1: "red"}
    inside = (lambda x: window[0] <= x <= window[1]) if window else (lambda x: True)
    lo = hi = None
    for kind, label in ((0, "data"), (2, "out of order"), (3, "SYN/FIN"), (1, "retransmitted")):
        pts = [((t - t0) / 1e6, a, max(b, a + 1)) for t, a, b, k in s["segments"] if k == kind]
        pts = [p for p in pts if inside(p[0])]
        if not pts:
            continue
        xs = [x for x, _, _ in pts]
        ax.vlines(xs, [a for _, a, _ in pts], [b for _, _, b in pts], colors=colors[kind], label=label, linewidth=1)
        if kind == 1:
            ax.plot(xs, [b for _, _, b in pts], "x", color="red", markersize=4)
        lo = min([a for _, a, _ in pts] + ([lo] if lo is not None else []))
        hi = max([b for _, _, b in pts] + ([hi] if hi is not None else []))
    acks = [((t - t0) / 1e6, a, w) for t, a, w in s["acks"] if inside((t - t0) / 1e6)]
    if acks:
        ts = [x for x, _, _ in acks]
        ax.step(ts, [a for _, a, _ in acks], where="post", color="green", label="ACK", linewidth=0.8)
        ax.step(ts, [w for _, _, w in acks], where="post", color="gold", label="window", linewidth=0.8)
    if window:
        ax.set_xlim(*window)
        if lo is not None:
            pad = max((hi - lo) * 0.05, 1)
            ax.set_ylim(lo - pad, hi + pad)
