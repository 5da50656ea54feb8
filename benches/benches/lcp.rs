//! LCP solve times beside a yardstick measured in the same run: a dense
//! factorisation (faer) of the same M, or for single sweeps, one dense
//! M-vector product. `cargo xtask bench` reports each function as a ratio
//! to its group's yardstick (the `faer_*` function), which survives the
//! noise of a shared machine, and adds the scaled natural residual each
//! solver achieved (recorded in the setup, see `contact_benches::Notes`).
//!
//! Groups (issue 3):
//! - `lcp_random_pd`: dense random SPD problems, n = 16, 64, 256, 1024;
//!   Lemke, Dantzig and projected Gauss-Seidel against faer's Cholesky;
//!   at n <= 64 also Dantzig with the block guess off (`dantzig_pivoting`).
//! - `lcp_random_pd_set`: 64 different random SPD problems per iteration,
//!   n = 4, 16 and 64, Dantzig against faer's Cholesky of each: one problem
//!   solved over and over lets the branch predictors learn its path.
//! - `lcp_sliding_box_set`: 64 box-friction problems of one cube sliding
//!   and spinning on the ground per iteration (`sliding_box_set`, n = 12),
//!   Dantzig with its defaults and with the guesses off (`dantzig_passes`:
//!   the coupling passes alone, without the restarted coupled guess:
//!   `block_guess_from` at `usize::MAX`), against faer's Cholesky of each
//!   `M + delta I` as in `lcp_contact_psd`.
//! - `lcp_sliding_stack_set`: 32 problems per iteration of stacks of 2 and
//!   3 cubes, each sliding and spinning on the one below
//!   (`sliding_stack_set`, n = 24, 36): Dantzig (the coupling passes,
//!   restarted by the coupled guess) and the `Solver` policy (Lemke where
//!   Dantzig gives up), against the same yardstick.
//! - `lcp_contact_psd`: the bounded-friction problem `M = J W J'` of unit
//!   cubes resting on the ground and on each other after 3 steps from rest:
//!   one cube, one tower of 5, 4 and 17 towers of 5 side by side (4 contacts
//!   per face, a normal and 2 coupled tangent rows each: n = 12, 60, 240,
//!   1020; symmetric PSD and singular). Dantzig, Lemke on the box LCP's
//!   standard form (`lemke_box`, `Lemke::solve_box`), the `Solver` policy
//!   (`policy`: Dantzig first, then Lemke), dense and matrix-free
//!   projected Gauss-Seidel on the box LCP, Lemke on its frictionless
//!   normal block (a third of the rows; listed at the full n), against faer's Cholesky of `M + delta I`
//!   with `delta = 1e-9 max_i M_ii` (the regularisation makes the singular M
//!   factorisable and moves no entry by more than a part in 1e9).
//! - `lcp_normal_stack`: the frictionless normal block of the default box
//!   stack of 5, 20 and 50 cubes after 10 box-friction steps (n = 20, 80,
//!   200; symmetric PSD and singular, 4 contacts per face: the peers'
//!   `normal_stack_*`). Dantzig with its defaults and with the block guess
//!   off (`dantzig_pivoting`), against faer's Cholesky of `M + delta I` as
//!   in `lcp_contact_psd`.
//! - `lcp_box_stack`: the non-symmetric Anitescu-Potra LCP of a settled
//!   stack of 1, 3, 11, 43 boxes (eight friction directions: n = 40, 120,
//!   440, 1720); Lemke against
//!   faer's partial-pivoting LU.
//! - `lcp_pyramid_step`: the box-friction step problem of wall pyramids of
//!   unit cubes (`pyramid_step`: base 6 and 10, n = 432 and 1200; sliding
//!   and sticking contacts, 4 per half face, singular PSD), at step 10 of
//!   a scene stepped with the geometry held fixed. Block principal
//!   pivoting on the factored problem (`FactoredBoxLcp`; body-space sparse
//!   factors, the symbolic analysis kept between the timed solves, as
//!   between a simulator's steps) cold (`bpp_cold`: every row free, centre
//!   0) and warm-started from step 9's answer, its active set and impulses
//!   (`bpp_warm`), beside Dantzig on the dense problem, against faer's
//!   Cholesky of the dense `M + delta I` as in `lcp_contact_psd`.
//! - `pgs_sweep`: one projected Gauss-Seidel sweep on the random SPD
//!   problems, against one dense M-vector product (faer, and a plain loop
//!   over the columns): the target of issue 3 is a sweep within 2x of a
//!   product. `pgs_sweep` starts from the iterate after 10 sweeps of the LCP
//!   (rows at their bound are skipped, as in a solve); `pgs_sweep_every_row`
//!   lifts the bounds so every row moves, the most a sweep can cost. Both
//!   include the n reciprocals of the diagonal that `sweep` recomputes.

