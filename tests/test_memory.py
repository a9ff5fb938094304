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
    # Held in memory, each drop would cost about 1-1.5 KB: over 1 GB more here.
    assert long_kb - short_kb < 20_000, f"{short_kb} KB for {short_drops} drops, {long_kb} KB for {long_drops}"


WEB_CHILD = """
import resource, sys, cdmasim
r = cdmasim.run(sys.argv[1])
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
f = r.summary["flows"][0]
assert "objects" not in r.summary and "pages" not in r.summary
print(f["pages"], f["objects"], rss)
"""


def test_web_browsing_memory_follows_the_pages_under_way(tmp_path):
    """A browsing user's pages and objects stream to files as each page
    finishes: a run a hundred times longer keeps no more of them (the
    tables are read from those files afterwards, on demand)."""
    from pathlib import Path

    example = (Path(__file__).resolve().parent.parent / "examples" / "web_browsing.toml").read_text()
    out = {}
    for k in (1, 100):
        path = tmp_path / f"web{k}.toml"
        path.write_text(example.replace('duration = "1200s"', f'duration = "{1200 * k}s"')
                        .replace('sample_interval = "100ms"', 'sample_interval = "10s"'))
        p = subprocess.run([sys.executable, "-c", WEB_CHILD, str(path)], capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        out[k] = list(map(int, p.stdout.split()))
    (pages1, objects1, kb1), (pages100, objects100, kb100) = out[1], out[100]
    assert pages100 > 50 * pages1 and objects100 > 10_000
    # Each record held cost about 2 kB along the way (records, the summary's
    # JSON, its Python objects): tens of MB more here if they were kept.
    assert kb100 - kb1 < 5_000, f"{kb1} KB for {objects1} objects, {kb100} KB for {objects100}"
