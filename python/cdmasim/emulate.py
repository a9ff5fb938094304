"""Real programs through a simulated radio network, in real time
(`cdmasim emulate`): a 1xEV-DO sector, a cdma2000 1X cell, an RLP3 radio
link or an IS-2000 sector, with everything around it in the scenario, are
the simulator's own hops (crates/cdmasim-core/src/emu/); this module sets
up the network namespaces, runs the programs and cleans up.

Layout: one network namespace for the server side and one per user (the
terminals of the scenario's radio hops: EV-DO and IS-2000 users, a cell's
mobiles, a radio link's mobile end), each with a TUN device `cdm0` that the
relay holds. The server sits at the radio hops' network-side node and is
10.77.0.1; user k (in the scenario's order, from 0) is 10.77.(k+1).2.
Programs see CDMASIM_SERVER, CDMASIM_USER and CDMASIM_ADDR.

Clean-up: each namespace is held by one process (`unshare --net sleep`)
and every process started here dies with the emulator (PR_SET_PDEATHSIG,
through setpriv: `workers.dying_with_us`),
so after a normal exit, Ctrl-C or SIGKILL the namespaces have no process
left and the kernel removes them; the TUN devices go with the relay's file
descriptors. Nothing is mounted (no `ip netns add`), so nothing stays."""

import copy
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping

from . import _core
from ._files import check_output_dir
from ._units import flag
from .errors import InputError
from .simulate import ParsedScenario, parse, scenario_text
from .workers import dying_with_us

SERVER_ADDR = "10.77.0.1"


def user_addr(k):
    return f"10.77.{k + 1}.2"


def _spawned(procs, start):
    """start() with Ctrl-C held until its process is in `procs`: a Ctrl-C
    that landed between the fork and the list would leave a program the
    cleanup never stops, and its output pipe open (waited on for as long as
    the program runs). A Ctrl-C that came meanwhile is raised once the list
    has the process. (Python runs signal handlers in the main thread; called
    from another thread, which gets no KeyboardInterrupt, it just starts.)"""
    if threading.current_thread() is not threading.main_thread():
        p = start()
        procs.append(p)
        return p
    came = []
    before = signal.signal(signal.SIGINT, lambda *_: came.append(True))
    try:
        p = start()
        procs.append(p)
    finally:
        signal.signal(signal.SIGINT, before)
    if came and before is not signal.SIG_IGN:
        if callable(before):
            before(signal.SIGINT, None)  # the default one raises KeyboardInterrupt
        else:
            raise KeyboardInterrupt
    return p


def _ns_of(pid):
    return f"/proc/{pid}/ns/net"


