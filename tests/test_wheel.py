"""What a pip user gets: the wheel, installed in a fresh virtualenv outside
the source tree, runs what the README shows — the examples it carries,
`reproduce jung`, a sweep of a copied example, the docs — from another folder."""

import json
import os
import pathlib
import shutil
import subprocess
import sys
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(bin folder of a fresh venv holding the wheel, the wheel's path)."""
    work = tmp_path_factory.mktemp("wheel")
    maturin = shutil.which("maturin", path=os.path.dirname(sys.executable))
    if maturin is None:
        pytest.skip("maturin is not installed beside this Python (scripts/setup installs it)")
    # `-i` this interpreter: the one scripts/setup builds for, so the build
    # reuses its compiled bindings (another interpreter, or none, changes
    # PyO3's configuration and recompiles them, here and at the next setup).
    build = subprocess.run([maturin, "build", "--release", "-q", "-i", sys.executable, "-o", str(work / "dist")], cwd=ROOT,
                           capture_output=True, text=True, timeout=900)
    assert build.returncode == 0, build.stderr[-3000:]
    wheel = next((work / "dist").glob("cdmasim-*.whl"))
    # Outside the checkout, without the checkout's venv, PYTHONPATH or cwd.
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    pip = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                          str(wheel)], capture_output=True, text=True, timeout=900, env=env, cwd=work)
    if pip.returncode != 0 and any(w in pip.stderr for w in ("Could not find a version", "NewConnectionError",
                                                             "Temporary failure in name resolution")):
        pytest.skip(f"the package index cannot be reached to install the wheel's dependencies: {pip.stderr[-300:]}")
    assert pip.returncode == 0, pip.stderr[-3000:]
    return venv / "bin", wheel, env


def run(installed, cwd, *args, timeout=600):
    bin_dir, _, env = installed
    return subprocess.run([str(bin_dir / "cdmasim"), *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env)


def test_the_wheel_carries_the_readme_docs_examples_types_and_the_ns2_record(installed):
    _, wheel, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    for need in ("cdmasim/py.typed", "cdmasim/_core.pyi", "cdmasim/docs/scenario.md", "cdmasim/docs/reproduce.md",
                 "cdmasim/examples/dumbbell.toml", "cdmasim/examples/rbsmq_cdma1x.toml",
                 "cdmasim/examples/sweep_buffers.toml", "cdmasim/reproduce/paliwal_ns2.tcl",
                 "cdmasim/reproduce/paliwal_ns2_record.json.gz"):
        assert need in names, need
    meta = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA"))).decode()
    assert "Description-Content-Type: text/markdown" in meta and "## Set-up on a fresh machine" in meta
    # Tagged for the Pythons it supports (requires-python >= 3.11), not 3.9.
    assert "-cp311-abi3-" in wheel.name and "Requires-Python: >=3.11" in meta, wheel.name


def test_version_examples_and_docs_from_anywhere(installed, tmp_path):
    p = run(installed, tmp_path, "--version")
    assert p.returncode == 0 and p.stdout.startswith("cdmasim "), p.stderr
    p = run(installed, tmp_path, "examples")
    assert p.returncode == 0 and "dumbbell" in p.stdout and "sweep_buffers" in p.stdout, p.stderr
    p = run(installed, tmp_path, "docs", "sweeps")
    assert p.returncode == 0 and "sweep" in p.stdout.lower(), p.stderr
    p = run(installed, tmp_path, "run", run(installed, tmp_path, "examples", "path", "generic").stdout.strip(), "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["seed"] == 7


def test_reproduce_jung_and_a_copied_sweep_run_from_another_folder(installed, tmp_path):
    p = run(installed, tmp_path, "reproduce", "jung", "--quick", "--out", "rep", "--json")
    assert p.returncode == 0, p.stderr[-3000:]
    report = json.loads(p.stdout.strip().splitlines()[-1])
    assert report["paper"] == "jung" and report["items"]
    assert (tmp_path / "rep" / "report.html").is_file()
    p = run(installed, tmp_path, "examples", "copy", "sweep_buffers", "--to", "ex")
    assert p.returncode == 0, p.stderr
    assert sorted(os.listdir(tmp_path / "ex")) == ["dumbbell.toml", "sweep_buffers.toml"]
    sweep = (tmp_path / "ex" / "sweep_buffers.toml")
    sweep.write_text(sweep.read_text().replace('"simulation.duration" = "20s"', '"simulation.duration" = "2s"'))
    p = run(installed, tmp_path, "sweep", "ex/sweep_buffers.toml", "--store", "st", "--jobs", "2", "--json")
    assert p.returncode == 0, p.stderr[-3000:]
    r = json.loads(p.stdout)
    assert (r["runs_done"], r["runs_failed"]) == (18, 0)
    # Copying again never overwrites.
    p = run(installed, tmp_path, "examples", "copy", "sweep_buffers", "--to", "ex")
    assert p.returncode == 2 and "exists" in p.stderr
