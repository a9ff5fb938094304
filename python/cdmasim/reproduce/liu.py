"""Liu et al.: the 1xEV-DO channel, the PF scheduler, and TCP over them.

Runs today:
  sec5   channel statistics (mean, std, modal fraction, entropy, sojourn,
         memory by depth and lag, hand-off interval) of the `stationary`
         and `mobile` channel presets, against section 5's statements;
  fig6   full-buffer PF over Round Robin system throughput gain, with per-
         slot rates (the paper's DRC-trace accounting), keeping or resetting
         PF state at hand-offs, and Jain's index (section 6).
These use the channel and scheduler code directly (they are not packet
scenarios, so they do not go through the sweep engine); they are fast and
deterministic. Fig. 6 with TCP users and section 7 (TCP variants in a
multi-user sector) run as packet scenarios in liu_sector.py.

The paper states most section 5 results as bounds ("below 400 kb/s",
"more than 600 kb/s"); each becomes a published number with a one-sided
tolerance."""

from .common import comparison_figure, finish, subplots
from .items import Tolerance

TITLE = "Experiences in a 3G Network: Interplay between the Wireless Channel and Applications"
CITATION = ("X. Liu, A. Sridharan, S. Machiraju, M. Seshadri, H. Zang, \"Experiences in a 3G Network: Interplay "
            "between the Wireless Channel and Applications\", Northeastern University / Sprint Research.")
PENDING = []

SLOTS_PER_S = 600


def _channel_stats(ctx, preset):
    """Per-seed statistics of a preset; returns lists per quantity."""
    from .. import channel

    seeds, slots = ((1, 2), 120_000) if ctx.quick else ((1, 2, 3, 4, 5), 360_000)
    out = {k: [] for k in ("mean_kbps", "std_kbps", "modal", "entropy", "sojourn", "h1", "h4", "lag100", "handoff_s")}
    for seed in seeds:
        s = channel.sample(preset, slots, seed)
        w = channel.stats(s["drc"], max_order=4, max_lag=100)["whole"]
        out["mean_kbps"].append(w["mean_bps"] / 1e3)
        out["std_kbps"].append(w["std_bps"] / 1e3)
        out["modal"].append(w["modal_fraction"])
        out["entropy"].append(w["entropy_bits"])
        out["sojourn"].append(w["mean_sojourn_slots"])
        out["h1"].append(w["cond_entropy"][0])
        out["h4"].append(w["cond_entropy"][3])
        out["lag100"].append(w["lag_entropy"][99])
        if s["handoffs"]:
            out["handoff_s"].append(slots / SLOTS_PER_S / len(s["handoffs"]))
    means = {k: sum(v) / len(v) for k, v in out.items() if v}
    # Fig. 2 (left) counts experiments: the share of traces whose modal fraction is >= 60 %.
    means["modal_ge_60"] = sum(m >= 0.6 for m in out["modal"]) / len(out["modal"])
    return means, len(seeds), slots


def _sec5(ctx):
    st, n, slots = _channel_stats(ctx, "stationary")
    mo, _, _ = _channel_stats(ctx, "mobile")
    over = f"(mean of {n} seeds x {slots // SLOTS_PER_S} s)"
    add = ctx.item
    add("sec5.stationary_std_kbps", f"Stationary DRC rate std {over}; paper: 'always below 400 kbps'",
        st["std_kbps"], "kb/s", published=400, tolerance=Tolerance.at_most(400))
    add("sec5.stationary_modal_fraction", f"Stationary modal fraction {over}; paper: 'above 40 %'",
        st["modal"], "fraction", published=0.40, tolerance=Tolerance.at_least(0.40))
    add("fig2.stationary_share_modal_ge_60pct", f"Fig. 2 (left): share of stationary traces {over} whose modal "
        "fraction is at least 60 %; paper: 'in more than 60 % of our experiments'", st["modal_ge_60"], "fraction",
        published=0.60, tolerance=Tolerance.at_least(0.60))
    add("sec5.stationary_entropy_bits", f"Stationary DRC entropy {over}; paper: mostly 'less than one'",
        st["entropy"], "bits", published=1.0, tolerance=Tolerance.at_most(1.0))
    add("sec5.stationary_sojourn_slots", f"Stationary mean sojourn {over}; paper: 'a few hundred or more slots'",
        st["sojourn"], "slots", published=200, tolerance=Tolerance.at_least(200))
    add("sec5.mobile_mean_kbps", f"Mobile mean DRC rate {over}; paper: 'around 1 Mbps'", mo["mean_kbps"], "kb/s",
        published=1000, tolerance=Tolerance.rel(0.3))
    add("sec5.mobile_std_kbps", f"Mobile DRC rate std {over}; paper: 'more than 600 kbps'", mo["std_kbps"], "kb/s",
        published=600, tolerance=Tolerance.at_least(600))
    add("sec5.mobile_modal_fraction", f"Mobile modal fraction {over}; paper: 'less than 20 %'", mo["modal"],
        "fraction", published=0.20, tolerance=Tolerance.at_most(0.20))
    add("sec5.mobile_entropy_bits", f"Mobile DRC entropy {over}; paper: 'greater than two'", mo["entropy"], "bits",
        published=2.0, tolerance=Tolerance.at_least(2.0))
    add("sec5.mobile_sojourn_slots", f"Mobile mean sojourn {over}; paper: 'a few tens of slots'", mo["sojourn"],
        "slots", published=30, tolerance=Tolerance.within(10, 99))
    add("sec5.mobile_handoff_interval_s", f"Mobile time between hand-offs {over}; paper: '20 - 30 secs'",
        mo["handoff_s"], "s", published=25, tolerance=Tolerance.within(20, 30))
    for name, x in (("stationary", st), ("mobile", mo)):
        add(f"fig5.{name}_cond_entropy_n1", f"Fig. 5: normalised conditional entropy H(X_i|X_i-1)/H, {name}; "
            "paper: 'less than 20 %'", x["h1"], "fraction", published=0.20, tolerance=Tolerance.at_most(0.20))
        add(f"fig5.{name}_reduction_n1_to_n4_pct", f"Fig. 5: reduction of the normalised conditional entropy "
            f"from depth 1 to 4, {name}; paper: at most 'around 10 %'", 100 * (1 - x["h4"] / x["h1"]), "%",
            published=10, tolerance=Tolerance.at_most(10))
        add(f"fig5.{name}_lag_entropy_d100", f"Fig. 5 (right): H(X_i+100|X_i)/H at lag 100 slots, {name}; "
            "paper: 'less than 50 %' up to almost 100 slots", x["lag100"], "fraction", published=0.5,
            tolerance=Tolerance.at_most(0.5))
    ctx.figure("fig3", "Fig. 3: mean, std and modal fraction of DRC, presets vs section 5", comparison_figure(
        "Section 5: stationary and mobile presets (published bound vs measured)",
        [("stat. std\n(kb/s /100)", 4.0, st["std_kbps"] / 100), ("stat. modal", 0.4, st["modal"]),
         ("mob. mean\n(Mb/s)", 1.0, mo["mean_kbps"] / 1000), ("mob. std\n(kb/s /100)", 6.0, mo["std_kbps"] / 100),
         ("mob. modal", 0.2, mo["modal"]), ("mob. entropy\n(bits)", 2.0, mo["entropy"])], ""),
        ["sec5.stationary_std_kbps", "sec5.stationary_modal_fraction", "sec5.mobile_mean_kbps",
         "sec5.mobile_std_kbps", "sec5.mobile_modal_fraction", "sec5.mobile_entropy_bits"])


