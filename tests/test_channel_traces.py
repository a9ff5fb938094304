"""Every statistic runs on the real Verizon 1xEV-DO (Mahimahi) trace."""

import math
import os

import numpy as np
import pytest

from cdmasim import channel

TRACES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data", "traces")
VERIZON = os.path.normpath(os.path.join(TRACES, "Verizon-EVDO-driving.down"))


@pytest.fixture(scope="module")
def verizon():
    if not os.path.exists(VERIZON):
        pytest.skip(f"real traces absent ({VERIZON}): skipping the Verizon checks")
    return VERIZON


def test_every_statistic_on_verizon(verizon):
    r = channel.stats(verizon, window_slots=6 * 60 * 600)
    w = r["whole"]
    ms = np.loadtxt(verizon, dtype=np.int64)
    # Floor mapping: the mapped mean is below the delivered rate but within one DRC step of it.
    delivered = len(ms) * 1500 * 8 / ((ms[-1] + 1) / 1000)
    assert 0.6 * delivered < w["mean_bps"] <= delivered
    assert w["slots"] == math.ceil((ms[-1] + 1) / 100) * 60
    for k in ("std_bps", "modal_fraction", "entropy_bits", "mean_sojourn_slots", "sojourn_rmse"):
        assert math.isfinite(w[k]), k
    # 100 ms windows: every sojourn is a multiple of 60 slots.
    assert w["mean_sojourn_slots"] >= 60
    assert len(w["cond_entropy"]) == 4 and len(w["lag_entropy"]) == 200
    assert all(0 <= c <= 1 for c in w["cond_entropy"] + w["lag_entropy"])
    assert len(r["windows"]) == 3  # 17.7 min in 6-min windows (last one 5.7 min)
    assert w["sinr_rate_corr"] is None  # no SINR in a delivery trace
    ref = channel.reference_stats(channel.read(verizon)["drc"], max_lag=200)
    np.testing.assert_allclose(w["lag_entropy"], ref["lag_entropy"], rtol=1e-9)
    np.testing.assert_allclose(w["cond_entropy"], ref["cond_entropy"], rtol=1e-9)


def test_fit_on_verizon(verizon, tmp_path):
    m = channel.fit(verizon, 2, out=tmp_path / "v.json")
    assert m["order"] == 2 and len(m["contexts"]) > 5
