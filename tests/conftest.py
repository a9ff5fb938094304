"""Fixtures shared by test modules: one quick reproduction of every paper
(`cdmasim reproduce all --quick --json`), which test_reproduce and
test_report_browser read instead of running the papers again."""

import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def quick_reproduction(tmp_path_factory):
    """(output folder, {paper: its --json object}, the process) of one
    `reproduce all --quick` run."""
    out = tmp_path_factory.mktemp("reproduce-all-quick")
    p = subprocess.run([sys.executable, "-m", "cdmasim.cli", "reproduce", "all", "--quick", "--out", str(out), "--json"],
                       cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-3000:]
    reports = [json.loads(line) for line in p.stdout.strip().splitlines()]
    return out, {r["paper"]: r for r in reports}, p
