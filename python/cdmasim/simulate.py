"""Load and run scenarios from Python: `cdmasim.run(...)`.

Imports nothing heavy: pandas and pyarrow are only loaded when a Result's
tables are first used, and `cdmasim run` imports neither typing nor
tempfile (with random and shutil, about 7 ms of its start-up)."""

from __future__ import annotations

import json
import os
import sys
import weakref
from collections import namedtuple
from collections.abc import Callable

from . import _core as core
from ._files import check_output_dir, read_text, shown, temp_dir, write_into
from ._units import _parse, count, positive
from .errors import InputError
from .examples_data import resolve
from .progress import ProgressBar
from .result import Result

#: What names a scenario: a path, TOML text, a dict of the file's shape, or
#: what parse() returned.
Scenario = str | os.PathLike | dict


class ScenarioError(InputError):
    """A scenario that cannot be read, parsed or validated.

    str(e) is the one-line `FILE:LINE: FIELD: message`; the parts are in
    .file, .line (0 if none), .field ('' if none) and .message."""

    def __init__(self, text, file="", line=0, field="", message=""):
        super().__init__(text)
        self.file, self.line, self.field, self.message = file, line, field, message or text


def _looks_like_toml(s: str) -> bool:
    # A path never holds a newline or '='; every scenario holds '='.
    return "\n" in s or "=" in s


# (collections.namedtuple, not typing.NamedTuple: typing costs start-up.)
Source = namedtuple("Source", "text shown form", defaults=("toml",))
Source.__doc__ = """A scenario as the core reads it: its text, the name its errors give
it, and its form: "toml" (a file's text), "json" (a dict as a JSON object,
which the core turns into TOML itself: a dict crosses to the core once) or
"spec" (what parsing made, which the core runs as it is)."""


def canonical(value) -> str:
    """A JSON value as one text whatever its dicts' order (keys sorted,
    compact, ASCII): what run keys hash (`store.run_key`), and what a parsed
    scenario is checked against for changes."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


class ParsedScenario(dict):
    """What `parse` returns: the validated spec as a dict. It keeps the spec
    as the core wrote it, so that `run(parse(x))` runs that spec without
    parsing x again, and the scenario it came from."""

    def __init__(self, spec_text, source):
        super().__init__(json.loads(spec_text))
        self._source = source
        self._spec = Source(spec_text, source.shown, "spec")
        self._canonical = canonical(self)


def _progress_every_ns(value):
    """progress_every: None, seconds (a positive number) or a time ("1s")."""
    if value is None:
        return None
    if isinstance(value, str):
        ns = _parse("parse_time_ns", value, "progress_every")
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        x = positive(value, "progress_every")
        if x > 1e9:
            raise InputError(f"progress_every: {value!r} s is longer than any run")
        ns = round(x * 1e9)
    else:
        raise InputError(f"progress_every: expected seconds or a time such as '1s', got {value!r}")
    if not 1 <= ns < 2**63:
        raise InputError(f"progress_every: {value!r} is outside 1 ns .. 292 years")
    return ns


def as_seed(seed, what="seed"):
    """None, or an integer in [0, 2^64)."""
    return None if seed is None else count(seed, what)


def _numpy_value(v):
    """json.dumps' fallback: numpy scalars and arrays as the Python values they
    hold (a seed of np.int64(3) in a dict is the seed 3)."""
    if type(v).__module__ == "numpy" and hasattr(v, "tolist"):
        return v.tolist()
    raise TypeError(f"Object of type {type(v).__name__} is not JSON serializable")


def scenario_text(scenario) -> Source:
    """The `Source` of a path, a TOML string, a dict or a parsed scenario
    (its spec); a `Source` as it is."""
    if isinstance(scenario, Source):
        return scenario
    if isinstance(scenario, ParsedScenario):
        try:
            now = canonical(scenario)
        except (TypeError, ValueError, RecursionError):
            now = None
        if now != scenario._canonical:
            raise InputError("a parsed scenario was changed after parse(): edit the scenario (file, TOML or dict) "
                             "and parse or run that instead")
        return scenario._spec
    if isinstance(scenario, dict):
        try:
            return Source(json.dumps(scenario, default=_numpy_value), "<dict>", "json")
        except RecursionError:
            msg = "nested too deeply to be a scenario"
            raise ScenarioError(f"<dict>: {msg}", file="<dict>", message=msg) from None
        except (TypeError, ValueError) as e:
            raise ScenarioError(f"<dict>: {e}", file="<dict>", message=str(e)) from None
    if isinstance(scenario, os.PathLike) or (isinstance(scenario, str) and not _looks_like_toml(scenario)):
        scenario = resolve(scenario)
        path = shown(os.fspath(scenario))

        def err(text):
            return ScenarioError(text, file=path, message=text.split(": ", 1)[-1])

        if not path:
            raise ScenarioError("a scenario path is empty", message="a scenario path is empty")
        return Source(read_text(os.fspath(scenario), err), path)
    if isinstance(scenario, str):
        if "\x00" in scenario:
            raise ScenarioError("<string>: holds a NUL character", file="<string>", message="holds a NUL character")
        return Source(scenario, "<string>")
    raise InputError(f"a scenario is a path, a TOML string or a dict, not {type(scenario).__name__}")


def _translate(e, shown):
    """The core's ScenarioError as cdmasim.ScenarioError (an InputError)."""
    line, field, message = getattr(e, "line", 0), getattr(e, "field", ""), getattr(e, "message", str(e))
    if shown == "<dict>":
        # Line numbers would refer to TOML the user never saw.
        text = f"<dict>: {field}: {message}" if field else f"<dict>: {message}"
        line = 0
    else:
        text = str(e)
    return ScenarioError(text, file=shown, line=line, field=field, message=message)


