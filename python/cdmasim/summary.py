"""The human-readable summary table of a run, from the summary dict alone
(the CLI prints it without importing pandas)."""


def fmt_rate(bps):
    """Bit/s in readable units: 9.60 kb/s, 1.23 Mb/s."""
    if bps is None:
        return "-"
    for unit, scale in (("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if abs(bps) >= scale:
            return f"{bps / scale:.3g} {unit}" if bps / scale < 100 else f"{bps / scale:.1f} {unit}"
    return f"{bps:.0f} b/s"


def _ms(s):
    return "-" if s is None else f"{s * 1e3:.1f}"


def _table(headers, rows):
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]
    lines = []
    for r in [headers] + rows:
        cells = [str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths))]
        lines.append("  ".join(cells).rstrip())
    return lines


# Queues below this utilisation that dropped nothing are left out of the
# table (a dumbbell has two idle access queues per flow); --json lists all.
QUIET_UTILIZATION = 0.05
#: Beyond this many mobiles, their rows are summarised (all are in the tables).
MAX_ROWS = 12


def _busy(q):
    return any(q.get("drops", {}).values()) or q.get("utilization", 0) >= QUIET_UTILIZATION


def format_summary(s: dict) -> str:
    c = s.get("conservation", {})
    out = [
        f"seed {s.get('seed')}, {s.get('duration_s', 0):g} s simulated, {s.get('events', 0)} events; "
        f"packets sent {c.get('sent', 0)} = delivered {c.get('delivered', 0)} + dropped {c.get('dropped', 0)}"
        f" + in network {c.get('in_network', 0)}"
    ]
    flows = s.get("flows", [])
    if flows:
        rows = []
        for f in flows:
            # A CBR stream is one-way: it has no RTT, its delay is in the excess OWD column.
            rtt = "/".join(_ms(f.get(k)) for k in ("rtt_min_s", "rtt_avg_s", "rtt_max_s")) if f["kind"] == "tcp" else "-"
            excess = "/".join(_ms(f.get(k)) for k in ("excess_owd_mean_s", "excess_owd_std_s"))
            rexmt = f"{f.get('retransmits', 0)} ({100 * f.get('retransmitted_fraction', 0):.1f}%)"
            tos = f"{f.get('timeouts', 0)}" + (f" ({f['spurious_timeouts']} spurious)" if f.get("spurious_timeouts") else "")
            rows.append([f["name"], f["kind"], fmt_rate(f.get("goodput_bps")), rtt, excess, rexmt, tos])
            if any(g.get("checksum_failures") for g in flows):
                rows[-1].append(f.get("checksum_failures", 0))
        head = ["name", "kind", "goodput", "RTT min/avg/max ms", "excess OWD mean/std ms", "retransmits", "timeouts"]
        if any(g.get("checksum_failures") for g in flows):
            head.append("checksum failures")
        out += ["", "flows"] + _table(head, rows)
    else:
        out += ["", "flows: none"]
    all_queues = s.get("queues", [])
    # A cell's link buffers are summarised in its mobiles' line below when
    # there are too many to list.
    mobiles = s.get("mobiles", [])
    link_buffers = {f"{m['name']}.{d}" for m in mobiles for d in ("down", "up")} if len(mobiles) > MAX_ROWS else set()
    queues = [q for q in all_queues if _busy(q) and q["link"] not in link_buffers]
    if queues:
        rows = []
        for q in queues:
            drops = q.get("drops", {})
            dtxt = ", ".join(f"{k} {v}" for k, v in sorted(drops.items()) if v) or "0"
            rows.append([
                q["link"], q["kind"], dtxt, q.get("max_packets", 0),
                f"{q.get('avg_packets', 0):.1f}", f"{q.get('utilization', 0) * 100:.1f}%",
            ])
        out += ["", "queues"] + _table(["link", "kind", "drops", "max pkts", "avg pkts", "utilization"], rows)
    else:
        out += ["", "queues: none" if not all_queues else "queues: all idle"]
    hidden = len(all_queues) - len(queues) - len(link_buffers)
    if hidden:
        out.append(f"({hidden} queues with no drops and under {QUIET_UTILIZATION:.0%} utilization not shown)")
    if link_buffers:
        out.append(f"({len(mobiles)} mobiles' link buffers MOBILE.down and reverse links MOBILE.up in the queues table)")
    users = s.get("users", [])
    if users:
        rows = [[
            u["name"], u["sector"], fmt_rate(u.get("throughput_bps")), fmt_rate(u.get("mean_drc_bps")),
            f"{u.get('utilisation', 0):.3f}", f"{u.get('slot_share', 0) * 100:.1f}%", u.get("handoffs", 0),
        ] for u in users]
        head = ["user", "sector", "throughput", "mean DRC", "throughput/DRC", "slot share", "hand-offs"]
        out += ["", "1xEV-DO users"] + _table(head, rows)
        rows = [[
            x["name"], x["scheduler"], f"{x.get('utilisation', 0) * 100:.1f}%", fmt_rate(x.get("throughput_bps")),
            f"{x.get('jain', 0):.4f}",
        ] for x in s.get("sectors", [])]
        out += ["", "1xEV-DO sectors"] + _table(["sector", "scheduler", "busy slots", "throughput", "Jain"], rows)
    for c in s.get("cells", []):
        periods = c.get("dead_periods", [])
        longest = max(periods, key=lambda p: p[1] - p[0], default=None)
        rows = [[
            c["name"], c["mobiles"], fmt_rate(c.get("bsc_rate_bps")), f"{c.get('dead_s', 0):.2f} s",
            f"{c.get('rho_dead', 0) * 100:.2f}%", len(periods),
            f"{longest[0]:.2f}-{longest[1]:.2f} s" if longest else "-", c.get("sch_grants", 0),
        ]]
        head = ["cell", "mobiles", "BSC rate", "dead", "rho_dead", "dead periods", "longest", "SCH grants"]
        out += ["", "cdma2000 cells"] + _table(head, rows)
    mobiles = s.get("mobiles", [])
    if mobiles:
        shown = mobiles if len(mobiles) <= MAX_ROWS else None
        if shown is None:
            tp = sorted(m.get("throughput_bps", 0) for m in mobiles)
            out += ["", f"mobiles: {len(mobiles)}, throughput min {fmt_rate(tp[0])}, median {fmt_rate(tp[len(tp) // 2])}, "
                    f"max {fmt_rate(tp[-1])} (all in the mobiles table)"]
        else:
            rows = [[m["name"], m["bts"], fmt_rate(m.get("throughput_bps")), m.get("sch_grants", 0),
                     f"{m.get('sch_s', 0):.1f} s"] for m in mobiles]
            out += ["", "mobiles"] + _table(["mobile", "BTS", "throughput", "SCH grants", "SCH time"], rows)
    out += _ppp_lines(s)
    out += _radio_lines(s)
    out += _web_lines(s)
    return "\n".join(out)


