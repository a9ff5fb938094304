"""OUT/report.html: every reproduced paper in OUT, self-contained (figures
embedded as base64 PNG, no scripts, no external links): first a table of
what agrees, per paper (predictions by verdict; calibration targets and
inputs apart, never counted as agreement; the null model's score), then
per figure its score and the table of its items, grouped by basis."""

import base64
import html
import json
import os

from .reproduce import PAPERS

CSS = """
body { font-family: sans-serif; max-width: 1200px; margin: 1em auto; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 3px 7px; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.basis th { background: #f4f4f4; font-weight: normal; font-style: italic; }
.agrees { background: #dff0d8; } .differs { background: #f8d7da; } .inconclusive { background: #fff3cd; }
.notmodelled { background: #e2e3f3; } .none { background: #eee; }
.quote { color: #555; font-size: 0.9em; } .pending { color: #7a4b00; } .score { margin: 0.2em 0; }
.uninformative { color: #a04000; font-weight: bold; } img { max-width: 100%; border: 1px solid #ddd; }
"""
BASIS_ORDER = ("prediction", "calibration", "input")
BASIS_TITLE = {"prediction": "Predictions (counted)", "calibration": "Calibration targets (not counted)",
               "input": "Inputs (not counted)"}


def _fmt(v):
    return "—" if v is None else f"{v:.4g}"


def _verdict_class(v):
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
            for a in it.get("also", []):
                sp = "" if a["spread"] is None else f" ({a['spread'][0]:.4g} – {a['spread'][1]:.4g})"
                notes.append(f'<div class="quote">also measured, {html.escape(a["how"])}: {_fmt(a["measured"])}{sp}</div>')
            if it.get("aliases"):
                notes.append(f'<div class="quote">also known as {", ".join(html.escape(a) for a in it["aliases"])}</div>')
            if it.get("ns2") is not None:
                sp = "" if it.get("ns2_spread") is None else f" ({it['ns2_spread'][0]:.4g} – {it['ns2_spread'][1]:.4g})"
                notes.append(f'<div class="quote">ns-2.35, the same configuration and seeds: {_fmt(it["ns2"])}{sp}</div>')
            rows.append(
                f"<tr class=\"{_verdict_class(it['verdict'])}\"><td><code>{html.escape(it['id'])}</code></td>"
                f"<td>{html.escape(it['what'])}{''.join(notes)}</td><td class=\"num\">{_fmt(it['published'])}</td>"
                f"<td class=\"num\">{_fmt(it['measured'])}</td><td class=\"num\">{spread}</td>"
                f"<td class=\"num\">{seeds}</td><td>{html.escape(it['unit'])}</td>"
                f"<td>{html.escape(it['tolerance'])}</td><td>{html.escape(it['verdict'])}</td></tr>")
    rows.append("</table>")
    return "\n".join(rows)


def _image(out, rel):
    with open(os.path.join(out, rel), "rb") as f:
        data = base64.b64encode(f.read()).decode()
    return f'<img alt="{html.escape(rel)}" src="data:image/png;base64,{data}">'


def _score_line(score):
    if not score["predictions"]:
        return '<p class="score">No scored prediction in this figure.</p>'
    flag = (' <span class="uninformative">uninformative: the null model scores as well as cdmasim</span>'
            if score["uninformative"] else "")
    return (f'<p class="score">Predictions: {score["agree"]} agree of {score["predictions"]}; the null model '
            f'({html.escape(score["null_answer"])}) passes {score["null"]}.{flag}</p>')


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
    rows = ["<table><tr><th>paper</th><th>predictions agree</th><th>differ</th><th>inconclusive</th>"
            "<th>not modelled</th><th>no published value</th><th>calibration items</th><th>inputs</th>"
            "<th>null model passes</th><th>uninformative figures</th><th>wall time</th></tr>"]
    for r in reports:
        s = r["summary"]
        p = s["predictions"]
        scored = p["total"] - p["no published value"]
        rows.append(
            f'<tr><td><a href="#{r["paper"]}">{html.escape(r["paper"])}</a></td>'
            f'<td class="num">{p["agrees"]} of {scored}</td><td class="num">{p["differs"]}</td>'
            f'<td class="num">{p["inconclusive"]}</td><td class="num">{p["not modelled"]}</td>'
            f'<td class="num">{p["no published value"]}</td><td class="num">{s["calibration"]}</td>'
            f'<td class="num">{s["input"]}</td>'
            f'<td class="num">{s["null"]["passes"]} of {s["null"]["of"]} ({html.escape(s["null"]["answer"])})</td>'
            f'<td>{html.escape(", ".join(s["uninformative_figures"])) or "—"}</td>'
            f'<td class="num">{r["wall_s"]:.1f} s</td></tr>')
    rows.append("</table>")
    return "\n".join(rows)


def write_report(out):
    """Write OUT/report.html from every OUT/PAPER/report.json; returns its path."""
    reports = []
    for paper in PAPERS:
        path = os.path.join(out, paper, "report.json")
        try:
            with open(path, encoding="utf-8") as f:
                r = json.load(f)
        except (OSError, ValueError, RecursionError):
            continue                      # absent, or not one of ours
        if isinstance(r, dict) and "summary" in r and "items" in r:   # older versions' reports are not shown
            reports.append(r)
    body = "\n".join(_paper_section(out, r) for r in reports)
    doc = (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<title>cdmasim: reproduced papers</title>"
        # An empty favicon: otherwise a browser asks for /favicon.ico and logs a 404.
        "<link rel=\"icon\" href=\"data:,\">"
        f"<style>{CSS}</style></head><body>\n<h1>cdmasim: published vs measured</h1>\n"
        "<p>Every published claim of each paper beside what cdmasim measures, over seeds. Only predictions count: "
        "a number the model produced without being set or fitted from it. Calibration targets (a parameter was "
        "fitted to them) and inputs (the paper's number is a parameter of the run) are shown apart. Tolerances "
        "follow the paper's wording (docs/reproduce.md, \"How an item is judged\"); an item whose seeds spread "
        "wider than its tolerance, or straddle it, is inconclusive. The null model is the best of three trivial "
        "answers (all zeros; the paper's mean for every item of a unit; the input unchanged): a figure it scores "
        "as well as cdmasim on says nothing.</p>\n"
        + _index(reports) + "\n" + body + "\n</body></html>\n")
    # Written beside and renamed into place: a reader never sees half a
    # report, and a link at report.html is replaced, not followed.
    from ._files import write_file

    def save(tmp):
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(doc)

    path = os.path.join(out, "report.html")
    write_file(path, save)
    return path
