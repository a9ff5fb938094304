"""The example scenarios and sweeps that ship inside the package
(cdmasim/examples/, the checkout's examples/ folder): `cdmasim examples`
lists and copies them, and `cdmasim reproduce` builds on them, so both work
from a wheel installed anywhere."""

from __future__ import annotations

import os
import pathlib
import re

from .errors import InputError

#: Inside the package, so that a wheel carries it (examples/ in a checkout
#: points here).
EXAMPLES = pathlib.Path(__file__).resolve().parent / "examples"


def names() -> list[str]:
    """Every example's name (its file name without .toml), sorted."""
    return sorted(p.stem for p in EXAMPLES.glob("*.toml"))


def path(name: str) -> pathlib.Path:
    """The installed file of example `name` ('dumbbell' or 'dumbbell.toml');
    only the examples `names()` lists, never another file."""
    stem = name[:-5] if isinstance(name, str) and name.endswith(".toml") else name
    if stem not in names():
        shown = name if isinstance(name, str) and len(name) <= 60 else f"{str(name)[:60]}..."
        raise InputError(f"no example named '{shown}' (examples: {', '.join(names())})")
    return EXAMPLES / f"{stem}.toml"


def resolve(given: str | os.PathLike) -> str | os.PathLike:
    """A scenario or sweep path as a user gives it: itself if it exists;
    else, if it names a shipped example (`dumbbell`, `dumbbell.toml` or
    `examples/dumbbell.toml`, as the README writes them), that example's
    installed file, so the README's commands work from a wheel anywhere.
    A local file of that name always wins."""
    text = os.fsdecode(os.fspath(given))
    if os.path.lexists(text):
        return given
    head, name = os.path.split(text)
    if head not in ("", "examples") or name.removesuffix(".toml") not in names():
        return given
    return str(path(name))


def summary(name: str) -> str:
    """An example's opening comment's first sentence (or its first
    paragraph, if that holds no full stop), joined onto one line."""
    words = []
    for line in path(name).read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line.startswith("#"):
            break
        text = line.lstrip("#").strip()
        if not text:
            if words:
                break
            continue
        words.append(text)
    paragraph = " ".join(words)
    # The first full stop that ends a sentence (not "Fig. 5", "et al.").
    for m in re.finditer(r"\. (?=[A-Z(])", paragraph):
        word = paragraph[:m.start()].rsplit(" ", 1)[-1].lstrip("(")
        if word not in _ABBREVIATIONS:
            return paragraph[:m.start() + 1]
    return paragraph


#: Words before a full stop that does not end a sentence.
_ABBREVIATIONS = {"Fig", "Figs", "al", "eq", "eqs", "Eq", "e.g", "i.e", "vs", "cf", "Sec", "No", "Tab"}


def _needs(name: str) -> list[str]:
    """An example and the scenario files it names (a sweep's base scenario),
    which must sit beside it for its relative path to resolve."""
    import tomllib

    out = [path(name).name]
    doc = tomllib.loads(path(name).read_text(encoding="utf-8"))
    base = doc.get("sweep", {}).get("scenario") if isinstance(doc.get("sweep"), dict) else None
    if isinstance(base, str) and "\n" not in base and (EXAMPLES / base).is_file():
        out.append(base)
    return out


def copy(to: str | os.PathLike, which: list[str] | None = None) -> list[str]:
    """Copy examples (all if `which` is empty) into the folder `to`, with the
    scenario files the chosen sweeps name. An existing file is never
    overwritten: InputError before anything is copied. Returns the paths."""
    files = sorted({f for n in (which or names()) for f in _needs(n)})
    to = os.fspath(to)
    clash = [f for f in files if os.path.lexists(os.path.join(to, f))]
    if clash:
        raise InputError(f"{os.path.join(to, clash[0])}: exists; copy into another folder (nothing was copied)")
    import shutil

    try:
        os.makedirs(to, exist_ok=True)
        for f in files:
            shutil.copyfile(EXAMPLES / f, os.path.join(to, f))
    except OSError as e:
        raise InputError(f"{to}: cannot write: {e.strerror or e}") from None
    return [os.path.join(to, f) for f in files]
