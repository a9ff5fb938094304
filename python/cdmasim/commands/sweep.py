"""`cdmasim sweep SWEEP.toml --store DIR`: run a sweep (docs/sweeps.md)."""

from .._units import integer


def register(subparsers):
    p = subparsers.add_parser(
        "sweep", help="run a scenario over a grid of fields and seeds into a result store",
        description="Run every point and seed of a sweep file that the store does not hold yet (see docs/sweeps.md).")
    p.add_argument("file", help="sweep TOML file")
    p.add_argument("--store", metavar="DIR", required=True, help="result store directory (created if missing)")
    p.add_argument("--jobs", type=integer(1, 1024, "--jobs"), metavar="N", help="worker processes (default: all cores)")
    p.add_argument("--dask", metavar="ADDRESS", help="run on a Dask cluster: tcp://HOST:PORT, or 'local' for a LocalCluster")
    p.add_argument("--pcap", action="store_true", help="keep each run's pcap captures in the store")
    p.add_argument("--retry-failed", action="store_true", help="run again the runs the store holds as failed")
    p.add_argument("--verify", action="store_true",
                   help="check every stored file's checksum (not only its size) and redo damaged runs")
    p.add_argument("--worker-memory", metavar="SIZE",
                   help="memory each local worker may allocate (e.g. 4GB); a run that needs more fails alone")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary line")
    p.add_argument("--json", action="store_true", help="print the counts as one JSON line on stdout")
    p.set_defaults(func=main)


def main(args):
    from ..sweeps import describe, report_json, sweep, worker_memory_bytes

    worker_memory_bytes(args.worker_memory)          # the flag named in the error

    report = sweep(args.file, args.store, jobs=args.jobs, dask=args.dask, pcap=args.pcap,
                   progress=not args.quiet, retry_failed=args.retry_failed, verify=args.verify,
                   worker_memory=args.worker_memory)
    if args.json:
        print(report_json(report))
    elif not args.quiet:
        print(describe(report))
    return 0
