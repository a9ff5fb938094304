"""The run path end to end: Python API, CLI outputs, seeds, determinism.

With the placeholder engine the results are empty but the plumbing is real;
once the engine lands, the determinism tests compare real numbers."""

import json
import pathlib
import subprocess
import sys

import pytest

import cdmasim
from cdmasim.result import DROP_COLUMNS, FLOW_COLUMNS, QUEUE_COLUMNS, SERIES_COLUMNS, TABLES

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
# A short scenario so that the tests stay fast with the real engine too.
SHORT = """
preset = "dumbbell"
[simulation]
duration = "3s"
seed = 5
sample_interval = "100ms"
[dumbbell]
flows = 2
bottleneck_rate = "2Mbps"
bottleneck_delay = "10ms"
queue = { kind = "droptail", limit = "20pkt" }
"""


def cli(*args, **kw):
    return subprocess.run([sys.executable, "-m", "cdmasim.cli", *args], cwd=ROOT, capture_output=True, text=True, timeout=600, **kw)


@pytest.mark.parametrize("name", ["dumbbell", "generic", "cdma2000_switch"])
def test_examples_parse(name):
    spec = cdmasim.parse(EXAMPLES / f"{name}.toml")
    assert spec["duration"] > 0 and spec["flows"]


def test_dumbbell_example_is_the_documented_default():
    spec = cdmasim.parse(EXAMPLES / "dumbbell.toml")
    assert len(spec["flows"]) == 10
    assert spec["duration"] == 60 * 10**9
    bottleneck = next(h for h in spec["hops"] if h["kind"] == "link" and h["name"] == "r1-r2")
    assert bottleneck["rate_bps"] == 10_000_000 and bottleneck["delay"] == 20_000_000
    assert bottleneck["queue"] == {"DropTail": {"limit": {"Packets": 100}}}
    assert all(f["app"]["Bulk"]["tcp"]["cc"] == "NewReno" for f in spec["flows"])


def test_toml_string_dict_and_path_are_the_same_scenario():
    import tomllib

    as_text = cdmasim.parse(SHORT)
    as_dict = cdmasim.parse(tomllib.loads(SHORT))
    assert as_text == as_dict
    path_spec = cdmasim.parse(str(EXAMPLES / "generic.toml"))
    assert path_spec == cdmasim.parse((EXAMPLES / "generic.toml").read_text())


def test_seed_override_replaces_the_file_seed():
    assert cdmasim.run(SHORT).summary["seed"] == 5
    assert cdmasim.run(SHORT, seed=99).summary["seed"] == 99
    with pytest.raises(cdmasim.InputError):
        cdmasim.run(SHORT, seed=-1)


def test_cli_pcap_folder_that_cannot_be_created_is_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    p = cli("run", str(EXAMPLES / "generic.toml"), "--pcap", str(blocker / "pcaps"), "--quiet")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr == f"cdmasim: error: --pcap: {blocker / 'pcaps'}: cannot be created ({blocker} is not a writable folder)\n"


def test_same_seed_same_results_from_python():
    a, b = cdmasim.run(SHORT, seed=11), cdmasim.run(SHORT, seed=11)
    assert a.summary == b.summary
    assert a.series.equals(b.series)
    assert a.flows.equals(b.flows) and a.queues.equals(b.queues)


def test_dataframes_have_the_documented_columns():
    r = cdmasim.run(SHORT)
    assert list(r.flows.columns) == FLOW_COLUMNS
    assert list(r.series.columns) == SERIES_COLUMNS
    assert list(r.drops.columns) == DROP_COLUMNS
    q = list(r.queues.columns)
    assert q[:3] == QUEUE_COLUMNS[:3] and q[-7:] == QUEUE_COLUMNS[3:]
    assert all(c.startswith("drops_") for c in q[3:-7]) and "drops_overflow" in q
    assert len(r.flows) == len(r.summary["flows"])
    # The summary table is the repr.
    assert repr(r).startswith("seed 5, 3 s simulated")


