"""The Python package's layers hold: the import-linter contracts in
pyproject.toml (the layers top to bottom, no import cycle among the modules
of one package), and no module imports the package's root, the facade that
loads the public API lazily from the modules below it."""

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "python" / "cdmasim"


def test_the_import_contracts_are_kept(monkeypatch):
    cli = pytest.importorskip("importlinter.cli", reason="import-linter is not installed (pip install '.[test]')")
    monkeypatch.chdir(ROOT)  # the contracts are read from pyproject.toml here
    assert cli.lint_imports(config_filename=str(ROOT / "pyproject.toml")) == 0, "lint-imports: a contract is broken"


def _root_imports(path):
    """(line, names) of each import of the package's root in one module:
    `from . import X` (`..` in a subpackage) that names no module file."""
    depth = len(path.relative_to(PACKAGE).parts)  # 1 for cdmasim/x.py, 2 for cdmasim/sub/x.py
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module is None and node.level == depth:
            names = [a.name for a in node.names
                     if not (PACKAGE / f"{a.name}.py").exists() and not (PACKAGE / a.name).is_dir()]
            if names:
                yield node.lineno, names
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "cdmasim":
            yield node.lineno, [a.name for a in node.names]
        elif isinstance(node, ast.Import) and any(a.name == "cdmasim" for a in node.names):
            yield node.lineno, ["cdmasim"]


def test_no_module_imports_the_package_root():
    # The compiled core, cdmasim._core, is imported as `from . import _core`:
    # a module, though the import graph (Python files only) cannot see it.
    found = [f"{p.relative_to(PACKAGE)}:{line}: {', '.join(names)}"
             for p in sorted(PACKAGE.rglob("*.py")) if p.name != "__init__.py" or p.parent != PACKAGE
             for line, names in _root_imports(p) if set(names) - {"_core"}]
    assert found == [], "import these from their own modules (errors, _version), not the package's root: " + \
        "; ".join(found)


#: The libraries a function may import where it needs them instead of at
#: its module's top, with what each adds to a start-up that does not use it
#: (python -X importtime, fewest of three, milliseconds): numpy 125, pandas
#: 663, pyarrow 201, matplotlib 358, distributed 804; and three from the
#: standard library that `cdmasim run` does not otherwise load, measured on
#: top of it: tomllib 15, tempfile 7, shutil 4. A short `cdmasim run` takes
#: about 60 ms in all.
LAZY = {"numpy", "pandas", "pyarrow", "matplotlib", "distributed", "tomllib", "tempfile", "shutil"}


def _local_imports(path):
    """(line, module) of each import inside a function or class of one
    module: any import not reached from the module's top through plain
    statements (if, try, with) alone."""
    tree = ast.parse(path.read_text(), str(path))
    top, stack = set(), list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            top.add(node)
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            stack.extend(ast.iter_child_nodes(node))
        elif isinstance(node, ast.ExceptHandler):
            stack.extend(node.body)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and node not in top:
            yield from ((node.lineno, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node not in top:
            yield node.lineno, "." * node.level + (node.module or "")


def test_imports_are_at_the_top_of_their_module():
    # Two places load on demand by design: the package's root (the facade's
    # lazy attributes) and the command modules, whose handlers import what
    # their command runs, since `cdmasim --help` and `--version` register
    # every command (with each handler's imports at the top `--version` took
    # 330 ms instead of 90 ms).
    found = [f"{p.relative_to(PACKAGE)}:{line}: {module}"
             for p in sorted(PACKAGE.rglob("*.py"))
             if p != PACKAGE / "__init__.py" and p.parent != PACKAGE / "commands"
             for line, module in _local_imports(p) if module.split(".")[0] not in LAZY]
    assert found == [], "import these at the module's top (tests/test_layers.py says which may wait): " + \
        "; ".join(found)


def _drawn_layers(heading):
    """The layers docs/ARCHITECTURE.md draws under `heading`, top to bottom:
    each line of its first code block, up to the two spaces before its note,
    as the set of the names it lists."""
    text = (PACKAGE / "docs" / "ARCHITECTURE.md").read_text()
    block = text.split(f"## {heading}\n", 1)[1].split("```\n", 2)[1]
    return [{n.strip().rstrip("/") for n in line.split("  ")[0].split(",")}
            for line in block.splitlines() if line and not line[0].isspace()]


def test_the_map_draws_the_layers_the_contract_holds():
    contract = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"][0]
    held = [{n.strip() for n in layer.split(":")} for layer in contract["layers"]]
    assert _drawn_layers("The Python package's layers") == held, "docs/ARCHITECTURE.md draws other layers than pyproject.toml holds"
