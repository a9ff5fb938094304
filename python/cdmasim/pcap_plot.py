"""Plots of a capture analysis (matplotlib, Agg): the time-sequence graph as
tcptrace draws it for xplot (segments as vertical bars, retransmissions red,
out-of-order pink, the ACK line green, the advertised window yellow),
throughput over time and RTT samples over time, one set per direction that
carries data."""

import os

from ._plot import finish as _finish
from ._plot import pyplot


def plot_all(result, outdir):
    plt = pyplot()

    os.makedirs(outdir, exist_ok=True)
    written = []
    series = result.series or []
    t0 = result.report["first_us"]
    for conn, pair in zip(result.report["connections"], series):
        for side, s in zip(("a2b", "b2a"), pair):
            if not s["segments"] or all(k == 3 for *_, k in s["segments"]):
                continue
            stem = os.path.join(outdir, f"conn{conn['index']}_{side}")
            name = f"{conn['host_a']}:{conn['port_a']} {'->' if side == 'a2b' else '<-'} {conn['host_b']}:{conn['port_b']}"
            colors = {0: "black", 1: "red", 2: "magenta", 3: "orange"}
            fig, ax = plt.subplots(figsize=(9, 5))
            for kind, label in ((0, "data"), (1, "retransmitted"), (2, "out of order"), (3, "SYN/FIN")):
                pts = [(t, a, b) for t, a, b, k in s["segments"] if k == kind]
                if pts:
                    xs = [(t - t0) / 1e6 for t, _, _ in pts]
                    ax.vlines(xs, [a for _, a, _ in pts], [max(b, a + 1) for _, a, b in pts], colors=colors[kind],
                              label=label, linewidth=1)
            if s["acks"]:
                ts = [(t - t0) / 1e6 for t, _, _ in s["acks"]]
                ax.step(ts, [a for _, a, _ in s["acks"]], where="post", color="green", label="ACK", linewidth=0.8)
                ax.step(ts, [w for _, _, w in s["acks"]], where="post", color="gold", label="window", linewidth=0.8)
            ax.legend(loc="upper left", fontsize=8)
            _finish(plt, fig, ax, "sequence offset (bytes)", f"time-sequence graph {name}", stem + "_tsg.png", written)

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
