"""Every statistic runs on the real Verizon 1xEV-DO (Mahimahi) trace."""

import math
import os

import numpy as np
import pytest

from cdmasim import channel

# The real traces: CDMASIM_TRACES, or ../shared/data/traces beside the
# checkout (as in CI and a developer's checkout); never in the repository.
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRACES = os.environ.get("CDMASIM_TRACES") or os.path.join(REPO, "..", "shared", "data", "traces")
VERIZON = os.path.normpath(os.path.join(TRACES, "Verizon-EVDO-driving.down"))


@pytest.fixture(scope="module")
def verizon():
    if not os.path.isfile(VERIZON):
        pytest.skip(f"the real traces are absent ({VERIZON}; set CDMASIM_TRACES=DIR): the Verizon checks did not run")
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


def test_generate_exports_mahimahi_delivery_opportunities(tmp_path):
    """`--out NAME.down` (or .up) writes what Mahimahi's mm-link replays: one
    line per 1500-byte delivery opportunity, in milliseconds."""
    import subprocess
    import sys

    out = tmp_path / "const.down"
    p = subprocess.run([sys.executable, "-m", "cdmasim.cli", "channel", "generate", "constant:14", "--slots", "6000",
                        "--out", str(out)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    ms = [int(x) for x in out.read_text().split()]
    # 3.072 Mb/s for 10 s: 256 packets a second, in time order, within the run.
    assert len(ms) == 2560 and ms == sorted(ms) and 0 <= ms[0] and ms[-1] <= 9999
    t = channel.read(out, format="mahimahi", mahimahi_window_ms=1000)
    assert set(t["drc"].tolist()) == {14}
