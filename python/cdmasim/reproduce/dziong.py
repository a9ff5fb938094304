"""Dziong et al.: web browsing over an IS-2000 (cdma2000 1X) system.

Single user (section 5.1): one browsing user (`kind = "http"`, Table 2's
workload) behind an RLP3 radio link (`[[radio_link]]`: 20 ms frames, NAK
rounds 1, 2, 3 with a 60 ms guard, frame errors i.i.d. at a FER), one-way
radio delay D = 100 ms and Internet delay D_hi = 80 ms (Fig. 5), no loss
off the air link; Table 1's TCP (Reno, MSS 576 B, a 32 KB receiver window).

  objects   object times for 1-10 KB objects at 38.4 kb/s, FER 1/5/10 %,
            C = 1 and C = 4 (the numbers of section 5.1.1);
  fig6/7    normalized object and page delay against size, 38.4 and
            153.6 kb/s;
  fig8      page throughput for 100-500 KB pages at 153.6 kb/s, C = 1 and 4;
  fig9-12   RLP new-data and retransmission buffer occupancy (W = 8 KB);
  rtx_max   the maximum retransmission buffer of section 5.1.4 against its
            closed form.

Multiple users (section 5.2), preset "is2000": 16, 32 and 60 users in one
sector, each browsing behind its own RLP air link (FER 1 %, Rayleigh at
3 km/h), the MAC granting SCHs by priority within power and Walsh codes:

  fig13/15  aggregate throughput against users;
  fig14     the power in use;
  fig16     page times for 1-10 KB and 10-100 KB pages at 16 and 60 users;
  fig17     channel ON times at 60 users.

The paper publishes no MAC, power or dormancy parameters: ours are in
docs/scenario.md (preset "is2000")."""

from .common import comparison_figure, finish, subplots
from .items import Tolerance

TITLE = "Wireless Internet Access Using IS-2000 Third Generation System: A Performance and Capacity Study"
CITATION = ("Z. Dziong, F. Khan, K. Medepalli, S. Nanda, \"Wireless Internet Access Using IS-2000 Third Generation "
            "System: A Performance and Capacity Study\", Bell Labs, Lucent Technologies.")
PENDING = []

#: Section 5.1.1: mean object time (s) for 1-10 KB objects, 38.4 kb/s, i.i.d. errors.
OBJECT_TIMES = {1: {0.01: 2.29, 0.05: 2.76, 0.10: 3.45}, 4: {0.01: 3.31, 0.05: 4.97, 0.10: 5.0}}
#: The paper's TCP and workload are described, not specified (initial
#: window, delayed ACKs, RLP details): a mean agrees within 20 %.
TOL_TIME = 0.20
#: Table 1's TCP; the initial window is not given: one segment, as TCP
#: stacks and ns of the time used.
TCP = {"cc": "reno", "mss": "576B", "rcv_buffer": "32KiB", "initial_window": 1}
FERS = (0.01, 0.05, 0.10)


def scenario(duration_s, rate_kbps, fer, http=None, tcp=None, seed=1, sample=None):
    """Fig. 5's network: server -(D_hi)- PDSN -(RLP radio link, D)- mobile."""
    doc = {
        "simulation": {"duration": f"{duration_s}s", "seed": seed},
        "node": [{"name": "server"}, {"name": "pdsn"}, {"name": "ue"}],
        "link": [{"name": "internet", "from": "server", "to": "pdsn", "rate": "100Mbps", "delay": "80ms"}],
        "radio_link": [{"name": "air", "bsc": "pdsn", "mobile": "ue", "rate_down": f"{rate_kbps}kbps",
                        "rate_up": f"{rate_kbps}kbps", "delay": "100ms", "fer": fer,
                        "rlp": {"naks": [1, 2, 3], "guard": "60ms"}}],
        "flow": [{"name": "web", "kind": "http", "from": "server", "to": "ue", **(http or {}),
                  "tcp": {**TCP, **(tcp or {})}}],
    }
    if sample:
        doc["simulation"]["sample_interval"] = sample
    return doc


def _runs(ctx, name, docs):
    """One run per (label, doc); returns {label: (row, store, key)}."""
    out = {}
    for label, doc in docs.items():
        df, store = ctx.sweep({"sweep": {"name": f"{name}_{label}", "scenario": doc,
                                         "seeds": [doc["simulation"]["seed"]]}})
        out[label] = (df.iloc[0], store, df.run.iloc[0])
    return out


