"""Channel statistics: closed forms, the numpy reference, formats and CLI errors."""

import json
import math
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from _cli_channel import run_cli  # noqa: E402

from cdmasim import InputError, channel  # noqa: E402


def sticky(states, p, n, seed):
    """Stay with probability p, else jump uniformly among `states`."""
    rng = np.random.default_rng(seed)
    jump = rng.random(n) >= p
    draws = rng.choice(np.array(states, dtype=np.uint8), size=n)
    idx = np.maximum.accumulate(np.where(jump, np.arange(n), 0))
    x = draws[idx]
    x[: np.argmax(jump)] = draws[0]
    return x


def test_entropy_and_sojourn_closed_forms():
    states = [3, 8, 11, 12]
    p = 0.98
    x = sticky(states, p, 1_000_000, 1)
    w = channel.stats(x, max_lag=100)["whole"]
    # uniform stationary law over 4 states: 2 bits (sampling error ~1e-3)
    assert abs(w["entropy_bits"] - 2.0) < 0.01
    pii = p + (1 - p) / 4
    for s in states:  # 1 / (1 - p_ii), ~5000 runs per state: 4 % tolerance
        assert abs(w["sojourn_observed"][s] * (1 - pii) - 1) < 0.04
    # order-1 chain: conditional entropy stops falling after n = 1
    c = w["cond_entropy"]
    assert max(c) - min(c) < 0.005 and c[0] < 0.2
    # lag d: closed form of the d-step matrix p^d I + (1-p^d) J/4
    for d in (1, 20, 100):
        q = p**d + (1 - p**d) / 4
        r = (1 - q) / 3
        want = (-(q * math.log2(q)) - 3 * r * math.log2(r)) / 2.0
        assert abs(w["lag_entropy"][d - 1] - want) < 0.02


