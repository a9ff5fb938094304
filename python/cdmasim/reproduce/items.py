"""A reproduced number: what the paper published, in its own words; what
cdmasim measured, over seeds; what the number is to the model (a
prediction, a calibration target or an input); and the verdict.

The tolerance comes from the paper's wording by one rule (docs/reproduce.md,
"How an item is judged"):

- a bound is the bound: "less than 5 %" is measured < 1.05 (strict),
  "at most" / "up to" / "no more than" is <=, "over 100 %" / "more than" /
  "above" is > (strict), "at least" / "or more" is >=;
- "about X" / "around X" / "roughly X" / "≈ X", a number the paper states
  as a measurement (a table cell, a figure in the text) and a value read
  off a figure are ±10 % (±15 % for a figure whose resolution is coarser,
  said per item);
- a range is the range ("20 - 30 secs" is [20, 30]);
- "no ... at all" / "does not incur any" is exactly zero;
- an ordering ("Vegas lowest, Cubic highest") holds or does not, per seed.

Each item holds one value per seed (or one pooled value over all runs). Its
verdict, for a prediction with a published value: `differs` when the mean
and every seed fail; otherwise `inconclusive` when the seeds spread wider
than the tolerance's width (never `agrees`); otherwise `agrees` when the
mean and every seed pass, and `inconclusive` when they do not all agree. Calibration targets and inputs are never counted as
agreement: their verdict is `calibration` or `input`, with the measured
value still shown."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

# Comparisons forgive rounding only: 1.0 is within ±0.04 of 0.96 although
# 1.0 - 0.96 > 0.04 in binary floating point.
EPS = 1e-9

BASES = ("prediction", "calibration", "input")
VERDICTS = ("agrees", "differs", "inconclusive", "not modelled", "no published value", "calibration", "input")

#: "About X" and numbers stated as measurements; values read off a figure.
ABOUT = 0.10
#: Values read off a figure whose axis is coarser than a tenth of the value.
COARSE = 0.15

_UPPER_STRICT = ("less than", "below", "under ", "lower than", "fewer than", "smaller than", "<")
_UPPER = ("at most", "no more than", "not more than", "not achieve more", "up to", "≤", "<=", "does not exceed",
          "limited to")
_LOWER_STRICT = ("more than", "over ", "above", "greater than", "higher than", "exceeds", ">")
_LOWER = ("at least", "or more", "≥", ">=", "no less than")
_ABOUT = ("about", "around", "approximately", "roughly", "nearly", "≈", "~", "close to", "almost")
_NONE = ("not any", "does not incur any", "no packet loss", "none", "zero")
_RANGE = re.compile(r"(\d+(?:\.\d+)?)\s*(?:-|–|to)\s*(\d+(?:\.\d+)?)|between\s+(\d+(?:\.\d+)?)\s+and\s+(\d+(?:\.\d+)?)")


class Tolerance:
    """What a measured value must satisfy; `text` is what the report shows,
    `kind` names the rule, `width` is how far apart two passing values may
    be (infinite for a one-sided bound)."""

    def __init__(self, kind: str, text: str, check, width: float = math.inf):
        self.kind, self.text, self._check, self.width = kind, text, check, width

    def passes(self, x: float) -> bool:
        return bool(self._check(x))

    # -- the rule's cases --------------------------------------------------

    @classmethod
    def below(cls, bound: float) -> Tolerance:
        return cls("bound", f"< {bound:g}", lambda x: x < bound - EPS)

    @classmethod
    def at_most(cls, bound: float) -> Tolerance:
        return cls("bound", f"≤ {bound:g}", lambda x: x <= bound + EPS)

    @classmethod
    def above(cls, bound: float) -> Tolerance:
        return cls("bound", f"> {bound:g}", lambda x: x > bound + EPS)

    @classmethod
    def at_least(cls, bound: float) -> Tolerance:
        return cls("bound", f"≥ {bound:g}", lambda x: x >= bound - EPS)

    @classmethod
    def about(cls, value: float, frac: float = ABOUT) -> Tolerance:
        half = frac * abs(value)
        return cls("about", f"±{frac * 100:g} %", lambda x: abs(x - value) <= half + EPS, 2 * half)

    @classmethod
    def within(cls, lo: float, hi: float) -> Tolerance:
        return cls("range", f"in [{lo:g}, {hi:g}]", lambda x: lo - EPS <= x <= hi + EPS, hi - lo)

    @classmethod
    def exactly(cls, value: float) -> Tolerance:
        return cls("exact", f"= {value:g}", lambda x: abs(x - value) <= EPS, 0.0)

    @classmethod
    def holds(cls) -> Tolerance:
        """An ordering: each seed's value is 1 if it holds, 0 if not."""
        return cls("ordering", "holds in every seed", lambda x: x >= 1 - EPS, 0.0)

    @classmethod
    def from_wording(cls, wording: str, value: float | None = None, figure: bool = False,
                     coarse: bool = False) -> Tolerance:
        """The rule applied to the paper's words. `value` is the number the
        words bound or approximate, in the item's unit (the words say "5 %",
        the item may measure the ratio 1.05); a range takes its ends from
        the words unless the item's unit differs (then give `within`)."""
        w = " " + wording.lower().strip() + " "
        if figure:
            return cls.about(_need(value, wording), COARSE if coarse else ABOUT)
        if any(k in w for k in _NONE):
            return cls.exactly(0.0 if value is None else value)
        about = any(k in w for k in _ABOUT)
        if about and not any(k in w for k in ("less than", "more than", "at least", "at most", "over ", "below",
                                               "above", "greater than")):
            # "around 1 Mbps", and "up to about 20 %" (the largest value is about 20 %).
            return cls.about(_need(value, wording))
        for words, make in ((_UPPER_STRICT, cls.below), (_UPPER, cls.at_most), (_LOWER_STRICT, cls.above),
                            (_LOWER, cls.at_least)):
            if any(k in w for k in words):
                return make(_need(value, wording))
        m = _RANGE.search(w)
        if m and value is None:
            lo, hi = (float(g) for g in (m.group(1, 2) if m.group(1) else m.group(3, 4)))
            return cls.within(lo, hi)
        # A number stated as it was measured: the same ±10 % as "about".
        return cls.about(_need(value, wording))