use contact_benches::{
    Notes, ROWS_PER_BOX, SLIDING_SEED, SweepCases, box_stack_lcp, box_towers_problem, faer_matvec,
    pgs_sweep_cases, pyramid_step, random_positive_definite, random_positive_definite_set,
    settled_stack, sliding_box_set, sliding_stack_sets,
};
use contact_lcp::faer::linalg::solvers::Solve;
use contact_lcp::faer::{Mat, Side};
use contact_lcp::{
    BlockPivoting, BoxLcp, Dantzig, DantzigParams, FactoredBoxLcp, Lcp, LcpSolution, Lemke,
    LemkeParams, PgsParams, ProjectedGaussSeidel, RowState, Solver,
};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;

type Group<'a> = BenchmarkGroup<'a, WallTime>;

/// Benchmarks Lemke on `lcp`, listed at size `n`.
fn lemke(c: &mut Group<'_>, notes: &mut Notes, name: &str, n: usize, lcp: &Lcp) {
    let mut solver = Lemke::new(LemkeParams::default());
    let mut out = LcpSolution::default();
    let first = solver.solve_into(lcp, &mut out);
    notes.record(name, n, first.as_ref().map(|()| &out));
    c.bench_with_input(BenchmarkId::new(name, n), lcp, |b, lcp| {
        b.iter(|| solver.solve_into(black_box(lcp), &mut out).is_ok())
    });
}

fn dantzig(c: &mut Group<'_>, notes: &mut Notes, problem: &BoxLcp) {
    dantzig_with(c, notes, "dantzig", DantzigParams::default(), problem);
}

/// Benchmarks Dantzig with `params` under `name`.
fn dantzig_with(
    c: &mut Group<'_>,
    notes: &mut Notes,
    name: &str,
    params: DantzigParams,
    problem: &BoxLcp,
) {
    let n = problem.dim();
    let mut solver = Dantzig::new(params);
    let mut out = LcpSolution::default();
    let first = solver.solve_into(problem, &mut out);
    notes.record(name, n, first.as_ref().map(|()| &out));
    c.bench_with_input(BenchmarkId::new(name, n), problem, |b, problem| {
        b.iter(|| solver.solve_into(black_box(problem), &mut out).is_ok())
    });
}

/// Lemke's method on the standard form of the box problem
/// (`Lemke::solve_box_into`), cold and warm-started from its own answer,
/// and the `Solver` policy.
fn lemke_box_and_policy(c: &mut Group<'_>, notes: &mut Notes, problem: &BoxLcp) {
    let n = problem.dim();
    let mut solver = Lemke::new(LemkeParams::default());
    let mut out = LcpSolution::default();
    let first = solver.solve_box_into(problem, &mut out);
    notes.record("lemke_box", n, first.as_ref().map(|()| &out));
    c.bench_with_input(BenchmarkId::new("lemke_box", n), problem, |b, problem| {
        b.iter(|| solver.solve_box_into(black_box(problem), &mut out).is_ok())
    });
    // Warm-started from the cold answer, as a time step from the last
    // step's answer would be at best (`Lemke::solve_box_warm_into`).
    let guess = out.z.clone();
    let first = solver.solve_box_warm_into(problem, &guess, &mut out);
    notes.record("lemke_box_warm", n, first.as_ref().map(|()| &out));
    c.bench_with_input(
        BenchmarkId::new("lemke_box_warm", n),
        problem,
        |b, problem| {
            b.iter(|| {
                solver
                    .solve_box_warm_into(black_box(problem), &guess, &mut out)
                    .is_ok()
            })
        },
    );
    let mut policy = Solver::default();
    let first = policy.solve_into(problem, &mut out);
    notes.record("policy", n, first.as_ref().map(|()| &out));
    c.bench_with_input(BenchmarkId::new("policy", n), problem, |b, problem| {
        b.iter(|| policy.solve_into(black_box(problem), &mut out).is_ok())
    });
}

