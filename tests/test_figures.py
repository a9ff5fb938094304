"""Figures read at a glance: every axes of every figure cdmasim draws has
a label on each axis (or shares it with a sibling that has one). The
reproduce figures are checked as the quick reproduction saves them
(conftest.py, tests/figure_check/); the run, channel and capture figures
here."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "figure_check"))
from sitecustomize import unlabelled  # noqa: E402

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_every_reproduce_figure_labels_its_axes(quick_reproduction):
    out, reports, _ = quick_reproduction
    figures = sum(len(r["figures"]) for r in reports.values())
    assert figures >= 30
    log = out / "unlabelled.txt"
    assert not log.exists(), log.read_text()


def _check_saved(monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    bad, saved = [], []
    original = Figure.savefig

    def savefig(self, fname, *args, **kwargs):
        saved.append(fname)
        bad.extend(f"{Path(str(fname)).name}: {b}" for b in unlabelled(self))
        return original(self, fname, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", savefig)
    return bad, saved


def test_every_run_figure_labels_its_axes(tmp_path, monkeypatch):
    import cdmasim
    from cdmasim.run_plot import plot_run

    bad, saved = _check_saved(monkeypatch)
    cell = (EXAMPLES / "cdma2000_cell.toml").read_text().replace('duration = "100s"', 'duration = "60s"')
    for name, scenario in (("testbed", EXAMPLES / "evdo_testbed.toml"), ("sector", EXAMPLES / "evdo_sector.toml"),
                           ("cell", cell), ("dumbbell", EXAMPLES / "dumbbell.toml")):
        plot_run(cdmasim.run(scenario), tmp_path / name)
    assert len(saved) >= 10 and not bad, bad
    # The cell's figure names its cell once, and puts packets and kB on axes of their own.
    assert any("cdma2000_" in Path(str(f)).name or ".cdma2000_" in str(f) for f in saved)


def test_every_channel_figure_labels_its_axes(tmp_path, monkeypatch):
    from cdmasim import channel

    bad, saved = _check_saved(monkeypatch)
    results = {p: channel.stats(p, slots=60_000, seed=1, window_slots=6000) for p in ("stationary", "mobile")}
    channel.plot(results, tmp_path / "ch")
    assert len(saved) == 5 and not bad, bad


def test_every_capture_figure_labels_its_axes(tmp_path, monkeypatch):
    import cdmasim
    from cdmasim import pcap
    from cdmasim.pcap_plot import plot_all

    # A capture with retransmissions (so the zoomed panel is drawn too).
    cdmasim.run(EXAMPLES / "evdo_testbed.toml", pcap_dir=tmp_path / "cap")
    capture = sorted((tmp_path / "cap").glob("*.pcap"))[0]
    bad, saved = _check_saved(monkeypatch)
    plot_all(pcap.analyze(capture, series=True), tmp_path / "plots")
    assert len(saved) >= 3 and not bad, bad
