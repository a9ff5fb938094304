"""What `cdmasim.run` returns: the summary dict plus tables built lazily.

The wide tables' columns and types come from the core (`schema()`: the
Rust row types of crates/cdmasim-core/src/result.rs); Python adds the long
tables series, rlp_cdf, is2000_cdf and dead_periods. The columns
(documented in README.md):
  flows:  name, kind, bytes_delivered, goodput_bps, packets_sent, retransmits,
          retransmitted_fraction, timeouts, spurious_timeouts, fast_recoveries,
          checksum_failures (segments its ends discarded: headers rebuilt
          wrong below IP by VJ compression), rtt_min_s, rtt_avg_s, rtt_max_s (TCP), owd_min_s, owd_avg_s, owd_max_s,
          excess_owd_mean_s, excess_owd_std_s, packets_received, completed_at_s,
          connections_opened, connections_open (http flows)
  queues: link, kind, drops (total), drops_<reason> for each reason seen,
          enqueued, max_packets, max_bytes, avg_packets, avg_bytes,
          utilization, bytes_sent
  series: metric, subject, t_s, value (long format, one row per sample)
  drops:  t_s, place, reason, flow, sent_s, seq (one row per dropped packet;
          streamed to a file during the run, not kept in summary.json)
  users:  name, sector, throughput_bps, mean_drc_bps, utilisation, slots_served,
          slot_share, packets_delivered, handoffs, physical_packets,
          erased_packets, rlp_retransmitted_bytes, rlp_aborts,
          rlp_lost_packets (1xEV-DO users)
  sectors: name, scheduler, traffic_slots, utilisation, throughput_bps, jain
  cells:  name, mobiles, bsc_rate_bps, dead_s, rho_dead, dead_periods (count),
          sch_grants (cdma2000 1X cells)
  mobiles: name, cell, bts, throughput_bps, packets_delivered, sch_grants, sch_s
  dead_periods: cell, start_s, end_s (one row per dead interval of a cell)
  objects: flow, page, index (0: the page's main object), request_bytes,
          size_bytes, start_s, finish_s, delay_s, normalized_s_per_kb
          (web objects of kind = "http" flows; unfinished: finish_s empty)
  pages:  flow, page, objects, size_bytes, start_s, finish_s, delay_s,
          normalized_s_per_kb
  radio_links: name, direction, rate_bps, packets_in, packets_delivered,
          packets_aborted, frames_sent, frames_new, frames_retransmitted,
          frames_idle, frames_lost, fer, naks_sent, new_data_mean_bytes,
          new_data_max_bytes, rtx_mean_bytes, rtx_max_bytes, on_periods,
          sector, sch_grants, active_s (one row per RLP radio link and
          direction; the last three on an IS-2000 user's "down" row: its
          sector, SCH grants received, seconds holding a traffic channel)
  rlp_cdf: name, direction, quantity ("new_data_bytes", "rtx_bytes" or
          "on_time_s"), value, cdf (fraction of the time, or of the ON
          periods, at or below value)
  is2000: name, users, power_mean, power_max, sch_grants, codes_max,
          sch_denials, admissions_deferred, active_s, on_periods (IS-2000 sectors; their power and ON-time
          distributions in is2000_cdf: name, quantity ("power_fraction",
          "on_time_s"), value, cdf)
  ppp:    link, compression ("none", "vj", "rohc"), frames, compressed,
          header_bytes, full_header_bytes, lost, corrupted, discarded,
          dropped_in_queue (frames the compressor wrote whose packets a
          queue before the link dropped: the EV-DO base station's) (links
          with ppp = ..., one row per direction)
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

from .summary import format_summary

# typing.TYPE_CHECKING without importing typing (3 ms of `cdmasim run`'s
# start-up): mypy and pyright read a constant of this name as theirs.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import numpy
    import pandas

# The long tables Python derives from the core's distributions and
# intervals (the wide tables' columns come from the core: `schema`).
SERIES_COLUMNS = ["metric", "subject", "t_s", "value"]
DEAD_COLUMNS = ["cell", "start_s", "end_s"]
RLP_CDF_COLUMNS = ["name", "direction", "quantity", "value", "cdf"]
IS2000_CDF_COLUMNS = ["name", "quantity", "value", "cdf"]
TABLES = ("flows", "queues", "series", "drops", "users", "sectors", "cells", "mobiles", "dead_periods",
          "objects", "pages", "radio_links", "rlp_cdf", "is2000", "is2000_cdf", "ppp")

_SCHEMA = None


def schema() -> dict[str, list[tuple[str, str]]]:
    """The core's result tables (flows, queues, drops, users, sectors, cells,
    mobiles, objects, pages, radio_links, is2000): each one's fields as
    (column, kind) in order, kind one of int, float, str, int?, float?,
    str? (may be empty), counts (a count per reason: a total column and
    one per reason), cdf (a distribution: in the long tables rlp_cdf and
    is2000_cdf), intervals (shown as their number; in full in
    dead_periods). The one list of the tables' columns: the Rust row types
    (crates/cdmasim-core/src/result.rs)."""
    global _SCHEMA
    if _SCHEMA is None:
        from . import _core

        _SCHEMA = {t: [tuple(c) for c in cols] for t, cols in json.loads(_core.result_schema()).items()}
    return _SCHEMA


def columns(table: str) -> list[str]:
    """A wide table's columns, as `Result` builds it (a counts column's
    per-reason columns, which depend on the run, left out)."""
    return [c for c, kind in schema()[table] if kind != "cdf"]


def __getattr__(name):
    # FLOW_COLUMNS, QUEUE_COLUMNS, ... as earlier versions named them.
    tables = {"FLOW": "flows", "QUEUE": "queues", "DROP": "drops", "USER": "users", "SECTOR": "sectors",
              "CELL": "cells", "MOBILE": "mobiles", "OBJECT": "objects", "PAGE": "pages", "RADIO": "radio_links",
              "IS2000": "is2000", "PPP": "ppp"}
    prefix = name.removesuffix("_COLUMNS")
    if name.endswith("_COLUMNS") and prefix in tables:
        return columns(tables[prefix])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Empty tables by (columns, float columns): most of a run's sixteen tables are
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
    """A DataFrame of `columns` (one list per field) with `fields` ((column,
    stored kind)): numbers as int64 / float64, text as pandas infers it."""
    names = [c for c, _ in fields]
    dtypes = {c: _STORED_DTYPES[k] for c, k in fields if k in _STORED_DTYPES}
    if not _row_count(columns):
        return _frame([], names, dtypes)
    import pandas as pd

    return pd.DataFrame(dict(zip(names, columns)), columns=names).astype(dtypes)


def _columns(rows, width):
    """Row tuples as `width` column lists."""
    return [list(col) for col in zip(*rows)] if rows else [[] for _ in range(width)]


def _row_count(columns) -> int:
    """Rows in a table given as one list per field."""
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
    """An Arrow table of `columns` (one list per field) with `fields`
    ((column, int | float | str)), typed as `_typed_frame` types the
    DataFrame and with its pandas metadata, so that read back it is that
    DataFrame; built without pandas (a DataFrame costs milliseconds, more
    than a small run)."""
    import pyarrow as pa

    schema = _parquet_schema(fields, run_key)
    n = _row_count(columns)
    arrays = [] if run_key is None else [pa.array([run_key] * n, pa.string())]
    for (c, kind), col in zip(fields, columns):
        if kind == "float":
            arrays.append(pa.array([float("nan") if v is None else v for v in col], pa.float64()))
        else:
            arrays.append(pa.array(col, pa.int64() if kind == "int" else pa.string()))
    return pa.Table.from_arrays(arrays, schema=schema)


class Result:
    """What `cdmasim.run` returns: one run's results.

    `summary` is the JSON summary as a dict (seed, duration_s, events,
    conservation, and per flow, queue, user, sector, cell, mobile, object
    and page); each table is a pandas DataFrame built on first use:
    flows, queues, series (long format: metric, subject, t_s, value),
    drops, users, sectors, cells, mobiles, dead_periods, objects, pages,
    radio_links, rlp_cdf, is2000, is2000_cdf (columns in the module
    docstring and README.md). `to_dir(DIR)` writes them all; `repr()` is
    the summary table `cdmasim run` prints. Times are seconds, rates bit/s,
    sizes bytes."""

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

    @property
    def flows(self) -> pandas.DataFrame:
        """One row per flow: goodput, RTTs, one-way delays, retransmissions, timeouts."""
        return self._table("flows")

    @property
    def queues(self) -> pandas.DataFrame:
        """One row per queue (links, base-station queues, a cell's buffers):
        drops in all and by reason, lengths, utilization."""
        return self._table("queues")

    @property
    def users(self) -> pandas.DataFrame:
        """1xEV-DO users, one row each (empty without sectors)."""
        return self._table("users")

    @property
    def sectors(self) -> pandas.DataFrame:
        """1xEV-DO sectors, one row each (empty without sectors)."""
        return self._table("sectors")

    @property
    def cells(self) -> pandas.DataFrame:
        """cdma2000 1X cells, one row each (dead_periods: how many)."""
        return self._table("cells")

    @property
    def mobiles(self) -> pandas.DataFrame:
        """Mobiles of cdma2000 cells, one row each."""
        return self._table("mobiles")

    @property
    def objects(self) -> pandas.DataFrame:
        """Web objects of `kind = "http"` flows (Dziong et al. section 5.1), one row each."""
        return self._table("objects")

    @property
    def pages(self) -> pandas.DataFrame:
        """Web pages of `kind = "http"` flows, one row each."""
        return self._table("pages")

    @property
    def radio_links(self) -> pandas.DataFrame:
        """RLP radio links (Dziong et al.), one row per link and direction."""
        return self._table("radio_links")

    @property
    def is2000(self) -> pandas.DataFrame:
        """IS-2000 sectors, one row each."""
        return self._table("is2000")

    @property
    def ppp(self) -> pandas.DataFrame:
        """Links that run PPP: frames, header compression, and what lost
        frames cost (Lee §3.3), one row per link direction."""
        return self._table("ppp")

    def _columns(self, name):
        """Table `name`'s ([(column, stored kind)], one list of values per
        column): a wide table of the core's schema, or one of the long
        tables built from it."""
        if name == "rlp_cdf":
            keys = (("new_data_cdf", "new_data_bytes"), ("rtx_cdf", "rtx_bytes"), ("on_time_cdf", "on_time_s"))
            rows = [(r["name"], r["direction"], q, x, c)
                    for r in self.summary.get("radio_links", []) for key, q in keys for x, c in r.get(key, [])]
            fields = list(zip(RLP_CDF_COLUMNS, ("str", "str", "str", "float", "float")))
        elif name == "is2000_cdf":
            keys = (("power_cdf", "power_fraction"), ("on_time_cdf", "on_time_s"))
            rows = [(r["name"], q, x, c) for r in self.summary.get("is2000", []) for key, q in keys
                    for x, c in r.get(key, [])]
            fields = list(zip(IS2000_CDF_COLUMNS, ("str", "str", "float", "float")))
        elif name == "dead_periods":
            rows = [(c["name"], a, b) for c in self.summary.get("cells", []) for a, b in c.get("dead_periods", [])]
            fields = list(zip(DEAD_COLUMNS, ("str", "float", "float")))
        elif name in ("objects", "pages") and self._web_dir is not None:
            return _wide(name, self._web_records(name))
        else:
            return _wide(name, self.summary.get(name, []))
        return fields, _columns(rows, len(fields))

    def _web_records(self, name):
        """The objects or pages the run streamed to its CSV file, typed by
        the schema, in the order the core keeps them in memory: by flow (as
        the scenario lists them), page and object."""
        import csv

        convert = {"int": int, "float": float, "float?": lambda x: float(x) if x else None,
                   "int?": lambda x: int(x) if x else None, "str": str, "str?": lambda x: x or None}
        kinds = dict(schema()[name])
        with open(os.path.join(self._web_dir, f"{name}.csv"), newline="", encoding="utf-8") as f:
            rows = [{k: convert[kinds[k]](v) for k, v in r.items()} for r in csv.DictReader(f)]
        order = {f["name"]: i for i, f in enumerate(self.summary.get("flows", []))}
        rows.sort(key=lambda r: (order.get(r["flow"], len(order)), r["page"], r.get("index", 0)))
        return rows

    @property
    def rlp_cdf(self) -> pandas.DataFrame:
        """The RLP buffers' and channel ON periods' distributions (Figs. 9-12, 17), long format."""
        return self._table("rlp_cdf")

    @property
    def is2000_cdf(self) -> pandas.DataFrame:
        """The sectors' power in use (Fig. 14) and ON periods (Fig. 17), long format."""
        return self._table("is2000_cdf")

    @property
    def dead_periods(self) -> pandas.DataFrame:
        """Every dead interval of every cell (Paliwal et al. section IV-E)."""
        return self._table("dead_periods")

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
        # hold it): made once. Most of a run's sixteen tables are empty (a
        # cdma2000 cell has no EV-DO users or sectors, no web objects or
        # pages, no IS-2000 links).
        key = (tuple(fields), run_key is not None)
        if key not in _EMPTY_FILES:
            import io

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
            from .errors import InputError

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
        with open(self._series_path, "rb") as f:
            for metric, subject, index in self._series_raw:
                ts, vs, held = [], [], 0
                chunks = np.frombuffer(index, dtype="<u8").reshape(-1, 2).tolist()
                for k, (offset, n) in enumerate(chunks):
                    f.seek(offset)
                    x = np.fromfile(f, dtype="<f8", count=2 * n)
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
                return _frame([], SERIES_COLUMNS, _floats("t_s", "value"))
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
        """Write summary.json and every table (result.TABLES: flows, queues,
        series, drops, users, sectors, cells, mobiles, dead_periods, objects,
        pages, radio_links, rlp_cdf, is2000, is2000_cdf) as Parquet
        (fmt="parquet", via pyarrow) or CSV (fmt="csv") into the folder `out`
        (made if missing; other files in it stay, an earlier run's files of
        the same names are replaced). All files are written first into a
        temporary folder inside `out` and moved into place together, so a
        failure leaves `out` as it was. Returns the paths written;
        InputError if `out` cannot be written."""
        from .errors import InputError
        from ._files import check_output_dir, write_into

        if fmt not in ("parquet", "csv"):
            raise InputError(f"unknown output format '{fmt}' (expected parquet or csv)")
        check_output_dir("out", out)
        out = os.fspath(out)

        def write(tmp):
            with open(os.path.join(tmp, "summary.json"), "w", encoding="utf-8") as f:
                f.write(self.summary_json())
            for name in TABLES:
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