/// Projected Gauss-Seidel with its default settings (tolerance 1e-8, at
/// most 1000 sweeps) from z = 0, as `cargo xtask solve-lcp --method pgs`.
fn pgs_dense(c: &mut Group<'_>, notes: &mut Notes, name: &str, problem: &BoxLcp) {
    let n = problem.dim();
    let mut solver = ProjectedGaussSeidel::new(PgsParams::default());
    let mut out = LcpSolution::default();
    let first = solver.solve_into(problem, None, &mut out);
    notes.record(name, n, first.as_ref().map(|()| &out));
    c.bench_with_input(BenchmarkId::new(name, n), problem, |b, problem| {
        b.iter(|| {
            solver
                .solve_into(black_box(problem), None, &mut out)
                .is_ok()
        })
    });
}

/// faer's Cholesky factor and solve of `m` (plus `delta I`) with right-hand
/// side `-q`; the shifted copy is made outside the timing.
fn faer_cholesky(c: &mut Group<'_>, m: &Mat<f64>, q: &[f64], delta: f64) {
    let n = q.len();
    let shifted = Mat::from_fn(n, n, |i, j| m[(i, j)] + if i == j { delta } else { 0.0 });
    let rhs = Mat::from_fn(n, 1, |i, _| -q[i]);
    c.bench_with_input(BenchmarkId::new("faer_cholesky", n), &shifted, |b, m| {
        b.iter(|| black_box(m).llt(Side::Lower).expect("SPD").solve(&rhs))
    });
}

/// Dantzig with the block guess off: the one-row pivoting alone.
fn pivoting_only() -> DantzigParams {
    DantzigParams {
        block_guess_from: usize::MAX,
        ..DantzigParams::default()
    }
}

fn random_pd(c: &mut Criterion) {
    let mut group = c.benchmark_group("lcp_random_pd");
    let mut notes = Notes::new("lcp_random_pd");
    for n in [16, 64, 256, 1024] {
        if n >= 256 {
            group.sample_size(10);
        }
        let (m, q) = random_positive_definite(n, 0x5EED + n as u64);
        faer_cholesky(&mut group, &m, &q, 0.0);
        let lcp = Lcp::new(m, q).expect("finite");
        lemke(&mut group, &mut notes, "lemke", n, &lcp);
        let problem = BoxLcp::from_lcp(&lcp);
        dantzig(&mut group, &mut notes, &problem);
        if n <= 64 {
            // The one-row pivoting alone, where the small problems' guess
            // (n <= 47) or the block guess (n >= 48) would answer.
            dantzig_with(
                &mut group,
                &mut notes,
                "dantzig_pivoting",
                pivoting_only(),
                &problem,
            );
        }
        pgs_dense(&mut group, &mut notes, "pgs", &problem);
    }
    notes.write();
    group.finish();
}

/// Dantzig and faer's Cholesky on a set of different problems of one size,
/// each solved once per iteration. Solving one problem over and over lets
/// the branch predictors learn its pivoting path, which no simulation
/// gives them (consecutive islands differ); on these sets the branches that
/// follow the data cost what they cost in use.
fn random_pd_sets(c: &mut Criterion) {
    let mut group = c.benchmark_group("lcp_random_pd_set");
    let mut notes = Notes::new("lcp_random_pd_set");
    for n in [4, 16, 64] {
        let set = random_positive_definite_set(n, SET_SIZE);
        let problems: Vec<BoxLcp> = set
            .iter()
            .map(|(m, q)| BoxLcp::from_lcp(&Lcp::new(m.clone(), q.clone()).expect("finite")))
            .collect();
        let factors: Vec<(Mat<f64>, Mat<f64>)> = set
            .iter()
            .map(|(m, q)| (m.clone(), Mat::from_fn(n, 1, |i, _| -q[i])))
            .collect();
        faer_cholesky_on_set(&mut group, n, &factors);
        dantzig_on_set(
            &mut group,
            &mut notes,
            "dantzig",
            DantzigParams::default(),
            &problems,
        );
    }
    notes.write();
    group.finish();
}

