"""Sweep files: a base scenario, the fields to vary, and the seeds.

    [sweep]
    name = "buffers"                 # default: the file's stem
    scenario = "dumbbell.toml"       # relative to the sweep file (or a [scenario] table)
    seeds = [1, 2, 3]                # or { first = 1, count = 3 }; default [simulation].seed

    [set]                            # fixed overrides, applied to every point
    "simulation.duration" = "10s"

    [grid]                           # every combination of these lists
    "dumbbell.queue.limit" = ["20pkt", "100pkt"]
    "dumbbell.tcp.cc" = ["reno", "cubic"]

    [zip]                            # lists of one length, varied together
    "link[radio].rate" = ["64kbps", "153.6kbps"]
    "link[radio].delay" = ["200ms", "100ms"]

A point is one choice from the grid (product of its lists) times one
position in the zipped lists; every point runs once per seed.

Path syntax (docs/sweeps.md): dot-separated keys; a key naming an array of
tables takes a selector in brackets: an index (`flow[0]`), `*` for every
element (`flow[*].tcp.cc`), or an element's `name` (`link[radio].delay`).
A path must reach an existing table; only its last key may be new (the
scenario reader then checks that the key exists in the format).
"""

import copy
import itertools
import json
import math
import os
import re

from . import _core
from ._files import read_text, shown
from ._units import integer_value, quantity
from .errors import InputError
from .examples_data import resolve

_SEGMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)(?:\[([^\]]+)\])?$")
_SECTIONS = {"sweep", "set", "grid", "zip", "scenario"}

#: Runs (points x seeds) one sweep may hold: each is a scenario document in
#: memory and a row in the store; a mistyped count is refused when the file
#: is read, before anything is built.
MAX_RUNS = 100_000


class SweepError(InputError):
    """A sweep file that cannot be read or does not fit its scenario."""


def _tomllib():
    import tomllib  # Python 3.11+, what the project is tested on (pyproject.toml)

    return tomllib


#: Scenario text (JSON of the documents) a sweep may build for its runs.
MAX_DOCUMENT_BYTES = 500 << 20


def _scenario_tables():
    return _core.scenario_tables()


def _parse_toml(text, where):
    tomllib = _tomllib()
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SweepError(f"{where}: invalid TOML: {e}") from None
    except RecursionError:
        raise SweepError(f"{where}: invalid TOML: nested too deeply") from None


def _read_toml(path):
    return _parse_toml(read_text(path, SweepError), shown(path))


def parse_path(path):
    """'flow[*].tcp.cc' -> [('flow', '*'), ('tcp', None), ('cc', None)]."""
    segments = []
    for part in path.split("."):
        m = _SEGMENT.match(part.strip())
        if not m:
            raise ValueError(f"'{part}' is not a key or key[selector]")
        segments.append((m.group(1), m.group(2)))
    return segments


def _select(array, sel, where):
    if sel == "*":
        return list(array)
    if sel.lstrip("-").isdigit():
        i = int(sel)
        if not -len(array) <= i < len(array):
            raise ValueError(f"{where} has {len(array)} element(s), no [{sel}]")
        return [array[i]]
    hits = [t for t in array if isinstance(t, dict) and t.get("name") == sel]
    if not hits:
        names = [t.get("name") for t in array if isinstance(t, dict) and "name" in t]
        raise ValueError(f"{where} has no element named '{sel}' (names: {', '.join(map(str, names)) or 'none'})")
    return hits


def set_path(doc, path, value):
    """Set `value` at `path` in the scenario document `doc` (in place).
    Raises ValueError naming what does not exist."""
    segments = parse_path(path)
    tables, where = [doc], ""
    for depth, (key, sel) in enumerate(segments):
        last = depth == len(segments) - 1
        where = f"{where}.{key}" if where else key
        nxt = []
        for t in tables:
            if last and sel is None:
                if isinstance(t.get(key), dict):
                    raise ValueError(f"{where} is a table; name one of its keys")
                t[key] = copy.deepcopy(value)
                continue
            if key not in t:
                raise ValueError(f"{where} does not exist in the scenario")
            child = t[key]
            if sel is not None:
                if not isinstance(child, list):
                    raise ValueError(f"{where} is not an array, so [{sel}] selects nothing")
                chosen = _select(child, sel, where)
                if last:
                    for i, c in enumerate(child):
                        if any(c is x for x in chosen):
                            child[i] = copy.deepcopy(value)
                    continue
                if not all(isinstance(c, dict) for c in chosen):
                    raise ValueError(f"{where}[{sel}] is not a table")
                nxt.extend(chosen)
            else:
                if not isinstance(child, dict):
                    raise ValueError(f"{where} is a value, not a table")
                nxt.append(child)
        tables = nxt
        if sel is not None:
            where = f"{where}[{sel}]"
    return doc


