"""The dumbbell scenario and one adapter per simulator (cdmasim, ns-2, ns-3).

Each adapter turns the same `Dumbbell` description into that simulator's
input, runs it once as a subprocess, and returns a `SimRun`: per-flow goodput
(payload bytes delivered in order / (duration - flow start)), bottleneck
drops, the whole-process wall time (time.perf_counter around
subprocess.run) and the engine-only time the simulator reports.

A simulator that is missing or only a placeholder yields a SimRun with
`available=False` and a reason; nothing is ever filled in for it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
NS3_SRC = BENCH / "ns3" / "dumbbell.cc"
NS3_BIN = BENCH / "build" / "ns3-dumbbell"
NS2_TCL = BENCH / "ns2" / "dumbbell.tcl"
ENGINE_PROBE = BENCH / "cdmasim_engine.py"

# ns-3 3.37's pkg-config files carry a broken Cflags line ("-I/usr\;"), so the
# include path and libraries are spelled out.
NS3_LIBS = ["ns3-applications", "ns3-internet", "ns3-point-to-point",
            "ns3-traffic-control", "ns3-network", "ns3-core"]


# The congestion controls that both cdmasim and ns-3 3.37 have (--variants).
CC_VARIANTS = ("newreno", "cubic", "vegas", "westwood", "bbr")


@dataclass(frozen=True)
class CcMatch:
    """One variant's settings in each simulator, chosen so that both run the
    same algorithm with the same constants (bench/README.md, "Congestion-control
    variants", explains every entry). `cdmasim` is the `[dumbbell.tcp.<cc>]`
    table; `ns3` the attribute arguments passed to bench/ns3/dumbbell.cc."""
    cdmasim: dict
    ns3: tuple


CC_MATCH = {
    "newreno": CcMatch({}, ()),
    # ns-3 3.37 TcpCubic: C 0.4, Beta 0.7, FastConvergence on (= RFC 9438 and
    # our defaults); it has no Reno-friendly region, so ours is turned off; its
    # HyStart (on by default) is Linux's ack-train/delay HyStart, ours is
    # HyStart++ (RFC 9406): both off, so slow start is the same in both.
    "cubic": CcMatch({"c": 0.4, "beta": 0.7, "fast_convergence": True,
                      "reno_friendly": False, "hystart": False},
                     ("--ns3::TcpCubic::C=0.4", "--ns3::TcpCubic::Beta=0.7",
                      "--ns3::TcpCubic::FastConvergence=true", "--ns3::TcpCubic::HyStart=false")),
    # ns-3 TcpVegas defaults alpha/beta/gamma = 2/4/1 (Linux's); ours are the
    # paper's 1/3/1: set to ns-3's for the comparison.
    "vegas": CcMatch({"alpha": 2.0, "beta": 4.0, "gamma": 1.0},
                     ("--ns3::TcpVegas::Alpha=2", "--ns3::TcpVegas::Beta=4", "--ns3::TcpVegas::Gamma=1")),
    # ns-3 3.37 TcpWestwood is Westwood (per-ACK samples) unless
    # ProtocolType=WestwoodPlus (one sample per RTT, no minimum span); its
    # Tustin filter weighs the old estimate by 0.9 (fixed in the source),
    # ours by filter_gain: set to 0.9, and our 50 ms minimum span (Linux's)
    # to 0, so that both take one sample per RTT.
    "westwood": CcMatch({"filter_gain": 0.9, "min_sample_interval": "0s"},
                        ("--ns3::TcpWestwood::ProtocolType=WestwoodPlus",
                         "--ns3::TcpWestwood::FilterType=Tustin")),
    # ns-3 TcpBbr: HighGain 2.89 (ours 2/ln 2 = 2.885: set to 2.89), cwnd gain
    # 2, BwWindowLength 10 rounds, RttWindowLength 10 s, ProbeRttDuration
    # 200 ms (= ours). ns-3's BBR turns pacing on itself when it initialises
    # (TcpBbr::InitPacingRate); EnablePacing is set as well so that the
    # arguments state what runs.
    "bbr": CcMatch({"high_gain": 2.89, "cwnd_gain": 2.0, "bw_window_rounds": 10,
                    "min_rtt_window": "10s", "probe_rtt_duration": "200ms"},
                   ("--ns3::TcpSocketState::EnablePacing=true", "--ns3::TcpBbr::HighGain=2.89",
                    "--ns3::TcpBbr::BwWindowLength=10", "--ns3::TcpBbr::RttWindowLength=+10s",
                    "--ns3::TcpBbr::ProbeRttDuration=+200ms")),
}


@dataclass(frozen=True)
class Dumbbell:
    """The scenario, identical for all three simulators."""
    flows: int
    cc: str = "newreno"
    # SACK on both sides (the --variants comparison runs with it: ns-3 3.37's
    # no-SACK recovery is unreliable, see README).
    sack: bool = False
    duration_s: float = 60.0
    spacing_s: float = 0.010
    bottleneck_mbps: int = 10
    bottleneck_delay_ms: int = 20
    access_mbps: int = 100
    access_delay_ms: int = 1
    # Packets waiting in the buffer, not counting the one being serialised.
    bottleneck_buffer_pkts: int = 100
    access_buffer_pkts: int = 1000
    mss: int = 1460
    initial_window: int = 2
    min_rto_s: float = 1.0
    # Receiver buffer (advertised window). 16 MiB rather than 1 MB: ns-3 3.37
    # crashes when a no-SACK sender reaches the receive-window edge during
    # fast recovery (see README); at this size no flow ever reaches it, and
    # ns-2 gives identical results with 1 MB or 16 MiB.
    rcv_buffer_bytes: int = 16 * 1024 * 1024
    seed: int = 1

    def start_s(self, i: int) -> float:
        return i * self.spacing_s


@dataclass
class SimRun:
    sim: str
    available: bool
    reason: str = ""
    goodput_bps: list = field(default_factory=list)
    bottleneck_drops: Optional[int] = None
    other_drops: Optional[int] = None
    engine_s: Optional[float] = None
    events: Optional[int] = None
    wall_s: Optional[float] = None
    extra: dict = field(default_factory=dict)


def _timed(cmd: list, cwd: Path = ROOT, timeout: float = 3600) -> tuple:
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    return p, time.perf_counter() - t0


def _last_line(text: str) -> str:
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1][:200] if lines else ""


def _failure_line(text: str) -> str:
    """The line that says why a run failed: a Rust panic's message (e.g. an
    algorithm still `todo!()`: "not implemented yet") rather than the
    traceback's last line when there is one."""
    for l in text.splitlines():
        if "not implemented" in l or "PanicException" in l:
            return l.strip()[:200]
    return _last_line(text)


