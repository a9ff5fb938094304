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

cdmasim's side is the compiled core (the example programs above), not
the `cdmasim` command: Python's start-up (22-33 ms, bench/README.md) is
in neither count. ns-2 is counted whole and less its start-up (a run of
the same scenario for 1 ms: the Tcl interpreter, its scripts and the
topology), so that both the program a sweep pays for and its events'
work are compared; cdmasim is counted whole, its start-up (reading the
scenario, building the network) against it. The two simulators' goodputs
are printed beside the counts: they say the runs did the same work. The
capture is made by the installed `cdmasim` (it is only the input);
`pcap_json` and tcptrace are counted whole.

Output: a table, and bench/out/instructions.json (written whole). A
program that fails stops the benchmark with one line and exit 1; a bad
option or a missing program, exit 2.
"""

from __future__ import annotations

import argparse
import json
import os
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
# Paliwal et al.'s Table II cell that bench/paliwal.py times.
CELL = {"sch": "bursts", "burst": 8.0, "gap": 5.0, "duration": 220.0, "m": 10, "n": 10,
        "queue": "red", "seed": 1, "topo": "flat"}
REFS = re.compile(r"^==\d+== I\s+refs:\s+([\d,]+)\s*$", re.M)
GOODPUT = re.compile(r"goodput ([\d.]+) Mb/s")
# A callgrind run of ns-2 at N = 100 takes about 3 minutes here.
TIMEOUT_S = 3600


class Failed(Exception):
    """A program that did not run as asked: the one line to print."""


def instructions(stderr: str) -> int:
    """The total callgrind prints ("I   refs: 1,234"); an error if it
    printed none (a program that did not run is not a zero)."""
    m = REFS.search(stderr)
    if m is None:
        raise ValueError("callgrind printed no instruction count")
    return int(m.group(1).replace(",", ""))


def last_words(stderr: str) -> str:
    """The program's last line on stderr, without callgrind's own."""
    lines = [ln for ln in stderr.strip().splitlines() if ln.strip() and not ln.startswith("==")]
    return lines[-1] if lines else "(nothing on stderr)"


def counted(cmd: list, profile: str = "/dev/null") -> tuple:
    """(instructions, stdout) of `cmd` under callgrind, its profile written
    to `profile`; it must exit 0."""
    name = Path(str(cmd[0])).name
    try:
        p = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={profile}", *map(str, cmd)],
                           cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise Failed(f"{name} ran past {TIMEOUT_S} s under callgrind")
    if p.returncode != 0:
        raise Failed(f"{name} exited {p.returncode}: {last_words(p.stderr)}")
    try:
        return instructions(p.stderr), p.stdout
    except ValueError as e:
        raise Failed(f"{name}: {e}")


def ns2_json(stdout: str, what: str) -> dict:
    """ns-2's printed result, refused if its sinks counted odd bytes (as
    bench/sims.py and bench/paliwal.py refuse it)."""
    try:
        d = json.loads(stdout)
    except json.JSONDecodeError:
        raise Failed(f"ns-2 printed no JSON for {what}")
    if d.get("sink_bytes_unexpected"):
        raise Failed(f"ns-2's sinks counted bytes that are not whole packets for {what}")
    return d


def reference(name: str, run: list, startup: list | None) -> tuple:
    """A reference's count, whole and (given its start-up's command) its
    start-up's, None where none was counted; and its stdout."""
    whole, out = counted(run)
    start = counted(startup)[0] if startup else None
    return {"reference": name, "reference_whole": whole, "reference_startup": start}, out


def ns2_dumbbell(flows: int, duration: float) -> list:
    return ["ns", NS2_DUMBBELL, flows, repr(duration), "0.01", "100", "1000", DUMBBELL_WINDOW]


def dumbbell(flows: int, work: Path) -> dict:
    ours, out = counted([EXAMPLES / "dumbbell_speed", flows])
    m = GOODPUT.search(out)
    if m is None:
        raise Failed("dumbbell_speed printed no goodput")
    ref, ref_out = reference("ns-2.35", ns2_dumbbell(flows, 60.0), ns2_dumbbell(flows, 0.001))
    d = ns2_json(ref_out, f"the dumbbell at N = {flows}")
    return {"what": f"dumbbell, N = {flows}", "cdmasim": ours, **ref,
            "goodput_bps": float(m.group(1)) * 1e6, "reference_goodput_bps": sum(d["goodput_bps"])}


CELL_WHAT = "Table II cell, 8 s x 5 s"


