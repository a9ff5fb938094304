"""The sweep worker pool (cdmasim.workers): one task per worker at a time, a
worker that dies takes only its own task with it, workers are reused across
calls, and a caller that stops early leaves no worker holding a stale result."""

import os
import signal
import subprocess
import sys
import time

import pytest

from cdmasim.workers import WorkerPool, describe_exit, dying_with_us


def test_every_task_is_answered_and_workers_are_reused_across_calls():
    with WorkerPool(2) as pool:
        first = list(pool.map_unordered([("os:getpid", ())] * 5))
        second = list(pool.map_unordered([("os:getpid", ())] * 3))
    assert [kind for _, (kind, _) in first + second] == ["ok"] * 8
    pids = {pid for _, (_, pid) in first}
    assert len(pids) == 2 and os.getpid() not in pids
    assert {pid for _, (_, pid) in second} <= pids


def test_a_task_that_kills_its_worker_fails_alone_and_a_new_worker_goes_on():
    # os._exit(3) ends the worker mid-task, as an abort or the OOM killer would.
    with WorkerPool(1) as pool:
        out = dict(pool.map_unordered([("os:_exit", (3,)), ("os:_exit", (4,))]))
    assert out == {("os:_exit", (3,)): ("died", "worker process died (exit code 3)"),
                   ("os:_exit", (4,)): ("died", "worker process died (exit code 4)")}
    assert describe_exit(-9) == "killed by SIGKILL"


def test_a_caller_that_stops_early_leaves_no_busy_worker_behind():
    pool = WorkerPool(1)
    nap = ("time:sleep", (0,))
    try:
        it = pool.map_unordered([nap, ("time:sleep", (60,))])
        assert next(it) == (nap, ("ok", None))      # the worker then takes the 60 s task
        busy = pool.workers[0].proc
        it.close()
        assert busy.poll() is not None, "the busy worker was not stopped"
        assert list(pool.map_unordered([nap, nap])) == [(nap, ("ok", None))] * 2
    finally:
        pool.close()


def test_workers_collect_cycles_less_often_and_this_process_keeps_its_setting():
    import gc

    mine = gc.get_threshold()
    with WorkerPool(1) as pool:
        (_, (kind, threshold)), = pool.map_unordered([("gc:get_threshold", ())])
    assert (kind, threshold) == ("ok", (20_000, 20, 20))
    assert gc.get_threshold() == mine


def test_workers_run_numerical_libraries_on_one_thread_unless_told_otherwise(monkeypatch):
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    with WorkerPool(1) as pool:
        out = dict(pool.map_unordered([("os:getenv", ("OPENBLAS_NUM_THREADS",)), ("os:getenv", ("OMP_NUM_THREADS",))]))
    assert out == {("os:getenv", ("OPENBLAS_NUM_THREADS",)): ("ok", "1"), ("os:getenv", ("OMP_NUM_THREADS",)): ("ok", "3")}


def test_a_worker_keeps_its_files_in_a_folder_of_its_own_that_goes_with_it(tmp_path, monkeypatch):
    # A run keeps its drop log and series spool in the temporary folder and
    # removes them itself, but a worker that dies mid-run cannot: the pool
    # removes the worker's own folder, whatever is in it, once it is gone.
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with WorkerPool(1) as pool:
        out = list(pool.map_unordered([("tempfile:mkdtemp", ()), ("tempfile:gettempdir", ()), ("os:_exit", (3,))]))
        (_, (_, left)), (_, (_, scratch)), (_, (died, _)) = out
        assert died == "died"
        assert os.path.dirname(left) == scratch and os.path.dirname(scratch) == str(tmp_path)
        assert not os.path.exists(scratch), "a dead worker's folder outlived it"
        (_, (_, second)), = pool.map_unordered([("tempfile:gettempdir", ())])
        assert os.path.isdir(second) and second != scratch
    assert os.listdir(tmp_path) == [], "a closed pool left a worker's folder"


