#!/usr/bin/env python3
"""Real Linux cubic, reno and bbr (iperf3 -R, 20 s) through a 4-user PF
sector in `cdmasim emulate`, beside the simulator's figures for the same
sector and TCP variants (the simulator's server sits at the base station
behind a 1 Gb/s, 1 us link, as the emulator's does). Needs root and iperf3.

    sudo .venv/bin/python bench/emulate_vs_sim.py
"""
import json
import os
import subprocess
import sys

import cdmasim
from cdmasim.emulate import LINUX_TCP, simulated_twin

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIO = os.path.join(ROOT, "examples", "emulate_four_users.toml")
T = 20
ccs = {"ue1": "cubic", "ue2": "reno", "ue3": "bbr", "ue4": "cubic"}
srv = " & ".join(f"iperf3 -s -1 -p {5201+i}" for i in range(4)) + "; wait"
args = [sys.executable, "-m", "cdmasim.cli", "emulate", SCENARIO, "--server", srv, "--json"]
for i, (u, cc) in enumerate(ccs.items()):
    args += ["--user", f"{u}=sleep 0.3; iperf3 -c $CDMASIM_SERVER -p {5201+i} -t {T} -R -C {cc} -J > /tmp/iperf_{u}.json 2>/dev/null"]
p = subprocess.run(args, capture_output=True, text=True, cwd=ROOT)
print(p.stderr[-500:])
rep = json.loads(p.stdout.strip().splitlines()[-1])["report"]
real = {}
for u in ccs:
    t = open(f"/tmp/iperf_{u}.json").read(); j = json.loads(t[t.index("{"):])
    real[u] = j["end"]["sum_received"]["bits_per_second"] / 1e3
print("schedule error p50/p99 us", rep["schedule_error_p50_us"], rep["schedule_error_p99_us"])
# The simulator: a server at the base station, the same users, the same TCPs.
r = cdmasim.run(simulated_twin(SCENARIO, {u: dict(LINUX_TCP, cc=cc) for u, cc in ccs.items()}, f"{T + 0.3}s"))
delay = {x["name"]: x["down"]["delay_mean_ms"] for x in rep["users"]}
queue = {x["name"]: x["queue_avg_pkts"] for x in rep["users"]}
q_sim = r.queues.set_index("link")["avg_packets"]
for u, cc in ccs.items():
    f = r.flows.set_index("name").loc[u]
    print(f"{u} {cc}: real {real[u]:.0f} kb/s, sim {f.goodput_bps/1e3:.0f} kb/s; "
          f"mean delay through the sector real {delay[u]:.0f} ms, sim {f.owd_avg_s * 1e3:.0f} ms; "
          f"mean queue real {queue[u]:.1f}, sim {q_sim[u + '.down']:.1f} packets")
for x in rep["users"]:
    print(x["name"], "down drops", x["down"]["dropped"], "queued", x["down"]["queued_at_end"])
print(r.queues[["link", "drops", "max_packets"]].to_string())
