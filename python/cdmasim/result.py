"""What `cdmasim.run` returns: the summary dict plus tables built lazily.

The tables describe themselves: the core's schema (`tables()`, from the
Rust row types, each in its technology's folder of the core) names each
one, says what a row is and where its row type is defined, and lists its
columns and their kinds; a wide table's
distributions and intervals go to a long table the schema also names
(rlp_cdf, is2000_cdf, dead_periods). `Result.<table>` and `to_dir` serve
every table of the schema, so a table added in the core needs no edit
here. `python -m cdmasim.result` prints the list of output files
README.md shows, and `python -m cdmasim.result --reference` the column
reference of docs/results.md.
"""

from __future__ import annotations

import functools
import io
import itertools
import json
import os
from collections.abc import Iterator

from . import _core
from ._files import check_output_dir, write_into
from .errors import InputError
from .summary import format_summary

# typing.TYPE_CHECKING without importing typing (3 ms of `cdmasim run`'s
# start-up): mypy and pyright read a constant of this name as theirs.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import numpy
    import pandas


# The schema is read from the core once, on first use, and what is derived
# from it once too: a table attribute of a Result looks its name up at
# every access.
@functools.cache
def tables() -> list[dict]:
    """The core's result tables in order, each a dict: name, doc (what a
    row is), source (the core's file defining its row type), columns ([column, kind] in order; kind one of int, float, str,
    int?, float?, str? (may be empty), counts (a count per reason: a total
    column and one per reason), cdf (a distribution, shown in the long
    table), intervals (shown as their number, in full in the long table)),
    and for a table with distributions or intervals, long: {name, doc, key
    ([long column, wide field]), fields ([wide field, quantity]), point
    (its two columns)}."""
    return json.loads(_core.result_schema())


@functools.cache
def schema() -> dict[str, list[tuple[str, str]]]:
    """Each of the core's tables (`tables()`; not the long ones made from
    them) with its columns as (column, kind) pairs in order."""
    return {t["name"]: [tuple(c) for c in t["columns"]] for t in tables()}


@functools.cache
def _long() -> dict[str, tuple[str, dict]]:
    """Each long table: (the wide table it is made from, its description)."""
    return {t["long"]["name"]: (t["name"], t["long"]) for t in tables() if "long" in t}


@functools.cache
def table_names() -> tuple[str, ...]:
    """Every table a Result has and `to_dir` writes, in the schema's order,
    a long table right after the table it is made from."""
    return tuple(n for t in tables() for n in (t["name"], *([t["long"]["name"]] if "long" in t else [])))


def long_columns(name: str) -> list[tuple[str, str]]:
    """A long table's columns as (column, stored kind): the key columns,
    `quantity` when it shows more than one field, then the point's two."""
    wide, spec = _long()[name]
    kinds = dict(schema()[wide])
    cols = [(c, _STORED[kinds[field]]) for c, field in spec["key"]]
    if len(spec["fields"]) > 1:
        cols.append(("quantity", "str"))
    return cols + [(c, "float") for c in spec["point"]]


def markdown() -> str:
    """The README's list of output files, from the schema: one line per
    table, its columns and what a row is."""
    lines = ["| file | columns — rows |", "|---|---|"]
    for t in tables():
        lines.append(f"| `{t['name']}.parquet` | {', '.join(_shown(t['columns']))} — {t['doc']} |")
        if "long" in t:
            spec = t["long"]
            cols = [c for c, _ in long_columns(spec["name"])]
            if len(spec["fields"]) > 1:
                i = cols.index("quantity")
                cols[i] = f"quantity ({', '.join(f'`{q}`' for _, q in spec['fields'])})"
            lines.append(f"| `{spec['name']}.parquet` | {', '.join(cols)} — {spec['doc']} |")
    return "\n".join(lines) + "\n"


