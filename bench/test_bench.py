"""Tests of the benchmark harness: `pytest bench/test_bench.py`.

The harness logic is tested without any simulator; the two reference
programs are run briefly (5 s simulated) when ns-2 / ns-3 are installed and
checked against the bottleneck's payload ceiling.
"""

import json
import os
import shutil
import stat
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import report  # noqa: E402
import sims  # noqa: E402


def test_jain_equal_shares_is_one_and_one_hog_is_one_over_n():
    assert report.jain([2.0, 2.0, 2.0]) == pytest.approx(1.0)
    assert report.jain([5.0, 0.0, 0.0, 0.0]) == pytest.approx(0.25)
    assert report.jain([]) is None


def test_flow_goodput_divides_by_time_since_each_start():
    sc = sims.Dumbbell(flows=2, duration_s=60.0, spacing_s=0.010)
    flows = [{"bytes_delivered": 7_500_000}, {"bytes_delivered": 7_487_500}]
    g = sims._flow_goodputs(sc, flows)
    assert g[0] == pytest.approx(7_500_000 * 8 / 60.0)
    assert g[1] == pytest.approx(7_487_500 * 8 / 59.99)


def test_toml_carries_the_scenario():
    tomllib = pytest.importorskip("tomllib")
    sc = sims.Dumbbell(flows=10)
    t = tomllib.loads(sims.cdmasim_toml(sc))
    assert t["preset"] == "dumbbell"
    assert t["simulation"] == {"duration": "60s", "seed": 1}
    d = t["dumbbell"]
    assert d["flows"] == 10 and d["start_spacing"] == "10ms"
    assert d["bottleneck_rate"] == "10Mbps" and d["bottleneck_delay"] == "20ms"
    assert d["queue"] == {"kind": "droptail", "limit": "100pkt"}
    assert d["access_queue"]["limit"] == "1000pkt"
    tcp = d["tcp"]
    assert (tcp["cc"], tcp["sack"], tcp["timestamps"]) == ("newreno", False, False)
    assert tcp["mss"] == "1460B" and tcp["initial_window"] == 2
    assert tcp["rcv_buffer"] == f"{16 * 1024 * 1024}B"
    assert tcp["delayed_ack"] == "off" and tcp["min_rto"] == "1s"


def _fake_cli(tmp_path, body: str) -> str:
    """A stand-in executable for exercising the harness's error handling."""
    p = tmp_path / "cdmasim"
    p.write_text("#!/bin/sh\n" + body + "\n")
    p.chmod(p.stat().st_mode | stat.S_IEXEC)
    return str(p)


def test_missing_cdmasim_is_reported_not_invented(tmp_path):
    sc = sims.Dumbbell(flows=1)
    r = sims.run_cdmasim(sc, None, tmp_path)
    assert not r.available and "not available" in r.reason and r.goodput_bps == []


def test_cdmasim_without_run_command_is_not_available(tmp_path):
    cli = _fake_cli(tmp_path, "echo \"cdmasim: error: argument command: invalid choice: 'run'\" >&2; exit 2")
    r = sims.run_cdmasim(sims.Dumbbell(flows=1), cli, tmp_path / "w")
    assert not r.available
    assert "exited 2" in r.reason and "invalid choice" in r.reason


def test_placeholder_result_is_not_available(tmp_path):
    empty = json.dumps({"seed": 1, "duration_s": 60.0, "events": 0, "flows": [], "queues": []})
    cli = _fake_cli(tmp_path, f"echo '{empty}'")
    r = sims.run_cdmasim(sims.Dumbbell(flows=1), cli, tmp_path / "w")
    assert not r.available and "placeholder" in r.reason


def test_compare_goals():
    def avail(total, wall, engine, events=None):
        return {"available": True, "total_goodput_mbps": total, "wall_s_median": wall,
                "engine_s_median": engine, "events": events}
    case = {"cdmasim": avail(9.8, 0.05, 0.04, events=4_000_000),
            "ns-2": avail(9.7, 0.6, 0.3), "ns-3": avail(9.0, 7.0, 6.9, events=700_000)}
    c = report.compare(case)
    assert c["cdmasim_vs_ns2_pct"] == pytest.approx(100 * 0.1 / 9.7)
    assert c["goodput_goal_ns2"] == "PASS" and c["goodput_goal_ns3"] == "FAIL"
    assert c["ns2_over_cdmasim_wall"] == pytest.approx(12.0) and c["speed_goal_ns2"] == "PASS"
    assert c["ns3_over_cdmasim_wall"] == pytest.approx(140.0) and c["speed_goal_ns3"] == "PASS"
    assert c["cdmasim_events_per_s"] == pytest.approx(1e8)
    case["cdmasim"] = {"available": False, "reason": "x"}
    c = report.compare(case)
    assert c["goodput_goal_ns2"] == "n/a" and c["ns2_over_cdmasim_wall"] is None


