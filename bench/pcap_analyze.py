"""Benchmark: `cdmasim pcap analyze` against `tcptrace -l -r -n` and
`tshark -q -z conv,tcp` on a capture of at least 2 million packets that this
script makes itself (iperf3 between network namespaces, offloads off so
every frame is wire-sized, tcpdump with a 96-byte snaplen).

    sudo .venv/bin/python bench/pcap_analyze.py [--packets 2000000] [--capture FILE] [--keep]

Prints wall time and peak RSS (from /usr/bin/time -v) of each tool, the
ratios, and checks that every figure tcptrace prints agrees with ours.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

CLI = "import sys, cdmasim.cli as c; sys.exit(c.main(sys.argv[1:]))"


def make_capture(path, packets):
    from pcap_netns import NetPath

    # no shaping to speak of: a 10 Gbit/s tbf with a deep queue
    with NetPath(rate="10gbit", burst="4mb", limit="8mb") as net:
        ex = ["ip", "netns", "exec", net.ns["c"]]
        cap = subprocess.Popen(ex + ["tcpdump", "-i", net.ifc["c"], "-w", path, "-s", "96", "-B", "262144", "-n",
                                     "-c", str(packets), "tcp"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        net.procs.append(cap)
        time.sleep(1.0)
        srv = subprocess.Popen(["ip", "netns", "exec", net.ns["s"], "iperf3", "-s", "-p", "5202"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        net.procs.append(srv)
        time.sleep(0.5)
        while cap.poll() is None:
            net.ex("c", "iperf3", "-c", "10.77.2.2", "-p", "5202", "-t", "3", "-C", "cubic", check=False)
        srv.terminate()
        err = cap.stderr.read().decode()
    return err


def timed(cmd, out_path):
    """Run cmd under /usr/bin/time -v; return (wall s, peak RSS KiB, CPU s)."""
    with open(out_path, "w") as out, tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        t0 = time.perf_counter()
        r = subprocess.run(["/usr/bin/time", "-v", "-o", tf.name] + cmd, stdout=out, stderr=subprocess.PIPE,
                           text=True)
        wall = time.perf_counter() - t0
        if r.returncode != 0:
            raise SystemExit(f"{cmd[0]} failed: {r.stderr[-2000:]}")
        txt = tf.read()
        rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", txt).group(1))
        cpu = float(re.search(r"User time \(seconds\): ([\d.]+)", txt).group(1)) + \
            float(re.search(r"System time \(seconds\): ([\d.]+)", txt).group(1))
    return wall, rss, cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--packets", type=int, default=2_000_000)
    ap.add_argument("--capture", help="use this capture instead of making one")
    ap.add_argument("--runs", type=int, default=3, help="runs of cdmasim and tcptrace (best taken)")
    ap.add_argument("--no-tshark", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the capture in bench/out/")
    a = ap.parse_args()
    outdir = os.path.join(HERE, "out")
    os.makedirs(outdir, exist_ok=True)
    cap = a.capture or os.path.join(outdir, "bench_pcap_analyze.pcap")
    if a.capture and not os.path.isfile(a.capture):
        ap.error(f"--capture {a.capture}: not a file (run without --capture, with --keep, to make one)")
    if not a.capture:
        print(f"making a capture of {a.packets} packets ...", flush=True)
        msg = make_capture(cap, a.packets)
        print("tcpdump:", " ".join(msg.split("\n")[-4:]).strip())
    size = os.path.getsize(cap)
    npk = int(subprocess.run(["capinfos", "-c", "-M", cap], capture_output=True, text=True).stdout.split()[-1]) \
        if shutil.which("capinfos") else a.packets
    print(f"capture: {cap}: {npk} packets, {size / 1e6:.1f} MB")

    from sims import compile_cdmasim

    compile_cdmasim(sys.executable)
    results = {}
    ours_cmd = [sys.executable, "-c", CLI, "pcap", "analyze", cap, "--json"]
    tt_cmd = ["tcptrace", "-l", "-r", "-n", cap]
    for name, cmd in (("cdmasim", ours_cmd), ("tcptrace", tt_cmd)):
        best = None
        for _ in range(a.runs):
            r = timed(cmd, os.path.join(outdir, f"{name}.out"))
            best = r if best is None or r[0] < best[0] else best
        results[name] = best
    if not a.no_tshark and shutil.which("tshark"):
        results["tshark"] = timed(["tshark", "-q", "-z", "conv,tcp", "-r", cap], os.path.join(outdir, "tshark.out"))

    import pcap_tcptrace as tt

    ours = json.load(open(os.path.join(outdir, "cdmasim.out")))
    theirs = tt.parse(open(os.path.join(outdir, "tcptrace.out")).read())
    diffs = tt.compare(ours["connections"], theirs)
    nfields = sum(len(c["a2b"]) + len(c["b2a"]) for c in theirs)

    print(f"\n{'tool':10s} {'wall s':>8s} {'CPU s':>8s} {'peak RSS MB':>12s} {'Mpkt/s (wall)':>14s}")
    for name, (w, rss, cpu) in results.items():
        print(f"{name:10s} {w:8.3f} {cpu:8.3f} {rss / 1024:12.1f} {npk / w / 1e6:14.2f}")
    w0, r0, c0 = results["cdmasim"]
    for name, (w, rss, cpu) in results.items():
        if name != "cdmasim":
            print(f"{name} / cdmasim: wall {w / w0:.2f}x, CPU {cpu / c0:.2f}x, peak RSS {rss / r0:.2f}x")
    print(f"(load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    print(f"\nfigures compared with tcptrace: {nfields} fields in {len(theirs)} connections, "
          f"{len(diffs)} differ")
    for d in diffs[:20]:
        print("  differs:", d)
    if not a.keep and not a.capture:
        os.remove(cap)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