@functools.cache
def column_docs(table: str) -> dict[str, str]:
    """What each column of a table holds, from the doc comment of its field
    in the core's row type (a long table: its key columns' wide fields, the
    quantity it shows, its point's two columns)."""
    if table in _long():
        wide, spec = _long()[table]
        docs = column_docs(wide)
        out = {c: docs[field] for c, field in spec["key"]}
        if len(spec["fields"]) > 1:
            out["quantity"] = "Which distribution the row is a point of: " + \
                ", ".join(f"`{q}` ({field})" for field, q in spec["fields"]) + "."
        a, b = spec["point"]
        if b == "cdf":
            out[a] = "A value of the quantity (at the upper edge of its bin)."
            out[b] = "The fraction (of the time, or of the periods) at or below it."
        else:
            out[a], out[b] = "Where the interval starts, seconds.", "Where it ends, seconds (not included)."
        return out
    t = next(t for t in tables() if t["name"] == table)
    return {c: " ".join(d.split()) for (c, _), d in zip(t["columns"], t["column_docs"])}


def reference() -> str:
    """docs/results.md: every table, each column's kind and what it holds."""
    kinds = {"int": "int", "float": "float", "str": "text", "int?": "int or empty", "float?": "float or empty",
             "str?": "text or empty"}
    lines = ["# Result tables", "",
             "<!-- generated by python -m cdmasim.result --reference; tests/test_tool.py keeps it current -->", "",
             "Every run writes these tables (`cdmasim run --out DIR`, `Result.to_dir`; `Result.<table>` in",
             "Python); a sweep's store keeps them per run. Each column's text is the doc comment of its field",
             "in the core's row type (each section names the file). Times are seconds, rates bit/s, sizes",
             "bytes, unless a column says otherwise.", ""]

    def section(name, doc, rows, source):
        lines.extend([f"## `{name}`", "", doc[0].upper() + doc[1:] + ".", "", f"Row type: {source}.", "",
                      "| column | kind | what it holds |", "|---|---|---|"])
        lines.extend(f"| `{c}` | {k} | {d} |" for c, k, d in rows)
        lines.append("")

    for t in tables():
        docs, rows = column_docs(t["name"]), []
        for c, kind in t["columns"]:
            if kind == "counts":
                rows.append((c, "int", docs[c] + f" In the files: `{c}` (the total) and `{c}_<reason>`, one per reason."))
            elif kind == "cdf":
                rows.append((c, "distribution", docs[c] + f" In `{t['long']['name']}`, not here."))
            elif kind == "intervals":
                rows.append((c, "int", docs[c] + f" Here their number; each in `{t['long']['name']}`."))
            else:
                rows.append((c, kinds[kind], docs[c]))
        source = f"`{t['source']}`" if t["name"] != "series" else f"`Series` in `{t['source']}` (a row per sample)"
        section(t["name"], t["doc"], rows, source)
        if "long" in t:
            spec = t["long"]
            docs = column_docs(spec["name"])
            section(spec["name"], spec["doc"], [(c, "text" if k == "str" else k, docs[c])
                                                for c, k in long_columns(spec["name"])],
                    f"made from `{t['name']}`'s (`{t['source']}`)")
    return "\n".join(lines)


def _shown(cols):
    """A wide table's columns as its file has them (a counts column as its
    total and one per reason; distributions left to the long table)."""
    for c, kind in cols:
        if kind == "counts":
            yield f"{c} (total), {c}_&lt;reason&gt; per reason"
        elif kind == "intervals":
            yield f"{c} (count)"
        elif kind != "cdf":
            yield c


def columns(table: str) -> list[str]:
    """A wide table's columns, as `Result` builds it (a counts column's
    per-reason columns, which depend on the run, left out)."""
    return [c for c, kind in schema()[table] if kind != "cdf"]