def _ceiling_ok(sc, run, wire_bytes):
    """Total payload cannot exceed what the bottleneck carries after the last
    flow starts: rate * 1460 / wire_bytes per packet, over (duration - last start)."""
    span = sc.duration_s - sc.start_s(sc.flows - 1)
    ceiling_bps = sc.bottleneck_mbps * 1e6 * 1460 / wire_bytes
    delivered_bits = sum(g * (sc.duration_s - sc.start_s(i)) for i, g in enumerate(run.goodput_bps))
    assert 0 < delivered_bits <= ceiling_bps * sc.duration_s
    # and the flows together keep the link reasonably busy after start-up
    assert delivered_bits / span > 0.5 * ceiling_bps


@pytest.mark.skipif(not sims.ns2_ready()[0], reason="ns-2 not installed (apt-get install ns2)")
def test_ns2_dumbbell_runs_and_respects_the_bottleneck():
    sc = sims.Dumbbell(flows=2, duration_s=5.0)
    a, b = sims.run_ns2(sc), sims.run_ns2(sc)
    assert a.available, a.reason
    assert len(a.goodput_bps) == 2 and a.other_drops == 0
    _ceiling_ok(sc, a, 1500)
    assert a.goodput_bps == b.goodput_bps  # deterministic


@pytest.mark.skipif(not sims.ns3_ready()[0], reason="ns-3 not installed (apt-get install libns3-dev)")
def test_ns3_dumbbell_runs_and_respects_the_bottleneck():
    ok, why = sims.build_ns3()
    assert ok, why
    sc = sims.Dumbbell(flows=2, duration_s=5.0)
    r = sims.run_ns3(sc)
    assert r.available, r.reason
    assert len(r.goodput_bps) == 2 and r.other_drops == 0 and r.events > 0
    _ceiling_ok(sc, r, 1502)  # PPP adds 2 bytes per packet


# ------------------------------------------------- congestion-control variants

def test_variant_toml_carries_the_matched_parameters():
    tomllib = pytest.importorskip("tomllib")
    sc = sims.Dumbbell(flows=1, cc="vegas", sack=True)
    tcp = tomllib.loads(sims.cdmasim_toml(sc))["dumbbell"]["tcp"]
    assert (tcp["cc"], tcp["sack"]) == ("vegas", True)
    # ns-3's Vegas thresholds, not the paper's 1/3/1
    assert tcp["vegas"] == {"alpha": 2.0, "beta": 4.0, "gamma": 1.0}
    bbr = tomllib.loads(sims.cdmasim_toml(sims.Dumbbell(flows=1, cc="bbr")))["dumbbell"]["tcp"]["bbr"]
    assert bbr["high_gain"] == 2.89 and bbr["min_rtt_window"] == "10s"
    cubic = tomllib.loads(sims.cdmasim_toml(sims.Dumbbell(flows=1, cc="cubic")))["dumbbell"]["tcp"]["cubic"]
    assert cubic["reno_friendly"] is False and cubic["hystart"] is False
    # NewReno has no parameter table; the benchmark's old scenario is unchanged
    assert "newreno" not in tomllib.loads(sims.cdmasim_toml(sims.Dumbbell(flows=1)))["dumbbell"]["tcp"]
    assert sims.scenario_name(sims.Dumbbell(flows=10)) == "dumbbell-10"
    assert sims.scenario_name(sc) == "dumbbell-vegas-sack-1"


