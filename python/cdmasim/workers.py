"""A pool of worker processes for sweeps that survives its tasks and dies
with its parent.

Each worker is a plain `python -m cdmasim.workers` child that runs one task
at a time, so when a worker dies (the core aborting on an allocation, the
kernel's OOM killer, a `kill -9`) the pool knows exactly which task killed
it: that task is reported as failed with the reason, a new worker takes
the dead one's place, and the other tasks go on. A worker asks the kernel
to kill it when its parent dies (PR_SET_PDEATHSIG), so `kill -9` of a
sweep leaves no process behind; no multiprocessing resource tracker is
involved. `memory` caps each worker's data segment (RLIMIT_DATA, which
since Linux 4.7 counts anonymous mappings too), so a run that would
exhaust the machine fails alone.

Tasks and results cross a pipe pickled (multiprocessing.connection); the
worker's stderr goes to a temporary file whose last line explains a death
(e.g. Rust's "memory allocation of N bytes failed").

Each worker gets a scratch folder of its own, made by the pool and given
to it as TMPDIR, where its runs keep their drop logs, series spools and
pcap folders. A run cleans up after itself, but a worker that dies cannot:
the pool removes the folder, with whatever the worker left in it, once the
worker is gone, so a run that kills its worker leaves nothing behind
(only a `kill -9` of the pool's own process, which takes its workers with
it, leaves their folders)."""

from __future__ import annotations

import ctypes
import gc
import importlib
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection, wait
from typing import Any

#: Thread counts of the numerical libraries numpy may load.
_ONE_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")

PR_SET_PDEATHSIG = 1


def describe_exit(code: int) -> str:
    """'killed by SIGKILL' / 'exit code 3'."""
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def _last_words(lines: list[str]) -> str | None:
    """The line of a dead worker's stderr that says why: the allocation that
    failed or the panic, not the backtrace after it; else the last line."""
    for marker in ("memory allocation of", "panicked at", "Error"):
        hits = [ln for ln in lines if marker in ln]
        if hits:
            return hits[0] if marker != "Error" else hits[-1]
    return lines[-1] if lines else None


class _Worker:
    def __init__(self, memory: int | None):
        task_r, task_w = os.pipe()
        result_r, result_w = os.pipe()
        self.stderr = tempfile.TemporaryFile(prefix="cdmasim-worker-")
        self.scratch = tempfile.mkdtemp(prefix="cdmasim-worker-")
        env = dict(os.environ, PYTHONUNBUFFERED="1", TMPDIR=self.scratch)
        # The pool gives each core a worker already: numpy's BLAS threads
        # would only contend with the other workers (their busy-waiting was
        # 5 % of a liu Fig. 6 task's CPU). A user's own setting is kept.
        for var in _ONE_THREAD:
            env.setdefault(var, "1")
        args = [sys.executable, "-m", "cdmasim.workers", str(task_r), str(result_w), str(os.getpid()),
                str(memory or 0)]
        try:
            self.proc = subprocess.Popen(args, pass_fds=(task_r, result_w), stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=self.stderr, env=env)
        except BaseException:
            shutil.rmtree(self.scratch, ignore_errors=True)
            raise
        finally:
            os.close(task_r)
            os.close(result_w)
        self.tasks = Connection(task_w, readable=False)
        self.results = Connection(result_r, writable=False)
        self.task = None
        self.started = 0.0

    def give(self, task):
        self.task, self.started = task, time.perf_counter()
        self.tasks.send(task)

    def death(self) -> str:
        """Why the worker is gone: its exit status and its last stderr line."""
        try:
            code = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        self.stderr.seek(0, os.SEEK_END)
        size = self.stderr.tell()
        self.stderr.seek(max(0, size - 4096))
        lines = [ln.strip() for ln in self.stderr.read().decode(errors="replace").splitlines() if ln.strip()]
        why = f"worker process died ({describe_exit(code)})"
        said = _last_words(lines)
        return f"{why}: {said}" if said else why

    def close(self, kill: bool = False):
        for c in (self.tasks, self.results):
            try:
                c.close()
            except OSError:
                pass
        if self.proc.poll() is None:
            if kill:
                self.proc.kill()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.stderr.close()
        # The worker is gone: what it left in its own folder goes too (a
        # run it died in could not remove its files).
        shutil.rmtree(self.scratch, ignore_errors=True)


class Slots:
    """A number of busy workers that pools running side by side share: a
    pipe holding one byte per free slot. `cdmasim reproduce all` runs its
    sweeps and liu's channel traces on two pools at once; with a slot per
    core, no more workers than cores run at a time (two pools of two on 2
    cores spent 5 % more CPU and 4 % more time on the same work, their
    processes taking turns on each core and each other's caches)."""

    def __init__(self, n: int):
        self._r, self._w = os.pipe()
        os.set_blocking(self._r, False)
        os.write(self._w, b"s" * n)

    def take(self) -> bool:
        """A free slot, if there is one (never waits)."""
        try:
            return len(os.read(self._r, 1)) == 1
        except BlockingIOError:
            return False

    def give(self):
        if self._w >= 0:
            os.write(self._w, b"s")

    def fileno(self) -> int:
        """Readable while a slot is free (for `multiprocessing.connection.wait`)."""
        return self._r

    def close(self):
        """After the pools are done with it (a late `give` is ignored)."""
        fds, self._r, self._w = (self._r, self._w), -1, -1
        for fd in fds:
            if fd >= 0:
                os.close(fd)


