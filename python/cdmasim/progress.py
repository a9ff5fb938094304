"""A minimal progress bar on stderr for long runs (no dependencies).

It stays invisible for the first half second, so short runs print nothing,
and draws only when stderr is a terminal."""

import sys
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