class SweepSpec:
    """A parsed sweep: name, base scenario document, set/grid/zip, seeds.

    `source` is the file shown in error messages."""

    def __init__(self, name, base, grid=None, zipped=None, fixed=None, seeds=None, source="<sweep>"):
        self.name, self.base, self.source = _name(name, source), base, source
        for section, table in (("grid", grid), ("zip", zipped), ("set", fixed)):
            if table is not None and not isinstance(table, dict):
                raise self._err(f"{section}: expected a table of path = value(s)")
            for k in table or {}:
                if not isinstance(k, str):
                    raise self._err(f"{section}: a path is text (e.g. \"dumbbell.tcp.cc\"), not {k!r}")
        self.grid = {k: _value(v, self._err, f'grid."{k}"') for k, v in (grid or {}).items()}
        self.zipped = {k: _value(v, self._err, f'zip."{k}"') for k, v in (zipped or {}).items()}
        self.fixed = {k: _value(v, self._err, f'set."{k}"') for k, v in (fixed or {}).items()}
        self.seeds = list(seeds) if seeds is not None else [_base_seed(base, source)]
        self._check()

    def _err(self, msg):
        return SweepError(f"{self.source}: {msg}")

    def _check(self):
        for section, table in (("grid", self.grid), ("zip", self.zipped)):
            for path, values in table.items():
                if not isinstance(values, list):
                    raise self._err(f'{section}."{path}": expected a list of values')
                if not values:
                    raise self._err(f'{section}."{path}": empty list, the sweep would have no points')
        both = [p for p in self.grid if p in self.zipped]
        if both:
            raise self._err(f'"{both[0]}" is in both [grid] and [zip]: vary a path in one of them')
        lengths = {len(v) for v in self.zipped.values()}
        if len(lengths) > 1:
            raise self._err(f"zip: lists of different lengths ({', '.join(map(str, sorted(lengths)))})")
        if not isinstance(self.seeds, list) or not self.seeds:
            raise self._err("sweep.seeds: empty list, the sweep would have no runs")
        if len(self.seeds) > MAX_RUNS:
            raise self._err(f"sweep.seeds: {len(self.seeds)} seeds; a sweep holds at most {MAX_RUNS} runs")
        for i, s in enumerate(self.seeds):
            self.seeds[i] = _seed(s, self._err)
        n_points = math.prod(len(v) for v in self.grid.values()) * (len(next(iter(self.zipped.values())))
                                                                      if self.zipped else 1)
        if n_points * len(self.seeds) > MAX_RUNS:
            raise self._err(f"{n_points} points x {len(self.seeds)} seed(s) = {n_points * len(self.seeds)} runs; "
                            f"a sweep holds at most {MAX_RUNS}")

        try:
            size = len(json.dumps(self.base))
        except (TypeError, ValueError, RecursionError):
            raise self._err("scenario: holds a value that is not a scenario value (text, number, boolean, "
                            "list or table)") from None
        if size * n_points * len(self.seeds) > MAX_DOCUMENT_BYTES:
            raise self._err(f"{n_points * len(self.seeds)} runs of a {size >> 10} KB scenario would take "
                            f"{size * n_points * len(self.seeds) >> 20} MB of scenario text (at most "
                            f"{MAX_DOCUMENT_BYTES >> 20} MB): fewer runs or a smaller scenario")
        # Every path must reach into the base scenario (after [set], which
        # may add tables the swept paths reach into).
        doc = copy.deepcopy(self.base)
        for section, table in (("set", self.fixed), ("grid", self.grid), ("zip", self.zipped)):
            for path, values in table.items():
                try:
                    if section == "set":
                        set_path(doc, path, values)
                    else:
                        set_path(copy.deepcopy(doc), path, values[0])
                except ValueError as e:
                    raise self._err(f'{section}."{path}": {e}') from None

    @property
    def swept(self):
        """The varied paths, in column order: grid first, then zip."""
        return list(self.grid) + [p for p in self.zipped if p not in self.grid]

    def points(self):
        """Each point as a dict {path: value}, in a stable order."""
        grid_keys = list(self.grid)
        combos = list(itertools.product(*(self.grid[k] for k in grid_keys))) if grid_keys else [()]
        n_zip = len(next(iter(self.zipped.values()))) if self.zipped else 1
        out = []
        for combo in combos:
            for i in range(n_zip):
                p = dict(zip(grid_keys, combo))
                p.update({k: v[i] for k, v in self.zipped.items()})
                out.append(p)
        return out

    def scenario_for(self, point):
        """The base document with `set` and the point's values applied."""
        doc = copy.deepcopy(self.base)
        for path, value in list(self.fixed.items()) + list(point.items()):
            set_path(doc, path, value)
        return doc

    def runs(self):
        """(point, seed, scenario document) for every run of the sweep."""
        return [(p, s, self.scenario_for(p)) for p in self.points() for s in self.seeds]


