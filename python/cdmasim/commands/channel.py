"""`cdmasim channel stats|fit|generate`: DRC trace analysis (Liu et al. section 5)."""

import sys

from .._units import integer, seed

# The limits are the core's (`cdmasim._core.MAX_*`), shared with the Python
# API: generate holds the trace it draws (5 bytes a slot with SINR), stats a
# lag table per lag.


def register(sub):
    from .. import _core

    p = sub.add_parser("channel", help="analyse, fit and generate per-slot DRC channels")
    cs = p.add_subparsers(dest="channel_cmd", required=True)

    s = cs.add_parser("stats", help="statistics of DRC traces (mean, std, modal fraction, entropy, sojourn, memory)")
    s.add_argument("files", nargs="+", metavar="FILE",
                   help="DRC traces: text (one DRC index or rate per line), binary (.drc) or Mahimahi (.up/.down)")
    _fmt_args(s)
    s.add_argument("--window", default="1h", help="window for per-window statistics (default 1h; 0s for none)")
    s.add_argument("--max-order", type=integer(1, 4, "--max-order"), default=4, help="deepest history n of H(X_i | past n) (1 to 4)")
    s.add_argument("--max-lag", default="200", help="largest lag d in slots or a duration (default 200; at most 100000)")
    s.add_argument("--json", action="store_true", help="print all results as JSON")
    s.add_argument("--plot", metavar="DIR", help="write figures like Liu et al. Figs. 1-5 into DIR")
    s.set_defaults(func=_stats)

    f = cs.add_parser("fit", help="fit a Markov chain of order K to a trace (optionally one per hidden regime)")
    f.add_argument("file", metavar="FILE", help="the DRC trace to fit (text, binary or Mahimahi)")
    f.add_argument("--order", type=integer(0, _core.MAX_MARKOV_ORDER, "--order"), required=True,
                   help=f"slots of history the chain conditions on (0 to {_core.MAX_MARKOV_ORDER}; 1: a first-order chain)")
    f.add_argument("--out", required=True, metavar="MODEL", help="where to write the model (JSON; replaced whole)")
    f.add_argument("--regimes", type=integer(1, 64, "--regimes"), default=1,
                   help="group windows of the trace by mean rate into N regimes, a chain each (default 1: one chain)")
    f.add_argument("--regime-window", default="10s", help="the regimes' window (default 10s; a duration or N slots)")
    _fmt_args(f)
    f.set_defaults(func=_fit)

    g = cs.add_parser("generate", help="generate a trace from a model file, a preset or constant:N")
    g.add_argument("source", metavar="MODEL|PRESET",
                   help="a model file from `channel fit`, a preset (stationary, mobile, location1-3) or constant:N")
    g.add_argument("--slots", required=True, help="number of slots, or a duration (24h, 20s); at most 10^9 slots")
    g.add_argument("--seed", type=seed, default=1, help="random seed of the draw (default 1)")
    g.add_argument("--out", required=True, metavar="FILE", help="output: binary if it ends in .drc, Mahimahi delivery opportunities (mm-link's format) if in .down or .up, else text")
    g.add_argument("--drc-only", action="store_true", help="leave out the SINR column")
    g.set_defaults(func=_generate)


def _fmt_args(p):
    p.add_argument("--format", choices=["auto", "text", "binary", "mahimahi"], default="auto",
                   help="trace format (default auto: binary by its magic, Mahimahi for .up/.down, else text)")
    p.add_argument("--mahimahi-window", default="100ms", help="window mapping Mahimahi deliveries to a DRC (multiple of 5ms)")


def _mm(args):
    from .._units import mahimahi_window

    return mahimahi_window(args.mahimahi_window, "--mahimahi-window")


def _stats(args):
    import json
    import math

    from .. import channel
    from .._units import slots

    from .. import _core

    if args.plot is not None:
        from .._files import check_output_dir

        check_output_dir("--plot", args.plot)
    window = slots(args.window, "--window")
    max_lag = slots(args.max_lag, "--max-lag", allow_bare=True, at_most=_core.MAX_LAG)
    if max_lag < 1:
        from ..errors import InputError

        raise InputError("--max-lag: must be at least 1 slot")
    results = {}
    for f in args.files:
        results[f] = channel.stats(f, window_slots=window, max_order=args.max_order, max_lag=max_lag,
                                   format=None if args.format == "auto" else args.format,
                                   mahimahi_window_ms=_mm(args))
    if args.plot is not None:
        for p in channel.plot(results, args.plot):
            print(f"wrote {p}", file=sys.stderr)
    if args.json:
        def fix(o):
            if isinstance(o, float) and not math.isfinite(o):
                return None
            if isinstance(o, dict):
                return {k: fix(v) for k, v in o.items()}
            if isinstance(o, list):
                return [fix(v) for v in o]
            return o

        json.dump(fix(results), sys.stdout, indent=1)
        print()
        return 0
    df = channel.summary(results)
    import pandas as pd

    with pd.option_context("display.width", 200, "display.max_columns", 40, "display.float_format", "{:.4g}".format):
        print(df.set_index("trace").T.to_string())
    return 0


def _fit(args):
    from .. import channel
    from .._files import check_output_file

    # Before the fit: a long fit is not lost to a path that cannot be written.
    check_output_file("--out", args.out)
    from .._units import slots

    window = slots(args.regime_window, "--regime-window", allow_bare=True)
    m = channel.fit(args.file, args.order, out=args.out, format=None if args.format == "auto" else args.format,
                    mahimahi_window_ms=_mm(args), regimes=args.regimes, regime_window=window)
    if args.regimes == 1:
        print(f"order {m['order']} Markov chain, {len(m['contexts'])} contexts -> {args.out}")
    else:
        levels = ", ".join(f"{r['mean_rate_bps'] / 1e3:.0f}" for r in m["regimes"])
        print(f"{len(m['regimes'])} regimes of {m['window_slots']}-slot windows (mean kb/s: {levels}), "
              f"an order {args.order} chain each -> {args.out}")
    return 0


def _generate(args):
    from .. import channel
    from .._units import slots
    from .._files import check_output_file

    check_output_file("--out", args.out)
    from .. import _core

    n = slots(args.slots, "--slots", allow_bare=True, at_most=_core.MAX_SLOTS_IN_MEMORY)
    r = channel.generate(args.source, n, args.seed, args.out, drc_only=args.drc_only)
    print(f"{r['slots']} slots{' with SINR' if r['sinr'] else ''}, {r['handoffs']} hand-offs -> {args.out}")
    return 0
