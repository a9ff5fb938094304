#!/usr/bin/env python3
"""Plot a `bench/paliwal.py` result: the Table II grid's wall time per cell
in ns-2.35 and in cdmasim, and their ratio, as three heat maps.

    .venv/bin/python bench/paliwal_plot.py                       # bench/out/paliwal-latest.json
    .venv/bin/python bench/paliwal_plot.py RESULT.json --out grid.png

Needs matplotlib (the project's venv has it); bench/paliwal.py itself
stays standard-library only.
"""

import argparse
import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
from paliwal import GRID  # noqa: E402  (the harness's T_B / T_D values)


def matrices(result: dict) -> tuple:
    """(ns-2 s, cdmasim s, ratio) as rows T_D x columns T_B; None where a run is missing."""
    cases = result.get("cases", {})

    def wall(tb, td, sim):
        e = cases.get(f"{tb:g}x{td:g}", {}).get(sim, {})
        return e.get("wall_s") if e.get("available") else None

    ns2 = [[wall(tb, td, "ns-2") for tb in GRID] for td in GRID]
    cdm = [[wall(tb, td, "cdmasim") for tb in GRID] for td in GRID]
    ratio = [[(a / b) if a and b else None for a, b in zip(ra, rb)] for ra, rb in zip(ns2, cdm)]
    return ns2, cdm, ratio


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("result", nargs="?", default=str(BENCH / "out" / "paliwal-latest.json"))
    p.add_argument("--out", default=None, help="PNG to write (default: next to the JSON, .png)")
    args = p.parse_args(argv)
    path = Path(args.result)
    try:
        result = json.loads(path.read_text())
    except OSError as e:
        print(f"paliwal_plot: {path}: {e.strerror}", file=sys.stderr)
        return 2
    except json.JSONDecodeError as e:
        print(f"paliwal_plot: {path}:{e.lineno}: not JSON ({e.msg})", file=sys.stderr)
        return 2
    ns2, cdm, ratio = matrices(result)
    if all(x is None for row in ratio for x in row):
        print(f"paliwal_plot: {path}: no Table II cell has both simulators' times", file=sys.stderr)
        return 2
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    def arr(m, scale=1.0):
        return np.array([[np.nan if x is None else x * scale for x in row] for row in m])

    panels = [(arr(ns2), "ns-2.35 wall time per cell (s)", "{:.1f}"),
              (arr(cdm, 1000.0), "cdmasim wall time per cell (ms)", "{:.0f}"),
              (arr(ratio), "ratio ns-2 / cdmasim", "{:.0f}")]
    fig, axes = plt.subplots(1, 3, figsize=(18, 5.8), constrained_layout=True)
    labels = [f"{x:g}" for x in GRID]
    for ax, (m, title, fmt) in zip(axes, panels):
        im = ax.imshow(m, origin="lower", cmap="viridis", norm=matplotlib.colors.LogNorm())
        ax.set_xticks(range(len(GRID)), labels)
        ax.set_yticks(range(len(GRID)), labels)
        ax.set_xlabel("T_B (s)")
        ax.set_ylabel("T_D (s)")
        ax.set_title(title)
        for i in range(len(GRID)):
            for j in range(len(GRID)):
                if not np.isnan(m[i, j]):
                    dark = im.norm(m[i, j]) < 0.6      # white on the dark end of viridis, black on the light
                    ax.text(j, i, fmt.format(m[i, j]), ha="center", va="center", fontsize=6.5,
                            color="white" if dark else "black")
        fig.colorbar(im, ax=ax, shrink=0.8)
    ph = result.get("phases") or {}
    if "ns-2" in ph and "cdmasim" in ph:
        fig.suptitle(f"Paliwal et al. Table II grid, {ph['cdmasim']['jobs']} runs at a time: ns-2 "
                     f"{ph['ns-2']['wall_s']:.1f} s, cdmasim {ph['cdmasim']['wall_s']:.1f} s "
                     f"(ratio {ph['ns-2']['wall_s'] / ph['cdmasim']['wall_s']:.1f}); {result.get('when_utc', '')}")
    out = Path(args.out) if args.out else path.with_suffix(".png")
    fig.savefig(out, dpi=110)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
