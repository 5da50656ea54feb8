// Bullet's MLCP solvers (Bullet 3.24, Debian libbullet-dev, double-precision
// build libBulletDynamics-float64) on one problem file, for
// `cargo xtask bench peers`. Usage: bullet_mlcp PROBLEM.txt K dantzig|lemke
//
// dantzig: btSolveDantzigLCP (BulletDynamics/MLCPSolvers/btDantzigLCP.h),
//   the routine btDantzigSolver::solveMLCP calls after copying its inputs;
//   called directly so that the copies stay outside the timed call, as for
//   ODE (whose lcp.cpp it derives from). A x = b + w, friction rows coupled
//   by findex. Returns false on failure. Symmetric problems only (the xtask
//   checks): it assumes a symmetric A.
// lemke: btLemkeAlgorithm (btLemkeAlgorithm.h, after Lloyd 2005), the core
//   of btLemkeSolver with m_useLoHighBounds = false, which is Bullet's plain
//   LCP path (w = M z + q, z >= 0). Plain LCPs only; the pivot limit is
//   ours (50 n + 1000) instead of Bullet's default 1000.
#include <BulletDynamics/MLCPSolvers/btDantzigLCP.h>
#include <BulletDynamics/MLCPSolvers/btLemkeAlgorithm.h>

#include <cstring>

#include "../common/lcp_text.hpp"

namespace {

int run_dantzig(const peers::Problem& p, int repeat) {
    const int n = p.n;
    std::vector<btScalar> a(p.m.size()), x(n), b(n), w(n), lo(n), hi(n);
    std::vector<int> findex(n);
    btDantzigScratchMemory scratch;
    auto prepare = [&] {
        // The solver factors A in place and rewrites b, lo and hi.
        std::copy(p.m.begin(), p.m.end(), a.begin());
        for (int i = 0; i < n; ++i) {
            b[i] = -p.q[i];  // A x = b + w with w = M z + q: b = -q
            x[i] = 0.0;
            lo[i] = p.lo[i];
            hi[i] = p.hi[i];
            findex[i] = p.findex[i];
        }
    };
    auto solve = [&] {
        return btSolveDantzigLCP(n, a.data(), x.data(), b.data(), w.data(), 0, lo.data(), hi.data(),
                                 findex.data(), scratch);
    };
    bool ok = false;
    const double seconds = peers::time_median(repeat, prepare, solve, ok);
    // btDantzigSolver::solveMLCP also rejects a NaN answer (and, a game-scale
    // heuristic left out here, any |x| >= 1000).
    const bool finite = std::all_of(x.begin(), x.end(), [](double v) { return std::isfinite(v); });
    peers::print_result("bullet_dantzig", std::vector<double>(x.begin(), x.end()), seconds,
                        ok && finite ? "solved" : "failed");
    return 0;
}

int run_lemke(const peers::Problem& p, int repeat) {
    if (!p.is_plain()) {
        peers::print_skip("bullet_lemke", "bounds or friction coupling (btLemkeAlgorithm solves plain LCPs)");
        return 0;
    }
    const int n = p.n;
    btMatrixXu m(n, n);
    btVectorXu q(n);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) m.setElem(i, j, p.m[i * n + j]);
        q[i] = p.q[i];
    }
    btLemkeAlgorithm lemke(m, q, 0);
    btVectorXu solution;
    const unsigned max_pivots = 50u * static_cast<unsigned>(n) + 1000u;
    auto prepare = [&] { lemke.setSystem(m, q); };
    auto solve = [&] {
        solution = lemke.solve(max_pivots);
        return lemke.getInfo() == 0;
    };
    bool ok = false;
    const double seconds = peers::time_median(repeat, prepare, solve, ok);
    // solve() returns (w, z) stacked, 2n entries (or fewer on failure).
    std::vector<double> z;
    if (solution.size() == 2 * n) {
        for (int i = 0; i < n; ++i) z.push_back(solution[n + i]);
    }
    // btLemkeSolver::solveMLCP rejects a NaN answer that the algorithm
    // itself reports as solved; the same check here.
    const bool finite = std::all_of(z.begin(), z.end(), [](double v) { return std::isfinite(v); });
    peers::print_result("bullet_lemke", z, seconds, ok && finite && !z.empty() ? "solved" : "failed");
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4 || (std::strcmp(argv[3], "dantzig") != 0 && std::strcmp(argv[3], "lemke") != 0)) {
        std::fprintf(stderr, "usage: bullet_mlcp PROBLEM.txt K dantzig|lemke\n");
        return 2;
    }
    try {
        const peers::Problem p = peers::read_problem(argv[1]);
        const int repeat = peers::parse_repeat(argv[2]);
        return std::strcmp(argv[3], "dantzig") == 0 ? run_dantzig(p, repeat) : run_lemke(p, repeat);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bullet_mlcp: %s\n", e.what());
        return 2;
    }
}