def test_matches_numpy_reference():
    rng = np.random.default_rng(5)
    x = sticky([0, 1, 4, 6, 9, 12, 14], 0.9, 200_000, 2)
    sinr = (x.astype(np.float32) + rng.normal(0, 2, len(x))).astype(np.float32)
    fast = channel.stats(x, sinr=sinr, max_lag=60)["whole"]
    ref = channel.reference_stats(x, sinr=sinr, max_lag=60)
    for k in ("mean_bps", "std_bps", "modal_fraction", "entropy_bits", "mean_sojourn_slots", "sinr_rate_corr"):
        assert fast[k] == pytest.approx(ref[k], rel=1e-6, abs=1e-9), k
    assert fast["modal_state"] == ref["modal_state"]
    np.testing.assert_allclose(fast["cond_entropy"], ref["cond_entropy"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(fast["lag_entropy"], ref["lag_entropy"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(fast["sojourn_observed"], ref["sojourn_observed"], rtol=1e-12)
    np.testing.assert_allclose(fast["sojourn_analytic"], ref["sojourn_analytic"], rtol=1e-12)
    assert fast["sojourn_rmse"] == pytest.approx(ref["sojourn_rmse"], rel=1e-9, abs=1e-15)


def test_text_binary_fit_generate_round_trip(tmp_path, capsys):
    txt, drc_file, model, gen = (tmp_path / n for n in ("m.txt", "m.drc", "model.json", "g.drc"))
    rc, out, err = run_cli(["channel", "generate", "mobile", "--slots", "20000", "--seed", "3", "--out", txt], capsys)
    assert rc == 0, err
    rc, _, err = run_cli(["channel", "generate", "mobile", "--slots", "20000", "--seed", "3", "--out", drc_file], capsys)
    assert rc == 0, err
    a, b = channel.read(txt), channel.read(drc_file)
    assert (a["drc"] == b["drc"]).all()
    np.testing.assert_allclose(a["sinr"], b["sinr"], atol=0.0101)  # both keep 1/100 dB, rounded separately
    # A one-step chain fitted to a trace of many cell crossings (200,000
    # slots: eleven to sixteen) reproduces its state distribution (10 seeds: the
    # largest difference 0.019-0.048). A trace of one crossing (20,000
    # slots) does not in general: for half the seeds the fitted chain mixes
    # too slowly or has a closed class the trace ended in (seed 8: DRC 0
    # and 1), and a generated trace is absorbed there.
    long = tmp_path / "long.drc"
    rc, _, err = run_cli(["channel", "generate", "mobile", "--slots", "200000", "--seed", "3", "--out", long], capsys)
    assert rc == 0, err
    rc, out, err = run_cli(["channel", "fit", long, "--order", "1", "--out", model], capsys)
    assert rc == 0 and "order 1" in out
    rc, _, err = run_cli(["channel", "generate", model, "--slots", "200000", "--seed", "1", "--out", gen], capsys)
    assert rc == 0, err
    fa = np.bincount(channel.read(long)["drc"], minlength=15) / 200000
    fg = np.bincount(channel.read(gen)["drc"], minlength=15) / 200000
    assert np.abs(fa - fg).max() < 0.05
    rc, out, _ = run_cli(["channel", "stats", drc_file, gen, "--json", "--window", "10s"], capsys)
    r = json.loads(out)
    assert rc == 0 and len(r[str(drc_file)]["windows"]) == 3


def test_a_regime_model_fits_and_generates(tmp_path, capsys):
    trace, model, gen = (tmp_path / n for n in ("l3.drc", "regimes.json", "g.drc"))
    rc, _, err = run_cli(["channel", "generate", "location3", "--slots", "10min", "--seed", "2", "--out", trace], capsys)
    assert rc == 0, err
    rc, out, err = run_cli(["channel", "fit", trace, "--order", "1", "--regimes", "3", "--out", model], capsys)
    assert rc == 0 and "3 regimes of 6000-slot windows" in out, err
    m = json.loads(model.read_text())
    assert m["format"] == "cdmasim-regime-markov" and len(m["regimes"]) == 3
    levels = [r["mean_rate_bps"] for r in m["regimes"]]
    assert levels == sorted(levels)
    # 60 windows of 10 s: 59 window-to-window transitions.
    assert sum(map(sum, m["transitions"])) == 59
    # Two hours from the model hold the trace's share of each state (the
    # regimes last tens of seconds, so ten minutes would be one noisy draw).
    rc, _, err = run_cli(["channel", "generate", model, "--slots", "2h", "--seed", "1", "--out", gen], capsys)
    assert rc == 0, err
    a, g = channel.read(trace)["drc"], channel.read(gen)["drc"]
    fa, fg = np.bincount(a, minlength=15) / len(a), np.bincount(g, minlength=15) / len(g)
    assert len(g) == 12 * len(a) and np.abs(fa - fg).max() < 0.1, np.abs(fa - fg).max()


def test_bad_input_is_one_line_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("3\n4\n99x\n")
    rc, out, err = run_cli(["channel", "stats", bad], capsys)
    assert rc == 2 and err.strip().count("\n") == 0
    assert f"{bad}:3: drc:" in err
    rc, _, err = run_cli(["channel", "stats", tmp_path / "missing.txt"], capsys)
    assert rc == 2 and "missing.txt" in err
    rc, _, err = run_cli(["channel", "stats", bad, "--window", "5"], capsys)
    assert rc == 2 and "--window" in err
    rc, _, err = run_cli(["channel", "generate", "nosuch", "--slots", "10", "--out", tmp_path / "x"], capsys)
    assert rc == 2 and "neither a preset" in err
    with pytest.raises(InputError):
        channel.fit(bad, 1)


def test_plots_are_written(tmp_path):
    x = sticky([9, 11, 12], 0.99, 50_000, 4)
    r = {"a": channel.stats(x, window_slots=10_000, max_lag=20)}
    files = channel.plot(r, tmp_path)
    assert len(files) == 5 and all(os.path.getsize(f) > 1000 for f in files)


def test_a_binary_trace_streams_in_bounded_memory(tmp_path):
    """Six hours of slots with SINR (39 MB on disk, 13 M slots): `channel
    stats` reads it in pieces, so its peak memory stays under 100 MB where
    holding the trace (DRC bytes plus SINR as floats) would take about
    twice that (a day measures 43-46 MB, bench/channel_stats.py)."""
    import subprocess

    path = tmp_path / "six_hours.drc"
    cli = [sys.executable, "-m", "cdmasim.cli", "channel"]
    subprocess.run([*cli, "generate", "mobile", "--slots", "6h", "--seed", "3", "--out", str(path)], check=True,
                   capture_output=True)
    assert path.stat().st_size > 38_000_000
    # A small parent runs the CLI and reads its peak with wait4: a child
    # forked from pytest itself would count pytest's pages in its peak.
    out = tmp_path / "out.json"
    measure = ("import os, subprocess, sys\n"
               "p = subprocess.Popen(sys.argv[2:], stdout=open(sys.argv[1], 'w'))\n"
               "_, status, usage = os.wait4(p.pid, 0)\n"
               "print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)")
    m = subprocess.run([sys.executable, "-c", measure, str(out), *cli, "stats", str(path), "--json"], check=True,
                       capture_output=True, text=True)
    code, peak_kb = map(int, m.stdout.split())
    assert code == 0
    r = json.loads(out.read_text())[str(path)]
    assert r["whole"]["slots"] == 6 * 3600 * 600 and len(r["windows"]) == 6 and r["whole"]["sinr_mean_db"] is not None
    assert peak_kb < 100 * 1024, f"peak RSS {peak_kb / 1024:.0f} MB"


@pytest.mark.parametrize("preset,slots,seed", [("location1", 450_000, 2), ("mobile", 333_333, 3), ("constant:9", 1000, 1)])
def test_a_drawn_source_gives_the_stats_of_its_sample(preset, slots, seed):
    """stats(preset, slots=, seed=) draws and counts in one pass without
    holding the trace: for each window length it is stats() of what
    sample() draws, to the last bit."""
    s = channel.sample(preset, slots, seed)
    windows = [60_000, 25_000, 0]
    drawn = channel.stats(preset, slots=slots, seed=seed, window_slots=windows, max_order=3, max_lag=50)
    assert len(drawn) == 3
    for w, d in zip(windows, drawn):
        held = channel.stats(s["drc"], sinr=s["sinr"], window_slots=w, max_order=3, max_lag=50)
        assert json.dumps(d, sort_keys=True) == json.dumps(held, sort_keys=True), (preset, w)
    one = channel.stats(preset, slots=slots, seed=seed, window_slots=60_000, max_order=3, max_lag=50)
    assert json.dumps(one, sort_keys=True) == json.dumps(drawn[0], sort_keys=True)


def test_a_drawn_source_refuses_what_is_not_one():
    with pytest.raises(InputError, match="a DRC array is a trace already"):
        channel.stats(np.zeros(10, dtype=np.uint8), slots=10, seed=1)
    with pytest.raises(InputError, match="needs both"):
        channel.stats("mobile", slots=10)
    with pytest.raises(InputError, match="window_slots"):
        channel.stats("mobile", slots=10, seed=1, window_slots=1.5)
    with pytest.raises(InputError, match="window_slots"):
        channel.stats("mobile", slots=10, seed=1, window_slots=[5, -1])
    with pytest.raises(InputError, match="neither a preset"):
        channel.stats("no-such-preset", slots=10, seed=1)
    for bad in ("60", [], b"6"):
        with pytest.raises(InputError, match="non-empty list"):
            channel.stats("mobile", slots=10, seed=1, window_slots=bad)
    with pytest.raises(InputError, match="max_lag"):
        channel.stats("mobile", slots=10, seed=1, max_lag=-1)
    with pytest.raises(InputError, match="sinr: it reads a trace"):
        channel.stats("mobile", slots=10, seed=1, sinr=[0.0] * 10)
    with pytest.raises(InputError, match="format: it reads a trace"):
        channel.stats("mobile", slots=10, seed=1, format="binary")
    with pytest.raises(InputError, match="is for a drawn source"):
        channel.stats(np.zeros(10, dtype=np.uint8), window_slots=[5, 6])


def test_windows_placed_in_time_jump_their_gaps():
    """stats_at: windows back to back are stats()'s windows to the last
    bit; windows weeks apart cost their own slots (a drawn gap of five
    weeks would take minutes), and a day scale asked for after the
    preset's name spreads them."""
    back = channel.stats_at("location1", 2, [(0, 30_000), (30_000, 30_000)], max_order=3, max_lag=50)
    held = channel.stats("location1", slots=60_000, seed=2, window_slots=30_000, max_order=3, max_lag=50)
    assert json.dumps(back, sort_keys=True) == json.dumps(held["windows"], sort_keys=True)
    week = 7 * 24 * 2_160_000
    far = [(k * week, 6000) for k in range(20)]
    # The SINR's window means (the rate saturates at 3.072 Mb/s): about
    # 1.6 dB apart under the drift alone, about 6 with the day scale.
    plain = [w["sinr_mean_db"] for w in channel.stats_at("location1", 2, far)]
    daily = [w["sinr_mean_db"] for w in channel.stats_at("location1:day_sd_db=6", 2, far)]
    assert len(plain) == 20 and np.std(daily) > 2 * np.std(plain), (np.std(plain), np.std(daily))
    with pytest.raises(InputError, match="before the window before it ends"):
        channel.stats_at("location1", 1, [(100, 50), (120, 10)])
    with pytest.raises(InputError, match="non-empty list of"):
        channel.stats_at("location1", 1, [(1, 2, 3)])
    with pytest.raises(InputError, match="unknown setting 'day'"):
        channel.stats_at("location1:day=3", 1, [(0, 10)])
    with pytest.raises(InputError, match="no regime"):
        channel.stats_at("mobile:day_sd_db=3", 1, [(0, 10)])


def test_day_scales_drawn_together_are_each_its_own_preset():
    """stats_at_day_scales: one list of windows per day scale, each
    stats_at()'s of the preset with that day_sd_db, to the last bit; bad
    input is one line."""
    week = 7 * 24 * 2_160_000
    at = [(777, 5000), (5777, 3000), (week, 7000), (3 * week + 11, 4097)]
    sds = [0, 3, 6]
    together = channel.stats_at_day_scales("location2:day_corr_days=3", 5, at, sds, max_order=2, max_lag=10)
    assert len(together) == 3 and all(len(t) == 4 for t in together)
    for sd, got in zip(sds, together):
        alone = channel.stats_at(f"location2:day_corr_days=3,day_sd_db={sd}", 5, at, max_order=2, max_lag=10)
        assert json.dumps(got, sort_keys=True) == json.dumps(alone, sort_keys=True), sd
    assert together[0] != together[2]
    with pytest.raises(InputError, match="1 to 16 day scales, got 0"):
        channel.stats_at_day_scales("location1", 1, [(0, 10)], [])
    with pytest.raises(InputError, match=r"day_sd_db\[1\]"):
        channel.stats_at_day_scales("location1", 1, [(0, 10)], [0, -1])
    with pytest.raises(InputError, match="list of standard deviations"):
        channel.stats_at_day_scales("location1", 1, [(0, 10)], "36")
    with pytest.raises(InputError, match="stationary preset's name"):
        channel.stats_at_day_scales(5, 1, [(0, 10)], [1])
    with pytest.raises(InputError, match="no regime"):
        channel.stats_at_day_scales("mobile", 1, [(0, 10)], [1])
    with pytest.raises(InputError, match="before the window before it ends"):
        channel.stats_at_day_scales("location1", 1, [(100, 50), (120, 10)], [1])
