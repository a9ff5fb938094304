"""Loaded by every Python process started with this folder on PYTHONPATH
(tests/conftest.py's quick reproduction): once matplotlib.figure is
imported, every figure saved is checked for axes without axis labels, and
each such axes is written, one line each, to the file named by
CDMASIM_FIGURE_LOG. Nothing else changes."""

import importlib.abc
import importlib.util
import os
import sys

LOG = os.environ.get("CDMASIM_FIGURE_LOG")


def unlabelled(fig):
    """'x'/'y' of each drawn axes without a label on that axis (an axis
    whose label a shared sibling carries, a colorbar and a hidden axes are
    fine)."""
    out = []
    for ax in fig.axes:
        if not ax.axison or ax.get_label() == "<colorbar>":
            continue
        for axis in ("x", "y"):
            get = (lambda a: a.get_xlabel()) if axis == "x" else (lambda a: a.get_ylabel())
            if get(ax):
                continue
            shared = (ax.get_shared_x_axes() if axis == "x" else ax.get_shared_y_axes()).get_siblings(ax)
            if any(get(o) for o in shared if o is not ax):
                continue
            out.append(f"{axis} axis of the axes titled {ax.get_title()!r}")
    return out


def _patch(module):
    original = module.Figure.savefig

    def savefig(self, fname, *args, **kwargs):
        bad = unlabelled(self)
        if bad:
            with open(LOG, "a", encoding="utf-8") as f:
                for b in bad:
                    f.write(f"{os.path.basename(str(fname))}: {b}\n")
        return original(self, fname, *args, **kwargs)

    module.Figure.savefig = savefig


class _After(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "matplotlib.figure":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        loader = spec.loader
        exec_module = loader.exec_module

        def run(module):
            exec_module(module)
            _patch(module)

        loader.exec_module = run
        return spec


if LOG:
    sys.meta_path.insert(0, _After())