def test_pools_sharing_slots_keep_no_more_workers_busy_than_slots(tmp_path, monkeypatch):
    # Two pools of two workers each, one slot between them: every task waits
    # a while for another to be busy beside it, and none may ever see one.
    import threading

    from cdmasim.workers import Slots

    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([os.path.dirname(__file__), os.environ.get("PYTHONPATH", "")]))
    folder = tmp_path / "busy"
    folder.mkdir()
    slots = Slots(1)
    seen = []

    def drive(name):
        with WorkerPool(2, slots=slots) as pool:
            tasks = [("pool_probe:busy_beside", (str(folder), f"{name}{i}", 1.0)) for i in range(2)]
            seen.extend(pool.map_unordered(tasks))

    threads = [threading.Thread(target=drive, args=(n,), daemon=True) for n in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
        assert not t.is_alive(), "the pools sharing one slot are stuck"
    assert sorted(kind for _, (kind, _) in seen) == ["ok"] * 4
    assert max(most for _, (_, most) in seen) == 1
    # Every slot is back: one to take, then none.
    assert slots.take() and not slots.take()
    slots.close()


def test_without_slots_the_probe_sees_tasks_side_by_side(tmp_path, monkeypatch):
    # The probe above can fail: two workers of one pool, no slots, are seen
    # busy together.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([os.path.dirname(__file__), os.environ.get("PYTHONPATH", "")]))
    folder = tmp_path / "busy"
    folder.mkdir()
    with WorkerPool(2) as pool:
        out = list(pool.map_unordered([("pool_probe:busy_beside", (str(folder), f"t{i}", 30)) for i in range(2)]))
    assert [most for _, (_, most) in out] == [2, 2]


def test_a_pool_stopped_early_gives_its_slots_back():
    from cdmasim.workers import Slots

    slots = Slots(1)
    pool = WorkerPool(1, slots=slots)
    try:
        it = pool.map_unordered([("time:sleep", (0,)), ("time:sleep", (60,))])
        next(it)
        assert not slots.take()  # the second task holds the one slot
        it.close()
        assert slots.take()
    finally:
        pool.close()
        slots.close()


def test_a_worker_that_died_waiting_for_a_slot_gives_it_back_and_is_replaced():
    # The test holds the one slot while the pool's two workers wait for it,
    # kills them, then gives the slot back: the pool must notice the dead
    # worker when it hands it a task, return the slot and go on.
    import threading

    from cdmasim.workers import Slots

    slots = Slots(1)
    assert slots.take()
    pool = WorkerPool(2, slots=slots)
    out = []
    t = threading.Thread(target=lambda: out.extend(pool.map_unordered([("os:getpid", ())] * 3)), daemon=True)
    t.start()
    try:
        for _ in range(2000):
            if len(pool.workers) == 2:
                break
            time.sleep(0.01)
        dead = [w.proc.pid for w in pool.workers]
        for w in list(pool.workers):
            w.proc.kill()
            w.proc.wait()
        slots.give()
        t.join(timeout=120)
        assert not t.is_alive(), "the pool is stuck"
        assert [kind for _, (kind, _) in out] == ["ok"] * 3
        assert not {pid for _, (_, pid) in out} & set(dead)
        assert slots.take() and not slots.take()
    finally:
        pool.close()
        slots.close()


def test_a_command_started_dying_with_us_has_sigkill_as_its_parent_death_signal():
    # setpriv asks for it before it execs the command: the command itself
    # (here a Python reading PR_GET_PDEATHSIG) carries it, no preexec_fn.
    if sys.platform != "linux" or dying_with_us(["x"]) == ["x"]:
        pytest.skip("needs Linux and util-linux's setpriv")
    probe = "import ctypes; v = ctypes.c_int(); ctypes.CDLL(None).prctl(2, ctypes.byref(v)); print(v.value)"
    out = subprocess.run(dying_with_us([sys.executable, "-c", probe]), capture_output=True, text=True, check=True)
    assert int(out.stdout) == signal.SIGKILL
    plain = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert int(plain.stdout) == 0
