"""OUT/report.html: every reproduced paper in OUT, self-contained (figures
embedded as base64 PNG, no scripts, no external links): first a table of
what agrees, per paper (predictions by verdict; calibration targets and
inputs apart, never counted as agreement; the null model's score), then
per figure its score and the table of its items, grouped by basis."""

import base64
import html
import json
import math
import os
import re

from .._files import write_file
from . import PAPERS

CSS = """
body { font-family: sans-serif; max-width: 1200px; margin: 1em auto; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 3px 7px; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.basis th { background: #f4f4f4; font-weight: normal; font-style: italic; }
.agrees { background: #dff0d8; } .differs { background: #f8d7da; } .inconclusive { background: #fff3cd; }
.notmodelled { background: #e2e3f3; } .none { background: #eee; }
.quote { color: #555; font-size: 0.9em; } .pending { color: #7a4b00; } .score { margin: 0.2em 0; }
.uninformative { color: #a04000; font-weight: bold; }
.why { color: #7a2e00; font-size: 0.9em; } img { max-width: 100%; border: 1px solid #ddd; }
"""
BASIS_ORDER = ("prediction", "calibration", "input", "model check")
BASIS_TITLE = {"prediction": "Predictions (counted, unless by construction)",
               "calibration": "Calibration targets (not counted; whether each hit its target)",
               "input": "Inputs (not counted)",
               "model check": "Model checks (the reference is our own evaluation of the paper's equation; not counted)"}


def tally(s):
    """A paper's counts as (value, words) pairs: the terminal's headline
    and report.html's first table both say exactly these, in these words.
    `s` is a report's summary."""
    p = s["predictions"]
    judged = p["agrees"] + p["differs"] + p["inconclusive"]
    agree = s.get("headline", {}).get("agree", p["agrees"])
    checks = s.get("model_check", {"total": 0, "hit": 0})
    missed = len(s.get("targets_missed", []))
    null = s["null"]
    return [
        (f"{agree} of {judged}", "predictions agree"),
        (str(p["differs"]), "differ"),
        (str(p["inconclusive"]), "inconclusive"),
        (str(p["agrees"] - agree), "agree where the null model does as well (not counted)"),
        (str(p.get("by construction", 0)), "by construction (not counted)"),
        (f"{checks['hit']} of {checks['total']}", "model checks hit"),
        (str(p["not modelled"]), "not modelled"),
        (str(p["no published value"]), "without a published value"),
        (f"{s['calibration']}, {missed} missed" if missed else str(s["calibration"]), "calibration targets"),
        (str(s["input"]), "inputs"),
        (f"{null['passes']:g} of {null['of']} ({null['answer']})", "null model passes"),
    ]


def verdict_label(it):
    """The verdict as shown: a calibration, input or model check says
    whether it hit its own target ("calibration missed")."""
    target = it.get("target")
    shown = ("calibration", "input", "model check", "by construction")
    return f"{it['verdict']} {target}" if target and it["verdict"] in shown else it["verdict"]


def _fmt(v):
    return "—" if v is None else f"{v:.4g}"


def _verdict_class(it):
    v = it["verdict"]
    if it.get("target") in ("missed", "inconclusive"):
        return "differs" if it["target"] == "missed" else "inconclusive"
    return {"agrees": "agrees", "differs": "differs", "inconclusive": "inconclusive",
            "not modelled": "notmodelled"}.get(v, "none")


