"""Ctrl-C stops the long core loops (channel generation, the full-buffer
scheduler study) and `--out` is written whole or not at all. The
interrupts are sent by a timer thread to this very process, so each test
only assumes that the work it interrupts is long (hundreds of millions of
slots), not how fast the machine is; a hung loop fails on the deadline."""

import os
import signal
import threading
import time

import pytest

import cdmasim
from cdmasim._files import write_into


@pytest.fixture(autouse=True)
def sigint_raises():
    """Python leaves SIGINT ignored if it started ignored (a job in the
    background of a non-interactive shell); these tests need Ctrl-C's usual
    KeyboardInterrupt, so they set it, and put back what was there."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def interrupt_after(seconds):
    t = threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGINT))
    t.start()
    return t


def test_ctrl_c_stops_channel_generation_and_writes_nothing(tmp_path):
    out = tmp_path / "big.drc"
    timer = interrupt_after(0.5)
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        cdmasim.channel.generate("mobile", 900_000_000, 1, out)
    timer.join()
    assert time.monotonic() - t0 < 60, "the loop did not look at the interrupt"
    assert not out.exists()


def test_ctrl_c_stops_drawn_statistics():
    timer = interrupt_after(0.5)
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        cdmasim.channel.stats("mobile", slots=900_000_000, seed=1, window_slots=[2_160_000, 1_080_000])
    timer.join()
    assert time.monotonic() - t0 < 60, "the loop did not look at the interrupt"


def test_ctrl_c_stops_the_scheduler_study():
    timer = interrupt_after(0.5)
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        cdmasim.evdo.schedule(8, 120_000_000, preset="stationary")
    timer.join()
    assert time.monotonic() - t0 < 60


def test_outputs_are_written_all_together_and_leave_other_files_alone(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.json").write_text("earlier run")
    (out / "thesis.tex").write_text("the user's own file")

    def half_then_ctrl_c(d):
        with open(os.path.join(d, "summary.json"), "w") as f:
            f.write("{}")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_into(out, half_then_ctrl_c)
    # The earlier run is intact and no temporary folder is left.
    assert sorted(p.name for p in out.iterdir()) == ["summary.json", "thesis.tex"]
    assert (out / "summary.json").read_text() == "earlier run"
    # A complete write replaces the earlier run's files; the user's stay, and
    # the folder records what this write put there.
    write_into(out, lambda d: open(os.path.join(d, "summary.json"), "w").close())
    assert sorted(p.name for p in out.iterdir()) == [".cdmasim-files", "summary.json", "thesis.tex"]
    assert (out / "summary.json").read_text() == "" and (out / "thesis.tex").read_text() == "the user's own file"
