"""Benchmark: a 1xEV-DO sector with N TCP users (PF, stationary channels,
64 KB per-user queues, Liu et al.'s testbed delays, as `reproduce liu` builds it) for a simulated hour.

    python bench/sector.py [--users 8] [--hours 1] [--repeats 3]

Reports, per run: slots per wall-clock second (every slot of the hour is
run: busy ones by events, idle ones when the sector wakes), events per
second, and simulated seconds per wall-clock second; and beside them the
full-buffer scheduler study's user-slots per second on the same channels
(the same PF code without packets), so the cost of the packet world shows
as a ratio. Benchmarks are not tests: nothing here asserts on time.
"""

import argparse
import statistics
import time

import cdmasim
from cdmasim import evdo

SLOTS_PER_S = 600


def scenario(users, hours, cc="cubic"):
    """Liu et al.'s testbed with one PF sector (the scenario `reproduce liu` uses)."""
    from cdmasim.reproduce.liu_sector import bulk, sector_doc

    return sector_doc([(f"u{u}", {"preset": "stationary"}, {}, [bulk(f"f{u}", cc)]) for u in range(users)],
                      int(hours * 3600))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=8)
    ap.add_argument("--hours", type=float, default=1.0)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    text = scenario(a.users, a.hours)
    sim_s = a.hours * 3600
    slots = int(sim_s * SLOTS_PER_S)
    walls, r = [], None
    for _ in range(a.repeats):
        t0 = time.perf_counter()
        r = cdmasim.run(text)
        walls.append(time.perf_counter() - t0)
    wall = statistics.median(walls)
    events = r.summary["events"]
    print(f"sector: {a.users} TCP users (cubic), PF, {a.hours:g} h simulated = {slots} slots; "
          f"median of {a.repeats} runs: {wall:.2f} s wall")
    print(f"  {slots / wall / 1e3:10.1f} k slots/s   {events / wall / 1e6:6.2f} M events/s ({events} events)   "
          f"{sim_s / wall:8.0f} x real time")
    print(f"  system throughput {r.sectors.throughput_bps.sum() / 1e6:.3f} Mb/s, Jain {r.sectors.jain[0]:.4f}")
    st = evdo.schedule(a.users, slots, 1, preset="stationary", interlace=4, schedulers=["pf"], handoff="keep")
    res = st["runs"][0]["result"]
    us_per_s = a.users * res["slots"] / res["loop_seconds"]
    print(f"full-buffer study, same users and channels: {us_per_s / 1e6:.1f} M user-slots/s (slot loop only)")
    print(f"  packet sector: {a.users * slots / wall / 1e6:.2f} M user-slots/s, "
          f"ratio study / sector = {us_per_s / (a.users * slots / wall):.1f}")


if __name__ == "__main__":
    main()
