"""Figures drawn to PNG in a process of their own while the analysis goes
on: drawing is about a quarter of `reproduce all`'s main thread (0.5 s a
figure, two renders each for the tight bounding box), and a paper's
analysis need not wait for its figures, only the report for all of them.

A figure is pickled as `Context.figure` hands it over and closed; the
drawing process writes it whole or not at all (`_files.write_file`), so
what it writes is the same PNG, byte for byte, as drawing it in place.
`wait` returns once every figure handed over is written, and raises the
first failure."""

from __future__ import annotations

import os
import pickle
import queue
import threading

from .._files import write_file
from ..workers import WorkerPool

#: How every figure is saved.
SAVE = {"format": "png", "dpi": 90, "bbox_inches": "tight"}


def save(fig, path: str) -> None:
    """Draw `fig` to the PNG `path` (whole or not at all)."""
    write_file(path, lambda tmp: fig.savefig(tmp, **SAVE))


def render(path: str, data: bytes) -> str:
    """What the drawing process runs: the pickled figure to `path`."""
    import matplotlib

    matplotlib.use("Agg")
    fig = pickle.loads(data)
    save(fig, path)
    return path


class FigureWriter:
    """Figures drawn in one background process, in the order handed over.
    A thread feeds the process whatever has queued up since its last batch."""

    def __init__(self):
        self._queue: queue.Queue = queue.Queue()
        self._pool = WorkerPool(1)
        self._lock = threading.Lock()
        self._handed = self._written = 0
        self._done = threading.Condition(self._lock)
        self._error: str | None = None
        self._broken = False
        self._thread = threading.Thread(target=self._run, name="cdmasim-figures", daemon=True)
        self._thread.start()

    def write(self, fig, path: str) -> None:
        """Hand `fig` over to be drawn to `path`; the figure is closed here."""
        import matplotlib.pyplot as plt

        try:
            data = pickle.dumps(fig)
        except Exception:  # noqa: BLE001 - a figure that does not pickle is drawn here instead
            data = None
        if data is None:
            save(fig, path)
        plt.close(fig)
        if data is not None:
            with self._lock:
                self._handed += 1
            self._queue.put((path, data))

    def _run(self):
        try:
            self._draw()
        except BaseException as e:  # noqa: BLE001 - handed to `wait`
            with self._lock:
                self._error = self._error or f"the drawing thread failed: {e!r}"
                self._broken = True
                self._done.notify_all()

    def _draw(self):
        while True:
            first = self._queue.get()
            if first is None:
                return
            batch = [first]
            while not self._queue.empty():
                item = self._queue.get()
                if item is None:
                    self._queue.put(None)
                    break
                batch.append(item)
            tasks = [("cdmasim.reproduce.figures:render", item) for item in batch]
            for task, (kind, value) in self._pool.map_unordered(tasks):
                with self._lock:
                    if kind != "ok" and self._error is None:
                        self._error = f"{os.path.basename(task[1][0])}: the drawing process {value}"
                    self._written += 1
                    self._done.notify_all()

    def wait(self) -> None:
        """Once every figure handed over is written; RuntimeError naming the
        first that could not be."""
        with self._lock:
            self._done.wait_for(lambda: self._written == self._handed or self._broken)
            if self._error is not None:
                raise RuntimeError(f"a figure could not be drawn: {self._error}")

    def close(self) -> None:
        """Stop the drawing process (what it had not written is not)."""
        self._queue.put(None)
        self._pool.close()
        self._thread.join(timeout=10)