/// faer's Cholesky factor and solve of every `(M, -q)` of `factors` (one
/// size `n`) in turn: the yardstick of a set.
fn faer_cholesky_on_set(group: &mut Group<'_>, n: usize, factors: &[(Mat<f64>, Mat<f64>)]) {
    group.bench_with_input(BenchmarkId::new("faer_cholesky", n), factors, |b, set| {
        b.iter(|| {
            for (m, rhs) in set {
                black_box(black_box(m).llt(Side::Lower).expect("SPD").solve(rhs));
            }
        })
    });
}

/// Benchmarks Dantzig with `params` on every problem of `problems` (one
/// size) in turn, listed at that size; the notes hold the set's worst
/// residual.
fn dantzig_on_set(
    group: &mut Group<'_>,
    notes: &mut Notes,
    name: &str,
    params: DantzigParams,
    problems: &[BoxLcp],
) {
    let mut solver = Dantzig::new(params);
    solver_on_set(group, notes, name, problems, |p, out| {
        solver.solve_into(p, out)
    });
}

/// Benchmarks `solve` on every problem of `problems` (one size) in turn,
/// listed at that size as `name`; the notes hold the set's worst residual
/// (from a first pass outside the timing).
fn solver_on_set(
    group: &mut Group<'_>,
    notes: &mut Notes,
    name: &str,
    problems: &[BoxLcp],
    mut solve: impl FnMut(&BoxLcp, &mut LcpSolution) -> Result<(), contact_lcp::LcpError>,
) {
    let n = problems.first().map_or(0, BoxLcp::dim);
    let mut out = LcpSolution::default();
    let mut worst: Option<(f64, Result<LcpSolution, contact_lcp::LcpError>)> = None;
    for problem in problems {
        let outcome = solve(problem, &mut out).map(|()| out.clone());
        let residual = outcome
            .as_ref()
            .map_or(f64::INFINITY, |o| o.report.natural_residual);
        if worst.as_ref().is_none_or(|(r, _)| residual > *r) {
            worst = Some((residual, outcome));
        }
    }
    if let Some((_, outcome)) = &worst {
        notes.record(name, n, outcome.as_ref());
    }
    group.bench_with_input(BenchmarkId::new(name, n), problems, |b, set| {
        // Every problem is solved, whatever the others gave (a count, not
        // `all`, which would stop at the first failure and time fewer).
        b.iter(|| {
            set.iter()
                .filter(|problem| solve(black_box(problem), &mut out).is_ok())
                .count()
        })
    });
}

/// Problems in each set of `lcp_random_pd_set`.
const SET_SIZE: usize = 64;

/// A set of sliding cubes (see the module doc): the coupled problem is
/// what a scene in motion solves most, and the first coupling pass does
/// not certify there.
fn sliding_boxes(c: &mut Criterion) {
    let problems = sliding_box_set(SET_SIZE, SLIDING_SEED).expect("the scene steps");
    // The coupling passes alone: no block guess and no restarted coupled
    // guess.
    let passes = DantzigParams {
        block_guess_from: usize::MAX,
        ..DantzigParams::default()
    };
    let solvers = [
        ("dantzig", DantzigParams::default()),
        ("dantzig_passes", passes),
    ];
    sliding_group(c, "lcp_sliding_box_set", &[problems], &solvers, false);
}

/// Sets of sliding stacks of 2 and 3 cubes (see the module doc): between
/// the whole guess and the block guesses, the coupling passes' ground.
fn sliding_stacks(c: &mut Criterion) {
    let sets = sliding_stack_sets().expect("the scenes step");
    let solvers = [("dantzig", DantzigParams::default())];
    sliding_group(c, "lcp_sliding_stack_set", &sets, &solvers, true);
}

