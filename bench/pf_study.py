"""Benchmark: full-buffer PF study speed in user-slots per second (one core),
plus the Fig. 6 table (gains, Jain's index) over the presets.

    python bench/pf_study.py [--slots N] [--seeds K]

The speed is measured around the Rust slot loop only (channel generation
excluded): per CPU second of the loop's thread (loop_cpu_seconds, from
/proc/thread-self/schedstat: the honest figure on a shared machine) and per
wall-clock second (loop_seconds).
"""

import argparse
import statistics

from cdmasim import evdo


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--slots", type=int, default=1_000_000)
    ap.add_argument("--seeds", type=int, default=3)
    a = ap.parse_args()
    print("speed (interlace 4 and per-slot rates, PF keep):")
    for preset in ("stationary", "mobile"):
        for users in (4, 8, 16):
            for il in (4, 0):
                r = evdo.schedule(users, a.slots, 1, preset=preset, interlace=il, schedulers=["pf"], handoff="keep")
                res = r["runs"][0]["result"]
                us = users * res["slots"]
                cpu = res.get("loop_cpu_seconds")
                print(f"  {preset:10s} {users:2d} users interlace {il}: "
                      f"{us / cpu / 1e6 if cpu else float('nan'):6.0f} M user-slots/s per CPU second "
                      f"({us / res['loop_seconds'] / 1e6:4.0f} M/s wall clock)")
    print()
    print(f"Fig. 6: gain T_PF/T_RR, mean over {a.seeds} seeds of {a.slots} slots")
    for il in (0, 4):
        print(f" interlace {il} ({'per-slot rates' if il == 0 else 'multi-slot packets, 4-slot interlace'})")
        for preset in ("stationary", "mobile"):
            for users in (2, 4, 8):
                df = evdo.fig6(preset, users=(users,), slots=a.slots, seeds=tuple(range(1, a.seeds + 1)), interlace=il)
                print(f"  {preset:10s} {users} users: keep {df.gain_keep.mean():.3f} "
                      f"(min {df.gain_keep.min():.3f} max {df.gain_keep.max():.3f}) reset {df.gain_reset.mean():.3f}  "
                      f"Jain thr PF {df.jain_pf.mean():.3f} RR {df.jain_rr.mean():.3f}  "
                      f"Jain share PF {df.jain_share_pf.mean():.3f} RR {df.jain_share_rr.mean():.3f}")


if __name__ == "__main__":
    main()
