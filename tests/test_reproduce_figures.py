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


def test_a_figure_that_cannot_be_written_is_named_and_the_others_are_written(tmp_path):
    w = figures.FigureWriter()
    try:
        w.write(_figure(0), str(tmp_path / "missing" / "bad.png"))
        w.write(_figure(1), str(tmp_path / "good.png"))
        with pytest.raises(RuntimeError, match="bad.png"):
            w.wait()
    finally:
        w.close()
    assert (tmp_path / "good.png").read_bytes()[:4] == b"\x89PNG"
    assert not (tmp_path / "missing").exists()
