"""Fingerprints of the simulator's results, for refactors that must not
change them: every runnable example, each with a sampled run (every hop
kind's series), the IS-2000 preset, a capture of the dumbbell; per run the
SHA-256 of summary.json, of the series (names and float64 bytes), of the
drop log and of the pcap files, and every result table's column names and
dtypes.

    python bench/fingerprints.py > before.txt
    ... change the code, rebuild ...
    python bench/fingerprints.py > after.txt
    diff before.txt after.txt        # nothing: bit-identical

A change that adds a column or a table on purpose checks the rest is
unchanged with `--strip NAME` (repeatable: the summary is hashed without
any field or table of that name) and `--pcap-records` (the captures hashed
without their 24-byte file header).

Runs in a few seconds. Needs the package built
(`bash scripts/setup` or `maturin develop --release`)."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import tomllib
from pathlib import Path

import cdmasim
from cdmasim import result as result_module

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
# A run longer than this is cut to it (the fingerprint needs every kind
# exercised, not the example's full length).
MAX_DURATION_S = 120


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(len(p).to_bytes(8, "little"))
        h.update(p)
    return h.hexdigest()[:16]


def _cases():
    for path in sorted(EXAMPLES.glob("*.toml")):
        if path.name.startswith("sweep_"):
            continue
        doc = tomllib.loads(path.read_text())
        sim = doc.setdefault("simulation", {})
        yield path.stem, doc, path.parent
        sampled = dict(doc, simulation=dict(sim, sample_interval="250ms"))
        yield path.stem + "+sampled", sampled, path.parent
    yield "is2000_u8", {"preset": "is2000", "simulation": {"duration": "60s", "seed": 3, "sample_interval": "1s"},
                        "is2000": {"users": 8}}, ROOT


def _seconds(text: str) -> float:
    from cdmasim._units import _parse

    return _parse("parse_time_ns", text, "duration") / 1e9


def _stripped(value, names):
    if isinstance(value, dict):
        return {k: _stripped(v, names) for k, v in value.items() if k not in names}
    if isinstance(value, list):
        return [_stripped(v, names) for v in value]
    return value


def fingerprint(name: str, doc: dict, folder: Path, pcap: bool, strip=(), pcap_records=False) -> list[str]:
    sim = doc["simulation"]
    if _seconds(sim["duration"]) > MAX_DURATION_S:
        sim["duration"] = f"{MAX_DURATION_S}s"
    cwd = os.getcwd()
    os.chdir(folder)  # trace files are named relative to the example
    try:
        with tempfile.TemporaryDirectory() as tmp:
            r = cdmasim.run(doc, pcap_dir=tmp if pcap else None)
            skip = 24 if pcap_records else 0
            pcaps = b"".join(Path(tmp, f).read_bytes()[skip:] for f in sorted(os.listdir(tmp))) if pcap else b""
            summary = r.summary_json()
            if strip:
                summary = json.dumps(_stripped(json.loads(summary), set(strip)), sort_keys=True)
            drops = r.drops.to_csv(index=False).encode()
            # In memory or spooled alike, each series' points as stored.
            series = [b"%s\0%s\0%s\0%s" % (m.encode(), s.encode(), t.tobytes(), v.tobytes())
                      for m, s, t, v in r._series_pieces(None)]
            lines = [f"{name}: summary {_digest(summary.encode())} series {_digest(*series)} "
                     f"drops {_digest(drops)} pcap {_digest(pcaps)} events {r.summary['events']}"]
            for table in result_module.TABLES:
                if table in strip:
                    continue
                df = getattr(r, table)
                cols = " ".join(f"{c}:{df[c].dtype}" for c in df.columns if c not in strip)
                lines.append(f"  {table} rows {len(df)} {cols}")
            return lines
    finally:
        os.chdir(cwd)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strip", action="append", default=[], metavar="NAME",
                    help="hash the summary without fields or tables of this name")
    ap.add_argument("--pcap-records", action="store_true", help="hash captures without their file header")
    a = ap.parse_args()
    for name, doc, folder in _cases():
        for line in fingerprint(name, doc, folder, pcap=name == "dumbbell", strip=a.strip, pcap_records=a.pcap_records):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
