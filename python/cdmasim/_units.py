"""Command-line quantities with units, parsed by the core with the same rules
as scenario files (cdmasim_core::scenario::units); slots are 1/600 s."""

import argparse
import math
import operator
import os

from . import _core
from .errors import InputError

SLOTS_PER_SEC = 600
NS_PER_SEC = 10**9
NS_PER_MS = 10**6


def _parse(name, text, what):
    try:
        return getattr(_core, name)(str(text).strip())
    except ValueError as e:
        raise InputError(f"{what}: {e}") from None


def integer(lo, hi, what="value"):
    """An argparse `type` for an integer option within [lo, hi]: a value out of
    range is a one-line usage error, not an OverflowError from the core."""
    def parse(text):
        try:
            n = int(str(text).strip(), 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
        if not lo <= n <= hi:
            raise argparse.ArgumentTypeError(f"{n} is out of range: {what} must be in [{lo}, {hi}]")
        return n

    parse.__name__ = "integer"
    return parse


#: A seed is a u64 in the core.
seed = integer(0, 2**64 - 1, "a seed")


def integer_value(value):
    """A Python or numpy integer as an int, or None (a bool, a float, anything else)."""
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def count(value, what, lo=0, hi=2**64 - 1):
    """An integer argument of the Python API within [lo, hi]: Python and
    numpy integers, not bools or floats; InputError otherwise (never an
    OverflowError from the core)."""
    n = integer_value(value)
    if n is None:
        raise InputError(f"{what} must be an integer in [{lo}, {hi}], got {value!r}")
    if not lo <= n <= hi:
        raise InputError(f"{what} must be an integer in [{lo}, {hi}], got {n}")
    return n


def path(value, what):
    """A file or folder path argument of the Python API (str, bytes or
    os.PathLike; not None, a number or an empty string), as text."""
    if isinstance(value, bool) or not isinstance(value, (str, bytes, os.PathLike)):
        raise InputError(f"{what} must be a path, got {value!r}")
    text = os.fsdecode(os.fspath(value))
    if not text:
        raise InputError(f"{what} must be a path, got an empty one")
    if "\x00" in text:
        raise InputError(f"{what}: a path cannot hold a NUL character")
    return text


def flag(value, what):
    """A yes/no argument: True or False (numpy's too), nothing else (a
    string 'no' would be true)."""
    if value is True or value is False:
        return value
    if type(value).__name__ == "bool_":
        return bool(value)
    raise InputError(f"{what} must be True or False, got {value!r}")


def choice(value, what, choices):
    """One of `choices` (strings)."""
    if not isinstance(value, str) or value not in choices:
        raise InputError(f"{what} must be one of {', '.join(choices)}, got {value!r}")
    return value


def trace_format(value, what="format"):
    """A trace format for the core: None (detect it) or text, binary, mahimahi ('auto' = None)."""
    if value is None or value == "auto":
        return None
    return choice(value, what, ("auto", "text", "binary", "mahimahi"))


def number(value, what, lo=None, hi=None, lo_open=False, hi_open=False):
    """A finite real number within its bounds (None: unbounded; open or
    closed); not a bool or a string."""
    lo = -math.inf if lo is None else lo
    hi = math.inf if hi is None else hi
    try:
        x = float(value)
    except (TypeError, ValueError):
        x = None
    if isinstance(value, (bool, str, bytes)) or x is None or not math.isfinite(x):
        raise InputError(f"{what} must be a finite number, got {value!r}")
    if x < lo or x > hi or (lo_open and x == lo) or (hi_open and x == hi):
        lb, hb = "(" if lo_open else "[", ")" if hi_open else "]"
        raise InputError(f"{what} must be in {lb}{lo:g}, {hi:g}{hb}, got {value!r}")
    return x


def positive(value, what):
    """A finite positive number."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be a positive number, got {value!r}") from None
    if isinstance(value, bool) or not (math.isfinite(x) and x > 0):
        raise InputError(f"{what} must be a positive number, got {value!r}")
    return x


def slots(text, what="value", allow_bare=False, at_most=None):
    """'1h', '30min', '20s', '100ms', '2160000slots' -> slots (int).

    A bare integer is accepted only where the option counts slots; `at_most`
    bounds the result (a run that would not fit in memory is refused up front)."""
    n = _slots(text, what, allow_bare)
    if at_most is not None and n > at_most:
        raise InputError(f"{what}: {n} slots is more than the {at_most} this command keeps in memory")
    return n


def _slots(text, what, allow_bare):
    t = str(text).strip()
    for suffix in ("slots", "slot"):
        if t.endswith(suffix):
            t, allow_bare = t[: -len(suffix)].strip(), True
            break
    if t.isdigit():
        if not allow_bare:
            raise InputError(f"{what}: '{text}' has no unit (h, min, s, ms or slots)")
        return int(t)
    n, rest = divmod(_parse("parse_time_ns", t, what) * SLOTS_PER_SEC, NS_PER_SEC)
    if rest:
        raise InputError(f"{what}: '{text}' is not a whole number of slots (1 slot = 1/600 s)")
    return n


#: The longest Mahimahi window that maps deliveries to a DRC: an hour (the
#: core counts it in u32 milliseconds; longer windows average away the channel).
MAX_MAHIMAHI_WINDOW_MS = 3_600_000


def mahimahi_window(value, what="mahimahi_window_ms"):
    """A Mahimahi window in whole milliseconds: '100ms' (CLI) or an integer (API)."""
    ms = millis(value, what) if isinstance(value, str) else count(value, what, 1)
    if not 1 <= ms <= MAX_MAHIMAHI_WINDOW_MS:
        raise InputError(f"{what}: {ms} ms is outside 1 ms .. 1 h")
    return ms


def millis(text, what="value"):
    """'100ms', '0.5s' -> integer milliseconds."""
    ms, rest = divmod(_parse("parse_time_ns", text, what), NS_PER_MS)
    if rest:
        raise InputError(f"{what}: '{text}' is not a whole number of milliseconds")
    return ms


def rate(text, what="value"):
    """'1bps', '300kbps', '1.2Mbps' -> bit/s (float)."""
    return float(_parse("parse_rate_bps", text, what))


def seconds(text, what="value"):
    """'300ms', '1.5s' -> seconds (float)."""
    return _parse("parse_time_ns", text, what) / NS_PER_SEC


def size_bytes(text, what="value"):
    """'16kB', '1460B', '64KiB' -> bytes (int)."""
    return _parse("parse_size_bytes", text, what)


def quantity(text):
    """'10pkt' -> ('pkts', 10.0), '1.5Mbps' -> ('bps', 1500000.0): a scenario
    quantity in its base unit (bps, s, bytes, pkts, fraction), or None if
    `text` is not one (a name such as "cubic", a bare number)."""
    try:
        return _core.parse_quantity(str(text).strip())
    except ValueError:
        return None
