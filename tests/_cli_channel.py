"""Run the cdmasim CLI in-process and capture what it prints."""

import cdmasim.cli as cli


def run_cli(argv, capsys):
    rc = cli.main([str(a) for a in argv])
    out = capsys.readouterr()
    return rc, out.out, out.err
