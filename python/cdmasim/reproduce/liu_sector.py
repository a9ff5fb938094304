"""Liu et al., sections 6 and 7 in a packet-level 1xEV-DO sector: TCP users
with per-user base-station queues served slot by slot (cdmasim's
`[[sector]]`), beside the published numbers.

Every experiment is a function of the reproduce Context and runs through
the sweep engine (cached and resumable in the store). The network is the
paper's testbed (section 4): servers on 100 Mb/s with 19 ms each way, the
sector 1 ms further, a 64 KB queue per user, 153.6 kb/s reverse links, and
Linux 2.6.21-like TCP at the servers (timestamps, SACK, minimum RTO 200 ms,
initial RTO 3 s) towards Windows XP clients that delay ACKs (every second
segment, 200 ms).

  fig6     PF over Round Robin with TCP users: stationary, mobile, mobile
           with hand-offs every 20-30 s that reset PF state; per-slot rates
           (interlace = 0, the paper's trace accounting) and, for comparison,
           the four-slot interlace with multi-slot packets;
  sec7.3   one user per variant: goodput over mean DRC, and on excellent
           channels (mean DRC above 2.4 Mb/s);
  sec7.2   four co-located users, one variant each: share of the sector's
           goodput and excess delay;
  fig11    a 9.6 kb/s stream in the same per-user queue as a download."""

from .common import comparison_figure, finish, subplots
from .items import Tolerance

VARIANTS = ("reno", "cubic", "westwood", "vegas")
LINUX_TCP = {"timestamps": True, "sack": True, "min_rto": "200ms", "initial_rto": "3s", "delayed_ack": "on",
             "delack_timeout": "200ms"}
#: Section 7.3: "average channel utilizations (ratio of TCP throughput and
#: mean DRC) of 0.86, 0.89, 0.85 and 0.75" for Reno, Cubic, Westwood, Vegas.
PUBLISHED_UTILISATION = {"reno": 0.86, "cubic": 0.89, "westwood": 0.85, "vegas": 0.75}


def sector_doc(users, duration_s, scheduler="pf", interlace=4):
    """The testbed with one sector; `users` is a list of (name, drc table,
    extra user keys, flows), each flow a dict without `from`."""
    doc = {
        "simulation": {"duration": f"{duration_s}s", "seed": 1},
        "node": [{"name": "server"}, {"name": "bs"}],
        "link": [{"name": "wired", "from": "server", "to": "bs", "rate": "100Mbps", "delay": "19ms",
                  "queue": {"kind": "droptail", "limit": "1000pkt"}}],
        "sector": [{"name": "s1", "node": "bs", "scheduler": scheduler, "interlace": interlace, "delay": "1ms"}],
        "user": [],
        "flow": [],
    }
    for name, drc, extra, flows in users:
        doc["user"].append({"name": name, "sector": "s1", "drc": drc, **extra})
        for f in flows:
            doc["flow"].append({"from": "server", "to": name, **f})
    return doc


def bulk(name, cc):
    return {"name": name, "tcp": {"cc": cc, **LINUX_TCP}}


def _sizes(ctx, quick, full):
    return quick if ctx.quick else full


