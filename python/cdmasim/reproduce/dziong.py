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
docs/scenario.md (preset "is2000"); Tables 1 and 2 are inputs, Table 2's
workload as the paper states it (objects per page mean 4 and median 2
counting the main response, §5.1.2; object size mean 6.75 KB, heavy
tailed, bounded only by the 3GPP2 HTTP model's 2 MB). Nothing is fitted:
every item with a published value is a prediction. A 12 KB cap on the
object size runs beside it as the named variant `variant.cap_12kb.*`
(not scored).
The MAC's `after_denial` and the power model's least-sourced constants are
the `sensitivity.*` items. Every experiment runs over the context's seeds
(frame errors, locations and the web workload draw random numbers).

Alias ids (`sec5.1.object_delay_s.c1.fer_0.01`, ...,
`sec5.2.on_time_median_ms`) answer for the items below."""

from ..models import rlp_max_retransmission_buffer
from .common import comparison_figure, finish, lay_out, subplots
from .items import Tolerance

TITLE = "Wireless Internet Access Using IS-2000 Third Generation System: A Performance and Capacity Study"
CITATION = ("Z. Dziong, F. Khan, K. Medepalli, S. Nanda, \"Wireless Internet Access Using IS-2000 Third Generation "
            "System: A Performance and Capacity Study\", Wireless Networks, 2002.")
PENDING = []
#: The paper's numbers are from its own multi-cell simulation: each one run.
ORIGIN = "simulation"

#: Section 5.1.1: mean object time (s) for 1-10 KB objects, 38.4 kb/s, i.i.d. errors.
OBJECT_TIMES = {1: {0.01: 2.29, 0.05: 2.76, 0.10: 3.45}, 4: {0.01: 3.31, 0.05: 4.97, 0.10: 5.0}}
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


def _spec(ctx, name, doc):
    return {"sweep": {"name": name, "scenario": doc, "seeds": list(ctx.seeds)}}


def _per_seed(ctx, name, doc):
    """One sweep over the seeds; [(seed, store, key)] in seed order."""
    df, store = ctx.sweep(_spec(ctx, name, doc))
    # Two columns of a frame that holds every swept value and figure: rows
    # as tuples over all its columns cost about 0.1 s a sweep.
    df = df.sort_values("seed")
    return [(int(seed), store, run) for seed, run in zip(df.seed, df.run)]


def _between(df, lo_kb, hi_kb, col="size_bytes"):
    return df[(df[col] >= lo_kb * 1000) & (df[col] < hi_kb * 1000) & df.delay_s.notna()]


def _aggregate_kbps(store, key, duration):
    """Page bytes delivered over a sector run, kb/s."""
    return float(store.table(key, "flows").bytes_delivered.sum() * 8 / duration / 1000)


def _power_mean(store, key):
    return float(store.table(key, "is2000").iloc[0].power_mean)


def _mean(xs):
    return sum(xs) / len(xs)


# -- single user ---------------------------------------------------------------

def _object_docs(ctx):
    duration = 600 if ctx.quick else 2400
    return {f"c{c}_fer{fer:g}": scenario(duration, 38.4, fer, http={"parallel": c}) for c in (1, 4) for fer in FERS}


def _fig6_docs(ctx):
    duration = 600 if ctx.quick else 2400
    return {f"r{r:g}": scenario(duration, r, 0.01, seed=2) for r in (38.4, 153.6)}


def _fig8_docs(ctx):
    duration = 600 if ctx.quick else 1600
    # Pages of 100-500 KB: a main object and four embedded ones of about 50 KB.
    http = {"objects_per_page": 4, "object_size": {"dist": "lognormal", "median": "50KB", "sigma": 0.4, "max": "100KB"},
            "think_time": "5s"}
    return {f"c{c}_fer{fer:g}": scenario(duration, 153.6, fer, http={**http, "parallel": c}, seed=3)
            for c in (1, 4) for fer in FIG8_FERS}


def _rlp_docs(ctx):
    duration = 600 if ctx.quick else 2400
    return {f"c{c}_fer{fer:g}": scenario(duration, 38.4, fer, http={"parallel": c}, tcp={"rcv_buffer": "8KiB"},
                                         seed=4, sample="20ms")
            for c in (1, 4) for fer in (0.0, 0.1)}


FIG8_FERS = (0.0, 0.01, 0.05, 0.10)
ALIAS_OBJECTS = {(1, 0.01): "sec5.1.object_delay_s.c1.fer_0.01", (1, 0.05): "sec5.1.object_delay_s.c1.fer_0.05",
                 (1, 0.10): "sec5.1.object_delay_s.c1.fer_0.10", (4, 0.01): "sec5.1.object_delay_s.c4.fer_0.01",
                 (4, 0.10): "sec5.1.object_delay_s.c4.fer_0.10"}


def object_times(ctx):
    """Section 5.1.1: 1-10 KB objects at 38.4 kb/s, FER 1, 5, 10 %, C = 1 and 4;
    and section 5.1.3's errors against object size."""
    runs = {label: _per_seed(ctx, f"dziong_objects_{label}", doc) for label, doc in _object_docs(ctx).items()}
    times, rows, ids = {}, [], []
    for c in (1, 4):
        for fer in FERS:
            per = [_between(store.table(key, "objects"), 1, 10) for _, store, key in runs[f"c{c}_fer{fer:g}"]]
            times[(c, fer)] = [float(o.delay_s.mean()) for o in per]
            id = f"objects.time_s.c{c}.fer_{fer:g}"
            published = OBJECT_TIMES[c][fer]
            ctx.item(id, f"Section 5.1.1: mean time of 1-10 KB objects, 38.4 kb/s, i.i.d. FER {fer:g}, C = {c} "
                     f"({len(per)} seeds, {sum(len(o) for o in per)} objects)", "s", samples=times[(c, fer)],
                     published=published, tolerance=Tolerance.from_wording(f"{published}", published, simulated=True),
                     aliases=[ALIAS_OBJECTS[(c, fer)]] if (c, fer) in ALIAS_OBJECTS else (),
                     source=f"§5.1.1 (C = {c}, FER {fer:g}): 'the average web object transfer times are 2.29, 2.76 "
                            "and 3.45 s at FER of 0.01, 0.05 and 0.10, respectively. For the case of multiple parallel "
                            "connections the delays ... are respectively 3.31, 4.97 and 5.0 s.'")
            rows.append((f"C={c}\nFER {fer:g}", published, times[(c, fer)]))
            ids.append(id)
    n = len(ctx.seeds)
    ctx.item("objects.c4_slower_than_c1", "Section 5.1.1: 1-10 KB objects take longer with C = 4 than with C = 1, at "
             "every FER", "holds", samples=[float(all(times[(4, f)][i] > times[(1, f)][i] for f in FERS))
                                            for i in range(n)], published=1.0, tolerance=Tolerance.holds(),
             source="§5.1.1: 'We observe that the web object transfer delays are higher when simultaneous parallel "
                    "TCP connections are allowed (C = 4) compared to the case of a single connection (C = 1).'")
    ids.append("objects.c4_slower_than_c1")
    # §5.1.3: the penalty of errors (FER 10 % over 1 %, C = 1) by object size.
    def norm(label, lo, hi):
        return [float(_between(store.table(key, "objects"), lo, hi).normalized_s_per_kb.mean())
                for _, store, key in runs[label]]

    small = [b / a - 1 for a, b in zip(norm("c1_fer0.01", 0.1, 1), norm("c1_fer0.1", 0.1, 1))]
    large = [b / a - 1 for a, b in zip(norm("c1_fer0.01", 10, 100), norm("c1_fer0.1", 10, 100))]
    ctx.item("sec5.1.3.small_objects_pay_more", "Section 5.1.3: going from FER 1 % to 10 % (C = 1, 38.4 kb/s) raises "
             "the normalized delay of 0.1-1 KB objects more than that of 10-100 KB objects (per seed: "
             f"{', '.join(f'+{a * 100:.0f} % / +{b * 100:.0f} %' for a, b in zip(small, large))})", "holds",
             samples=[float(a > b) for a, b in zip(small, large)], published=1.0, tolerance=Tolerance.holds(),
             source="§5.1.3: 'Moreover, it can be seen that the penalty in the transfer time is higher for smaller "
                    "objects/pages.'")
    ids.append("sec5.1.3.small_objects_pay_more")
    ctx.figure("objects", "Section 5.1.1: object times, 1-10 KB objects at 38.4 kb/s",
               comparison_figure("1-10 KB object time, 38.4 kb/s (mean of seeds)", rows, "s",
                                 "connections C and frame error rate"), ids)


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
    import numpy as np

    runs = {label: _per_seed(ctx, f"dziong_fig6_{label}", doc) for label, doc in _fig6_docs(ctx).items()}
    fig, axes = subplots(2, figsize=(10, 3.6))
    ids = []
    binned = {}
    for rate in (38.4, 153.6):
        for table, what, ax in (("objects", "object", axes[0]), ("pages", "page", axes[1])):
            per = [_binned(store.table(key, table)) for _, store, key in runs[f"r{rate:g}"]]
            binned[(rate, table)] = per
            # A bin no seed's run has an object or page in stays empty (NaN).
            ys = [float(np.mean(v)) if (v := [p[i][1] for p in per if p[i][2]]) else np.nan
                  for i in range(len(BINS_KB) - 1)]
            ax.plot([x for x, _, _ in per[0]], ys, marker="o", label=f"{rate:g} kb/s")
            for i, (lo, hi) in enumerate(zip(BINS_KB, BINS_KB[1:])):
                vals = [p[i][1] for p in per if p[i][2]]
                if vals:
                    id = f"fig{6 if what == 'object' else 7}.normalized_s_per_kb.r{rate:g}.{lo:g}-{hi:g}KB"
                    ctx.item(id, f"Fig. {6 if what == 'object' else 7}: normalized {what} delay, {lo:g}-{hi:g} KB, "
                             f"{rate:g} kb/s, FER 1 % ({sum(p[i][2] for p in per)} {what}s in {len(vals)} seeds)",
                             "s/KB", samples=vals, pooled=None if len(vals) >= ctx.min_seeds else len(vals))
                    ids.append(id)
    small = [b[0][1] / a[0][1] for a, b in zip(binned[(38.4, "objects")], binned[(153.6, "objects")])]
    large = [b[-2][1] / a[-2][1] for a, b in zip(binned[(38.4, "objects")], binned[(153.6, "objects")])]
    ctx.item("fig6.ratio_153_over_38.small", "Fig. 6: normalized delay at 153.6 over 38.4 kb/s, objects of 0.1-1 KB",
             "ratio", samples=small)
    ctx.item("fig6.ratio_153_over_38.large", "Fig. 6: the same ratio for 10-100 KB objects", "ratio", samples=large)
    ctx.item("fig6.faster_link_helps_large_objects_more", "Fig. 6: the faster link cuts the normalized delay of "
             "10-100 KB objects more than that of 0.1-1 KB objects", "holds",
             samples=[float(b < a) for a, b in zip(small, large)], published=1.0, tolerance=Tolerance.holds(),
             source="§5.1.1, Fig. 6: 'At 153.6 Kb/s the normalized delays are significantly lower for larger objects "
                    "compared to the case of 38.4 Kb/s air link data rate. However, for smaller objects the difference "
                    "in delay for 38.4 Kb/s and 153.6 Kb/s is very small.'")
    pages_over_objects = [float(p[0][1] > o[0][1])
                          for o, p in zip(binned[(38.4, "objects")], binned[(38.4, "pages")])]
    ctx.item("fig7.small_pages_slower_than_objects", "Figs. 6-7: at 38.4 kb/s the normalized delay of 0.1-1 KB pages "
             "is higher than that of 0.1-1 KB objects", "holds", samples=pages_over_objects, published=1.0,
             tolerance=Tolerance.holds(),
             source="§5.1.2: 'Note from figures 6 and 7 that the normalized delay for pages in the range of 0-1 Kbyte "
                    "is higher than that for objects in the same range.'")
    ids += ["fig6.ratio_153_over_38.small", "fig6.ratio_153_over_38.large", "fig6.faster_link_helps_large_objects_more",
            "fig7.small_pages_slower_than_objects"]
    for ax in axes:
        ax.set_xscale("log")
        ax.set_yscale("log")
    axes[0].set_title("Fig. 6: normalized object delay", fontsize=10)
    axes[0].set_xlabel("size (KB)")
    axes[0].set_ylabel("delay per KB (s/KB)")
    axes[0].legend(fontsize=8)
    finish(ctx, fig, axes[1], "fig6_fig7", "Figs. 6 and 7: normalized object and page delay, single user, C = 1",
           "size (KB)", "delay per KB (s/KB)", ids, axes_title="Fig. 7: normalized page delay")


def fig8(ctx):
    """Page throughput for 100-500 KB pages at 153.6 kb/s against FER, C = 1 and 4."""
    runs = {label: _per_seed(ctx, f"dziong_fig8_{label}", doc) for label, doc in _fig8_docs(ctx).items()}
    fig, ax = subplots()
    ids, tputs = [], {}
    for c in (1, 4):
        means, lo, hi = [], [], []
        for fer in FIG8_FERS:
            per = []
            for _, store, key in runs[f"c{c}_fer{fer:g}"]:
                p = _between(store.table(key, "pages"), 100, 500)
                per.append(float((p.size_bytes * 8 / p.delay_s).mean() / 1000))
            tputs[(c, fer)] = per
            id = f"fig8.page_kbps.c{c}.fer_{fer:g}"
            ctx.item(id, f"Fig. 8: mean page throughput of 100-500 KB pages, 153.6 kb/s, FER {fer:g}, C = {c}", "kb/s",
                     samples=per)
            ids.append(id)
            means.append(_mean(per))
            lo.append(means[-1] - min(per))
            hi.append(max(per) - means[-1])
        ax.errorbar(FIG8_FERS, means, yerr=[lo, hi], marker="o", capsize=3, label=f"C = {c} (seed min-max)")
    for fer in FIG8_FERS:
        id = f"fig8.c4_over_c1.fer_{fer:g}"
        ctx.item(id, f"Fig. 8: page throughput with C = 4 over C = 1, FER {fer:g}", "ratio",
                 samples=[b / a for a, b in zip(tputs[(1, fer)], tputs[(4, fer)])])
        ids.append(id)
    n = len(ctx.seeds)
    ctx.item("fig8.c4_higher_than_c1", "Fig. 8: page throughput is higher with C = 4 than with C = 1, at every FER",
             "holds", samples=[float(all(tputs[(4, f)][i] > tputs[(1, f)][i] for f in FIG8_FERS)) for i in range(n)],
             published=1.0, tolerance=Tolerance.holds(),
             source="§5.1.2, Fig. 8: 'We note that the throughput is higher when up to 4 simultaneous TCP connections "
                    "are allowed.'")
    ids.append("fig8.c4_higher_than_c1")
    finish(ctx, fig, ax, "fig8", "Fig. 8: page throughput, 100-500 KB pages, 153.6 kb/s", "FER", "page throughput (kb/s)",
           ids)


#: Section 5.1.4, 38.4 kb/s, W = 8 KB: new-data buffer empty (fraction of the
#: time) and above 5 KB ("overwritten" with a 5 KB buffer), C = 1 and C = 4.
NEW_DATA_EMPTY = {(1, 0.0): 0.58, (1, 0.1): 0.63}
NEW_DATA_OVER_5KB = {(1, 0.0): 0.16, (1, 0.1): 0.10, (4, 0.0): 0.18, (4, 0.1): 0.16}
QUOTE_EMPTY = ("§5.1.4, Fig. 9 ({case}): 'with a single TCP connection (C = 1) for an HTTP page transfer, the new data "
               "buffer is empty for 58% and 63% of the time for the case of no errors and FER of 10%, respectively'")
QUOTE_OVER = {1: "§5.1.4, Fig. 9 ({case}): 'if we set the new data buffer size to 5 KB, the new data buffer will be "
                 "overwritten for 16% and 10% of the cases for FER = 0% and FER = 10%, respectively'",
              4: "§5.1.4, Fig. 10 ({case}): 'fixing the buffer size at 5.0 KB will result in overwriting in 18% and 16% "
                 "of the cases for FER = 0% and FER = 10%, respectively'"}


def _during_pages(store, key, series):
    """The samples of `series` (subject air.down) taken while a page downloads."""
    import numpy as np

    s = store.table(key, "series", filters=[("metric", "==", series), ("subject", "==", "air.down")])
    s = s.sort_values("t_s")
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

    runs = {label: _per_seed(ctx, f"dziong_rlp_{label}", doc) for label, doc in _rlp_docs(ctx).items()}
    fig, axes = subplots(2, figsize=(10, 3.6))
    ids, over5, over7, rtx_max = [], {}, {}, {}
    for c in (1, 4):
        for fer in (0.0, 0.1):
            label = f"C = {c}, FER {fer:g}"
            news = [_during_pages(store, key, "rlp_new_data_bytes") for _, store, key in runs[f"c{c}_fer{fer:g}"]]
            xs = np.sort(np.concatenate(news))
            axes[0].step(xs / 1000, np.arange(1, len(xs) + 1) / len(xs), where="post", label=label)
            if (c, fer) in NEW_DATA_EMPTY:
                id = f"fig9.new_data_empty.c{c}.fer_{fer:g}"
                pub = NEW_DATA_EMPTY[(c, fer)]
                ctx.item(id, f"Fig. 9: new-data buffer empty, fraction of page-download time, {label}, W = 8 KB",
                         "fraction", samples=[float((n == 0).mean()) for n in news], published=pub,
                         tolerance=Tolerance.from_wording(f"{pub * 100:g}%", pub, simulated=True),
                         source=QUOTE_EMPTY.format(case=f"FER {fer:g}"))
                ids.append(id)
            over5[(c, fer)] = [float((n > 5000).mean()) for n in news]
            over7[(c, fer)] = [float((n > 7000).mean()) for n in news]
            id = f"fig{9 if c == 1 else 10}.new_data_over_5kb.c{c}.fer_{fer:g}"
            pub = NEW_DATA_OVER_5KB[(c, fer)]
            ctx.item(id, f"Fig. {9 if c == 1 else 10}: new-data buffer above 5 KB (a 5 KB buffer overwritten), fraction "
                     f"of page-download time, {label}", "fraction", samples=over5[(c, fer)], published=pub,
                     tolerance=Tolerance.from_wording(f"{pub * 100:g}%", pub, simulated=True),
                     source=QUOTE_OVER[c].format(case=f"FER {fer:g}"))
            ids.append(id)
            rtx_max[(c, fer)] = [float(store.table(key, "radio_links").query("direction == 'down'").rtx_max_bytes.iloc[0])
                                 for _, store, key in runs[f"c{c}_fer{fer:g}"]]
            rtxs = np.sort(np.concatenate([_during_pages(store, key, "rlp_rtx_bytes")
                                           for _, store, key in runs[f"c{c}_fer{fer:g}"]]))
            axes[1].step(rtxs / 1000, np.arange(1, len(rtxs) + 1) / len(rtxs), where="post", label=label)
    n = len(ctx.seeds)
    ctx.item("sec5.1.4.new_data_7kb_never_overwritten", "Section 5.1.4: fraction of page-download time the new-data "
             "buffer holds more than 7 KB (a 7 KB buffer overwritten), C = 1, W = 8 KB, the larger of FER 0 and 10 %",
             "fraction", samples=[max(over7[(1, 0.0)][i], over7[(1, 0.1)][i]) for i in range(n)], published=0,
             tolerance=Tolerance.exactly(0),
             source="§5.1.4: 'A new data buffer size of 7.0 KB will be sufficient to avoid any overwriting.'")
    ctx.item("fig10.c4_needs_more_buffer", "Fig. 10: with C = 4 a 5 KB new-data buffer is overwritten more often than "
             "with C = 1, at FER 0 and 10 %", "holds",
             samples=[float(all(over5[(4, f)][i] > over5[(1, f)][i] for f in (0.0, 0.1))) for i in range(n)],
             published=1.0, tolerance=Tolerance.holds(),
             source="§5.1.4, Fig. 10: 'With multiple parallel TCP connections (figure 10), the required buffer size "
                    "increases for the same overwriting probability.'")
    ids += ["sec5.1.4.new_data_7kb_never_overwritten", "fig10.c4_needs_more_buffer"]
    bound3 = rlp_max_retransmission_buffer(3, 0.1, 0.06, 38_400, 8 * 1024)
    bound0 = rlp_max_retransmission_buffer(0, 0.1, 0.06, 38_400, 8 * 1024)
    ctx.item("sec5.1.4.rtx_max_bytes.c1.fer_0", f"Section 5.1.4: largest retransmission buffer without errors, C = 1 "
             f"(our closed form with its +1 frame: {bound0:.0f} B)", "bytes", samples=rtx_max[(1, 0.0)], published=960,
             tolerance=Tolerance.from_wording("0.96 KB", 960),
             by_construction="without errors the buffer holds one flush, 2·D·R = 2 x 100 ms x 38.4 kb/s = 960 B: an "
                             "identity of RLP's flush, not a result",
             source="§5.1.4: 'With D = 100 ms and data rate of 38.4 Kb/s, the maximum retransmission buffer size for "
                    "the case of no errors turns out to be 0.96 KB.'")
    ctx.item("sec5.1.4.rtx_max_bytes.c4.fer_0", "Section 5.1.4: largest retransmission buffer without errors, C = 4",
             "bytes", samples=rtx_max[(4, 0.0)], published=960, tolerance=Tolerance.from_wording("greater than", 960),
             source="§5.1.4: 'With no errors and C = 4, the retransmission buffer size could be greater than 0.96 KB "
                    "when the state variable transmission is delayed on the reverse link'")
    ctx.item("sec5.1.4.rtx_max_bytes.c1.fer_0.1", f"Section 5.1.4: largest retransmission buffer, three NAK rounds, "
             f"FER 10 %, C = 1 (our closed form: {bound3:.0f} B)", "bytes", samples=rtx_max[(1, 0.1)], published=4800,
             tolerance=Tolerance.from_wording("limited to 4.8 KB", 4800),
             aliases=["sec5.1.4.max_rtx_buffer_bytes"], also=[("C = 4", rtx_max[(4, 0.1)])],
             source="§5.1.4: 'For a 3-round NAK scheme used in the simulations, the maximum retransmission buffer size "
                    "is limited to 4.8 KB.'")
    ctx.item("sec5.1.4.rtx_max_bytes.c4.fer_0.1", "Section 5.1.4: largest retransmission buffer, FER 10 %, C = 4 "
             "(scored as the second measurement of sec5.1.4.rtx_max_bytes.c1.fer_0.1)", "bytes",
             samples=rtx_max[(4, 0.1)])
    ids += [f"sec5.1.4.rtx_max_bytes.c{c}.fer_{f:g}" for c in (1, 4) for f in (0.0, 0.1)]
    axes[0].set_xlim(left=0)
    axes[0].set_title("Figs. 9-10: new-data buffer (during page downloads)", fontsize=10)
    axes[0].set_xlabel("bytes (KB)")
    axes[0].set_ylabel("fraction of time at or below")
    finish(ctx, fig, axes[1], "fig9_fig12", "Figs. 9-12: RLP buffer occupancy, 38.4 kb/s, W = 8 KB", "bytes (KB)",
           "fraction of time at or below", ids, axes_title="Figs. 11-12: retransmission buffer")


# -- multiple users --------------------------------------------------------------

#: Section 5.2 and the conclusions.
AGGREGATE_KBPS = {16: 54.0, 60: 170.0}
GROWTH_PCT = {(16, 32): 84.0, (32, 60): 72.0}
POWER_MEAN = {32: 0.56, 60: 0.78}
#: The words each is stated in ("about" is ±10 %; a plain number its printed precision).
POWER_WORDS = {32: "only 56%", 60: "about 78%"}
PAGE_S = {("1-10KB", 16): 6.24, ("1-10KB", 60): 7.93, ("10-100KB", 16): 16.6, ("10-100KB", 60): 21.2}
PAGE_GROWTH_PCT = {"1-10KB": 27.0, "10-100KB": 28.0}
USERS = (16, 32, 60)
QUOTE_AGG = "§6 (Conclusions; {n} users): 'the aggregate system throughput increases from 54 Kb/s to 170 Kb/s when " \
            "the number of users increases from 16 to 60'"
QUOTE_GROWTH = {(16, 32): "§5.2.1, Fig. 13: 'when the number of users doubles from 16 to 32, the aggregate throughput "
                          "increases by 84%, approximately doubling'",
                (32, 60): "§5.2.1, Fig. 13: 'when the number of users increases from 32 to 60 (approximately "
                          "doubling) the system throughput tends to increase by only 72%'"}
QUOTE_POWER = {32: "§5.2.1, Fig. 14: 'With 32 users ... the system was still using only 56% of the system power'",
               60: "§5.2.1, Fig. 14: 'With 60 users, the average power used is about 78%'"}
QUOTE_PAGE = {"1-10KB": "§5.2.2, Fig. 16 ({n} users): 'For pages in 1-10 Kbyte range the download time increases from "
                        "6.24 s to 7.93 s (increase of 27%) when the number of users increases from 16 to 60'",
              "10-100KB": "§5.2.2, Fig. 16 ({n} users): 'For pages in the range of 10-100 Kbyte, the download time "
                          "increases from 16.6 s to 21.2 s (increase of 28%).'"}


#: A named variant of the sector studies, not scored: Table 2's object
#: size capped at 12 KB (12 % of objects clamped, a mean object of 3.8 KB),
#: which lowers the offered load to below the paper's (about 45 kb/s at 16
#: users against 54); it shows how far the load must fall, and the paper
#: states no cap.
VARIANTS = {"cap_12kb": ("Table 2's object size capped at 12 KB",
                         {"object_size": {"dist": "lognormal", "median": "2KB", "sigma": 1.56, "max": "12KB"}})}


def _sector_doc(n, duration, **is2000):
    return {"preset": "is2000", "simulation": {"duration": f"{duration}s", "seed": 5},
            "is2000": {"users": n, **is2000}}


def _sector_docs(ctx):
    """The sector at each number of users, with Table 2's workload."""
    duration = 900 if ctx.quick else 2400
    return {f"u{n}": _sector_doc(n, duration) for n in USERS}, duration


def _variant_docs(ctx):
    """Each named variant of the workload at each number of users."""
    _, duration = _sector_docs(ctx)
    return {f"{v}_u{n}": _sector_doc(n, duration, web=web) for v, (_, web) in VARIANTS.items() for n in USERS}


#: The sensitivity study (docs/is2000_power.md): 60 users under the link
#: budget with every required Eb/Nt shifted by these dB, and with the other
#: sites' interference scaled to these mean Ioc/Ior (the layout's own:
#: LAYOUT_OTHER_CELL), and with the MAC serving lower-priority users after
#: a denial (`after_denial = "continue"`); runs half as long as the sector's.
EBNT_OFFSETS_DB = (-2, -1, 0, 1, 2)
OTHER_CELL = (0.3, 0.5, 0.9)
#: The layout's own mean Ioc/Ior with the defaults, 0.684 (pinned to
#: ±0.003 by the Rust test
#: the_layouts_own_other_cell_fraction_is_the_documented_one), to two
#: figures: where the default point sits on the other-cell axis.
LAYOUT_OTHER_CELL = 0.68


def _sensitivity_docs(ctx):
    _, duration = _sector_docs(ctx)
    duration //= 2
    settings = {f"ebnt_{o:+d}db": {"power": {"ebnt_offset_db": o}} for o in EBNT_OFFSETS_DB}
    settings.update({f"other_cell_{f:g}": {"power": {"other_cell": f}} for f in OTHER_CELL})
    settings["after_denial_continue"] = {"mac": {"after_denial": "continue"}}
    return {label: _sector_doc(60, duration, **setting) for label, setting in settings.items()}, duration


def multi_user(ctx):
    """Figs. 13-17: the sector with 16, 32 and 60 browsing users."""
    import numpy as np

    docs, duration = _sector_docs(ctx)
    runs = {label: _per_seed(ctx, f"dziong_sector_{label}", doc) for label, doc in docs.items()}
    n_seeds = len(ctx.seeds)
    agg, power, pages, on_median = {}, {}, {}, []
    fig, axes = subplots(2, figsize=(10, 3.6))
    ids = []
    for n in USERS:
        agg[n], power[n] = [], []
        for seed, store, key in runs[f"u{n}"]:
            agg[n].append(_aggregate_kbps(store, key, duration))
            power[n].append(_power_mean(store, key))
            pg = store.table(key, "pages")
            for band, lo, hi in (("1-10KB", 1, 10), ("10-100KB", 10, 100)):
                pages.setdefault((band, n), []).append(float(_between(pg, lo, hi).delay_s.mean()))
            pages.setdefault(("bins", n), []).append(
                [float(_between(pg, lo, hi).delay_s.mean()) for lo, hi in zip(BINS_KB, BINS_KB[1:])])
            if n == 60:
                cdf = store.table(key, "is2000_cdf")
                on = cdf[cdf.quantity == "on_time_s"]
                on_median.append(float(on.value[on.cdf >= 0.5].iloc[0]))
        cdf = runs[f"u{n}"][0][1].table(runs[f"u{n}"][0][2], "is2000_cdf")
        pw = cdf[cdf.quantity == "power_fraction"]
        axes[0].step(pw.value, pw.cdf, where="post", label=f"{n} users")
        id = f"fig14.power_mean.u{n}"
        if n in POWER_MEAN:
            ctx.item(id, f"Fig. 14: mean fraction of the sector's power in use, {n} users", "fraction",
                     samples=power[n], published=POWER_MEAN[n],
                     tolerance=Tolerance.from_wording(POWER_WORDS[n], POWER_MEAN[n], simulated=True),
                     aliases=[f"sec5.2.power.users_{n}"], source=QUOTE_POWER[n])
        else:
            ctx.item(id, f"Fig. 14: mean fraction of the sector's power in use, {n} users", "fraction",
                     samples=power[n])
        ids.append(id)
        for band in ("1-10KB", "10-100KB"):
            id = f"fig16.page_time_s.{band}.u{n}"
            pub = PAGE_S.get((band, n))
            extra = {}
            if pub is not None:
                extra = {"published": pub, "tolerance": Tolerance.from_wording(f"{pub}", pub, simulated=True),
                         "source": QUOTE_PAGE[band].format(n=n)}
                if band == "1-10KB":
                    extra["aliases"] = [f"sec5.2.page_delay_s.1_10kb.users_{n}"]
            ctx.item(id, f"Fig. 16: mean download time of {band[:-2]} KB pages, {n} users", "s",
                     samples=pages[(band, n)], **extra)
            ids.append(id)
    for n in USERS:
        id = f"fig13.aggregate_kbps.u{n}"
        if n in AGGREGATE_KBPS:
            ctx.item(id, f"Fig. 13: aggregate throughput (page bytes delivered over the run), {n} users", "kb/s",
                     samples=agg[n], published=AGGREGATE_KBPS[n],
                     tolerance=Tolerance.from_wording(f"{AGGREGATE_KBPS[n]:g}", AGGREGATE_KBPS[n], simulated=True),
                     aliases=[f"sec5.2.throughput_kbps.users_{n}"], source=QUOTE_AGG.format(n=n))
        else:
            ctx.item(id, f"Fig. 13: aggregate throughput (page bytes delivered over the run), {n} users", "kb/s",
                     samples=agg[n])
        ctx.item(f"fig15.per_user_kbps.u{n}", f"Fig. 15: aggregate throughput per user, {n} users", "kb/s",
                 samples=[a / n for a in agg[n]])
        ids += [id, f"fig15.per_user_kbps.u{n}"]
    for (a, b), pct in GROWTH_PCT.items():
        id = f"fig13.growth_pct.u{a}_to_u{b}"
        ctx.item(id, f"Fig. 13: aggregate throughput growth from {a} to {b} users", "%",
                 samples=[(y / x - 1) * 100 for x, y in zip(agg[a], agg[b])], published=pct,
                 tolerance=Tolerance.from_wording(f"{pct:g}%", pct, simulated=True), source=QUOTE_GROWTH[(a, b)])
        ids.append(id)
    ctx.item("fig15.per_user_falls_with_users", "Fig. 15: the aggregate throughput per user falls from 16 to 32 to "
             "60 users", "holds",
             samples=[float(agg[16][i] / 16 > agg[32][i] / 32 > agg[60][i] / 60) for i in range(n_seeds)],
             published=1.0, tolerance=Tolerance.holds(1 / 6),
             source="§5.2.1, Fig. 15: 'figure 15, which shows the decrease in the aggregate throughput per user "
                    "decreasing, as the number of users increases'")
    ids.append("fig15.per_user_falls_with_users")
    for band, pct in PAGE_GROWTH_PCT.items():
        id = f"fig16.page_time_growth_pct.{band}"
        ctx.item(id, f"Fig. 16: growth of the {band[:-2]} KB page download time from 16 to 60 users", "%",
                 samples=[(y / x - 1) * 100 for x, y in zip(pages[(band, 16)], pages[(band, 60)])], published=pct,
                 tolerance=Tolerance.from_wording(f"{pct:g}%", pct, simulated=True),
                 source=QUOTE_PAGE[band].format(n="16 to 60").replace("(", "(the growth, ", 1))
        ids.append(id)

    def linear_in_log_size(times):
        t = [x for x in times if x == x]
        if len(t) < 3 or any(b <= a for a, b in zip(t, t[1:])):
            return False
        k = np.arange(len(t))
        return float(np.corrcoef(k, t)[0, 1]) ** 2 >= 0.9

    ctx.item("fig16.linear_against_exponential_size", "Fig. 16: with 16 users the page download time grows with every "
             "tenfold step of the page size, and along a line (R² of time against the decade at least 0.9)", "holds",
             samples=[float(linear_in_log_size(b)) for b in pages[("bins", 16)]], published=1.0,
             tolerance=Tolerance.holds(),
             source="§5.2.2, Fig. 16: 'although the page sizes (plotted on the X-axis) are increasing exponentially, "
                    "the page transfer times (plotted on the Y-axis) are only increasing linearly'")
    ids.append("fig16.linear_against_exponential_size")
    ctx.item("fig17.on_time_median_s.u60", "Fig. 17: median channel ON time, 60 users", "s", samples=on_median,
             published=0.12, tolerance=Tolerance.from_wording("about 120 ms", 0.12),
             aliases=[("sec5.2.on_time_median_ms", 1000)],
             source="§5.2.3, Fig. 17: 'We also observe that about 50% of the ON times are about 120 ms (6 frames) "
                    "long.'")
    ids.append("fig17.on_time_median_s.u60")
    cdf = runs["u60"][0][1].table(runs["u60"][0][2], "is2000_cdf")
    on = cdf[cdf.quantity == "on_time_s"]
    axes[1].step(on.value, on.cdf, where="post", label="60 users")
    axes[0].set_title("Fig. 14: power in use (first seed)", fontsize=10)
    axes[0].set_xlabel("fraction of the sector's power")
    axes[0].set_ylabel("fraction of the time at or below")
    axes[0].legend(fontsize=8)
    axes[1].set_xscale("log")
    finish(ctx, fig, axes[1], "fig14_fig17", "Figs. 14-17: power in use, page times and channel ON times",
           "ON time (s)", "fraction of ON periods at or below", ids, axes_title="Fig. 17: channel ON times")
    sensitivity(ctx)
    fig, ax = subplots()
    ax.errorbar(USERS, [_mean(agg[n]) for n in USERS], yerr=[[_mean(agg[n]) - min(agg[n]) for n in USERS],
                                                            [max(agg[n]) - _mean(agg[n]) for n in USERS]],
                fmt="o-", capsize=3, label="cdmasim, Table 2's workload (seed min-max)")
    shown = [f"fig13.aggregate_kbps.u{n}" for n in USERS] + [f"fig13.growth_pct.u{a}_to_u{b}" for a, b in GROWTH_PCT]
    for v, got in variants(ctx, duration).items():
        ys = got["aggregate_kbps"]
        ax.errorbar(USERS, [_mean(ys[n]) for n in USERS], yerr=[[_mean(ys[n]) - min(ys[n]) for n in USERS],
                                                               [max(ys[n]) - _mean(ys[n]) for n in USERS]],
                    fmt="^--", capsize=3, color="#999999", label=f"variant {v}: {VARIANTS[v][0]} (not scored)")
        shown += [f"variant.{v}.u{n}.aggregate_kbps" for n in USERS]
    ax.plot(list(AGGREGATE_KBPS), list(AGGREGATE_KBPS.values()), "s", color="#222222", label="published")
    finish(ctx, fig, ax, "fig13", "Fig. 13: aggregate throughput against users", "users", "kb/s", shown)


def variants(ctx, duration):
    """The named workload variants at each number of users (not scored):
    {variant: {quantity: {users: per-seed values}}}."""
    got = {}
    for v, (what, _) in VARIANTS.items():
        qs = {"aggregate_kbps": {}, "power_mean": {}, "page_time_s.1-10KB": {}}
        for n in USERS:
            runs = _per_seed(ctx, f"dziong_variant_{v}_u{n}", _variant_docs(ctx)[f"{v}_u{n}"])
            qs["aggregate_kbps"][n] = [_aggregate_kbps(store, key, duration) for _, store, key in runs]
            qs["power_mean"][n] = [_power_mean(store, key) for _, store, key in runs]
            qs["page_time_s.1-10KB"][n] = [float(_between(store.table(key, "pages"), 1, 10).delay_s.mean())
                                           for _, store, key in runs]
            for q, unit in (("aggregate_kbps", "kb/s"), ("power_mean", "fraction"), ("page_time_s.1-10KB", "s")):
                ctx.item(f"variant.{v}.u{n}.{q}", f"{n} users, variant: {what} ({q}; not scored)", unit,
                         samples=qs[q][n])
        got[v] = qs
    return got


def sensitivity(ctx):
    """What moves the 60-user results: the required Eb/Nt (so every
    channel's share, the cell edge's included) and the other-cell
    interference, the power model's least-sourced constants."""
    docs, duration = _sensitivity_docs(ctx)
    got = {}
    for label, doc in docs.items():
        qs = {"power_mean": [], "aggregate_kbps": [], "page_time_s.1-10KB": []}
        for _, store, key in _per_seed(ctx, f"dziong_sensitivity_{label}", doc):
            qs["power_mean"].append(_power_mean(store, key))
            qs["aggregate_kbps"].append(_aggregate_kbps(store, key, duration))
            qs["page_time_s.1-10KB"].append(float(_between(store.table(key, "pages"), 1, 10).delay_s.mean()))
        what = (f"every required Eb/Nt {label[5:-2]} dB" if label.startswith("ebnt")
                else "the MAC serving lower-priority users after a denial" if label == "after_denial_continue"
                else f"other-cell interference scaled to a mean Ioc/Ior of {label[11:]}")
        for q, unit in (("power_mean", "fraction"), ("aggregate_kbps", "kb/s"), ("page_time_s.1-10KB", "s")):
            ctx.item(f"sensitivity.{label}.u60.{q}", f"60 users, {what} ({duration} s runs): {q}", unit, samples=qs[q])
        got[label] = qs
    fig, axes = subplots(3, figsize=(14, 3.6))
    panels = ((axes[0], [(o, f"ebnt_{o:+d}db") for o in EBNT_OFFSETS_DB], "required Eb/Nt, offset from the defaults (dB)"),
              (axes[1], sorted([(f, f"other_cell_{f:g}") for f in OTHER_CELL] + [(LAYOUT_OTHER_CELL, "ebnt_+0db")]),
               f"mean other-cell interference Ioc/Ior ({LAYOUT_OTHER_CELL}: the layout's own)"))
    for ax, pts, xlabel in panels:
        x = [p[0] for p in pts]
        for q, color, label in (("aggregate_kbps", "#3b75af", "aggregate throughput (kb/s)"),):
            ys = [got[p[1]][q] for p in pts]
            ax.errorbar(x, [_mean(y) for y in ys], yerr=[[_mean(y) - min(y) for y in ys], [max(y) - _mean(y) for y in ys]],
                        fmt="o-", capsize=3, color=color, label=label)
        ax.axhline(AGGREGATE_KBPS[60], color="#3b75af", ls=":", label=f"published, {AGGREGATE_KBPS[60]} kb/s")
        twin = ax.twinx()
        ys = [got[p[1]]["page_time_s.1-10KB"] for p in pts]
        twin.errorbar(x, [_mean(y) for y in ys], yerr=[[_mean(y) - min(y) for y in ys], [max(y) - _mean(y) for y in ys]],
                      fmt="s--", capsize=3, color="#c0504d", label="1-10 KB page time (s)")
        twin.axhline(PAGE_S[("1-10KB", 60)], color="#c0504d", ls=":", label=f"published, {PAGE_S[('1-10KB', 60)]} s")
        twin.set_ylabel("1-10 KB page time (s)", color="#c0504d")
        twin.legend(fontsize=7, loc="upper right")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("aggregate throughput (kb/s)", color="#3b75af")
        ax.legend(fontsize=7, loc="upper left")
    ax, twin = axes[2], axes[2].twinx()
    for x, label in enumerate(("ebnt_+0db", "after_denial_continue")):
        for axis, q, color, fmt, off, name in ((ax, "aggregate_kbps", "#3b75af", "o", -0.1, "aggregate throughput (kb/s)"),
                                               (twin, "page_time_s.1-10KB", "#c0504d", "s", 0.1,
                                                "1-10 KB page time (s)")):
            y = got[label][q]
            axis.errorbar([x + off], [_mean(y)], yerr=[[_mean(y) - min(y)], [max(y) - _mean(y)]], fmt=fmt, capsize=3,
                          color=color, label=name if x == 0 else None)
    ax.set_xticks([0, 1], ["stop\n(default)", "continue"])
    ax.set_xlim(-0.5, 1.5)
    ax.set_xlabel("after a denial, the MAC (mac.after_denial)")
    ax.set_ylabel("aggregate throughput (kb/s)", color="#3b75af")
    twin.set_ylabel("1-10 KB page time (s)", color="#c0504d")
    axes[0].set_title("60 users: the required Eb/Nt", fontsize=10)
    axes[1].set_title("60 users: other-cell interference", fontsize=10)
    axes[2].set_title("60 users: §2's denial", fontsize=10)
    lay_out(fig)
    ctx.figure("sensitivity_power", "What moves the 60-user results: the power model's Eb/Nt and other-cell "
               "interference, and the MAC after a denial (seed min-max)", fig, [f"sensitivity.{label}.u60.{q}" for label in docs
                                                    for q in ("aggregate_kbps", "page_time_s.1-10KB")])


def plan(ctx):
    specs = []
    for prefix, docs in (("dziong_objects", _object_docs(ctx)), ("dziong_fig6", _fig6_docs(ctx)),
                         ("dziong_fig8", _fig8_docs(ctx)), ("dziong_rlp", _rlp_docs(ctx)),
                         ("dziong_sector", _sector_docs(ctx)[0])):
        specs += [_spec(ctx, f"{prefix}_{label}", doc) for label, doc in docs.items()]
    specs += [_spec(ctx, f"dziong_sensitivity_{label}", doc) for label, doc in _sensitivity_docs(ctx)[0].items()]
    specs += [_spec(ctx, f"dziong_variant_{label}", doc) for label, doc in _variant_docs(ctx).items()]
    return specs


def reproduce(ctx):
    object_times(ctx)
    fig6_fig7(ctx)
    fig8(ctx)
    rlp_buffers(ctx)
    multi_user(ctx)