# --------------------------------------------------------------------- ns-3

def ns3_ready() -> tuple:
    if not Path("/usr/include/ns3/core-module.h").exists():
        return False, "ns-3 headers missing (apt-get install libns3-dev)"
    if shutil.which("g++") is None:
        return False, "g++ missing"
    return True, ""


def build_ns3(force: bool = False) -> tuple:
    ok, why = ns3_ready()
    if not ok:
        return False, why
    if NS3_BIN.exists() and not force and NS3_BIN.stat().st_mtime >= NS3_SRC.stat().st_mtime:
        return True, ""
    NS3_BIN.parent.mkdir(parents=True, exist_ok=True)
    cmd = ["g++", "-O2", "-std=c++17", "-I/usr/include", "-o", str(NS3_BIN), str(NS3_SRC)]
    cmd += ["-l" + lib for lib in NS3_LIBS]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return False, "ns-3 build failed: " + _last_line(p.stderr)
    return True, ""


def ns3_command(sc: Dumbbell, extra_args: tuple = ()) -> list:
    """The ns-3 program's command line for this scenario; `extra_args` come
    last so that they override (diagnostics, e.g. --traceFlow=K)."""
    return [str(NS3_BIN), f"--flows={sc.flows}", f"--duration={sc.duration_s}",
            f"--spacing={sc.spacing_s}", f"--bottleneckQueue={sc.bottleneck_buffer_pkts}",
            f"--accessQueue={sc.access_buffer_pkts}",
            f"--bottleneckRate={sc.bottleneck_mbps}Mbps",
            f"--bottleneckDelay={sc.bottleneck_delay_ms}ms",
            f"--accessRate={sc.access_mbps}Mbps", f"--accessDelay={sc.access_delay_ms}ms",
            f"--mss={sc.mss}", f"--rcvBuf={sc.rcv_buffer_bytes}", f"--seed={sc.seed}",
            f"--ns3::TcpSocket::InitialCwnd={sc.initial_window}",
            f"--ns3::TcpSocketBase::MinRto=+{sc.min_rto_s}s",
            f"--cc={sc.cc}", f"--ns3::TcpSocketBase::Sack={str(sc.sack).lower()}",
            *CC_MATCH[sc.cc].ns3, *extra_args]


