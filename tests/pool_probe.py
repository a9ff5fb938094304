"""A task for the worker-pool tests (test_workers.py), imported by the
workers: marks itself busy in a folder and reports how many tasks it saw
busy at once."""

import os
import time


def busy_beside(folder, name, seconds):
    """Busy in `folder` until another task is busy beside it, or `seconds`
    have passed: 2, or 1. A task that met another stays busy until the
    other has met it too, so neither can miss the meeting."""
    mine = os.path.join(folder, f"busy-{name}")
    open(mine, "w").close()
    end = time.monotonic() + seconds
    met = False
    try:
        while time.monotonic() < end:
            names = os.listdir(folder)
            if not met and sum(n.startswith("busy-") for n in names) >= 2:
                open(os.path.join(folder, f"met-{name}"), "w").close()
                met = True
            if met and sum(n.startswith("met-") for n in names) >= 2:
                break
            time.sleep(0.005)
    finally:
        os.remove(mine)
    return 2 if met else 1
