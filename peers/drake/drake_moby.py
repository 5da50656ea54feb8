"""Drake's MobyLcpSolver (PyPI `drake`) on one problem file, for
`cargo xtask bench peers`.

Usage: drake_moby.py PROBLEM.json K

pydrake exposes MobyLcpSolver only through the generic
SolverInterface.Solve(MathematicalProgram); its SolveLcpLemke and SolveLcpFast
are C++ methods in the wheel's libdrake.so, and the wheel ships no C++
headers, so a C++ driver is not possible without Drake's source. The program
holds one LinearComplementarityConstraint (w = M z + q, z >= 0) and is built
once, untimed; the timed call is Solve(prog), which includes Drake's program
bookkeeping on top of the Lemke solve. Plain LCPs only. Prints one JSON line:
{"solver", "z", "seconds", "status"}.
"""

import json
import math
import sys
import time


def main():
    if len(sys.argv) != 3:
        print("usage: drake_moby.py PROBLEM.json K", file=sys.stderr)
        return 2
    path, repeat = sys.argv[1], int(sys.argv[2])
    if repeat < 1:
        print("K must be >= 1", file=sys.stderr)
        return 2
    name = "drake_moby"
    try:
        import numpy as np
        from pydrake.solvers import MathematicalProgram, MobyLcpSolver
    except ImportError as e:
        print(json.dumps({"solver": name, "z": [], "seconds": 0, "status": "not_installed",
                          "reason": str(e)}))
        return 0
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if data.get("lo") is not None or data.get("hi") is not None or data.get("coupling"):
        print(json.dumps({"solver": name, "z": [], "seconds": 0, "status": "not_applicable",
                          "reason": "bounds or friction coupling (MobyLcpSolver solves plain LCPs)"}))
        return 0
    m = np.array(data["M"], dtype=float)
    q = np.array(data["q"], dtype=float)
    prog = MathematicalProgram()
    z = prog.NewContinuousVariables(len(q), "z")
    prog.AddLinearComplementarityConstraint(m, q, z)
    solver = MobyLcpSolver()
    times = []
    result = None
    for k in range(repeat + 1):
        start = time.perf_counter()
        result = solver.Solve(prog)
        elapsed = time.perf_counter() - start
        if k > 0:
            times.append(elapsed)
    times.sort()
    mid = len(times) // 2
    seconds = times[mid] if len(times) % 2 else 0.5 * (times[mid - 1] + times[mid])
    values = result.GetSolution(z)
    print(json.dumps({"solver": name,
                      "z": [float(v) if math.isfinite(v) else None for v in values],
                      "seconds": seconds,
                      "status": "solved" if result.is_success() else "failed"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