def _items_table(items):
    if not items:
        return ""
    rows = ["<table><tr><th>item</th><th>what, and the paper's words</th><th>published</th><th>measured (mean)</th>"
            "<th>seed spread</th><th>seeds</th><th>unit</th><th>tolerance</th><th>verdict</th></tr>"]
    for basis in BASIS_ORDER:
        group = [it for it in items if it["basis"] == basis]
        if not group:
            continue
        rows.append(f'<tr class="basis"><th colspan="9">{BASIS_TITLE[basis]}</th></tr>')
        for it in group:
            spread = "—" if it["spread"] is None else f"{it['spread'][0]:.4g} – {it['spread'][1]:.4g}"
            seeds = "pooled" if it.get("pooled") else ("1 (deterministic)" if it["seeds"] == 1 else str(it["seeds"]))
            if it["verdict"] == "not modelled":
                seeds = "—"
            notes = []
            if it.get("source"):
                notes.append(f'<div class="quote">{html.escape(it["source"])}</div>')
            if it.get("basis_note"):
                notes.append(f'<div class="quote">{html.escape(it["basis"])}: {html.escape(it["basis_note"])}</div>')
            if it.get("reason"):
                notes.append(f'<div class="quote">not modelled: {html.escape(it["reason"])}</div>')
            if it.get("by_construction"):
                notes.append(f'<div class="why">by construction (not counted): '
                             f'{html.escape(it["by_construction"])}</div>')
            if it.get("why"):
                notes.append(f'<div class="why">why: {html.escape(it["why"])}</div>')
            for a in it.get("also", []):
                sp = "" if a["spread"] is None else f" ({a['spread'][0]:.4g} – {a['spread'][1]:.4g})"
                notes.append(f'<div class="quote">also measured, {html.escape(a["how"])}: {_fmt(a["measured"])}{sp}</div>')
            if it.get("aliases"):
                notes.append(f'<div class="quote">also known as {", ".join(html.escape(a) for a in it["aliases"])}</div>')
            if it.get("ns2") is not None:
                sp = "" if it.get("ns2_spread") is None else f" ({it['ns2_spread'][0]:.4g} – {it['ns2_spread'][1]:.4g})"
                notes.append(f'<div class="quote">ns-2.35, the same configuration and seeds: {_fmt(it["ns2"])}{sp}</div>')
            rows.append(
                f"<tr class=\"{_verdict_class(it)}\"><td><code>{html.escape(it['id'])}</code></td>"
                f"<td>{html.escape(it['what'])}{''.join(notes)}</td><td class=\"num\">{_fmt(it['published'])}</td>"
                f"<td class=\"num\">{_fmt(it['measured'])}</td><td class=\"num\">{spread}</td>"
                f"<td class=\"num\">{seeds}</td><td>{html.escape(it['unit'])}</td>"
                f"<td>{html.escape(it['tolerance'])}</td><td>{html.escape(verdict_label(it))}</td></tr>")
    rows.append("</table>")
    return "\n".join(rows)


#: The largest figure embedded (a reproduce figure is 30-200 kB).
MAX_FIGURE_BYTES = 16 << 20


def _image(out, rel):
    """A figure as an embedded PNG: only a PNG file reproduce wrote inside
    OUT (PAPER/ID.png, no link out of it); otherwise a note."""
    path = os.path.join(out, rel)
    inside = os.path.realpath(path).startswith(os.path.realpath(out) + os.sep)
    try:
        if not inside or os.path.islink(path) or not os.path.isfile(path) or os.path.getsize(path) > MAX_FIGURE_BYTES:
            raise OSError
        with open(path, "rb") as f:
            data = f.read(MAX_FIGURE_BYTES + 1)
        if not data.startswith(b"\x89PNG\r\n\x1a\n"):
            raise OSError
    except OSError:
        return f'<p class="pending">Figure {html.escape(rel)} is missing (rerun reproduce to draw it).</p>'
    return f'<img alt="{html.escape(rel)}" src="data:image/png;base64,{base64.b64encode(data).decode()}">'


def _score_line(score):
    if not score["predictions"]:
        return '<p class="score">No scored prediction in this figure.</p>'
    flag = (' <span class="uninformative">uninformative: the null model scores as well as cdmasim</span>'
            if score["uninformative"] else "")
    return (f'<p class="score">Predictions: {score["agree"]} agree of {score["predictions"]}; the null model '
            f'({html.escape(score["null_answer"])}) passes {score["null"]:g}.{flag}</p>')


