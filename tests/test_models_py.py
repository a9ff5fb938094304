"""cdmasim.models and `cdmasim model`: the Python names for the Rust closed
forms give the values docs/models.md tabulates, and the formulas they state."""

import json
import math
import subprocess
import sys

import pytest

from cdmasim import InputError, models


@pytest.mark.parametrize("mu_lh_kbps, case, lv", [
    (38.4, "no_overflow", 0), (48, "drop_feedback", 3200), (64, "drop_feedback", 6400),
    (80, "drop_feedback", 8320), (163.2, "link_drains_slowly", 9560), (1000, "link_empties_fast", 10185),
])
def test_fluid_loss_matches_the_table_of_docs_models(mu_lh_kbps, case, lv):
    r = models.fluid_loss(9600, 38400, mu_lh_kbps * 1000, 16000, 5000, 0.3)
    assert r["case"] == case
    assert r["loss_volume_bytes"] == pytest.approx(lv, abs=1)
    assert r["loss_volume_limit_bytes"] == pytest.approx(10640)
    assert r["drop_feedback_threshold_bps"] == pytest.approx(95403.7, rel=1e-5)


def test_fluid_loss_outside_its_validity_range_is_an_input_error():
    with pytest.raises(InputError, match="mu_ll < mu_s"):
        models.fluid_loss(50000, 38400, 163200, 16000, 5000, 0.3)


def test_throughput_models_follow_their_equations():
    mss, rtt, p = 1460, 0.1, 0.01
    assert models.mathis(mss, rtt, p, b=1) == pytest.approx(mss / rtt * math.sqrt(1.5 / p))
    assert models.lee_eq1(0.4174, 0.002) == pytest.approx(2 * 1500 / (0.4174 * math.sqrt(2 * 0.002)))
    # PFTK lies below Mathis and tends to it as p -> 0 (window not limiting).
    for q in (1e-2, 1e-3):
        assert models.pftk(rtt, 1.0, q, mss, 1e9) < models.mathis(mss, rtt, q)
    b = models.pftk(rtt, 1.0, 1e-7, mss, 1e9) / (mss / rtt * math.sqrt(1 / (2 * 1e-7 / 3)))
    assert b == pytest.approx(1, rel=1e-2)
    assert models.pftk(rtt, 1.0, 0.0, mss, 64) == pytest.approx(64 * mss / rtt)


def test_reno_sawtooth_markov_and_jain():
    r = models.reno_sawtooth(100, 0.1, 1)             # B = P/10
    assert r["utilisation"] == pytest.approx(0.8176, abs=1e-4)
    assert models.reno_sawtooth(100, 0.1, 20)["utilisation"] == 1
    states = models.markov_sojourns([[0.9, 0.1], [0.2, 0.8]])
    assert [s["stationary"] for s in states] == pytest.approx([2 / 3, 1 / 3])
    assert [s["mean_sojourn_slots"] for s in states] == pytest.approx([10, 5])
    assert models.jain_index([1, 1, 0, 0]) == pytest.approx(0.5)


def test_model_cli_takes_units_and_prints_json():
    p = subprocess.run([sys.executable, "-m", "cdmasim.cli", "model", "fluid-loss", "--mu-ll", "9.6kbps",
                        "--mu-s", "38.4kbps", "--mu-lh", "64kbps", "--window", "16kB", "--buffer", "5kB",
                        "--rtt", "300ms", "--json"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["loss_volume_bytes"] == pytest.approx(6400)
    p = subprocess.run([sys.executable, "-m", "cdmasim.cli", "model", "mathis", "--mss", "1460", "--rtt", "100ms",
                        "--loss", "0.01"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and p.stderr.startswith("cdmasim: error: --mss")
