"""Where the instructions go: callgrind's exclusive counts of the
dumbbell's engine, of a Table II cell and of `pcap analyze`, grouped
into parts, each per event, per packet-hop or per packet. The tables of
docs/engine.md ("Where the instructions go", "What the compiled hop
path holds") are this script's output.

    python bench/ledger.py                    # dumbbell N = 1, the Table II cell, pcap analyze
    python bench/ledger.py --only dumbbell --flows 10

The examples are built with line tables (into target/ledger; the code is
the release build's, instruction for instruction) so that callgrind can
say which source file each instruction was compiled from: a function of
the network's loop holds the link's code inlined into it, and the file
tells the loop's own instructions from the link's. The dumbbell and the
cell (bench/instructions.py's) are split first by function (the
engine's parts), then their hop path by file; the capture analysis by
file only, as most of it (77 %) is inlined into one function. The
capture is the shipped dumbbell example's (made by the installed
`cdmasim`, as bench/instructions.py makes it).

Output: the tables, and bench/out/ledger.json (written whole). A program
that fails stops with one line and exit 1; a bad option or a missing
program, exit 2.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import instructions  # noqa: E402
from instructions import (CELL_WHAT, PCAP_WHAT, ROOT, Failed, cell_scenario, cell_summary, counted,  # noqa: E402
                          dumbbell_capture, each, last_words, run)

TARGET = ROOT / "target" / "ledger"
PROGRAMS = [("valgrind", "valgrind"), ("callgrind_annotate", "callgrind_annotate (valgrind)"), ("cargo", "cargo")]
EXAMPLES = TARGET / "release" / "examples"
# Every packet of dumbbell_speed's scenario crosses three links: its
# sender's access link, the bottleneck and its receiver's access link.
DUMBBELL_HOPS = 3
DUMBBELL_LINE = re.compile(r"events (\d+), packets (\d+)")

# The engine's parts, by the function an instruction is compiled into
# (first match; a trait method's name starts with "<Type as Trait>").
# `VecDeque::push_back`, out of line, is the wire list's in these
# scenarios (every caller is `Network::forward`), not any deque's.
ENGINE_PARTS = [
    ("the cdma2000 cell's own functions (cdma2000/)", r"^<?cdmasim_core::cdma2000::"),
    ("the hop path", r"^cdmasim_core::network::Network::(forward|on_hop_timer|hand_on)|^<?cdmasim_core::network::kinds::AnyHop"
                     r"|^<?cdmasim_core::net::(link|queue)::|^alloc::collections::vec_deque::VecDeque<T,A>::push_back_mut"),
    ("TCP", r"^<?cdmasim_core::tcp::"),
    ("the event queue", r"^cdmasim_core::engine::queue::EventQueue<E>::|^alloc::collections::binary_heap::BinaryHeap<T,A>::"),
    ("the endpoints' pump", r"^cdmasim_core::sim::world::Hosts::pump"),
    ("dispatch", r"^cdmasim_core::sim::run_world('\d+)?$"),
    ("allocation (malloc, free)", r"^(_int_)?(malloc|free|realloc|calloc)|^unlink_chunk|^malloc_consolidate"),
    ("the rest: reading the scenario, building the network, the results", r""),
]
# The hop path's instructions, by the source file they come from.
HOP_FILES = [
    ("the network's loop (network/mod.rs)", r"/network/mod\.rs$"),
    ("dispatch by hop kind (network/kinds.rs)", r"/network/kinds\.rs$"),
    ("the endpoints' side, inlined (sim/, net/headers.rs)", r"/sim/|/net/headers\.rs$"),
    ("the link, its queue and meters, the route (net/)", r"/net/|/engine/rng\.rs$"),
    ("slice bounds checks (std)", r"/slice/index\.rs$"),
    ("VecDeque and Vec (std)", r"/collections/vec_deque/|/raw_vec/|/alloc/src/vec/|/core/src/ptr/"),
    ("Option, comparisons, time (std, engine/time.rs)", r""),
]
# pcap analyze's instructions, by source file.
PCAP_FILES = [
    ("reading records (pcap/reader.rs)", r"/pcap/reader\.rs$"),
    ("decoding headers, flag tests, checksums (pcap/decode.rs, checksum.rs)", r"/pcap/(decode|checksum)\.rs$"),
    ("tcptrace's counters (analysis/conn.rs, direction.rs, loss.rs)", r"/analysis/(conn|direction|loss)\.rs$"),
    ("sequence space: retransmissions, RTT (analysis/seqspace.rs)", r"/analysis/seqspace\.rs$"),
    ("finding the connection, the loop (analysis/table.rs, mod.rs)", r"/analysis/(table|mod)\.rs$"),
    ("the report and its JSON", r"/analysis/(report|model|series)\.rs$|serde"),
    ("bounds checks, byte order, comparisons, iterators, hash tables (std)", r"/rustc/|/rust/deps/"),
    ("other (start-up, allocation, output)", r""),
]
ANNOTATE_LINE = re.compile(r"^\s*([\d,]+)\s+(\S.*?):(\S.*?)(?: \[.*\])?\s*$")


def costs(annotated: str) -> list:
    """(instructions, source file, function) of every line of
    `callgrind_annotate --auto=no --show-percs=no` that names one."""
    rows = []
    for line in annotated.splitlines():
        m = ANNOTATE_LINE.match(line)
        if m and "PROGRAM TOTALS" not in line:
            rows.append((int(m.group(1).replace(",", "")), m.group(2), m.group(3)))
    if not rows:
        raise Failed("callgrind_annotate listed no function")
    return rows


def split(rows: list, parts: list, key) -> dict:
    """The rows of each part: each row goes to the first part whose
    pattern matches key(row); rows that match none are left out."""
    out = {name: [] for name, _ in parts}
    for row in rows:
        for name, pattern in parts:
            if re.search(pattern, key(row)):
                out[name].append(row)
                break
    return out


def totals(parts: dict) -> dict:
    """Instructions by part, of `split`'s rows."""
    return {name: sum(r[0] for r in rs) for name, rs in parts.items()}