def _ppp_lines(s):
    """One row per PPP link direction (the ppp table)."""
    rows = [[
        p["link"], p["compression"], p.get("frames", 0),
        f"{p.get('compressed', 0) / max(p.get('frames', 0), 1) * 100:.1f}%",
        f"{p.get('header_bytes', 0) / max(p.get('frames', 0), 1):.1f}/{p.get('full_header_bytes', 0) / max(p.get('frames', 0), 1):.1f}",
        p.get("lost", 0), p.get("dropped_in_queue", 0), p.get("corrupted", 0), p.get("discarded", 0),
    ] for p in s.get("ppp", [])[:MAX_ROWS]]
    if not rows:
        return []
    head = ["PPP link", "compression", "frames", "compressed", "header B/frame (whole)", "lost below PPP",
            "dropped in queue", "rebuilt wrong", "discarded"]
    return ["", "PPP links"] + _table(head, rows)


def _is2000_lines(s):
    rows = [[x["name"], x["users"], f"{x.get('power_mean', 0) * 100:.1f}%", f"{x.get('power_max', 0) * 100:.1f}%",
             x.get("sch_grants", 0), x.get("sch_denials", 0), x.get("codes_max", 0), f"{x.get('active_s', 0):.0f} s",
             x.get("on_periods", 0)]
            for x in s.get("is2000", [])]
    if not rows:
        return []
    head = ["IS-2000 sector", "users", "power avg", "power max", "SCH grants", "denials", "codes max", "channels held",
            "ON periods"]
    return ["", "IS-2000 sectors (users' air links: the radio_links table)"] + _table(head, rows)


