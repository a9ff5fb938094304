"""Packet-capture analysis: tcptrace-compatible TCP statistics, loss periods
(Lee §3.3), the throughput model of Lee eq. (1), and one-way delay
from captures at both ends (Liu et al. §4).

    >>> r = cdmasim.pcap.analyze("trace.pcap")
    >>> r.connections          # one row per connection and direction
    >>> r.loss_periods, r.loss_ccdf, r.model, r.model_points
    >>> r = cdmasim.pcap.analyze("sender.pcap", peer="receiver.pcap")
    >>> r.owd, r.owd_samples   # excess one-way delay, end-to-end loss

The per-packet work happens in the Rust core (crates/cdmasim-core/src/pcap);
this module only shapes its report into pandas DataFrames.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable

from . import _core, _units
from ._units import count, flag, positive
from .errors import InputError

# typing.TYPE_CHECKING without importing typing (3 ms of `cdmasim pcap
# analyze`'s start-up), as in result.py.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class PcapResult:
    """Tables of one analysis. `report` is the raw dict from the core."""

    def __init__(self, report: dict[str, Any], owd: dict[str, Any] | None = None):
        import pandas as pd

        self.report = report
        self.warnings = list(report.get("warnings", []))
        rows, periods = [], []
        for c in report["connections"]:
            for side, (src, sport, dst, dport) in (
                ("a2b", (c["host_a"], c["port_a"], c["host_b"], c["port_b"])),
                ("b2a", (c["host_b"], c["port_b"], c["host_a"], c["port_a"])),
            ):
                d = dict(c[side])
                lp = d.pop("loss_periods")
                row = {
                    "conn": c["index"], "dir": side, "src": src, "sport": sport, "dst": dst, "dport": dport,
                    "complete": c["complete"], "conn_first_s": c["first_packet_us"] / 1e6,
                    "conn_last_s": c["last_packet_us"] / 1e6, "elapsed_s": c["elapsed_us"] / 1e6,
                    "loss_periods": len(lp),
                }
                row.update(d)
                rows.append(row)
                for p in lp:
                    periods.append({
                        "conn": c["index"], "dir": side, "start_s": p["start_us"] / 1e6, "end_s": p["end_us"] / 1e6,
                        "duration_s": (p["end_us"] - p["start_us"]) / 1e6, "rexmits": p["rexmits"],
                    })
        self.connections = pd.DataFrame(rows)
        self.loss_periods = pd.DataFrame(periods, columns=["conn", "dir", "start_s", "end_s", "duration_s", "rexmits"])
        self.loss_ccdf = pd.DataFrame(report["loss_ccdf"], columns=["rexmits", "ccdf"])
        m = report.get("model")
        self.model = None if m is None else {k: m[k] for k in ("c", "b", "mtu", "rms_rel_error")}
        self.model_points = pd.DataFrame(
            [] if m is None else m["points"], columns=["conn", "dir", "throughput_bps", "rtt_s", "p", "predicted_bps"])
        self.owd = None
        self.owd_samples = None
        if owd is not None:
            dirs = [{k: v for k, v in d.items() if k != "excess"} for d in owd["directions"]]
            self.owd = pd.DataFrame(dirs)
            samples = []
            for i, d in enumerate(owd["directions"]):
                for t, e in d["excess"]:
                    samples.append((i, d["src"], d["sport"], d["dst"], d["dport"], t / 1e6, e / 1000.0))
            self.owd_samples = pd.DataFrame(
                samples, columns=["direction", "src", "sport", "dst", "dport", "send_s", "excess_ms"])
        self.series = report.get("series")


def _check_file(path, what="capture"):
    """A capture's path, checked before the work: it exists (the core
    reads only a regular file, and says so of anything else)."""
    path = _units.path(path, what)
    if not os.path.lexists(path):
        raise InputError(f"{path}: no such {what} file")
    return path


def analyze_raw(path: str | os.PathLike, peer: str | os.PathLike | None = None, series: bool = False,
                checksums: bool = True, mtu: float = 1500.0, b: float = 2.0,
                fit_connections: Iterable[int] | None = None,
                fit_min_packets: int = 100) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The core's report dicts: (report, owd report or None)."""
    path = _check_file(path)
    peer = None if peer is None else _check_file(peer, "peer capture")
    mtu, b = positive(mtu, "mtu"), positive(b, "b (packets per ACK)")
    series, checksums = flag(series, "series"), flag(checksums, "checksums")
    if fit_connections is not None:
        if isinstance(fit_connections, (str, bytes, int)) or not hasattr(fit_connections, "__iter__"):
            raise InputError(f"fit_connections must be a list of connection numbers, got {fit_connections!r}")
        fit_connections = [count(i, "fit_connections", 0, 2**32) for i in fit_connections]
    fit_min_packets = count(fit_min_packets, "fit_min_packets", 0, 2**63)
    try:
        report = json.loads(_core.pcap_analyze_json(path, series, checksums, mtu, b, fit_connections, fit_min_packets))
        owd = None
        if peer is not None:
            owd = json.loads(_core.pcap_owd_json(path, peer))
    except ValueError as e:
        raise InputError(str(e)) from None
    return report, owd


def analyze(path: str | os.PathLike, peer: str | os.PathLike | None = None, series: bool = False,
            checksums: bool = True, mtu: float = 1500.0, b: float = 2.0, fit_connections: Iterable[int] | None = None,
            fit_min_packets: int = 100) -> PcapResult:
    """Analyse a pcap/pcapng capture; with `peer`, also match its packets
    against a capture of the same connections taken at the other end.
    The throughput model (Lee eq. 1) is fitted to the connections numbered
    in `fit_connections` (all if None) that carry at least
    `fit_min_packets` data packets (tiny control connections left out)."""
    report, owd = analyze_raw(path, peer, series, checksums, mtu, b, fit_connections, fit_min_packets)
    return PcapResult(report, owd)