def cell_scenario(work: Path) -> Path:
    """The Table II cell's scenario, written into `work`."""
    scen = work / "cell.toml"
    scen.write_text(paliwal.cdmasim_toml(CELL))
    return scen


def cell_summary(stdout: str) -> dict:
    """`run_scenario`'s summary of the cell, with its flows and events."""
    try:
        summary = json.loads(stdout)
    except json.JSONDecodeError:
        summary = {}
    if not isinstance(summary, dict) or not {"flows", "events"} <= summary.keys():
        raise Failed("run_scenario printed no summary for the Table II cell")
    return summary


def cell(work: Path) -> dict:
    ours, out = counted([EXAMPLES / "run_scenario", cell_scenario(work)])
    flows = cell_summary(out)["flows"]
    ref, ref_out = reference("ns-2.35", paliwal.ns2_command(CELL), paliwal.ns2_command(dict(CELL, duration=0.001)))
    d = ns2_json(ref_out, "the Table II cell")
    goodput = sum(f["bytes_delivered"] for f in flows) * 8 / CELL["duration"]
    return {"what": CELL_WHAT, "cdmasim": ours, **ref,
            "goodput_bps": goodput, "reference_goodput_bps": sum(d["goodput_bps"])}


PCAP_WHAT = "pcap analyze, the dumbbell example's r1-r2 capture"


def dumbbell_capture(work: Path, cli: str) -> Path:
    """The shipped dumbbell example's bottleneck capture (10 flows, 60 s;
    99,766 packets), made by the installed `cdmasim` in `work`."""
    out = work / "pcap"
    try:
        p = subprocess.run([cli, "run", str(ROOT / "examples" / "dumbbell.toml"), "--pcap", str(out), "--quiet"],
                           capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise Failed(f"cdmasim run --pcap ran past {TIMEOUT_S} s")
    if p.returncode != 0:
        raise Failed(f"cdmasim run --pcap exited {p.returncode}: {last_words(p.stderr)}")
    return out / "r1-r2.pcap"


def pcap(work: Path, cli: str) -> dict:
    capture = dumbbell_capture(work, cli)
    ours, _ = counted([EXAMPLES / "pcap_json", capture])
    ref, _ = reference("tcptrace -l -r -n", ["tcptrace", "-l", "-r", "-n", capture], None)
    return {"what": PCAP_WHAT, "cdmasim": ours, **ref}


def build(env: dict | None = None) -> None:
    """The three example programs, in release mode (`env`: cargo's
    settings beside the environment's)."""
    cmd = ["cargo", "build", "-q", "--release", "-p", "cdmasim-core",
           "--example", "dumbbell_speed", "--example", "run_scenario", "--example", "pcap_json"]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=dict(os.environ, **(env or {})))
    if p.returncode != 0:
        raise Failed(f"cargo build of the examples exited {p.returncode}: {last_words(p.stderr)}")


def needs(only: set) -> list:
    """The programs this benchmark runs, as (command, name to install)."""
    programs = [("valgrind", "valgrind"), ("cargo", "cargo")]
    if only & {"dumbbell", "cell"}:
        programs.append(("ns", "ns-2 (apt-get install ns2)"))
    if "pcap" in only:
        programs.append(("tcptrace", "tcptrace (apt-get install tcptrace)"))
    return programs


def missing(programs: list, capture: bool, cli: str | None) -> str | None:
    """Why a benchmark cannot run: one of `programs` is not installed, or
    it makes a capture (`capture`) and there is no `cdmasim` to make it.
    None if it can."""
    for exe, name in programs:
        if shutil.which(exe) is None:
            return f"{name} is not installed"
    if capture and cli is None:
        return "no cdmasim CLI (.venv/bin/cdmasim or PATH) to make the capture"
    return None


