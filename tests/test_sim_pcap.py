"""The simulator's captures open in tcptrace and tshark, and tcptrace's
figures agree with what the simulator reports for the same connection.

The capture is taken at the sender's interface towards the router (outgoing
packets as they leave, incoming ones as they arrive), like tcpdump on that
host. The bottleneck is downstream, so every data segment the sender sends
passes the capture point: tcptrace must count exactly the segments and
retransmissions the simulator counted."""

import shutil
import subprocess

import pytest

import cdmasim

SCENARIO = """
[simulation]
duration = "30s"
seed = 5

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
rcv_buffer = "128KB"
"""


def tcptrace_fields(path):
    out = subprocess.run(["tcptrace", "-l", "-r", "-n", str(path)], capture_output=True, text=True, check=True).stdout
    fields = {}
    for line in out.splitlines():
        # Two columns "name: value   name: value"; keep the first (a->b).
        if ":" in line and line.startswith("     "):
            name, rest = line.strip().split(":", 1)
            fields.setdefault(name.strip(), rest.split()[0] if rest.split() else "")
    return fields


@pytest.mark.skipif(shutil.which("tcptrace") is None, reason="tcptrace not installed (apt-get install tcptrace)")
@pytest.mark.parametrize("sack,ts", [("false", "false"), ("true", "true")])
def test_tcptrace_agrees_with_the_simulator(tmp_path, sack, ts):
    r = cdmasim.run(SCENARIO % (sack, ts), pcap_dir=tmp_path)
    flow = r.summary["flows"][0]
    assert flow["completed_at_s"] is not None
    assert flow["retransmits"] > 0, "the 8-packet bottleneck must cause losses"
    f = tcptrace_fields(tmp_path / "a-r.pcap")
    assert int(f["unique bytes sent"]) == flow["bytes_delivered"] == 300_000
    assert int(f["actual data pkts"]) == flow["packets_sent"]
    assert int(f["rexmt data pkts"]) == flow["retransmits"]
    # tcptrace's minimum RTT (from the capture at the sender) is the simulator's
    # to within the 1 us resolution of the pcap stamps.
    assert abs(float(f["RTT min"]) - flow["rtt_min_s"] * 1000) < 0.1


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed")
def test_tshark_reads_every_packet(tmp_path):
    cdmasim.run(SCENARIO % ("true", "true"), pcap_dir=tmp_path)
    out = subprocess.run(
        ["tshark", "-r", str(tmp_path / "a-r.pcap"), "-T", "fields", "-e", "tcp.analysis.flags", "-e", "_ws.expert"],
        capture_output=True, text=True, check=True,
    )
    assert out.returncode == 0
    assert "Malformed" not in out.stdout + out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) > 100
