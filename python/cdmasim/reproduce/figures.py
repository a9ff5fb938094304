"""Figures drawn to PNG in a process of their own while the analysis goes
on: drawing is about a quarter of `reproduce all`'s main thread (0.5 s a
figure, two renders each for the tight bounding box; the layout too, for a
figure that leaves it to the drawing: `common.lay_out`), and a paper's
analysis need not wait for its figures, only its report for them.

A figure is pickled as `Context.figure` hands it over and closed; the
drawing process writes it whole or not at all (`_files.write_file`), the
same PNG, byte for byte, as drawing it in place. What must follow a
paper's figures (its report.json, which the HTML report reads) is handed
over too (`then`) and done in order, once they are written. The process
is one more beside the `--jobs` workers while figures wait to be drawn.
The drawing process sees matplotlib's defaults, not settings changed at
run time in this one (none are)."""

from __future__ import annotations

import pickle
import queue
import threading

from .._files import write_file
from ..workers import WorkerPool

#: How every figure is saved.
SAVE = {"format": "png", "dpi": 90, "bbox_inches": "tight"}


def save(fig, path: str) -> None:
    """Draw `fig` to the PNG `path` (whole or not at all). A figure left to
    be laid out when drawn (`common.lay_out`: a tight layout engine) is
    laid out first, at its own dpi and with the engine's padding: the layout
    `Figure.tight_layout` gives it where it was made (the layout savefig
    would run, at the saving dpi, measures text otherwise)."""
    from matplotlib.layout_engine import TightLayoutEngine

    engine = fig.get_layout_engine()
    if isinstance(engine, TightLayoutEngine):
        fig.tight_layout(**engine.get())
    write_file(path, lambda tmp: fig.savefig(tmp, **SAVE))


def render(path: str, data: bytes):
    """What the drawing process runs: the pickled figure to `path`, then
    closed (unpickling registers it with pyplot again). None, or what went
    wrong as (errno or None, what)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = pickle.loads(data)
    try:
        save(fig, path)
    except OSError as e:
        return e.errno, e.strerror or str(e)
    except Exception as e:  # noqa: BLE001 - reported by the writer, which names the figure
        return None, repr(e)
    finally:
        plt.close(fig)
    return None


class FigureWriter:
    """Figures drawn in one background process, and what follows them
    (`then`), in the order handed over."""

    def __init__(self):
        self._queue: queue.Queue = queue.Queue()
        self._lock = threading.Lock()
        self._done = threading.Condition(self._lock)
        self._handed = self._finished = 0
        #: The first failure: (errno or None, what, file).
        self._error = None
        self._stop = threading.Event()
        self._over = False
        self._thread = threading.Thread(target=self._run, name="cdmasim-figures", daemon=True)
        self._thread.start()

    def write(self, fig, path: str) -> None:
        """Hand `fig` over to be drawn to `path`; the figure is closed here."""
        import matplotlib.pyplot as plt

        try:
            data = pickle.dumps(fig)
        except Exception:  # noqa: BLE001 - a figure that does not pickle is drawn here instead
            data = None
            save(fig, path)
        finally:
            plt.close(fig)
        if data is not None:
            self._hand(("figure", path, data))

    def then(self, action) -> None:
        """Call `action()` (in the drawing thread) once every figure handed
        over so far is written; not if one could not be."""
        self._hand(("then", action))

    def _hand(self, item):
        with self._lock:
            if self._over:
                raise RuntimeError("the figure writer is closed")
            self._handed += 1
        self._queue.put(item)

    def _finish(self, n, error=None):
        with self._lock:
            if error is not None and self._error is None:
                self._error = error
            self._finished += n
            self._done.notify_all()

    def _run(self):
        pool = WorkerPool(1)
        try:
            self._draw(pool)
        except BaseException as e:  # noqa: BLE001 - handed to `wait`
            self._finish(0, (None, f"the drawing thread failed: {e!r}", None))
        finally:
            pool.close()
            with self._lock:
                self._over = True
                self._done.notify_all()

    def _draw(self, pool):
        """One item at a time, in order (the pool keeps its process from
        one call to the next)."""
        while not self._stop.is_set():
            item = self._queue.get()
            if item is None:
                return
            if item[0] == "figure":
                _, path, data = item
                [(_, (kind, outcome))] = pool.map_unordered([("cdmasim.reproduce.figures:render", (path, data))])
                failure = outcome if kind == "ok" else (None, f"the drawing process {outcome}")
                self._finish(1, None if failure is None else (*failure, path))
                continue
            with self._lock:
                failed = self._error is not None
            error = None
            if not failed:
                try:
                    item[1]()
                except OSError as e:
                    error = (e.errno, e.strerror or str(e), e.filename)
                except Exception as e:  # noqa: BLE001 - handed to `wait`
                    error = (None, repr(e), None)
            self._finish(1, error)

    def wait(self) -> None:
        """Once everything handed over is done; raises the first failure (an
        OSError, as writing the file raised it, or a RuntimeError)."""
        with self._lock:
            self._done.wait_for(lambda: self._finished == self._handed or self._over)
            error = self._error
        if error is not None:
            errno, what, path = error
            if errno is not None:
                raise OSError(errno, what, path)
            where = f"{path}: " if path else ""
            raise RuntimeError(f"a figure could not be drawn: {where}{what}")

    def close(self, finish: bool = False) -> None:
        """Stop the drawing process: at once (what it had not done is not
        done), or with `finish` once everything handed over is done (its
        failures are for `wait` to raise)."""
        if not finish:
            self._stop.set()
        self._queue.put(None)
        self._thread.join()
