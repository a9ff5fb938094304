"""`cdmasim evdo schedule|drc-table`: the full-buffer scheduler study (Liu et al. section 6)."""

from .._units import integer, seed


def register(sub):
    # The core's limits, which the Python API checks too: users, and users x
    # slots (every user's channel is held for the run).
    from .. import _core

    most = _core.MAX_STUDY_USERS
    p = sub.add_parser("evdo", help="1xEV-DO forward link: DRC table, scheduler study")
    cs = p.add_subparsers(dest="evdo_cmd", required=True)
    t = cs.add_parser("drc-table", help="print the C.S0024-A DRC table")
    t.set_defaults(func=_table)

    s = cs.add_parser("schedule", help="full-buffer PF vs RR (vs max C/I) over N users")
    src = s.add_mutually_exclusive_group(required=True)
    src.add_argument("--preset", help="channel preset for every user (stationary, mobile, location1, location2, location3)")
    src.add_argument("--trace", nargs="+", metavar="FILE", help="trace per user (shared with random starts if fewer)")
    s.add_argument("--users", type=integer(1, most, "--users"), default=4,
                   help=f"full-buffer users in the sector (default 4; at most {most})")
    s.add_argument("--slots", default="1000000",
                   help="slots or a duration (e.g. 1000000, 30min); users x slots at most 10^9")
    s.add_argument("--seed", type=seed, default=1, help="random seed of the channels (default 1)")
    s.add_argument("--scheduler", default="pf,rr,maxci", help="comma-separated: pf, rr, maxci (default all three)")
    s.add_argument("--alpha", type=float, default=1e-3, help="PF averaging constant (default 1/1000)")
    s.add_argument("--interlace", type=int, choices=[0, 1, 4], default=4,
                   help="4: standard interlace; 1: multi-slot packets in consecutive slots; 0: per-slot rates")
    s.add_argument("--handoff", choices=["keep", "reset", "both"], default="both",
                   help="what PF does with a user's average at a hand-off")
    s.add_argument("--handoff-every", metavar="LO-HI",
                   help="synthetic hand-offs for sources without their own, e.g. 20s-30s")
    s.add_argument("--pf-start-avg", default="1bps",
                   help="PF average A of a new or handed-off user (default 1bps: a brand-new user)")
    s.add_argument("--format", choices=["auto", "text", "binary", "mahimahi"], default="auto",
                   help="format of --trace files (default auto)")
    s.add_argument("--json", action="store_true", help="print the whole result as JSON")
    s.set_defaults(func=_schedule)


def _table(args):
    from .. import evdo

    print(evdo.drc_table().to_string(index=False))
    return 0


def _schedule(args):
    import json
    import sys

    from ..errors import InputError
    from .. import evdo
    from .._units import rate, slots

    from .. import _core

    n = slots(args.slots, "--slots", allow_bare=True, at_most=_core.MAX_SLOTS_IN_MEMORY // args.users)
    schedulers = [x.strip() for x in args.scheduler.split(",") if x.strip()]
    if not schedulers:
        raise InputError(f"--scheduler: '{args.scheduler}' names no scheduler (give pf, rr and/or maxci)")
    he = None
    if args.handoff_every:
        parts = args.handoff_every.split("-")
        if len(parts) != 2:
            raise InputError(f"--handoff-every: '{args.handoff_every}' is not LO-HI (e.g. 20s-30s)")
        he = (slots(parts[0], "--handoff-every"), slots(parts[1], "--handoff-every"))
    r = evdo.schedule(args.users, n, args.seed, preset=args.preset, traces=args.trace,
                      schedulers=schedulers, alpha=args.alpha,
                      interlace=args.interlace, handoff=args.handoff, handoff_every=he,
                      format=None if args.format == "auto" else args.format,
                      pf_initial_avg_bps=rate(args.pf_start_avg, "--pf-start-avg"))
    if args.json:
        json.dump(r, sys.stdout, indent=1)
        print()
        return 0
    print(f"{r['users']} users, {r['slots']} slots ({r['slots'] / 600:.0f} s), interlace {r['interlace']}, "
          f"hand-offs per user {r['handoffs_per_user']}")
    import pandas as pd

    with pd.option_context("display.width", 200, "display.max_columns", 20, "display.float_format", "{:.4g}".format):
        print(evdo.summary(r).to_string(index=False))
    return 0
