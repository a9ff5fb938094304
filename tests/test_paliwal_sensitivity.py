"""`cdmasim reproduce paliwal --sensitivity`: Table II's grid
once per setting the paper leaves unstated, each a sweep of the Table II
scenario with its `[set]` overrides, reported as unscored items and one
figure."""

import subprocess
import sys
from pathlib import Path

from cdmasim.reproduce import Context
from cdmasim.reproduce import paliwal_sensitivity as ps

ROOT = Path(__file__).resolve().parent.parent


def test_every_setting_is_the_table2_sweep_plus_its_overrides(tmp_path):
    ctx = Context("paliwal", str(tmp_path), quick=True, sensitivity=True)
    specs = ps.specs(ctx)
    assert list(specs) == list(ps.SETTINGS) and "set" not in specs["table1"]
    base = specs["table1"]
    for label, spec in specs.items():
        # The same scenario, grid and seeds; only the overrides differ.
        assert spec["sweep"]["scenario"] == base["sweep"]["scenario"] and spec["zip"] == base["zip"]
        fixed = dict(spec.get("set", {}))
        duration = fixed.pop("simulation.duration", None)
        assert fixed == ps.SETTINGS[label][1]
        if "cdma2000.sch.start" in fixed:
            # Another FCH-only phase before as long a burst phase (--quick: 100 s).
            assert duration == f"{float(fixed['cdma2000.sch.start'][:-1]) + 100:g}s"
        else:
            assert duration is None
        assert spec["sweep"]["name"] == f"paliwal_table2_{label}"
    # Each override names a real field with a valid value: the scenario
    # reader (which refuses unknown fields) accepts every setting's runs.
    import cdmasim
    from cdmasim.sweep_spec import load

    for spec in specs.values():
        _, _, doc = load(spec).runs()[0]
        assert cdmasim.parse(doc)


def test_without_the_fch_phase_before_the_first_burst_the_dead_periods_are_gone(tmp_path):
    ctx = Context("paliwal", str(tmp_path), quick=True, sensitivity=True)
    results = ps.study(ctx, ["table1", "fch_phase_0s"])
    items = {it.id: it for it in ctx.items}
    for label in results:
        for q in ("mean", "max_pct", "peak_tb_s", "peak_td_s", "spearman", "dead_period_s"):
            it = items[f"table2.sensitivity.{label}.{q}"]
            assert it.published is None and it.verdict == "no published value"
    # The --quick grid (T_B, T_D in {1, 5, 8} s, 100 s of bursts): after
    # 50 s on the FCH alone, when every RTO is inflated by the slow link,
    # the first allocations stop every flow at once and a dead period of
    # several seconds follows, several percent of the run in the long-burst
    # cells; with the bursts from t = 0 no cell reaches 1 %.
    assert results["fch_phase_0s"]["max_pct"] < 1.0 and results["fch_phase_0s"]["dead_period_s"] < 5
    assert results["table1"]["max_pct"] > 5.0 and results["table1"]["dead_period_s"] > 5
    assert results["table1"]["peak_tb_s"] >= 5
    assert [f["id"] for f in ctx.figures] == ["table2_sensitivity"]
    assert (tmp_path / "paliwal" / "table2_sensitivity.png").stat().st_size > 0


def test_sensitivity_is_refused_for_other_papers(tmp_path):
    p = subprocess.run([sys.executable, "-m", "cdmasim.cli", "reproduce", "lee", "--quick", "--sensitivity", "--out",
                        str(tmp_path / "a")], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 2 and "--sensitivity is for the paliwal paper" in p.stderr
    assert not (tmp_path / "a").exists()


def test_a_grid_without_dead_time_gives_no_peak_and_no_rank_correlation():
    """Every cell at 0 %: no peak cell and no Spearman (ranks of ties say
    nothing), rather than NaN items that would stop the report."""
    import pandas as pd

    class NoPeriods:
        def table(self, key, name):
            return pd.DataFrame({"start_s": [], "end_s": []})

    cells = [(tb, td) for tb in (1, 5, 8) for td in (1, 5, 8)]
    df = pd.DataFrame({"tb": [c[0] for c in cells], "td": [c[1] for c in cells], "rho_pct": 0.0,
                       "run": [f"r{i}" for i in range(len(cells))]})
    paper = {c: 1.0 + i for i, c in enumerate(cells)}
    r = ps.summarise(df, NoPeriods(), paper)
    assert (r["max_pct"], r["peak_tb_s"], r["peak_td_s"], r["spearman"], r["dead_period_s"]) == (0.0, None, None, None, 0.0)


def test_the_cdma2000_preset_runs_ns2s_reno_agent():
    import json

    import cdmasim
    from cdmasim.reproduce.paliwal_cell import cell_doc

    def response(tcp):
        spec = cdmasim.parse(cell_doc(10, {"kind": "at", "at": "5s", "rate": "16x"}, tcp=tcp))
        return {json.dumps(f["app"]["Bulk"]["tcp"]["loss_response"]) for f in spec["flows"]}

    assert response(None) == {'"Ns2"'} and response({"loss_response": "rfc"}) == {'"Rfc"'}
