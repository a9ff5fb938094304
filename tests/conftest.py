"""Fixtures shared by test modules: one quick reproduction of every paper
(`cdmasim reproduce all --quick --json`), which test_reproduce,
test_report_browser and test_figures read instead of running the papers
again."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def quick_reproduction(tmp_path_factory):
    """(output folder, {paper: its --json object}, the process) of one
    `reproduce all --quick` run. Every figure it saves is checked for
    axes without labels (tests/figure_check/: OUT/unlabelled.txt)."""
    out = tmp_path_factory.mktemp("reproduce-all-quick")
    env = dict(os.environ, CDMASIM_FIGURE_LOG=str(out / "unlabelled.txt"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "tests" / "figure_check"),
                                                        os.environ.get("PYTHONPATH")])))
    p = subprocess.run([sys.executable, "-m", "cdmasim.cli", "reproduce", "all", "--quick", "--out", str(out), "--json"],
                       cwd=ROOT, capture_output=True, text=True, timeout=900, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    reports = [json.loads(line) for line in p.stdout.strip().splitlines()]
    return out, {r["paper"]: r for r in reports}, p