def fig6(ctx):
    """PF/RR system throughput gain with TCP users (Fig. 6 and the hand-off
    paragraph of section 6)."""
    counts, seeds, dur = _sizes(ctx, ((4,), [1], 60), ((2, 4, 8), [1, 2, 3], 180))
    cases = (("stationary", "stationary", {}), ("mobile", "mobile", {}),
             ("mobile_handoff", "mobile", {"handoff": {"every": ["20s", "30s"]}}))
    gains, jains = {}, {}
    for interlace in (0, 4):
        for case, preset, extra in cases:
            for n in counts:
                if interlace == 4 and n != 4:
                    continue
                users = [(f"u{k}", {"preset": preset}, extra, [bulk(f"f{k}", "cubic")]) for k in range(n)]
                df, _ = ctx.sweep({
                    "sweep": {"name": f"liu_fig6_{case}_{n}_il{interlace}", "scenario": sector_doc(users, dur, "pf", interlace),
                              "seeds": seeds},
                    "grid": {"sector[0].scheduler": ["pf", "rr"]},
                })
                tp = df.groupby("sector[0].scheduler")["sector.s1.throughput_bps"].mean()
                gains[(interlace, case, n)] = tp["pf"] / tp["rr"]
                jains[(interlace, case, n)] = df.groupby("sector[0].scheduler")["sector.s1.jain"].mean().to_dict()
    over = f"({len(seeds)} seed(s) x {dur} s, Cubic downloads, alpha = 1/1000, per-slot rates)"
    published = {"stationary": (1.05, Tolerance.abs(0.03), "'less than 5 %'"),
                 "mobile": (1.20, Tolerance.abs(0.05), "'around 20 %'"),
                 "mobile_handoff": (1.08, Tolerance.abs(0.03), "8 % with 20-30 s between hand-offs")}
    for case, (pub, tol, says) in published.items():
        ctx.item(f"fig6.gain.{case}.4", f"Fig. 6: PF/RR sector throughput, 4 TCP users, {case.replace('_', ' + ')} "
                 f"{over}; paper: {says}", gains[(0, case, 4)], "ratio", published=pub, tolerance=tol)
        ctx.item(f"fig6.gain_interlace4.{case}.4", f"PF/RR as fig6.gain.{case}.4 but with the four-slot interlace and "
                 "multi-slot packets (Round Robin then starts 16-slot packets on poor channels)",
                 gains[(4, case, 4)], "ratio")
        for sched in ("pf", "rr"):
            ctx.item(f"fig6.jain.{sched}.{case}.4", f"Section 6: Jain's index of the octets served, {sched.upper()}, "
                     f"4 {case.replace('_', ' + ')} TCP users; paper: 0.99 for PF and RR", jains[(0, case, 4)][sched],
                     "index", published=0.99, tolerance=Tolerance.abs(0.02))
        for n in counts:
            if n != 4:
                ctx.item(f"fig6.gain.{case}.{n}", f"Fig. 6: PF/RR sector throughput, {n} TCP users, {case} {over}",
                         gains[(0, case, n)], "ratio")
    fig, ax = subplots()
    for case, color in (("stationary", "#3b75af"), ("mobile", "#c0392b"), ("mobile_handoff", "#e67e22")):
        xs = list(counts)
        ax.plot(xs, [(gains[(0, case, n)] - 1) * 100 for n in xs], "o-", color=color, label=f"{case} (cdmasim, TCP)")
    ax.axhline(5, color="#3b75af", ls=":", label="paper: stationary ≈ 5 %")
    ax.axhline(20, color="#c0392b", ls=":", label="paper: mobile ≈ 20 %")
    ax.axhline(8, color="#e67e22", ls=":", label="paper: with hand-offs 5-8 %")
    finish(ctx, fig, ax, "fig6_tcp", "Fig. 6 with TCP users in a packet-level sector", "users",
           "PF gain over RR (%)", [f"fig6.gain.{c}.4" for c in published], legend_size=7)


def sec7_utilisation(ctx):
    """Section 7.3: goodput / mean DRC of one download per variant."""
    seeds, dur = _sizes(ctx, ([1, 2], 60), (list(range(1, 9)), 120))
    users = [("ue", {"preset": "stationary"}, {}, [bulk("ftp", "reno")])]
    df, _ = ctx.sweep({
        "sweep": {"name": "liu_sec7_utilisation", "scenario": sector_doc(users, dur), "seeds": seeds},
        "grid": {"flow[0].tcp.cc": list(VARIANTS)},
    })
    df = df.assign(util=df["flow.ftp.goodput_bps"] / df["user.ue.mean_drc_bps"])
    over = f"(mean of {len(seeds)} stationary channels x {dur} s)"
    means = {}
    for cc in VARIANTS:
        runs = df[df["flow[0].tcp.cc"] == cc]
        means[cc] = runs.util.mean()
        ctx.item(f"sec7.utilisation.{cc}", f"Section 7.3: {cc} goodput / mean DRC, one user {over}; paper: "
                 f"{PUBLISHED_UTILISATION[cc]}", means[cc], "fraction", published=PUBLISHED_UTILISATION[cc],
                 tolerance=Tolerance.abs(0.03))
        good = runs[runs["user.ue.mean_drc_bps"] > 2.4e6]
        if cc != "vegas" and len(good):
            ctx.item(f"sec7.utilisation_excellent.{cc}", f"Section 7.3: {cc} goodput / mean DRC on channels with a "
                     f"mean DRC above 2.4 Mb/s ({len(good)} of the runs); paper: 'around 80 %', blamed on "
                     "spurious timeouts", good.util.mean(), "fraction", published=0.80, tolerance=Tolerance.abs(0.03))
    ctx.item("sec7.spurious_timeouts_per_run", "Spurious timeouts (Eifel would detect) per download, all variants",
             df["flow.ftp.spurious_timeouts"].mean(), "count")
    ctx.figure("sec7_utilisation", "Section 7.3: utilisation of one download per variant", comparison_figure(
        "goodput / mean DRC (published vs measured)",
        [(cc, PUBLISHED_UTILISATION[cc], means[cc]) for cc in VARIANTS], "fraction"),
        [f"sec7.utilisation.{cc}" for cc in VARIANTS])