def _fig6(ctx):
    from .. import evdo

    users, slots, seeds = ((4,), 200_000, (1,)) if ctx.quick else ((2, 4, 8), 1_000_000, (1, 2, 3))
    rows = {}
    for preset in ("stationary", "mobile"):
        df = evdo.fig6(preset, users=users, slots=slots, seeds=seeds, interlace=0)
        rows[preset] = df.groupby("users").mean(numeric_only=True)
    over = f"({len(seeds)} seed(s) x {slots} slots, alpha = 1/1000, per-slot rates)"
    st4, mo4 = rows["stationary"].loc[4], rows["mobile"].loc[4]
    ctx.item("fig6.gain_stationary_4users", f"Fig. 6: PF/RR system throughput, 4 stationary users {over}; "
             "paper: '≈ 5 %'", st4["gain_keep"], "ratio", published=1.05, tolerance=Tolerance.abs(0.03))
    ctx.item("fig6.gain_mobile_4users", f"Fig. 6: PF/RR system throughput, 4 mobile users {over}; paper: 'around "
             "20 %'", mo4["gain_keep"], "ratio", published=1.20, tolerance=Tolerance.abs(0.05))
    ctx.item("fig6.gain_mobile_reset_4users", f"Section 6: PF/RR for 4 mobile users when each hand-off resets PF "
             f"state {over}; paper: 8 % with 20-30 s between hand-offs", mo4["gain_reset"], "ratio",
             published=1.08, tolerance=Tolerance.abs(0.03))
    ctx.item("fig6.jain_pf_mobile_4users", "Section 6: Jain's index of throughputs under PF, 4 mobile users; "
             "paper: 0.99", mo4["jain_pf"], "index", published=0.99, tolerance=Tolerance.at_least(0.98))
    ctx.item("fig6.jain_rr_mobile_4users", "Section 6: Jain's index of throughputs under RR, 4 mobile users; "
             "paper: 0.99", mo4["jain_rr"], "index", published=0.99, tolerance=Tolerance.at_least(0.98))
    for n in users:
        if n == 4:
            continue
        for preset in ("stationary", "mobile"):
            ctx.item(f"fig6.gain_{preset}_{n}users", f"Fig. 6: PF/RR system throughput, {n} {preset} users {over}",
                     rows[preset].loc[n]["gain_keep"], "ratio")

    fig, ax = subplots()
    for preset, color in (("stationary", "#3b75af"), ("mobile", "#c0392b")):
        r = rows[preset]
        ax.plot(r.index, (r["gain_keep"] - 1) * 100, "o-", color=color, label=f"{preset} (cdmasim)")
    ax.plot(r.index, (rows["mobile"]["gain_reset"] - 1) * 100, "o--", color="#c0392b", alpha=0.6,
            label="mobile, PF reset at hand-offs")
    ax.axhline(5, color="#3b75af", ls=":", label="paper: stationary ≈ 5 %")
    ax.axhline(20, color="#c0392b", ls=":", label="paper: mobile ≈ 20 %")
    finish(ctx, fig, ax, "fig6", "Fig. 6: PF over Round Robin system throughput", "users", "PF gain over RR (%)",
           ["fig6.gain_stationary_4users", "fig6.gain_mobile_4users", "fig6.gain_mobile_reset_4users",
            "fig6.jain_pf_mobile_4users", "fig6.jain_rr_mobile_4users"],
           axes_title="Fig. 6: PF over Round Robin, full buffers", legend_size=7)


def reproduce(ctx):
    from . import liu_sector

    _sec5(ctx)
    _fig6(ctx)
    liu_sector.reproduce(ctx)
