"""`cdmasim model NAME ...`: evaluate a closed form (docs/models.md).

Quantities take units as in scenario files ('9.6kbps', '16kB', '300ms')."""

import json

NAMES = ("fluid-loss", "mathis", "pftk", "lee", "reno-sawtooth", "markov", "jain")


def register(subparsers):
    p = subparsers.add_parser("model", help="evaluate a closed-form model (docs/models.md)",
                              description="Evaluate a closed-form model; equations in docs/models.md.")
    sub = p.add_subparsers(dest="model", required=True, metavar="NAME")

    def add(name, help_):
        q = sub.add_parser(name, help=help_, description=help_)
        q.add_argument("--json", action="store_true", help="print the result as one JSON line")
        return q

    q = add("fluid-loss", "Paliwal et al. eqs. 1-6: bytes lost at the shared buffer after a rate switch")
    q.add_argument("--mu-ll", required=True, metavar="RATE", help="link rate before the switch, e.g. 9.6kbps")
    q.add_argument("--mu-s", required=True, metavar="RATE", help="shared-buffer service rate, e.g. 38.4kbps")
    q.add_argument("--mu-lh", required=True, metavar="RATE", help="link rate after the switch, e.g. 163.2kbps")
    q.add_argument("--window", required=True, metavar="SIZE", help="fixed TCP window W, e.g. 16kB")
    q.add_argument("--buffer", required=True, metavar="SIZE", help="shared-buffer space B, e.g. 5kB")
    q.add_argument("--rtt", required=True, metavar="TIME", help="round-trip propagation delay T, e.g. 300ms")

    q = add("mathis", "Mathis et al. 1997: MSS/RTT * sqrt(3/(2bp))")
    q.add_argument("--mss", required=True, metavar="SIZE", help="maximum segment size, e.g. 1460B")
    q.add_argument("--rtt", required=True, metavar="TIME", help="round-trip time, e.g. 300ms")
    q.add_argument("--loss", required=True, type=float, metavar="P", help="loss probability per packet")
    q.add_argument("--b", type=float, default=1.0, help="packets per ACK (default 1)")

    q = add("pftk", "Padhye et al. 1998 full model (eq. 33)")
    q.add_argument("--mss", required=True, metavar="SIZE", help="maximum segment size, e.g. 1460B")
    q.add_argument("--rtt", required=True, metavar="TIME", help="round-trip time, e.g. 300ms")
    q.add_argument("--rto", required=True, metavar="TIME", help="base retransmission timeout T0")
    q.add_argument("--loss", required=True, type=float, metavar="P", help="loss probability per packet")
    q.add_argument("--wmax", required=True, type=float, metavar="SEGMENTS", help="receiver window, segments")
    q.add_argument("--b", type=float, default=1.0, help="packets per ACK (default 1)")

    q = add("lee", "Lee eq. 1: C * MTU / (RTT * sqrt(b p))")
    q.add_argument("--rtt", required=True, metavar="TIME", help="round-trip time, e.g. 400ms")
    q.add_argument("--loss", required=True, type=float, metavar="P", help="loss probability per packet")
    q.add_argument("--c", type=float, default=2.0, help="constant C (paper: 2)")
    q.add_argument("--mtu", default="1500B", metavar="SIZE", help="MTU (paper: 1500B)")
    q.add_argument("--b", type=float, default=2.0, help="packets per ACK (paper: 2)")

    q = add("reno-sawtooth", "Reno sawtooth through a DropTail buffer: utilisation and mean queue")
    q.add_argument("--capacity", required=True, metavar="RATE", help="bottleneck rate, e.g. 10Mbps")
    q.add_argument("--packet", default="1500B", metavar="SIZE", help="packet size (default 1500B)")
    q.add_argument("--rtt", required=True, metavar="TIME", help="round-trip propagation delay")
    q.add_argument("--buffer", required=True, type=float, metavar="PACKETS", help="DropTail buffer, packets")

    q = add("markov", "Markov chain: stationary distribution and mean sojourn 1/(1 - p_ii) per state")
    q.add_argument("rows", nargs="+", metavar="ROW", help="one matrix row per argument, comma-separated: 0.9,0.1 0.2,0.8")

    q = add("jain", "Jain's fairness index (sum x)^2 / (n sum x^2)")
    q.add_argument("values", nargs="+", type=float, metavar="X", help="each user's throughput (any one unit)")
    p.set_defaults(func=main)


def _evaluate(args):
    from ..errors import InputError
    from .. import models
    from .._units import rate, seconds, size_bytes

    m = args.model
    if m == "fluid-loss":
        return models.fluid_loss(rate(args.mu_ll, "--mu-ll"), rate(args.mu_s, "--mu-s"), rate(args.mu_lh, "--mu-lh"),
                                 size_bytes(args.window, "--window"), size_bytes(args.buffer, "--buffer"),
                                 seconds(args.rtt, "--rtt"))
    if m == "mathis":
        bps = models.mathis(size_bytes(args.mss, "--mss"), seconds(args.rtt, "--rtt"), args.loss, args.b)
        return {"throughput_bytes_per_s": bps, "throughput_bps": 8 * bps}
    if m == "pftk":
        bps = models.pftk(seconds(args.rtt, "--rtt"), seconds(args.rto, "--rto"), args.loss,
                          size_bytes(args.mss, "--mss"), args.wmax, args.b)
        return {"throughput_bytes_per_s": bps, "throughput_bps": 8 * bps}
    if m == "lee":
        bps = models.lee_eq1(seconds(args.rtt, "--rtt"), args.loss, args.c, size_bytes(args.mtu, "--mtu"), args.b)
        return {"throughput_bytes_per_s": bps, "throughput_bps": 8 * bps}
    if m == "reno-sawtooth":
        pkt = size_bytes(args.packet, "--packet")
        if pkt <= 0:
            raise InputError("--packet must be > 0")
        return models.reno_sawtooth(rate(args.capacity, "--capacity") / (8 * pkt), seconds(args.rtt, "--rtt"),
                                    args.buffer)
    if m == "markov":
        try:
            matrix = [[float(x) for x in row.split(",")] for row in args.rows]
        except ValueError:
            raise InputError("markov: each ROW is comma-separated numbers, e.g. 0.9,0.1") from None
        return {"states": models.markov_sojourns(matrix)}
    return {"jain_index": models.jain_index(args.values)}


def main(args):
    out = _evaluate(args)
    if args.json:
        print(json.dumps(out))
        return 0
    if "states" in out:
        for s in out["states"]:
            print(f"state {s['state']}: stationary {s['stationary']:.6g}, mean sojourn {s['mean_sojourn_slots']:.6g} slots")
        return 0
    width = max(map(len, out))
    for k, v in out.items():
        print(f"{k:<{width}}  {v:.6g}" if isinstance(v, float) else f"{k:<{width}}  {v}")
    return 0
