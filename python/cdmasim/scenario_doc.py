"""docs/scenario.md's tables of keys, made from the core's descriptions.

The core describes each key of a scenario table once (its name, what
leaving it out means, what it does: crates/cdmasim-core/src/input/keys.rs),
and the parser accepts those keys and no other. docs/scenario.md marks
where a table's keys go, `<!-- keys: sector -->` ... `<!-- /keys -->`; this
fills each mark with the tables named after it (`sector`, `sector.rab`).

    python -m cdmasim.scenario_doc            # rewrite docs/scenario.md
    python -m cdmasim.scenario_doc --check    # exit 1 if it is stale
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys

from . import _core
from ._files import write_file

DOC = pathlib.Path(__file__).parent / "docs" / "scenario.md"
# A mark's table runs to the first end mark, and may not hold another mark.
MARK = re.compile(r"(<!-- keys: ([a-z0-9_]+) -->\r?\n)((?:(?!<!-- keys: ).)*?)(<!-- /keys -->)", re.S)


def tables() -> list[dict]:
    """The core's described tables in order: {name, heading, keys: [{key,
    default, is_value, help}]}; a name's part before the first dot is its
    mark."""
    return json.loads(_core.scenario_keys())


def markdown(top: str) -> str:
    """The keys of the tables marked `top` (`sector`, `sector.rab`), one
    Markdown table each."""
    out = []
    for t in tables():
        if t["name"].split(".")[0] != top:
            continue
        out += [f"| key ({t['heading']}) | default | meaning |", "|---|---|---|"]
        out += [f"| `{k['key']}` | {_default(k)} | {k['help']} |" for k in t["keys"]]
        out.append("")
    if not out:
        raise KeyError(f"the core describes no table marked {top}")
    return "\n".join(out)


def _default(key: dict) -> str:
    # A value is shown as the file writes it; words (required, none, ...) as words.
    return f"`{key['default']}`" if key["is_value"] else key["default"]


def update(text: str) -> str:
    """`text` with every mark's table filled from the core; every described
    table must be under a mark."""
    marked = {m.group(2) for m in MARK.finditer(text)}
    missing = sorted({t["name"].split(".")[0] for t in tables()} - marked)
    if missing:
        raise KeyError(f"no <!-- keys: NAME --> mark for {', '.join(missing)}")
    return MARK.sub(lambda m: m.group(1) + markdown(m.group(2)) + m.group(4), text)


def main(argv=None) -> int:
    """Exit 0: current (or rewritten); 1: stale under --check; 2: the file
    could not be read, written or has no place for a table (one line)."""
    ap = argparse.ArgumentParser(prog="python -m cdmasim.scenario_doc", description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the file is not what the core describes")
    ap.add_argument("file", nargs="?", default=str(DOC), help="the scenario reference (default: the package's)")
    a = ap.parse_args(argv)
    # A link is followed: the file it names is the one rewritten.
    path = pathlib.Path(a.file).resolve()
    try:
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
        new = update(text)
        if a.check:
            if new != text:
                print(f"{a.file}: its tables of keys are stale: run python -m cdmasim.scenario_doc", file=sys.stderr)
                return 1
            return 0
        if new != text:
            def write(tmp):
                with open(tmp, "w", encoding="utf-8", newline="") as f:
                    f.write(new)
            write_file(path, write)
    except OSError as e:
        print(f"cdmasim.scenario_doc: {a.file}: {e.strerror or e}", file=sys.stderr)
        return 2
    except KeyError as e:
        print(f"cdmasim.scenario_doc: {a.file}: {e.args[0]}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
