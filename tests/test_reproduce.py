"""`cdmasim reproduce`: the --json shape, item verdicts with stated
tolerances, caching through the sweep store, and the papers that have no
model yet (dziong) reporting so instead of inventing numbers."""

import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
KEYS = ["paper", "title", "items", "figures", "wall_s"]
ITEM_KEYS = ["id", "what", "published", "measured", "unit", "tolerance", "verdict"]


def reproduce(paper, out, *extra):
    p = subprocess.run([sys.executable, "-m", "cdmasim.cli", "reproduce", paper, "--out", str(out), "--json", *extra],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1]), p


def check_shape(r, paper):
    assert list(r) == KEYS and r["paper"] == paper and r["title"]
    ids = [it["id"] for it in r["items"]]
    assert len(ids) == len(set(ids))
    for it in r["items"]:
        assert list(it) == ITEM_KEYS
        assert it["id"].startswith(paper + ".")
        assert isinstance(it["measured"], float)
        if it["published"] is None:
            assert it["verdict"] == "no published value"
        else:
            assert it["verdict"] in ("agrees", "differs") and it["tolerance"]


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    return tmp_path_factory.mktemp("reproduce")


def test_jung_items_and_caching(out):
    r, _ = reproduce("jung", out)
    check_shape(r, "jung")
    items = {it["id"]: it for it in r["items"]}
    # The published claims the RBSMQ scenario reproduces (docs/reproduce.md).
    for i in ("jung.fig4.throughput_ratio_one_flow", "jung.fig5.throughput_ratio_two_flows",
              "jung.fig5.jain_rbsmq_two_flows", "jung.fig6.jain_rbsmq_five_flows", "jung.fig6.drops_rbsmq_five_flows",
              "jung.fig2.goodput_w64_over_w32"):
        assert items[i]["verdict"] == "agrees", items[i]
    # Reno-64 builds the standing queue RBSMQ avoids.
    assert items["jung.fig4.queue_reno64_pkts"]["measured"] > 10 * items["jung.fig4.queue_rbsmq_pkts"]["measured"]
    assert all((out / f["file"]).stat().st_size > 0 for f in r["figures"])
    # A second run takes every experiment from the store and gives the same items.
    r2, _ = reproduce("jung", out)
    assert r2["items"] == r["items"]


def test_lee_runs_the_papers_analysis_on_simulated_captures(out):
    r, _ = reproduce("lee", out, "--quick")
    check_shape(r, "lee")
    items = {it["id"]: it for it in r["items"]}
    for i in ("lee.table1.downlink_rtt_min_ms", "lee.table1.downlink_retrans_pct", "lee.table1.uplink_retrans_pct",
              "lee.fig6.downlink_median_rexmits", "lee.eq1.fitted_c"):
        assert items[i]["verdict"] == "agrees", items[i]
    # The captures are in the store, and the analysis runs on a user's capture too.
    caps = sorted((out / "store" / "runs").glob("*/pcap/internet.pcap"))
    assert caps
    r2, _ = reproduce("lee", out, "--quick", "--pcap", str(caps[0]))
    mine = {it["id"]: it for it in r2["items"] if it["id"].startswith("lee.pcap.")}
    assert mine["lee.pcap.throughput_kbps"]["measured"] > 0
    assert mine["lee.pcap.throughput_kbps"]["verdict"] == "no published value"


def test_liu_quick_covers_channel_statistics_and_fig6(out):
    r, _ = reproduce("liu", out, "--quick")
    check_shape(r, "liu")
    ids = {it["id"] for it in r["items"]}
    assert {"liu.sec5.mobile_std_kbps", "liu.sec5.stationary_modal_fraction", "liu.fig6.gain_mobile_4users",
            "liu.fig6.gain_stationary_4users"} <= ids
    gains = {it["id"]: it["measured"] for it in r["items"] if it["id"].startswith("liu.fig6.gain_")}
    assert gains["liu.fig6.gain_mobile_4users"] > gains["liu.fig6.gain_stationary_4users"] > 1


def test_paliwal_fluid_model_against_packet_simulation(out):
    r, _ = reproduce("paliwal", out, "--quick")
    check_shape(r, "paliwal")
    fig4 = [it for it in r["items"] if it["id"].startswith("paliwal.fig4")]
    assert len(fig4) >= 6 and all(it["verdict"] == "agrees" for it in fig4)


def test_dziong_has_no_model_yet_and_says_so(out):
    r, p = reproduce("dziong", out)
    check_shape(r, "dziong")
    assert r["items"] == [] and r["figures"] == []
    assert "not built yet" in p.stderr
    assert "not built yet" in (out / "report.html").read_text()
