"""Conservation in every example scenario: every packet sent is delivered,
dropped with a recorded reason, or still in the network at the end."""

from pathlib import Path

import pytest

import cdmasim
from cdmasim.emulate import simulated_twin, users

# Every scenario example (examples/sweep_*.toml are sweep files, tested in test_sweep.py).
EXAMPLES = sorted(p for p in (Path(__file__).parent.parent / "examples").glob("*.toml") if not p.name.startswith("sweep_"))


def runnable(path):
    """The example, or for an emulation example (emulate_*.toml: a radio
    hop without traffic of its own) its simulated twin with a download per user."""
    if not path.name.startswith("emulate_"):
        return path
    return simulated_twin(path, {u: {} for u in users(path)}, "20s")


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_packet_is_accounted_for(path):
    r = cdmasim.run(runnable(path))
    s = r.summary
    c = s["conservation"]
    assert c["sent"] > 0
    assert c["sent"] == c["delivered"] + c["dropped"] + c["in_network"]
    # Every drop is in the drop log (streamed to a file, not the summary)
    # with a place and a reason, and the per-queue counters add up to the same total.
    assert "drops" not in s
    drops = r.drops
    assert len(drops) == c["dropped"]
    assert (drops.reason != "").all() and (drops.place != "").all()
    # Drops at a node rather than a hop are a missing route, or a segment
    # that failed the TCP checksum at its receiver (after a PPP header
    # decompressor lost step), which each flow counts too.
    per_queue = sum(sum(q["drops"].values()) for q in s["queues"])
    at_nodes = drops[drops.place.str.startswith("node:")]
    assert set(at_nodes.reason) <= {"no_route", "checksum"}
    assert (at_nodes.reason == "checksum").sum() == r.flows.checksum_failures.fillna(0).sum()
    assert per_queue + len(at_nodes) == c["dropped"]