def _paper_section(out, r):
    parts = [f'<h2 id="{r["paper"]}">{html.escape(r["paper"])}: {html.escape(r["title"])}</h2>',
             f"<p>{html.escape(r['citation'])}</p>"]
    if r.get("quick"):
        parts.append("<p><em>Quick run (--quick): shorter experiments and 3 seeds instead of 5.</em></p>")
    for p in r.get("pending", []):
        parts.append(f'<p class="pending">Not built yet: {html.escape(p)}</p>')
    for n in r.get("notes", []):
        parts.append(f"<p>{html.escape(n)}</p>")
    by_id = {it["id"]: it for it in r["items"]}
    shown = set()
    for fig in r["figures"]:
        parts.append(f'<h3 id="{html.escape(r["paper"] + "." + fig["id"])}">{html.escape(fig["title"])}</h3>')
        parts.append(_score_line(fig["score"]))
        parts.append(_image(out, fig["file"]))
        items = [by_id[i] for i in fig.get("items", []) if i in by_id]
        shown.update(it["id"] for it in items)
        parts.append(_items_table(items))
    rest = [it for it in r["items"] if it["id"] not in shown]
    if rest:
        parts.append("<h3>Items without a figure</h3>")
        parts.append(_items_table(rest))
    return "\n".join(parts)


def _index(reports):
    if not reports:
        return ""
    words = [w for _, w in tally(reports[0]["summary"])]
    rows = ["<table><tr><th>paper</th>" + "".join(f"<th>{html.escape(w)}</th>" for w in words)
            + "<th>uninformative figures</th><th>wall time</th></tr>"]
    for r in reports:
        s = r["summary"]
        cells = "".join(f'<td class="num">{html.escape(v)}</td>' for v, _ in tally(s))
        rows.append(
            f'<tr><td><a href="#{r["paper"]}">{html.escape(r["paper"])}</a></td>{cells}'
            f'<td>{html.escape(", ".join(s["uninformative_figures"])) or "—"}</td>'
            f'<td class="num">{r["wall_s"]:.1f} s</td></tr>')
    rows.append("</table>")
    return "\n".join(rows)


def read_report(out, paper):
    """OUT/PAPER/report.json as reproduce wrote it, or None (absent, or not
    a report of this cdmasim: damaged, of another version, written by
    hand). Everything the page shows is checked here, so that nothing read
    back from disk is trusted: names, numbers, figure files."""
    path = os.path.join(out, paper, "report.json")
    try:
        if os.path.islink(path) or not os.path.isfile(path) or os.path.getsize(path) > (64 << 20):
            return None
        with open(path, encoding="utf-8") as f:
            r = json.load(f)
    except (OSError, ValueError, RecursionError):
        return None
    return r if _well_formed(r, paper) else None


