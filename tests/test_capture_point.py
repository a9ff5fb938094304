"""Where a capture sees a link's packets: as they start on the wire (the
default), or as the sender offers them, before the link's buffer
(`capture = "entry"`, `[[user]] uplink_capture = "entry"`), as tcpdump on
the sending host saw them in Lee's measurements, the modem's buffer below it."""

import cdmasim
import cdmasim.pcap as cp

UPLOAD = """
[simulation]
duration = "60s"
seed = 1
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
[[user]]
name = "laptop"
sector = "s1"
drc = { constant = "1228.8kbps" }
reverse_rate = "153.6kbps"
reverse_queue = { kind = "droptail", limit = "32KiB" }
CAPTURE
[[flow]]
name = "upload"
from = "laptop"
to = "server"
tcp = { sack = true, rcv_buffer = "1MiB" }
"""


def _sender_side(tmp_path, capture):
    out = tmp_path / capture
    r = cdmasim.run(UPLOAD.replace("CAPTURE", f'uplink_capture = "{capture}"'), pcap_dir=out)
    conn = cp.analyze(out / "laptop.up.pcap").report["connections"][0]
    data = conn["a2b"] if conn["a2b"]["actual_data_pkts"] > conn["b2a"]["actual_data_pkts"] else conn["b2a"]
    return r, data


def test_an_entry_capture_sees_the_buffer_in_the_rtt_and_the_packets_it_drops(tmp_path):
    r_wire, wire = _sender_side(tmp_path, "wire")
    r_entry, entry = _sender_side(tmp_path, "entry")
    # The run itself does not depend on where the capture listens.
    assert r_wire.flows.goodput_bps.iloc[0] == r_entry.flows.goodput_bps.iloc[0]
    drops = int((r_entry.drops.reason == "overflow").sum()) if len(r_entry.drops) else 0
    assert drops > 0, "the 32 KiB uplink buffer overflows under a window of 1 MiB"
    # At the entry every segment the sender sent is seen, the ones the
    # buffer then dropped too, and those still in it when the run ends; on
    # the wire only those that left the buffer.
    held = int(r_entry.queues.set_index("link").loc["laptop.up", "max_packets"])
    assert wire["actual_data_pkts"] + drops <= entry["actual_data_pkts"] <= wire["actual_data_pkts"] + drops + held
    # The RTT at the entry includes the wait in the buffer: 32 KiB at
    # 153.6 kb/s is up to 1.7 s.
    assert entry["rtt_avg_ms"] > wire["rtt_avg_ms"] + 300, (entry["rtt_avg_ms"], wire["rtt_avg_ms"])
