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

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from lcp_driver import load, median_time, print_solved, print_unsolved, repeat_count  # noqa: E402


def main():
    if len(sys.argv) != 3:
        print("usage: drake_moby.py PROBLEM.json K", file=sys.stderr)
        return 2
    path, repeat = sys.argv[1], repeat_count(sys.argv[2])
    if repeat is None:
        return 2
    name = "drake_moby"
    try:
        import numpy as np
        from pydrake.solvers import MathematicalProgram, MobyLcpSolver
    except ImportError as e:
        print_unsolved(name, "not_installed", str(e))
        return 0
    m, q, plain = load(path)
    if not plain:
        print_unsolved(name, "not_applicable",
                       "bounds or friction coupling (MobyLcpSolver solves plain LCPs)")
        return 0
    m = np.array(m, dtype=float)
    q = np.array(q, dtype=float)
    prog = MathematicalProgram()
    z = prog.NewContinuousVariables(len(q), "z")
    prog.AddLinearComplementarityConstraint(m, q, z)
    solver = MobyLcpSolver()
    seconds, result = median_time(lambda: solver.Solve(prog), repeat)
    print_solved(name, result.GetSolution(z), seconds, result.is_success())
    return 0


if __name__ == "__main__":
    sys.exit(main())
