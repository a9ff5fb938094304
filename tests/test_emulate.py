"""`cdmasim emulate`: real Linux TCP through the simulated sector, in
namespaces and TUN devices this test creates, cleaned up after a normal
exit and after SIGKILL; bad input in one line. Needs root, /dev/net/tun and
iperf3: without them each test is skipped with the reason. The assertions
are about accounting and clean-up, not about how fast this machine relays."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

TWO_USERS = """
[simulation]
duration = "600s"
seed = 4
[[node]]
name = "bs"
[[sector]]
name = "s1"
node = "bs"
scheduler = "pf"
[[user]]
name = "ue1"
sector = "s1"
drc = { constant = "1228.8kbps" }
[[user]]
name = "ue2"
sector = "s1"
drc = { constant = "614.4kbps" }
"""


def needs_emulation():
    if os.geteuid() != 0:
        pytest.skip("emulate needs root (network namespaces, TUN devices)")
    if not os.path.exists("/dev/net/tun"):
        pytest.skip("no /dev/net/tun")
    for tool in ("iperf3", "unshare", "nsenter", "ip"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} not installed (scripts/apt-packages.txt)")


def cli(*args, **kw):
    return subprocess.run([sys.executable, "-m", "cdmasim.cli", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, **kw)


def ours_alive():
    """Processes this module's emulators started and that still run."""
    out = subprocess.run(["pgrep", "-f", "sleep infinity|iperf3 -s|CDMASIM_TEST"], capture_output=True, text=True)
    return [int(x) for x in out.stdout.split()]


def kill_once_started(args, before):
    """Start `cdmasim ARGS`, SIGKILL it once its user program (marked
    CDMASIM_TEST) runs, and check that none of its processes is left."""
    p = subprocess.Popen([sys.executable, "-m", "cdmasim.cli", *args], cwd=ROOT, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not any("CDMASIM_TEST" in open(f"/proc/{q}/cmdline").read().replace("\0", " ")
                                                  for q in set(ours_alive()) - before if os.path.exists(f"/proc/{q}")):
        time.sleep(0.1)
    assert set(ours_alive()) - before, "the emulation did not start"
    p.send_signal(signal.SIGKILL)
    p.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and set(ours_alive()) - before:
        time.sleep(0.1)
    assert not set(ours_alive()) - before, "processes left after SIGKILL"


@pytest.fixture
def scenario(tmp_path):
    p = tmp_path / "two.toml"
    p.write_text(TWO_USERS)
    return p


def test_two_real_tcp_downloads_share_the_sector(scenario, tmp_path):
    needs_emulation()
    before = set(ours_alive())
    log = tmp_path / "log"
    p = cli("emulate", scenario, "--server", "iperf3 -s -p 5201 & iperf3 -s -p 5202",
            "--user", "ue1=sleep 0.2; iperf3 -c $CDMASIM_SERVER -p 5201 -t 3 -R -C cubic",
            "--user", "ue2=sleep 0.2; iperf3 -c $CDMASIM_SERVER -p 5202 -t 3 -R -C reno",
            "--log", log, "--json", timeout=120)
    assert p.returncode == 0, p.stderr[-3000:]
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["exit_codes"] == {"ue1": 0, "ue2": 0}
    rep = out["report"]
    for u in rep["users"]:
        for d in (u["down"], u["up"]):
            # Every packet that entered is delivered, dropped with a reason, or still queued.
            assert d["packets_in"] == d["delivered"] + sum(d["dropped"].values()) + d["queued_at_end"]
        assert u["down"]["bytes_delivered"] > 100_000, u
        assert (log / f"{u['name']}.down.log").stat().st_size > 0
    assert rep["deadlines"] > 1000 and rep["schedule_error_p50_us"] >= 0
    assert json.loads((log / "report.json").read_text())["exit_codes"] == {"ue1": 0, "ue2": 0}
    # The usual table and plot beside the logs: one row per user and direction.
    rows = (log / "users.csv").read_text().splitlines()
    assert rows[0].startswith("name,address,direction") and len(rows) == 1 + 2 * 2
    assert (log / "throughput.png").stat().st_size > 1000
    # Nothing of ours is left: no holder, no server, no TUN in this namespace.
    time.sleep(0.5)
    assert set(ours_alive()) <= before
    assert "cdm0" not in subprocess.run(["ip", "-br", "link"], capture_output=True, text=True).stdout


def test_sigkill_leaves_nothing_behind(scenario, tmp_path):
    needs_emulation()
    before = set(ours_alive())
    # An earlier run's --log folder: the killed run must leave it as it was
    # (the logs are written into a fresh folder that replaces it at the end).
    log = tmp_path / "log"
    log.mkdir()
    (log / "report.json").write_text('{"earlier": true}')
    kill_once_started(["emulate", str(scenario), "--server", "iperf3 -s", "--user", "ue1=CDMASIM_TEST=1 sleep 60",
                       "--log", str(log)], before)
    # At most a hidden temporary folder of the killed run is left beside it.
    assert [n for n in os.listdir(log) if not n.startswith(".cdmasim-new-")] == ["report.json"]
    assert (log / "report.json").read_text() == '{"earlier": true}'


def test_user_commands_are_shell_commands(scenario, tmp_path):
    # A builtin, a `cd &&` chain and an assignment before the program, as
    # the docs promise; the emulator's exit code is the first non-zero one.
    needs_emulation()
    p = cli("emulate", scenario, "--user", "ue1=cd /tmp && FOO=1 true", "--user", "ue2=exit 3", "--json",
            "--log", tmp_path / "log", timeout=120)
    assert p.returncode == 3, p.stderr
    assert json.loads(p.stdout)["exit_codes"] == {"ue1": 0, "ue2": 3}
    assert {"report.json", "users.csv", "ue1.down.log"} <= set(os.listdir(tmp_path / "log"))


@pytest.mark.parametrize("args,fragment", [
    (["--user", "nobody=true"], "no user 'nobody'"),
    (["--user", "ue1=no-such-program-xyz"], "program 'no-such-program-xyz' not found"),
    (["--user", "ue1"], "expected NAME=COMMAND"),
])
def test_bad_input_is_one_line(scenario, args, fragment):
    needs_emulation()
    p = cli("emulate", scenario, *args, timeout=60)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert len(p.stderr.splitlines()) == 1 and fragment in p.stderr, p.stderr


def test_not_root_is_one_line(scenario, tmp_path):
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to drop to an unprivileged user")
    env = dict(os.environ, HOME=str(tmp_path))
    p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-m",
                        "cdmasim.cli", "emulate", str(scenario), "--user", "ue1=true"], cwd=ROOT, capture_output=True,
                       text=True, timeout=60, env=env)
    if "Permission denied" in p.stderr and "cdmasim" not in p.stderr:
        pytest.skip("the checkout is not readable by an unprivileged user")
    assert p.returncode == 2 and len(p.stderr.splitlines()) == 1 and "needs root" in p.stderr, p.stderr