class WorkerPool:
    """`jobs` worker processes. A task is (target, args): the worker calls
    target ("module:function", imported once per worker) with *args.
    `map_unordered` yields (task, ("ok", result)) or (task, ("died",
    reason)) as tasks finish; `close` stops every worker. With `slots`
    (shared with other pools), a worker gets a task only with a free slot,
    held until the pool reads the task's result."""

    def __init__(self, jobs: int, memory: int | None = None, slots: Slots | None = None):
        self.jobs, self.memory, self.slots = jobs, memory, slots
        self.workers: list[_Worker] = []

    def map_unordered(self, tasks: Iterable[tuple[str, tuple]]) -> Iterator[tuple[tuple, tuple[str, Any]]]:
        pending = deque(tasks)
        busy: dict[Connection, _Worker] = {}
        slots = self.slots

        def spawn() -> _Worker:
            w = _Worker(self.memory)
            self.workers.append(w)
            return w

        def retire(w: _Worker):
            if w in self.workers:  # not if the pool was closed meanwhile
                self.workers.remove(w)
            w.close(kill=True)

        def assign(w: _Worker):
            if pending and (slots is None or slots.take()):
                task = pending.popleft()
                try:
                    w.give(task)
                except OSError:
                    # It died idle (killed from outside, between calls or
                    # while waiting for a slot): the task and the slot go
                    # back, and a new worker takes its place.
                    pending.appendleft(task)
                    if slots is not None:
                        slots.give()
                    retire(w)
                    assign(spawn())
                    return
                busy[w.results] = w

        def assign_idle():
            for w in list(self.workers):
                if w.results not in busy:
                    assign(w)

        try:
            # Workers left from an earlier call first, then new ones as needed.
            assign_idle()
            while pending and len(self.workers) < self.jobs:
                assign(spawn())
            while busy or (pending and slots is not None and self.workers):
                # Idle workers wait for a slot another pool gives back.
                waiting = slots is not None and pending and len(busy) < len(self.workers)
                for conn in wait(list(busy) + ([slots] if waiting else [])):
                    if conn is slots:
                        assign_idle()
                        continue
                    w = busy.pop(conn)
                    if slots is not None:
                        slots.give()
                    task = w.task
                    try:
                        outcome = ("ok", conn.recv())
                    except (EOFError, OSError):
                        outcome = ("died", w.death())
                        retire(w)
                        w = spawn() if pending else None
                    if w is not None:
                        assign(w)
                    yield task, outcome
        finally:
            # Left early (the caller stopped, Ctrl-C): a worker still on a
            # task would hand its result to the next call; it goes instead,
            # and its slot goes back.
            for w in busy.values():
                retire(w)
                if slots is not None:
                    slots.give()

    def close(self):
        for w in self.workers:
            w.close(kill=True)
        self.workers = []

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc):
        self.close()


def _die_with(parent: int):
    """Ask the kernel for SIGKILL when the parent goes, then make sure it
    has not already gone (the request only covers deaths after it)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the worker still ends when its task pipe closes
    if os.getppid() != parent:
        os._exit(1)


def dying_with_us(cmd: list[str]) -> list[str]:
    """`cmd` started so that it gets SIGKILL when this process dies (even
    by SIGKILL): through util-linux's setpriv, which asks for it
    (PR_SET_PDEATHSIG) and then execs the command. Not from a preexec_fn:
    Python runs that in the child between fork and exec, where a child of
    a process with threads (an emulation's relay and output readers, a
    reproduce's pools) can deadlock on a lock another thread held at the
    fork. Without setpriv, the command as it is."""
    return ["setpriv", "--pdeathsig", "KILL", "--", *cmd] if shutil.which("setpriv") else list(cmd)


def _limit_memory(nbytes: int):
    # pyarrow's default allocator reserves about a gigabyte of address space
    # it never touches, which RLIMIT_DATA would count; the system allocator
    # reserves only what is used, so the limit measures real demand.
    os.environ["ARROW_DEFAULT_MEMORY_POOL"] = "system"
    resource.setrlimit(resource.RLIMIT_DATA, (nbytes, nbytes))


_RESOLVED: dict[str, Callable] = {}


def resolve(target: str) -> Callable:
    """'module:function' -> the function (imported once)."""
    if target not in _RESOLVED:
        module, _, name = target.partition(":")
        _RESOLVED[target] = getattr(importlib.import_module(module), name)
    return _RESOLVED[target]


def call(target: str, args: tuple) -> Any:
    """Run one task here: what a worker does, and what Dask workers run."""
    return resolve(target)(*args)


def collect_less() -> None:
    """Run Python's cycle collector less often, in a process of ours that
    turns simulation results into tables (a worker, `cdmasim reproduce`):
    pandas and pyarrow make many short-lived containers, and with the
    default threshold (700 allocations) the collector walked them and
    everything imported about 4 % of a `reproduce dziong --quick`'s CPU.
    Memory is still freed by reference counting as before; only cycles wait
    longer. Not called on import: a user's own interpreter keeps its
    settings."""
    gc.set_threshold(20_000, 20, 20)


def main(argv: list[str]) -> int:
    task_fd, result_fd, parent, memory = int(argv[0]), int(argv[1]), int(argv[2]), int(argv[3])
    _die_with(parent)
    collect_less()
    # Ctrl-C reaches the whole process group; the parent decides what stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if memory:
        _limit_memory(memory)
    tasks, results = Connection(task_fd, writable=False), Connection(result_fd, readable=False)
    while True:
        try:
            target, args = tasks.recv()
        except (EOFError, OSError):
            return 0
        results.send(call(target, args))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
