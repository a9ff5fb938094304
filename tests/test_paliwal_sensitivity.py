"""`cdmasim reproduce paliwal --sensitivity` (issue 24): Table II's grid
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
        assert spec.get("set", {}) == ps.SETTINGS[label][1]
        assert spec["sweep"]["name"] == f"paliwal_table2_{label}"
    # Each override names a real field with a valid value: the scenario
    # reader (which refuses unknown fields) accepts every setting's runs.
    import cdmasim
    from cdmasim.sweep_spec import load

    for spec in specs.values():
        _, _, doc = load(spec).runs()[0]
        assert cdmasim.parse(doc)


def test_floyds_rule_with_50_mobiles_brings_back_dead_time_that_table_i_does_not_have(tmp_path):
    ctx = Context("paliwal", str(tmp_path), quick=True, sensitivity=True)
    results = ps.study(ctx, ["table1", "red_floyd.mobiles_5"])
    items = {it.id: it for it in ctx.items}
    for label in results:
        for q in ("mean", "max_pct", "peak_tb_s", "peak_td_s", "spearman", "dead_period_s"):
            it = items[f"table2.sensitivity.{label}.{q}"]
            assert it.published is None and it.verdict == "no published value"
    # The --quick grid (T_B, T_D in {1, 5, 8} s, 100 s): Table I's system
    # stays under 1 % in every cell; the combination reaches several percent
    # in the long-burst cells, as the paper's table does.
    assert results["table1"]["max_pct"] < 1.0
    assert results["red_floyd.mobiles_5"]["max_pct"] > 5.0
    assert results["red_floyd.mobiles_5"]["peak_tb_s"] >= 5
    assert [f["id"] for f in ctx.figures] == ["table2_sensitivity"]
    assert (tmp_path / "paliwal" / "table2_sensitivity.png").stat().st_size > 0


def test_sensitivity_is_refused_for_other_papers(tmp_path):
    p = subprocess.run([sys.executable, "-m", "cdmasim.cli", "reproduce", "lee", "--quick", "--sensitivity", "--out",
                        str(tmp_path / "a")], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 2 and "--sensitivity is for the paliwal paper" in p.stderr
    assert not (tmp_path / "a").exists()