def run_ns3(sc: Dumbbell, extra_args: tuple = ()) -> SimRun:
    if not NS3_BIN.exists():
        return SimRun("ns-3", False, "ns-3 program not built")
    cmd = ns3_command(sc, extra_args)
    p, wall = _timed(cmd)
    if p.returncode != 0:
        return SimRun("ns-3", False, f"ns-3 exited {p.returncode}: {_last_line(p.stderr)}",
                      wall_s=wall)
    d = json.loads(p.stdout)
    return SimRun("ns-3", True, goodput_bps=d["goodput_bps"],
                  bottleneck_drops=d["bottleneck_drops"], other_drops=d["other_drops"],
                  engine_s=d["engine_s"], events=d["events"], wall_s=wall,
                  extra={"rx_bytes": d["rx_bytes"], "sender_state": d["sender_state"],
                         "timeouts": d["timeouts"], "fast_recoveries": d["fast_recoveries"],
                         "bottleneck_dequeued": d["bottleneck_dequeued"], "args": cmd[1:]})


# --------------------------------------------------------------------- ns-2

def ns2_ready() -> tuple:
    if shutil.which("ns") is None:
        return False, "ns-2 missing (apt-get install ns2)"
    return True, ""


def run_ns2(sc: Dumbbell) -> SimRun:
    ok, why = ns2_ready()
    if not ok:
        return SimRun("ns-2", False, why)
    if sc.cc != "newreno" or sc.sack:
        return SimRun("ns-2", False, "dumbbell.tcl is written for NewReno without SACK")
    if sc.initial_window != 2 or sc.min_rto_s != 1.0 or sc.mss != 1460:
        # dumbbell.tcl fixes these three; refuse rather than run a different scenario.
        return SimRun("ns-2", False, "dumbbell.tcl is written for IW 2, min RTO 1 s, MSS 1460")
    if (sc.bottleneck_mbps, sc.bottleneck_delay_ms, sc.access_mbps, sc.access_delay_ms) != (10, 20, 100, 1):
        return SimRun("ns-2", False, "dumbbell.tcl is written for 10Mb/20ms and 100Mb/1ms links")
    window_pkts = sc.rcv_buffer_bytes // sc.mss
    cmd = ["ns", str(NS2_TCL), str(sc.flows), repr(sc.duration_s), repr(sc.spacing_s),
           str(sc.bottleneck_buffer_pkts), str(sc.access_buffer_pkts), str(window_pkts)]
    p, wall = _timed(cmd)
    if p.returncode != 0:
        return SimRun("ns-2", False, f"ns-2 exited {p.returncode}: {_last_line(p.stderr)}",
                      wall_s=wall)
    d = json.loads(p.stdout)
    if d["sink_bytes_unexpected"]:
        return SimRun("ns-2", False, "TCPSink bytes_ not a multiple of 1500 (+40 SYN)", wall_s=wall)
    return SimRun("ns-2", True, goodput_bps=d["goodput_bps"],
                  bottleneck_drops=d["bottleneck_drops"], other_drops=d["other_drops"],
                  engine_s=d["engine_s"], events=None, wall_s=wall,
                  extra={"rx_bytes": d["rx_bytes"], "timeouts": d["timeouts"],
                         "retransmits": d["retransmits"],
                         "bottleneck_departures": d["bottleneck_departures"]})


# ------------------------------------------------------------------ cdmasim

def cdmasim_toml(sc: Dumbbell) -> str:
    """The scenario in cdmasim's dumbbell preset (keys as specified for the
    preset; adjust here if the final example differs)."""
    return f"""\
preset = "dumbbell"

[simulation]
duration = "{sc.duration_s:g}s"
seed = {sc.seed}

[dumbbell]
flows = {sc.flows}
bottleneck_rate = "{sc.bottleneck_mbps}Mbps"
bottleneck_delay = "{sc.bottleneck_delay_ms}ms"
access_rate = "{sc.access_mbps}Mbps"
access_delay = "{sc.access_delay_ms}ms"
start_spacing = "{sc.spacing_s * 1000:g}ms"
queue = {{ kind = "droptail", limit = "{sc.bottleneck_buffer_pkts}pkt" }}
access_queue = {{ kind = "droptail", limit = "{sc.access_buffer_pkts}pkt" }}

[dumbbell.tcp]
cc = "{sc.cc}"
sack = {str(sc.sack).lower()}
timestamps = false
mss = "{sc.mss}B"
initial_window = {sc.initial_window}
rcv_buffer = "{sc.rcv_buffer_bytes}B"
delayed_ack = "off"
min_rto = "{sc.min_rto_s:g}s"
""" + _cc_table(sc.cc)


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, str):
        return json.dumps(v)
    return repr(v)


def _cc_table(cc: str) -> str:
    """The matched parameters of the chosen algorithm (CC_MATCH), if any."""
    params = CC_MATCH[cc].cdmasim
    if not params:
        return ""
    lines = [f"{k} = {_toml_value(v)}" for k, v in params.items()]
    return f"\n[dumbbell.tcp.{cc}]\n" + "\n".join(lines) + "\n"


