"""python/cdmasim/_core.pyi matches the compiled module, both ways: every
function in the stub exists with the same parameter names and defaults, and
every public name of the module is in the stub."""

import ast
import inspect
from pathlib import Path

import cdmasim._core as core

STUB = Path(__file__).resolve().parent.parent / "python" / "cdmasim" / "_core.pyi"


def stub_functions():
    tree = ast.parse(STUB.read_text())
    return [n for n in tree.body if isinstance(n, ast.FunctionDef)]


def test_stub_functions_exist_with_matching_parameters():
    funcs = stub_functions()
    assert funcs
    for f in funcs:
        assert hasattr(core, f.name), f"{f.name} is in the stub but not in cdmasim._core"
        stub_params = [a.arg for a in f.args.args]
        stub_defaults = [ast.literal_eval(d) for d in f.args.defaults]
        sig = inspect.signature(getattr(core, f.name))
        assert list(sig.parameters) == stub_params, f.name
        real_defaults = [p.default for p in sig.parameters.values() if p.default is not inspect.Parameter.empty]
        assert real_defaults == stub_defaults, f.name


def test_every_public_name_of_the_module_is_in_the_stub():
    tree = ast.parse(STUB.read_text())
    stubbed = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    stubbed |= {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign)}
    public = {n for n in dir(core) if not n.startswith("_")}
    assert public - stubbed == set(), "in cdmasim._core but not in the stub"


def test_scenario_error_is_a_value_error_of_this_module():
    assert issubclass(core.ScenarioError, ValueError)
    assert core.ScenarioError.__module__ == "cdmasim._core"