def test_every_variant_is_matched_in_both_simulators():
    assert set(sims.CC_MATCH) == set(sims.CC_VARIANTS)
    for cc in ("cubic", "vegas", "westwood", "bbr"):
        m = sims.CC_MATCH[cc]
        assert m.cdmasim and m.ns3 and all(a.startswith("--ns3::") for a in m.ns3)
    assert "--ns3::TcpSocketState::EnablePacing=true" in sims.CC_MATCH["bbr"].ns3
    assert "--ns3::TcpWestwood::ProtocolType=WestwoodPlus" in sims.CC_MATCH["westwood"].ns3
    assert sims.CC_MATCH["westwood"].cdmasim == {"filter_gain": 0.9, "min_sample_interval": "0s"}


def test_ns2_refuses_a_variant_it_does_not_model(monkeypatch):
    monkeypatch.setattr(sims, "ns2_ready", lambda: (True, ""))
    r = sims.run_ns2(sims.Dumbbell(flows=1, cc="cubic", sack=True))
    assert not r.available and "NewReno without SACK" in r.reason


def test_unimplemented_algorithm_is_na_with_the_panic_message(tmp_path):
    # What the CLI prints when by_name reaches a todo!() arm (pyo3 turns the
    # Rust panic into a PanicException and the traceback ends with it).
    cli = _fake_cli(tmp_path, "cat >&2 <<'X'\n"
                    "thread '<unnamed>' panicked at crates/cdmasim-core/src/tcp/cc/mod.rs:150:13:\n"
                    "not yet implemented: bbr is not implemented yet\n"
                    "Traceback (most recent call last):\n  File \"x\", line 1\n"
                    "pyo3_runtime.PanicException: not yet implemented: bbr is not implemented yet\nX\nexit 1")
    r = sims.run_cdmasim(sims.Dumbbell(flows=1, cc="bbr", sack=True), cli, tmp_path / "w")
    assert not r.available and r.goodput_bps == []
    assert r.reason.endswith("not yet implemented: bbr is not implemented yet")


def _avail(total, per_flow, drops, rtos, wall, engine):
    return {"available": True, "total_goodput_mbps": total, "jain": report.jain(per_flow),
            "bottleneck_drops": drops, "timeouts_total": rtos, "wall_s_median": wall,
            "engine_s_median": engine, "events": 1000, "deterministic": True,
            "starved_flows": 0, "other_drops": 0}


def test_variant_rows_and_table_show_na_never_a_number():
    import report_variants as rv
    ok = {"cdmasim": _avail(9.5, [4.5, 5.0], 100, 1, 0.25, 0.1),
          "ns-2": {"available": False, "reason": "not selected (--only)"},
          "ns-3": _avail(9.0, [4.0, 5.0], 120, 2, 5.0, 4.0)}
    ok["compare"] = report.compare(ok)
    missing = {"cdmasim": {"available": False, "reason": "cdmasim not available: vegas is not implemented yet"},
               "ns-2": ok["ns-2"], "ns-3": ok["ns-3"]}
    missing["compare"] = report.compare(missing)
    r_ok, r_na = rv.row("cubic", 2, ok), rv.row("vegas", 2, missing)
    # (9.5 - 9.0) / 9.0 = +5.56 %; 5.0 s / 0.25 s = 20x; Jain of (4, 5) = 81 / 82
    assert r_ok["cdmasim_vs_ns3_pct"] == pytest.approx(100 * 0.5 / 9.0)
    assert r_ok["ns3_over_cdmasim_wall"] == pytest.approx(20.0)
    assert r_ok["jain_ns3"] == pytest.approx(81 / 82)
    assert r_na["cdmasim_mbps"] is None and r_na["cdmasim_vs_ns3_pct"] is None
    assert r_na["ns3_over_cdmasim_wall"] is None and r_na["ns3_mbps"] == 9.0
    result = {"scenario": {"bottleneck_mbps": 10, "bottleneck_delay_ms": 20, "bottleneck_buffer_pkts": 100,
                           "initial_window": 2, "min_rto_s": 1.0, "duration_s": 60.0},
              "sack": True, "repeats": 1, "machine": {}, "ns3_extra_args": [],
              "matching": {"vegas": {"cdmasim": {"alpha": 2.0}, "ns3": ["--ns3::TcpVegas::Alpha=2"]}},
              "cases": {rv.case_key("cubic", 2): ok, rv.case_key("vegas", 2): missing},
              "rows": [r_ok, r_na]}
    text = rv.render(result)
    cubic_line = next(l for l in text.splitlines() if l.strip().startswith("cubic"))
    vegas_line = next(l for l in text.splitlines() if l.strip().startswith("vegas  2"))
    assert "9.500" in cubic_line and "+5.56" in cubic_line and "20.0" in cubic_line
    assert vegas_line.split()[2] == "n/a" and "9.000" in vegas_line and "+" not in vegas_line
    assert "vegas N=2 cdmasim: n/a: cdmasim not available: vegas is not implemented yet" in text