#: Nesting a swept value may have (a table of tables of lists...).
MAX_VALUE_DEPTH = 32
#: Seeds of a sweep: the store's manifest keeps them as SQLite integers.
MAX_SEED = 2**63


def _value(value, err, where, depth=0):
    """A swept or set value as a plain scenario value: text, a number, a
    boolean, or lists and tables of them; numpy scalars and arrays as the
    Python values they hold (so a sweep built from numpy hashes and stores
    like any other). Anything else (a date, bytes, an object) is refused."""
    if depth > MAX_VALUE_DEPTH:
        raise err(f"{where}: nested more than {MAX_VALUE_DEPTH} deep")
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [_value(v, err, where, depth + 1) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise err(f"{where}: a table's keys are text")
        return {k: _value(v, err, where, depth + 1) for k, v in value.items()}
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        if abs(value) >= 2**64:
            raise err(f"{where}: an integer of {value.bit_length()} bits is too large for any scenario field")
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise err(f"{where}: {value} is not a finite number")
        return value
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise err(f"{where}: not text that can be written (UTF-8)") from None
        return value
    raise err(f"{where}: a {type(value).__name__} is not a scenario value (text, number, boolean, list or table)")


def _name(name, source):
    if not isinstance(name, str):
        raise SweepError(f"{source}: sweep.name: expected text, got {name!r}")
    name = name.encode("utf-8", "backslashreplace").decode("utf-8")
    if not name.strip():
        raise SweepError(f"{source}: sweep.name: empty")
    return name


def _seed(value, err):
    """A seed of a sweep: a Python or numpy integer in [0, 2^63), not a bool."""
    n = integer_value(value)
    if n is None or not 0 <= n < MAX_SEED:
        raise err(f"sweep.seeds: {value if n is None else n!r} is not an integer in [0, 2^63)")
    return n


def _base_seed(base, source):
    """The base scenario's own seed (the sweep's only seed when it names none)."""
    sim = base.get("simulation", {})
    if not isinstance(sim, dict):
        raise SweepError(f"{source}: scenario: simulation: expected a table [simulation]")
    seed = sim.get("seed", _core.DEFAULT_SEED)

    def err(msg):
        return SweepError(f"{source}: scenario: simulation.seed: {msg.split(': ', 1)[1]}")

    return _seed(seed, err)


def _seeds(value, source):
    if value is None:
        return None
    if isinstance(value, dict):
        extra = set(value) - {"first", "count"}
        if extra or "count" not in value:
            raise SweepError(f"{source}: sweep.seeds: expected a list or {{ first = N, count = K }}")

        first, count = integer_value(value.get("first", 1)), integer_value(value["count"])
        if first is None or count is None or count < 0:
            raise SweepError(f"{source}: sweep.seeds: first and count must be integers, count >= 0")
        if count > MAX_RUNS:
            raise SweepError(f"{source}: sweep.seeds: count = {count}; a sweep holds at most {MAX_RUNS} runs")
        if first < 0 or first + count > MAX_SEED:
            raise SweepError(f"{source}: sweep.seeds: seeds {first}..{first + count - 1} are not all in [0, 2^63)")
        return list(range(first, first + count))
    if isinstance(value, (list, tuple)):
        return list(value)
    raise SweepError(f"{source}: sweep.seeds: expected a list or {{ first = N, count = K }}")


def typed_point(point):
    """A point's swept values as written, plus each quantity as a number in
    its base unit beside it: "10pkt" at `dumbbell.queue.limit` also gives
    `dumbbell.queue.limit:pkts` = 10.0 ("1.5Mbps" -> PATH:bps, "300ms" ->
    PATH:s, "64kB" -> PATH:bytes, "1%" -> PATH:fraction), so that columns
    sort and compare as numbers."""
    out = dict(point)
    for path, v in point.items():
        if isinstance(v, str):
            q = quantity(v)
            if q is not None:
                out[f"{path}:{q[0]}"] = q[1]
    return out


def _anchor_traces(doc, scenario_dir):
    """Make DRC trace paths absolute. The scenario reader takes them relative
    to the scenario file's folder, but a swept scenario reaches it as a dict,
    whose relative paths would start from the working directory."""
    tables = [link.get("drc") for link in doc.get("link", []) if isinstance(link, dict)]
    dumbbell = doc.get("dumbbell")
    if isinstance(dumbbell, dict):
        tables.append(dumbbell.get("bottleneck_drc"))
    for t in tables:
        if isinstance(t, dict) and isinstance(t.get("trace"), str) and not os.path.isabs(t["trace"]):
            t["trace"] = os.path.join(scenario_dir, t["trace"])
    return doc


def _base_scenario(scenario, source, base_dir):
    """A scenario given as a dict, a TOML string or a path: the document as a dict."""
    if isinstance(scenario, dict):
        return copy.deepcopy(scenario)
    if isinstance(scenario, (str, os.PathLike)):
        text = os.fspath(scenario)
        if "\n" in text or "=" in text:
            return _parse_toml(text, f"{source}: sweep.scenario")
        path = text if os.path.isabs(text) else os.path.join(base_dir, text)
        return _anchor_traces(_read_toml(path), os.path.dirname(os.path.abspath(path)))
    raise SweepError(f"{source}: sweep.scenario: expected a file name or a [scenario] table")


def load(sweep, base_dir=None):
    """A SweepSpec from a sweep file path, a TOML string or a dict of the
    file's shape ({'sweep': {...}, 'grid': {...}, ...})."""
    source = "<sweep>"
    if isinstance(sweep, SweepSpec):
        return sweep
    if isinstance(sweep, dict):
        doc = sweep
    elif isinstance(sweep, str) and ("\n" in sweep or "=" in sweep):
        doc = _parse_toml(sweep, source)
    elif isinstance(sweep, (str, os.PathLike)):
        sweep = resolve(sweep) if os.fsdecode(os.fspath(sweep)) else sweep
        source = shown(os.fspath(sweep))
        if not os.fsdecode(os.fspath(sweep)):
            raise SweepError("sweep: empty file name")
        if os.path.isdir(sweep):
            raise SweepError(f"{source}: is a directory, not a sweep file")
        doc = _read_toml(os.fspath(sweep))
        base_dir = base_dir or os.path.dirname(os.path.abspath(os.fsdecode(os.fspath(sweep))))
    else:
        raise SweepError(f"a sweep is a file path, TOML text or a dict, not {type(sweep).__name__}")
    base_dir = base_dir or os.getcwd()
    if not isinstance(doc, dict):
        raise SweepError(f"{source}: a sweep is a table of sections (sweep, scenario, set, grid, zip)")
    unknown = set(doc) - _SECTIONS
    if unknown and "sweep" not in doc and unknown <= set(_scenario_tables()):
        raise SweepError(f"{source}: this is a scenario, not a sweep (it has no [sweep] table): run it with "
                         "`cdmasim run`, or name it in a sweep file's sweep.scenario (docs/sweeps.md)")
    if unknown:
        raise SweepError(f"{source}: unknown section '{sorted(unknown)[0]}' (expected sweep, scenario, set, grid, zip)")
    head = doc.get("sweep", {})
    if not isinstance(head, dict):
        raise SweepError(f"{source}: sweep: expected a table [sweep] (name, scenario, seeds)")
    extra = set(head) - {"name", "scenario", "seeds"}
    if extra:
        raise SweepError(f"{source}: sweep.{sorted(extra)[0]}: unknown key (expected name, scenario, seeds)")
    if ("scenario" in head) == ("scenario" in doc):
        raise SweepError(f"{source}: give the base scenario either as sweep.scenario or as a [scenario] table")
    base = _base_scenario(head.get("scenario", doc.get("scenario")), source, base_dir)
    default_name = os.path.splitext(os.path.basename(source))[0] if source != "<sweep>" else "sweep"
    for section in ("set", "grid", "zip"):
        if not isinstance(doc.get(section, {}), dict):
            raise SweepError(f"{source}: {section}: expected a table of path = value(s)")
    for section in ("grid", "zip"):
        if section in doc and not doc[section]:
            raise SweepError(f"{source}: {section}: empty table (leave it out, or name a path to vary)")
    return SweepSpec(
        name=head.get("name", default_name), base=base, grid=doc.get("grid"), zipped=doc.get("zip"),
        fixed=doc.get("set"), seeds=_seeds(head.get("seeds"), source), source=source,
    )
