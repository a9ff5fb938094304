"""Real Linux TCP between network namespaces, for the pcap analyzer's tests
and benchmark: client namespace C -- router R -- server S over two veth
pairs, the R->S link shaped with tbf (this kernel has no netem), iperf3 from
C to S, tcpdump at either end. Every namespace is uniquely named and removed
on exit, whatever happens."""

import os
import shutil
import subprocess
import time
import uuid


def _run(*cmd, check=True, **kw):
    return subprocess.run(list(cmd), check=check, capture_output=True, text=True, **kw)


def missing_tools():
    return [t for t in ("ip", "tc", "iperf3", "tcpdump", "tcptrace") if shutil.which(t) is None]


def can_create_namespaces():
    """(True, '') or (False, why)."""
    miss = missing_tools()
    if miss:
        return False, "missing tools: " + ", ".join(miss) + " (scripts/apt-packages.txt)"
    if os.geteuid() != 0:
        return False, "network namespaces need root"
    name = "pcapprobe" + uuid.uuid4().hex[:8]
    r = _run("ip", "netns", "add", name, check=False)
    if r.returncode != 0:
        return False, "cannot create a network namespace: " + r.stderr.strip()
    _run("ip", "netns", "del", name, check=False)
    return True, ""


class NetPath:
    """C (10.77.1.1) -- R -- S (10.77.2.2); tbf on R's interface towards S."""

    def __init__(self, rate="20mbit", burst="16kb", limit="30kb", cc="cubic", sack=True, timestamps=True,
                 offloads_off=True, ipv6=False):
        # the congestion control is chosen per socket (iperf3 -C): in a
        # non-initial namespace the default may only be set to an
        # "allowed" algorithm, and cubic usually is not.
        self.tag = uuid.uuid4().hex[:6]
        self.ns = {k: f"pc{self.tag}{k}" for k in "crs"}
        self.rate, self.burst, self.limit = rate, burst, limit
        self.cc, self.sack, self.timestamps, self.offloads_off = cc, sack, timestamps, offloads_off
        self.ipv6 = ipv6
        self.server = "fd77:2::2" if ipv6 else "10.77.2.2"
        self.procs = []
        self.ifc = {"c": f"pc{self.tag}a", "rc": f"pc{self.tag}b", "rs": f"pc{self.tag}d", "s": f"pc{self.tag}e"}

    def ex(self, ns, *cmd, check=True):
        return _run("ip", "netns", "exec", self.ns[ns], *cmd, check=check)

    def __enter__(self):
        try:
            self._setup()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _setup(self):
        n, i = self.ns, self.ifc
        for v in n.values():
            _run("ip", "netns", "add", v)
        _run("ip", "link", "add", i["c"], "netns", n["c"], "type", "veth", "peer", "name", i["rc"], "netns", n["r"])
        _run("ip", "link", "add", i["rs"], "netns", n["r"], "type", "veth", "peer", "name", i["s"], "netns", n["s"])
        self.ex("c", "ip", "addr", "add", "10.77.1.1/24", "dev", i["c"])
        self.ex("r", "ip", "addr", "add", "10.77.1.2/24", "dev", i["rc"])
        self.ex("r", "ip", "addr", "add", "10.77.2.1/24", "dev", i["rs"])
        self.ex("s", "ip", "addr", "add", "10.77.2.2/24", "dev", i["s"])
        for k, dev in (("c", i["c"]), ("r", i["rc"]), ("r", i["rs"]), ("s", i["s"])):
            self.ex(k, "ip", "link", "set", "lo", "up")
            self.ex(k, "ip", "link", "set", dev, "up")
            if self.offloads_off and shutil.which("ethtool"):
                # wire-sized frames in the capture and real checksums
                self.ex(k, "ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off", "tx", "off", check=False)
        self.ex("c", "ip", "route", "add", "default", "via", "10.77.1.2")
        self.ex("s", "ip", "route", "add", "default", "via", "10.77.2.1")
        self.ex("r", "sysctl", "-qw", "net.ipv4.ip_forward=1")
        if self.ipv6:
            for k, dev, addr in (("c", i["c"], "fd77:1::1/64"), ("r", i["rc"], "fd77:1::2/64"),
                                 ("r", i["rs"], "fd77:2::1/64"), ("s", i["s"], "fd77:2::2/64")):
                self.ex(k, "ip", "-6", "addr", "add", addr, "dev", dev, "nodad")
            self.ex("c", "ip", "-6", "route", "add", "default", "via", "fd77:1::2")
            self.ex("s", "ip", "-6", "route", "add", "default", "via", "fd77:2::1")
            self.ex("r", "sysctl", "-qw", "net.ipv6.conf.all.forwarding=1")
        for k in ("c", "s"):
            self.ex(k, "sysctl", "-qw", f"net.ipv4.tcp_sack={int(self.sack)}")
            self.ex(k, "sysctl", "-qw", f"net.ipv4.tcp_timestamps={int(self.timestamps)}")
        self.ex("r", "tc", "qdisc", "add", "dev", i["rs"], "root", "tbf", "rate", self.rate, "burst", self.burst,
                "limit", self.limit)

    def capture(self, side, path, snaplen=128):
        """Start tcpdump at 'c' (sender side) or 's' (receiver side)."""
        dev = self.ifc[side]
        p = subprocess.Popen(["ip", "netns", "exec", self.ns[side], "tcpdump", "-i", dev, "-w", str(path), "-s",
                              str(snaplen), "-U", "--immediate-mode", "-n", "tcp"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.procs.append(p)
        # wait until tcpdump reports it is listening
        deadline = time.time() + 5
        while time.time() < deadline:
            if os.path.exists(path) and os.path.getsize(path) >= 24:
                break
            time.sleep(0.05)
        time.sleep(0.2)
        return p

    def iperf(self, seconds=2.0, port=5201, extra=()):
        srv = subprocess.Popen(["ip", "netns", "exec", self.ns["s"], "iperf3", "-s", "-1", "-p", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.procs.append(srv)
        time.sleep(0.3)
        self.ex("c", "iperf3", "-c", self.server, "-p", str(port), "-t", str(seconds), "-C", self.cc,
                *extra)
        srv.wait(timeout=10)

    def tbf_drops(self):
        out = self.ex("r", "tc", "-s", "qdisc", "show", "dev", self.ifc["rs"]).stdout
        import re

        m = re.search(r"dropped (\d+)", out)
        return int(m.group(1)) if m else 0

    def stop_captures(self):
        # let tcpdump drain the kernel buffer before it is told to stop:
        # packets still queued at SIGTERM are lost from the file
        time.sleep(1.0)
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def __exit__(self, *exc):
        self.stop_captures()
        for v in self.ns.values():
            _run("ip", "netns", "del", v, check=False)
        return False
