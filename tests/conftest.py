"""Fixtures shared by test modules: one quick reproduction of every paper
(`cdmasim reproduce all --quick --json`), which test_reproduce,
test_report_browser and test_figures read instead of running the papers
again; and the command prefix that runs a program as an unprivileged
user."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
#: setpriv's arguments that drop to the user and group nobody (65534).
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


@pytest.fixture(scope="session")
def as_nobody():
    """The prefix that runs a command as an unprivileged user, or a skip
    that says why there is none: not root, no setpriv, or a checkout the
    unprivileged user cannot read (a clone inside a private folder, such
    as one made by mktemp -d)."""
    import shutil

    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to run a command as an unprivileged user")
    p = subprocess.run([*NOBODY, sys.executable, "-c", "import sys, cdmasim; open(sys.argv[1]).close()",
                        str(ROOT / "examples" / "dumbbell.toml")], cwd="/", capture_output=True, text=True,
                       timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT / "python"), "HOME": "/tmp"})
    if p.returncode != 0:
        pytest.skip(f"the unprivileged user cannot read cdmasim in {ROOT} (a folder above it is private): "
                    + (p.stderr.strip().splitlines() or ["?"])[-1])
    return NOBODY


@pytest.fixture(scope="session")
def quick_reproduction(request, tmp_path_factory):
    """(output folder, {paper: its --json object}, the process) of one
    `reproduce all --quick` run. Every figure it saves is checked for
    axes without labels (tests/figure_check/: OUT/unlabelled.txt).

    Under pytest-xdist (scripts/test runs two workers) the run is made
    once, by the first worker that asks, in the folder the workers' own
    temporary folders share, and read by the others (the suite's longest
    setup, made once rather than once per worker). Tests only read the
    folder: one that writes there works on a copy, since the other worker
    may be reading it."""
    if not hasattr(request.config, "workerinput"):
        out = tmp_path_factory.mktemp("reproduce-all-quick")
        p = _run_quick(out)
    else:
        import fcntl

        shared = tmp_path_factory.getbasetemp().parent
        out = shared / "reproduce-all-quick"
        with open(shared / "reproduce-all-quick.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            done = shared / "reproduce-all-quick.json"
            if not done.exists():
                # Made once, failed or not: a failure is the other worker's too.
                p = _run_quick(out)
                tmp = done.with_suffix(".part")
                tmp.write_text(json.dumps({"args": p.args, "returncode": p.returncode, "stdout": p.stdout,
                                           "stderr": p.stderr}))
                tmp.rename(done)
            p = subprocess.CompletedProcess(**json.loads(done.read_text()))
    assert p.returncode == 0, p.stderr[-3000:]
    reports = [json.loads(line) for line in p.stdout.strip().splitlines()]
    return out, {r["paper"]: r for r in reports}, p


def _run_quick(out):
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, CDMASIM_FIGURE_LOG=str(out / "unlabelled.txt"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "tests" / "figure_check"),
                                                        os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-m", "cdmasim.cli", "reproduce", "all", "--quick", "--out", str(out),
                           "--json"], cwd=ROOT, capture_output=True, text=True, timeout=900, env=env)
