"""Engine-only time of one cdmasim run: the interpreter starts and imports
the compiled core first; then only the core's run call is timed (parsing the
TOML, building the world, running the events, serialising the summary).

usage: python bench/cdmasim_engine.py SCENARIO.toml
prints {"engine_s": ..., "events": ..., "api": "..."} on stdout.
"""

import json
import sys
import time


def main(path: str) -> int:
    from cdmasim import _core

    with open(path, encoding="utf-8") as f:
        text = f.read()
    t0 = time.perf_counter()
    summary_json, _series = _core.run_scenario(text, path, None, None, None)
    engine = time.perf_counter() - t0
    events = json.loads(summary_json)["events"]
    print(json.dumps({"engine_s": engine, "events": events, "api": "cdmasim._core.run_scenario", "includes_parse": True}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
