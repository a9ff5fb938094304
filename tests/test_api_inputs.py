"""The Python API keeps the bad-input promise: a bad argument is a one-line
cdmasim.InputError, never an OverflowError, RecursionError or a wrong
result; the documented names are there."""

import pathlib

import numpy as np
import pytest

import cdmasim
from cdmasim import channel, evdo, pcap

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def test_the_public_api_is_listed_and_importable():
    names = set(dir(cdmasim))
    for n in ("run", "parse", "sweep", "load_sweep", "Result", "InputError", "channel", "evdo", "pcap", "models"):
        assert n in names, n
        assert getattr(cdmasim, n) is not None
    assert callable(cdmasim.pcap.analyze)


def test_a_parsed_scenario_runs_and_an_edited_one_is_refused():
    spec = cdmasim.parse(EXAMPLES / "generic.toml")
    assert spec["duration"] > 0
    assert cdmasim.run(spec).summary == cdmasim.run(EXAMPLES / "generic.toml").summary
    spec["duration"] = 5
    with pytest.raises(cdmasim.InputError, match="changed after parse"):
        cdmasim.run(spec)


@pytest.mark.parametrize("seed", [True, -1, 2**64, 1.5, "3"])
def test_bad_seeds_are_input_errors(seed):
    with pytest.raises(cdmasim.InputError, match="seed"):
        cdmasim.run(EXAMPLES / "generic.toml", seed=seed)


def test_numpy_seeds_are_integers():
    a = cdmasim.run(EXAMPLES / "generic.toml", seed=np.int64(7))
    assert a.summary == cdmasim.run(EXAMPLES / "generic.toml", seed=7).summary


def test_a_deeply_nested_dict_is_an_input_error():
    d = x = {}
    for _ in range(5000):
        x["a"] = {}
        x = x["a"]
    with pytest.raises(cdmasim.InputError, match="nested too deeply"):
        cdmasim.run(d)


@pytest.mark.parametrize("call", [
    lambda: channel.stats([1, 2, -1]),
    lambda: channel.stats([1.5, 2.0]),
    lambda: channel.stats([15]),
    lambda: channel.sample("stationary", -1, 1),
    lambda: channel.sample("stationary", 10, True),
    lambda: channel.generate("stationary", 2**70, 1, "/nonexistent/x.drc"),
    lambda: evdo.schedule(-1, 100, preset="stationary"),
    lambda: evdo.schedule(2, 100, seed=-3, preset="stationary"),
    lambda: pcap.analyze("x.pcap", mtu=0),
    lambda: pcap.analyze("x.pcap", b=-1),
    lambda: pcap.analyze("x.pcap", mtu=float("nan")),
], ids=["drc-negative", "drc-float", "drc-15", "slots-negative", "seed-bool", "slots-huge", "users-negative",
        "seed-negative", "mtu-zero", "b-negative", "mtu-nan"])
def test_bad_arguments_are_input_errors(call):
    with pytest.raises(cdmasim.InputError) as e:
        call()
    assert "\n" not in str(e.value)
