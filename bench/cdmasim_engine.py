"""Engine-only time of one cdmasim run: import cdmasim, load the scenario,
then time the run call alone with time.perf_counter (interpreter start-up,
imports and scenario parsing are outside the timed region).

usage: python bench/cdmasim_engine.py SCENARIO.toml
prints {"engine_s": ..., "events": ..., "api": "..."} on stdout.

The Python API is being written in parallel with this benchmark; the probe
accepts the shapes it may take and says which one it used. If none fits it
exits 1 with a one-line reason instead of guessing a number.
"""

import json
import sys
import time


def _loader(cdmasim):
    for name in ("load_scenario", "load"):
        fn = getattr(cdmasim, name, None)
        if callable(fn):
            return f"cdmasim.{name}", fn
    try:
        from cdmasim import scenario  # type: ignore
    except ImportError:
        return None, None
    for name in ("load", "load_scenario", "from_file"):
        fn = getattr(scenario, name, None)
        if callable(fn):
            return f"cdmasim.scenario.{name}", fn
    return None, None


def _events(result):
    if isinstance(result, dict):
        return result.get("events")
    ev = getattr(result, "events", None)
    if ev is None and hasattr(result, "to_dict"):
        ev = result.to_dict().get("events")
    return ev


def main(path: str) -> int:
    import cdmasim

    run = getattr(cdmasim, "run", None)
    if not callable(run):
        print("cdmasim.run is not defined", file=sys.stderr)
        return 1
    lname, load = _loader(cdmasim)
    if load is not None:
        spec = load(path)
        t0 = time.perf_counter()
        result = run(spec)
        engine = time.perf_counter() - t0
        api = f"{lname}(path) then cdmasim.run(spec)"
        includes_parse = False
    else:
        t0 = time.perf_counter()
        result = run(path)
        engine = time.perf_counter() - t0
        api = "cdmasim.run(path) (timed region includes parsing the TOML)"
        includes_parse = True
    events = _events(result)
    if not events:
        print("cdmasim.run returned no events (placeholder engine?)", file=sys.stderr)
        return 1
    print(json.dumps({"engine_s": engine, "events": events, "api": api,
                      "includes_parse": includes_parse}))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[3], file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
