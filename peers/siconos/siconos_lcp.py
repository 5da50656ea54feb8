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

import json
import math
import sys
import time

METHODS = ("lemke", "pgs", "enum")


def load(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    plain = data.get("lo") is None and data.get("hi") is None and not data.get("coupling")
    return data["M"], data["q"], plain


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in METHODS:
        print("usage: siconos_lcp.py PROBLEM.json K lemke|pgs|enum", file=sys.stderr)
        return 2
    path, repeat, method = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    name = "siconos_" + method
    if repeat < 1:
        print("K must be >= 1", file=sys.stderr)
        return 2
    try:
        import numpy as np
        import siconos.numerics as sn
    except ImportError as e:
        print(json.dumps({"solver": name, "z": [], "seconds": 0, "status": "not_installed",
                          "reason": str(e)}))
        return 0
    m, q, plain = load(path)
    n = len(q)
    if not plain:
        print(json.dumps({"solver": name, "z": [], "seconds": 0, "status": "not_applicable",
                          "reason": "bounds or friction coupling (Siconos' LCP driver solves plain LCPs)"}))
        return 0
    if method == "enum" and n > 16:
        print(json.dumps({"solver": name, "z": [], "seconds": 0, "status": "not_applicable",
                          "reason": "enumeration only for n <= 16 (2^n bases)"}))
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
    times = []
    info = -1
    for k in range(repeat + 1):
        z[:] = 0.0
        w[:] = 0.0
        start = time.perf_counter()
        info = sn.linearComplementarity_driver(problem, z, w, options)
        elapsed = time.perf_counter() - start
        if k > 0:
            times.append(elapsed)
    times.sort()
    mid = len(times) // 2
    seconds = times[mid] if len(times) % 2 else 0.5 * (times[mid - 1] + times[mid])
    print(json.dumps({"solver": name,
                      "z": [float(v) if math.isfinite(v) else None for v in z],
                      "seconds": seconds,
                      "status": "solved" if info == 0 else "failed"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
