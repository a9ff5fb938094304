"""Lee's Fig. 7 from a simulator capture: a download over a PPP link
with VJ header compression, frames lost below PPP. The capture at the
receiver (the laptop) holds the segments that failed the TCP checksum, and
`cdmasim pcap analyze` counts exactly the flow's checksum failures; the
sender's capture shows the multi-packet loss periods, and tcptrace reads
both captures with the same retransmission counts as our analysis."""

import shutil

import pytest

import cdmasim
import cdmasim.pcap as cp
import pcap_tcptrace as tt

SCENARIO = """
[simulation]
duration = "120s"
seed = %d

[[node]]
name = "server"
[[node]]
name = "router"
[[node]]
name = "laptop"

[[link]]
name = "internet"
from = "server"
to = "router"
rate = "100Mbps"
delay = "47ms"

# The uplink first: the radio pair's capture is then the laptop's.
[[link]]
name = "uplink"
from = "laptop"
to = "router"
rate = "153.6kbps"
delay = "5ms"
duplex = false
ppp = "%s"

[[link]]
name = "downlink"
from = "router"
to = "laptop"
rate = "1Mbps"
delay = "5ms"
duplex = false
loss = 0.001
ppp = "%s"
queue = { kind = "droptail", limit = "64KiB" }

[[flow]]
name = "download"
from = "server"
to = "laptop"
tcp = { cc = "newreno", sack = true, rcv_buffer = "65535B", timestamps = %s }
"""


def _run(tmp_path, ppp="vj", timestamps="false", seed=1):
    r = cdmasim.run(SCENARIO % (seed, ppp, ppp, timestamps), pcap_dir=tmp_path)
    receiver = cp.analyze(tmp_path / "uplink.pcap").report["connections"][0]
    sender = cp.analyze(tmp_path / "internet.pcap").report["connections"][0]
    return r, receiver, sender


def test_the_receivers_capture_shows_every_checksum_failure(tmp_path):
    r, receiver, sender = _run(tmp_path)
    flow = r.flows.iloc[0]
    data = receiver["a2b"]  # server -> laptop
    assert flow.checksum_failures > 20
    # Every data segment that failed at the laptop is in its capture, whole,
    # with a checksum that does not verify; ACKs that failed at the server
    # are in the server's capture.
    acks_failed = sender["b2a"]["cksum_bad"]
    assert data["cksum_bad"] + acks_failed == flow.checksum_failures
    assert (r.drops.reason == "checksum").sum() == flow.checksum_failures
    ppp = r.ppp.set_index("link")
    assert ppp.loc["downlink", "corrupted"] == data["cksum_bad"]
    # The bursts: loss periods of many retransmissions, as in Fig. 7.
    periods = [p["rexmits"] for p in sender["a2b"]["loss_periods"]]
    assert ppp.loc["downlink", "lost"] > 0 and max(periods) >= 10
    assert sum(p >= 2 for p in periods) / len(periods) >= 0.5


def test_with_timestamps_or_rohc_there_are_none(tmp_path):
    for ppp, ts in (("vj", "true"), ("rohc", "false")):
        r, receiver, _ = _run(tmp_path / f"{ppp}{ts}", ppp, ts)
        assert receiver["a2b"]["cksum_bad"] <= 2, (ppp, ts)
        assert r.ppp.lost.sum() > 0


@pytest.mark.skipif(shutil.which("tcptrace") is None, reason="tcptrace not installed (scripts/apt-packages.txt)")
def test_tcptrace_reads_the_same_bursts(tmp_path):
    r, receiver, sender = _run(tmp_path)
    # Field by field, tcptrace's figures (its retransmitted data packets
    # among them) are ours, at both ends.
    for name, ours in (("uplink.pcap", receiver), ("internet.pcap", sender)):
        diffs = tt.compare(cp.analyze(tmp_path / name).report["connections"], tt.run_tcptrace(tmp_path / name))
        assert diffs == [], name + "\n" + "\n".join(map(str, diffs))
        assert ours["a2b"]["rexmt_data_pkts"] > 20


SECTOR = """
[simulation]
duration = "120s"
seed = 3
[[node]]
name = "server"
[[node]]
name = "bs"
[[link]]
name = "internet"
from = "server"
to = "bs"
rate = "100Mbps"
delay = "40ms"
[[sector]]
name = "s1"
node = "bs"
background = { users = 1 }
[[user]]
name = "laptop"
sector = "s1"
drc = { constant = "1228.8kbps" }
ppp = "vj"
loss = 0.002
[[flow]]
name = "download"
from = "server"
to = "laptop"
tcp = { sack = true, rcv_buffer = "65535B" }
"""


def test_a_sector_users_capture_holds_its_download_and_its_checksum_failures(tmp_path):
    """A 1xEV-DO user's pair (the user and its base station) is captured at
    the user, named after its reverse link: every data segment the sector
    handed it is there, the corrupted ones whole with a failing checksum."""
    r = cdmasim.run(SECTOR, pcap_dir=tmp_path)
    flow = r.flows.iloc[0]
    at_user = cp.analyze(tmp_path / "laptop.up.pcap").report["connections"][0]
    data = at_user["a2b"]
    corrupted = r.ppp.set_index("link").loc["laptop.down", "corrupted"]
    assert flow.checksum_failures > 0 and corrupted > 0
    # What reached TCP, and what reached the user but failed its checksum.
    assert data["actual_data_pkts"] == flow.packets_received + flow.checksum_failures
    assert data["cksum_bad"] == flow.checksum_failures
    # The ppp row counts a frame when the PDSN writes it, as the packet
    # enters the base station's queue, and a corrupted one when RLP hands it
    # up, the RAN's delay before the user sees it: frames still queued or on
    # their way when the run ends are counted but never reached the user.
    # They are at most a window (65535 B: 45 segments).
    ppp = r.ppp.set_index("link").loc["laptop.down"]
    in_flight = ppp["frames"] - ppp["lost"] - ppp["dropped_in_queue"] - data["total_packets"]
    assert 0 <= corrupted - flow.checksum_failures <= in_flight <= 45
    assert data["unique_bytes_sent"] >= flow.bytes_delivered


def test_a_frame_the_base_stations_queue_drops_is_a_vj_burst_too():
    """The PDSN compresses before the base station queues (docs/ppp.md): a
    packet dropped by a full queue had its frame written, so the
    decompressor misses its delta and the compressed segments after it fail
    the checksum, with no loss on the air at all. Without VJ the same
    overflows are plain losses."""
    lossless = SECTOR.replace("loss = 0.002", 'queue = { kind = "droptail", limit = "16KiB" }')
    lossless = lossless.replace('rcv_buffer = "65535B"', 'rcv_buffer = "1MiB"')
    vj = cdmasim.run(lossless)
    ppp = vj.ppp.set_index("link").loc["laptop.down"]
    assert ppp["lost"] == 0 and ppp["dropped_in_queue"] > 0
    # Each is told to the decompressor when the next frame reaches it: a
    # drop after the last frame handed up is not yet counted.
    drops = vj.queues.set_index("link").loc["laptop.down", "drops"]
    assert 0 < ppp["dropped_in_queue"] <= drops
    assert vj.flows.iloc[0].checksum_failures > ppp["dropped_in_queue"]
    plain = cdmasim.run(lossless.replace('ppp = "vj"', 'ppp = "none"'))
    assert plain.flows.iloc[0].checksum_failures == 0
