"""The promises of docs/files.md, case by case, as a user would break them:
every file a command or API function reads is refused in one line when it
is not a regular file (a FIFO would block, a device never end), every
output is checked before the work and written whole or not at all (a
second run killed half-way leaves the first one's complete output), names
never collide, a store never touches another store, every count is
limited before anything is allocated, nothing read back from disk is
trusted, and the processes a command starts die with it."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import cdmasim

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
ENV = {"PYTHONPATH": str(ROOT / "python"), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}


def cli(*args, cwd, timeout=120, **kw):
    return subprocess.run([sys.executable, "-m", "cdmasim.cli", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env=ENV, **kw)


def one_line(p, *fragments):
    assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
    assert "Traceback" not in p.stderr and "panicked" not in p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("cdmasim"), p.stderr
    for f in fragments:
        assert f in lines[0], lines[0]
    return lines[0]


DRC = "".join(f"{i % 15}\n" for i in range(600))
SCENARIO_WITH_TRACE = """
[simulation]
duration = "2s"
[[node]]
name = "s"
[[node]]
name = "m"
[[link]]
name = "air"
from = "s"
to = "m"
delay = "20ms"
drc = {{ trace = "{trace}" }}
[[flow]]
name = "f"
from = "s"
to = "m"
"""


def _pcap(d):
    """A small real capture (a simulated run's)."""
    cdmasim.run(EXAMPLES / "generic.toml", pcap_dir=d / "cap")
    return sorted((d / "cap").glob("*.pcap"))[0]


# -- inputs that are not regular files: one line, at once ----------------------

def _fifo(d):
    os.mkfifo(d / "fifo")
    (d / "t.txt").write_text(DRC)
    (d / "s.toml").write_text(SCENARIO_WITH_TRACE.format(trace="fifo"))
    (d / "sw.toml").write_text(f'[sweep]\nname = "x"\nscenario = "s.toml"\n[grid]\n"simulation.seed" = [1, 2]\n')


NOT_REGULAR = [
    ("pcap_analyze_fifo", ["pcap", "analyze", "fifo"], "fifo: a FIFO, not a regular file"),
    ("pcap_peer_fifo", ["pcap", "analyze", "CAP", "--peer", "fifo"], "a FIFO, not a regular file"),
    ("channel_stats_fifo", ["channel", "stats", "fifo"], "fifo: a FIFO, not a regular file"),
    ("channel_fit_fifo", ["channel", "fit", "fifo", "--order", "1", "--out", "m.json"], "fifo: a FIFO, not a regular file"),
    ("channel_generate_model_fifo", ["channel", "generate", "fifo", "--slots", "10", "--out", "x.txt"],
     "fifo: a FIFO, not a regular file"),
    ("evdo_schedule_trace_fifo", ["evdo", "schedule", "--trace", "fifo", "--users", "2"], "fifo: a FIFO, not a regular file"),
    ("run_drc_trace_fifo", ["run", "s.toml"], "a FIFO, not a regular file"),
    ("sweep_scenario_drc_trace_fifo", ["sweep", "sw.toml", "--store", "st"], "a FIFO, not a regular file"),
    ("reproduce_lee_pcap_fifo", ["reproduce", "lee", "--quick", "--pcap", "fifo", "--out", "o"], "fifo"),
    ("channel_stats_dev_zero", ["channel", "stats", "/dev/zero"], "/dev/zero: a device, not a regular file"),
    ("channel_generate_model_dev_zero", ["channel", "generate", "/dev/zero", "--slots", "10", "--out", "x.txt"],
     "a device, not a regular file"),
    ("evdo_schedule_trace_dev_urandom", ["evdo", "schedule", "--trace", "/dev/urandom", "--users", "2"],
     "/dev/urandom: a device, not a regular file"),
]


@pytest.mark.parametrize("name, argv, fragment", NOT_REGULAR, ids=[c[0] for c in NOT_REGULAR])
def test_a_fifo_or_a_device_as_an_input_is_one_line_at_once(tmp_path, name, argv, fragment):
    _fifo(tmp_path)
    if "CAP" in argv:
        argv = [str(_pcap(tmp_path)) if a == "CAP" else a for a in argv]
    before = sorted(p.name for p in tmp_path.iterdir())
    t0 = time.monotonic()
    line = one_line(cli(*argv, cwd=tmp_path, timeout=60), fragment)
    assert time.monotonic() - t0 < 30, line
    assert sorted(p.name for p in tmp_path.iterdir()) == before, "nothing written"


def test_a_fifo_as_a_scenarios_trace_is_an_input_error_in_python(tmp_path):
    _fifo(tmp_path)
    with pytest.raises(cdmasim.InputError, match="a FIFO, not a regular file"):
        cdmasim.parse(tmp_path / "s.toml")


def test_an_input_over_its_limit_is_refused_before_it_is_read(tmp_path):
    # A sparse 2 GiB "text trace": over the 1 GiB limit, refused without reading it.
    big = tmp_path / "big.txt"
    with open(big, "wb") as f:
        f.truncate(2 << 30)
    line = one_line(cli("channel", "stats", big, cwd=tmp_path, timeout=60), "big.txt", "at most 1 GiB")
    assert "2147483648 bytes" in line


# -- outputs checked before the work ---------------------------------------------

OUTPUTS = [
    ("fit_out_proc", lambda d: None, ["channel", "fit", "t.txt", "--order", "1", "--out", "/proc/m.json"],
     "--out: /proc/m.json: cannot write in /proc"),
    ("fit_out_sys", lambda d: None, ["channel", "fit", "t.txt", "--order", "1", "--out", "/sys/kernel/m.json"],
     "--out: /sys/kernel/m.json: cannot write in /sys/kernel"),
    ("run_out_empty", lambda d: None, ["run", "t.toml", "--out", ""], "--out: expected a folder path, got an empty one"),
    ("run_plot_empty", lambda d: None, ["run", "t.toml", "--plot", ""], "--plot: expected a folder path, got an empty one"),
    ("run_out_dangling_link", lambda d: os.symlink(d / "nowhere", d / "dl"), ["run", "t.toml", "--out", "dl"],
     "--out: dl: a link to nothing"),
    ("run_pcap_dangling_link", lambda d: os.symlink(d / "nowhere", d / "dl"), ["run", "t.toml", "--pcap", "dl"],
     "--pcap: dl: a link to nothing"),
    ("channel_stats_plot_dangling_link", lambda d: os.symlink(d / "nowhere", d / "dl"),
     ["channel", "stats", "t.txt", "--plot", "dl"], "--plot: dl: a link to nothing"),
]


@pytest.mark.parametrize("name, setup, argv, expected", OUTPUTS, ids=[c[0] for c in OUTPUTS])
def test_an_output_that_cannot_be_written_is_refused_before_the_work(tmp_path, name, setup, argv, expected):
    (tmp_path / "t.txt").write_text(DRC)
    (tmp_path / "t.toml").write_text((EXAMPLES / "generic.toml").read_text())
    setup(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    assert one_line(cli(*argv, cwd=tmp_path)).startswith("cdmasim: error: " + expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_the_worker_memory_floor_is_written_as_the_message_says(tmp_path):
    (tmp_path / "sw.toml").write_text(f'[sweep]\nname = "m"\nscenario = "{EXAMPLES / "dumbbell.toml"}"\n'
                                      '[set]\n"simulation.duration" = "1s"\n')
    p = cli("sweep", "sw.toml", "--store", "st", "--worker-memory", "256MB", "--jobs", "1", cwd=tmp_path)
    assert p.returncode == 0, p.stderr


# -- written whole or not at all; a second run killed half-way ----------------

def _kill_when(p, ready, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and p.poll() is None and not ready():
        time.sleep(0.02)
    assert p.poll() is None, "the second run ended before it could be killed"
    p.send_signal(signal.SIGKILL)
    p.wait()


def test_a_killed_second_generate_leaves_the_first_trace_whole(tmp_path):
    p = cli("channel", "generate", "stationary", "--slots", "20000", "--out", "g.txt", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    first = (tmp_path / "g.txt").read_bytes()
    second = subprocess.Popen([sys.executable, "-m", "cdmasim.cli", "channel", "generate", "stationary", "--slots",
                               "60000000", "--out", "g.txt"], cwd=tmp_path, env=ENV, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    # Killed while it writes its temporary file beside the trace.
    _kill_when(second, lambda: any(n.startswith(".g.txt.cdmasim-") for n in os.listdir(tmp_path)), timeout=120)
    assert (tmp_path / "g.txt").read_bytes() == first
    # The next writer removes what the killed one left.
    p = cli("channel", "generate", "stationary", "--slots", "100", "--out", "g.txt", cwd=tmp_path)
    assert p.returncode == 0 and sorted(os.listdir(tmp_path)) == ["g.txt"], os.listdir(tmp_path)


def test_a_killed_second_run_leaves_the_first_runs_captures_whole(tmp_path):
    p = cli("run", EXAMPLES / "generic.toml", "--pcap", "P", "--quiet", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    first = {f.name: f.read_bytes() for f in (tmp_path / "P").glob("*.pcap")}
    assert first
    long = (EXAMPLES / "dumbbell.toml").read_text().replace('duration = "60s"', 'duration = "6000s"')
    (tmp_path / "long.toml").write_text(long)
    second = subprocess.Popen([sys.executable, "-m", "cdmasim.cli", "run", "long.toml", "--pcap", "P", "--quiet"],
                              cwd=tmp_path, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _kill_when(second, lambda: any(n.startswith(".cdmasim-new-") for n in os.listdir(tmp_path / "P")))
    assert {f.name: f.read_bytes() for f in (tmp_path / "P").glob("*.pcap")} == first
    # A complete second run replaces the first one's captures with its own.
    short = long.replace('duration = "6000s"', 'duration = "1s"')
    (tmp_path / "long.toml").write_text(short)
    p = cli("run", "long.toml", "--pcap", "P", "--quiet", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    names = set(os.listdir(tmp_path / "P"))
    record = (tmp_path / "P" / ".cdmasim-files").read_text().split()
    assert {n for n in names if n.endswith(".pcap")} == set(record)
    assert not (set(first) - set(record)) & names, "the first run's captures the second did not write are gone"
    assert not [n for n in names if n.startswith(".cdmasim-new-")]


def test_two_links_whose_names_differ_only_in_a_slash_get_two_captures(tmp_path):
    doc = """
[simulation]
duration = "1s"
[[node]]
name = "a"
[[node]]
name = "b"
[[node]]
name = "c"
[[link]]
name = "x/y"
from = "a"
to = "b"
rate = "1Mbps"
delay = "1ms"
[[link]]
name = "x_y"
from = "b"
to = "c"
rate = "1Mbps"
delay = "1ms"
[[flow]]
name = "f1"
kind = "cbr"
from = "a"
to = "b"
rate = "100kbps"
packet_size = "100B"
[[flow]]
name = "f2"
kind = "cbr"
from = "b"
to = "c"
rate = "100kbps"
packet_size = "100B"
"""
    cdmasim.run(doc, pcap_dir=tmp_path / "P")
    names = sorted(n for n in os.listdir(tmp_path / "P") if n.endswith(".pcap"))
    assert names == ["x%2Fy.pcap", "x_y.pcap"]
    a = cdmasim.pcap.analyze(tmp_path / "P" / "x%2Fy.pcap").report
    b = cdmasim.pcap.analyze(tmp_path / "P" / "x_y.pcap").report
    assert a["packets_seen"] > 0 and b["packets_seen"] > 0


def test_a_killed_runs_temporary_folders_are_removed_by_the_next_run(tmp_path):
    dead = 4_000_000   # above any pid this machine hands out
    out = tmp_path / "out"
    (out / f".cdmasim-new-{dead}-abcdef01").mkdir(parents=True)
    (out / f".cdmasim-new-{dead}-abcdef01" / "flows.parquet").write_bytes(b"half")
    tmp = tmp_path / "tmp"
    (tmp / f"cdmasim-run-{dead}-0a0b0c0d").mkdir(parents=True)
    p = subprocess.run([sys.executable, "-m", "cdmasim.cli", "run", EXAMPLES / "generic.toml", "--out", out, "--quiet"],
                       cwd=tmp_path, env={**ENV, "TMPDIR": str(tmp)}, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert not [n for n in os.listdir(out) if n.startswith(".cdmasim-new-")]
    assert os.listdir(tmp) == [], os.listdir(tmp)


# -- a store never touches another store ----------------------------------------

SMALL_SWEEP = """
[sweep]
name = "small"
scenario = "{scenario}"
seeds = [1, 2]
[set]
"simulation.duration" = "1s"
[grid]
"dumbbell.flows" = [1, 2]
"""


def _store_with_runs(path, scenario):
    spec = SMALL_SWEEP.format(scenario=scenario)
    cdmasim.sweep(spec, path, jobs=1)
    return sorted(os.listdir(path / "runs"))


def test_a_store_reached_through_a_link_inside_another_store_is_refused(tmp_path):
    outer = tmp_path / "outer"
    _store_with_runs(outer, EXAMPLES / "dumbbell.toml")
    os.symlink(outer / "runs", tmp_path / "lnk")
    key = "0123456789abcdef0123456789abcdef"
    with pytest.raises(cdmasim.InputError, match="is inside the result store"):
        cdmasim.sweep(SMALL_SWEEP.format(scenario=EXAMPLES / "dumbbell.toml"), tmp_path / "lnk" / key, jobs=1)


def test_an_outer_sweep_leaves_a_store_inside_it_alone(tmp_path):
    # A store written before the marker existed (no cdmasim-store.json) with
    # a store of its own inside, under a run key's name: the outer store's
    # recovery must not take it for a killed run's folder.
    outer = tmp_path / "outer"
    _store_with_runs(outer, EXAMPLES / "dumbbell.toml")
    os.remove(outer / "cdmasim-store.json")
    key = "0123456789abcdef0123456789abcdef"
    with pytest.raises(cdmasim.InputError, match="is inside the result store"):
        cdmasim.sweep(SMALL_SWEEP.format(scenario=EXAMPLES / "dumbbell.toml"), outer / "tmp" / key, jobs=1)
    # Made there anyway (by an older cdmasim): the outer folder is no longer
    # taken for a store, and is left as it is.
    inner = outer / "runs" / key
    inner.mkdir()
    (inner / "cdmasim-store.json").write_text('{"format": "cdmasim-store", "version": 1}')
    (inner / "precious").write_text("8 completed runs")
    with pytest.raises(cdmasim.InputError, match="not a cdmasim result store"):
        cdmasim.sweep(SMALL_SWEEP.format(scenario=EXAMPLES / "dumbbell.toml"), outer, jobs=1)
    assert (inner / "precious").read_text() == "8 completed runs"
    # With its marker, the outer store sweeps again and its recovery (which
    # removes run folders without a manifest row) passes the inner store by.
    (outer / "cdmasim-store.json").write_text('{"format": "cdmasim-store", "version": 1}')
    cdmasim.sweep(SMALL_SWEEP.format(scenario=EXAMPLES / "dumbbell.toml"), outer, jobs=1)
    assert (inner / "precious").read_text() == "8 completed runs"


def test_the_store_reads_only_run_keys_and_the_files_its_manifest_lists(tmp_path):
    from cdmasim.store import Store

    st = tmp_path / "st"
    keys = _store_with_runs(st, EXAMPLES / "dumbbell.toml")
    with Store(st, mode="r") as s:
        with pytest.raises(cdmasim.InputError, match="has no file"):
            s.read_bytes(keys[0], "../../../../../../etc/hostname")
        with pytest.raises(cdmasim.InputError, match="not a run key"):
            s.read_bytes("../../../../../../etc", "hostname")
        assert s.table(keys[0], "flows").shape[0] >= 1


# -- counts limited before anything is allocated ----------------------------------

BTS = """
[simulation]
duration = "2s"
[[node]]
name = "bsc"
[[node]]
name = "h"
[[link]]
name = "wired"
from = "h"
to = "bsc"
rate = "100Mbps"
delay = "10ms"
[[cell]]
name = "c"
node = "bsc"
sch = {{ kind = "demand" }}
[[mobile]]
name = "m"
cell = "c"
bts = {bts}
[[flow]]
name = "f"
kind = "cbr"
from = "h"
to = "m"
rate = "10kbps"
packet_size = "100B"
"""


def test_a_bts_number_past_the_limit_is_one_line(tmp_path):
    (tmp_path / "c.toml").write_text(BTS.format(bts=4294967295))
    one_line(cli("run", "c.toml", cwd=tmp_path), "c.toml:", "bts", "numbered 1 to 1000")
    (tmp_path / "c.toml").write_text(BTS.format(bts=3))
    assert cli("run", "c.toml", "--quiet", cwd=tmp_path).returncode == 0


def test_a_flood_into_a_queue_without_a_limit_stops_with_one_line(tmp_path):
    (tmp_path / "f.toml").write_text("""
[simulation]
duration = "10s"
[[node]]
name = "a"
[[node]]
name = "b"
[[link]]
name = "slow"
from = "a"
to = "b"
rate = "1Mbps"
delay = "1ms"
queue = { kind = "droptail", limit = "unlimited" }
[[flow]]
name = "flood"
kind = "cbr"
from = "a"
to = "b"
packet_size = "1B"
rate = "10Gbps"
""")
    one_line(cli("run", "f.toml", cwd=tmp_path, timeout=300), "more than 10000000 packets", "in 'slow'",
             "give it a limit")


API_CASES = [
    (lambda t: cdmasim.channel.stats(t / "t.txt", max_lag=10**12), "max_lag must be an integer in [1, 100000]"),
    (lambda t: cdmasim.channel.generate("stationary", 10**12, 1, t / "g.txt"), "slots must be an integer in [0, 1000000000]"),
    (lambda t: cdmasim.channel.sample("stationary", 10**11, 1), "slots must be an integer in [0, 1000000000]"),
    (lambda t: cdmasim.evdo.schedule(2, 10**12, 1, preset="stationary"), "slots must be an integer in [1, 500000000]"),
    (lambda t: cdmasim.evdo.schedule(10**12, 10, 1, preset="stationary"), "users must be an integer in [1, 1000]"),
    (lambda t: cdmasim.channel.stats(t / "t.txt", window_slots=-1), "window_slots must be an integer"),
    (lambda t: cdmasim.channel.stats(t / "t.txt", max_order=None), "max_order must be an integer in [1, 4]"),
    (lambda t: cdmasim.channel.stats("stationary", slots=1000, seed=1, window_slots=[1] * 17), "window lengths"),
    (lambda t: cdmasim.channel.stats("stationary", slots=100_000, seed=1, window_slots=1), "give longer windows"),
    (lambda t: cdmasim.channel.fit(t / "t.txt", order=None), "order must be an integer"),
    (lambda t: cdmasim.channel.fit(t / "t.txt", 1, regimes=None), "regimes must be an integer"),
    (lambda t: cdmasim.channel.fit(t / "t.txt", 1, out="/proc/x.json"), "out: /proc/x.json: cannot write in /proc"),
    (lambda t: cdmasim.channel.generate("stationary", 10, 1, None), "out: expected a file path"),
    (lambda t: cdmasim.channel.generate(None, 10, 1, t / "g.txt"), "source must be a preset name"),
    (lambda t: cdmasim.channel.generate("stationary", 10, 1, t / "g.txt", drc_only="no"), "drc_only must be True or False"),
    (lambda t: cdmasim.channel.summary(None), "results must be a non-empty dict"),
    (lambda t: cdmasim.channel.plot({}, t / "p"), "results must be a non-empty dict"),
    (lambda t: cdmasim.pcap.analyze(None), "capture must be a path"),
    (lambda t: cdmasim.pcap.analyze(t / "t.txt", fit_connections=5), "fit_connections must be a list"),
    (lambda t: cdmasim.pcap.analyze(t / "t.txt", checksums=None), "checksums must be True or False"),
    (lambda t: cdmasim.evdo.schedule(2, 100, 1, preset="stationary", alpha=None), "alpha must be a finite number"),
    (lambda t: cdmasim.evdo.schedule(2, 100, 1, preset="stationary", handoff_every=5), "handoff_every must be (lo, hi)"),
    (lambda t: cdmasim.evdo.schedule(2, 100, 1, preset="stationary", handoff_every=(9, 3)), "lo is above hi"),
    (lambda t: cdmasim.evdo.schedule(2, 100, 1, traces=[None]), "traces must be a path"),
    (lambda t: cdmasim.evdo.summary(None), "result must be what schedule() returned"),
    (lambda t: cdmasim.run(EXAMPLES / "generic.toml", pcap_dir=""), "pcap_dir: expected a folder path, got an empty one"),
]


@pytest.mark.parametrize("call, words", API_CASES, ids=[f"api{i}" for i in range(len(API_CASES))])
def test_the_apis_arguments_are_input_errors_before_the_work(tmp_path, call, words):
    (tmp_path / "t.txt").write_text(DRC)
    before = sorted(os.listdir(tmp_path))
    with pytest.raises(cdmasim.InputError) as e:
        call(tmp_path)
    assert words in str(e.value) and "\n" not in str(e.value), str(e.value)
    assert sorted(os.listdir(tmp_path)) == before


def test_emulates_arguments_are_input_errors_before_anything_starts():
    if os.geteuid() != 0:
        pytest.skip("emulate checks root first: needs root to reach its argument checks")
    from cdmasim.emulate import emulate

    scenario = EXAMPLES / "emulate_rlp_link.toml"
    for call, words in ((lambda: emulate(scenario, None), "users must be a dict"),
                        (lambda: emulate(scenario, {"mobile": None}), "expected a user's name and a shell command"),
                        (lambda: emulate(scenario, {"mobile": "true"}, log_dir="/proc/x"), "log_dir: /proc/x"),
                        (lambda: emulate(scenario, {"mobile": "true"}, on_start=5), "on_start must be a callable")):
        with pytest.raises(cdmasim.InputError) as e:
            call()
        assert words in str(e.value), str(e.value)


# -- what the run offers and reports ---------------------------------------------

def test_progress_is_offered_the_horizon_last_in_exact_seconds():
    calls = []
    cdmasim.run(EXAMPLES / "dumbbell.toml", progress=lambda now, horizon: calls.append((now, horizon)) or True,
                progress_every=7)
    assert calls[-1] == (60.0, 60.0) and all(h == 60.0 for _, h in calls)
    assert [n for n, _ in calls[:3]] == [7.0, 14.0, 21.0]


def test_a_trace_exactly_one_window_long_has_one_window():
    r = cdmasim.channel.stats([i % 15 for i in range(600)], window_slots=600)
    assert len(r["windows"]) == 1
    r = cdmasim.channel.stats([i % 15 for i in range(599)], window_slots=600)
    assert len(r["windows"]) == 0


# -- nothing read back from disk is trusted ---------------------------------------

def _report(paper, **change):
    r = {"paper": paper, "title": "T", "citation": "C", "wall_s": 1.0, "quick": True, "pending": [], "notes": [],
         "summary": {"predictions": {"agrees": 1, "differs": 0, "inconclusive": 0, "not modelled": 0,
                                     "no published value": 0, "total": 1},
                     "calibration": 0, "input": 0, "null": {"passes": 0, "of": 1, "answer": "zeros"},
                     "uninformative_figures": []},
         "items": [{"id": "a.b", "what": "w", "unit": "s", "tolerance": "±10 %", "verdict": "agrees",
                    "basis": "prediction", "published": 1.0, "measured": 1.0, "spread": None, "seeds": 3}],
         "figures": [{"id": "fig1", "title": "F", "file": f"{paper}/fig1.png", "items": ["a.b"],
                      "score": {"agree": 1, "predictions": 1, "null": 0, "null_answer": "zeros",
                                "uninformative": False}}]}
    r.update(change)
    return r


def test_the_report_page_embeds_only_what_reproduce_wrote(tmp_path):
    from cdmasim.reproduce.report import write_report

    out = tmp_path / "o"
    for paper in ("liu", "lee", "jung"):
        (out / paper).mkdir(parents=True)
    # jung: a good report whose figure is missing; lee: a figure outside OUT;
    # liu: a paper name carrying markup.
    (out / "jung" / "report.json").write_text(json.dumps(_report("jung")))
    bad_fig = _report("lee")
    bad_fig["figures"][0]["file"] = "../../../../etc/hostname"
    (out / "lee" / "report.json").write_text(json.dumps(bad_fig))
    (out / "liu" / "report.json").write_text(json.dumps(_report("<script>alert(1)</script>")))
    html = Path(write_report(out)).read_text()
    assert "<script>" not in html
    assert "Left out: liu, lee" in html
    assert "Figure jung/fig1.png is missing" in html
    assert Path("/etc/hostname").read_text().strip() not in html or "base64" not in html


def test_a_foreign_report_in_the_output_folder_does_not_stop_another_papers_run(tmp_path, quick_reproduction):
    import shutil

    # jung's runs come from the quick reproduction's store.
    shutil.copytree(quick_reproduction[0] / "store", tmp_path / "D" / "store")
    (tmp_path / "D" / "liu").mkdir(parents=True)
    (tmp_path / "D" / "liu" / "report.json").write_text('{"summary": {}, "items": []}')
    p = cli("reproduce", "jung", "--quick", "--jobs", "2", "--out", "D", cwd=tmp_path, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.startswith("jung: ") and "report: D/report.html" in p.stdout
    assert "Left out: liu" in (tmp_path / "D" / "report.html").read_text()
    p = cli("reproduce", "jung", "--quick", "--jobs", "2", "--out", "D", "--quiet", cwd=tmp_path, timeout=300)
    assert p.returncode == 0 and p.stdout == "" and p.stderr == "", (p.stdout, p.stderr)


# -- ns-2: bounded, in a group of its own, dying with cdmasim ---------------------

def _fake_ns(d, body):
    ns = d / "ns"
    ns.write_text("#!/bin/sh\n" + body + "\n")
    ns.chmod(0o755)
    return str(ns)


def test_malformed_ns2_output_is_an_ns2_error(tmp_path):
    from cdmasim.reproduce.ns2 import Ns2, Ns2Error, cell_args

    ns = _fake_ns(tmp_path, """echo '{"traced_links": [["x", "1", "0.01"]], "bsc_drops": 1, "goodput_bps": [1], "timeouts": [0]}'""")
    with pytest.raises(Ns2Error, match="is not what paliwal_ns2.tcl prints"):
        Ns2(str(tmp_path / "cache"), 1, executable=ns).run([cell_args(10.0, 1, "at", at=5.0)])
    # A damaged cached result is run again, not trusted.
    runner = Ns2(str(tmp_path / "cache"), 1, executable=_fake_ns(tmp_path, "exit 3"))
    args = cell_args(10.0, 1, "at", at=5.0)
    Path(runner._path(args)).write_text('{"args": "not a run"}')
    with pytest.raises(Ns2Error, match="ns-2 exited 3"):
        runner.run([args])


def test_a_hung_ns2_is_stopped_with_its_group(tmp_path, monkeypatch):
    from cdmasim.reproduce import ns2

    monkeypatch.setattr(ns2, "TIMEOUT_S", 1)
    # Two processes in its group, each known by its own odd duration.
    mark = f"300.{os.getpid()}"
    ns = _fake_ns(tmp_path, f"sleep {mark}1 & sleep {mark}2")
    with pytest.raises(ns2.Ns2Error, match="did not finish within 1 s"):
        ns2.Ns2(str(tmp_path / "cache"), 1, executable=ns).run([ns2.cell_args(10.0, 1, "at", at=5.0)])
    time.sleep(0.5)
    left = subprocess.run(["pgrep", "-f", f"sleep {mark}|{ns}"], capture_output=True, text=True).stdout.split()
    assert left == [], left


def test_ns2_dies_with_a_killed_reproduce(tmp_path):
    marker = f"sleep 300.{os.getpid()}"
    ns = _fake_ns(tmp_path, f"exec {marker}")
    code = ("import sys; from cdmasim.reproduce.ns2 import Ns2, cell_args; "
            f"Ns2({str(tmp_path / 'cache')!r}, 1, executable={ns!r}).run([cell_args(10.0, 1, 'at', at=5.0)])")
    p = subprocess.Popen([sys.executable, "-c", code], env=ENV)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not subprocess.run(["pgrep", "-f", marker], capture_output=True).stdout:
        time.sleep(0.05)
    assert subprocess.run(["pgrep", "-f", marker], capture_output=True).stdout, "ns did not start"
    p.send_signal(signal.SIGKILL)
    p.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and subprocess.run(["pgrep", "-f", marker], capture_output=True).stdout:
        time.sleep(0.05)
    assert not subprocess.run(["pgrep", "-f", marker], capture_output=True).stdout, "ns outlived reproduce"