def test_variants_mode_defaults():
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import run
    a = run.parse_args(["--variants"])
    assert (a.cases, a.repeats, a.only, a.sack) == ("1,10", 1, "cdmasim,ns-3", True)
    assert run.is_full_variant_run(a)
    assert not run.is_full_variant_run(run.parse_args(["--variants", "--cc", "bbr"]))
    b = run.parse_args([])
    assert (b.cases, b.repeats, b.sack) == ("1,10,100", 3, False)


def test_ns3_gets_the_variant_sack_and_matched_attributes(tmp_path, monkeypatch):
    out = {"goodput_bps": [1.0], "bottleneck_drops": 0, "other_drops": 0, "engine_s": 0.1,
           "events": 10, "rx_bytes": [1], "sender_state": ["ESTABLISHED"], "timeouts": [0],
           "fast_recoveries": [0], "bottleneck_dequeued": 1}
    fake = tmp_path / "ns3"
    fake.write_text("#!/bin/sh\necho \"$@\" > " + str(tmp_path / "args") + f"\necho '{json.dumps(out)}'\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setattr(sims, "NS3_BIN", fake)
    r = sims.run_ns3(sims.Dumbbell(flows=1, cc="westwood", sack=True), ("--x=1",))
    assert r.available
    args = (tmp_path / "args").read_text().split()
    assert "--cc=westwood" in args and "--ns3::TcpSocketBase::Sack=true" in args
    assert "--ns3::TcpWestwood::ProtocolType=WestwoodPlus" in args
    assert args[-1] == "--x=1"  # diagnostics come last, so they override


def test_cc_without_variants_is_refused(capsys):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import run
    with pytest.raises(SystemExit) as e:
        run.parse_args(["--cc", "cubic"])
    assert e.value.code == 2 and "--cc needs --variants" in capsys.readouterr().err


# ------------------------------------------------------------ paliwal.py

import paliwal  # noqa: E402


def test_paliwal_cells_parse_and_refuse_bad_ones():
    assert len(paliwal.parse_cells("all")) == 169
    assert paliwal.parse_cells("8x5, 0.02x10") == [(8.0, 5.0), (0.02, 10.0)]
    assert paliwal.parse_cells("none") == []
    for bad in ("8by5", "0x5", "8x-1"):
        with pytest.raises(SystemExit):
            paliwal.parse_cells(bad)


def _paliwal_case(tb, td, sim_walls):
    c = {"sch": "bursts", "burst": tb, "gap": td, "duration": 220.0, "m": 10, "n": 10,
         "queue": "red", "seed": 1, "topo": "flat"}
    e = {"case": c, "runs": {}, "dead": {}}
    for sim, wall in sim_walls.items():
        r = {"available": True, "wall_s": wall, "goodput_bps": [1e4] * 100, "bsc_drops": 7,
             "timeouts": [1] * 100, "retransmits": [2] * 100, "events": 10}
        if sim == "ns-2":
            r["engine_s"] = wall / 2
            r["sch_switches"] = 3
        e["runs"][sim] = [r]
    e.update(paliwal.summarise(e))
    return e


def test_paliwal_report_gives_per_cell_and_phase_ratios():
    cases = {"8x5": _paliwal_case(8, 5, {"ns-2": 1.5, "cdmasim": 0.1}),
             "1x1": _paliwal_case(1, 1, {"ns-2": 2.0, "cdmasim": 0.2})}
    assert cases["8x5"]["ratio"] == pytest.approx(15.0)
    assert cases["8x5"]["paper_rho_dead_pct"] == 19.84
    phases = {"cdmasim": {"wall_s": 0.2, "runs": 2, "jobs": 2, "mode": "inprocess"},
              "ns-2": {"wall_s": 2.0, "runs": 2, "jobs": 2, "mode": "one `ns` process per run"}}
    text = paliwal.render({"cases": cases, "phases": phases})
    assert "ratio of totals ns-2 / cdmasim: 11.7" in text      # 3.5 s / 0.3 s
    assert "ratio of phase wall times ns-2 / cdmasim: 10.0" in text


def test_paliwal_inprocess_worker_runs_a_small_cell():
    """Two worker processes of the venv's Python, as the benchmark's cdmasim
    phase uses them, on a 2-mobile cell of 20 s (skipped without cdmasim)."""
    root = Path(__file__).resolve().parent.parent
    py = root / ".venv" / "bin" / "python"
    if not py.exists():
        pytest.skip("no .venv: run scripts/setup")
    import subprocess
    if subprocess.run([str(py), "-c", "import cdmasim._core"], capture_output=True).returncode != 0:
        pytest.skip("cdmasim's core is not built in .venv")
    workers = paliwal.CdmasimWorkers(str(py), 2)
    try:
        c = {"sch": "bursts", "burst": 2.0, "gap": 3.0, "duration": 20.0, "m": 1, "n": 2,
             "queue": "red", "seed": 1, "topo": "flat"}
        r1 = paliwal.run_cdmasim_inprocess(c, workers)
        bad = workers.run('preset = "cdma2000"\n[simulation]\nduration = "10s"\n[cdma2000]\nm = 0\nn = 3\n')
        r2 = paliwal.run_cdmasim_inprocess(c, workers)
    finally:
        workers.close()
    assert r1["available"], r1.get("reason")
    assert len(r1["goodput_bps"]) == 2 and min(r1["goodput_bps"]) > 0
    # The same cell again, after the bad one (the worker went on): identical.
    assert r1["rx_bytes"] == r2["rx_bytes"] and r1["bsc_drops"] == r2["bsc_drops"]
    assert r1["dead"]["available"] and 0.0 <= r1["dead"]["rho_dead"] < 1.0
    # A bad cell is an answer with its reason, and the worker goes on.
    assert bad["ok"] is False and "cdma2000.m" in bad["reason"], bad


def test_paliwal_plot_matrices_are_rows_td_columns_tb():
    import paliwal_plot

    cases = {"8x5": _paliwal_case(8, 5, {"ns-2": 1.5, "cdmasim": 0.1}),
             "0.02x10": _paliwal_case(0.02, 10, {"ns-2": 2.0, "cdmasim": 0.5})}
    ns2, cdm, ratio = paliwal_plot.matrices({"cases": cases})
    g = paliwal_plot.GRID
    assert ns2[g.index(5)][g.index(8)] == 1.5 and cdm[g.index(5)][g.index(8)] == 0.1
    assert ratio[g.index(10)][g.index(0.02)] == pytest.approx(4.0)
    assert ratio[g.index(8)][g.index(5)] is None     # 5x8 was not run


def test_compile_cdmasim_leaves_fresh_bytecode_as_pip_would():
    import importlib.util

    import cdmasim

    sims.compile_cdmasim(sys.executable)
    pkg = os.path.dirname(cdmasim.__file__)
    for name in ("cli.py", "result.py", "simulate.py"):
        src = os.path.join(pkg, name)
        pyc = importlib.util.cache_from_source(src)
        assert os.path.exists(pyc) and os.stat(pyc).st_mtime >= os.stat(src).st_mtime, name


def test_instructions_reads_callgrinds_total_and_refuses_a_missing_one():
    import instructions
    err = "==123== Events    : Ir\n==123== Collected : 42\n==123== \n==123== I   refs:      1,234,567\n"
    assert instructions.instructions(err) == 1_234_567
    with pytest.raises(ValueError):
        instructions.instructions("==123== Process terminating with default action of signal 11\n")


def test_instructions_table_gives_both_ratios_and_leaves_an_uncounted_start_up_blank():
    import instructions
    rows = [{"what": "a", "cdmasim": 100e6, "reference": "ns-2.35", "reference_whole": 900e6, "reference_startup": 400e6,
             "goodput_bps": 9.4e6, "reference_goodput_bps": 9.5e6},
            {"what": "b", "cdmasim": 50e6, "reference": "tcptrace", "reference_whole": 150e6, "reference_startup": None}]
    lines = instructions.table(rows).splitlines()
    assert lines[2] == "| a | 100.0 M | ns-2.35 | 900.0 M | 500.0 M | 9.0x | 5.0x | 9.400 / 9.500 Mb/s |"
    assert lines[3] == "| b | 50.0 M | tcptrace | 150.0 M |  | 3.0x |  |  |"


def test_instructions_names_the_programs_error_not_callgrinds():
    import instructions
    err = "==7== Callgrind, a call-graph generating cache profiler\nns: no such file x.tcl\n==7== I   refs:      12\n"
    assert instructions.last_words(err) == "ns: no such file x.tcl"
    assert instructions.last_words("==7== only callgrind\n") == "(nothing on stderr)"


def test_instructions_refuses_ns2_output_that_is_not_the_same_work():
    import instructions
    with pytest.raises(instructions.Failed, match="no JSON"):
        instructions.ns2_json("warning: something\n", "the dumbbell")
    with pytest.raises(instructions.Failed, match="whole packets"):
        instructions.ns2_json(json.dumps({"sink_bytes_unexpected": 1, "goodput_bps": [1.0]}), "the dumbbell")
    assert instructions.ns2_json(json.dumps({"sink_bytes_unexpected": 0, "goodput_bps": [1.0]}), "x")["goodput_bps"] == [1.0]


def test_instructions_bad_options_exit_2_and_a_failed_program_exits_1_writing_nothing(tmp_path, monkeypatch, capsys):
    import instructions
    assert instructions.main(["--only", "dumbbell,nope", "--out", str(tmp_path)]) == 2
    assert instructions.main(["--flows", "1,x", "--out", str(tmp_path)]) == 2
    assert "--flows: '1,x'" in capsys.readouterr().err
    monkeypatch.setattr(instructions, "missing", lambda programs, capture, cli: None)

    def fail(only, flows, cli):
        raise instructions.Failed("ns exited 1: boom")
    monkeypatch.setattr(instructions, "measure", fail)
    assert instructions.main(["--only", "dumbbell", "--out", str(tmp_path)]) == 1
    assert capsys.readouterr().err.strip() == "instructions: ns exited 1: boom"
    assert list(tmp_path.iterdir()) == []


ANNOTATED = """--------------------------------------------------------------------------------
293,287,642  PROGRAM TOTALS

--------------------------------------------------------------------------------
Ir                   file:function
--------------------------------------------------------------------------------
11,145,645  /src/network/mod.rs:cdmasim_core::network::Network::on_hop_timer [/x/dumbbell_speed]
 5,378,552  /src/network/kinds.rs:cdmasim_core::network::Network::on_hop_timer
 3,641,268  /lib/alloc/src/collections/vec_deque/mod.rs:alloc::collections::vec_deque::VecDeque<T,A>::push_back_mut [/x/d]
 8,905,659  /src/tcp/sender.rs:cdmasim_core::tcp::sender::TcpSender::send_new [/x/dumbbell_speed]
 7,828,708  /src/engine/queue.rs:cdmasim_core::engine::queue::EventQueue<E>::schedule [/x/dumbbell_speed]
     1,000  /src/sim/build.rs:cdmasim_core::sim::build::build
       700  /src/network/mod.rs:cdmasim_core::network::Network::forward'2 [/x/dumbbell_speed]
       300  /src/tcp/rwnd.rs:<cdmasim_core::tcp::rwnd::Fixed as cdmasim_core::tcp::rwnd::RwndPolicy>::on_connection
       200  /src/sim/mod.rs:cdmasim_core::sim::run_world'2
        50  ???:0x0000000000023ab0 [???]
        40  /src/sim/flows.rs:core::ptr::drop_in_place<cdmasim_core::tcp::sender::TcpSender>
"""


def test_ledger_reads_each_functions_count_and_file_and_refuses_an_empty_listing():
    import instructions
    import ledger
    rows = ledger.costs(ANNOTATED)
    assert rows[0] == (11_145_645, "/src/network/mod.rs", "cdmasim_core::network::Network::on_hop_timer")
    assert rows[2][2] == "alloc::collections::vec_deque::VecDeque<T,A>::push_back_mut"
    assert len(rows) == 11, "the total is not a function"
    assert rows[6] == (700, "/src/network/mod.rs", "cdmasim_core::network::Network::forward'2")
    assert rows[7][2] == "<cdmasim_core::tcp::rwnd::Fixed as cdmasim_core::tcp::rwnd::RwndPolicy>::on_connection"
    assert rows[9] == (50, "???", "0x0000000000023ab0")
    with pytest.raises(instructions.Failed, match="no function"):
        ledger.costs("Profile data file 'x'\n")


def test_ledger_counts_every_instruction_once_in_the_first_part_that_matches():
    import ledger
    rows = ledger.costs(ANNOTATED)
    parts = ledger.group(rows, ledger.ENGINE_PARTS, key=lambda r: r[2])
    assert parts["the hop path"] == 11_145_645 + 5_378_552 + 3_641_268 + 700
    assert parts["TCP"] == 8_905_659 + 300, "a trait method of TCP's is TCP's; a drop of a sender elsewhere is not"
    assert parts["the event queue"] == 7_828_708 and parts["dispatch"] == 200
    assert parts["the rest: reading the scenario, building the network, the results"] == 1_000 + 50 + 40
    assert sum(parts.values()) == sum(r[0] for r in rows)
    hop = ledger.group(rows[:3], ledger.HOP_FILES, key=lambda r: r[1])
    assert hop["the network's loop (network/mod.rs)"] == 11_145_645
    assert hop["dispatch by hop kind (network/kinds.rs)"] == 5_378_552
    assert hop["VecDeque and Vec (std)"] == 3_641_268
    # Without a catch-all, what matches nothing is left out, not guessed.
    assert ledger.group(rows, [("sender", r"TcpSender::")], key=lambda r: r[2]) == {"sender": 8_905_659}


def test_ledger_table_divides_each_part_by_each_unit():
    import ledger
    lines = ledger.table("part", {"a": 3_000_000, "b": 1_000_000}, [("an event", 1_000), ("a hop", 2_000)]).splitlines()
    assert lines[0] == "| part | instructions | an event | a hop |"
    assert lines[2] == "| a | 3.0 M | 3,000 | 1,500 |"
    assert lines[4] == "| all | 4.0 M | 4,000 | 2,000 |"


def test_ledger_bad_options_exit_2_and_a_failed_build_exits_1_writing_nothing(tmp_path, monkeypatch, capsys):
    import ledger
    assert ledger.main(["--only", "grid", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == "ledger: --only: 'grid' is not a subset of dumbbell,cell,pcap"
    assert ledger.main(["--flows", "0", "--out", str(tmp_path)]) == 2
    assert "--flows: '0'" in capsys.readouterr().err
    out = tmp_path / "out"
    monkeypatch.setattr(shutil, "which", lambda exe: None if exe == "callgrind_annotate" else "/usr/bin/" + exe)
    assert ledger.main(["--only", "dumbbell", "--out", str(out)]) == 2
    assert capsys.readouterr().err.strip() == "ledger: callgrind_annotate (valgrind) is not installed"
    assert not out.exists(), "a run that cannot start makes no folder"
    monkeypatch.setattr(shutil, "which", lambda exe: "/usr/bin/" + exe)

    def fail():
        raise ledger.Failed("cargo build of the examples exited 101: error[E0425]")
    monkeypatch.setattr(ledger, "build", fail)
    assert ledger.main(["--only", "dumbbell", "--out", str(tmp_path)]) == 1
    assert capsys.readouterr().err.strip() == "ledger: cargo build of the examples exited 101: error[E0425]"
    assert list(tmp_path.iterdir()) == []
    # A ledger that cannot be written: exit 1, and nothing half-written.
    monkeypatch.setattr(ledger, "build", lambda: None)
    monkeypatch.setattr(ledger, "dumbbell", lambda n, work: {"what": "d"})
    (tmp_path / "ledger.json").mkdir()
    (tmp_path / "ledger.json.tmp").write_text("a user's file")
    assert ledger.main(["--only", "dumbbell", "--out", str(tmp_path)]) == 1
    assert "ledger.json" in capsys.readouterr().err
    assert sorted(f.name for f in tmp_path.iterdir()) == ["ledger.json", "ledger.json.tmp"]
    assert (tmp_path / "ledger.json.tmp").read_text() == "a user's file"


def test_the_cells_summary_is_refused_without_its_flows_and_events():
    import instructions
    assert instructions.cell_summary(json.dumps({"flows": [], "events": 7}))["events"] == 7
    for out in ["warning: x\n", json.dumps({"flows": []}), json.dumps([1, 2])]:
        with pytest.raises(instructions.Failed, match="no summary"):
            instructions.cell_summary(out)