def _between(df, lo_kb, hi_kb, col="size_bytes"):
    return df[(df[col] >= lo_kb * 1000) & (df[col] < hi_kb * 1000) & df.delay_s.notna()]


def object_times(ctx):
    """Section 5.1.1: 1-10 KB objects at 38.4 kb/s, FER 1, 5, 10 %, C = 1 and 4."""
    duration = 1500 if ctx.quick else 6000
    docs = {f"c{c}_fer{fer:g}": scenario(duration, 38.4, fer, http={"parallel": c})
            for c in (1, 4) for fer in FERS}
    runs = _runs(ctx, "dziong_objects", docs)
    rows, ids = [], []
    for c in (1, 4):
        for fer in FERS:
            _, store, key = runs[f"c{c}_fer{fer:g}"]
            objs = _between(store.table(key, "objects"), 1, 10)
            id = f"objects.time_s.c{c}.fer_{fer:g}"
            published = OBJECT_TIMES[c][fer]
            ctx.item(id, f"Section 5.1.1: mean time of 1-10 KB objects, 38.4 kb/s, i.i.d. FER {fer:g}, C = {c} "
                     f"({len(objs)} objects)", float(objs.delay_s.mean()), "s", published=published,
                     tolerance=Tolerance.rel(TOL_TIME))
            rows.append((f"C={c}\nFER {fer:g}", published, float(objs.delay_s.mean())))
            ids.append(id)
    ctx.figure("objects", "Section 5.1.1: object times, 1-10 KB objects at 38.4 kb/s",
               comparison_figure("1-10 KB object time, 38.4 kb/s", rows, "s"), ids)
    return runs


BINS_KB = (0.1, 1, 10, 100, 1000)


def _binned(df, bins=BINS_KB):
    import numpy as np

    df = df[df.delay_s.notna()]
    out = []
    for lo, hi in zip(bins, bins[1:]):
        d = df[(df.size_bytes >= lo * 1000) & (df.size_bytes < hi * 1000)]
        out.append((np.sqrt(lo * hi), float(d.normalized_s_per_kb.mean()) if len(d) else np.nan, len(d)))
    return out


def fig6_fig7(ctx):
    """Normalized object and page delay against size at 38.4 and 153.6 kb/s (FER 1 %)."""
    duration = 1500 if ctx.quick else 6000
    docs = {f"r{r:g}": scenario(duration, r, 0.01, seed=2) for r in (38.4, 153.6)}
    runs = _runs(ctx, "dziong_fig6", docs)
    fig, axes = subplots(2, figsize=(10, 3.6))
    ids = []
    for rate in (38.4, 153.6):
        _, store, key = runs[f"r{rate:g}"]
        for ax, table, what in ((axes[0], "objects", "object"), (axes[1], "pages", "page")):
            b = _binned(store.table(key, table))
            ax.plot([x for x, _, _ in b], [y for _, y, _ in b], marker="o", label=f"{rate:g} kb/s")
            for (x, y, n), (lo, hi) in zip(b, zip(BINS_KB, BINS_KB[1:])):
                if n:
                    id = f"fig{6 if what == 'object' else 7}.normalized_s_per_kb.r{rate:g}.{lo:g}-{hi:g}KB"
                    ctx.item(id, f"Fig. {6 if what == 'object' else 7}: normalized {what} delay, {lo:g}-{hi:g} KB, "
                             f"{rate:g} kb/s, FER 1 % ({n} {what}s)", y, "s/KB")
                    ids.append(id)
    # Section 5.1.1's reading of Fig. 6: the faster link helps large objects
    # a lot and small ones hardly (request/response round trips dominate).
    b38 = _binned(runs["r38.4"][1].table(runs["r38.4"][2], "objects"))
    b153 = _binned(runs["r153.6"][1].table(runs["r153.6"][2], "objects"))
    small, large = b153[0][1] / b38[0][1], b153[-1][1] / b38[-1][1]
    ctx.item("fig6.ratio_153_over_38.small", "Fig. 6: normalized delay at 153.6 over 38.4 kb/s, objects of 0.1-1 KB "
             "('for smaller objects the difference ... is very small'; read as at least 0.8)", small, "ratio",
             published=1.0, tolerance=Tolerance.within(0.8, 1.0))
    ctx.item("fig6.ratio_153_over_38.large", "Fig. 6: the same ratio for 100-1000 KB objects ('significantly lower "
             "for larger objects'; read as at most 0.6)", large, "ratio", published=0.6, tolerance=Tolerance.at_most(0.6))
    ids += ["fig6.ratio_153_over_38.small", "fig6.ratio_153_over_38.large"]
    for ax, what in ((axes[0], "object"), (axes[1], "page")):
        ax.set_xscale("log")
        ax.set_yscale("log")
    axes[0].set_title("Fig. 6: normalized object delay", fontsize=10)
    finish(ctx, fig, axes[1], "fig6_fig7", "Figs. 6 and 7: normalized object and page delay, single user, C = 1",
           "size (KB)", "delay per KB (s/KB)", ids, axes_title="Fig. 7: normalized page delay")


