"""cdmasim: TCP and applications over 3G CDMA data networks.

Heavy modules (pandas, numpy, matplotlib) are imported lazily so that the
command line starts fast.
"""

__version__ = "0.1.0"


class InputError(ValueError):
    """Bad user input (a scenario, trace or capture file): the CLI prints its
    one-line message and exits with status 2."""
