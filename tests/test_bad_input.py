"""Every broken scenario in tests/scenarios/bad/ must make the real CLI print
exactly one line `cdmasim: error: FILE:LINE: FIELD: message` and exit 2.

Each file states what it expects in its first line:
    # expect: line=N field=DOTTED.FIELD     (field empty when there is none)
"""

import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
BAD = sorted((ROOT / "tests" / "scenarios" / "bad").glob("*.toml"))
EXPECT = re.compile(r"^# expect: line=(\d+) field=(\S*)\s*$")


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "cdmasim.cli", "run", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )


def test_catalogue_is_complete():
    # At least 15 distinct kinds of breakage.
    assert len(BAD) >= 15


@pytest.mark.parametrize("path", BAD, ids=[p.stem for p in BAD])
def test_bad_scenario_gives_one_line_and_exit_2(path):
    m = EXPECT.match(path.read_text().splitlines()[0])
    assert m, f"{path.name}: first line must be '# expect: line=N field=F'"
    line, field = int(m.group(1)), m.group(2)
    rel = path.relative_to(ROOT).as_posix()
    p = run_cli(rel)
    assert p.returncode == 2, p.stderr
    assert "Traceback" not in p.stderr
    assert p.stdout == ""
    lines = p.stderr.splitlines()
    assert len(lines) == 1, p.stderr
    prefix = f"cdmasim: error: {rel}:{line}: "
    assert lines[0].startswith(prefix), f"expected prefix {prefix!r}, got {lines[0]!r}"
    rest = lines[0][len(prefix):]
    if field:
        assert rest.startswith(f"{field}: "), f"expected field {field!r} in {lines[0]!r}"
        assert len(rest) > len(field) + 2, "a message must follow the field"
    else:
        # Syntax errors have no field: the message follows the line directly.
        assert rest.startswith("invalid TOML: ")


def test_missing_file_is_one_line_exit_2():
    p = run_cli("tests/scenarios/bad/does-not-exist.toml")
    assert p.returncode == 2
    assert p.stderr.strip() == "cdmasim: error: tests/scenarios/bad/does-not-exist.toml: cannot read: No such file or directory"


def test_directory_instead_of_file_is_one_line_exit_2():
    p = run_cli("tests")
    assert p.returncode == 2
    assert len(p.stderr.splitlines()) == 1 and "Traceback" not in p.stderr
    assert p.stderr == "cdmasim: error: tests: a folder, not a regular file\n"


def test_python_api_raises_input_error_with_parts():
    import cdmasim

    path = ROOT / "tests" / "scenarios" / "bad" / "negative_rate.toml"
    with pytest.raises(cdmasim.InputError) as ei:
        cdmasim.run(path)
    e = ei.value
    assert isinstance(e, cdmasim.ScenarioError) and isinstance(e, ValueError)
    assert (e.line, e.field) == (13, "link[0].rate")
    assert str(e) == f"{path}:13: link[0].rate: '-5Mbps' is negative"


def test_dict_errors_name_the_field_without_a_line():
    import cdmasim

    with pytest.raises(cdmasim.InputError) as ei:
        cdmasim.run({"simulation": {"duration": 5}})
    assert str(ei.value).startswith("<dict>: simulation.duration: a quantity needs a unit")


# --- sweeps and reproduce (docs/sweeps.md, docs/reproduce.md) ---------------

def run_any(*args):
    return subprocess.run([sys.executable, "-m", "cdmasim.cli", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def one_error_line(p, *fragments):
    assert p.returncode == 2, p.stderr
    assert p.stdout == "" and "Traceback" not in p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("cdmasim: error: ")
    for f in fragments:
        assert f in lines[0], lines[0]
    return lines[0]


def bad_sweep(tmp_path, body):
    p = tmp_path / "bad_sweep.toml"
    p.write_text(f'[sweep]\nscenario = "{(ROOT / "examples" / "dumbbell.toml").as_posix()}"\n' + body)
    return p


@pytest.mark.parametrize("body, fragments", [
    ('[grid]\n"dumbbell.no_such_field" = [1, 2]\n', ["dumbbell.no_such_field", "unknown key"]),
    ('[grid]\n"link[radio].delay" = ["1ms"]\n', ['grid."link[radio].delay"', "does not exist"]),
    ('[zip]\n"dumbbell.tcp.colour" = ["red"]\n', ["dumbbell.tcp.colour", "unknown key"]),
])
def test_sweep_over_a_field_that_does_not_exist(tmp_path, body, fragments):
    sw = bad_sweep(tmp_path, body)
    one_error_line(run_any("sweep", sw, "--store", tmp_path / "st"), str(sw), *fragments)
    assert not (tmp_path / "st" / "runs").exists() or not list((tmp_path / "st" / "runs").iterdir())


@pytest.mark.parametrize("body, fragment", [
    ('[grid]\n"dumbbell.flows" = []\n', 'grid."dumbbell.flows": empty list'),
    ("[grid]\n", "grid: empty table"),
])
def test_sweep_with_an_empty_grid(tmp_path, body, fragment):
    sw = bad_sweep(tmp_path, body)
    one_error_line(run_any("sweep", sw, "--store", tmp_path / "st"), fragment)


def test_sweep_on_an_unreachable_dask_scheduler(tmp_path):
    sw = bad_sweep(tmp_path, '[set]\n"simulation.duration" = "1s"\n')
    # Port 9 (discard) on the loopback: nothing listens there.
    one_error_line(run_any("sweep", sw, "--store", tmp_path / "st", "--dask", "tcp://127.0.0.1:9"),
                   "cannot reach the Dask scheduler at tcp://127.0.0.1:9")


def test_reproduce_an_unknown_paper(tmp_path):
    one_error_line(run_any("reproduce", "smith", "--out", tmp_path), "unknown paper 'smith'", "liu", "dziong")


def test_reproduce_lee_with_a_missing_capture(tmp_path):
    one_error_line(run_any("reproduce", "lee", "--pcap", tmp_path / "none.pcap", "--out", tmp_path / "out"),
                   "none.pcap: no such capture file")


def test_channel_fit_checks_out_before_fitting(tmp_path):
    trace = tmp_path / "t.txt"
    trace.write_text("".join(f"{i % 3}\n" for i in range(600)))
    for out, why in ((tmp_path / "missing" / "m.json", "no such folder"), (tmp_path, "is a folder")):
        one_error_line(run_any("channel", "fit", trace, "--order", "1", "--out", out), "--out", why)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.txt"]


def test_channel_generate_checks_out_before_drawing(tmp_path):
    out = tmp_path / "missing" / "x.drc"
    one_error_line(run_any("channel", "generate", "constant:5", "--slots", "1000000", "--out", out),
                   "--out", "no such folder")
