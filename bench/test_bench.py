"""Tests of the benchmark harness: `pytest bench/test_bench.py`.

The harness logic is tested without any simulator; the two reference
programs are run briefly (5 s simulated) when ns-2 / ns-3 are installed and
checked against the bottleneck's payload ceiling.
"""

import json
import os
import stat
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import report  # noqa: E402
import sims  # noqa: E402


def test_jain_equal_shares_is_one_and_one_hog_is_one_over_n():
    assert report.jain([2.0, 2.0, 2.0]) == pytest.approx(1.0)
    assert report.jain([5.0, 0.0, 0.0, 0.0]) == pytest.approx(0.25)
    assert report.jain([]) is None


def test_flow_goodput_divides_by_time_since_each_start():
    sc = sims.Dumbbell(flows=2, duration_s=60.0, spacing_s=0.010)
    flows = [{"bytes_delivered": 7_500_000}, {"bytes_delivered": 7_487_500}]
    g = sims._flow_goodputs(sc, flows)
    assert g[0] == pytest.approx(7_500_000 * 8 / 60.0)
    assert g[1] == pytest.approx(7_487_500 * 8 / 59.99)


def test_toml_carries_the_scenario():
    tomllib = pytest.importorskip("tomllib")
    sc = sims.Dumbbell(flows=10)
    t = tomllib.loads(sims.cdmasim_toml(sc))
    assert t["preset"] == "dumbbell"
    assert t["simulation"] == {"duration": "60s", "seed": 1}
    d = t["dumbbell"]
    assert d["flows"] == 10 and d["start_spacing"] == "10ms"
    assert d["bottleneck_rate"] == "10Mbps" and d["bottleneck_delay"] == "20ms"
    assert d["queue"] == {"kind": "droptail", "limit": "100pkt"}
    assert d["access_queue"]["limit"] == "1000pkt"
    tcp = d["tcp"]
    assert (tcp["cc"], tcp["sack"], tcp["timestamps"]) == ("newreno", False, False)
    assert tcp["mss"] == "1460B" and tcp["initial_window"] == 2
    assert tcp["rcv_buffer"] == f"{16 * 1024 * 1024}B"
    assert tcp["delayed_ack"] == "off" and tcp["min_rto"] == "1s"


def _fake_cli(tmp_path, body: str) -> str:
    """A stand-in executable for exercising the harness's error handling."""
    p = tmp_path / "cdmasim"
    p.write_text("#!/bin/sh\n" + body + "\n")
    p.chmod(p.stat().st_mode | stat.S_IEXEC)
    return str(p)


def test_missing_cdmasim_is_reported_not_invented(tmp_path):
    sc = sims.Dumbbell(flows=1)
    r = sims.run_cdmasim(sc, None, tmp_path)
    assert not r.available and "not available" in r.reason and r.goodput_bps == []


def test_cdmasim_without_run_command_is_not_available(tmp_path):
    cli = _fake_cli(tmp_path, "echo \"cdmasim: error: argument command: invalid choice: 'run'\" >&2; exit 2")
    r = sims.run_cdmasim(sims.Dumbbell(flows=1), cli, tmp_path / "w")
    assert not r.available
    assert "exited 2" in r.reason and "invalid choice" in r.reason


def test_placeholder_result_is_not_available(tmp_path):
    empty = json.dumps({"seed": 1, "duration_s": 60.0, "events": 0, "flows": [], "queues": []})
    cli = _fake_cli(tmp_path, f"echo '{empty}'")
    r = sims.run_cdmasim(sims.Dumbbell(flows=1), cli, tmp_path / "w")
    assert not r.available and "placeholder" in r.reason


def test_compare_goals():
    def avail(total, wall, engine, events=None):
        return {"available": True, "total_goodput_mbps": total, "wall_s_median": wall,
                "engine_s_median": engine, "events": events}
    case = {"cdmasim": avail(9.8, 0.05, 0.04, events=4_000_000),
            "ns-2": avail(9.7, 0.6, 0.3), "ns-3": avail(9.0, 7.0, 6.9, events=700_000)}
    c = report.compare(case)
    assert c["cdmasim_vs_ns2_pct"] == pytest.approx(100 * 0.1 / 9.7)
    assert c["goodput_goal_ns2"] == "PASS" and c["goodput_goal_ns3"] == "FAIL"
    assert c["ns2_over_cdmasim_wall"] == pytest.approx(12.0) and c["speed_goal_ns2"] == "PASS"
    assert c["ns3_over_cdmasim_wall"] == pytest.approx(140.0) and c["speed_goal_ns3"] == "PASS"
    assert c["cdmasim_events_per_s"] == pytest.approx(1e8)
    case["cdmasim"] = {"available": False, "reason": "x"}
    c = report.compare(case)
    assert c["goodput_goal_ns2"] == "n/a" and c["ns2_over_cdmasim_wall"] is None


def _ceiling_ok(sc, run, wire_bytes):
    """Total payload cannot exceed what the bottleneck carries after the last
    flow starts: rate * 1460 / wire_bytes per packet, over (duration - last start)."""
    span = sc.duration_s - sc.start_s(sc.flows - 1)
    ceiling_bps = sc.bottleneck_mbps * 1e6 * 1460 / wire_bytes
    delivered_bits = sum(g * (sc.duration_s - sc.start_s(i)) for i, g in enumerate(run.goodput_bps))
    assert 0 < delivered_bits <= ceiling_bps * sc.duration_s
    # and the flows together keep the link reasonably busy after start-up
    assert delivered_bits / span > 0.5 * ceiling_bps


@pytest.mark.skipif(not sims.ns2_ready()[0], reason="ns-2 not installed (apt-get install ns2)")
def test_ns2_dumbbell_runs_and_respects_the_bottleneck():
    sc = sims.Dumbbell(flows=2, duration_s=5.0)
    a, b = sims.run_ns2(sc), sims.run_ns2(sc)
    assert a.available, a.reason
    assert len(a.goodput_bps) == 2 and a.other_drops == 0
    _ceiling_ok(sc, a, 1500)
    assert a.goodput_bps == b.goodput_bps  # deterministic


@pytest.mark.skipif(not sims.ns3_ready()[0], reason="ns-3 not installed (apt-get install libns3-dev)")
def test_ns3_dumbbell_runs_and_respects_the_bottleneck():
    ok, why = sims.build_ns3()
    assert ok, why
    sc = sims.Dumbbell(flows=2, duration_s=5.0)
    r = sims.run_ns3(sc)
    assert r.available, r.reason
    assert len(r.goodput_bps) == 2 and r.other_drops == 0 and r.events > 0
    _ceiling_ok(sc, r, 1502)  # PPP adds 2 bytes per packet
