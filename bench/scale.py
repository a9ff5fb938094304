"""Benchmark: many 1xEV-DO sectors at once. S PF sectors of U users each
(stationary channels, Liu et al.'s testbed RLP), every sector behind its
own 100 Mb/s wired link from one server, one Cubic download per user, for
a simulated minute; the goal is real time or faster on one core at
S = 1,000, U = 10 (11,001 nodes).

    python bench/scale.py [--sectors 10 100 1000] [--users 10] [--seconds 60]

Reports, per size: wall-clock seconds of the run (building included),
simulated seconds per wall-clock second, events and events per second,
the system's throughput, and the process's peak memory so far (the
sizes run in increasing order in one process, so each peak is that of the
largest run yet). Nothing here asserts on time.
"""

import argparse
import resource
import time

import cdmasim
from cdmasim.reproduce.liu_sector import TESTBED_RLP, bulk


def scenario(sectors, users, seconds, cc="cubic"):
    """S sectors of U users, each sector behind its own wired link."""
    doc = {"simulation": {"duration": f"{seconds}s", "seed": 1}, "node": [{"name": "server"}],
           "link": [], "sector": [], "user": [], "flow": []}
    for s in range(sectors):
        doc["node"].append({"name": f"bs{s}"})
        doc["link"].append({"name": f"wired{s}", "from": "server", "to": f"bs{s}", "rate": "100Mbps",
                            "delay": "19ms", "queue": {"kind": "droptail", "limit": "1000pkt"}})
        doc["sector"].append({"name": f"s{s}", "node": f"bs{s}", "scheduler": "pf", "interlace": 4, "delay": "1ms"})
        for u in range(users):
            name = f"u{s}_{u}"
            doc["user"].append({"name": name, "sector": f"s{s}", "drc": {"preset": "stationary"}, "rlp": TESTBED_RLP})
            doc["flow"].append({"from": "server", "to": name, **bulk(f"f{s}_{u}", cc)})
    return doc


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sectors", type=int, nargs="+", default=[10, 100, 1000])
    ap.add_argument("--users", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=60.0)
    a = ap.parse_args()
    for s in sorted(a.sectors):
        doc = scenario(s, a.users, a.seconds)
        t0 = time.perf_counter()
        r = cdmasim.run(doc)
        wall = time.perf_counter() - t0
        events = r.summary["events"]
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"{s:5d} sectors x {a.users} users ({1 + s * (a.users + 1)} nodes), {a.seconds:g} s: "
              f"{wall:7.2f} s wall, {a.seconds / wall:6.2f}x real time, {events} events "
              f"({events / wall / 1e6:.2f} M/s), {r.sectors.throughput_bps.sum() / 1e6:.1f} Mb/s, "
              f"peak {peak_mb:.0f} MB", flush=True)


if __name__ == "__main__":
    main()