@pytest.mark.parametrize("example", [None, "cdma2000_cell", "web_browsing", "evdo_sector"])
def test_tables_take_their_columns_and_types_from_the_core(example, monkeypatch):
    # Every wide table, full or empty, has the core's columns in the core's
    # order with the dtype of their kind (result.schema: the Rust row types).
    import tomllib

    from cdmasim.result import schema

    monkeypatch.chdir(EXAMPLES)  # trace files are named relative to the examples
    scenario = SHORT
    if example is not None:
        scenario = tomllib.loads((EXAMPLES / f"{example}.toml").read_text())
        scenario["simulation"]["duration"] = "60s"
    r = cdmasim.run(scenario)
    dtype = {"int": "int64", "float": "float64", "int?": "float64", "float?": "float64", "counts": "int64",
             "intervals": "int64"}
    assert set(schema()) == {"flows", "series", "queues", "drops", "users", "sectors", "cells", "mobiles", "objects",
                             "pages", "radio_links", "is2000", "ppp"}
    for table, cols in schema().items():
        if table == "series":
            assert list(r.series.columns) == [c for c, _ in cols] and len(cols) == 4
            continue
        df = getattr(r, table)
        counts = [c for c, k in cols if k == "counts"]
        plain = [c for c in df.columns if not any(c.startswith(f"{x}_") for x in counts)]
        assert plain == [c for c, k in cols if k != "cdf"], table
        for c, k in cols:
            if k in dtype:
                assert str(df[c].dtype) == dtype[k], (table, c, df[c].dtype)
        # Drops, objects and pages stream to files during the run: not in the summary.
        assert len(df) == len(r.summary.get(table, [])) or table in ("drops", "objects", "pages")


def test_a_table_the_core_adds_is_a_python_table_with_no_python_edit(tmp_path, monkeypatch):
    # The core's test-only radio kind (crates/cdmasim-core/src/toy_radio)
    # brings a table, `toy_users`, through its line in the registry of
    # kinds alone; its Rust test checks this entry's name, doc, source,
    # columns and first column's text as the core writes them. The Python
    # extension is built without test-only kinds, so this gives the module
    # that schema entry and a run's rows of it: Result, to_dir, the
    # README's list and the column reference serve it with no edit here.
    import pandas as pd

    from cdmasim import _core, result

    toy = {"name": "toy_users", "doc": "one row per user of a toy radio (a test-only kind)",
           "columns": [["name", "str"], ["radio", "str"], ["packets_delivered", "int"], ["throughput_bps", "float"],
                       ["delay_s", "float"]],
           "column_docs": [" The user (`[[toy_user]]`).\n", " Its radio (`[[toy_radio]]`).\n",
                           " IP packets delivered to it.\n", " IP bytes delivered to it × 8 / run time, bit/s.\n",
                           " Its radio's delay, seconds.\n"],
           "source": "crates/cdmasim-core/src/toy_radio/rows.rs"}
    real = _core.result_schema()
    cached = [result.tables, result.schema, result._long, result.table_names, result.column_docs]
    monkeypatch.setattr(_core, "result_schema", lambda: json.dumps([*json.loads(real), toy]))
    for f in cached:
        f.cache_clear()
    try:
        r = cdmasim.run(SHORT)
        r.summary["toy_users"] = [{"name": "u1", "radio": "r1", "packets_delivered": 7, "throughput_bps": 1.5e3,
                                   "delay_s": 0.04}]
        assert "toy_users" in result.table_names() and "toy_users" in dir(r)
        df = r.toy_users
        assert list(df.columns) == ["name", "radio", "packets_delivered", "throughput_bps", "delay_s"]
        assert str(df["packets_delivered"].dtype) == "int64" and df["delay_s"].tolist() == [0.04]
        written = r.to_dir(tmp_path / "out")
        assert any(pathlib.Path(w).name == "toy_users.parquet" for w in written)
        assert pd.read_parquet(tmp_path / "out" / "toy_users.parquet").equals(df)
        assert "| `toy_users.parquet` | name, radio, packets_delivered, throughput_bps, delay_s — one row per user" \
            in result.markdown()
        assert "Row type: `crates/cdmasim-core/src/toy_radio/rows.rs`." in result.reference()
    finally:
        for f in cached:
            f.cache_clear()