def _need(value, wording):
    if value is None:
        raise ValueError(f"'{wording}': the rule needs the number the words state")
    return float(value)


class Item:
    """One claim of the paper against one measurement (over seeds).

    basis: 'prediction' (nothing in the model or the run was set from this
    number or its figure), 'calibration' (a preset or parameter was fitted
    to it: `basis_note` names what) or 'input' (the number is a parameter
    of the run: `basis_note` names which). source: where the paper says it
    and its words (what makes two items duplicates). samples: one value per
    seed, or `pooled` = the number of runs one pooled value came from.
    not_modelled: why the model cannot produce it yet (the item then has no
    measured value). also: other measurements of the same claim, as
    (label, samples) pairs (all must pass for `agrees`)."""

    def __init__(self, id: str, what: str, unit: str, samples: Sequence[float] | None = None,
                 published: float | None = None, tolerance: Tolerance | None = None, basis: str = "prediction",
                 basis_note: str = "", source: str = "", figure: str | None = None, aliases: Iterable[str] = (),
                 pooled: int | None = None, not_modelled: str | None = None,
                 also: Iterable[tuple[str, Sequence[float]]] = (), null_input: float | None = None,
                 ns2: Sequence[float] | None = None):
        if basis not in BASES:
            raise ValueError(f"{id}: basis must be one of {', '.join(BASES)}, not {basis!r}")
        if basis != "prediction" and not basis_note:
            raise ValueError(f"{id}: a {basis} item says what was {'fitted' if basis == 'calibration' else 'set'}")
        if published is not None and tolerance is None and not_modelled is None:
            raise ValueError(f"{id}: a published value needs a tolerance")
        if published is not None and not source:
            raise ValueError(f"{id}: a published value needs its source (where the paper says it, in its words)")
        self.id, self.what, self.unit, self.figure = id, what, unit, figure
        self.basis, self.basis_note, self.source = basis, basis_note, source
        self.published = None if published is None else float(published)
        self.tolerance, self.not_modelled = tolerance, not_modelled
        # An alias is an id another issue spelled for this item: a name, or
        # (name, scale) when it names the value in another unit (s -> ms: 1000).
        self.aliases = [(a, 1.0) if isinstance(a, str) else (a[0], float(a[1])) for a in aliases]
        self.pooled, self.null_input = pooled, null_input
        self.samples = _finite(id, samples) if not_modelled is None else []
        if not_modelled is None and not self.samples:
            raise ValueError(f"{id}: no measured value")
        self.also = [(label, _finite(f"{id} ({label})", s)) for label, s in also]
        self.ns2 = _finite(f"{id} (ns-2)", ns2) if ns2 is not None else None

    @property
    def measured(self) -> float | None:
        if not self.samples:
            return None
        # A mean of equal values can round past them (0.1 + 0.1 + 0.1 = 0.30000000000000004).
        return min(max(_mean(self.samples), min(self.samples)), max(self.samples))

    @property
    def spread(self) -> list[float] | None:
        return [min(self.samples), max(self.samples)] if len(self.samples) > 1 else None

    def _judge(self, samples: list[float]) -> str:
        tol = self.tolerance
        mean_ok = tol.passes(_mean(samples))
        passing = [tol.passes(x) for x in samples]
        if not mean_ok and not any(passing):
            return "differs"            # every seed outside: a difference, however wide the spread
        if len(samples) > 1 and max(samples) - min(samples) > tol.width + EPS:
            return "inconclusive"       # the seeds spread wider than the tolerance: never agrees
        if mean_ok and all(passing):
            return "agrees"
        return "inconclusive"

    @property
    def verdict(self) -> str:
        if self.not_modelled is not None:
            return "not modelled"
        if self.basis != "prediction":
            return self.basis
        if self.published is None:
            return "no published value"
        verdicts = {self._judge(self.samples), *(self._judge(s) for _, s in self.also)}
        return verdicts.pop() if len(verdicts) == 1 else "inconclusive"

    def null_passes(self, answer: float) -> bool:
        """Whether a trivial answer (one number, no spread) would pass."""
        if self.published is None or self.basis != "prediction" or self.tolerance is None:
            return False
        return self.tolerance.passes(answer)

    def as_dict(self) -> dict:
        return {
            "id": self.id, "what": self.what, "published": self.published, "measured": self.measured,
            "unit": self.unit, "tolerance": self.tolerance.text if self.tolerance else "",
            "verdict": self.verdict, "basis": self.basis, "basis_note": self.basis_note, "source": self.source,
            "spread": self.spread, "seeds": self.pooled or len(self.samples), "pooled": self.pooled is not None,
            "aliases": [a for a, _ in self.aliases], "reason": self.not_modelled or "",
            "also": [{"how": label, "measured": _mean(s), "spread": [min(s), max(s)] if len(s) > 1 else None}
                     for label, s in self.also],
            "ns2": _mean(self.ns2) if self.ns2 else None,
            "ns2_spread": [min(self.ns2), max(self.ns2)] if self.ns2 and len(self.ns2) > 1 else None,
        }


