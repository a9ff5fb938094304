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

def parse_scenario(text: str, path: str = "<string>", form: str = "toml", seed: int | None = None) -> str:
    """Validated ScenarioSpec as JSON, with seed in place of the scenario's (form: "toml", "json" for a
    JSON object, or "spec" for what this returned); raises ScenarioError."""

def result_schema() -> str:
    """The result tables as JSON: [{name, doc, columns: [[column, kind], ...], column_docs, source, long?: {...}}]."""

def scenario_keys() -> str:
    """The scenario tables whose keys the core describes, as JSON: [[table, [{key, default, is_value, help}]]]."""
def scenario_tables() -> list[str]:
    """The top-level keys and tables a scenario file may hold."""

def run_scenario(
    text: str,
    path: str = "<string>",
    seed_override: int | None = None,
    pcap_dir: str | None = None,
    progress: object | None = None,
    drop_log: str | None = None,
    progress_every_ns: int | None = None,
    series_spool: str | None = None,
    web_log_dir: str | None = None,
    form: str = "toml",
) -> tuple[str, list[tuple[str, str, bytes, bytes]] | list[tuple[str, str, bytes]]]:
    """(pretty summary JSON, [(metric, subject, t f64 LE bytes, value f64 LE bytes)]).
    progress(now_s, horizon_s) -> bool | None is offered at every multiple of
    progress_every_ns of simulated time (default a thousandth of the run);
    False stops the run there (summary "stopped_at_s"). drop_log: stream the
    drops to this CSV file (t_s,place,reason,flow,sent_s,seq). series_spool:
    stream the series to this file in chunks; the list then holds
    (metric, subject, chunk index) per series, the index being (byte offset,
    points) u64 LE pairs, each chunk the points' times then values (f64 LE).
    web_log_dir: stream web objects and pages to objects.csv and pages.csv there."""

def parse_time_ns(text: str) -> int:
    """'37.5ms' -> nanoseconds (scenario unit rules); ValueError on bad input."""

def parse_rate_bps(text: str) -> int:
    """'9.6kbps' -> bit/s (scenario unit rules); ValueError on bad input."""

def parse_quantity(text: str) -> tuple[str, float]:
    """'10pkt' -> ('pkts', 10.0): any scenario quantity in its base unit, named
    bps, s, bytes, pkts or fraction; ValueError if it is not one."""

# models.rs: closed forms of cdmasim_core::models (named in cdmasim/models.py).
def parse_size_bytes(text: str) -> int:
    """'16kB' -> bytes (scenario unit rules); ValueError on bad input."""

def model_fluid_loss(mu_ll: float, mu_s: float, mu_lh: float, window_bytes: float, buffer_bytes: float, rtt: float,
                     t0: float = 0.0) -> tuple[str, float, float, float, float, float, float]:
    """(case, t_start, t_end, loss volume, its mu_lh -> inf limit, eq. 4 threshold, W/T); ValueError out of range."""

def model_mathis_bytes_per_s(mss_bytes: float, rtt_s: float, p: float, b: float) -> float: ...
def model_pftk_bytes_per_s(rtt_s: float, t0_s: float, b: float, wmax_segments: float, p: float, mss_bytes: float) -> float: ...
def model_lee_eq1_bytes_per_s(c: float, mtu_bytes: float, rtt_s: float, b: float, p: float) -> float: ...
def model_fit_lee_c(obs: list[tuple[float, float, float]], mtu_bytes: float, b: float) -> tuple[float, float, float, int]:
    """Lee eq. 1 fitted for C over (throughput bytes/s, RTT s, p): (C, relative residual, mean |rel. error|, n)."""

def model_reno_sawtooth(capacity_pkts_per_s: float, prop_rtt_s: float, buffer_pkts: float) -> tuple[float, float, float, float, float, float, float]:
    """(P, W_hi, W_lo, utilisation, throughput pkts/s, cycle s, mean queue pkts)."""

def model_mean_sojourn_slots(p_ii: float) -> float: ...
def model_stationary_distribution(p: list[list[float]]) -> list[float]: ...
def model_jain_index(xs: list[float]) -> float: ...
def model_rlp_max_retransmission_buffer(rounds: int, delay_s: float, guard_s: float, rate_bps: float, window: float) -> float: ...