def group(rows: list, parts: list, key) -> dict:
    """Instructions by part: `split`, summed."""
    return totals(split(rows, parts, key))


def profile(cmd: list, work: Path) -> tuple:
    """(rows of costs, stdout) of `cmd` run under callgrind."""
    out = work / f"callgrind.{Path(str(cmd[0])).name}"
    _, stdout = counted(cmd, str(out))
    p = subprocess.run(["callgrind_annotate", "--auto=no", "--show-percs=no", "--threshold=100", str(out)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise Failed(f"callgrind_annotate exited {p.returncode}: {last_words(p.stderr)}")
    return costs(p.stdout), stdout


def engine(what: str, rows: list, events: int, packet_hops: int | None) -> dict:
    """An engine's run split by part (function), its hop path by file."""
    parts = split(rows, ENGINE_PARTS, key=lambda r: r[2])
    return {"what": what, "instructions": sum(r[0] for r in rows), "events": events, "packet_hops": packet_hops,
            "parts": totals(parts),
            "hop_path": group(parts["the hop path"], HOP_FILES, key=lambda r: r[1])}


def dumbbell(flows: int, work: Path) -> dict:
    rows, out = profile([EXAMPLES / "dumbbell_speed", flows], work)
    m = DUMBBELL_LINE.search(out)
    if m is None:
        raise Failed("dumbbell_speed printed no count of events and packets")
    return engine(f"dumbbell, N = {flows}", rows, int(m.group(1)), int(m.group(2)) * DUMBBELL_HOPS)


def cell(work: Path) -> dict:
    """The Table II cell bench/instructions.py counts (no series sampled).
    Its packets cross a radio hop, so only events are a unit here."""
    rows, out = profile([EXAMPLES / "run_scenario", cell_scenario(work)], work)
    return engine(CELL_WHAT, rows, cell_summary(out)["events"], None)


def pcap(work: Path, cli: str) -> dict:
    capture = dumbbell_capture(work, cli)
    rows, out = profile([EXAMPLES / "pcap_json", capture], work)
    try:
        packets = json.loads(out)["packets_seen"]
    except (json.JSONDecodeError, KeyError):
        raise Failed("pcap_json printed no report")
    return {"what": PCAP_WHAT, "instructions": sum(r[0] for r in rows),
            "packets": packets, "parts": group(rows, PCAP_FILES, key=lambda r: r[1])}


def table(title: str, parts: dict, per: list) -> str:
    """Millions of instructions by part, and each per unit of `per`
    ((name, count) pairs)."""
    head = "| " + title + " | instructions | " + " | ".join(name for name, _ in per) + " |"
    lines = [head, "|---" * (2 + len(per)) + "|"]
    for name, n in list(parts.items()) + [("all", sum(parts.values()))]:
        lines.append(f"| {name} | {n / 1e6:,.1f} M | " + " | ".join(f"{n / c:,.0f}" for _, c in per) + " |")
    return "\n".join(lines)


def tables(results: list) -> str:
    out = []
    for r in results:
        if "hop_path" in r:
            per = [("an event", r["events"])]
            if r["packet_hops"]:
                per.append(("a packet-hop", r["packet_hops"]))
            out.append(f"{r['what']}: {r['instructions'] / 1e6:,.1f} M instructions, "
                       + ", ".join(f"{c:,} {unit.split()[-1]}s" for unit, c in per) + "\n")
            parts = {k: v for k, v in r["parts"].items() if v}
            out.append(table("part (by function)", parts, per) + "\n")
            out.append(table("the hop path (by source file)", r["hop_path"], per[-1:]) + "\n")
        else:
            out.append(f"{r['what']}: {r['instructions'] / 1e6:,.1f} M instructions, {r['packets']:,} packets\n")
            out.append(table("part (by source file)", r["parts"], [("a packet", r["packets"])]) + "\n")
    return "\n".join(out)


def build() -> None:
    """The examples with line tables, apart from the release build."""
    instructions.build({"CARGO_PROFILE_RELEASE_DEBUG": "line-tables-only", "CARGO_TARGET_DIR": str(TARGET)})


def measure(only: set, flows: list, cli: str | None) -> list:
    build()
    return each("ledger", only, flows, cli, dumbbell, cell, pcap)


def main(argv=None) -> int:
    return run("ledger", __doc__, ["dumbbell", "cell", "pcap"], "1", lambda only: PROGRAMS, measure, tables, argv)


if __name__ == "__main__":
    sys.exit(main())