def table(rows: list) -> str:
    """Millions of instructions; ratios reference / cdmasim, of the whole
    programs and (where its start-up was counted) of the reference less
    its start-up; the goodputs, which say the two did the same work."""
    lines = ["| work | cdmasim | reference | whole | less start-up | ratio, whole | ratio, less start-up "
             "| goodput, cdmasim / reference |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        whole, start, ours = r["reference_whole"], r["reference_startup"], r["cdmasim"]
        less, ev = ("", "") if start is None else (f"{(whole - start) / 1e6:,.1f} M", f"{(whole - start) / ours:.1f}x")
        good = (f"{r['goodput_bps'] / 1e6:.3f} / {r['reference_goodput_bps'] / 1e6:.3f} Mb/s"
                if "goodput_bps" in r else "")
        lines.append(f"| {r['what']} | {ours / 1e6:,.1f} M | {r['reference']} | {whole / 1e6:,.1f} M "
                     f"| {less} | {whole / ours:.1f}x | {ev} | {good} |")
    return "\n".join(lines)


def each(prog: str, only: set, flows: list, cli: str | None, dumbbell, cell, pcap) -> list:
    """The rows of each work asked for, in order, made in one temporary
    folder: `dumbbell(n, work)` at each flow count, `cell(work)`,
    `pcap(work, cli)`; each announced on stderr."""
    rows = []
    with tempfile.TemporaryDirectory(prefix=f"cdmasim-{prog}-") as tmp:
        work = Path(tmp)
        for n in flows if "dumbbell" in only else []:
            print(f"{prog}: dumbbell N = {n} ...", file=sys.stderr)
            rows.append(dumbbell(n, work))
        if "cell" in only:
            print(f"{prog}: Table II cell ...", file=sys.stderr)
            rows.append(cell(work))
        if "pcap" in only:
            print(f"{prog}: pcap analyze ...", file=sys.stderr)
            rows.append(pcap(work, cli))
    return rows


def measure(only: set, flows: list, cli: str | None) -> list:
    build()
    return each("instructions", only, flows, cli, dumbbell, cell, pcap)


def flow_counts(text: str) -> list | None:
    """`--flows`: a comma-separated list of positive integers, else None."""
    try:
        flows = [int(f) for f in text.split(",")]
    except ValueError:
        return None
    return flows if flows and min(flows) >= 1 else None


def cdmasim_cli() -> str | None:
    """The checkout's `cdmasim` command, else the one on PATH."""
    venv_cli = ROOT / ".venv" / "bin" / "cdmasim"
    return str(venv_cli) if venv_cli.exists() else shutil.which("cdmasim")


def write_whole(path: Path, data) -> None:
    """`data` as JSON at `path`, written whole or not at all: into a
    temporary file of our own beside it, then renamed over it."""
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
        os.chmod(tmp, 0o644)    # as any file this benchmark writes, not mkstemp's 0o600
        with os.fdopen(fd, "w") as f:
            f.write(json.dumps(data, indent=1) + "\n")
        os.replace(tmp, path)
    except OSError as e:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise Failed(f"{path}: {e.strerror}")


def options(prog: str, doc: str, kinds: list, flows: str, argv) -> tuple:
    """(the kinds of work asked for, the dumbbell's flow counts, the output
    folder) from the command line, or an error line (exit 2)."""
    ap = argparse.ArgumentParser(prog=prog, description=doc.splitlines()[0])
    ap.add_argument("--only", default=",".join(kinds), help="subset of " + ",".join(kinds))
    ap.add_argument("--flows", default=flows, help="dumbbell flow counts, comma-separated")
    ap.add_argument("--out", default=str(BENCH / "out"), help=f"directory for {prog}.json")
    a = ap.parse_args(argv)
    only = {w.strip() for w in a.only.split(",") if w.strip()}
    if not only or not only <= set(kinds):
        raise Failed(f"--only: '{a.only}' is not a subset of " + ",".join(kinds))
    counts = flow_counts(a.flows)
    if counts is None:
        raise Failed(f"--flows: '{a.flows}' is not a list of positive integers")
    return only, counts, Path(a.out)


def make_out(out: Path) -> None:
    """Make the output folder (after every other check: a run that cannot
    start leaves nothing behind), or an error line (exit 2)."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise Failed(f"--out: {out}: {e.strerror}")


def run(prog: str, doc: str, kinds: list, flows: str, programs, measure, show, argv) -> int:
    """The command line of the benchmarks that count instructions: check
    the options and `programs(only)` (exit 2, nothing made), make the
    output folder, `measure(only, flows, cli)`, write its rows whole to
    PROG.json and print `show(rows)`; a program that fails, exit 1."""
    try:
        only, counts, out = options(prog, doc, kinds, flows, argv)
        cli = cdmasim_cli()
        why = missing(programs(only), "pcap" in only, cli)
        if why:
            raise Failed(why)
        make_out(out)
    except Failed as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    try:
        rows = measure(only, counts, cli)
        write_whole(out / f"{prog}.json", rows)
    except Failed as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 1
    print(show(rows))
    return 0


def main(argv=None) -> int:
    return run("instructions", __doc__, ["dumbbell", "cell", "pcap"], "1,10,100", needs, measure, table, argv)


if __name__ == "__main__":
    sys.exit(main())