def __getattr__(name):
    # TABLES, and FLOW_COLUMNS, QUEUE_COLUMNS, ... as earlier versions named
    # them: from the schema, read on first use.
    if name == "TABLES":
        return table_names()
    if name == "SERIES_COLUMNS":
        return columns("series")
    long = {"DEAD_COLUMNS": "dead_periods", "RLP_CDF_COLUMNS": "rlp_cdf", "IS2000_CDF_COLUMNS": "is2000_cdf"}
    if name in long:
        return [c for c, _ in long_columns(long[name])]
    tables = {"FLOW": "flows", "QUEUE": "queues", "DROP": "drops", "USER": "users", "SECTOR": "sectors",
              "CELL": "cells", "MOBILE": "mobiles", "OBJECT": "objects", "PAGE": "pages", "RADIO": "radio_links",
              "IS2000": "is2000", "PPP": "ppp"}
    prefix = name.removesuffix("_COLUMNS")
    if name.endswith("_COLUMNS") and prefix in tables:
        return columns(tables[prefix])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Empty tables by (columns, float columns): most of a run's tables are
# empty (a cell scenario has no web objects, a dumbbell no cells), and pandas
# takes milliseconds to make even an empty frame, more than a small run's
# simulation; each is made once per process and copied.
_EMPTY = {}


def _frame(rows, columns, dtypes=None):
    """A table of `rows` (dicts or tuples) with `columns`, given dtypes
    (`dtypes`: column -> dtype; nullable numbers stay float64 with NaN)."""
    import pandas as pd

    dtypes = dtypes or {}
    if rows:
        return pd.DataFrame(rows, columns=columns).astype(dtypes)
    key = (tuple(columns), tuple(sorted(dtypes.items())))
    if key not in _EMPTY:
        _EMPTY[key] = pd.DataFrame([], columns=columns).astype(dtypes)
    return _EMPTY[key].copy()


#: Arrow schemas made by `_parquet_schema`, by (fields, with a run column).
_SCHEMAS: dict = {}


def _parquet_schema(fields, run_key=None):
    """The Arrow schema, pandas metadata included, that DataFrame.to_parquet
    gives a table of `fields` ((column, kind) pairs, kinds str, float, int;
    with `run_key`, a first column `run`): a table written in pieces reads
    back as the whole table would. Made once per shape (a DataFrame and its
    metadata cost milliseconds; the run key's value is in no part of it)."""
    key = (tuple(fields), run_key is not None)
    if key not in _SCHEMAS:
        import pandas as pd
        import pyarrow as pa

        like = {c: [{"str": "", "float": 0.0, "int": 0}[kind]] for c, kind in fields}
        if run_key is not None:
            like = {"run": [""], **like}
        _SCHEMAS[key] = pa.Schema.from_pandas(pd.DataFrame(like), preserve_index=False)
    return _SCHEMAS[key]


def _floats(*names):
    return {c: "float64" for c in names}


#: A column kind of the core's schema as it is stored: int64, float64 (NaN
#: for a missing number) or text.
_STORED = {"int": "int", "counts": "int", "intervals": "int", "float": "float", "int?": "float",
           "float?": "float", "str": "str", "str?": "str"}
_STORED_DTYPES = {"int": "int64", "float": "float64"}


def _stored(cols):
    """(column, kind of the core's schema) pairs as (column, stored kind)."""
    return [(c, _STORED[k]) for c, k in cols]


def _typed_frame(fields, columns):
    """A DataFrame of `columns` (one list or array per field) with `fields` ((column,
    stored kind)): numbers as int64 / float64, text as pandas infers it."""
    names = [c for c, _ in fields]
    dtypes = {c: _STORED_DTYPES[k] for c, k in fields if k in _STORED_DTYPES}
    if not _row_count(columns):
        return _frame([], names, dtypes)
    import pandas as pd

    return pd.DataFrame(dict(zip(names, columns)), columns=names).astype(dtypes)


