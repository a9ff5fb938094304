"""A minimal progress bar on stderr for long runs (no dependencies).

It stays invisible for the first half second, so short runs print nothing,
and draws only when stderr is a terminal."""

import sys
import threading
import time


class ProgressBar:
    WIDTH = 30
    DELAY_S = 0.5
    #: Redraw at most this often (the run offers progress every 0.1 % of it).
    REDRAW_S = 0.1

    def __init__(self, stream=None):
        self.stream = stream or sys.stderr
        self.t0 = time.monotonic()
        self.last = -1.0
        self.drawn = False
        self.enabled = hasattr(self.stream, "isatty") and self.stream.isatty()

    def __call__(self, now_s, horizon_s):
        elapsed = time.monotonic() - self.t0
        if not self.enabled or elapsed < self.DELAY_S or horizon_s <= 0 or elapsed - self.last < self.REDRAW_S:
            return True
        self.last = elapsed
        frac = min(max(now_s / horizon_s, 0.0), 1.0)
        filled = int(frac * self.WIDTH)
        eta = f"{elapsed * (1 - frac) / frac:.0f} s" if frac > 0 else "?"
        line = (
            f"\r[{'#' * filled}{'.' * (self.WIDTH - filled)}] {frac * 100:5.1f}%  "
            f"{now_s:.1f}/{horizon_s:.1f} s simulated, {elapsed:.0f} s elapsed, ETA {eta} "
        )
        self.stream.write(line)
        self.stream.flush()
        self.drawn = True
        return True

    def close(self):
        if self.drawn:
            # Clear the bar so the summary starts on a clean line.
            self.stream.write("\r" + " " * 100 + "\r")
            self.stream.flush()
            self.drawn = False


class Tally:
    """Runs to do and runs done, counted from any thread (sweeps running
    ahead in a thread of their own), for a status line to read."""

    def __init__(self):
        self._lock = threading.Lock()
        self.total = 0
        self.done = 0

    def expect(self, n):
        with self._lock:
            self.total += n

    def count(self, n=1):
        with self._lock:
            self.done += n


class StatusLine:
    """One line on stderr, redrawn in place twice a second from `text()`
    while work goes on (only on a terminal); `say` prints a line of its own
    above it without the two mixing."""

    EVERY_S = 0.5

    def __init__(self, text, stream=None, enabled=None):
        self.stream = stream or sys.stderr
        self.text = text
        self.enabled = (hasattr(self.stream, "isatty") and self.stream.isatty()) if enabled is None else enabled
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._drawn = 0
        self._thread = None
        if self.enabled:
            self._thread = threading.Thread(target=self._loop, name="cdmasim-status", daemon=True)
            self._thread.start()

    def _clear(self):
        if self._drawn:
            self.stream.write("\r" + " " * self._drawn + "\r")
            self._drawn = 0

    def _loop(self):
        while not self._stop.wait(self.EVERY_S):
            with self._lock:
                line = self.text()
                self._clear()
                self.stream.write(line)
                self.stream.flush()
                self._drawn = len(line)

    def say(self, line, stream=None):
        """Print `line` (to `stream`, stdout by default) on a line of its own."""
        with self._lock:
            self._clear()
            self.stream.flush()
            print(line, file=stream or sys.stdout, flush=True)

    def close(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            self._clear()
            self.stream.flush()
