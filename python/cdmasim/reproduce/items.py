"""A reproduced number: what the paper published, in its own words; what
cdmasim measured, over seeds; what the number is to the model (a
prediction, a calibration target, an input, or a model check); and the
verdict.

The tolerance comes from what the paper's number is, by one rule
(docs/reproduce.md, "How an item is judged"):

- a bound is the bound: "less than 5 %" is measured < 1.05 (strict),
  "at most" / "up to" / "no more than" is <=, "over 100 %" / "more than" /
  "above" is > (strict), "at least" / "or more" is >=;
- a number a paper *measured* ("about X", a table cell, a value read off a
  figure) is held to the spread the paper reports for it
  (`Tolerance.plus_minus`), and otherwise to ±10 % (±15 % for a figure
  whose resolution is coarser, said per item);
- a number a paper *simulated* (`origin="simulation"`) is one run of its
  simulator, printed to a precision (half its last digit, `precision`;
  "about X" keeps ±10 %): it agrees when the range of our single runs
  meets that interval (`Item.one_run`); a simulation's bounds, exact
  claims and orderings are judged seed by seed like a measurement's;
- a range is the range ("20 - 30 secs" is [20, 30]);
- an index bounded by B (Jain's index) is judged by its distance from B:
  "0.99" is 1 - J = 0.01 ± 0.005 (`Tolerance.index`); a claimed effect is
  held to half its size around it (`Tolerance.change`);
- "no ... at all" / "does not incur any" is exactly zero;
- an ordering ("Vegas lowest, Cubic highest") holds or does not, per seed;
- a time in a run is scored as an offset from the event that causes it, a
  claim of a change as the change against its baseline in the same run, a
  claim of sameness on the share ratio (items say which).

Each item holds one value per seed (or one pooled value over all runs). Its
verdict, for a prediction with a published value: `differs` when the mean
and every seed fail; otherwise `inconclusive` when the seeds spread wider
than the tolerance's width (never `agrees`); otherwise `agrees` when the
mean and every seed pass, and `inconclusive` when they do not all agree.
Calibration targets and inputs are never counted as agreement: their
verdict is `calibration` or `input`, and whether they hit their own target
is shown beside it (`target`). A `model check` (our own evaluation of a
paper's equation as the reference) and a prediction the model cannot fail
(`by_construction`, with the reason) are shown and never counted."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

# Comparisons forgive rounding only: 1.0 is within ±0.04 of 0.96 although
# 1.0 - 0.96 > 0.04 in binary floating point.
EPS = 1e-9

BASES = ("prediction", "calibration", "input", "model check")
VERDICTS = ("agrees", "differs", "inconclusive", "not modelled", "no published value", "calibration", "input",
            "model check", "by construction")
ORIGINS = ("measurement", "simulation")

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
    be (infinite for a one-sided bound), and `interval` the values that pass
    for a two-sided tolerance around a number ((lo, hi), None otherwise:
    what a simulated number's single run is set against)."""

    def __init__(self, kind: str, text: str, check, width: float = math.inf,
                 interval: tuple[float, float] | None = None, chance: float | None = None):
        self.kind, self.text, self._check, self.width, self.interval = kind, text, check, width, interval
        # An ordering's chance of holding in one seed by luck.
        self.chance = chance

    def passes(self, x: float) -> bool:
        return bool(self._check(x))

    @classmethod
    def _around(cls, kind: str, text: str, lo: float, hi: float) -> Tolerance:
        return cls(kind, text, lambda x: lo - EPS <= x <= hi + EPS, hi - lo, (lo, hi))

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
        return cls._around("about", f"±{frac * 100:g} %", value - half, value + half)

    @classmethod
    def plus_minus(cls, value: float, half: float, why: str = "") -> Tolerance:
        """± `half` around `value`: the spread the paper reports for a
        measured number (a range, a standard deviation, its figure's
        scatter), or a simulated number's printed precision."""
        return cls._around("about", f"±{half:g}" + (f" ({why})" if why else ""), value - half, value + half)

    @classmethod
    def precision(cls, value: float, words: str) -> Tolerance:
        """A number as the paper prints it, to half of its last digit
        ("3.13" is ±0.005, "51s" ±0.5 s, "0.0" ±0.05), in the item's unit:
        "58%" for the fraction 0.58 is ±0.005."""
        m = re.search(r"\d[\d,]*(?:\.(\d+))?", words)
        if m is None:
            raise ValueError(f"'{words}': no number to take the precision of")
        printed = float(m.group(0).replace(",", ""))
        # The item's unit may differ from the words' by a power of ten (%
        # and a fraction, KB and bytes, ms and s); any other ratio means
        # the words print another number than the item's.
        scale = 1.0
        if printed and value:
            k = math.log10(abs(value / printed))
            if abs(k - round(k)) < 1e-9:
                scale = 10.0 ** round(k)
        return cls.plus_minus(value, 0.5 * 10.0 ** -len(m.group(1) or "") * scale, "half its last digit")

    @classmethod
    def index(cls, value: float, bound: float = 1.0) -> Tolerance:
        """An index bounded by `bound` (Jain's index), judged by its
        distance from the bound, to half that distance: "0.99" means
        1 - J = 0.01 ± 0.005."""
        d = abs(bound - value) / 2
        return cls._around("range", f"in [{value - d:g}, {value + d:g}] ({abs(bound - value):g} ± {d:g} from "
                                    f"{bound:g})", value - d, value + d)

    @classmethod
    def change(cls, value: float, baseline: float = 0.0) -> Tolerance:
        """A claimed effect, held to half its size: `value` is the level (or
        change) the paper states and `baseline` what it would be without
        the effect. "Dropped from 0.867 to 0.80", scored as the change, is
        change(-0.067) = [-0.10, -0.033]; "96 % of Reno's throughput" is
        change(0.96, 1.0) = [0.94, 0.98]: neither no effect nor twice the
        effect passes."""
        return cls.index(value, baseline)

    @classmethod
    def within(cls, lo: float, hi: float) -> Tolerance:
        return cls._around("range", f"in [{lo:g}, {hi:g}]", lo, hi)

    @classmethod
    def exactly(cls, value: float) -> Tolerance:
        return cls("exact", f"= {value:g}", lambda x: abs(x - value) <= EPS, 0.0)

    @classmethod
    def holds(cls, chance: float = 0.5) -> Tolerance:
        """An ordering: each seed's value is 1 if it holds, 0 if not.
        `chance`: the probability that it holds in one seed by luck (1/2
        for "A above B", 1/k for "A lowest of k", 1/k! for k in order)."""
        return cls("ordering", "holds in every seed", lambda x: x >= 1 - EPS, 0.0, chance=chance)

    @classmethod
    def from_wording(cls, wording: str, value: float | None = None, figure: bool = False,
                     coarse: bool = False, simulated: bool = False) -> Tolerance:
        """The rule applied to the paper's words. `value` is the number the
        words bound or approximate, in the item's unit (the words say "5 %",
        the item may measure the ratio 1.05); a range takes its ends from
        the words unless the item's unit differs (then give `within`).
        `simulated`: the number is one run of the paper's simulator, so a
        number stated plainly is held to its printed precision."""
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
        if simulated:
            # One run of a simulator, printed to a precision.
            return cls.precision(_need(value, wording), wording)
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
    to it: `basis_note` names what), 'input' (the number is a parameter of
    the run: `basis_note` names which) or 'model check' (the reference is
    our own evaluation of one of the paper's equations, not a published
    number: `basis_note` says so). source: where the paper says it and its
    words (what makes two items duplicates). samples: one value per seed,
    or `pooled` = the number of runs one pooled value came from.
    not_modelled: why the model cannot produce it yet (the item then has no
    measured value). also: other measurements of the same claim, as
    (label, samples) pairs (all must pass for `agrees`). origin: whether
    the paper measured the number or simulated it (a simulated number is
    one run: the rule above). by_construction: why a prediction cannot
    fail (then it is shown, never counted). no_effect: what the quantity
    is when the effect the paper claims is absent (1.0 for a ratio, 0 for
    a change): the null model's "no effect" answer. An ordering's chance
    of holding by luck, the null model's answer to it, is its tolerance's
    (`Tolerance.holds(chance)`)."""

    def __init__(self, id: str, what: str, unit: str, samples: Sequence[float] | None = None,
                 published: float | None = None, tolerance: Tolerance | None = None, basis: str = "prediction",
                 basis_note: str = "", source: str = "", figure: str | None = None, aliases: Iterable[str] = (),
                 pooled: int | None = None, not_modelled: str | None = None,
                 also: Iterable[tuple[str, Sequence[float]]] = (), null_input: float | None = None,
                 ns2: Sequence[float] | None = None, origin: str = "measurement", by_construction: str | None = None,
                 no_effect: float | None = None):
        if basis not in BASES:
            raise ValueError(f"{id}: basis must be one of {', '.join(BASES)}, not {basis!r}")
        if origin not in ORIGINS:
            raise ValueError(f"{id}: origin must be one of {', '.join(ORIGINS)}, not {origin!r}")
        if basis != "prediction" and not basis_note:
            raise ValueError(f"{id}: a {basis} item says what was {'fitted' if basis == 'calibration' else 'set'}")
        if by_construction is not None and (basis != "prediction" or not by_construction):
            raise ValueError(f"{id}: by_construction is a prediction's, with the reason it cannot fail")
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
        self.origin, self.by_construction, self.no_effect = origin, by_construction, no_effect
        # Why it differs or is inconclusive: one line from reproduce/why.py.
        self.why = ""

    @property
    def measured(self) -> float | None:
        if not self.samples:
            return None
        # A mean of equal values can round past them (0.1 + 0.1 + 0.1 = 0.30000000000000004).
        return min(max(_mean(self.samples), min(self.samples)), max(self.samples))

    @property
    def spread(self) -> list[float] | None:
        return [min(self.samples), max(self.samples)] if len(self.samples) > 1 else None

    @property
    def one_run(self) -> bool:
        """The published number is one run of the paper's simulator, held
        to an interval around it: it agrees when our single runs' range
        meets that interval. (Bounds, exact claims and orderings of a
        simulation are judged seed by seed, as a measurement's are.)"""
        return (self.origin == "simulation" and self.tolerance is not None
                and self.tolerance.interval is not None and self.tolerance.kind != "exact")

    def _judge(self, samples: list[float]) -> str:
        tol = self.tolerance
        if self.one_run:
            lo, hi = tol.interval
            return "agrees" if min(samples) <= hi + EPS and max(samples) >= lo - EPS else "differs"
        mean_ok = tol.passes(_mean(samples))
        passing = [tol.passes(x) for x in samples]
        if not mean_ok and not any(passing):
            return "differs"            # every seed outside: a difference, however wide the spread
        if len(samples) > 1 and max(samples) - min(samples) > tol.width + EPS:
            return "inconclusive"       # the seeds spread wider than the tolerance: never agrees
        if mean_ok and all(passing):
            return "agrees"
        return "inconclusive"

    def _scored(self) -> str:
        verdicts = {self._judge(self.samples), *(self._judge(s) for _, s in self.also)}
        return verdicts.pop() if len(verdicts) == 1 else "inconclusive"

    @property
    def verdict(self) -> str:
        if self.not_modelled is not None:
            return "not modelled"
        if self.basis != "prediction":
            return self.basis
        if self.published is None:
            return "no published value"
        if self.by_construction is not None:
            return "by construction"
        return self._scored()

    @property
    def target(self) -> str | None:
        """Whether the model hits the number ('hit', 'missed' or
        'inconclusive', by the rule a prediction is judged by) for what is
        not counted: a calibration target, an input, a model check, or a
        prediction that holds by construction (a miss there is a bug). A
        missed calibration is a finding. None otherwise."""
        if self.published is None or self.not_modelled is not None:
            return None
        if self.basis == "prediction" and self.by_construction is None:
            return None
        return {"agrees": "hit", "differs": "missed"}.get(self._scored(), "inconclusive")

    @property
    def judged(self) -> bool:
        """A prediction compared with a published number (what agreement
        is counted over)."""
        return (self.basis == "prediction" and self.published is not None and self.not_modelled is None
                and self.by_construction is None and self.tolerance is not None)

    def null_passes(self, answer: float) -> bool:
        """Whether a trivial answer (one number, no spread) would pass."""
        if not self.judged:
            return False
        return self.tolerance.passes(answer)

    def _tolerance_text(self) -> str:
        if self.tolerance is None:
            return ""
        if self.one_run:
            lo, hi = self.tolerance.interval
            shown = "" if self.tolerance.kind == "range" else f", [{lo:.6g}, {hi:.6g}]"
            return f"{self.tolerance.text}{shown}: the paper's one run, met by our runs' range"
        return self.tolerance.text

    def as_dict(self) -> dict:
        return {
            "id": self.id, "what": self.what, "published": self.published, "measured": self.measured,
            "unit": self.unit, "tolerance": self._tolerance_text(),
            "verdict": self.verdict, "basis": self.basis, "basis_note": self.basis_note, "source": self.source,
            "spread": self.spread, "seeds": self.pooled or len(self.samples), "pooled": self.pooled is not None,
            "aliases": [a for a, _ in self.aliases], "reason": self.not_modelled or "",
            "also": [{"how": label, "measured": _mean(s), "spread": [min(s), max(s)] if len(s) > 1 else None}
                     for label, s in self.also],
            "ns2": _mean(self.ns2) if self.ns2 else None,
            "ns2_spread": [min(self.ns2), max(self.ns2)] if self.ns2 and len(self.ns2) > 1 else None,
            "origin": self.origin, "by_construction": self.by_construction or "", "target": self.target,
            "why": self.why,
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


#: A unit's published values make a "paper's mean" answer only when a
#: figure has at least this many items of that unit (of one item, the mean
#: is its published value; of two, it sits between them, and says as little).
MEAN_MIN_ITEMS = 3


def null_score(items: Sequence[Item]) -> dict:
    """How many of these items' predictions a trivial answer passes, the
    best of: all zeros; the paper's mean (of the items with the same unit,
    where there are at least MEAN_MIN_ITEMS of them) for every item; each
    item's input unchanged (where the item names one); no effect (each
    claimed effect absent: a ratio of 1, a change of 0, the baseline's
    value). Orderings are answered by chance: each counts the probability
    that it holds in every seed by luck. Returns {'answer': the best one's
    name, 'passes': its count (fractional with orderings), 'of':
    predictions judged}."""
    judged = [it for it in items if it.judged]
    numeric = [it for it in judged if it.tolerance.kind != "ordering"]
    orderings = [it for it in judged if it.tolerance.kind == "ordering"]
    by_unit = {}
    for it in numeric:
        by_unit.setdefault(it.unit, []).append(it.published)
    luck = sum(it.tolerance.chance ** max(1, len(it.samples)) for it in orderings)
    # On a tie the first named wins: the answer that says most about the claim.
    answers = {
        "no effect": sum(it.null_passes(it.no_effect) for it in numeric if it.no_effect is not None),
        "input unchanged": sum(it.null_passes(it.null_input) for it in numeric if it.null_input is not None),
        "paper's mean": sum(it.null_passes(_mean(by_unit[it.unit])) for it in numeric
                            if len(by_unit[it.unit]) >= MEAN_MIN_ITEMS),
        "zeros": sum(it.null_passes(0.0) for it in numeric),
    }
    best = max(answers, key=lambda k: answers[k])
    names = ([best] if answers[best] else []) + (["orderings by chance"] if orderings else [])
    return {"answer": ", ".join(names) or "none passes", "passes": round(answers[best] + luck, 3), "of": len(judged)}