def _well_formed(r, paper):
    def isnum(x, none=False):
        return (x is None and none) or (isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x))

    def count(x):
        return isinstance(x, int) and not isinstance(x, bool) and x >= 0

    def ints(d, keys):
        return isinstance(d, dict) and all(count(d.get(k)) for k in keys)

    def texts(xs):
        return isinstance(xs, list) and all(map(text, xs))

    def spread(x):
        return x is None or (isinstance(x, list) and len(x) == 2 and all(map(isnum, x)))

    text = lambda x: isinstance(x, str)  # noqa: E731
    try:
        s = r["summary"]
        p = s["predictions"]
        ok = (r["paper"] == paper and text(r["title"]) and text(r["citation"]) and isnum(r["wall_s"])
              and ints(p, ("agrees", "differs", "inconclusive", "not modelled", "no published value", "total"))
              and ints(s, ("calibration", "input")) and isnum(s["null"]["passes"]) and s["null"]["passes"] >= 0
              and ints(s["null"], ("of",)) and text(s["null"]["answer"])
              and texts(s["uninformative_figures"]) and texts(r.get("pending", [])) and texts(r.get("notes", []))
              and texts(s.get("targets_missed", [])))
        judged = p["agrees"] + p["differs"] + p["inconclusive"]
        if "headline" in s:
            h = s["headline"]
            ok = ok and ints(h, ("agree", "judged")) and h["agree"] <= p["agrees"] and h["judged"] == judged
        if "model_check" in s:
            ok = ok and ints(s["model_check"], ("total", "hit")) and s["model_check"]["hit"] <= s["model_check"]["total"]
        for it in r["items"]:
            ok = ok and all(text(it[k]) for k in ("id", "what", "unit", "tolerance", "verdict", "basis")) and all(
                isnum(it[k], none=True) for k in ("published", "measured")) and spread(it["spread"]) and (
                count(it["seeds"])) and all(text(it.get(k, "")) for k in (
                    "why", "by_construction", "source", "basis_note", "reason")) and (
                it.get("target") in (None, "hit", "missed", "inconclusive")) and (
                isnum(it.get("ns2"), none=True) and spread(it.get("ns2_spread"))) and texts(it.get("aliases", [])) and (
                isinstance(it.get("also", []), list)) and all(
                isinstance(a, dict) and text(a.get("how")) and isnum(a.get("measured"), none=True)
                and spread(a.get("spread")) for a in it.get("also", []))
        for fig in r["figures"]:
            ok = ok and text(fig["title"]) and re.fullmatch(r"[A-Za-z0-9_.-]+", fig["id"]) is not None and (
                fig["file"] == f"{paper}/{fig['id']}.png") and ints(fig["score"], ("agree", "predictions")) and (
                isnum(fig["score"]["null"])) and text(fig["score"]["null_answer"]) and texts(fig.get("items", []))
        return bool(ok)
    except (KeyError, TypeError, AttributeError):
        return False


def write_report(out):
    """Write OUT/report.html from every OUT/PAPER/report.json reproduce
    wrote (a damaged or foreign one is left out, and the page says so);
    returns its path."""
    reports, left_out = [], []
    for paper in PAPERS:
        r = read_report(out, paper)
        if r is not None:
            reports.append(r)
        elif os.path.lexists(os.path.join(out, paper, "report.json")):
            left_out.append(paper)
    body = "\n".join(_paper_section(out, r) for r in reports)
    if left_out:
        body = (f'<p class="pending">Left out: {", ".join(left_out)} (its report.json is not one this cdmasim '
                "wrote; rerun reproduce for it).</p>\n" + body)
    doc = (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<title>cdmasim: reproduced papers</title>"
        # An empty favicon: otherwise a browser asks for /favicon.ico and logs a 404.
        "<link rel=\"icon\" href=\"data:,\">"
        f"<style>{CSS}</style></head><body>\n<h1>cdmasim: published vs measured</h1>\n"
        "<p>Every published claim of each paper beside what cdmasim measures, over seeds. Only predictions count: "
        "a number the model produced without being set or fitted from it, and that it could have got wrong (an "
        "item the model cannot fail is marked by construction, with the reason). Calibration targets (a "
        "parameter was fitted to them, shown with whether it hit), inputs (the paper's number is a parameter of "
        "the run) and model checks (the reference is our own evaluation of one of the paper's equations) are "
        "shown apart. Tolerances follow what the paper's number is (docs/reproduce.md, \"How an item is "
        "judged\"): a measured number's item whose seeds spread wider than its tolerance, or straddle it, is "
        "inconclusive, and a simulated number (one run of the paper's simulator) agrees when our runs' range meets "
        "it. Every item that differs or is inconclusive says why. The null model is the best of four trivial answers "
        "(all zeros; the paper's mean for a unit with three or more items; the input unchanged; no effect), with "
        "orderings answered by chance: a figure it scores as well as cdmasim on says nothing, and its agreements "
        "are not counted.</p>\n"
        + _index(reports) + "\n" + body + "\n</body></html>\n")
    # Written beside and renamed into place: a reader never sees half a
    # report, and a link at report.html is replaced, not followed.
    def save(tmp):
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(doc)

    path = os.path.join(out, "report.html")
    write_file(path, save)
    return path