@pytest.mark.parametrize("example", sorted(p.stem for p in EXAMPLES.glob("*.toml") if not p.stem.startswith("sweep_")))
def test_tables_written_from_the_records_read_back_as_the_dataframes(example, monkeypatch):
    """Result.write_table_parquet (what the store and --out write, without
    pandas) reads back as the DataFrame each table is, dtypes included,
    with and without the store's run column."""
    import io

    import pandas as pd

    monkeypatch.chdir(EXAMPLES)
    r = cdmasim.run(EXAMPLES / f"{example}.toml")
    for name in TABLES:
        if name in ("series", "drops"):
            continue
        want = getattr(r, name)
        for key in (None, "k" * 32):
            buf = io.BytesIO()
            r.write_table_parquet(name, buf, run_key=key)
            got = pd.read_parquet(io.BytesIO(buf.getvalue()))
            expected = want.copy()
            if key is not None:
                expected.insert(0, "run", key)
            # A text column with no text (an empty table, or every value
            # missing) is `object` in the DataFrame; the file keeps it text,
            # so that every run's file of a table has one schema.
            untyped = [c for c in expected.columns if expected[c].dtype == object]
            assert all(expected[c].isna().all() and str(got[c].dtype) == "str" for c in untyped), (example, name)
            expected = expected.astype({c: got[c].dtype for c in untyped})
            pd.testing.assert_frame_equal(got, expected, check_dtype=True, obj=f"{example}.{name}")


@pytest.mark.parametrize("example", ["cdma2000_cell", "web_browsing", "is2000"])
def test_a_long_table_is_its_wide_tables_points_row_by_row(example, monkeypatch):
    """Each long table (rlp_cdf, is2000_cdf, dead_periods) holds, for every
    record of its wide table and every field the schema names, one row per
    point in the summary's order: the record's key, the quantity when there
    are several, the point's two numbers (a missing one NaN). Checked
    against that definition built one row at a time."""
    import math

    from cdmasim.result import _long, long_columns

    monkeypatch.chdir(EXAMPLES)
    if example == "is2000":    # an IS-2000 sector: its links' distributions in is2000_cdf
        r = cdmasim.run({"preset": "is2000", "simulation": {"duration": "60s", "seed": 3}, "is2000": {"users": 4}})
    else:
        r = cdmasim.run(EXAMPLES / f"{example}.toml")
    # A point with a missing number, as the JSON would give it.
    r.summary["radio_links"] = [*r.summary.get("radio_links", []), {
        **(r.summary.get("radio_links") or [{"name": "x", "direction": "down"}])[0],
        "name": "extra", "new_data_cdf": [[24.0, None], [48.0, 1.0]], "rtx_cdf": [], "on_time_cdf": None}]
    checked = 0
    for name, (wide, spec) in _long().items():
        several = len(spec["fields"]) > 1
        want = [(*(rec[f] for _, f in spec["key"]), *((q,) if several else ()), a, b)
                for rec in r.summary.get(wide, []) for f, q in spec["fields"] for a, b in rec.get(f) or []]
        got = list(getattr(r, name).itertuples(index=False, name=None))
        assert [c for c, _ in long_columns(name)] == list(getattr(r, name).columns)
        assert len(got) == len(want), name
        for g, w in zip(got, want):
            assert all(x == y or (y is None and math.isnan(x)) for x, y in zip(g, w)), (name, g, w)
        checked += len(got)
    assert checked > 10
    # A point that is not a pair is refused, not flattened into rows.
    r.summary["radio_links"][-1]["new_data_cdf"] = [[[24.0, 0.5]]]
    with pytest.raises(ValueError, match="rlp_cdf: a point is not a pair"):
        r._columns("rlp_cdf")    # the table itself was built above, and is kept


