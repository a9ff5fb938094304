"""The bad-input catalogue for the readers and the commands other than
`run` (whose scenario files are in tests/scenarios/bad/): every case gives
one line on stderr naming the file (and line and field where there is one)
or the option, exit code 2, no traceback, and nothing written."""

import json
import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAGIC = b"CDMADRC\x01"


def binary_trace(slots=b"\x03\x04", n=None, flags=0, tail=b""):
    n = len(slots) if n is None else n
    return MAGIC + struct.pack("<IIQ", flags, 0, n) + slots + tail


MARKOV = {"format": "cdmasim-markov", "version": 1, "order": 1, "states": 15,
          "contexts": [{"context": [3], "next": [0, 0, 0, 5] + [0] * 11}]}


def markov(**change):
    m = json.loads(json.dumps(MARKOV))
    m.update(change)
    return json.dumps(m)


# (id, {file name: content (bytes or str)}, argv (FILE for the first file), fragments of the error line)
CASES = [
    # Binary DRC traces: header counts against the file's size.
    ("drc_bin_slots_2_64", {"t.drc": binary_trace(n=2**64 - 1)}, ["channel", "stats", "FILE"], ["t.drc", "slots", "claimed"]),
    ("drc_bin_handoffs_2_64", {"t.drc": binary_trace(flags=2, tail=struct.pack("<Q", 2**64 - 1))},
     ["channel", "stats", "FILE"], ["t.drc", "handoffs", "claimed"]),
    ("drc_bin_handoffs_wrap", {"t.drc": binary_trace(flags=2, tail=struct.pack("<Q", 2**61))},
     ["channel", "stats", "FILE"], ["t.drc", "handoffs", "2305843009213693952 claimed"]),
    ("drc_bin_bad_magic", {"t.drc": b"CDMADRC\x02" + bytes(20)}, ["channel", "stats", "FILE", "--format", "binary"],
     ["t.drc", "bad magic"]),
    ("drc_bin_flags", {"t.drc": binary_trace(flags=8)}, ["channel", "stats", "FILE"], ["t.drc", "flags"]),
    ("drc_bin_sinr_truncated", {"t.drc": binary_trace(flags=1)}, ["channel", "stats", "FILE"], ["t.drc", "sinr"]),
    ("drc_bin_value_15", {"t.drc": binary_trace(slots=b"\x03\x0f")}, ["channel", "stats", "FILE"], ["t.drc", "slot 1"]),
    ("drc_bin_trailing", {"t.drc": binary_trace(tail=b"xx")}, ["channel", "stats", "FILE"], ["t.drc", "trailing"]),
    # DRC text traces: file, line and field.
    ("drc_text_nan", {"t.txt": "3\nNaNbps\n"}, ["channel", "stats", "FILE"], ["t.txt:2: drc", "not a number"]),
    ("drc_text_inf", {"t.txt": "3\ninfkbps\n"}, ["channel", "stats", "FILE"], ["t.txt:2: drc", "not a number"]),
    ("drc_text_index_15", {"t.txt": "3\n15\n"}, ["channel", "stats", "FILE"], ["t.txt:2: drc"]),
    ("drc_text_negative", {"t.txt": "3\n-1\n"}, ["channel", "stats", "FILE"], ["t.txt:2: drc"]),
    ("drc_text_not_a_rate", {"t.txt": "3\n100kbps\n"}, ["channel", "stats", "FILE"], ["t.txt:2: drc", "not one of the DRC rates"]),
    ("drc_text_sinr_nan", {"t.txt": "3 1.5\n4 nan\n"}, ["channel", "fit", "FILE", "--order", "1", "--out", "m.json"],
     ["t.txt:2"]),
    # Mahimahi traces.
    ("mahimahi_2_64", {"t.down": "0\n18446744073709551615\n"}, ["channel", "stats", "FILE", "--format", "mahimahi"],
     ["t.down:2: timestamp", "24 hours"]),
    ("mahimahi_10_days", {"t.down": "1\n864000000\n"}, ["channel", "stats", "FILE", "--format", "mahimahi"],
     ["t.down:2: timestamp"]),
    ("mahimahi_back_in_time", {"t.down": "5\n3\n"}, ["channel", "stats", "FILE", "--format", "mahimahi"],
     ["t.down:2: timestamp", "back in time"]),
    ("mahimahi_not_a_number", {"t.down": "5\nfive\n"}, ["channel", "stats", "FILE", "--format", "mahimahi"],
     ["t.down:2: timestamp"]),
    ("mahimahi_empty", {"t.down": "\n\n"}, ["channel", "stats", "FILE", "--format", "mahimahi"], ["t.down", "no timestamps"]),
    ("mahimahi_window", {"t.down": "1\n2\n"}, ["channel", "stats", "FILE", "--format", "mahimahi", "--mahimahi-window", "7ms"],
     ["multiple of 5"]),
    # Markov models (channel generate MODEL).
    ("markov_overflow", {"m.json": markov(contexts=[{"context": [3], "next": [2**63, 2**63] + [0] * 13}])},
     ["channel", "generate", "FILE", "--slots", "100", "--out", "x.txt"], ["m.json", "2^64"]),
    ("markov_format", {"m.json": markov(format="other")}, ["channel", "generate", "FILE", "--slots", "100", "--out", "x.txt"],
     ["m.json", "format"]),
    ("markov_order", {"m.json": markov(order=99)}, ["channel", "generate", "FILE", "--slots", "100", "--out", "x.txt"],
     ["m.json", "order"]),
    ("markov_state", {"m.json": markov(contexts=[{"context": [15], "next": [1] * 15}])},
     ["channel", "generate", "FILE", "--slots", "100", "--out", "x.txt"], ["m.json", "state outside 0-14"]),
    ("markov_no_transitions", {"m.json": markov(contexts=[{"context": [3], "next": [0] * 15}])},
     ["channel", "generate", "FILE", "--slots", "100", "--out", "x.txt"], ["m.json", "no transitions"]),
    ("markov_not_json", {"m.json": "{order: 1"}, ["channel", "generate", "FILE", "--slots", "100", "--out", "x.txt"],
     ["m.json"]),
    # Options of the channel and EV-DO commands.
    ("fit_order_negative", {"t.txt": "3\n4\n5\n"}, ["channel", "fit", "FILE", "--order", "-1", "--out", "m.json"], ["--order"]),
    ("fit_order_huge", {"t.txt": "3\n4\n5\n"}, ["channel", "fit", "FILE", "--order", "99", "--out", "m.json"], ["--order"]),
    ("fit_too_short", {"t.txt": "3\n"}, ["channel", "fit", "FILE", "--order", "2", "--out", "m.json"], ["t.txt", "too short"]),
    ("fit_regimes_zero", {"t.txt": "3\n4\n5\n"}, ["channel", "fit", "FILE", "--order", "1", "--regimes", "0", "--out", "m.json"],
     ["--regimes"]),
    ("fit_regimes_above_windows", {"t.txt": "3\n4\n5\n" * 10}, ["channel", "fit", "FILE", "--order", "1", "--regimes", "2",
     "--regime-window", "20slots", "--out", "m.json"], ["t.txt", "fewer than the 2 regimes"]),
    ("fit_regime_window_bad", {"t.txt": "3\n4\n5\n"}, ["channel", "fit", "FILE", "--order", "1", "--regimes", "2",
     "--regime-window", "1.5ms", "--out", "m.json"], ["--regime-window"]),
    ("regime_model_bad_transitions", {"m.json": '{"format": "cdmasim-regime-markov", "window_slots": 10, "regimes": '
     '[{"chain": {"format": "cdmasim-markov", "order": 1, "contexts": [{"context": [3], "next": [0,0,0,1,0,0,0,0,0,0,0,0,0,0,0]}]}}], '
     '"transitions": [[1, 2]]}'}, ["channel", "generate", "FILE", "--slots", "100", "--out", "x.txt"], ["m.json", "transitions"]),
    ("generate_slots_huge", {}, ["channel", "generate", "mobile", "--slots", "1e13", "--out", "x.drc"], ["--slots"]),
    ("generate_unknown_source", {}, ["channel", "generate", "nosuchpreset", "--slots", "100", "--out", "x.drc"],
     ["nosuchpreset"]),
    ("generate_constant_15", {}, ["channel", "generate", "constant:15", "--slots", "100", "--out", "x.drc"], ["constant"]),
    ("stats_max_lag_huge", {"t.txt": "3\n4\n"}, ["channel", "stats", "FILE", "--max-lag", "1e9"], ["--max-lag"]),
    ("stats_missing_file", {}, ["channel", "stats", "absent.txt"], ["absent.txt"]),
    ("schedule_users_zero", {}, ["evdo", "schedule", "--preset", "stationary", "--users", "0"], ["--users"]),
    ("schedule_users_huge", {}, ["evdo", "schedule", "--preset", "stationary", "--users", "100000"], ["--users"]),
    ("schedule_slots_huge", {}, ["evdo", "schedule", "--preset", "stationary", "--slots", "1e12"], ["--slots"]),
    ("schedule_bad_trace", {"t.txt": "3\n99\n"}, ["evdo", "schedule", "--trace", "FILE", "--users", "2"], ["t.txt:2"]),
    # Captures.
    ("pcap_not_a_capture", {"c.pcap": b"not a capture at all"}, ["pcap", "analyze", "FILE"], ["c.pcap"]),
    ("pcap_truncated_header", {"c.pcap": b"\xd4\xc3\xb2\xa1\x02\x00"}, ["pcap", "analyze", "FILE"], ["c.pcap"]),
    ("pcap_missing", {}, ["pcap", "analyze", "absent.pcap"], ["absent.pcap"]),
    # Closed forms from the command line.
    ("model_negative_rate", {}, ["model", "fluid-loss", "--mu-ll=-1kbps", "--mu-s", "1Mbps", "--mu-lh", "2Mbps",
                                  "--window", "64kB", "--buffer", "5kB", "--rtt", "300ms"], ["--mu-ll"]),
    ("model_jain_negative", {}, ["model", "jain", "1", "-2"], ["non-negative"]),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_input_gives_one_line_exit_2_and_writes_nothing(tmp_path, case):
    _, files, argv, fragments = case
    for name, content in files.items():
        p = tmp_path / name
        p.write_bytes(content) if isinstance(content, bytes) else p.write_text(content)
    first = next(iter(files), None)
    args = [first if a == "FILE" else a for a in argv]
    before = sorted(p.name for p in tmp_path.iterdir())
    p = subprocess.run([sys.executable, "-m", "cdmasim.cli", *args], cwd=tmp_path, capture_output=True, text=True,
                       timeout=120, env={"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin"})
    assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
    assert "Traceback" not in p.stderr and "panicked" not in p.stderr
    lines = p.stderr.splitlines()
    # "cdmasim: error: ..." or, for a usage error, "cdmasim channel fit: error: ...".
    assert len(lines) == 1 and re.match(r"cdmasim( [a-z-]+)*: error: ", lines[0]), p.stderr
    for f in fragments:
        assert f in lines[0], lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == before, "nothing written"


def test_the_catalogue_is_large():
    assert len(CASES) >= 40