def _long_table(records, spec):
    """A long table's columns from its wide table's records: for each
    record and each of the fields `spec` names, a row per point (a pair),
    beside the record's key (and the quantity, when there are several).
    Built a column at a time through numpy, a key repeated over its points
    as an object array (Arrow takes that several times faster than a list
    of the same strings): the radio links of an IS-2000 sector give a
    hundred thousand rows a run."""
    import numpy as np

    several = len(spec["fields"]) > 1
    groups, counts, points = [], [], []
    for r in records:
        for f, q in spec["fields"]:
            pts = r.get(f)
            if not pts:
                continue
            groups.append((*(r[field] for _, field in spec["key"]), *((q,) if several else ())))
            counts.append(len(pts))
            points.extend(pts)

    def repeated(j):
        values = np.empty(len(groups), dtype=object)
        values[:] = [g[j] for g in groups]
        return np.repeat(values, counts)

    # Flattened by one pass in C (numpy's own conversion of a list of pairs
    # first works out their shape: several times slower).
    try:
        if points and set(map(len, points)) != {2}:
            raise TypeError
        xy = np.fromiter(itertools.chain.from_iterable(points), dtype=np.float64, count=2 * len(points))
    except (TypeError, ValueError):    # points of other shapes, or not numbers
        raise ValueError(f"{spec['name']}: a point is not a pair of numbers") from None
    a, b = xy.reshape(-1, 2).T.copy()
    return [*(repeated(j) for j in range(len(spec["key"]) + several)), a, b]


def _row_count(columns) -> int:
    """Rows in a table given as one list or array per field."""
    return len(columns[0]) if columns else 0


def _wide(table: str, records: list[dict]):
    """One of the core's tables (`schema`) from its records (the summary's
    list of dicts): ([(column, stored kind)], one list of values per
    column). A column per field; a counts field as its total and one column
    per reason seen (`drops`, `drops_overflow`, ...); intervals as their
    number; distributions left to the long tables. Built a column at a
    time: a 100-mobile cell's tables are a few hundred records of dozens of
    fields, and a row of dicts per record cost more than the run's Parquet."""
    fields, columns = [], []
    for c, kind in schema()[table]:
        if kind == "cdf":
            continue
        values = [x.get(c) for x in records]
        if kind == "counts":
            counts = [v or {} for v in values]
            fields.append((c, "int"))
            columns.append([sum(v.values()) for v in counts])
            for r in sorted({r for v in counts for r in v}):
                fields.append((f"{c}_{r}", "int"))
                columns.append([v.get(r, 0) for v in counts])
        elif kind == "intervals":
            fields.append((c, _STORED[kind]))
            columns.append([len(v or []) for v in values])
        else:
            fields.append((c, _STORED[kind]))
            columns.append(values)
    return fields, columns


def wide_table(table: str, records: list[dict]):
    """One of the core's tables (`schema`, `_wide`) as a DataFrame."""
    return _typed_frame(*_wide(table, records))


#: Parquet bytes of empty tables, by (fields, with a run column).
_EMPTY_FILES: dict = {}


def _parquet_table(fields, columns, run_key=None):
    """An Arrow table of `columns` (one list or array per field) with `fields`
    ((column, int | float | str)), typed as `_typed_frame` types the
    DataFrame and with its pandas metadata, so that read back it is that
    DataFrame; built without pandas (a DataFrame costs milliseconds, more
    than a small run)."""
    import numpy as np
    import pyarrow as pa

    schema = _parquet_schema(fields, run_key)
    n = _row_count(columns)
    arrays = [] if run_key is None else [pa.repeat(pa.scalar(run_key, pa.string()), n)]
    for (c, kind), col in zip(fields, columns):
        if kind == "float":
            # A missing number (None) is NaN, as in the DataFrame, not null.
            arrays.append(pa.array(np.asarray(col, dtype=np.float64)))
        else:
            arrays.append(pa.array(col, pa.int64() if kind == "int" else pa.string()))
    return pa.Table.from_arrays(arrays, schema=schema)


