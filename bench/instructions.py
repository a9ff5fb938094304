"""Instructions, not seconds: cdmasim and its reference programs counted
by callgrind on the same work, so that the ratio does not depend on how
busy the machine is.

    python bench/instructions.py                         # everything below
    python bench/instructions.py --only dumbbell --flows 1,10

- dumbbell: `dumbbell_speed N` (the engine's yardstick: 60 s, NewReno, a
  10 Mb/s 20 ms bottleneck with 100-packet buffers) against ns-2.35 on
  bench/ns2/dumbbell.tcl with the same links, buffers, TCP and receiver
  window;
- cell: one cell of Paliwal et al.'s Table II (T_B = 8 s, T_D = 5 s,
  220 s, 10 x 10 mobiles, RED at the BSC), the scenario bench/paliwal.py
  times, in `run_scenario` against paliwal_ns2.tcl;
- pcap: `pcap_json` against `tcptrace -l -r -n` on one capture of the
  shipped dumbbell example (`cdmasim run examples/dumbbell.toml --pcap`).

ns-2 is counted whole and less its start-up (a run of the same scenario
for 1 ms: the Tcl interpreter, its scripts and the topology), so that
both the process a sweep pays for and its events' work are compared;
cdmasim is counted whole, its start-up (reading the scenario, building
the network) against it. `pcap analyze` and tcptrace are counted whole. Output: a table, and bench/out/instructions.json.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

import paliwal  # noqa: E402

EXAMPLES = ROOT / "target" / "release" / "examples"
NS2_DUMBBELL = BENCH / "ns2" / "dumbbell.tcl"
# dumbbell_speed's receiver buffer (1 MiB) in ns-2's window_ of 1460-byte segments.
DUMBBELL_WINDOW = (1 << 20) // 1460
REFS = re.compile(r"^==\d+== I\s+refs:\s+([\d,]+)\s*$", re.M)


def instructions(stderr: str) -> int:
    """The total callgrind prints ("I   refs: 1,234"); an error if it
    printed none (a program that did not run is not a zero)."""
    m = REFS.search(stderr)
    if m is None:
        raise ValueError("callgrind printed no instruction count")
    return int(m.group(1).replace(",", ""))


def counted(cmd: list, cwd: Path = ROOT) -> int:
    """Instructions `cmd` executes under callgrind; it must exit 0."""
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
                       cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0:
        tail = (p.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise RuntimeError(f"{' '.join(map(str, cmd))}: exited {p.returncode}: {tail}")
    return instructions(p.stderr)


def reference(name: str, run: list, startup: list | None) -> dict:
    """A reference's instructions, whole and, given the command of its
    start-up, without it."""
    whole = counted(run)
    start = counted(startup) if startup else 0
    return {"reference": name, "reference_whole": whole, "reference_startup": start}


def ns2_dumbbell(flows: int, duration: float) -> list:
    return ["ns", str(NS2_DUMBBELL), str(flows), repr(duration), "0.01", "100", "1000", str(DUMBBELL_WINDOW)]


def dumbbell(flows: int) -> dict:
    ours = counted([EXAMPLES / "dumbbell_speed", str(flows)])
    ref = reference("ns-2.35", ns2_dumbbell(flows, 60.0), ns2_dumbbell(flows, 0.001))
    return {"what": f"dumbbell, N = {flows}", "cdmasim": ours, **ref}


def cell(work: Path) -> dict:
    case = {"sch": "bursts", "burst": 8.0, "gap": 5.0, "duration": 220.0, "m": 10, "n": 10,
            "queue": "red", "seed": 1, "topo": "flat"}
    scen = work / "cell.toml"
    scen.write_text(paliwal.cdmasim_toml(case))
    ours = counted([EXAMPLES / "run_scenario", scen])
    ref = reference("ns-2.35", paliwal.ns2_command(case), paliwal.ns2_command(dict(case, duration=0.001)))
    return {"what": "Table II cell, 8 s x 5 s", "cdmasim": ours, **ref}


def pcap(work: Path, cli: str) -> dict:
    out = work / "pcap"
    p = subprocess.run([cli, "run", str(ROOT / "examples" / "dumbbell.toml"), "--pcap", str(out), "--quiet"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"cdmasim run --pcap exited {p.returncode}: {p.stderr.strip()}")
    capture = out / "r1-r2.pcap"
    ours = counted([EXAMPLES / "pcap_json", capture])
    ref = reference("tcptrace -l -r -n", ["tcptrace", "-l", "-r", "-n", capture], None)
    return {"what": "pcap analyze, the dumbbell example's r1-r2 capture", "cdmasim": ours, **ref}


def build() -> None:
    cmd = ["cargo", "build", "-q", "--release", "-p", "cdmasim-core",
           "--example", "dumbbell_speed", "--example", "run_scenario", "--example", "pcap_json"]
    if subprocess.run(cmd, cwd=ROOT).returncode != 0:
        sys.exit("instructions: cargo build of the examples failed")


def missing(only: set, cli: str | None) -> str | None:
    """Why the benchmark cannot run, or None."""
    needs = [("valgrind", "valgrind"), ("cargo", "cargo")]
    if only & {"dumbbell", "cell"}:
        needs.append(("ns", "ns-2 (apt-get install ns2)"))
    if "pcap" in only:
        needs.append(("tcptrace", "tcptrace (apt-get install tcptrace)"))
    for exe, name in needs:
        if shutil.which(exe) is None:
            return f"{name} is not installed"
    if "pcap" in only and cli is None:
        return "no cdmasim CLI (.venv/bin/cdmasim or PATH) to make the capture"
    return None


def table(rows: list) -> str:
    """Millions of instructions; ratios reference / cdmasim, whole and
    (where a start-up was counted) the reference's events alone."""
    lines = ["| work | cdmasim | reference | whole | less start-up | ratio, whole | ratio, events |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        whole, start, ours = r["reference_whole"], r["reference_startup"], r["cdmasim"]
        less, ev = (f"{(whole - start) / 1e6:,.1f} M", f"{(whole - start) / ours:.1f}x") if start else ("", "")
        lines.append(f"| {r['what']} | {ours / 1e6:,.1f} M | {r['reference']} | {whole / 1e6:,.1f} M "
                     f"| {less} | {whole / ours:.1f}x | {ev} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="dumbbell,cell,pcap", help="subset of dumbbell,cell,pcap")
    ap.add_argument("--flows", default="1,10,100", help="dumbbell flow counts, comma-separated")
    ap.add_argument("--out", default=str(BENCH / "out"), help="directory for instructions.json")
    a = ap.parse_args(argv)
    only = {w.strip() for w in a.only.split(",") if w.strip()}
    if not only or not only <= {"dumbbell", "cell", "pcap"}:
        print(f"instructions: --only: '{a.only}' is not a subset of dumbbell,cell,pcap", file=sys.stderr)
        return 2
    try:
        flows = [int(f) for f in a.flows.split(",")]
    except ValueError:
        flows = []
    if not flows or min(flows) < 1:
        print(f"instructions: --flows: '{a.flows}' is not a list of positive integers", file=sys.stderr)
        return 2
    venv_cli = ROOT / ".venv" / "bin" / "cdmasim"
    cli = str(venv_cli) if venv_cli.exists() else shutil.which("cdmasim")
    why = missing(only, cli)
    if why:
        print(f"instructions: {why}", file=sys.stderr)
        return 2
    build()
    rows = []
    with tempfile.TemporaryDirectory(prefix="cdmasim-instructions-") as tmp:
        work = Path(tmp)
        if "dumbbell" in only:
            for n in flows:
                print(f"instructions: dumbbell N = {n} ...", file=sys.stderr)
                rows.append(dumbbell(n))
        if "cell" in only:
            print("instructions: Table II cell ...", file=sys.stderr)
            rows.append(cell(work))
        if "pcap" in only:
            print("instructions: pcap analyze ...", file=sys.stderr)
            rows.append(pcap(work, cli))
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    tmp_json = out / "instructions.json.tmp"
    tmp_json.write_text(json.dumps(rows, indent=1) + "\n")
    tmp_json.replace(out / "instructions.json")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
