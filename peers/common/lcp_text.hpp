// Shared by the C++ peer drivers of `cargo xtask bench peers`: reads the
// plain-text problem that the xtask writes beside each JSON problem file,
// times a solve call, and prints the one JSON result line. Written for this
// project; no third-party code. The format (whitespace-separated tokens,
// numbers as C strtod reads them, so "inf" and "-inf" are accepted):
//
//   n
//   M: n*n numbers, row-major
//   q: n numbers                  (w = M z + q)
//   n triples "lo hi findex":     findex = -1: plain bounds [lo, hi];
//                                 findex = j:  friction coupled to row j,
//                                 bounds [-hi |z_j|, hi |z_j|] (ODE's and
//                                 Bullet's convention, lo = -hi = -mu)
//
// A file may hold a set of problems of one size, one after another: the
// drivers then solve each in turn (all of them copies_for(n, count) times
// a pass) and print the answers one after another as one z (see
// time_per_problem).
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace peers {

struct Problem {
    int n = 0;
    std::vector<double> m;  // row-major n*n
    std::vector<double> q;
    std::vector<double> lo, hi;
    std::vector<int> findex;

    bool is_plain() const {
        for (int i = 0; i < n; ++i) {
            if (lo[i] != 0.0 || !std::isinf(hi[i]) || hi[i] < 0 || findex[i] >= 0) return false;
        }
        return true;
    }
};

inline double read_number(std::istream& in, const char* what) {
    std::string token;
    if (!(in >> token)) throw std::runtime_error(std::string("missing ") + what);
    char* end = nullptr;
    double value = std::strtod(token.c_str(), &end);
    if (end == token.c_str() || *end != '\0')
        throw std::runtime_error(std::string("bad number for ") + what + ": " + token);
    return value;
}

inline Problem read_one(std::istream& in) {
    Problem p;
    double n = read_number(in, "n");
    if (!(n >= 1 && n <= 100000 && n == std::floor(n))) throw std::runtime_error("bad n");
    p.n = static_cast<int>(n);
    const size_t count = static_cast<size_t>(p.n);
    p.m.resize(count * count);
    for (auto& v : p.m) v = read_number(in, "M");
    p.q.resize(count);
    for (auto& v : p.q) v = read_number(in, "q");
    p.lo.resize(count);
    p.hi.resize(count);
    p.findex.resize(count);
    for (size_t i = 0; i < count; ++i) {
        p.lo[i] = read_number(in, "lo");
        p.hi[i] = read_number(in, "hi");
        double f = read_number(in, "findex");
        if (!(f >= -1 && f < n && f == std::floor(f))) throw std::runtime_error("bad findex");
        p.findex[i] = static_cast<int>(f);
    }
    return p;
}

// Every problem of the file (at least one; all of one size n).
inline std::vector<Problem> read_problems(const std::string& path) {
    std::ifstream file(path);
    if (!file) throw std::runtime_error("cannot open " + path);
    std::stringstream in;
    in << file.rdbuf();
    std::vector<Problem> set;
    while (!(in >> std::ws).eof()) {
        set.push_back(read_one(in));
        if (set.back().n != set.front().n) throw std::runtime_error("the problems of a set differ in n");
    }
    if (set.empty()) throw std::runtime_error("missing n");
    return set;
}

inline int parse_repeat(const char* text) {
    char* end = nullptr;
    long k = std::strtol(text, &end, 10);
    if (end == text || *end != '\0' || k < 1 || k > 1000000) throw std::runtime_error("bad repeat count");
    return static_cast<int>(k);
}

inline double median(std::vector<double> times) {
    if (times.empty()) return 0.0;
    std::sort(times.begin(), times.end());
    const size_t n = times.size();
    return n % 2 == 1 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
}

// The time of one solve, and of the clock reads around it.
struct Timing {
    // Median over the timed passes of a pass's time over its number of
    // calls (`count` times `copies_for(n, count)`).
    double seconds = 0.0;
    // The same for an empty timed region (two clock reads back to back,
    // taken right after each solve): what `seconds` holds besides the
    // solve, for the report's times net of it.
    double clock = 0.0;
};

// How many times a pass solves each of `count` problems of `n` rows: 64
// solves a pass (at least one of each) up to 32 rows, one above. A solve of
// that size takes about a microsecond or less, and on some hosts the
// clock ticks in steps of 10 ns: one call's time is then a multiple of
// the tick, while the sum of many calls, which start at unrelated phases
// of the tick, averages it out. xtask/src/peers/ours.rs applies the same
// rule to ours.
inline int copies_for(int n, int count) { return n <= 32 ? std::max(1, 64 / count) : 1; }

// Solves a set of `count` problems of `n` rows in passes, problem i by
// `prepare(i)` (untimed: loads the inputs the solver overwrites) then
// `solve(i)` (timed) then `keep(i)` (untimed, in the last pass: copies the
// answer out), every problem `copies_for(n, count)` times a pass; one pass
// to warm up and `repeat` more. A pass's time is the sum of its timed
// calls. Returns the median pass time over its number of calls, the time
// of one solve, and the clock reads' own time measured alike; `ok` is
// whether every solve of the last pass succeeded.
template <class Prepare, class Solve, class Keep>
Timing time_per_problem(int n, int count, int repeat, Prepare prepare, Solve solve, Keep keep,
                        bool& ok) {
    const int copies = copies_for(n, count);
    std::vector<double> times, clocks;
    times.reserve(static_cast<size_t>(repeat));
    clocks.reserve(static_cast<size_t>(repeat));
    for (int k = 0; k <= repeat; ++k) {
        double pass = 0.0, pass_clock = 0.0;
        ok = true;
        for (int c = 0; c < copies; ++c) {
            for (int i = 0; i < count; ++i) {
                prepare(i);
                auto start = std::chrono::steady_clock::now();
                const bool solved = solve(i);
                auto stop = std::chrono::steady_clock::now();
                pass += std::chrono::duration<double>(stop - start).count();
                auto empty_start = std::chrono::steady_clock::now();
                auto empty_stop = std::chrono::steady_clock::now();
                pass_clock += std::chrono::duration<double>(empty_stop - empty_start).count();
                ok = ok && solved;
                if (k == repeat && c == copies - 1) keep(i);
            }
        }
        if (k > 0) {
            times.push_back(pass / (count * copies));
            clocks.push_back(pass_clock / (count * copies));
        }
    }
    return Timing{median(times), median(clocks)};
}

// One JSON line: {"solver": ..., "z": [...], "seconds": s, "clock_seconds":
// c, "status": ...}. A non-finite entry of z is written as null (JSON has
// no NaN); the xtask counts it as a failed solve.
inline void print_result(const char* solver, const std::vector<double>& z, const Timing& timing,
                         const char* status) {
    std::printf("{\"solver\":\"%s\",\"z\":[", solver);
    for (size_t i = 0; i < z.size(); ++i) {
        if (i) std::printf(",");
        if (std::isfinite(z[i])) std::printf("%.17g", z[i]);
        else std::printf("null");
    }
    std::printf("],\"seconds\":%.9g,\"clock_seconds\":%.9g,\"status\":\"%s\"}\n", timing.seconds,
                timing.clock, status);
}

inline void print_skip(const char* solver, const char* reason) {
    std::printf("{\"solver\":\"%s\",\"z\":[],\"seconds\":0,\"status\":\"not_applicable\",\"reason\":\"%s\"}\n",
                solver, reason);
}

}  // namespace peers
