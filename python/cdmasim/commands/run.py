"""`cdmasim run FILE`: simulate a scenario and print its summary.

Start-up stays light: json and the compiled core only; pandas and pyarrow
are imported only when --out writes tables."""

import sys

from .._units import seed


def register(subparsers):
    p = subparsers.add_parser("run", help="simulate a scenario file", description="Simulate a scenario file (see docs/scenario.md).")
    p.add_argument("file", help="scenario TOML file")
    p.add_argument("--seed", type=seed, help="override [simulation].seed")
    p.add_argument("--out", metavar="DIR", help="write summary.json and the flows/queues/series/drops/users/sectors tables here")
    p.add_argument("--format", choices=["parquet", "csv"], help="table format for --out (default parquet)")
    p.add_argument("--pcap", metavar="DIR", help="write pcap captures here (one per pair of adjacent nodes)")
    p.add_argument("--plot", metavar="DIR", help="write figures here: cwnd/ssthresh per TCP flow, queues, goodput, one-way delay")
    p.add_argument("--quiet", action="store_true", help="no progress bar, no summary table, no notes")
    p.add_argument("--json", action="store_true", help="print the summary as JSON instead of a table")
    p.set_defaults(func=main)


def main(args):
    from ..errors import InputError
    from ..simulate import run
    from .._files import check_output_dir

    if args.format and args.out is None:
        raise InputError("--format: it sets the table format of --out; give --out DIR too")
    # Output places are checked before the run, so that a long simulation is
    # not lost to a path that cannot be written.
    for flag, path in (("--out", args.out), ("--pcap", args.pcap), ("--plot", args.plot)):
        if path is not None:
            check_output_dir(flag, path)
    progress = not args.quiet and sys.stderr.isatty()
    result = run(args.file, seed=args.seed, pcap_dir=args.pcap, progress=progress)
    if args.out is not None:
        # The tables take the place of an earlier run's, all together; the
        # folder's other files stay.
        result.to_dir(args.out, fmt=args.format or "parquet")
    if args.plot is not None:
        from ..run_plot import plot_run

        try:
            files, hints = plot_run(result, args.plot)
        except OSError as e:
            raise InputError(f"{args.plot}: cannot write: {e.strerror or e}") from None
        if not args.quiet:
            for h in hints:
                print(f"cdmasim: note: {h}", file=sys.stderr)
            print(f"wrote {len(files)} figure(s) to {args.plot}", file=sys.stderr)
    if args.json:
        sys.stdout.write(result.summary_json())
    elif not args.quiet:
        from ..summary import format_summary

        print(format_summary(result.summary))
    return 0
