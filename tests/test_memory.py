"""Memory follows the network's state, not simulated time: a source far
faster than its link drops about 110,000 packets per simulated second, and
ten times the run must not take ten times the memory (the drop log streams
to a file; the summary keeps counts). Peak RSS is measured in a child
process: a property of the model's data structures, not of the machine's
speed."""

import subprocess
import sys

SCENARIO = """
[simulation]
duration = "{d}s"
[[node]]
name = "a"
[[node]]
name = "b"
[[link]]
name = "slow"
from = "a"
to = "b"
rate = "100Mbps"
delay = "1ms"
queue = {{ kind = "droptail", limit = "100pkt" }}
[[flow]]
name = "flood"
kind = "cbr"
from = "a"
to = "b"
packet_size = "1000B"
rate = "1Gbps"
"""

CHILD = """
import resource, sys, cdmasim
r = cdmasim.run(sys.argv[1])
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
assert "drops" not in r.summary
print(len(r.drops), r.summary["conservation"]["dropped"], rss)
"""


def peak(tmp_path, seconds):
    path = tmp_path / f"flood{seconds}.toml"
    path.write_text(SCENARIO.format(d=seconds))
    p = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    rows, dropped, rss_kb = map(int, p.stdout.split())
    assert rows == dropped
    return dropped, rss_kb


def test_drops_do_not_grow_memory(tmp_path):
    short_drops, short_kb = peak(tmp_path, 1)
    long_drops, long_kb = peak(tmp_path, 10)
    assert long_drops > 1_000_000 and long_drops > 9 * short_drops
    # Peak memory of the run itself (the drops table is read afterwards).
    # Before the drop log streamed, each drop cost about 1-1.5 KB: over
    # 1 GB more here.
    assert long_kb - short_kb < 20_000, f"{short_kb} KB for {short_drops} drops, {long_kb} KB for {long_drops}"
