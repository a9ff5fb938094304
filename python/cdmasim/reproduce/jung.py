"""Jung et al.: RBSMQ, a receiver-side advertised-window policy on a
CDMA2000-1X downlink (the measured network, simulated as in
examples/rbsmq_cdma1x.toml: a 153.6 kb/s radio link with a 300 ms stall
every 2.56 s behind a 120-packet per-mobile buffer, base RTT ~0.38 s).

Experiments (all through the sweep engine):
  fig1   500 UDP packets of 1000 bytes at 80 kb/s: inter-arrival times;
  fig2   one Reno flow with a fixed window of 4, 16, 32, 64 segments;
  fig4   one flow, RBSMQ against Reno with a 64-segment window;
  fig3/5 two flows (the second 10 s later), RBSMQ against Reno-64;
  fig6   five flows (one every 5 s), RBSMQ against Reno-64.
Throughput is bytes delivered by all flows over the run, so a starved
late flow counts; fairness is Jain's index of the flows' goodputs (each
over its own active time)."""

from .common import example_doc, finish, flow_values, jain, subplots
from .items import Tolerance

TITLE = "Receiver Based Stable and Minimum Queueing Policy for TCP in CDMA2000-1X"
CITATION = ("J. Jung, B. Chun, Y. Kim, C. Yoo, \"Receiver Based Stable and Minimum Queueing Policy for TCP in "
            "CDMA2000-1X\", Samsung Electronics / Korea University.")
PENDING = []

MSS = 1460
RENO64_BUFFER = f"{64 * MSS}B"


def _scenario(n_flows, gap_s, duration_s):
    doc = example_doc("rbsmq_cdma1x")
    doc["simulation"]["duration"] = f"{duration_s}s"
    # The example's outage pattern is periodic: it runs to any duration.
    # RBSMQ's parameters are its defaults (the example spells them out);
    # rcv_buffer is the Reno-64 window, and RBSMQ's max_window caps at 64.
    doc["flow"] = [{
        "name": f"ftp{i + 1}", "from": "server", "to": "mobile", "start": f"{i * gap_s}s",
        "tcp": {"cc": "reno", "mss": f"{MSS}B", "rwnd": "rbsmq", "rcv_buffer": RENO64_BUFFER},
    } for i in range(n_flows)]
    return doc


def _policies(ctx, name, n_flows, gap_s, duration_s):
    """One sweep: the same flows under RBSMQ and under Reno-64."""
    df, store = ctx.sweep({
        "sweep": {"name": f"jung_{name}", "scenario": _scenario(n_flows, gap_s, duration_s), "seeds": [1]},
        "zip": {"flow[*].tcp.rwnd": ["rbsmq", "fixed"]},
    })
    out = {}
    for _, row in df.iterrows():
        pol = "rbsmq" if row["flow[*].tcp.rwnd"] == "rbsmq" else "reno64"
        delivered = flow_values(row, "bytes_delivered")
        out[pol] = {
            "throughput_bps": 8 * sum(delivered.values()) / duration_s,
            "goodputs": flow_values(row, "goodput_bps"),
            "queue_avg": row["queue.radio.avg_packets"], "queue_max": row["queue.radio.max_packets"],
            "drops": row["queue.radio.drops"], "run": row["run"],
        }
    return out, store


def _queue_figure(ctx, id, title, runs, store, items):
    fig, axes = subplots(2, figsize=(9, 3.2))
    for pol, color in (("reno64", "#c0392b"), ("rbsmq", "#3b75af")):
        s = store.table(runs[pol]["run"], "series")
        q = s[(s.metric == "queue_pkts") & (s.subject == "radio")]
        axes[0].plot(q.t_s, q.value, color=color, label="Reno, window 64" if pol == "reno64" else "RBSMQ")
        g = s[s.metric == "goodput_bps"]
        for flow, part in g.groupby("subject"):
            axes[1].plot(part.t_s, part.value / 1e3, color=color, alpha=0.8, lw=1)
    axes[0].set_xlabel("time (s)")
    axes[0].set_ylabel("packets queued at the radio link")
    axes[0].legend(fontsize=8)
    axes[1].set_xlabel("time (s)")
    axes[1].set_ylabel("per-flow goodput (kb/s)")
    axes[1].set_title("red: Reno-64, blue: RBSMQ", fontsize=9)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    ctx.figure(id, title, fig, items)


