"""The `cdmasim` command: a thin dispatcher over cdmasim.commands.*."""

import argparse
import errno
import importlib
import os
import sys

from .errors import InputError
from ._version import __version__
from .commands import GROUPS


class OneLineParser(argparse.ArgumentParser):
    """Usage errors as one line on stderr, exit 2, like every other bad input
    (argparse prints the usage block first, 2-9 lines). `--help` still
    shows the usage."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def _get_formatter(self):
        # argparse makes a formatter for every add_argument (to check the
        # metavar), and a formatter without a width imports shutil for the
        # terminal's (with bz2 and lzma: 2.5-3 ms of every command's
        # start-up). The same width, found without it (argparse takes two
        # columns off the terminal's).
        return self.formatter_class(prog=self.prog, width=_terminal_columns() - 2)


def _terminal_columns() -> int:
    """shutil.get_terminal_size().columns: $COLUMNS if a positive number,
    else the terminal's width on stdout, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


def build_parser(only=None) -> argparse.ArgumentParser:
    """The parser for every command group, or for `only` (the group named on
    the command line): building all eleven sub-parsers costs more start-up
    time than a short simulation."""
    p = OneLineParser(prog="cdmasim", description="TCP and applications over 3G CDMA data networks")
    p.add_argument("--version", action="version", version=f"cdmasim {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    for name in GROUPS if only is None else [only]:
        importlib.import_module(f"cdmasim.commands.{name}").register(sub)
    return p


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    only = argv[0] if argv and argv[0] in GROUPS else None
    args = build_parser(only).parse_args(argv)
    try:
        return args.func(args) or 0
    except InputError as e:
        print(f"cdmasim: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("cdmasim: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`cdmasim ... | head`): stop quietly, as Unix
        # tools do, and keep Python from complaining again at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as e:
        if e.errno != errno.ENOSPC:
            raise
        print(f"cdmasim: error: {e.filename or 'output'}: no space left on the device", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
