"""The synthetic presets land inside Liu et al. section 5's ranges, 10 seeds each."""

import numpy as np
import pytest

from cdmasim import channel

SLOTS = 360_000  # 10 minutes


def test_stationary_preset_ranges():
    below_one_bit, lag100 = 0, []
    for seed in range(10):
        t = channel.sample("stationary", SLOTS, seed)
        w = channel.stats(t["drc"], sinr=t["sinr"], max_order=1, max_lag=100, window_slots=0)["whole"]
        assert w["modal_fraction"] > 0.40, (seed, w["modal_fraction"])
        # "most of the stationary user experiments exhibited entropy values less than one"
        below_one_bit += w["entropy_bits"] < 1.0
        lag100.append(w["lag_entropy"][99])
        assert 100 <= w["mean_sojourn_slots"], (seed, w["mean_sojourn_slots"])
        assert w["std_bps"] < 400e3, (seed, w["std_bps"])
        assert 1e6 <= w["mean_bps"] <= 3e6, (seed, w["mean_bps"])
    assert below_one_bit > 5
    # Fig. 5 right: below half the entropy up to a lag of almost 100 slots.
    # At lag 100 a seed's figure spreads about 0.43 +- 0.045 (40 seeds), and
    # a few seeds in 40 cross 0.5 under either version of the random streams
    # (docs/channel.md): the mean and most seeds are held to it.
    assert sum(x < 0.5 for x in lag100) >= 8 and np.mean(lag100) < 0.5, lag100


def test_mobile_preset_ranges_and_handoffs():
    for seed in range(10):
        t = channel.sample("mobile", SLOTS, seed)
        w = channel.stats(t["drc"], sinr=t["sinr"], max_order=1, max_lag=100, window_slots=0)["whole"]
        assert w["modal_fraction"] < 0.20, (seed, w["modal_fraction"])
        assert w["lag_entropy"][99] < 0.5, (seed, w["lag_entropy"][99])
        assert w["entropy_bits"] > 2.0, (seed, w["entropy_bits"])
        assert 10 <= w["mean_sojourn_slots"] < 100, (seed, w["mean_sojourn_slots"])
        assert w["std_bps"] > 600e3, (seed, w["std_bps"])
        assert 0.7e6 <= w["mean_bps"] <= 1.4e6, (seed, w["mean_bps"])  # "near 1 Mb/s"
        gaps = np.diff(t["handoffs"]) / 600.0
        assert len(gaps) >= 10 and gaps.min() >= 20.0 and gaps.max() <= 30.0


def test_colocated_users_differ():
    # Section 5.1.3: co-located laptops see different mean DRC and modal fraction.
    means = [channel.stats(channel.sample("stationary", 60_000, s)["drc"], max_lag=1, window_slots=0)["whole"]["mean_bps"]
             for s in range(6)]
    assert max(means) - min(means) > 300e3


def _window_correlations(seed):
    """The stationary preset's SINR-rate correlation over 30-s windows of
    10 minutes: (across the windows' means, within each window)."""
    t = channel.sample("stationary", 360_000, seed)
    r = channel.stats(t["drc"], sinr=t["sinr"], window_slots=18_000, max_order=1, max_lag=1)
    return r["window_sinr_rate_corr"], [w["sinr_rate_corr"] for w in r["windows"]]


def test_sinr_drc_correlation_scales():
    # Section 5.1: SINR and DRC agree over long windows (> 0.98 hourly) but
    # quantisation and the dynamic mapping hide small SINR moves slot by slot
    # (0.05-0.71 within an hour). Our stationary preset, 30 s windows, 12
    # seeds: the windows' means agree, no window loses the relation, and a
    # typical window follows SINR less closely than the means do (medians
    # 0.61-0.78 against 0.91-0.98). No window tracks SINR exactly: the
    # highest seen is 0.95, and a mapping that followed SINR slot by slot
    # would pass 0.97.
    for seed in range(12):
        across, within = _window_correlations(seed)
        assert across > 0.9, (seed, across)
        assert min(within) > 0.05, (seed, within)
        assert np.median(within) < across - 0.1, (seed, np.median(within), across)
        assert max(within) < 0.97, (seed, max(within))


@pytest.mark.xfail(strict=True, reason="finding: the preset's most correlated 30-s window reaches 0.85-0.95 "
                   "(12 seeds; 0.87-0.93 under version 1 of the random streams), its median window "
                   "0.61-0.78, above the 0.71 the paper saw within an hour: its mapping follows SINR "
                   "more closely")
def test_within_window_correlation_stays_in_the_papers_range():
    for seed in range(12):
        _, within = _window_correlations(seed)
        assert max(within) < 0.71, (seed, max(within))


HOUR = 2_160_000


def test_location_presets_hold_fig1_over_hours():
    # Fig. 1: Location 1 at 2-3 Mb/s, Locations 2 and 3 near 1 Mb/s, their
    # hourly modal fractions 60-80 % and 40-60 %; six hours of two laptops each.
    def hours(name, seed):
        t = channel.sample(name, 6 * HOUR, seed)
        r = channel.stats(t["drc"], sinr=t["sinr"], window_slots=HOUR, max_order=1, max_lag=1)
        return r["windows"], r["window_sinr_rate_corr"]

    for seed in (1, 2):
        l1, c1 = hours("location1", seed)
        l2, c2 = hours("location2", seed)
        l3, c3 = hours("location3", seed)
        assert 2e6 <= np.mean([w["mean_bps"] for w in l1]) <= 3e6
        for ws in (l2, l3):
            assert 0.7e6 <= np.mean([w["mean_bps"] for w in ws]) <= 1.3e6
        assert 0.6 <= np.median([w["modal_fraction"] for w in l2]) <= 0.8
        assert 0.4 <= np.median([w["modal_fraction"] for w in l3]) <= 0.6
        # The hourly means move (the drift over hours), Location 1 the most.
        spread = [np.ptp([w["mean_bps"] for w in ws]) for ws in (l1, l2, l3)]
        assert spread[0] > 100e3 and spread[0] > max(spread[1:]), spread
        # §5.1.1: hourly SINR and DRC move together.
        assert min(c1, c2, c3) > 0.9, (c1, c2, c3)
