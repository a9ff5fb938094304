"""Which of the settings Paliwal et al. leave unstated give Table II its
structure (`cdmasim reproduce paliwal --sensitivity`).

The paper's Table II has a 3 % mean and a 20 % peak, largest for T_B of
5-8 s; how close Table I's system comes in cdmasim and ns-2.35 is in
docs/reproduce-status.md. This study runs the
whole 13 x 13 grid once per setting below, each a `cdmasim sweep` of the
Table II scenario with one `[set]` override (or two, for a combination),
and reports for each: the table's mean, its largest cell and where it
sits, the Spearman rank correlation with the paper's table, whether the
paper's shape holds (small T_B and T_D negligible, T_B 5-8 s highest,
T_B 9-10 s lower), and the median length of the dead periods of 1 s or
more (the paper: "roughly 10-12s").

Nothing here is scored: a setting is an assumption, and choosing one
because it matches the paper would be fitting to the number being
scored. The items have no published value; the report and the figure let
a reader see which assumptions bring back the paper's structure."""

from .common import spearman, subplots
from .paliwal_cell import BURST_START_S, PERIOD_MIN_S, TABLE2, T_VALUES, table2_frame, table2_grid, table2_spec


#: label -> (what the setting changes, the sweep's `set` overrides). The
#: baseline, `table1`, is the Table II scenario of `reproduce paliwal`.
SETTINGS = {
    "table1": ("Table I's system as `reproduce paliwal` runs it (50 s on the FCH alone before the first burst, "
               "ns-2.35's RED rule, rate changes from the next packet, switches one after another over 10 % of "
               "T_B and T_D, RFC 6298 timers, min RTO 1 s, 32-packet window, 10 x 10 mobiles)", {}),
    "fch_phase_0s": ("the first burst at t = 0, no FCH-only phase (the burst phase as long)", {"cdma2000.sch.start": "0s"}),
    "fch_phase_20s": ("20 s on the FCH alone before the first burst", {"cdma2000.sch.start": "20s"}),
    "order_random": ("each mobile switches at a uniform point of the rise (fall) time, drawn per cycle",
                     {"cdma2000.sch.order": "random"}),
    "rate_change_exact": ("rate changes bit-exact, mid-packet", {"cdma2000.rate_change": "exact"}),
    "spread_0": ("every mobile switches at the same instant", {"cdma2000.sch.spread": 0.0}),
    "spread_0.5": ("switches spread over half of T_B and T_D", {"cdma2000.sch.spread": 0.5}),
    "tick_100ms": ("ns-2's TCP timer arithmetic with a 100 ms tick", {"cdma2000.tcp.timer_granularity": "100ms"}),
    "tick_500ms": ("ns-2's TCP timer arithmetic with a 500 ms tick (classic BSD)",
                   {"cdma2000.tcp.timer_granularity": "500ms"}),
    "min_rto_200ms": ("minimum RTO 200 ms", {"cdma2000.tcp.min_rto": "200ms"}),
    "min_rto_3s": ("minimum RTO 3 s", {"cdma2000.tcp.min_rto": "3s"}),
    "red_floyd": ("RED's drop rule of Floyd & Jacobson 1993, p_b/(1 - count p_b)",
                  {"cdma2000.bsc_queue.variant": "floyd"}),
    "red_w_q_0.02": ("RED weight w_q 0.02 instead of 0.002", {"cdma2000.bsc_queue.w_q": 0.02}),
    "red_th_10_30": ("RED thresholds 10 / 30 packets instead of 20 / 60",
                     {"cdma2000.bsc_queue.min_th": "10pkt", "cdma2000.bsc_queue.max_th": "30pkt"}),
    "red_th_40_120": ("RED thresholds 40 / 120 packets",
                      {"cdma2000.bsc_queue.min_th": "40pkt", "cdma2000.bsc_queue.max_th": "120pkt"}),
    "window_16": ("receiver window 16 packets", {"cdma2000.tcp.rcv_buffer": "15360B"}),
    "window_64": ("receiver window 64 packets", {"cdma2000.tcp.rcv_buffer": "61440B"}),
    "mobiles_5": ("5 mobiles per BTS (50 in all; the BSC served at 50 x 38.4 kb/s)", {"cdma2000.n": 5}),
    "mobiles_20": ("20 mobiles per BTS (200 in all)", {"cdma2000.n": 20}),
    "red_floyd.mobiles_5": ("Floyd's RED rule and 5 mobiles per BTS",
                            {"cdma2000.bsc_queue.variant": "floyd", "cdma2000.n": 5}),
}
#: What each setting reports (item suffix, unit, what).
QUANTITIES = (
    ("mean", "%", "mean rho_dead over the cells"),
    ("max_pct", "%", "the largest cell"),
    ("peak_tb_s", "s", "T_B of the largest cell"),
    ("peak_td_s", "s", "T_D of the largest cell"),
    ("spearman", "", "Spearman rank correlation with the paper's cells"),
    ("shape", "holds", "the paper's shape holds: T_B, T_D <= 0.5 s and T_B 9-10 s below T_B 5-8 s (1 = holds)"),
    ("dead_period_s", "s", f"median length of the dead periods of {PERIOD_MIN_S:g} s or more (0: none)"),
)