def fig8(ctx):
    """Page throughput for 100-500 KB pages at 153.6 kb/s against FER, C = 1 and 4."""
    duration = 1200 if ctx.quick else 4000
    # Pages of 100-500 KB: a main object and four embedded ones of about 50 KB.
    http = {"objects_per_page": 4, "object_size": {"dist": "lognormal", "median": "50KB", "sigma": 0.4, "max": "100KB"},
            "think_time": "5s"}
    fers = (0.0, 0.01, 0.05, 0.10)
    docs = {f"c{c}_fer{fer:g}": scenario(duration, 153.6, fer, http={**http, "parallel": c}, seed=3)
            for c in (1, 4) for fer in fers}
    runs = _runs(ctx, "dziong_fig8", docs)
    fig, ax = subplots()
    ids, tputs = [], {}
    for c in (1, 4):
        ys = []
        for fer in fers:
            _, store, key = runs[f"c{c}_fer{fer:g}"]
            p = _between(store.table(key, "pages"), 100, 500)
            tput = float((p.size_bytes * 8 / p.delay_s).mean() / 1000)
            id = f"fig8.page_kbps.c{c}.fer_{fer:g}"
            ctx.item(id, f"Fig. 8: mean page throughput of 100-500 KB pages, 153.6 kb/s, FER {fer:g}, C = {c} "
                     f"({len(p)} pages)", tput, "kb/s")
            ids.append(id)
            ys.append(tput)
        ax.plot(fers, ys, marker="o", label=f"C = {c}")
        tputs[c] = ys
    for fer, one, four in zip(fers, tputs[1], tputs[4]):
        id = f"fig8.c4_over_c1.fer_{fer:g}"
        ctx.item(id, f"Fig. 8: page throughput with C = 4 over C = 1, FER {fer:g} ('the throughput is higher when up "
                 "to 4 simultaneous TCP connections are allowed')", four / one, "ratio", published=1.0,
                 tolerance=Tolerance.at_least(1.0))
        ids.append(id)
    finish(ctx, fig, ax, "fig8", "Fig. 8: page throughput, 100-500 KB pages, 153.6 kb/s", "FER", "page throughput (kb/s)",
           ids)


#: Section 5.1.4, 38.4 kb/s, W = 8 KB: new-data buffer empty (fraction of the
#: time) and above 5 KB ("overwritten" with a 5 KB buffer), C = 1 and C = 4.
NEW_DATA_EMPTY = {(1, 0.0): 0.58, (1, 0.1): 0.63}
NEW_DATA_OVER_5KB = {(1, 0.0): 0.16, (1, 0.1): 0.10, (4, 0.0): 0.18, (4, 0.1): 0.16}


def _during_pages(store, key, series):
    """The samples of `series` (subject air.down) taken while a page downloads."""
    import numpy as np

    s = store.table(key, "series")
    s = s[(s.metric == series) & (s.subject == "air.down")].sort_values("t_s")
    pages = store.table(key, "pages")
    pages = pages[pages.finish_s.notna()]
    t = s.t_s.to_numpy()
    inside = np.zeros(len(t), dtype=bool)
    for a, b in zip(pages.start_s, pages.finish_s):
        inside |= (t >= a) & (t < b)
    return s.value.to_numpy()[inside]