def _fig1(ctx):
    """Fig. 1: 500 UDP packets of 1000 bytes at 80 kb/s over the radio link;
    the paper saw 'over 80 %' of inter-arrival times below their mean and
    periodic large ones (the stalls)."""
    import numpy as np

    doc = _scenario(0, 0, 50)
    doc["flow"] = [{"name": "udp", "from": "server", "to": "mobile", "kind": "cbr", "packet_size": "1000B",
                    "rate": "80kbps"}]
    df, store = ctx.sweep({"sweep": {"name": "jung_fig1_udp", "scenario": doc, "seeds": [1]}})
    s = store.table(df.run.iloc[0], "series")
    arrivals = np.sort(s[(s.metric == "owd") & (s.subject == "udp")].t_s.to_numpy())
    gaps = np.diff(arrivals)
    ctx.item("fig1.interarrival_below_mean_fraction", f"Fig. 1: share of the {len(arrivals)} UDP packets' "
             "inter-arrival times below their mean (paper: 'over 80 %')", float((gaps < gaps.mean()).mean()),
             "fraction", published=0.80, tolerance=Tolerance.at_least(0.80))
    ctx.item("fig1.interarrival_max_over_mean", "Fig. 1: largest inter-arrival time over the mean (the periodic "
             "stalls)", float(gaps.max() / gaps.mean()), "ratio")
    fig, ax = subplots()
    ax.hist(gaps * 1e3, bins=40, color="#3b75af", label=f"cdmasim, {len(gaps)} gaps")
    ax.axvline(gaps.mean() * 1e3, color="k", ls="--", label="mean")
    finish(ctx, fig, ax, "fig1", "Fig. 1: UDP packet inter-arrival times", "inter-arrival time (ms)", "packets",
           ["fig1.interarrival_below_mean_fraction", "fig1.interarrival_max_over_mean"])