def scenario_name(sc: Dumbbell) -> str:
    """File stem of the scenario; the NewReno/no-SACK case keeps its old name."""
    if sc.cc == "newreno" and not sc.sack:
        return f"dumbbell-{sc.flows}"
    return f"dumbbell-{sc.cc}{'-sack' if sc.sack else ''}-{sc.flows}"


def find_cdmasim(explicit: Optional[str]) -> Optional[str]:
    if explicit:
        return explicit
    venv = ROOT / ".venv" / "bin" / "cdmasim"
    if venv.exists():
        return str(venv)
    return shutil.which("cdmasim")


def compile_cdmasim(python: str) -> None:
    """Bring cdmasim's bytecode up to date, as `pip install` leaves it.
    scripts/setup compiles the checkout once, but a module edited since is
    recompiled at every start under PYTHONDONTWRITEBYTECODE=1 (or a
    read-only __pycache__): result.py alone costs 8-11 ms of the N = 1
    dumbbell's whole process. `python`: the interpreter that runs cdmasim."""
    p = subprocess.run([python, "-c", "import compileall, os, sys, cdmasim; "
                        "sys.exit(0 if compileall.compile_dir(os.path.dirname(cdmasim.__file__), quiet=1) else 1)"],
                       capture_output=True, text=True, check=False)
    if p.returncode != 0:
        why = (p.stderr.strip().splitlines() or p.stdout.strip().splitlines() or ["no output"])[-1]
        print(f"bench: warning: cdmasim's bytecode could not be brought up to date ({why}); "
              "its start-up will include compiling", file=sys.stderr)


def cdmasim_python(cli: str) -> str:
    """The interpreter that belongs to the cdmasim CLI (same venv)."""
    cand = Path(cli).resolve().parent / "python"
    return str(cand) if cand.exists() else sys.executable


def _flow_goodputs(sc: Dumbbell, flows: list) -> list:
    out = []
    for i, f in enumerate(flows):
        # cdmasim's own goodput_bps divides by (last delivery - start); the
        # benchmark divides every simulator's bytes by (duration - start).
        out.append(f["bytes_delivered"] * 8.0 / (sc.duration_s - sc.start_s(i)))
    return out


def run_cdmasim(sc: Dumbbell, cli: Optional[str], workdir: Path, engine: bool = True) -> SimRun:
    if cli is None:
        return SimRun("cdmasim", False, "cdmasim not available (no `cdmasim` CLI found)")
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / f"{scenario_name(sc)}.toml"
    path.write_text(cdmasim_toml(sc))
    p, wall = _timed([cli, "run", str(path), "--json"])
    if p.returncode != 0:
        return SimRun("cdmasim", False,
                      f"cdmasim not available: `cdmasim run` exited {p.returncode}: "
                      f"{_failure_line(p.stderr)}")
    try:
        d = json.loads(p.stdout)
    except json.JSONDecodeError:
        return SimRun("cdmasim", False, "cdmasim not available: `run --json` printed no JSON")
    flows = d.get("flows") or []
    if not flows or not d.get("events"):
        return SimRun("cdmasim", False, "cdmasim not available: placeholder result (no flows/events)")
    if len(flows) != sc.flows:
        return SimRun("cdmasim", False, f"cdmasim reported {len(flows)} flows, expected {sc.flows}")
    queues = d.get("queues") or []
    bneck = [q for q in queues if q.get("link") == "r1-r2"]
    bdrops = sum(bneck[0].get("drops", {}).values()) if bneck else None
    odrops = sum(sum(q.get("drops", {}).values()) for q in queues if q.get("link") != "r1-r2")
    run = SimRun("cdmasim", True, goodput_bps=_flow_goodputs(sc, flows),
                 bottleneck_drops=bdrops, other_drops=odrops, events=d["events"], wall_s=wall,
                 extra={"rx_bytes": [f["bytes_delivered"] for f in flows],
                        "timeouts": [f.get("timeouts") for f in flows],
                        "bottleneck_queue_found": bool(bneck)})
    if engine:
        e = _cdmasim_engine(cli, path)
        run.engine_s = e.get("engine_s")
        run.extra["engine_probe"] = e
    return run


def _cdmasim_engine(cli: str, path: Path) -> dict:
    """Engine-only time: a separate process imports cdmasim and times the
    run call alone (bench/cdmasim_engine.py)."""
    p = subprocess.run([cdmasim_python(cli), str(ENGINE_PROBE), str(path)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return {"error": _last_line(p.stderr) or f"exit {p.returncode}"}
    try:
        return json.loads(p.stdout)
    except json.JSONDecodeError:
        return {"error": "engine probe printed no JSON"}


def machine() -> dict:
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {"nproc": os.cpu_count(), "loadavg": load}
