"""Every shipped example gives, bit for bit, the results recorded in
tests/golden/: the whole summary (every flow, queue and cell, every float
as its shortest round-trip text), a SHA-256 of each time series' time and
value arrays, and a SHA-256 of the drop log and of the web objects and
pages tables (which, like the drops, stream out of the run). A sweep example is pinned
by its first and last run.

This is the guard for work that must not change results (speed work on the
engine, refactors): any change to what a run computes fails here, naming
the example and the first place that differs. A change that is meant to
move results re-records the files, and its commit says why:

    python tests/test_golden.py --update        # rewrite tests/golden/*.json
"""

import hashlib
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
GOLDEN = Path(__file__).resolve().parent / "golden"


def _cases():
    """(golden name, scenario document or path, seed or None), one per
    example and two per sweep example (its first and last run)."""
    from cdmasim import sweep_spec

    out = []
    for path in sorted(EXAMPLES.glob("*.toml")):
        if path.name.startswith("sweep_"):
            runs = sweep_spec.load(path).runs()
            for tag, (_, seed, doc) in (("first", runs[0]), ("last", runs[-1])):
                out.append((f"{path.stem}.{tag}", doc, seed))
        else:
            out.append((path.stem, path, None))
    return out


def _digest(*arrays):
    h = hashlib.sha256()
    for a in arrays:
        h.update(a.tobytes())
    return h.hexdigest()


def record(doc, seed):
    """What a golden file holds for one run."""
    import cdmasim

    r = cdmasim.run(doc, seed=seed)
    series = {f"{metric}/{subject}": [len(t), _digest(t, v)] for metric, subject, t, v in r.series_arrays()}
    def table(df):
        return [len(df), hashlib.sha256(df.to_csv(index=False, lineterminator="\n").encode()).hexdigest()]

    return {"summary": json.loads(r.summary_json()), "series": series, "drops": table(r.drops),
            "objects": table(r.objects), "pages": table(r.pages)}


def _canonical(x):
    return json.dumps(x, sort_keys=True, indent=1)


def _first_difference(a, b, where=""):
    """The path of the first place two JSON values differ, and both sides."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{where}.{k}", a.get(k, "<missing>"), b.get(k, "<missing>")
            d = _first_difference(a[k], b[k], f"{where}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{where} (length)", len(a), len(b)
        for i, (x, y) in enumerate(zip(a, b)):
            d = _first_difference(x, y, f"{where}[{i}]")
            if d:
                return d
        return None
    return None if _canonical(a) == _canonical(b) else (where or ".", a, b)


CASES = _cases()


@pytest.mark.parametrize("name,doc,seed", CASES, ids=[c[0] for c in CASES])
def test_example_matches_its_golden_record(name, doc, seed):
    path = GOLDEN / f"{name}.json"
    if not path.exists():
        pytest.fail(f"{path.name} is missing: record it with `python tests/test_golden.py --update`")
    want = json.loads(path.read_text())
    got = json.loads(_canonical(record(doc, seed)))
    if _canonical(got) != _canonical(want):
        where, old, new = _first_difference(want, got)
        pytest.fail(f"{name}: results changed, first at {where}: recorded {str(old)[:200]}, now {str(new)[:200]}")


def test_every_golden_record_belongs_to_an_example():
    names = {c[0] for c in CASES}
    stale = sorted(p.stem for p in GOLDEN.glob("*.json") if p.stem not in names)
    assert not stale, f"golden records without an example: {stale}"


def test_a_one_ulp_change_is_caught():
    """The comparison is exact: a float moved by one unit in the last place
    is a difference, and its path is named."""
    import math

    want = {"flows": [{"goodput_bps": 1234.5678}]}
    got = {"flows": [{"goodput_bps": math.nextafter(1234.5678, math.inf)}]}
    assert _canonical(got) != _canonical(want)
    assert _first_difference(want, got)[0] == ".flows[0].goodput_bps"


def _update():
    GOLDEN.mkdir(exist_ok=True)
    for name, doc, seed in CASES:
        (GOLDEN / f"{name}.json").write_text(_canonical(record(doc, seed)) + "\n")
        print(f"recorded {name}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/test_golden.py --update")
    sys.path.insert(0, str(ROOT / "python"))
    _update()