def reproduce(ctx):
    _fig1(ctx)
    duration = 40
    # Fig. 2: a fixed window of 4..64 segments, one flow.
    windows = [4, 16, 32, 64]
    base = _scenario(1, 0, duration)
    base["flow"][0]["tcp"]["rwnd"] = "fixed"
    df, store = ctx.sweep({"sweep": {"name": "jung_fig2_windows", "scenario": base, "seeds": [1]},
                       "grid": {"flow[*].tcp.rcv_buffer": [f"{w * MSS}B" for w in windows]}})
    by_w = {int(r["flow[*].tcp.rcv_buffer"][:-1]) // MSS: r for _, r in df.iterrows()}
    thr = {w: 8 * by_w[w]["flow.ftp1.bytes_delivered"] / duration for w in windows}
    ratio = thr[64] / thr[32]
    ctx.item("fig2.goodput_w64_over_w32", "Fig. 2: throughput with a 64-segment window over that with 32 "
             "(paper: 64 'could not achieve more throughput' than 16 or 32)", ratio, "ratio",
             published=1.0, tolerance=Tolerance.at_most(1.02))
    for w in windows:
        ctx.item(f"fig2.queue_w{w}_pkts", f"Fig. 2(a): mean radio-link queue, fixed window {w}",
                 by_w[w]["queue.radio.avg_packets"], "packets")
    # The paper's layout: (a) packets queued at the bottleneck over time, per window.
    fig, ax = subplots()
    for w in windows:
        q = store.table(by_w[w]["run"], "series")
        q = q[(q.metric == "queue_pkts") & (q.subject == "radio")]
        ax.plot(q.t_s, q.value, label=f"window {w}: {thr[w] / 1e3:.0f} kb/s")
    finish(ctx, fig, ax, "fig2", "Fig. 2(a): packets queued at the bottleneck, fixed windows 4-64", "time (s)",
           "packets queued at the radio link", ["fig2.goodput_w64_over_w32"] + [f"fig2.queue_w{w}_pkts" for w in windows])

    # Fig. 4: one flow.
    one, store = _policies(ctx, "one_flow", 1, 0, duration)
    ctx.item("fig4.throughput_ratio_one_flow", "Fig. 4: RBSMQ throughput over Reno with window 64, one flow",
             one["rbsmq"]["throughput_bps"] / one["reno64"]["throughput_bps"], "ratio",
             published=0.96, tolerance=Tolerance.abs(0.04))
    ctx.item("fig4.queue_rbsmq_pkts", "Fig. 4: mean radio queue under RBSMQ, one flow", one["rbsmq"]["queue_avg"],
             "packets")
    ctx.item("fig4.queue_reno64_pkts", "Fig. 4: mean radio queue under Reno-64, one flow", one["reno64"]["queue_avg"],
             "packets")
    _queue_figure(ctx, "fig4", "Fig. 4: one flow, Reno-64 vs RBSMQ", one, store,
                  ["fig4.throughput_ratio_one_flow", "fig4.queue_rbsmq_pkts", "fig4.queue_reno64_pkts"])

    # Figs. 3 and 5: two flows, the second 10 s later.
    two, store = _policies(ctx, "two_flows", 2, 10, duration)
    ctx.item("fig5.throughput_ratio_two_flows", "Fig. 5: RBSMQ throughput over Reno-64, two flows "
             "(paper: 'over 100 %')", two["rbsmq"]["throughput_bps"] / two["reno64"]["throughput_bps"], "ratio",
             published=1.0, tolerance=Tolerance.at_least(0.98))
    ctx.item("fig5.jain_rbsmq_two_flows", "Fig. 5: Jain's index of the two flows' goodputs under RBSMQ "
             "(paper: 'same bandwidth')", jain(two["rbsmq"]["goodputs"].values()), "index",
             published=1.0, tolerance=Tolerance.at_least(0.95))
    ctx.item("fig3.jain_reno64_two_flows", "Fig. 3: Jain's index of the two flows' goodputs under Reno-64 "
             "(paper: flow 2 cannot get bandwidth)", jain(two["reno64"]["goodputs"].values()), "index")
    ctx.item("fig5.queue_rbsmq_pkts", "Fig. 5: mean radio queue under RBSMQ, two flows", two["rbsmq"]["queue_avg"],
             "packets")
    _queue_figure(ctx, "fig5", "Figs. 3 and 5: two flows, Reno-64 vs RBSMQ", two, store,
                  ["fig5.throughput_ratio_two_flows", "fig5.jain_rbsmq_two_flows", "fig3.jain_reno64_two_flows"])

    # Fig. 6: five flows, one every 5 s.
    five, store = _policies(ctx, "five_flows", 5, 5, 60)
    ctx.item("fig6.jain_rbsmq_five_flows", "Fig. 6: Jain's index of five flows under RBSMQ (paper: fair)",
             jain(five["rbsmq"]["goodputs"].values()), "index", published=1.0, tolerance=Tolerance.at_least(0.9))
    ctx.item("fig6.drops_rbsmq_five_flows", "Fig. 6: packets dropped at the radio buffer under RBSMQ "
             "(paper: 'does not incur any packet loss')", five["rbsmq"]["drops"], "packets",
             published=0, tolerance=Tolerance.abs(0))
    fair = five["reno64"]["throughput_bps"] / 5
    served = sum(g >= 0.25 * fair for g in five["reno64"]["goodputs"].values())
    ctx.item("fig6.flows_served_reno64", "Fig. 6: flows getting at least a quarter of the fair share under "
             "Reno-64 (paper: only the first connection)", served, "flows", published=1, tolerance=Tolerance.abs(0))
    ctx.item("fig6.drops_reno64_five_flows", "Fig. 6: packets dropped at the radio buffer under Reno-64 "
             "(paper: overflow)", five["reno64"]["drops"], "packets")
    _queue_figure(ctx, "fig6", "Fig. 6: five flows, Reno-64 vs RBSMQ", five, store,
                  ["fig6.jain_rbsmq_five_flows", "fig6.drops_rbsmq_five_flows", "fig6.flows_served_reno64"])