def seeds(ctx):
    """Two seeds per cell (one with --quick): 20 settings x 169 cells x 2
    seeds is about 20 minutes on two cores."""
    return list(ctx.seeds[:1 if ctx.quick else 2])


def specs(ctx, settings=None):
    """{label: the setting's sweep spec}: the Table II sweep plus its `set`."""
    tbs, tds, duration = table2_grid(ctx)
    out = {}
    for label in SETTINGS if settings is None else settings:
        spec = table2_spec(ctx, f"paliwal_table2_{label}", tbs, tds, seeds(ctx), duration, "next_packet")
        fixed = dict(SETTINGS[label][1])
        if "cdma2000.sch.start" in fixed:
            # Another FCH-only phase, the burst phase as long as the baseline's.
            start = float(fixed["cdma2000.sch.start"].rstrip("s"))
            fixed["simulation.duration"] = f"{duration - BURST_START_S + start:g}s"
        if fixed:
            spec["set"] = fixed
        out[label] = spec
    return out


def summarise(df, store, paper):
    """The study's quantities of one setting's runs (`table2_frame` rows)."""
    import numpy as np

    g = df.groupby(["tb", "td"]).rho_pct.mean()
    cells = sorted(g.index)
    ours = [float(g[c]) for c in cells]
    # No peak in a grid without dead time (every cell would tie at 0).
    peak = max(cells, key=lambda c: g[c]) if g.max() > 0 else None
    parts = [[g[c] for c in cells if want(c)] for want in (lambda c: c[0] <= 0.5 and c[1] <= 0.5,
                                                           lambda c: 5 <= c[0] <= 8, lambda c: c[0] >= 9)]
    # The shape needs all three groups (the --quick grid has no small cell).
    small, middle, large = [float(np.mean(p)) for p in parts] if all(parts) else (None, None, None)
    spans = [float(x) for k in df.run for x in (lambda d: d.end_s - d.start_s)(store.table(k, "dead_periods"))
             if x >= PERIOD_MIN_S]
    rho = spearman(ours, [paper[c] for c in cells])
    return {"mean": float(np.mean(ours)), "max_pct": float(g.max()), "peak_tb_s": peak and float(peak[0]),
            "peak_td_s": peak and float(peak[1]), "spearman": rho if np.isfinite(rho) else None,
            "shape": None if small is None else float(small < middle and large < middle),
            "dead_period_s": float(np.median(spans)) if spans else 0.0, "table": g}


def study(ctx, settings=None):
    """Run (or read) every setting's grid; add its items and the figure."""
    paper = {(tb, td): TABLE2[T_VALUES.index(td)][T_VALUES.index(tb)] for tb in T_VALUES for td in T_VALUES}
    results = {}
    for label, spec in specs(ctx, settings).items():
        df, store = ctx.sweep(spec)
        r = results[label] = summarise(table2_frame(df), store, paper)
        for q, unit, what in QUANTITIES:
            if r[q] is None:
                continue
            ctx.item(f"table2.sensitivity.{label}.{q}", f"Table II under '{label}' ({SETTINGS[label][0]}; "
                     f"{len(df)} runs, {len(seeds(ctx))} seed(s) per cell): {what}", unit, measured=r[q],
                     pooled=len(df))
    _figure(ctx, results, paper)
    return results


def _figure(ctx, results, paper):
    import numpy as np

    first = next(iter(results.values()))["table"]
    tbs = sorted({c[0] for c in first.index})
    tds = sorted({c[1] for c in first.index})
    panels = [(np.array([[paper[(tb, td)] for tb in tbs] for td in tds]), "Table II (paper)")]
    for label, r in results.items():
        m = np.array([[r["table"][(tb, td)] for tb in tbs] for td in tds])
        rho = "n/a" if r["spearman"] is None else f"{r['spearman']:.2f}"
        panels.append((m, f"{label}\nmean {r['mean']:.2f} %, max {r['max_pct']:.1f} %, rho {rho}"))
    cols = 6
    rows = -(-len(panels) // cols)
    fig, axes = subplots(cols, figsize=(3.0 * cols, 3.1 * rows), nrows=rows)
    axes = np.atleast_1d(axes).ravel()
    vmax = max(20.0, max(m.max() for m, _ in panels))
    for ax, (m, title) in zip(axes, panels):
        im = ax.imshow(m, cmap="Reds", vmin=0, vmax=vmax, origin="upper")
        ax.set_xticks(range(len(tbs)))
        ax.set_xticklabels([f"{x:g}" for x in tbs], fontsize=5, rotation=90)
        ax.set_yticks(range(len(tds)))
        ax.set_yticklabels([f"{x:g}" for x in tds], fontsize=5)
        ax.set_title(title, fontsize=7)
    for ax in axes[len(panels):]:
        ax.axis("off")
    axes[0].set_xlabel("T_B (s)", fontsize=7)
    axes[0].set_ylabel("T_D (s)", fontsize=7)
    fig.colorbar(im, ax=list(axes), shrink=0.6, label="rho_dead (%)")
    ctx.figure("table2_sensitivity", "Table II under each unstated setting (seed means; the colour scale is shared)",
               fig, [f"table2.sensitivity.{label}.{q}" for label, r in results.items() for q, _, _ in QUANTITIES
                if r[q] is not None])