def rlp_buffers(ctx):
    """Figs. 9-12 and section 5.1.4: RLP buffers at 38.4 kb/s with an 8 KB TCP window."""
    import numpy as np

    from ..models import rlp_max_retransmission_buffer

    duration = 1500 if ctx.quick else 6000
    docs = {f"c{c}_fer{fer:g}": scenario(duration, 38.4, fer, http={"parallel": c}, tcp={"rcv_buffer": "8KiB"},
                                         seed=4, sample="20ms")
            for c in (1, 4) for fer in (0.0, 0.1)}
    runs = _runs(ctx, "dziong_rlp", docs)
    fig, axes = subplots(2, figsize=(10, 3.6))
    ids = []
    for c in (1, 4):
        for fer in (0.0, 0.1):
            _, store, key = runs[f"c{c}_fer{fer:g}"]
            new = _during_pages(store, key, "rlp_new_data_bytes")
            label = f"C = {c}, FER {fer:g}"
            xs = np.sort(new)
            axes[0].step(xs / 1000, np.arange(1, len(xs) + 1) / len(xs), where="post", label=label)
            if (c, fer) in NEW_DATA_EMPTY:
                id = f"fig9.new_data_empty.c{c}.fer_{fer:g}"
                ctx.item(id, f"Fig. 9: new-data buffer empty, fraction of page-download time, {label}, W = 8 KB",
                         float((new == 0).mean()), "fraction", published=NEW_DATA_EMPTY[(c, fer)],
                         tolerance=Tolerance.abs(0.10))
                ids.append(id)
            id = f"fig{9 if c == 1 else 10}.new_data_over_5kb.c{c}.fer_{fer:g}"
            ctx.item(id, f"Fig. {9 if c == 1 else 10}: new-data buffer above 5 KB (a 5 KB buffer overwritten), fraction "
                     f"of page-download time, {label}", float((new > 5000).mean()), "fraction",
                     published=NEW_DATA_OVER_5KB[(c, fer)], tolerance=Tolerance.abs(0.08))
            ids.append(id)
            rl = store.table(key, "radio_links")
            down = rl[rl.direction == "down"].iloc[0]
            rtx = _during_pages(store, key, "rlp_rtx_bytes")
            xs = np.sort(rtx)
            axes[1].step(xs / 1000, np.arange(1, len(xs) + 1) / len(xs), where="post", label=label)
            rounds = 0 if fer == 0 else 3
            bound = rlp_max_retransmission_buffer(rounds, 0.1, 0.06, 38_400, 8 * 1024)
            id = f"sec5.1.4.rtx_max_bytes.c{c}.fer_{fer:g}"
            if fer == 0:
                ctx.item(id, f"Section 5.1.4: largest retransmission buffer without errors, {label} "
                         f"('0.96 KB'; the closed form with its +1 frame: {bound:.0f} B)", float(down.rtx_max_bytes),
                         "bytes", published=960, tolerance=Tolerance.rel(0.05) if c == 1 else Tolerance.at_least(960))
            else:
                ctx.item(id, f"Section 5.1.4: largest retransmission buffer, three NAK rounds, {label} "
                         f"(closed form {bound:.0f} B, 'limited to 4.8 KB')", float(down.rtx_max_bytes), "bytes",
                         published=4800, tolerance=Tolerance.at_most(bound))
            ids.append(id)
    axes[0].set_xlim(left=0)
    axes[0].set_title("Figs. 9-10: new-data buffer (during page downloads)", fontsize=10)
    finish(ctx, fig, axes[1], "fig9_fig12", "Figs. 9-12: RLP buffer occupancy, 38.4 kb/s, W = 8 KB", "bytes (KB)",
           "fraction of time at or below", ids, axes_title="Figs. 11-12: retransmission buffer")


#: Section 5.2 and the conclusions.
AGGREGATE_KBPS = {16: 54.0, 60: 170.0}
GROWTH_PCT = {(16, 32): 84.0, (32, 60): 72.0}
POWER_MEAN = {32: 0.56, 60: 0.78}
PAGE_S = {("1-10KB", 16): 6.24, ("1-10KB", 60): 7.93, ("10-100KB", 16): 16.6, ("10-100KB", 60): 21.2}
USERS = (16, 32, 60)


