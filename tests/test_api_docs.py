"""The public Python API documents itself: every function and method a user
calls has a docstring and annotated parameters and return, the annotations
resolve, and the package says it is typed (py.typed)."""

import inspect
import pathlib
import typing

import numpy
import pandas
import pytest

import cdmasim
from cdmasim.pcap import PcapResult
import cdmasim.result
from cdmasim.result import Result
from cdmasim.sweep_spec import SweepSpec
from cdmasim.workers import WorkerPool

PUBLIC = [
    cdmasim.run, cdmasim.parse, cdmasim.sweep, cdmasim.load_sweep,
    *(getattr(cdmasim.channel, n) for n in ("rates_bps", "read", "stats", "stats_at", "stats_at_day_scales", "summary",
                                             "fit", "presets", "generate", "sample", "reference_stats", "plot")),
    *(getattr(cdmasim.evdo, n) for n in ("drc_table", "schedule", "summary", "fig6")),
    cdmasim.pcap.analyze, cdmasim.pcap.analyze_raw,
    *(getattr(cdmasim.models, n) for n in ("fluid_loss", "mathis", "pftk", "lee_eq1", "fit_lee_c", "reno_sawtooth",
                                            "mean_sojourn_slots", "stationary_distribution", "markov_sojourns",
                                            "jain_index", "rlp_max_retransmission_buffer")),
    Result.to_dir, Result.summary_json, Result.dead_fraction, Result.series_arrays,
    Result.series.fget, Result.drops.fget, cdmasim.result.tables, cdmasim.result.markdown,
]
# Names the modules import only for type checkers (TYPE_CHECKING blocks).
NAMES = {"pandas": pandas, "numpy": numpy, "Result": Result, "PcapResult": PcapResult, "SweepSpec": SweepSpec,
         "WorkerPool": WorkerPool, "Any": typing.Any}


@pytest.mark.parametrize("f", PUBLIC, ids=lambda f: f.__qualname__)
def test_documented_and_annotated(f):
    assert (f.__doc__ or "").strip(), f"{f.__qualname__} has no docstring"
    sig = inspect.signature(f)
    for name, p in sig.parameters.items():
        if name != "self":
            assert p.annotation is not inspect.Parameter.empty, f"{f.__qualname__}: parameter {name} not annotated"
    assert sig.return_annotation is not inspect.Signature.empty, f"{f.__qualname__}: return not annotated"
    typing.get_type_hints(f, localns=NAMES)      # every annotation names something real


def test_every_table_says_what_a_row_is():
    # The tables other than series and drops are attributes the schema
    # makes (Result.__getattr__): their help is the schema's.
    for t in cdmasim.result.tables():
        for doc in (t["doc"], *([t["long"]["doc"]] if "long" in t else [])):
            assert len(doc) > 20, t["name"]
        names = [t["name"], *([t["long"]["name"]] if "long" in t else [])]
        assert all(name in Result.__doc__ for name in names), t["name"]


def test_help_on_result_and_the_typed_marker():
    assert "cdmasim.run" in Result.__doc__ and "to_dir" in Result.__doc__
    assert (pathlib.Path(cdmasim.__file__).parent / "py.typed").exists()
