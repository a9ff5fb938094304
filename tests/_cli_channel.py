"""Run the cdmasim CLI in-process with only the command groups present on
this branch (the dispatcher imports every group in GROUPS)."""

import importlib

import cdmasim.cli as cli


def run_cli(argv, capsys):
    groups = []
    for g in cli.GROUPS:
        try:
            importlib.import_module(f"cdmasim.commands.{g}")
            groups.append(g)
        except ImportError:
            pass
    old = cli.GROUPS
    cli.GROUPS = groups
    try:
        rc = cli.main([str(a) for a in argv])
    finally:
        cli.GROUPS = old
    out = capsys.readouterr()
    return rc, out.out, out.err