def _finite(id, samples):
    if samples is None:
        return []
    out = [float(x) for x in samples]
    if not out or not all(math.isfinite(x) for x in out):
        raise ValueError(f"{id}: measured values must be finite numbers, got {list(samples)!r}")
    return out


def _mean(xs):
    return sum(xs) / len(xs)


def null_score(items: Sequence[Item]) -> dict:
    """How many of these items' predictions a trivial answer passes: all
    zeros; the paper's mean (of the items with the same unit) for every
    item; each item's input unchanged (where the item names one). Returns
    {'answer': the best one's name, 'passes': its count, 'of': predictions
    judged}."""
    judged = [it for it in items if it.basis == "prediction" and it.published is not None
              and it.not_modelled is None and it.tolerance is not None]
    numeric = [it for it in judged if it.tolerance.kind != "ordering"]
    by_unit = {}
    for it in numeric:
        by_unit.setdefault(it.unit, []).append(it.published)
    answers = {
        "zeros": sum(it.null_passes(0.0) for it in numeric),
        "paper's mean": sum(it.null_passes(_mean(by_unit[it.unit])) for it in numeric),
        "input unchanged": sum(it.null_passes(it.null_input) for it in numeric if it.null_input is not None),
    }
    best = max(answers, key=lambda k: answers[k])
    return {"answer": best, "passes": answers[best], "of": len(judged)}