class Result:
    """What `cdmasim.run` returns: one run's results.

    `summary` is the JSON summary as a dict (seed, duration_s, events,
    conservation, and per flow, queue, user, sector, cell, mobile, object
    and page); each table of the core's schema is an attribute, a pandas
    DataFrame built on first use: flows, series (long format: metric,
    subject, t_s, value), drops, objects, pages, queues, users, sectors,
    cells, dead_periods, mobiles, radio_links, rlp_cdf, is2000,
    is2000_cdf, ppp (`table_names()`; what a row is and the columns in
    `tables()` and README.md). `to_dir(DIR)` writes them all; `repr()` is
    the summary table `cdmasim run` prints. Times are seconds, rates
    bit/s, sizes bytes."""

    def __init__(self, summary: dict, series_raw=(), text: str | None = None, drops_path: str | None = None,
                 series_path: str | None = None, web_dir: str | None = None):
        self.summary = summary
        # Where the run streamed its web objects and pages (objects.csv,
        # pages.csv); None: they are in the summary.
        self._web_dir = web_dir
        # The run's drop log (CSV, streamed by the core); None: the drops
        # are in the summary (results of older versions, or none at all).
        self._drops_path = drops_path
        # The core's pretty JSON of `summary`, written out as it is: encoding
        # with indent= runs Python's slow pure-Python encoder.
        self._text = text
        # Per series: (metric, subject, t little-endian f64 bytes, value
        # bytes); or, when the run streamed them to the spool file
        # `series_path`, (metric, subject, chunk index): the index holds
        # (byte offset, points) as little-endian u64 pairs, and each chunk
        # the points' times, then their values.
        self._series_raw = list(series_raw)
        self._series_path = series_path
        self._cache = {}

    def _cached(self, key, build):
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    def _table(self, key):
        return self._cached(key, lambda: _typed_frame(*self._columns(key)))

    def __getattr__(self, name: str) -> pandas.DataFrame:
        # Every table of the schema but series and drops (properties of
        # their own: they stream to files; an AttributeError inside one
        # must not fall back to here), built on first use.
        if name.startswith("_") or name in ("series", "drops") or name not in table_names():
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return self._table(name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(table_names()))

    def _columns(self, name):
        """Table `name`'s ([(column, stored kind)], one list of values per
        column): a wide table of the core's schema, or a long table made
        from one's distributions or intervals (`long_columns`)."""
        if name in ("objects", "pages") and self._web_dir is not None:
            return self._web_columns(name)
        if name not in _long():
            return _wide(name, self.summary.get(name, []))
        wide, spec = _long()[name]
        return long_columns(name), _long_table(self.summary.get(wide, []), spec)

    def _web_columns(self, name):
        """The objects or pages the run streamed to its CSV file, as
        `_wide` gives a table: the schema's columns, typed, in the order the
        core keeps the rows in memory (by flow as the scenario lists them,
        page and object), read a column at a time by Arrow: a browsing
        sector's hour is tens of thousands of objects."""
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.csv as pacsv

        path = os.path.join(self._web_dir, f"{name}.csv")
        with open(path, "rb") as f:
            f.readline()
            if not f.read(1):
                # The header alone (a run without web flows): Arrow's reader
                # costs more than the run's other empty tables together.
                return _wide(name, [])
        cols = schema()[name]
        fields = _stored(cols)
        arrow = {"int": pa.int64(), "float": pa.float64(), "str": pa.string()}
        # Each column as it is stored (an int? as float64). An empty number
        # is a missing one; "NaN" and "inf" are numbers, as the core writes
        # them. A flow's name may hold a line break (quoted): without
        # newlines_in_values Arrow cuts a big file into blocks inside one.
        table = pacsv.read_csv(path, read_options=pacsv.ReadOptions(use_threads=False),
                               parse_options=pacsv.ParseOptions(newlines_in_values=True),
                               convert_options=pacsv.ConvertOptions(
                                   column_types={c: arrow[k] for c, k in fields}, null_values=[""],
                                   strings_can_be_null=False))
        flows = pa.array([f["name"] for f in self.summary.get("flows", [])], pa.string())
        # A flow the summary does not list goes last.
        keys = {"flow": pc.fill_null(pc.index_in(table["flow"], value_set=flows), len(flows)), "page": table["page"]}
        if "index" in table.column_names:
            keys["index"] = table["index"]
        table = table.take(pc.sort_indices(pa.table(keys), sort_keys=[(k, "ascending") for k in keys]))
        columns = []
        for c, kind in cols:
            col = table[c]
            if kind == "str?":
                col = pc.if_else(pc.equal(col, ""), pa.scalar(None, pa.string()), col)
            # Strings as objects (None where missing), numbers as int64 or
            # float64 (NaN where missing).
            columns.append(col.to_numpy())
        return fields, columns

    def write_table_parquet(self, name: str, dest, run_key: str | None = None) -> None:
        """Table `name` (any of TABLES but series and drops, which have
        their own writers) as Parquet into `dest` (a path or a binary file),
        straight from the summary's records; `run_key`: a first column
        `run`. Read back, it is the DataFrame `getattr(result, name)` (with
        `run` first)."""
        import pyarrow.parquet as pq

        fields, columns = self._columns(name)
        if _row_count(columns):
            pq.write_table(_parquet_table(fields, columns, run_key), dest)
            return
        # An empty table's file does not depend on the run key (no rows
        # hold it): made once. Most of a run's tables are empty (a
        # cdma2000 cell has no EV-DO users or sectors, no web objects or
        # pages, no IS-2000 links).
        key = (tuple(fields), run_key is not None)
        if key not in _EMPTY_FILES:
            buf = io.BytesIO()
            pq.write_table(_parquet_table(fields, columns, run_key), buf)
            _EMPTY_FILES[key] = buf.getvalue()
        if hasattr(dest, "write"):
            dest.write(_EMPTY_FILES[key])
        else:
            with open(dest, "wb") as f:
                f.write(_EMPTY_FILES[key])

    def dead_fraction(self, cell: str | None = None, start_s: float = 0.0, end_s: float | None = None) -> float:
        """rho_dead of `cell` (the only one if None) over [start_s, end_s)."""
        cells = self.summary.get("cells", [])
        c = cells[0] if cell is None and len(cells) == 1 else next((x for x in cells if x["name"] == cell), None)
        if c is None:
            raise InputError(f"no cell named {cell!r} (cells: {', '.join(x['name'] for x in cells) or 'none'})")
        end_s = self.summary["duration_s"] if end_s is None else end_s
        dead = sum(max(0.0, min(b, end_s) - max(a, start_s)) for a, b in c.get("dead_periods", []))
        return dead / (end_s - start_s)

    def series_arrays(self) -> Iterator[tuple[str, str, numpy.ndarray, numpy.ndarray]]:
        """Each time series as (metric, subject, t_s array, value array),
        numpy, one series in memory at a time (read from the run's spool
        file when the series streamed there, as `cdmasim.run`'s do)."""
        import numpy as np

        empty = np.empty(0, dtype="<f8")
        last, ts, vs = None, [], []
        for metric, subject, t, v in self._series_pieces(None):
            if last is not None and (metric, subject) != last:
                yield (*last, np.concatenate(ts) if ts else empty, np.concatenate(vs) if vs else empty)
                ts, vs = [], []
            last = (metric, subject)
            if len(t):
                ts.append(t)
                vs.append(v)
        if last is not None:
            yield (*last, np.concatenate(ts) if ts else empty, np.concatenate(vs) if vs else empty)

    def _series_pieces(self, rows):
        """Each series in order as (metric, subject, t_s, value) pieces of
        at most `rows` points (None: as stored), at least one per series."""
        import numpy as np

        if self._series_path is None:
            for metric, subject, t, v in self._series_raw:
                t, v = np.frombuffer(t, dtype="<f8"), np.frombuffer(v, dtype="<f8")
                step = rows or max(len(t), 1)
                for i in range(0, max(len(t), 1), step):
                    yield metric, subject, t[i:i + step], v[i:i + step]
            return
        # Each chunk is read straight into its array: a seek and a read
        # (np.fromfile on a file object makes about ten system calls a
        # chunk to share the descriptor with the file).
        with open(self._series_path, "rb") as f:
            for metric, subject, index in self._series_raw:
                ts, vs, held = [], [], 0
                chunks = np.frombuffer(index, dtype="<u8").reshape(-1, 2).tolist()
                for k, (offset, n) in enumerate(chunks):
                    x = np.empty(2 * n, dtype="<f8")
                    f.seek(offset)
                    if f.readinto(x) != x.nbytes:
                        raise OSError(f"{self._series_path}: the series spool ends inside a chunk")
                    ts.append(x[:n])
                    vs.append(x[n:])
                    held += n
                    if rows is None or held >= rows or k == len(chunks) - 1:
                        yield metric, subject, np.concatenate(ts), np.concatenate(vs)
                        ts, vs, held = [], [], 0
                if not chunks:
                    yield metric, subject, np.empty(0, dtype="<f8"), np.empty(0, dtype="<f8")

    def write_series_parquet(self, dest, run_key: str | None = None) -> None:
        """The series table as Parquet into `dest` (a path or a binary
        file), one series at a time, so memory follows the largest series
        and not the whole table; `run_key`: a first column `run`. Read back,
        it is `series` (with `run` first)."""
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        schema = _parquet_schema([("metric", "str"), ("subject", "str"), ("t_s", "float"), ("value", "float")], run_key)
        names = [n for n in schema.names if n not in ("t_s", "value")]
        batch = 1 << 15
        with pq.ParquetWriter(dest, schema, use_dictionary=names) as w:
            # Row groups of about 2^15 points: whole chunks of the spool,
            # gathered across series (a cell's hundreds of short series are
            # a few row groups, not one each); a name column is its series'
            # names taken by index.
            ts, vs, labels, counts, held = [], [], [], [], 0

            def flush():
                idx = pa.array(np.repeat(np.arange(len(counts)), counts))
                named = {"run": [run_key] * len(labels), "metric": [m for m, _ in labels],
                         "subject": [s for _, s in labels]}
                cols = [pc.take(pa.array(named[n], pa.string()), idx) for n in names]
                w.write_table(pa.Table.from_arrays([*cols, pa.array(np.concatenate(ts)), pa.array(np.concatenate(vs))],
                                                   schema=schema))
                for buf in (ts, vs, labels, counts):
                    buf.clear()

            for metric, subject, t, v in self._series_pieces(batch):
                if not len(t):
                    continue
                ts.append(t)
                vs.append(v)
                labels.append((metric, subject))
                counts.append(len(t))
                held += len(t)
                if held >= batch:
                    flush()
                    held = 0
            if counts:
                flush()

    @property
    def series(self) -> pandas.DataFrame:
        """Sampled time series, long format: metric, subject, t_s, value."""
        def build():
            import pandas as pd

            parts = []
            for metric, subject, t, v in self.series_arrays():
                parts.append(pd.DataFrame({
                    "metric": pd.Series([metric] * len(t), dtype="object"),
                    "subject": pd.Series([subject] * len(t), dtype="object"),
                    "t_s": t,
                    "value": v,
                }))
            if not parts:
                return _frame([], columns("series"), _floats("t_s", "value"))
            return pd.concat(parts, ignore_index=True)

        return self._cached("series", build)

    @property
    def drops(self) -> pandas.DataFrame:
        """One row per dropped packet: t_s, place, reason, flow, sent_s, seq."""
        def build():
            import pandas as pd

            if self._drops_path is None:
                return wide_table("drops", self.summary.get("drops", []))
            cols = columns("drops")
            df = pd.read_csv(self._drops_path, dtype={"place": str, "reason": str, "flow": str}, keep_default_na=False)
            return df[cols].astype({c: _STORED_DTYPES[k] for c, k in _stored(schema()["drops"]) if k in _STORED_DTYPES})

        return self._cached("drops", build)

    def write_drops_parquet(self, dest, run_key: str | None = None) -> None:
        """The drops table as Parquet into `dest` (a path or a binary file),
        read from the run's drop log in blocks, so memory does not follow
        the number of drops; `run_key`: a first column `run`. Read back, it
        is `drops` (with `run` first)."""
        import pyarrow as pa
        import pyarrow.csv as pacsv
        import pyarrow.parquet as pq

        if self._drops_path is None:
            df = self.drops.copy()
            if run_key is not None:
                df.insert(0, "run", run_key)
            df.to_parquet(dest, index=False, engine="pyarrow")
            return
        arrow = _parquet_schema(_stored(schema()["drops"]), run_key)
        cols = columns("drops")
        reader = pacsv.open_csv(self._drops_path, convert_options=pacsv.ConvertOptions(
            column_types={c: arrow.field(c).type for c in cols}, strings_can_be_null=False,
            quoted_strings_can_be_null=False))
        with pq.ParquetWriter(dest, arrow) as w:
            for batch in reader:
                run = [] if run_key is None else [pa.repeat(pa.scalar(run_key, pa.string()), batch.num_rows)]
                w.write_table(pa.Table.from_arrays([*run, *(batch.column(c) for c in cols)], schema=arrow))

    def summary_json(self) -> str:
        """The summary as stable, pretty JSON (what summary.json holds)."""
        if self._text is not None:
            return self._text + "\n"
        return json.dumps(self.summary, indent=2) + "\n"

    def to_dir(self, out: str | os.PathLike, fmt: str = "parquet") -> list[str]:
        """Write summary.json and every table (`table_names()`: flows,
        series, drops, objects, pages, queues, users, sectors, cells,
        dead_periods, mobiles, radio_links, rlp_cdf, is2000, is2000_cdf,
        ppp) as Parquet
        (fmt="parquet", via pyarrow) or CSV (fmt="csv") into the folder `out`
        (made if missing; other files in it stay, an earlier run's files of
        the same names are replaced). All files are written first into a
        temporary folder inside `out` and moved into place together, so a
        failure leaves `out` as it was. Returns the paths written;
        InputError if `out` cannot be written."""
        if fmt not in ("parquet", "csv"):
            raise InputError(f"unknown output format '{fmt}' (expected parquet or csv)")
        check_output_dir("out", out)
        out = os.fspath(out)

        def write(tmp):
            with open(os.path.join(tmp, "summary.json"), "w", encoding="utf-8") as f:
                f.write(self.summary_json())
            for name in table_names():
                if name in ("series", "drops") and fmt == "parquet":
                    # In pieces: a long run's table is never whole in memory.
                    getattr(self, f"write_{name}_parquet")(os.path.join(tmp, f"{name}.parquet"))
                    continue
                if fmt == "csv":
                    getattr(self, name).to_csv(os.path.join(tmp, f"{name}.{fmt}"), index=False)
                else:
                    self.write_table_parquet(name, os.path.join(tmp, f"{name}.{fmt}"))

        try:
            names = write_into(out, write)
        except OSError as e:
            raise InputError(f"{out}: cannot write: {e.strerror or e}") from None
        return [os.path.join(out, file) for file in names]

    def __repr__(self) -> str:
        return format_summary(self.summary)


if __name__ == "__main__":
    import sys

    print(reference() if sys.argv[1:] == ["--reference"] else markdown(), end="")
