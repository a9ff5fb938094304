"""The simulator's `--pcap` output analyses cleanly: every tcptrace figure
agrees with cdmasim.pcap on the same file, the figures equal what the
simulator itself reports for the flow (segments sent, retransmissions, bytes
delivered, minimum RTT), and tshark reads it.

The capture is taken at the sender's interface towards the router (outgoing
packets as their transmission starts, incoming ones as they arrive), like
tcpdump on that host. The bottleneck is downstream, so every data segment the
sender sends passes the capture point."""

import subprocess

import shutil

import pytest

import cdmasim
import pcap_tcptrace as tt

SCENARIO = """
[simulation]
duration = "30s"
seed = 7

[[node]]
name = "a"
[[node]]
name = "r"
[[node]]
name = "b"

[[link]]
name = "a-r"
from = "a"
to = "r"
rate = "100Mbps"
delay = "2ms"
queue = { kind = "droptail", limit = "1000pkt" }

[[link]]
name = "r-b"
from = "r"
to = "b"
rate = "1Mbps"
delay = "30ms"
queue = { kind = "droptail", limit = "8pkt" }

[[flow]]
name = "bulk"
from = "a"
to = "b"
kind = "bulk"
bytes = "300KB"

[flow.tcp]
cc = "newreno"
sack = %s
timestamps = %s
"""


@pytest.mark.skipif(shutil.which("tcptrace") is None, reason="tcptrace not installed (scripts/apt-packages.txt)")
@pytest.mark.parametrize("sack,ts", [("false", "false"), ("true", "true")])
def test_simulator_capture(tmp_path, sack, ts):
    import cdmasim.pcap as cp

    r = cdmasim.run(SCENARIO % (sack, ts), pcap_dir=tmp_path)
    flow = r.summary["flows"][0]
    cap = tmp_path / "a-r.pcap"
    res = cp.analyze(cap)
    assert res.warnings == []
    diffs = tt.compare(res.report["connections"], tt.run_tcptrace(cap))
    assert diffs == [], "\n".join(map(str, diffs))
    d = res.report["connections"][0]["a2b"]
    assert d["unique_bytes_sent"] == flow["bytes_delivered"] == 300_000
    assert d["actual_data_pkts"] == flow["packets_sent"]
    assert d["rexmt_data_pkts"] == flow["retransmits"] > 0
    assert sum(p["rexmits"] for p in d["loss_periods"]) == flow["retransmits"]
    # the minimum RTT seen at the sender is the simulator's, to the 1 us
    # resolution of the capture's stamps
    assert abs(d["rtt_min_ms"] - flow["rtt_min_s"] * 1000) < 0.1
    # segments captured whole (the pure ACKs) carry valid checksums
    for side in ("a2b", "b2a"):
        c = res.report["connections"][0][side]
        assert c["cksum_bad"] == 0


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed (scripts/apt-packages.txt)")
def test_tshark_reads_every_packet(tmp_path):
    cdmasim.run(SCENARIO % ("true", "true"), pcap_dir=tmp_path)
    out = subprocess.run(["tshark", "-r", str(tmp_path / "a-r.pcap")], capture_output=True, text=True, check=True)
    assert "Malformed" not in out.stdout + out.stderr
    assert len(out.stdout.strip().splitlines()) > 100


def test_model_fit_leaves_out_tiny_connections_and_takes_a_choice(tmp_path):
    """Lee eq. 1 is fitted to bulk connections: a control connection of a
    few packets (iperf3 opens one) is left out by default, and the user can
    name the connections to fit."""
    import cdmasim
    import cdmasim.pcap as cp

    scenario = """
[simulation]
duration = "40s"
seed = 3
[[node]]
name = "a"
[[node]]
name = "b"
[[link]]
name = "wire"
from = "a"
to = "b"
rate = "2Mbps"
delay = "20ms"
loss = 0.05
reverse_loss = 0.02
[[flow]]
name = "bulk1"
from = "a"
to = "b"
[[flow]]
name = "bulk2"
from = "a"
to = "b"
start = "1s"
[[flow]]
name = "control"
from = "a"
to = "b"
bytes = "60KB"
start = "2s"
"""
    cdmasim.run(scenario, pcap_dir=tmp_path)
    cap = next(tmp_path.glob("*.pcap"))
    everyone = cp.analyze(cap, fit_min_packets=0).report["model"]
    default = cp.analyze(cap).report["model"]
    fitted = lambda m: sorted(p["conn"] for p in m["points"])  # noqa: E731
    assert len(fitted(everyone)) == 3 and len(fitted(default)) == 2
    small = (set(fitted(everyone)) - set(fitted(default))).pop()
    conns = cp.analyze(cap).report["connections"]
    assert max(c["a2b"]["actual_data_pkts"] for c in conns if c["index"] == small) < 100
    one = cp.analyze(cap, fit_connections=[fitted(default)[0]]).report["model"]
    assert fitted(one) == [fitted(default)[0]]