def test_an_empty_tables_file_is_made_once_and_is_what_pyarrow_writes_for_any_key(tmp_path):
    """write_table_parquet keeps one file per empty table, since no row
    holds the run key: its bytes are those pyarrow writes for each key."""
    import io

    import pyarrow.parquet as pq

    from cdmasim.result import _parquet_table

    r = cdmasim.run(SHORT)
    fields, columns = r._columns("users")
    assert columns and all(c == [] for c in columns)
    written = {}
    for key in ("a" * 32, "b" * 32, None):
        fresh = io.BytesIO()
        pq.write_table(_parquet_table(fields, columns, key), fresh)
        cached = io.BytesIO()
        r.write_table_parquet("users", cached, run_key=key)
        assert cached.getvalue() == fresh.getvalue(), key
        written[key] = cached.getvalue()
    assert written["a" * 32] != written[None]  # the run column is there or not
    r.write_table_parquet("users", tmp_path / "users.parquet", run_key="c" * 32)
    assert (tmp_path / "users.parquet").read_bytes() == written["a" * 32]


def test_progress_callback_can_stop_the_run():
    calls = []

    def progress(now, horizon):
        calls.append((now, horizon))
        return False

    # Offered every thousandth of the run: the first offer, at 3 ms of the
    # 3 s, stops it, and the result covers the run up to then.
    r = cdmasim.run(SHORT, progress=progress)
    assert r.summary["seed"] == 5
    assert calls == [(pytest.approx(0.003, abs=1e-12), 3.0)]
    assert r.summary["stopped_at_s"] == pytest.approx(0.003, abs=1e-12)


def test_where_a_callback_stops_the_run_does_not_depend_on_the_machine():
    # The callback is offered at fixed simulated times, so "stop once 1.25 s
    # are simulated" stops at the same simulated time, with the same
    # results, however fast the machine and whatever else it is doing.
    def runs_until(t):
        seen = []

        def progress(now, horizon):
            seen.append(now)
            return now < t

        return cdmasim.run(SHORT, progress=progress, progress_every="250ms"), seen

    a, seen = runs_until(1.25)
    b, _ = runs_until(1.25)
    assert seen == pytest.approx([0.25, 0.5, 0.75, 1.0, 1.25], abs=1e-12)
    assert a.summary["stopped_at_s"] == pytest.approx(1.25, abs=1e-12)
    assert a.summary_json() == b.summary_json()
    assert a.flows.equals(b.flows) and a.series.equals(b.series)
    assert a.flows.bytes_delivered.sum() < cdmasim.run(SHORT).flows.bytes_delivered.sum()


