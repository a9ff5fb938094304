"""Parsing of command-line quantities that carry units (slots are 1/600 s)."""

import re

from . import InputError

SLOTS_PER_SEC = 600
_TIME = {"h": 3600.0, "min": 60.0, "s": 1.0, "ms": 1e-3}


def slots(text, what="value", allow_bare=False):
    """'1h', '30min', '20s', '100ms', '2160000slots' -> slots (int).

    A bare integer is accepted only where the option counts slots."""
    t = str(text).strip()
    m = re.fullmatch(r"([0-9]*\.?[0-9]+(?:[eE][0-9]+)?)\s*(h|min|s|ms|slots?)?", t)
    if not m:
        raise InputError(f"{what}: '{text}' is not a duration (e.g. 1h, 30min, 20s, 100ms, 600slots)")
    v, unit = float(m.group(1)), m.group(2)
    if unit is None:
        if not allow_bare:
            raise InputError(f"{what}: '{text}' has no unit (h, min, s, ms or slots)")
        unit = "slots"
    n = v if unit.startswith("slot") else v * _TIME[unit] * SLOTS_PER_SEC
    if n != int(n) or n < 0:
        raise InputError(f"{what}: '{text}' is not a whole number of slots (1 slot = 1/600 s)")
    return int(n)


def millis(text, what="value"):
    """'100ms', '0.5s' -> integer milliseconds."""
    t = str(text).strip()
    m = re.fullmatch(r"([0-9]*\.?[0-9]+)\s*(ms|s)", t)
    if not m:
        raise InputError(f"{what}: '{text}' needs a unit (ms or s)")
    v = float(m.group(1)) * (1000.0 if m.group(2) == "s" else 1.0)
    if v != int(v):
        raise InputError(f"{what}: '{text}' is not a whole number of milliseconds")
    return int(v)


def rate(text, what="value"):
    """'1bps', '300kbps', '1.2Mbps' -> bit/s (float)."""
    t = str(text).strip()
    m = re.fullmatch(r"([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(bps|kbps|Mbps)", t)
    if not m:
        raise InputError(f"{what}: '{text}' is not a rate with a unit (bps, kbps, Mbps)")
    return float(m.group(1)) * {"bps": 1.0, "kbps": 1e3, "Mbps": 1e6}[m.group(2)]
