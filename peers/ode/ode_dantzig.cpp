// ODE's Dantzig LCP solver (libode 0.16, Debian libode-dev) on one problem
// file (one problem or a set, see lcp_text.hpp), for `cargo xtask bench
// peers`. Usage: ode_dantzig PROBLEM.txt K
//
// ODE solves A x = b + w with lo <= x <= hi and friction rows coupled via
// findex (ode/src/lcp.h). Its entry point dxSolveLCP is exported by
// libode.so but declared only in ODE's private headers, so it is declared
// here from the exported symbol; it takes a work arena, made with the
// exported dxAllocateTemporaryWorldProcessMemArena. The arena's bump pointer
// is reset with ODE's inline ResetState, which is not exported: its effect
// (current offset = start of the block, the first two pointer fields of the
// arena in libode 0.16.2, checked by disassembly) is repeated in
// reset_arena below, guarded by a version check.
//
// Without DIAGONAL this is the bare solver on our matrix. ODE's world
// stepper adds its constraint force mixing to the diagonal before calling
// dxSolveLCP (step.cpp: A_ii += cfm / h at force level, which is + cfm / h
// on our impulse-level matrix); DIAGONAL (>= 0) adds such a value to the
// solver's copy of A, so the answer is judged against the unmodified M.
// dxSolveLCP reports nothing; the xtask judges its answer with `verify`.
// It assumes a symmetric A, so the xtask gives it symmetric problems only.
#include <ode/ode.h>

#include <cstring>

#include "../common/lcp_text.hpp"

struct dxWorldProcessMemArena;
struct dxWorldProcessMemoryManager;
struct dxWorldProcessMemoryReserveInfo;

// Exported by libode.so (0.16): see the header comment.
void dxSolveLCP(dxWorldProcessMemArena* arena, unsigned n, dReal* A, dReal* pairs_bx,
                dReal* outer_w, unsigned nub, dReal* pairs_lohi, int* findex);
size_t dxEstimateSolveLCPMemoryReq(unsigned n, bool outer_w_available);
dxWorldProcessMemArena* dxAllocateTemporaryWorldProcessMemArena(
    size_t memreq, const dxWorldProcessMemoryManager* manager,
    const dxWorldProcessMemoryReserveInfo* reserve);
void dxFreeTemporaryWorldProcessMemArena(dxWorldProcessMemArena* arena);

namespace {

// ODE 0.16's dxWorldProcessMemArena starts with {current, begin, end, ...}.
bool reset_arena(dxWorldProcessMemArena* arena, size_t memreq) {
    void** fields = reinterpret_cast<void**>(arena);
    char* begin = static_cast<char*>(fields[1]);
    char* end = static_cast<char*>(fields[2]);
    if (begin == nullptr || end < begin || static_cast<size_t>(end - begin) < memreq) return false;
    fields[0] = fields[1];
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3 && argc != 4) {
        std::fprintf(stderr, "usage: ode_dantzig PROBLEM.txt K [DIAGONAL]\n");
        return 2;
    }
    if (std::strcmp(dODE_VERSION, "0.16.2") != 0) {
        peers::print_skip("ode_dantzig", "the arena reset is written for libode 0.16.2");
        return 0;
    }
    try {
        const std::vector<peers::Problem> set = peers::read_problems(argv[1]);
        const int repeat = peers::parse_repeat(argv[2]);
        double diagonal = 0.0;
        if (argc == 4) {
            char* end = nullptr;
            diagonal = std::strtod(argv[3], &end);
            if (end == argv[3] || *end != '\0' || !(diagonal >= 0.0) || !std::isfinite(diagonal))
                throw std::runtime_error("DIAGONAL must be a finite number >= 0");
        }
        dInitODE2(0);
        const unsigned n = static_cast<unsigned>(set.front().n);
        const unsigned nskip = dPAD(n);
        const size_t memreq = dxEstimateSolveLCPMemoryReq(n, true);
        dxWorldProcessMemArena* arena = dxAllocateTemporaryWorldProcessMemArena(memreq, nullptr, nullptr);
        if (arena == nullptr) throw std::runtime_error("cannot allocate ODE's arena");

        std::vector<dReal> a(static_cast<size_t>(n) * nskip), bx(2 * n), lohi(2 * n), w(n);
        std::vector<int> findex(n);
        std::vector<double> z(set.size() * n);
        bool arena_ok = true;
        auto prepare = [&](int k) {
            // dxSolveLCP factors A in place and rewrites b, x, lo, hi.
            const peers::Problem& p = set[k];
            for (unsigned i = 0; i < n; ++i) {
                for (unsigned j = 0; j < n; ++j) a[i * nskip + j] = p.m[i * n + j];
                a[i * nskip + i] += diagonal;
                bx[2 * i] = -p.q[i];  // A x = b + w with w = M z + q: b = -q
                bx[2 * i + 1] = 0.0;
                lohi[2 * i] = p.lo[i];
                lohi[2 * i + 1] = p.hi[i];
                findex[i] = p.findex[i];
            }
            arena_ok = arena_ok && reset_arena(arena, memreq);
        };
        auto solve = [&](int) {
            if (!arena_ok) return false;
            dxSolveLCP(arena, n, a.data(), bx.data(), w.data(), 0, lohi.data(), findex.data());
            return true;
        };
        auto keep = [&](int k) {
            for (unsigned i = 0; i < n; ++i) z[k * n + i] = bx[2 * i + 1];
        };
        bool ok = false;
        const peers::Timing timing = peers::time_per_problem(
            set.front().n, static_cast<int>(set.size()), repeat, prepare, solve, keep, ok);
        dxFreeTemporaryWorldProcessMemArena(arena);
        if (!arena_ok) {
            peers::print_skip("ode_dantzig", "unexpected layout of ODE's work arena");
            return 0;
        }
        peers::print_result(argc == 4 ? "ode_dantzig_cfm" : "ode_dantzig", z, timing, "returned");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ode_dantzig: %s\n", e.what());
        return 2;
    }
    return 0;
}
