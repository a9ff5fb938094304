"""OUT/report.html: every reproduced paper in OUT, self-contained (figures
embedded as base64 PNG, no scripts, no external links), with an index
across papers and, per figure, the table of its items and verdicts."""

import base64
import html
import json
import os

from .reproduce import PAPERS

CSS = """
body { font-family: sans-serif; max-width: 1100px; margin: 1em auto; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 3px 7px; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.agrees { background: #dff0d8; } .differs { background: #f8d7da; } .none { background: #eee; }
.pending { color: #7a4b00; } img { max-width: 100%; border: 1px solid #ddd; }
"""


def _fmt(v):
    return "—" if v is None else f"{v:.4g}"


def _verdict_class(v):
    return {"agrees": "agrees", "differs": "differs"}.get(v, "none")


def _items_table(items):
    if not items:
        return ""
    rows = ["<table><tr><th>item</th><th>what</th><th>published</th><th>measured</th><th>unit</th>"
            "<th>tolerance</th><th>verdict</th></tr>"]
    for it in items:
        rows.append(
            f"<tr class=\"{_verdict_class(it['verdict'])}\"><td><code>{html.escape(it['id'])}</code></td>"
            f"<td>{html.escape(it['what'])}</td><td class=\"num\">{_fmt(it['published'])}</td>"
            f"<td class=\"num\">{_fmt(it['measured'])}</td><td>{html.escape(it['unit'])}</td>"
            f"<td>{html.escape(it['tolerance'])}</td><td>{html.escape(it['verdict'])}</td></tr>")
    rows.append("</table>")
    return "\n".join(rows)


def _image(out, rel):
    with open(os.path.join(out, rel), "rb") as f:
        data = base64.b64encode(f.read()).decode()
    return f'<img alt="{html.escape(rel)}" src="data:image/png;base64,{data}">'


def _counts(items):
    c = {"agrees": 0, "differs": 0, "no published value": 0}
    for it in items:
        c[it["verdict"]] += 1
    return c


def _paper_section(out, r):
    parts = [f'<h2 id="{r["paper"]}">{html.escape(r["paper"])}: {html.escape(r["title"])}</h2>',
             f"<p>{html.escape(r['citation'])}</p>"]
    if r.get("quick"):
        parts.append("<p><em>Quick run (--quick): shorter experiments than the full reproduction.</em></p>")
    for p in r.get("pending", []):
        parts.append(f'<p class="pending">Not built yet: {html.escape(p)}</p>')
    for n in r.get("notes", []):
        parts.append(f"<p>{html.escape(n)}</p>")
    by_id = {it["id"]: it for it in r["items"]}
    shown = set()
    for fig in r["figures"]:
        parts.append(f'<h3 id="{html.escape(r["paper"] + "." + fig["id"])}">{html.escape(fig["title"])}</h3>')
        parts.append(_image(out, fig["file"]))
        items = [by_id[i] for i in fig.get("items", []) if i in by_id]
        shown.update(it["id"] for it in items)
        parts.append(_items_table(items))
    rest = [it for it in r["items"] if it["id"] not in shown]
    if rest:
        parts.append("<h3>Other items</h3>")
        parts.append(_items_table(rest))
    return "\n".join(parts)


def write_report(out):
    """Write OUT/report.html from every OUT/PAPER/report.json; returns its path."""
    reports = []
    for paper in PAPERS:
        path = os.path.join(out, paper, "report.json")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                reports.append(json.load(f))
    index = ["<table><tr><th>paper</th><th>items</th><th>agree</th><th>differ</th><th>no published value</th>"
             "<th>figures</th><th>wall time</th></tr>"]
    for r in reports:
        c = _counts(r["items"])
        index.append(
            f'<tr><td><a href="#{r["paper"]}">{html.escape(r["paper"])}</a></td><td class="num">{len(r["items"])}</td>'
            f'<td class="num">{c["agrees"]}</td><td class="num">{c["differs"]}</td>'
            f'<td class="num">{c["no published value"]}</td><td class="num">{len(r["figures"])}</td>'
            f'<td class="num">{r["wall_s"]:.1f} s</td></tr>')
    index.append("</table>")
    body = "\n".join(_paper_section(out, r) for r in reports)
    doc = (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<title>cdmasim: reproduced papers</title>"
        # An empty favicon: otherwise a browser asks for /favicon.ico and logs a 404.
        "<link rel=\"icon\" href=\"data:,\">"
        f"<style>{CSS}</style></head><body>\n<h1>cdmasim: published vs measured</h1>\n"
        "<p>Every published number of each paper beside the value cdmasim measures; verdicts use the stated "
        "tolerance. See docs/reproduce.md for how each experiment is set up and why values differ.</p>\n"
        + "\n".join(index) + "\n" + body + "\n</body></html>\n")
    path = os.path.join(out, "report.html")
    with open(path, "w", encoding="utf-8") as f:
        f.write(doc)
    return path
