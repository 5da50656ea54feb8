// Bullet's MLCP solvers (Bullet 3.24, Debian libbullet-dev, double-precision
// build libBulletDynamics-float64) on one problem file (one problem or a
// set, see lcp_text.hpp), for `cargo xtask bench peers`. Usage:
// bullet_mlcp PROBLEM.txt K dantzig|lemke
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

int run_dantzig(const std::vector<peers::Problem>& set, int repeat) {
    const int n = set.front().n;
    std::vector<btScalar> a(static_cast<size_t>(n) * n), x(n), b(n), w(n), lo(n), hi(n);
    std::vector<int> findex(n);
    std::vector<double> z(set.size() * n);
    btDantzigScratchMemory scratch;
    auto prepare = [&](int k) {
        // The solver factors A in place and rewrites b, lo and hi.
        const peers::Problem& p = set[k];
        std::copy(p.m.begin(), p.m.end(), a.begin());
        for (int i = 0; i < n; ++i) {
            b[i] = -p.q[i];  // A x = b + w with w = M z + q: b = -q
            x[i] = 0.0;
            lo[i] = p.lo[i];
            hi[i] = p.hi[i];
            findex[i] = p.findex[i];
        }
    };
    auto solve = [&](int) {
        return btSolveDantzigLCP(n, a.data(), x.data(), b.data(), w.data(), 0, lo.data(), hi.data(),
                                 findex.data(), scratch);
    };
    auto keep = [&](int k) { std::copy(x.begin(), x.end(), z.begin() + static_cast<long>(k) * n); };
    bool ok = false;
    const peers::Timing timing =
        peers::time_per_problem(set.front().n, static_cast<int>(set.size()), repeat, prepare, solve,
                                keep, ok);
    // btDantzigSolver::solveMLCP also rejects a NaN answer (and, a game-scale
    // heuristic left out here, any |x| >= 1000).
    const bool finite = std::all_of(z.begin(), z.end(), [](double v) { return std::isfinite(v); });
    peers::print_result("bullet_dantzig", z, timing, ok && finite ? "solved" : "failed");
    return 0;
}

int run_lemke(const std::vector<peers::Problem>& set, int repeat) {
    for (const peers::Problem& p : set) {
        if (!p.is_plain()) {
            peers::print_skip("bullet_lemke",
                              "bounds or friction coupling (btLemkeAlgorithm solves plain LCPs)");
            return 0;
        }
    }
    const int n = set.front().n;
    std::vector<btMatrixXu> ms;
    std::vector<btVectorXu> qs;
    for (const peers::Problem& p : set) {
        btMatrixXu m(n, n);
        btVectorXu q(n);
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j) m.setElem(i, j, p.m[i * n + j]);
            q[i] = p.q[i];
        }
        ms.push_back(m);
        qs.push_back(q);
    }
    btLemkeAlgorithm lemke(ms.front(), qs.front(), 0);
    btVectorXu solution;
    const unsigned max_pivots = 50u * static_cast<unsigned>(n) + 1000u;
    // solve() returns (w, z) stacked, 2n entries (or fewer on failure).
    std::vector<double> z;
    bool complete = true;
    auto prepare = [&](int k) { lemke.setSystem(ms[k], qs[k]); };
    auto solve = [&](int) {
        solution = lemke.solve(max_pivots);
        return lemke.getInfo() == 0;
    };
    auto keep = [&](int) {
        if (solution.size() != 2 * n) {
            complete = false;
            return;
        }
        for (int i = 0; i < n; ++i) z.push_back(solution[n + i]);
    };
    bool ok = false;
    const peers::Timing timing =
        peers::time_per_problem(set.front().n, static_cast<int>(set.size()), repeat, prepare, solve,
                                keep, ok);
    // btLemkeSolver::solveMLCP rejects a NaN answer that the algorithm
    // itself reports as solved; the same check here.
    const bool finite = std::all_of(z.begin(), z.end(), [](double v) { return std::isfinite(v); });
    if (!complete) z.clear();
    peers::print_result("bullet_lemke", z, timing, ok && finite && complete ? "solved" : "failed");
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4 || (std::strcmp(argv[3], "dantzig") != 0 && std::strcmp(argv[3], "lemke") != 0)) {
        std::fprintf(stderr, "usage: bullet_mlcp PROBLEM.txt K dantzig|lemke\n");
        return 2;
    }
    try {
        const std::vector<peers::Problem> set = peers::read_problems(argv[1]);
        const int repeat = peers::parse_repeat(argv[2]);
        return std::strcmp(argv[3], "dantzig") == 0 ? run_dantzig(set, repeat) : run_lemke(set, repeat);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bullet_mlcp: %s\n", e.what());
        return 2;
    }
}
