"""What the Python peer drivers of `cargo xtask bench peers` share: the
command line, the problem file, the timing and the one JSON output line
({"solver", "z", "seconds", "status"}, with "reason" where not solved).
The drivers import it from this folder (`sys.path` is set by each driver,
as the scripts run from two different interpreters)."""

import json
import math
import sys
import time


def repeat_count(text):
    """K, the number of timed solves; None (with a message) if below 1."""
    repeat = int(text)
    if repeat < 1:
        print("K must be >= 1", file=sys.stderr)
        return None
    return repeat


def load(path):
    """M, q, and whether the problem is a plain LCP (no bounds or friction
    coupling, which the peers' LCP solvers do not take)."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    plain = data.get("lo") is None and data.get("hi") is None and not data.get("coupling")
    return data["M"], data["q"], plain


def print_unsolved(name, status, reason):
    """The line of a solver that did not run: "not_installed" or
    "not_applicable", and why."""
    print(json.dumps({"solver": name, "z": [], "seconds": 0, "status": status,
                      "reason": reason}))


def print_solved(name, z, seconds, solved):
    """The line of a solver that ran; a non-finite entry of z is null (JSON
    has no NaN)."""
    print(json.dumps({"solver": name,
                      "z": [float(v) if math.isfinite(v) else None for v in z],
                      "seconds": seconds,
                      "status": "solved" if solved else "failed"}))


def median_time(solve, repeat, reset=None):
    """Runs solve() repeat + 1 times, the first a warm-up left untimed, and
    returns the median of the timed runs and solve()'s last result; reset(),
    if given, runs untimed before every solve (so each starts alike)."""
    times = []
    result = None
    for k in range(repeat + 1):
        if reset is not None:
            reset()
        start = time.perf_counter()
        result = solve()
        elapsed = time.perf_counter() - start
        if k > 0:
            times.append(elapsed)
    times.sort()
    mid = len(times) // 2
    seconds = times[mid] if len(times) % 2 else 0.5 * (times[mid - 1] + times[mid])
    return seconds, result
