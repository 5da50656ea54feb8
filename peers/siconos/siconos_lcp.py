#!/usr/bin/python3
"""Siconos numerics (Debian python3-siconos 4.4) on one problem file, for
`cargo xtask bench peers`.

Usage: siconos_lcp.py PROBLEM.json K lemke|pgs|enum

Calls linearComplementarity_driver (the C driver of siconos/numerics, through
its SWIG binding) with SICONOS_LCP_LEMKE (lexicographic Lemke), SICONOS_LCP_PGS
(projected Gauss-Seidel) or SICONOS_LCP_ENUM (enumeration of the 2^n
complementary bases, only for n <= 16). Plain LCPs only (w = M z + q, z >= 0):
Siconos' LCP driver has no bounds or friction coupling. Settings follow ours:
Lemke's pivot limit 50 n + 1000; PGS tolerance 1e-8 and 1000 sweeps.

The timed call includes the binding's conversion of z and w (numpy views, no
copy of M: the LCP object is built once, untimed). Prints one JSON line:
{"solver", "z", "seconds", "status"}.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from lcp_driver import load, median_time, print_solved, print_unsolved, repeat_count  # noqa: E402

METHODS = ("lemke", "pgs", "enum")


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in METHODS:
        print("usage: siconos_lcp.py PROBLEM.json K lemke|pgs|enum", file=sys.stderr)
        return 2
    path, repeat, method = sys.argv[1], repeat_count(sys.argv[2]), sys.argv[3]
    name = "siconos_" + method
    if repeat is None:
        return 2
    try:
        import numpy as np
        import siconos.numerics as sn
    except ImportError as e:
        print_unsolved(name, "not_installed", str(e))
        return 0
    m, q, plain = load(path)
    n = len(q)
    if not plain:
        print_unsolved(name, "not_applicable",
                       "bounds or friction coupling (Siconos' LCP driver solves plain LCPs)")
        return 0
    if method == "enum" and n > 16:
        print_unsolved(name, "not_applicable", "enumeration only for n <= 16 (2^n bases)")
        return 0
    problem = sn.LCP(np.array(m, dtype=float), np.array(q, dtype=float))
    solver_id = {"lemke": sn.SICONOS_LCP_LEMKE, "pgs": sn.SICONOS_LCP_PGS,
                 "enum": sn.SICONOS_LCP_ENUM}[method]
    options = sn.SolverOptions(solver_id)
    if method == "lemke":
        options.iparam[sn.SICONOS_IPARAM_MAX_ITER] = 50 * n + 1000
    elif method == "pgs":
        options.iparam[sn.SICONOS_IPARAM_MAX_ITER] = 1000
        options.dparam[sn.SICONOS_DPARAM_TOL] = 1e-8
    z = np.zeros(n)
    w = np.zeros(n)

    def reset():
        z[:] = 0.0
        w[:] = 0.0

    seconds, info = median_time(lambda: sn.linearComplementarity_driver(problem, z, w, options),
                                repeat, reset)
    print_solved(name, z, seconds, info == 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