def multi_user(ctx):
    """Figs. 13-17: the sector with 16, 32 and 60 browsing users."""
    import numpy as np

    duration = 900 if ctx.quick else 3600
    runs = _runs(ctx, "dziong_sector", {f"u{n}": {"preset": "is2000", "simulation": {"duration": f"{duration}s",
                                                                                      "seed": 5},
                                                    "is2000": {"users": n}} for n in USERS})
    agg, ids = {}, []
    fig, axes = subplots(2, figsize=(10, 3.6))
    for n in USERS:
        row, store, key = runs[f"u{n}"]
        flows = store.table(key, "flows")
        agg[n] = float(flows.bytes_delivered.sum() * 8 / duration / 1000)
        sec = store.table(key, "is2000").iloc[0]
        id = f"fig14.power_mean.u{n}"
        ctx.item(id, f"Fig. 14: mean fraction of the sector's power in use, {n} users", float(sec.power_mean),
                 "fraction", published=POWER_MEAN.get(n), tolerance=Tolerance.abs(0.10) if n in POWER_MEAN else None)
        ids.append(id)
        cdf = store.table(key, "is2000_cdf")
        pw = cdf[cdf.quantity == "power_fraction"]
        axes[0].step(pw.value, pw.cdf, where="post", label=f"{n} users")
        pages = store.table(key, "pages")
        for band, lo, hi in (("1-10KB", 1, 10), ("10-100KB", 10, 100)):
            p = _between(pages, lo, hi)
            id = f"fig16.page_time_s.{band}.u{n}"
            ctx.item(id, f"Fig. 16: mean download time of {band[:-2]} KB pages, {n} users ({len(p)} pages)",
                     float(p.delay_s.mean()), "s", published=PAGE_S.get((band, n)),
                     tolerance=Tolerance.rel(0.25) if (band, n) in PAGE_S else None)
            ids.append(id)
        if n == 60:
            on = cdf[cdf.quantity == "on_time_s"]
            median = float(on.value[on.cdf >= 0.5].iloc[0])
            ctx.item("fig17.on_time_median_s.u60", "Fig. 17: median channel ON time, 60 users ('about 50 % of the "
                     "ON times are about 120 ms (6 frames)')", median, "s", published=0.12,
                     tolerance=Tolerance.abs(0.04))
            axes[1].step(on.value, on.cdf, where="post", label="60 users")
            ids.append("fig17.on_time_median_s.u60")
    for n in USERS:
        id = f"fig13.aggregate_kbps.u{n}"
        ctx.item(id, f"Fig. 13: aggregate throughput (page bytes delivered over the run), {n} users", agg[n], "kb/s",
                 published=AGGREGATE_KBPS.get(n), tolerance=Tolerance.rel(0.25) if n in AGGREGATE_KBPS else None)
        ctx.item(f"fig15.per_user_kbps.u{n}", f"Fig. 15: aggregate throughput per user, {n} users", agg[n] / n, "kb/s")
        ids += [id, f"fig15.per_user_kbps.u{n}"]
    for (a, b), pct in GROWTH_PCT.items():
        id = f"fig13.growth_pct.u{a}_to_u{b}"
        ctx.item(id, f"Fig. 13: aggregate throughput growth from {a} to {b} users", (agg[b] / agg[a] - 1) * 100, "%",
                 published=pct, tolerance=Tolerance.abs(25, "points"))
        ids.append(id)
    axes[0].set_title("Fig. 14: power in use", fontsize=10)
    axes[0].set_xlabel("fraction of the sector's power")
    axes[0].set_ylabel("fraction of the time at or below")
    axes[0].legend(fontsize=8)
    axes[1].set_xscale("log")
    finish(ctx, fig, axes[1], "fig14_fig17", "Figs. 14 and 17: power in use and channel ON times", "ON time (s)",
           "fraction of ON periods at or below", ids, axes_title="Fig. 17: channel ON times")
    # What moves it: the power a channel costs (the paper's link-level
    # tables are not published). Half our cell-edge power, 60 users.
    row, store, key = _runs(ctx, "dziong_sector_half_power", {"u60": {
        "preset": "is2000", "simulation": {"duration": f"{duration}s", "seed": 5},
        "is2000": {"users": 60, "power": {"p_edge": 0.03}}}})["u60"]
    sec = store.table(key, "is2000").iloc[0]
    half = float(store.table(key, "flows").bytes_delivered.sum() * 8 / duration / 1000)
    pages = _between(store.table(key, "pages"), 1, 10)
    for q, v, unit in (("power_mean", float(sec.power_mean), "fraction"), ("aggregate_kbps", half, "kb/s"),
                       ("page_time_s.1-10KB", float(pages.delay_s.mean()), "s")):
        ctx.item(f"sensitivity.p_edge_0.03.u60.{q}", f"60 users with half the cell-edge power per channel "
                 f"(p_edge 3 % instead of 6 %): {q}", v, unit)
    fig, ax = subplots()
    ax.plot(USERS, [agg[n] for n in USERS], marker="o", label="measured (cdmasim)")
    ax.plot(list(AGGREGATE_KBPS), list(AGGREGATE_KBPS.values()), "s", color="#777777", label="published")
    finish(ctx, fig, ax, "fig13", "Fig. 13: aggregate throughput against users", "users", "kb/s",
           [f"fig13.aggregate_kbps.u{n}" for n in USERS])
    _ = np


def reproduce(ctx):
    object_times(ctx)
    fig6_fig7(ctx)
    fig8(ctx)
    rlp_buffers(ctx)
    multi_user(ctx)