# --- channels (crates/cdmasim-py/src/channel.rs) ---
# A trace is (DRC index per slot as bytes, SINR per slot as little-endian
# f32 bytes or None, hand-off slots).

def channel_read(path: str, format: str | None = None, mahimahi_window_ms: int = 100) -> tuple[bytes, bytes | None, list[int]]: ...
def channel_stats_file(path: str, format: str | None = None, mahimahi_window_ms: int = 100, window_slots: int = 2160000,
                       max_order: int = 4, max_lag: int = 200) -> str: ...
def channel_stats_bytes(drc: bytes, sinr: bytes | None = None, window_slots: int = 0, max_order: int = 4,
                        max_lag: int = 200) -> str: ...
def channel_stats_source(source: str, slots: int, seed: int, windows: list[int], max_order: int = 4,
                         max_lag: int = 200) -> list[str]: ...
def channel_stats_at(source: str, seed: int, at: list[tuple[int, int]], max_order: int = 4,
                     max_lag: int = 200) -> list[str]: ...
def channel_stats_at_day_scales(preset: str, seed: int, at: list[tuple[int, int]], day_sd_db: list[float],
                                max_order: int = 4, max_lag: int = 200) -> list[list[str]]: ...
def channel_fit(path: str, order: int, format: str | None = None, mahimahi_window_ms: int = 100, regimes: int = 1,
                window_slots: int = 6000) -> str: ...
def channel_generate(source: str, slots: int, seed: int, out: str, drc_only: bool = False) -> tuple[int, bool, int]: ...
def channel_sample(source: str, slots: int, seed: int) -> tuple[bytes, bytes | None, list[int]]: ...
def channel_presets() -> list[str]: ...

#: Slots a trace drawn into memory may have (channel generate/sample, a study's users x slots).
MAX_SLOTS_IN_MEMORY: int
#: The largest lag d of the lag entropies.
MAX_LAG: int
#: The highest order of a Markov model.
MAX_MARKOV_ORDER: int

# --- 1xEV-DO scheduling (crates/cdmasim-py/src/evdo.rs) ---

#: Users a scheduler study takes at most.
MAX_STUDY_USERS: int

def evdo_drc_table() -> list[tuple[int, int, int, int]]:
    """(DRC index, rate bit/s, slots, packet bits) per DRC."""

def evdo_schedule(users: int, slots: int, seed: int, preset: str | None = None, traces: list[str] | None = None,
                  schedulers: list[str] | None = None, alpha: float = 0.001, interlace: int = 0, handoff: str = "both",
                  handoff_interval_slots: tuple[int, int] | None = None, format: str | None = None,
                  mahimahi_window_ms: int = 100, pf_initial_avg_bps: float = 1.0) -> str: ...

# --- captures (crates/cdmasim-py/src/pcap.rs) ---

def pcap_analyze_json(path: str, series: bool = False, checksums: bool = True, mtu: float = 1500.0, b: float = 2.0,
                      fit_connections: list[int] | None = None, fit_min_packets: int = 100) -> str: ...
def pcap_owd_json(a: str, b: str) -> str: ...

# --- emulator (crates/cdmasim-py/src/emu.rs) ---
def emulate_start(text: str, path: str, server_ns: str, user_ns: list[str], tun_name: str = "cdm0",
                  log_dir: str | None = None, form: str = "toml") -> None:
    """Open TUN devices in the namespaces and relay on a thread until emulate_finish."""
def emulate_finish() -> str:
    """Stop the relay; its report as JSON."""
def emulate_attachment(text: str, path: str = "<string>", form: str = "toml") -> tuple[str, list[str]]:
    """(network-side node, user names): the terminals of the scenario's radio hops."""

# --- files users name (crates/cdmasim-py/src/files.rs) ---
MAX_TRACE_BYTES: int
MAX_SMALL_INPUT_BYTES: int

def read_input(path: str, limit: int, what: str) -> bytes:
    """The whole of a regular file of at most `limit` bytes; ValueError with the reason otherwise."""
def file_component(name: str) -> str:
    """A scenario's name as one file name: letters, digits, - and _ kept, every other byte %XX."""
