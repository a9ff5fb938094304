"""The cdmasim CLI restricted to the command groups that import on this
checkout (benchmarks run on helper branches where others' groups may be
absent). Usage: python bench/_cli.py ARGS..."""

import importlib
import sys

import cdmasim.cli as cli

groups = []
for g in cli.GROUPS:
    try:
        importlib.import_module(f"cdmasim.commands.{g}")
        groups.append(g)
    except ImportError:
        pass
cli.GROUPS = groups
sys.exit(cli.main(sys.argv[1:]))
