"""Helpers the paper modules share: example scenarios, per-run figures out
of load_sweep rows, and the published-vs-measured bar chart."""

import copy

from ..examples_data import path
from ..models import jain_index
from ..sweep_spec import _read_toml


def example_doc(name):
    """The packaged example NAME.toml (cdmasim/examples/) as a scenario document (dict)."""
    return copy.deepcopy(_read_toml(str(path(name))))


def flow_values(row, column):
    """{flow name: value} of one load_sweep row for a flow column."""
    out = {}
    for key, v in row.items():
        if key.startswith("flow.") and key.endswith(f".{column}") and v == v:  # v == v: not NaN
            out[key[len("flow."):-len(column) - 1]] = v
    return out


def jain(values):
    return jain_index(list(values))


def subplots(ncols=1, figsize=(6, 3.4), nrows=1):
    """A matplotlib figure drawn off-screen (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(nrows, ncols, figsize=figsize)


def lay_out(fig):
    """Lay `fig` out as `Figure.tight_layout` does, but when it is drawn,
    in the drawing process (`figures.save`), not here: the layout measures
    every label's text, about 2 s of the main process in `reproduce all
    --quick`, where the analysis of the papers is the critical path."""
    fig.set_layout_engine("tight")


def finish(ctx, fig, ax, id, title, xlabel, ylabel, items, axes_title=None, legend_size=8):
    """Label one axes, lay out and save the figure as ctx's figure `id`."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=legend_size)
    ax.set_title(axes_title or title, fontsize=10)
    lay_out(fig)
    ctx.figure(id, title, fig, items)


def spearman(a, b):
    """Spearman's rank correlation of two equal-length sequences (ties get
    their mean rank); NaN below three points."""
    import numpy as np
    import pandas as pd

    if len(a) < 3:
        return float("nan")
    ra, rb = pd.Series(a).rank().to_numpy(), pd.Series(b).rank().to_numpy()
    return float(np.corrcoef(ra, rb)[0, 1])


def settings_points(ax, points, labels):
    """A sensitivity panel: for each (name, values, scored) of `points`, the
    values' mean with their min-max as an error bar, the scored setting a
    red square and the others blue dots, named on the x axis by `labels`."""
    import numpy as np

    labelled = set()
    for k, (_, values, scored) in enumerate(points):
        m = float(np.mean(values))
        label = "scored setting" if scored else "other settings"
        ax.errorbar([k], [m], yerr=[[m - min(values)], [max(values) - m]], fmt="s" if scored else "o", capsize=3,
                    color="#c0392b" if scored else "#3b75af", label=None if label in labelled else label)
        labelled.add(label)
    ax.set_xticks(range(len(points)))
    ax.set_xticklabels(labels, fontsize=7)


def comparison_figure(title, rows, unit, xlabel):
    """Bars of published (hatched) beside measured for (label, published,
    measured) rows; `measured` is a number or the per-seed values (drawn as
    their mean with the seeds' min-max as an error bar); a missing
    published value draws no bar. `unit` labels the value axis, `xlabel`
    what the bars are."""
    import numpy as np

    fig, ax = subplots(figsize=(max(4.5, 1.3 * len(rows)), 3.2))
    x = np.arange(len(rows))
    pub = [r[1] if r[1] is not None else np.nan for r in rows]
    vals = [np.atleast_1d(np.asarray(r[2], dtype=float)) for r in rows]
    mean = np.array([v.mean() for v in vals])
    err = np.array([[m - v.min() for m, v in zip(mean, vals)], [v.max() - m for m, v in zip(mean, vals)]])
    ax.bar(x - 0.2, pub, 0.4, label="published", color="#bbbbbb", hatch="//", edgecolor="#555555")
    ax.bar(x + 0.2, mean, 0.4, yerr=err, capsize=3, label="measured (cdmasim, seed min-max)", color="#3b75af")
    ax.set_xticks(x)
    ax.set_xticklabels([r[0] for r in rows], fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(unit)
    ax.set_title(title, fontsize=10)
    # Above the bars, clear of them (a bar can reach any height).
    ax.margins(y=0.25)
    ax.legend(fontsize=8, loc="upper left", ncols=2)
    lay_out(fig)
    return fig