/// The group `name` on each set of `sets` (one size each): faer's Cholesky
/// of each `M + delta I` as in `lcp_contact_psd`, each of `solvers`, and
/// the `Solver` policy if `policy`.
fn sliding_group(
    c: &mut Criterion,
    name: &str,
    sets: &[Vec<BoxLcp>],
    solvers: &[(&str, DantzigParams)],
    policy: bool,
) {
    let mut group = c.benchmark_group(name);
    let mut notes = Notes::new(name);
    for problems in sets {
        let n = problems[0].dim();
        let factors: Vec<(Mat<f64>, Mat<f64>)> = problems
            .iter()
            .map(|p| {
                let m = p.m();
                let max_diag = (0..n).fold(0.0_f64, |a, i| a.max(m[(i, i)]));
                let shifted = Mat::from_fn(n, n, |i, j| {
                    m[(i, j)] + if i == j { 1e-9 * max_diag } else { 0.0 }
                });
                (shifted, Mat::from_fn(n, 1, |i, _| -p.q()[i]))
            })
            .collect();
        faer_cholesky_on_set(&mut group, n, &factors);
        for &(solver, params) in solvers {
            dantzig_on_set(&mut group, &mut notes, solver, params, problems);
        }
        if policy {
            let mut solver = Solver::default();
            solver_on_set(&mut group, &mut notes, "policy", problems, |p, out| {
                solver.solve_into(p, out)
            });
        }
    }
    notes.write();
    group.finish();
}

fn contact_psd(c: &mut Criterion) {
    let mut group = c.benchmark_group("lcp_contact_psd");
    let mut notes = Notes::new("lcp_contact_psd");
    for (towers, height) in [(1, 1), (1, 5), (4, 5), (17, 5)] {
        if towers >= 4 {
            group.sample_size(10);
        }
        let problem = box_towers_problem(towers, height, 3);
        let n = problem.dense.dim();
        debug_assert_eq!(n, ROWS_PER_BOX * towers * height);
        let m = problem.dense.m().to_owned();
        let max_diag = (0..n).map(|i| m[(i, i)]).fold(0.0, f64::max);
        faer_cholesky(&mut group, &m, problem.dense.q(), 1e-9 * max_diag);
        dantzig(&mut group, &mut notes, &problem.dense);
        lemke_box_and_policy(&mut group, &mut notes, &problem.dense);
        pgs_dense(&mut group, &mut notes, "pgs_dense", &problem.dense);

        let mut solver = ProjectedGaussSeidel::new(PgsParams::default());
        let mut out = LcpSolution::default();
        let (op, q, bounds) = (&problem.operator, problem.dense.q(), problem.dense.bounds());
        let first = solver.solve_matrix_free_into(op, q, bounds, None, &mut out);
        notes.record("pgs_matrix_free", n, first.as_ref().map(|()| &out));
        group.bench_function(BenchmarkId::new("pgs_matrix_free", n), |b| {
            b.iter(|| {
                solver
                    .solve_matrix_free_into(black_box(op), q, bounds, None, &mut out)
                    .is_ok()
            })
        });

        lemke(&mut group, &mut notes, "lemke_normal", n, &problem.normal);
    }
    notes.write();
    group.finish();
}

fn normal_stacks(c: &mut Criterion) {
    let mut group = c.benchmark_group("lcp_normal_stack");
    let mut notes = Notes::new("lcp_normal_stack");
    for boxes in [5, 20, 50] {
        if boxes >= 20 {
            group.sample_size(10);
        }
        // The peers' settling: 10 steps (a step whose solve fails keeps
        // its problem; none does now).
        let stack = settled_stack(boxes, 10).expect("stack builds");
        let lcp = &stack.normal;
        let n = lcp.dim();
        let m = lcp.m().to_owned();
        let max_diag = (0..n).map(|i| m[(i, i)]).fold(0.0, f64::max);
        faer_cholesky(&mut group, &m, lcp.q(), 1e-9 * max_diag);
        let problem = BoxLcp::from_lcp(lcp);
        dantzig(&mut group, &mut notes, &problem);
        dantzig_with(
            &mut group,
            &mut notes,
            "dantzig_pivoting",
            pivoting_only(),
            &problem,
        );
    }
    notes.write();
    group.finish();
}

fn box_stacks(c: &mut Criterion) {
    let mut group = c.benchmark_group("lcp_box_stack");
    let mut notes = Notes::new("lcp_box_stack");
    for boxes in [1, 3, 11, 43] {
        if boxes >= 11 {
            group.sample_size(10);
        }
        let (m, q) = box_stack_lcp(boxes);
        let n = q.len();
        let rhs = Mat::from_fn(n, 1, |i, _| -q[i]);
        group.bench_with_input(BenchmarkId::new("faer_lu", n), &m, |b, m| {
            b.iter(|| black_box(m).partial_piv_lu().solve(&rhs))
        });
        lemke(
            &mut group,
            &mut notes,
            "lemke",
            n,
            &Lcp::new(m, q).expect("finite"),
        );
    }
    notes.write();
    group.finish();
}