@pytest.mark.parametrize("every", [0, -1, "0s", "fast", True])
def test_bad_progress_intervals_are_input_errors(every):
    with pytest.raises(cdmasim.InputError, match="progress_every"):
        cdmasim.run(SHORT, progress=lambda now, horizon: True, progress_every=every)


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_cli_out_writes_files(tmp_path, fmt):
    out = tmp_path / "out"
    p = cli("run", str(EXAMPLES / "generic.toml"), "--out", str(out), "--format", fmt, "--quiet")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "" and p.stderr == ""
    names = sorted(x.name for x in out.iterdir())
    # With the record of what this write put there (the next one removes
    # what it does not write again).
    assert names == sorted([".cdmasim-files", "summary.json"] + [f"{t}.{fmt}" for t in TABLES])
    assert (out / ".cdmasim-files").read_text().split() == names[1:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["seed"] == 7 and summary["duration_s"] == 30.0
    import pandas as pd

    read = pd.read_csv if fmt == "csv" else pd.read_parquet
    assert list(read(out / f"flows.{fmt}").columns) == FLOW_COLUMNS
    assert list(read(out / f"series.{fmt}").columns) == SERIES_COLUMNS


def test_cli_out_twice_gives_byte_identical_summary(tmp_path):
    for d in ("a", "b"):
        p = cli("run", str(EXAMPLES / "generic.toml"), "--out", str(tmp_path / d), "--format", "csv", "--quiet", "--seed", "3")
        assert p.returncode == 0, p.stderr
    for name in ["summary.json"] + [f"{t}.csv" for t in TABLES]:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_cli_seed_and_json():
    p = cli("run", str(EXAMPLES / "generic.toml"), "--seed", "42", "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["seed"] == 42


def test_cli_table_output():
    p = cli("run", str(EXAMPLES / "dumbbell.toml"))
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("seed 1, 60 s simulated")
    # No progress bar when stderr is not a terminal.
    assert p.stderr == ""


def test_cli_run_does_not_import_pandas(tmp_path):
    (tmp_path / "short.toml").write_text(SHORT)
    code = (
        "import sys, io, contextlib; from cdmasim.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()): main(['run', {str(tmp_path / 'short.toml')!r}])\n"
        "heavy = [m for m in ('pandas', 'numpy', 'pyarrow', 'matplotlib') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == ""


def test_summary_format_units():
    from cdmasim.summary import fmt_rate

    assert fmt_rate(9_600) == "9.6 kb/s"
    assert fmt_rate(1_234_567) == "1.23 Mb/s"
    assert fmt_rate(163_200) == "163.2 kb/s"
    assert fmt_rate(12) == "12 b/s"


def test_summary_table_hides_idle_queues_and_says_so():
    from cdmasim.summary import format_summary

    q = lambda link, util, drops: {"link": link, "kind": "droptail", "drops": drops, "max_packets": 3, "avg_packets": 1.0, "utilization": util}
    s = {"seed": 1, "duration_s": 1.0, "events": 1, "flows": [],
         "queues": [q("busy", 0.9, {}), q("idle", 0.01, {}), q("lossy", 0.0, {"overflow": 2})]}
    text = format_summary(s)
    assert "busy" in text and "lossy" in text and "overflow 2" in text
    assert "idle" not in text.replace("all idle", "")
    assert "(1 queues with no drops and under 5% utilization not shown)" in text


LONG = SHORT.replace('duration = "3s"', 'duration = "3600s"').replace('"2Mbps"', '"200Mbps"')


def test_ctrl_c_stops_a_long_run_with_one_line(tmp_path):
    import signal
    import time

    (tmp_path / "long.toml").write_text(LONG)
    # SIGINT at its default in the child: inherited as ignored (a test run in
    # the background of a non-interactive shell), Python would never see it.
    p = subprocess.Popen([sys.executable, "-m", "cdmasim.cli", "run", str(tmp_path / "long.toml")],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(2.0)  # well into the run (an hour of 200 Mb/s takes far longer)
    t = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    # The core checks for signals every 0.2 s of wall time.
    assert time.monotonic() - t < 5
    assert p.returncode == 130, err
    assert err == "cdmasim: interrupted\n" and out == ""


def test_progress_callback_is_called_and_can_stop_a_long_run():
    calls = []

    def progress(now, horizon):
        calls.append((now, horizon))
        return len(calls) < 2

    r = cdmasim.run(LONG, progress=progress)
    assert len(calls) == 2
    # Offered every thousandth of the hour: at 3.6 s and 7.2 s.
    assert calls == [(pytest.approx(3.6, abs=1e-9), 3600.0), (pytest.approx(7.2, abs=1e-9), 3600.0)]
    # Stopped at the second call: the result is the run so far, consistent.
    stop = r.summary["stopped_at_s"]
    assert stop == pytest.approx(calls[1][0], abs=1e-6) and r.summary["duration_s"] == pytest.approx(stop)
    c = r.summary["conservation"]
    assert c["sent"] == c["delivered"] + c["dropped"] + c["in_network"] > 0
    assert (r.series.t_s <= stop).all()


def test_a_failing_progress_callback_raises_its_exception():
    def progress(now, horizon):
        raise ValueError("callback broke")

    with pytest.raises(ValueError, match="callback broke"):
        cdmasim.run(LONG, progress=progress)


def test_cli_plot_draws_the_recorded_series(tmp_path):
    # The testbed traces cwnd and samples queues: cwnd, queue, goodput, the
    # stream's delay and (it drops packets) the drops; each a real PNG. The
    # dumbbell samples queues and goodput but traces no cwnd: its figures,
    # and a note on how to get cwnd.
    p = cli("run", "examples/evdo_testbed.toml", "--quiet", "--plot", str(tmp_path / "a"))
    assert p.returncode == 0, p.stderr
    names = sorted(f.name for f in (tmp_path / "a").iterdir())
    assert names == [".cdmasim-files", "cwnd_ftp.png", "drops.png", "goodput.png", "owd_voip.png", "queues.png"]
    for f in (tmp_path / "a").glob("*.png"):
        assert f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f.stat().st_size > 5000
    assert "note" not in p.stderr
    toml = (EXAMPLES / "dumbbell.toml").read_text().replace('duration = "60s"', 'duration = "2s"')
    (tmp_path / "d.toml").write_text(toml)
    p = cli("run", str(tmp_path / "d.toml"), "--plot", str(tmp_path / "b"))
    assert p.returncode == 0, p.stderr
    assert "trace_cwnd = true" in p.stderr and "sample_interval" not in p.stderr
    # --quiet silences the notes too.
    p = cli("run", str(tmp_path / "d.toml"), "--quiet", "--plot", str(tmp_path / "b"))
    assert p.returncode == 0 and p.stderr == "" and p.stdout == "", p.stderr
    drops = ["drops.png"] if cdmasim.run(str(tmp_path / "d.toml")).summary["conservation"]["dropped"] else []
    assert sorted(f.name for f in (tmp_path / "b").glob("*.png")) == sorted(["goodput.png", "queues.png"] + drops)


def test_usage_errors_are_one_line_exit_2():
    for args in (["run"], ["run", "x.toml", "--bogus"], ["channel", "stats"], ["nosuchcommand"]):
        p = cli(*args)
        assert p.returncode == 2, (args, p.stderr)
        assert len(p.stderr.splitlines()) == 1 and "error:" in p.stderr and "Traceback" not in p.stderr, (args, p.stderr)


def test_a_closed_pipe_or_a_full_device_gives_no_traceback():
    # A reader that stops after one byte: the summary's write hits a closed pipe.
    p = subprocess.run(f"{sys.executable} -m cdmasim.cli run examples/dumbbell.toml --json | head -c 1",
                       shell=True, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in p.stderr and "BrokenPipeError" not in p.stderr, p.stderr
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-m", "cdmasim.cli", "run", "examples/dumbbell.toml"], cwd=ROOT,
                           stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert p.returncode == 2 and "no space left" in p.stderr and "Traceback" not in p.stderr, p.stderr


def test_output_places_are_checked_before_the_run(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    for flag in ("--out", "--plot"):
        for bad in (blocker, blocker / "sub"):
            p = cli("run", "examples/dumbbell.toml", flag, str(bad))
            assert p.returncode == 2 and len(p.stderr.splitlines()) == 1 and flag in p.stderr, p.stderr
            assert p.stdout == ""
    p = cli("run", "examples/dumbbell.toml", "--format", "csv")
    assert p.returncode == 2 and "--format" in p.stderr and p.stdout == "", p.stderr


@pytest.mark.parametrize("args", [
    ["run", "examples/dumbbell.toml", "--seed", "-1"],
    ["run", "examples/dumbbell.toml", "--seed", str(2**64)],
    ["evdo", "schedule", "--preset", "stationary", "--users", "-1"],
    ["evdo", "schedule", "--preset", "stationary", "--users", "100000"],
    ["evdo", "schedule", "--preset", "stationary", "--slots", "1000000000000"],
    ["channel", "generate", "stationary", "--slots", "10000000000000", "--out", "OUT/x.drc"],
    ["channel", "generate", "stationary", "--slots", "100", "--seed", "-1", "--out", "OUT/x.drc"],
    ["channel", "fit", "x.drc", "--order", str(2**70), "--out", "OUT/m.json"],
    ["channel", "stats", "x.drc", "--max-order", "-1"],
    ["channel", "stats", "x.drc", "--max-lag", "1000000000"],
    ["sweep", "x.toml", "--store", "OUT/s", "--jobs", "0"],
    ["reproduce", "jung", "--out", "OUT/r", "--jobs", "-2"],
])
def test_out_of_range_numbers_are_one_line_before_anything_runs(args, tmp_path):
    p = cli(*[a.replace("OUT", str(tmp_path / "o")) for a in args])
    assert p.returncode == 2 and len(p.stderr.splitlines()) == 1 and "Traceback" not in p.stderr, p.stderr
    assert not (tmp_path / "o").exists(), "nothing written"


def test_cli_run_imports_neither_typing_nor_tempfile(tmp_path):
    """`cdmasim run` starts without typing, tempfile, random, shutil, pandas
    or pyarrow (start-up is a third of a small run's time)."""
    import os

    code = ("import sys; from cdmasim.cli import main; rc = main(['run', sys.argv[1], '--json', '--quiet']); "
            "print(sorted(m for m in ('typing', 'tempfile', 'random', 'shutil', 'pandas', 'pyarrow') "
            "if m in sys.modules), "
            "file=sys.stderr)")
    p = subprocess.run([sys.executable, "-c", code, str(EXAMPLES / "dumbbell.toml")], capture_output=True, text=True,
                       cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT / "python")})
    assert p.returncode == 0, p.stderr
    assert p.stderr.strip().splitlines()[-1] == "[]"
    assert json.loads(p.stdout)["events"] > 0


@pytest.mark.parametrize("columns", [None, "60", "200", "0", "x"])
def test_help_is_as_wide_as_argparse_makes_it(columns, monkeypatch):
    """The parser finds the terminal's width without shutil: its help is
    argparse's own, line for line, for any $COLUMNS."""
    import argparse

    from cdmasim.cli import OneLineParser, build_parser

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    run = build_parser("run")._subparsers._group_actions[0].choices["run"]
    ours = run.format_help()
    monkeypatch.setattr(OneLineParser, "_get_formatter", argparse.ArgumentParser._get_formatter)
    assert ours == run.format_help()


def test_run_s_annotations_resolve():
    """cdmasim ships py.typed: run's annotations name what exists."""
    import typing

    hints = typing.get_type_hints(cdmasim.run)
    assert hints["return"] is cdmasim.result.Result


def test_a_runs_private_folder_is_its_own_and_goes_with_the_result(tmp_path, monkeypatch):
    """The drop log and series spool live in a folder only this user can
    read, under TMPDIR, or under tempfile.tempdir when a program loaded
    tempfile and set it; it goes when the Result does, and only the
    engine's files are removed from it."""
    import gc
    import os
    import stat
    import sys as _sys
    import tempfile

    from cdmasim import simulate

    monkeypatch.delitem(_sys.modules, "tempfile")
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    d = simulate._private_dir("cdmasim-drops-")
    assert os.path.dirname(d) == str(tmp_path) and stat.S_IMODE(os.stat(d).st_mode) == 0o700
    os.rmdir(d)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TMPDIR", "relative")
    os.mkdir("relative")
    d = simulate._private_dir("cdmasim-drops-")
    assert d == os.path.join(str(tmp_path), "relative", os.path.basename(d))   # absolute: read later from anywhere
    os.rmdir(d)
    monkeypatch.setitem(_sys.modules, "tempfile", tempfile)
    other = tmp_path / "elsewhere"
    other.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(other))
    r = cdmasim.run(EXAMPLES / "dumbbell.toml")
    folder = os.path.dirname(r._drops_path)
    assert os.path.dirname(folder) == str(other) and os.path.exists(r._drops_path)
    del r
    gc.collect()
    assert not os.path.exists(folder)
    kept = simulate._private_dir("cdmasim-drops-")
    open(os.path.join(kept, "mine.txt"), "w").close()
    open(os.path.join(kept, "drops.csv"), "w").close()
    simulate._remove_run_files(kept)
    assert os.listdir(kept) == ["mine.txt"]


def test_streamed_web_tables_are_the_cores_own_rows():
    # A run streams its objects and pages to CSV files as pages finish
    # (interleaved across users); read back, they are the rows the core
    # keeps in memory when it does not stream: same order (the scenario's
    # flows, then page, then object), values and missing values.
    import tomllib

    import pandas as pd

    from cdmasim import _core
    from cdmasim.result import Result

    doc = tomllib.loads((EXAMPLES / "web_browsing.toml").read_text())
    doc["simulation"]["duration"] = "400s"    # pages under way at the end
    # Three users whose names do not sort in the scenario's order, one
    # written quoted (a comma and a quote).
    names = ["zeta", "alpha", 'mid, "x"']
    doc["flow"] = [dict(doc["flow"][0], name=n) for n in names]
    doc["flow"][1]["start"] = "3s"
    streamed = cdmasim.run(doc, seed=4)
    text = cdmasim.simulate.scenario_text(cdmasim.parse(doc)).text
    summary, series = _core.run_scenario(text, "<test>", 4, form="spec")
    kept = Result(json.loads(summary), series)
    assert "objects" in kept.summary and "objects" not in streamed.summary
    for table in ("objects", "pages"):
        a, b = getattr(streamed, table), getattr(kept, table)
        assert len(a) > 20 and list(a["flow"].unique()) == names, table
        assert a["finish_s"].isna().any(), f"{table}: no page was under way at the end"
        pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize("points", [[[1.0, 0.5], [2.0]], [[1.0, 0.5, 0.7]], [[1.0, "half"]], [3.0]])
def test_a_distribution_point_that_is_not_a_pair_of_numbers_is_refused(points):
    from cdmasim.result import Result

    cell = {"name": "c", "dead_periods": [[0.0, 1.0]]}
    assert list(Result({"cells": [cell]}).dead_periods["end_s"]) == [1.0]
    with pytest.raises(ValueError, match="dead_periods: a point is not a pair of numbers"):
        Result({"cells": [dict(cell, dead_periods=[[0.0, 1.0], *points])]}).dead_periods


def test_web_rows_whose_flow_names_hold_line_breaks_read_back_whole(tmp_path):
    # A quoted field may hold a line break; in a file bigger than the CSV
    # reader's block (1 MiB) one falls across a block's end somewhere.
    from cdmasim.result import Result

    names = ["a\nb", 'c,"d"\r\ne', "plain"]
    cols = "flow,page,index,request_bytes,size_bytes,start_s,finish_s,delay_s,normalized_s_per_kb"
    rows = []
    for i in range(60_000):
        name = names[i % 3]
        quoted = '"' + name.replace('"', '""') + '"' if any(c in name for c in ',"\r\n') else name
        rows.append(f"{quoted},{i // 3},0,300,{1000 + i},{i}.5,{'' if i % 7 == 0 else i + 1},,0.25")
    (tmp_path / "objects.csv").write_text(cols + "\n" + "\n".join(reversed(rows)) + "\n", newline="")
    assert (tmp_path / "objects.csv").stat().st_size > 2 << 20
    summary = {"flows": [{"name": n} for n in names]}
    df = Result(summary, web_dir=str(tmp_path)).objects
    assert len(df) == 60_000 and list(df["flow"][:2]) == ["a\nb", "a\nb"]
    assert df.groupby("flow", sort=False).size().to_dict() == {n: 20_000 for n in names}
    assert list(df["page"][:3]) == [0, 1, 2] and df["size_bytes"].iloc[-1] == 1000 + 59_999
    assert df["finish_s"].isna().sum() == len(range(0, 60_000, 7)) and df["delay_s"].isna().all()


def test_a_series_spool_that_ends_inside_a_chunk_is_refused(tmp_path):
    # The index names a chunk of 3 points (6 numbers) at offset 8; the
    # file holds 5 numbers after it: the read says which file is short
    # instead of handing out shifted times and values.
    import numpy as np

    from cdmasim.result import Result

    spool = tmp_path / "series.bin"
    spool.write_bytes(np.arange(6, dtype="<f8").tobytes())
    whole = np.array([[8, 2]], dtype="<u8").tobytes()
    r = Result({}, [("queue_pkts", "l", whole)], series_path=str(spool))
    assert list(r.series["t_s"]) == [1.0, 2.0] and list(r.series["value"]) == [3.0, 4.0]
    short = np.array([[8, 3]], dtype="<u8").tobytes()
    with pytest.raises(OSError, match="series.bin: the series spool ends inside a chunk"):
        Result({}, [("queue_pkts", "l", short)], series_path=str(spool)).series
