# Type stubs for the compiled module cdmasim._core (crates/cdmasim-py).
# tests/test_stubs.py checks that every function here exists with these
# parameter names; each binding area adds its own section.

# --- scenarios and runs (crates/cdmasim-py/src/sim.rs) ---

__version__: str
DEFAULT_SEED: int

class ScenarioError(ValueError):
    """`FILE:LINE: FIELD: message`; the parts as attributes."""

    file: str
    line: int
    field: str
    message: str

def parse_scenario(text: str, path: str = "<string>") -> str:
    """Validated ScenarioSpec as JSON; raises ScenarioError."""

def scenario_toml_from_json(json: str) -> str:
    """A JSON object rendered as scenario TOML text; raises ValueError."""

def run_scenario(
    text: str,
    path: str = "<string>",
    seed_override: int | None = None,
    pcap_dir: str | None = None,
    progress: object | None = None,
) -> tuple[str, list[tuple[str, str, bytes, bytes]]]:
    """(pretty summary JSON, [(metric, subject, t f64 LE bytes, value f64 LE bytes)]).
    progress(now_s, horizon_s) -> bool | None is called at most every 0.2 s."""

def parse_time_ns(text: str) -> int:
    """'37.5ms' -> nanoseconds (scenario unit rules); ValueError on bad input."""

def parse_rate_bps(text: str) -> int:
    """'9.6kbps' -> bit/s (scenario unit rules); ValueError on bad input."""