/// One sweep from the state `(z, w)`, restored before each sweep.
fn sweep(c: &mut Group<'_>, name: &str, problem: &BoxLcp, z: &[f64], w: &[f64]) {
    let mut solver = ProjectedGaussSeidel::default();
    let (mut zk, mut wk) = (z.to_vec(), w.to_vec());
    c.bench_with_input(BenchmarkId::new(name, z.len()), problem, |b, problem| {
        b.iter(|| {
            zk.copy_from_slice(z);
            wk.copy_from_slice(w);
            solver
                .sweep(black_box(problem), &mut zk, &mut wk)
                .expect("valid problem");
            wk[0]
        })
    });
}

fn pgs_sweep(c: &mut Criterion) {
    let mut group = c.benchmark_group("pgs_sweep");
    for n in [16, 64, 256, 1024] {
        let SweepCases {
            m,
            q,
            mid_solve,
            z,
            w,
            every_row,
        } = pgs_sweep_cases(n);
        let x = Mat::from_fn(n, 1, |i, _| q[i]);
        let mut y = Mat::<f64>::zeros(n, 1);
        group.bench_with_input(BenchmarkId::new("faer_matvec", n), &m, |b, m| {
            b.iter(|| {
                faer_matvec(y.as_mut(), black_box(m).as_ref(), x.as_ref());
                y[(0, 0)]
            })
        });
        let mut out = vec![0.0; n];
        group.bench_with_input(BenchmarkId::new("loop_matvec", n), &m, |b, m| {
            b.iter(|| {
                // Column order: M is column-major, so each column is one
                // contiguous axpy, the access pattern of a sweep.
                out.fill(0.0);
                for (j, xj) in q.iter().enumerate() {
                    for (o, mij) in out.iter_mut().zip(black_box(m).col_as_slice(j)) {
                        *o += mij * xj;
                    }
                }
                out[0]
            })
        });

        sweep(&mut group, "pgs_sweep", &mid_solve, &z, &w);
        sweep(
            &mut group,
            "pgs_sweep_every_row",
            &every_row,
            &vec![0.0; n],
            &q,
        );
    }
    group.finish();
}

/// Block principal pivoting on a pyramid's step problem (see the module
/// doc), cold and warm, dense and sparse, beside Dantzig.
fn pyramid_steps(c: &mut Criterion) {
    let mut group = c.benchmark_group("lcp_pyramid_step");
    let mut notes = Notes::new("lcp_pyramid_step");
    group.sample_size(10);
    for base in [6, 10] {
        let step = pyramid_step(base, 10);
        let n = step.dense.dim();
        let m = step.dense.m().to_owned();
        let max_diag = (0..n).map(|i| m[(i, i)]).fold(0.0, f64::max);
        faer_cholesky(&mut group, &m, step.dense.q(), 1e-9 * max_diag);
        dantzig(&mut group, &mut notes, &step.dense);
        let warm = (step.previous.as_slice(), step.previous_z.as_slice());
        for (name, warm) in [("bpp_cold", None), ("bpp_warm", Some(warm))] {
            block_pivoting(&mut group, &mut notes, name, &step.factored, warm);
        }
    }
    notes.write();
    group.finish();
}

/// Block principal pivoting on the factored `problem` from `warm` (an
/// active set and its impulses).
fn block_pivoting(
    c: &mut Group<'_>,
    notes: &mut Notes,
    name: &str,
    problem: &FactoredBoxLcp,
    warm: Option<(&[RowState], &[f64])>,
) {
    let n = problem.dim();
    let mut solver = BlockPivoting::default();
    let mut out = LcpSolution::default();
    let first = solver.solve_into(problem, warm, &mut out);
    notes.record(name, n, first.as_ref().map(|()| &out));
    c.bench_with_input(BenchmarkId::new(name, n), problem, |b, problem| {
        b.iter(|| {
            solver
                .solve_into(black_box(problem), warm, &mut out)
                .is_ok()
        })
    });
}

// Contact problems first, random ones last (issue 25).
criterion_group!(
    benches,
    pyramid_steps,
    box_stacks,
    sliding_stacks,
    sliding_boxes,
    normal_stacks,
    contact_psd,
    random_pd,
    random_pd_sets,
    pgs_sweep
);
criterion_main!(benches);
