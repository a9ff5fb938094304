"""cdmasim: TCP and applications over 3G CDMA data networks.

Heavy modules (pandas, numpy, matplotlib) are imported lazily so that the
command line starts fast.
"""

from ._version import __version__
from .errors import InputError


#: The public API: functions and classes loaded on first use, and the
#: submodules (cdmasim.channel, .evdo, .pcap, .models, .reproduce).
_LAZY = ("run", "parse", "ScenarioError", "sweep", "load_sweep", "Result")
_SUBMODULES = ("channel", "evdo", "pcap", "models", "reproduce", "store", "sweeps")
__all__ = ["InputError", "__version__", *_LAZY, *_SUBMODULES]


def __dir__():
    return sorted(set(globals()) | set(__all__))


def __getattr__(name):
    # cdmasim.run / parse / ScenarioError / Result / sweep / load_sweep, loaded on first use so that
    # `import cdmasim` (and every CLI command) does not load the compiled core.
    if name in ("run", "parse", "ScenarioError"):
        from . import simulate

        return getattr(simulate, name)
    if name == "sweep":
        from .sweeps import sweep

        return sweep
    if name == "load_sweep":
        from .store import load_sweep

        return load_sweep
    if name == "Result":
        from .result import Result

        return Result
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'cdmasim' has no attribute {name!r}")
