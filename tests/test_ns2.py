"""`cdmasim reproduce paliwal --ns2`: ns-2.35 runs the same
cell configurations and seeds, and each item carries ns-2's value beside
cdmasim's. The trace reading is checked by hand; the runs themselves need
`ns` (apt package ns2, installed by scripts/setup) and skip visibly
without it."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cdmasim.reproduce.ns2 import read_trace

ROOT = Path(__file__).resolve().parent.parent


def test_dead_periods_and_drops_from_a_hand_written_trace(tmp_path):
    # Two traced links: B_cum 0 -> 1 (delay 0.1 s) and a BTS link 1 -> 2
    # (delay 0.2 s). Packet a: queued at B_cum at 1.0, received 1.5, so the
    # link is busy until 1.4; then on the BTS link from 1.5 to 2.2 - 0.2 = 2.0.
    # Packet b: queued at 3.0 and dropped (occupies nothing, a B_cum drop).
    # Packet c: queued on the BTS link at 4.0, never received: busy to the end.
    lines = [
        "+ 1.0 0 1 tcp 1000 ------- 1 0.0 2.0 5 a",
        "- 1.0 0 1 tcp 1000 ------- 1 0.0 2.0 5 a",
        "r 1.5 0 1 tcp 1000 ------- 1 0.0 2.0 5 a",
        "+ 1.5 1 2 tcp 1000 ------- 1 0.0 2.0 5 a",
        "r 2.2 1 2 tcp 1000 ------- 1 0.0 2.0 5 a",
        "+ 3.0 0 1 tcp 1000 ------- 1 0.0 2.0 6 b",
        "d 3.0 0 1 tcp 1000 ------- 1 0.0 2.0 6 b",
        "+ 4.0 1 2 tcp 1000 ------- 1 0.0 2.0 7 c",
    ]
    trace = tmp_path / "t.tr"
    trace.write_text("\n".join(lines) + "\n")
    dead, drops = read_trace(str(trace), [[0, 1, 0.1], [1, 2, 0.2]], 10.0)
    assert dead == [(0.0, 1.0), (1.4, 1.5), (2.0, 4.0)]
    assert drops == [3.0]


def _cli(args, **kw):
    return subprocess.run([sys.executable, "-m", "cdmasim.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=900, **kw)


def test_ns2_is_refused_for_other_papers_and_without_ns(tmp_path):
    p = _cli(["reproduce", "lee", "--quick", "--ns2", "--out", str(tmp_path / "a")])
    assert p.returncode == 2 and "--ns2 is for the paliwal paper" in p.stderr
    env = dict(os.environ, PATH=os.path.dirname(sys.executable))
    p = _cli(["reproduce", "paliwal", "--quick", "--ns2", "--out", str(tmp_path / "b")], env=env)
    assert p.returncode == 2 and "ns-2 not found" in p.stderr
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists(), "refused before anything is written"


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 not installed (apt-get install ns2; scripts/setup does)")
def test_reproduce_paliwal_ns2_puts_ns2_beside_every_cell(tmp_path, quick_reproduction):
    # cdmasim's own runs come from the quick reproduction's store (the same
    # runs): what this run adds is ns-2's.
    out = tmp_path / "out"
    out.mkdir()
    shutil.copytree(quick_reproduction[0] / "store", out / "store")
    p = _cli(["reproduce", "paliwal", "--quick", "--ns2", "--out", str(out), "--json"])
    assert p.returncode == 0, p.stderr[-2000:]
    items = {it["id"]: it for it in json.loads(p.stdout)["items"]}
    assert all("ns2" in it and "ns2_spread" in it for it in items.values()), "every item has the two fields"
    cells = [it for k, it in items.items() if k.startswith("table2.tb_")]
    assert len(cells) == 9
    for it in cells:
        assert 0 <= it["ns2"] <= 100 and len(it["ns2_spread"]) == 2 and it["ns2_spread"][0] <= it["ns2"] <= it["ns2_spread"][1]
    assert items["fig5.drops"]["ns2"] > 0, "the worst case drops at B_cum in ns-2 too"
    assert items["table2.mean"]["ns2"] is not None and items["table2.ns2_gap_pts"]["measured"] >= 0
    for tr in ("0.0003", "1", "2", "5"):
        assert 0 <= items[f"fig7.halted_fraction.tr_{tr}"]["ns2"] <= 1, "a fraction of ns-2's seeds"
    assert items["fig6.dead_s"]["ns2"] is not None and items["fig4a.rises_then_flattens"]["ns2"] is None
    cached = sorted((out / "ns2").glob("*.json"))
    assert len(cached) == 3 * 9 + 3 + 3 + 4 * 3, "one file per configuration and seed (Table II's 3 x 3 cells, " \
        "the worst case, Fig. 6, Fig. 7's four rise times)"
    stamps = [f.stat().st_mtime_ns for f in cached]
    # A second run reads ns-2's results back: no file is rewritten.
    p = _cli(["reproduce", "paliwal", "--quick", "--ns2", "--out", str(out), "--json"])
    assert p.returncode == 0, p.stderr[-2000:]
    assert [f.stat().st_mtime_ns for f in sorted((out / "ns2").glob("*.json"))] == stamps
    again = {it["id"]: it for it in json.loads(p.stdout)["items"]}
    assert all(again[k]["ns2"] == items[k]["ns2"] for k in items)
    assert "ns-2.35, the same configuration and seeds" in (out / "report.html").read_text()
    # The package's record is these runs: the quick reproduction, which ran
    # no ns-2, shows the same ns-2 values from it.
    recorded = {it["id"]: it for it in quick_reproduction[1]["paliwal"]["items"]}
    assert all(recorded[k]["ns2"] == items[k]["ns2"] for k in items if k in recorded), \
        "the record is stale: make it again (python -m cdmasim.reproduce.ns2 record; see its module text)"


def test_the_record_shows_ns2_beside_the_items_without_running_it(quick_reproduction):
    report = json.loads((quick_reproduction[0] / "paliwal" / "report.json").read_text())
    items = {it["id"]: it for it in report["items"]}
    cells = [it for k, it in items.items() if k.startswith("table2.tb_")]
    assert len(cells) == 9 and all(it["ns2"] is not None for it in cells), "the record holds the quick grid"
    assert items["fig5.drops"]["ns2"] is not None and items["fig6.dead_s"]["ns2"] is not None
    assert any("package's record" in n for n in report["notes"]), "the report says where ns-2's values come from"


def _fake_run(args, script):
    return {"args": args, "script": script, "rho_dead": 0.01, "dead": [[1.0, 2.5]], "bsc_drops": 3,
            "goodput_bps": 1e5, "timeouts": 2}


def test_a_record_holds_this_scripts_runs_and_nothing_else(tmp_path):
    from cdmasim.reproduce import ns2

    digest = ns2._script_digest()
    cache = tmp_path / "ns2"
    cache.mkdir()
    a, b = ns2.cell_args(10.0, 1, "at", at=5.0), ns2.cell_args(10.0, 2, "at", at=5.0)
    (cache / "1.json").write_text(json.dumps(_fake_run(a, digest)))
    (cache / "2.json").write_text(json.dumps(_fake_run(b, "another script")))
    (cache / "3.json").write_text("{not json")
    path = tmp_path / "record.json.gz"
    assert ns2.record(str(cache), str(path)) == 1
    rec = ns2.Recorded.load(str(path))
    assert rec.run([a])[0]["dead"] == [[1.0, 2.5]]
    assert rec.run([a, b]) is None, "a configuration the record lacks gives no ns-2 values"
    # The same runs give the same bytes, whichever process writes them.
    first = path.read_bytes()
    p = subprocess.run([sys.executable, "-m", "cdmasim.reproduce.ns2", "record", str(cache), "--to", str(path)],
                       capture_output=True, text=True)
    assert p.returncode == 0 and "1 runs" in p.stdout, p.stderr
    assert path.read_bytes() == first
    # A record of another version of the script is not used.
    import gzip

    doc = json.loads(gzip.decompress(first))
    doc["script"] = "0" * 16
    path.write_bytes(gzip.compress(json.dumps(doc).encode()))
    assert ns2.Recorded.load(str(path)) is None
    assert ns2.Recorded.load(str(tmp_path / "absent.json.gz")) is None
    # A damaged record is no record (reproduce goes on without ns-2's values).
    path.write_bytes(first[:12] + bytes(64) + first[76:])
    assert ns2.Recorded.load(str(path)) is None
    p = subprocess.run([sys.executable, "-m", "cdmasim.reproduce.ns2", "record", str(tmp_path / "nowhere")],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "not a folder" in p.stderr