def _radio_lines(s):
    """One row per RLP radio link and direction (summarised beyond MAX_ROWS)."""
    if len(s.get("radio_links", [])) > MAX_ROWS:
        links = s["radio_links"]
        lost = sum(r.get("frames_lost", 0) for r in links)
        sent = sum(r.get("frames_sent", 0) for r in links)
        aborted = sum(r.get("packets_aborted", 0) for r in links)
        return _is2000_lines(s) + ["", f"RLP radio links: {len(links)} (link, direction), FER "
                                   f"{lost / max(sent, 1) * 100:.2f}%, {aborted} packets aborted (all in the radio_links table)"]
    rows = [[
        r["name"], r["direction"], fmt_rate(r.get("rate_bps")), f"{r.get('fer', 0) * 100:.2f}%",
        f"{r.get('frames_retransmitted', 0)}/{r.get('frames_new', 0)}", r.get("naks_sent", 0),
        r.get("packets_aborted", 0), f"{r.get('new_data_mean_bytes', 0):.0f}/{r.get('new_data_max_bytes', 0)}",
        f"{r.get('rtx_mean_bytes', 0):.0f}/{r.get('rtx_max_bytes', 0)}",
    ] for r in s.get("radio_links", []) if r.get("frames_sent", 0)]
    if not rows:
        return _is2000_lines(s)
    head = ["radio link", "dir", "rate", "FER", "rexmit/new frames", "NAKs", "aborted", "new-data B avg/max",
            "rtx B avg/max"]
    return _is2000_lines(s) + ["", "RLP radio links"] + _table(head, rows)


def _web_lines(s):
    """One row per browsing user (one row for all beyond MAX_ROWS): pages
    and objects finished and their mean delays (the flows' web columns)."""
    flows = [f for f in s.get("flows", []) if f.get("kind") == "http"]
    if not flows:
        return []

    def pooled(fs, key, done):
        # The mean over every finished object or page of these flows.
        n = sum(f.get(done) or 0 for f in fs)
        return sum((f.get(key) or 0) * (f.get(done) or 0) for f in fs) / n if n else None

    fmt = lambda x, unit: "-" if x is None else f"{x:.3f} {unit}"  # noqa: E731
    groups = [(f["name"], [f]) for f in flows] if len(flows) <= MAX_ROWS else [(f"all {len(flows)}", flows)]
    rows = []
    for name, fs in groups:
        total = lambda key: sum(f.get(key) or 0 for f in fs)  # noqa: E731
        rows.append([name, f"{total('pages_done')}/{total('pages')}", f"{total('objects_done')}/{total('objects')}",
                     fmt(pooled(fs, "object_delay_mean_s", "objects_done"), "s"),
                     fmt(pooled(fs, "page_delay_mean_s", "pages_done"), "s"),
                     fmt(pooled(fs, "object_s_per_kb_mean", "objects_done"), "s/KB")])
    head = ["web flow", "pages done", "objects done", "object delay", "page delay", "object s/KB"]
    return ["", "web browsing (means over finished objects and pages)"] + _table(head, rows)