def _new_namespace(holders, timeout=5.0):
    """A new network namespace, held by a process added to `holders` (the
    cleanup stops it); returns the namespace's path."""
    p = _spawned(holders, lambda: subprocess.Popen(dying_with_us(["unshare", "--net", "sleep", "infinity"]),
                                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    own = os.stat("/proc/self/ns/net").st_ino
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if os.stat(_ns_of(p.pid)).st_ino != own:
                return _ns_of(p.pid)
        except FileNotFoundError:
            break
        time.sleep(0.005)
    p.kill()
    raise OSError("could not create a network namespace (unshare --net)")


#: A start slower than this is reported (it is about 0.1 s; a loaded
#: machine has taken tens of seconds).
SLOW_START_S = 5.0


def _note_slow_start(marks):
    """Say on stderr where the time went when bringing the network up took
    more than SLOW_START_S: `marks` are (step that ended, time) pairs."""
    total = marks[-1][1] - marks[0][1]
    if total > SLOW_START_S:
        steps = ", ".join(f"{name} {t - before:.1f} s" for (_, before), (name, t) in zip(marks, marks[1:]))
        print(f"cdmasim: note: emulate: the network took {total:.1f} s to come up ({steps})",
              file=sys.stderr, flush=True)


def _in_ns(ns, *cmd):
    subprocess.run(["nsenter", f"--net={ns}", *cmd], check=True, capture_output=True)


#: Linux's TCP defaults where the simulator's differ (initial window 10,
#: SACK and timestamps, 200 ms minimum RTO, delayed ACKs, a large receive
#: buffer): the TCP of a simulated twin of real Linux programs.
LINUX_TCP = {"initial_window": 10, "sack": True, "timestamps": True, "min_rto": "200ms",
             "delayed_ack": "on", "rcv_buffer": "6MB"}


def users(scenario):
    """The users an emulation of `scenario` (TOML text, a path or a dict)
    has, in order: the terminals of its radio hops (EV-DO and IS-2000
    users, a cell's mobiles, a radio link's mobile), or without one every
    node but the first."""
    return _attachment(scenario_text(parse(scenario)))[1]


def _attachment(source):
    """(network-side node, users) of a scenario (`simulate.Source`);
    InputError if the radio hops are served from several nodes."""
    try:
        return _core.emulate_attachment(*source)
    except ValueError as e:
        raise InputError(f"emulate: {e}") from None


def simulated_twin(scenario, downloads, duration, start="0.3s"):
    """The simulator's counterpart of an emulation of `scenario` (TOML text,
    a path or a dict, with radio hops served from one node): a server node
    `srv` at that node behind a 1 Gb/s, 1 us link (the emulator's server
    sits there), and one download from it to each user of `downloads`
    (user name -> TCP table, e.g. dict(LINUX_TCP, cc="bbr")), starting at
    `start`; the run lasts `duration` ("10.3s"). Returns the scenario as a
    dict, for cdmasim.run (trace files named relative to a scenario file
    then resolve from the working directory)."""
    import tomllib

    if isinstance(scenario, dict) and not isinstance(scenario, ParsedScenario):
        doc = copy.deepcopy(scenario)
    else:
        source = scenario_text(scenario)  # (a parsed one is checked unchanged)
        if isinstance(scenario, ParsedScenario):
            source = scenario._source  # the document it was parsed from
        doc = (json.loads if source.form == "json" else tomllib.loads)(source.text)
        if isinstance(scenario, ParsedScenario):
            # With the seed it was parsed with (parse(x, seed=...)).
            doc.setdefault("simulation", {})["seed"] = scenario["seed"]
    base, names = _attachment(scenario_text(doc))
    for user in downloads:
        if user not in names:
            raise InputError(f"simulated_twin: no user '{user}' in the scenario (users: {', '.join(names)})")
    doc.setdefault("simulation", {})["duration"] = duration
    doc.setdefault("node", []).append({"name": "srv"})
    doc.setdefault("link", []).append({"name": "srv-bs", "from": "srv", "to": base, "rate": "1Gbps", "delay": "1us"})
    doc.setdefault("flow", []).extend({"name": user, "from": "srv", "to": user, "start": start, "tcp": dict(tcp)}
                                      for user, tcp in downloads.items())
    return doc


def check_root():
    if os.geteuid() != 0:
        raise InputError("emulate: needs root (network namespaces and TUN devices)")


def check(source, users, server_cmd):
    """The one-line errors: users of the scenario's radio hops, programs
    that exist. Returns the users' names in order."""
    check_root()
    for tool in ("unshare", "nsenter", "setpriv", "ip"):
        if shutil.which(tool) is None:
            raise InputError(f"emulate: '{tool}' not found (install util-linux and iproute2)")
    _, names = _attachment(source)
    if not names:
        raise InputError("emulate: the scenario needs a radio hop with users (a [[sector]], [[cell]], "
                         "[[radio_link]] or [[is2000_sector]]), or at least two nodes")
    if len(names) > 254:
        raise InputError(f"emulate: {len(names)} users; at most 254")
    for name in users:
        if name not in names:
            raise InputError(f"--user {name}: no user '{name}' in the scenario (users: {', '.join(names)})")
    for what, cmd in [("--server", server_cmd), *((f"--user {n}", c) for n, c in users.items())]:
        if cmd is not None:
            _check_command(what, cmd)
    return names


def _check_command(what, cmd):
    """A shell command (run by `sh -c`) whose first program exists: leading
    VAR=value assignments are skipped, and shell builtins and keywords
    (exit, cd, if, ...) count as existing, as `command -v` says."""
    try:
        words = shlex.split(cmd)
    except ValueError:
        raise InputError(f"{what}: unbalanced quotes in {cmd!r}") from None
    while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
        words.pop(0)
    if not words:
        if cmd.strip():
            return  # only assignments: a valid (if idle) shell command
        raise InputError(f"{what}: empty command")
    prog = words[0]
    if shutil.which(prog) is not None:
        return
    found = subprocess.run(["sh", "-c", 'command -v -- "$1" >/dev/null', "sh", prog], capture_output=True)
    if found.returncode != 0:
        raise InputError(f"{what}: program '{prog}' not found")


def _check_arguments(users, server, log_dir, on_start):
    """The Python API's arguments, before anything starts: users a dict of
    name -> shell command, server a command or None, log_dir a writable
    folder or None, on_start a callable or None."""
    if not isinstance(users, Mapping) or not users:
        raise InputError(f"users must be a dict of user name -> shell command, got {users!r}")
    for name, cmd in users.items():
        if not isinstance(name, str) or not isinstance(cmd, str):
            raise InputError(f"users[{name!r}]: expected a user's name and a shell command (text), got {cmd!r}")
    if server is not None and not isinstance(server, str):
        raise InputError(f"server must be a shell command (text) or None, got {server!r}")
    if on_start is not None and not callable(on_start):
        raise InputError(f"on_start must be a callable or None, got {on_start!r}")
    if log_dir is not None:
        return check_output_dir("log_dir", log_dir)
    return None


class _Output:
    """Every program's output, line by line, each line prefixed with its
    program's name (`ue1| ...`) on `stream` and kept as it was in
    NAME.out in the log folder: lines of two programs never mix."""

    def __init__(self, stream, log_dir):
        self.stream, self.log_dir = stream, log_dir
        self.lock = threading.Lock()
        self.threads = []

    def follow(self, name, pipe):
        log = None
        if self.log_dir is not None:
            log = open(os.path.join(self.log_dir, _core.file_component(name) + ".out"), "wb")

        def pump():
            try:
                for raw in iter(pipe.readline, b""):
                    if log is not None:
                        log.write(raw)
                    if self.stream is not None:
                        line = raw.decode("utf-8", "replace").rstrip("\n")
                        with self.lock:
                            self.stream.write(f"{name}| {line}\n")
                            self.stream.flush()
            except (OSError, ValueError):
                pass   # the stream went away (a closed pipe): the program goes on
            finally:
                pipe.close()
                if log is not None:
                    log.close()

        t = threading.Thread(target=pump, name=f"cdmasim-output-{name}", daemon=True)
        t.start()
        self.threads.append(t)

    def close(self):
        for t in self.threads:
            t.join()


def emulate(scenario, users, server=None, log_dir=None, on_start=None, until_done=False, output=None):
    """Run the scenario's radio network between a server namespace and one
    namespace per user; run `server` (a shell command) in the server's and
    users[name] in each user's. Returns once every user program has
    finished, or at the scenario's duration (the programs still running are
    stopped then and listed in "stopped") unless `until_done`:
    {"exit_codes": {name: code}, "stopped": [names], "report": relay
    report}. Each program's output goes, line by line and prefixed with its
    name, to `output` (a text stream; None: sys.stdout), and whole to
    NAME.out in `log_dir`."""
    check_root()
    log_dir = _check_arguments(users, server, log_dir, on_start)
    until_done = flag(until_done, "until_done")
    spec = parse(scenario)
    source = scenario_text(spec)
    names = check(source, users, server)
    if log_dir is not None:
        os.makedirs(log_dir, exist_ok=True)
    shown_output = _Output(sys.stdout if output is None else output, log_dir)
    holders, procs = [], []
    env = dict(os.environ, CDMASIM_SERVER=SERVER_ADDR)
    started = False
    try:
        marks = [("", time.monotonic())]
        server_ns = _new_namespace(holders)
        user_ns = [_new_namespace(holders) for _ in names]
        marks.append(("namespaces", time.monotonic()))
        _core.emulate_start(source.text, source.shown, server_ns, user_ns, "cdm0",
                            os.fspath(log_dir) if log_dir else None, source.form)
        started = True
        t0 = time.monotonic()
        marks.append(("radio relay", t0))
        _in_ns(server_ns, "ip", "link", "set", "lo", "up")
        _in_ns(server_ns, "ip", "addr", "add", f"{SERVER_ADDR}/16", "dev", "cdm0")
        _in_ns(server_ns, "ip", "link", "set", "cdm0", "up")
        for k, ns in enumerate(user_ns):
            _in_ns(ns, "ip", "link", "set", "lo", "up")
            _in_ns(ns, "ip", "addr", "add", f"{user_addr(k)}/24", "dev", "cdm0")
            _in_ns(ns, "ip", "link", "set", "cdm0", "up")
            _in_ns(ns, "ip", "route", "add", "default", "dev", "cdm0")
        marks.append(("addresses and routes", time.monotonic()))
        _note_slow_start(marks)
        if on_start is not None:
            on_start({"server": server_ns, "users": dict(zip(names, user_ns))})

        def run_in(name, ns, cmd, extra):
            # In its own PID namespace too: its first process dies with us
            # (--kill-child), and with it every process the command started.
            # A session of its own: Ctrl-C at the terminal reaches cdmasim
            # alone, which stops the emulation and every program with it.
            p = _spawned(procs, lambda: subprocess.Popen(
                dying_with_us(["nsenter", f"--net={ns}", "unshare", "--pid", "--fork", "--kill-child=SIGKILL",
                               "sh", "-c", cmd]),
                env={**env, **extra}, start_new_session=True,
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT))
            shown_output.follow(name, p.stdout)
            return p

        if server:
            run_in("server", server_ns, server, {})
            time.sleep(0.3)  # let it listen before the users connect
        mine = {}
        for k, name in enumerate(names):
            if name in users:
                mine[name] = run_in(name, user_ns[k], users[name], {"CDMASIM_USER": name, "CDMASIM_ADDR": user_addr(k)})
        # The scenario's duration bounds the emulation (from the relay's
        # start), unless asked to wait for the programs however long.
        deadline = None if until_done else t0 + spec["duration"] / 1e9
        codes, stopped = {}, []
        for name, p in mine.items():
            try:
                codes[name] = p.wait(timeout=None if deadline is None else max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                codes[name] = p.wait()
                stopped.append(name)
        return {"exit_codes": codes, "stopped": stopped, "report": json.loads(_core.emulate_finish())}
    finally:
        for p in procs + holders:
            if p.poll() is None:
                p.kill()
                p.wait()
        shown_output.close()
        if started:
            try:
                _core.emulate_finish()
            except RuntimeError:
                pass  # already finished