def parse(scenario: Scenario, seed: int | None = None) -> dict:
    """Parse and validate a scenario; returns the validated spec as a dict
    (times in ns, rates in bit/s, sizes in bytes, references as indices).
    seed: in place of [simulation].seed. Nothing in the spec is drawn from
    the seed (start jitter and channels are drawn when a run starts), so
    `run(parse(x), seed=s)` runs x's spec, parsed once, with seed s."""
    source = scenario_text(scenario)
    seed = as_seed(seed)
    try:
        spec = core.parse_scenario(source.text, source.shown, source.form, seed)
    except core.ScenarioError as e:
        raise _translate(e, source.shown) from None
    return ParsedScenario(spec, scenario._source if isinstance(scenario, ParsedScenario) else source)


def run(scenario: Scenario, seed: int | None = None, pcap_dir: str | os.PathLike | None = None,
        progress: bool | Callable[[float, float], bool | None] = False,
        progress_every: float | str | None = None) -> Result:
    """Run a scenario: a path, a TOML string or a dict. A str holding a
    newline or '=' is TOML text, any other str is a path (pass a pathlib.Path
    to force a path).

    seed: overrides [simulation].seed. pcap_dir: write pcap captures there
    (one per pair of adjacent nodes, both directions).
    progress: False, True (a bar on stderr when it is a terminal), or a callable
    progress(now_s, horizon_s) offered at every multiple of `progress_every`
    of simulated time (seconds, or a time such as "1s"; default a thousandth
    of the run), once the events up to then are done. It may return False
    to stop the run there: the Result then covers the run up to that
    simulated time (summary["stopped_at_s"]), the same on any machine.
    Returns a cdmasim.result.Result; its drops stream to a temporary CSV file
    and its series to a temporary spool file during the run (both removed
    with the Result), so memory does not grow with the number of drops, the
    simulated time or the sampling interval. Raises ScenarioError (an
    InputError) on a bad scenario, InputError on a bad argument, and
    KeyboardInterrupt on Ctrl-C."""
    text, shown, form = scenario_text(scenario)
    seed = as_seed(seed)
    every_ns = _progress_every_ns(progress_every)
    if not (progress is None or isinstance(progress, bool) or callable(progress)):
        raise InputError(f"progress: expected True, False or a callable, got {progress!r}")
    if pcap_dir is not None:
        pcap_dir = check_output_dir("pcap_dir", pcap_dir)
    bar = None
    if progress is True:
        bar = progress = ProgressBar()
    elif progress is False:
        progress = None
    tmp = _private_dir("cdmasim-run-")
    drops, spool = (os.path.join(tmp, name) for name in _RUN_FILES[:2])
    try:
        def run_into(pcaps):
            return core.run_scenario(text, shown, seed, pcaps, progress, drops, every_ns, spool, tmp, form)

        if pcap_dir is None:
            summary_json, series = run_into(None)
        else:
            # The captures take their places together once the run is
            # complete; an interrupted run leaves the folder as it was.
            ran = []
            write_into(pcap_dir, lambda into: ran.append(run_into(into)))
            summary_json, series = ran[0]
    except core.ScenarioError as e:
        _remove_run_files(tmp)
        raise _translate(e, shown) from None
    except ValueError as e:
        # The run outgrew a limit (a queue without a limit under a flood).
        _remove_run_files(tmp)
        raise InputError(f"{shown}: {e}") from None
    except OSError as e:
        _remove_run_files(tmp)
        # The engine could not write its pcap files (or the drop log).
        raise InputError(f"cannot write pcap: {e}" if pcap_dir is not None else
                         f"cannot write the drop log or the series spool: {e}") from None
    except BaseException:
        _remove_run_files(tmp)
        raise
    finally:
        if bar is not None:
            bar.close()
    result = Result(json.loads(summary_json), series, text=summary_json, drops_path=drops, series_path=spool,
                    web_dir=tmp)
    weakref.finalize(result, _remove_run_files, tmp)
    return result


#: What the engine writes in a run's private folder.
_RUN_FILES = ("drops.csv", "series.spool", "objects.csv", "pages.csv")


def _private_dir(prefix):
    """A new folder for a run's drop log and series spool, readable only by
    this user, in the temporary folder (TMPDIR, TEMP, TMP, else /tmp; as
    tempfile's, which is used when a program has set tempfile.tempdir):
    `PREFIX<pid>-<random>`, so that the next run removes what a killed one
    left. Not tempfile itself otherwise, so that `cdmasim run` does not
    import it."""
    loaded = sys.modules.get("tempfile")
    # Absolute: the Result reads and removes these files later, perhaps
    # from another working directory.
    if loaded is not None and loaded.tempdir:
        base = loaded.tempdir
    else:
        base = next((os.environ[v] for v in ("TMPDIR", "TEMP", "TMP") if os.environ.get(v)), "/tmp")
    try:
        return temp_dir(os.path.abspath(base), prefix)
    except OSError:
        import tempfile

        return temp_dir(tempfile.gettempdir(), prefix)


def _remove_run_files(tmp):
    """Remove a run's private folder: the files the engine wrote there,
    then the folder (left if anything else is in it)."""
    for name in _RUN_FILES:
        try:
            os.unlink(os.path.join(tmp, name))
        except OSError:
            pass
    try:
        os.rmdir(tmp)
    except OSError:
        pass