def sec7_colo(ctx):
    """Section 7.2 (EX_COLO, EX_TBED): four co-located users, one variant each."""
    seeds, dur = _sizes(ctx, ([1, 2], 60), (list(range(1, 9)), 120))
    users = [(cc, {"preset": "stationary"}, {}, [bulk(f"to-{cc}", cc)]) for cc in VARIANTS]
    df, _ = ctx.sweep({"sweep": {"name": "liu_sec7_colo", "scenario": sector_doc(users, dur), "seeds": seeds}})
    total = sum(df[f"flow.to-{cc}.goodput_bps"] for cc in VARIANTS)
    share = {cc: (df[f"flow.to-{cc}.goodput_bps"] / total).mean() for cc in VARIANTS}
    delay = {cc: df[f"flow.to-{cc}.excess_owd_mean_s"].mean() for cc in VARIANTS}
    over = f"(mean of {len(seeds)} runs x {dur} s, PF)"
    published = {"cubic": (0.30, Tolerance.at_least(0.30), "'> 30 %'"), "vegas": (0.20, Tolerance.at_most(0.20), "'< 20 %'"),
                 "reno": (0.25, Tolerance.abs(0.05), "'around 25 %'"), "westwood": (0.25, Tolerance.abs(0.05), "'around 25 %'")}
    for cc, (pub, tol, says) in published.items():
        ctx.item(f"sec7.colo.share.{cc}", f"Section 7.2: {cc}'s share of the four co-located users' goodput {over}; "
                 f"paper: {says}", share[cc], "fraction", published=pub, tolerance=tol)
        ctx.item(f"sec7.colo.excess_delay_s.{cc}", f"Section 7.2 (Fig. 8): mean excess one-way delay of {cc}'s data "
                 f"{over}; paper: Cubic highest, Vegas lowest", delay[cc], "s")
    ctx.figure("sec7_colo", "Section 7.2: shares of four co-located variants", comparison_figure(
        "share of the sector's goodput (published vs measured)", [(cc, published[cc][0], share[cc]) for cc in VARIANTS],
        "fraction"), [f"sec7.colo.share.{cc}" for cc in VARIANTS])


def fig11(ctx):
    """Section 7.4, Fig. 11: a 9.6 kb/s stream behind a download in one user's queue."""
    seeds, dur = _sizes(ctx, ([1], 60), ([1, 2, 3, 4], 120))
    stream = {"name": "voip", "kind": "cbr", "rate": "9.6kbps", "packet_size": "24B"}
    users = [("ue", {"preset": "stationary"}, {}, [bulk("ftp", "reno"), stream])]
    df, _ = ctx.sweep({
        "sweep": {"name": "liu_fig11", "scenario": sector_doc(users, dur), "seeds": seeds},
        "grid": {"flow[0].tcp.cc": list(VARIANTS)},
    })
    g = df.groupby("flow[0].tcp.cc")
    delay = g["flow.voip.owd_avg_s"].mean().to_dict()
    tput = g["flow.ftp.goodput_bps"].mean().to_dict()
    over = f"(mean of {len(seeds)} runs x {dur} s)"
    for cc in VARIANTS:
        ctx.item(f"fig11.stream_delay_s.{cc}", f"Fig. 11: mean one-way delay of the 9.6 kb/s stream beside a {cc} "
                 f"download {over}", delay[cc], "s")
        ctx.item(f"fig11.throughput_kbps.{cc}", f"Fig. 11: the {cc} download's goodput {over}", tput[cc] / 1e3, "kb/s")
    order = sorted(VARIANTS, key=lambda cc: delay[cc])
    ctx.item("fig11.stream_delay_order", "Fig. 11: stream delay in the paper's order Vegas < Westwood < Reno < "
             f"Cubic (1 = yes; measured order: {' < '.join(order)})",
             1.0 if order == ["vegas", "westwood", "reno", "cubic"] else 0.0, "yes/no", published=1.0,
             tolerance=Tolerance.abs(0))
    ctx.item("fig11.westwood_over_cubic_throughput", "Fig. 11: Westwood's goodput over Cubic's; paper: 'about 90 %'",
             tput["westwood"] / tput["cubic"], "ratio", published=0.90, tolerance=Tolerance.abs(0.05))
    fig, ax = subplots()
    for cc in VARIANTS:
        ax.plot(tput[cc] / 1e6, delay[cc] * 1e3, "o", ms=8, label=cc)
    finish(ctx, fig, ax, "fig11", "Fig. 11: stream delay against download throughput", "download goodput (Mb/s)",
           "stream one-way delay (ms)", [f"fig11.stream_delay_s.{cc}" for cc in VARIANTS] + ["fig11.stream_delay_order"])


def reproduce(ctx):
    fig6(ctx)
    sec7_utilisation(ctx)
    sec7_colo(ctx)
    fig11(ctx)
