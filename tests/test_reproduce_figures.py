"""reproduce's figures drawn in a process of their own
(cdmasim.reproduce.figures): the same PNG as drawn in place, every one
written before `wait` returns, and a failure named."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from cdmasim.reproduce import figures


def _figure(k):
    fig, ax = plt.subplots(figsize=(4, 3))
    x = np.linspace(0, 10, 200)
    ax.plot(x, np.sin(x * (k + 1)), label=f"k={k}")
    ax.set_xlabel("time (s)")
    ax.legend()
    return fig


def test_figures_drawn_aside_are_the_pngs_drawn_in_place(tmp_path):
    for k in range(3):
        fig = _figure(k)
        figures.save(fig, str(tmp_path / f"here{k}.png"))
        plt.close(fig)
    w = figures.FigureWriter()
    try:
        for k in range(3):
            w.write(_figure(k), str(tmp_path / f"aside{k}.png"))
        w.wait()
    finally:
        w.close()
    for k in range(3):
        here, aside = (tmp_path / f"here{k}.png").read_bytes(), (tmp_path / f"aside{k}.png").read_bytes()
        assert here[:8] == b"\x89PNG\r\n\x1a\n" and here == aside, k
    assert not plt.get_fignums(), "the figures handed over are closed"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([f"here{k}.png" for k in range(3)] +
                                                                [f"aside{k}.png" for k in range(3)])


def test_a_layout_left_to_the_drawing_is_the_one_made_in_place(tmp_path):
    """`lay_out` defers `Figure.tight_layout` to the drawing process: the
    PNG is the one a figure laid out where it was made gives, and not the
    one savefig's own layout (at the saving dpi) would give."""
    from cdmasim.reproduce.common import lay_out

    def labelled(k):
        fig = _figure(k)
        fig.axes[0].set_ylabel("a long label, its text measured " * 2, fontsize=7)
        fig.axes[0].set_title(f"figure {k}")
        return fig

    w = figures.FigureWriter()
    try:
        for k in range(2):
            fig = labelled(k)
            fig.tight_layout()
            figures.save(fig, str(tmp_path / f"made{k}.png"))
            plt.close(fig)
            fig = labelled(k)
            lay_out(fig)
            w.write(fig, str(tmp_path / f"drawn{k}.png"))
            fig = labelled(k)
            fig.set_layout_engine("tight")   # matplotlib's own deferred layout
            fig.savefig(tmp_path / f"savefig{k}.png", **figures.SAVE)
            plt.close(fig)
        w.wait()
    finally:
        w.close()
    for k in range(2):
        made, drawn = (tmp_path / f"made{k}.png").read_bytes(), (tmp_path / f"drawn{k}.png").read_bytes()
        assert made == drawn, k
        assert (tmp_path / f"savefig{k}.png").read_bytes() != made, "the test tells the two layouts apart"


def test_a_figure_that_cannot_be_written_is_named_and_what_follows_it_is_not_done(tmp_path):
    """The figure's own OSError (as the CLI reports a full disk), naming
    it; the other figures are written; what was to follow is not done."""
    w = figures.FigureWriter()
    after = []
    try:
        w.write(_figure(0), str(tmp_path / "missing" / "bad.png"))
        w.write(_figure(1), str(tmp_path / "good.png"))
        w.then(lambda: after.append("report"))
        with pytest.raises(OSError, match="bad.png") as e:
            w.wait()
        assert e.value.errno == 2
    finally:
        w.close()
    assert (tmp_path / "good.png").read_bytes()[:4] == b"\x89PNG"
    assert not (tmp_path / "missing").exists() and after == []


def test_what_follows_the_figures_comes_once_they_are_written(tmp_path):
    w = figures.FigureWriter()
    seen = []
    try:
        for k in range(4):
            w.write(_figure(k), str(tmp_path / f"f{k}.png"))
        w.then(lambda: seen.append(sorted(p.name for p in tmp_path.iterdir())))
        w.wait()
    finally:
        w.close()
    assert seen == [[f"f{k}.png" for k in range(4)]]


def test_the_drawing_process_closes_each_figure_it_draws(tmp_path):
    import pickle

    fig = _figure(0)
    data = pickle.dumps(fig)
    plt.close(fig)
    for k in range(3):
        assert figures.render(str(tmp_path / f"r{k}.png"), data) is None
    assert not plt.get_fignums()


def test_close_stops_without_drawing_what_waits(tmp_path):
    """Ctrl-C: close returns after at most the figure being drawn; the
    writer then refuses more."""
    w = figures.FigureWriter()
    for k in range(12):
        w.write(_figure(k), str(tmp_path / f"f{k}.png"))
    w.close()
    assert len(list(tmp_path.iterdir())) < 12
    with pytest.raises(RuntimeError, match="closed"):
        w.then(lambda: None)
