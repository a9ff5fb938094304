"""A reproduced number: what the paper published, what we measured, and
whether they agree within a stated tolerance."""

import math


# Comparisons forgive rounding only: 1.0 is within ±0.04 of 0.96 although
# 1.0 - 0.96 > 0.04 in binary floating point.
EPS = 1e-9


class Tolerance:
    """How close `measured` must be to agree with `published`. The text is
    what the report shows; the check decides the verdict."""

    def __init__(self, text, check):
        self.text, self._check = text, check

    def agrees(self, published, measured):
        return bool(self._check(published, measured))

    @classmethod
    def rel(cls, frac):
        """|measured - published| <= frac * |published|."""
        return cls(f"±{frac * 100:g} %", lambda p, m: abs(m - p) <= frac * abs(p) + EPS)

    @classmethod
    def abs(cls, delta, unit=""):
        """|measured - published| <= delta."""
        return cls(f"±{delta:g}{(' ' + unit) if unit else ''}", lambda p, m: abs(m - p) <= delta + EPS)

    @classmethod
    def at_least(cls, bound):
        """measured >= bound (for published statements such as 'over 100 %')."""
        return cls(f"≥ {bound:g}", lambda p, m: m >= bound - EPS)

    @classmethod
    def at_most(cls, bound):
        return cls(f"≤ {bound:g}", lambda p, m: m <= bound + EPS)

    @classmethod
    def within(cls, lo, hi):
        """lo <= measured <= hi (a published range)."""
        return cls(f"in [{lo:g}, {hi:g}]", lambda p, m: lo - EPS <= m <= hi + EPS)


class Item:
    def __init__(self, id, what, published, measured, unit, tolerance=None, figure=None):
        if measured is None or not math.isfinite(float(measured)):
            raise ValueError(f"{id}: measured value must be a finite number, got {measured!r}")
        if published is not None and tolerance is None:
            raise ValueError(f"{id}: a published value needs a tolerance")
        self.id, self.what, self.unit, self.figure = id, what, unit, figure
        self.published = None if published is None else float(published)
        self.measured = float(measured)
        self.tolerance = tolerance

    @property
    def verdict(self):
        if self.published is None:
            return "no published value"
        return "agrees" if self.tolerance.agrees(self.published, self.measured) else "differs"

    def as_dict(self):
        return {
            "id": self.id, "what": self.what, "published": self.published, "measured": self.measured,
            "unit": self.unit, "tolerance": self.tolerance.text if self.tolerance else "",
            "verdict": self.verdict,
        }