def test_slot_shares_follow_the_full_buffer_scheduler(scenario, tmp_path):
    """Two users with different channels (1228.8 and 614.4 kb/s) both
    downloading: PF splits the slots as the full-buffer study of the same
    channels predicts (equal shares for constant channels), within 0.1
    (TCP does not keep the queues full every slot)."""
    needs_emulation()
    import cdmasim

    traces = []
    # The scenario's constant rates as DRC indices (the one-slot formats).
    for name, drc in (("a.txt", 9), ("b.txt", 6)):
        p = tmp_path / name
        p.write_text(f"{drc}\n" * 6000)
        traces.append(p)
    predicted = cdmasim.evdo.schedule(2, 600_000, traces=traces, schedulers=("pf",), interlace=4,
                                      handoff="keep")["runs"][0]["result"]["user_share"]
    p = cli("emulate", scenario, "--server", "iperf3 -s -p 5201 & iperf3 -s -p 5202",
            "--user", "ue1=sleep 0.2; iperf3 -c $CDMASIM_SERVER -p 5201 -t 4 -R",
            "--user", "ue2=sleep 0.2; iperf3 -c $CDMASIM_SERVER -p 5202 -t 4 -R", "--json", timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    users = json.loads(p.stdout.strip().splitlines()[-1])["report"]["users"]
    shares = [u["slot_share"] for u in users]
    assert abs(sum(shares) - 1) < 1e-9
    for got, want in zip(shares, predicted):
        assert abs(got - want) < 0.1, (shares, predicted)


def test_a_mahimahi_trace_drives_a_users_channel(tmp_path):
    """A user whose channel is a Mahimahi trace (here one cdmasim wrote:
    1228.8 kb/s, which maps back exactly at 1 s windows) downloads through
    the emulated sector at no more than the trace allows."""
    needs_emulation()
    trace = tmp_path / "cell.down"
    p = cli("channel", "generate", "constant:9", "--slots", "36000", "--out", trace, timeout=60)
    assert p.returncode == 0, p.stderr
    scenario = tmp_path / "mm.toml"
    scenario.write_text(TWO_USERS.replace('drc = { constant = "1228.8kbps" }',
                                          'drc = { trace = "cell.down", format = "mahimahi", window = "1s" }'))
    p = cli("emulate", scenario, "--server", "iperf3 -s -1",
            "--user", "ue1=sleep 0.2; iperf3 -c $CDMASIM_SERVER -t 3 -R", "--json", timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    rep = json.loads(p.stdout.strip().splitlines()[-1])["report"]
    ue1 = rep["users"][0]
    kbps = ue1["down"]["bytes_delivered"] * 8 / rep["duration_s"] / 1000
    assert ue1["down"]["bytes_delivered"] > 50_000 and kbps <= 1228.8, kbps


# --- every radio hop kind, emulated: real TCP, a real web client, clean-up

EXAMPLES = ROOT / "examples"
RADIO_EXAMPLES = {"emulate_cdma2000_cell": ["ms1", "ms2"], "emulate_rlp_link": ["mobile"],
                  "emulate_is2000": ["u1", "u2", "u3"]}


def _conserved(rep, names):
    assert [u["name"] for u in rep["users"]] == names
    for u in rep["users"]:
        for d in (u["down"], u["up"]):
            # Every packet that entered is delivered, dropped with a reason, or still inside.
            assert d["packets_in"] == d["delivered"] + sum(d["dropped"].values()) + d["queued_at_end"], u


@pytest.mark.parametrize("example", sorted(RADIO_EXAMPLES))
def test_real_tcp_and_a_web_client_through_every_radio_hop(example, tmp_path):
    """The users the example's opening comment names are the emulator's;
    the first downloads with iperf3 (real Linux TCP), the second fetches a
    page with curl from `python3 -m http.server` on the server side."""
    needs_emulation()
    if shutil.which("curl") is None:
        pytest.skip("curl not installed (scripts/apt-packages.txt)")
    scenario = EXAMPLES / f"{example}.toml"
    names = RADIO_EXAMPLES[example]
    assert f"Users: {', '.join(names)}." in scenario.read_text()
    www = tmp_path / "www"
    www.mkdir()
    (www / "page.bin").write_bytes(os.urandom(30_000))
    server = f"iperf3 -s -1 -p 5201 & cd {www} && exec python3 -m http.server 8000 --bind 0.0.0.0"
    download = "iperf3 -c $CDMASIM_SERVER -p 5201 -t 3 -R"
    fetch = f"curl -sf -o {tmp_path}/got.bin http://$CDMASIM_SERVER:8000/page.bin"
    # With one user (the RLP link's mobile) that user fetches the page after its download.
    fetcher = names[1] if len(names) > 1 else names[0]
    args = ["emulate", scenario, "--server", server, "--json"]
    if fetcher == names[0]:
        args += ["--user", f"{names[0]}=sleep 0.5; {download} && {fetch}"]
    else:
        args += ["--user", f"{names[0]}=sleep 0.5; {download}",
                 "--user", f"{fetcher}=sleep 0.5; {fetch}"]
    p = cli(*args, timeout=180)
    assert p.returncode == 0, p.stderr[-3000:]
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert set(out["exit_codes"].values()) == {0}
    rep = out["report"]
    _conserved(rep, names)
    users = {u["name"]: u for u in rep["users"]}
    assert users[names[0]]["down"]["bytes_delivered"] > 30_000
    assert (tmp_path / "got.bin").read_bytes() == (www / "page.bin").read_bytes()
    assert users[fetcher]["down"]["bytes_delivered"] > 30_000
    # The hops say what they did, as the simulator's tables do.
    hops = rep["hops"]
    if example == "emulate_cdma2000_cell":
        assert [m["name"] for m in hops["mobiles"]] == names and hops["cells"][0]["sch_grants"] > 0
    else:
        assert {r["direction"] for r in hops["radio_links"]} == {"down", "up"}
        assert sum(r["frames_sent"] for r in hops["radio_links"]) > 100


def test_an_rlp_link_at_ten_percent_frame_errors_delivers_everything_in_order(tmp_path):
    """RLP3 repairs the air link's frame errors (FER 10 %): 300 numbered
    datagrams sent from the server side reach the real receiver, every one,
    in the order they were sent, and the link retransmitted frames to do it."""
    needs_emulation()
    scenario = tmp_path / "rlp.toml"
    scenario.write_text((EXAMPLES / "emulate_rlp_link.toml").read_text()
                        .replace("fer = 0.02", "fer = 0.1").replace('fading = "rayleigh"', 'fading = "iid"'))
    tool = ROOT / "tests" / "udp_sequence.py"
    got = tmp_path / "got.txt"
    p = cli("emulate", scenario, "--json",
            "--server", f"sleep 1; {sys.executable} {tool} send 10.77.1.2 6000 300 200 40",
            "--user", f"mobile={sys.executable} {tool} receive 6000 300 {got} 6", timeout=180)
    assert p.returncode == 0, p.stderr[-3000:]
    assert [int(x) for x in got.read_text().split()] == list(range(300))
    rep = json.loads(p.stdout.strip().splitlines()[-1])["report"]
    _conserved(rep, ["mobile"])
    down = rep["users"][0]["down"]
    assert down["dropped"] == {} and down["delivered"] == down["packets_in"] >= 300
    air = next(r for r in rep["hops"]["radio_links"] if r["direction"] == "down")
    assert air["frames_retransmitted"] > 0 and air["packets_aborted"] == 0
    assert 0.05 < air["fer"] < 0.15, air["fer"]


@pytest.mark.parametrize("example", sorted(RADIO_EXAMPLES))
def test_sigkill_of_any_radio_emulation_leaves_nothing_behind(example):
    needs_emulation()
    before = set(ours_alive())
    user = RADIO_EXAMPLES[example][0]
    kill_once_started(["emulate", str(EXAMPLES / f"{example}.toml"), "--server", "iperf3 -s",
                       "--user", f"{user}=CDMASIM_TEST=1 sleep 60"], before)
    assert "cdm0" not in subprocess.run(["ip", "-br", "link"], capture_output=True, text=True).stdout


FOUR = ROOT / "examples" / "emulate_four_users.toml"


def test_real_cubic_reno_bbr_against_the_simulator(tmp_path):
    """Real Linux cubic, reno, bbr and cubic downloading through one 4-user
    PF sector get the goodput the simulator gives the same variants through
    the same sector (with Linux's TCP defaults), within 25 %; bbr keeps its
    delay and queue below the loss-based variants', as in the simulator."""
    needs_emulation()
    import cdmasim
    from cdmasim.emulate import LINUX_TCP, simulated_twin

    ccs = {"ue1": "cubic", "ue2": "reno", "ue3": "bbr", "ue4": "cubic"}
    args = ["emulate", FOUR, "--server", " & ".join(f"iperf3 -s -1 -p {5201 + i}" for i in range(4)) + "; wait", "--json"]
    for i, (u, cc) in enumerate(ccs.items()):
        args += ["--user", f"{u}=sleep 0.3; iperf3 -c $CDMASIM_SERVER -p {5201 + i} -t 10 -R -C {cc} -J > {tmp_path}/{u}.json"]
    p = cli(*args, timeout=180)
    assert p.returncode == 0, p.stderr[-2000:]
    rep = json.loads(p.stdout.strip().splitlines()[-1])["report"]
    real = {}
    for u in ccs:
        t = (tmp_path / f"{u}.json").read_text()
        real[u] = json.loads(t[t.index("{"):])["end"]["sum_received"]["bits_per_second"]
    twin = simulated_twin(FOUR, {u: dict(LINUX_TCP, cc=cc) for u, cc in ccs.items()}, "10.3s")
    sim = cdmasim.run(twin).flows.set_index("name")
    for u in ccs:
        assert abs(sim.loc[u, "goodput_bps"] / real[u] - 1) < 0.25, (u, real[u], sim.loc[u, "goodput_bps"])
    delay = {x["name"]: x["down"]["delay_mean_ms"] for x in rep["users"]}
    queue = {x["name"]: x["queue_avg_pkts"] for x in rep["users"]}
    assert delay["ue3"] < min(delay["ue1"], delay["ue2"]) and queue["ue3"] < min(queue["ue1"], queue["ue2"]), (delay, queue)
    assert sim.loc["ue3", "owd_avg_s"] < min(sim.loc["ue1", "owd_avg_s"], sim.loc["ue2", "owd_avg_s"])


def test_a_stream_waits_less_behind_bbr_than_behind_cubic(scenario, tmp_path):
    """Seed 000 §7.4 with real programs: a 9.6 kb/s stream shares a user's
    queue with a bulk download; its packets (52 bytes on the wire) wait
    less behind bbr than behind cubic."""
    needs_emulation()
    medians = {}
    for cc in ("cubic", "bbr"):
        log = tmp_path / cc
        p = cli("emulate", scenario, "--server", "iperf3 -s -p 5201 & iperf3 -s -p 5202",
                "--user", f"ue1=sleep 0.2; (iperf3 -c $CDMASIM_SERVER -p 5201 -t 8 -R -C {cc} >/dev/null &); sleep 2; "
                "iperf3 -c $CDMASIM_SERVER -p 5202 -u -b 9600 -l 24 -t 5 -R >/dev/null; wait", "--log", log, timeout=120)
        assert p.returncode == 0, p.stderr[-2000:]
        d = sorted(int(f[3]) for f in (line.split() for line in (log / "ue1.down.log").read_text().splitlines())
                   if f[1] == "-" and int(f[2]) <= 60)
        assert len(d) > 100, cc
        medians[cc] = d[len(d) // 2]
    assert medians["bbr"] < medians["cubic"], medians


VJ_USER = """
[simulation]
duration = "600s"
seed = 2
[[node]]
name = "bs"
[[sector]]
name = "s1"
node = "bs"
[[user]]
name = "laptop"
sector = "s1"
drc = { constant = "1228.8kbps" }
ppp = "vj"
loss = 0.005
"""


def _vj_download(tmp_path, timestamps):
    """One 6 s download to the VJ laptop with the kernels' TCP timestamps
    on or off: (its ppp row, its report direction, the laptop's
    TcpInCsumErrors)."""
    scenario = tmp_path / "vj.toml"
    scenario.write_text(VJ_USER)
    snmp = tmp_path / f"snmp{timestamps}.txt"
    ts = f"sysctl -qw net.ipv4.tcp_timestamps={timestamps}"
    p = cli("emulate", scenario, "--json", "--server", f"{ts}; iperf3 -s -1 -p 5201",
            "--user", f"laptop={ts}; sleep 0.3; iperf3 -c $CDMASIM_SERVER -p 5201 -t 6 -R > /dev/null; "
                      f"cat /proc/net/snmp > {snmp}", timeout=120)
    assert p.returncode == 0, p.stderr[-3000:]
    rep = json.loads(p.stdout.strip().splitlines()[-1])["report"]
    _conserved(rep, ["laptop"])
    tcp = [line.split() for line in snmp.read_text().splitlines() if line.startswith("Tcp:")]
    csum_errors = int(dict(zip(tcp[0], tcp[1]))["InCsumErrors"])
    ppp = next(r for r in rep["hops"]["ppp"] if r["link"] == "laptop.down")
    return ppp, rep["users"][0]["down"], csum_errors


def test_real_linux_tcp_through_vj_sees_the_checksum_failures(tmp_path):
    """Seed 001 §3.3 with a real kernel: the laptop's PPP link runs VJ and
    loses 0.5 % of frames below PPP. The segments after each loss reach
    the laptop with the header the decompressor rebuilt and the checksum
    the server computed, and the laptop's own TCP counts every one of them
    as a checksum error (TcpInCsumErrors) and drops it. With TCP timestamps
    on (Linux's default) VJ sends most headers whole (a segment whose
    timestamps equal the last one's still goes compressed), and far fewer
    segments are rebuilt wrong (Fig. 8)."""
    needs_emulation()
    off, off_down, off_errors = _vj_download(tmp_path, 0)
    assert off["compressed"] > 0.9 * off["frames"] and off["lost"] > 0
    assert off["corrupted"] > off["lost"]
    # The relay wrote each rebuilt segment, and the kernel rejected each.
    assert off_errors == off_down["corrupted"] > 0
    assert off_down["corrupted"] <= off["corrupted"]
    on, on_down, on_errors = _vj_download(tmp_path, 1)
    assert on["compressed"] < 0.5 * on["frames"]
    assert on_errors == on_down["corrupted"] < off_down["corrupted"]
