//! LCP solve times (Lemke; Dantzig where M is symmetric) beside a
//! yardstick measured in the same run: faer's
//! dense Cholesky (factor + solve) of the same M for symmetric positive
//! definite problems, faer's partial-pivoting LU for the non-symmetric
//! contact problems. `cargo xtask bench` reports each solver as a ratio to
//! its yardstick, which survives the noise of a shared machine.
//!
//! Groups: `lcp_random_pd` (n = 16, 64, 256, 1024) and `lcp_box_stack`
//! (1, 3, 11, 43 boxes: n = 24, 72, 264, 1032).

use contact_benches::{box_stack_lcp, random_positive_definite};
use contact_lcp::faer::Mat;
use contact_lcp::faer::linalg::solvers::Solve;
use contact_lcp::{BoxLcp, Dantzig, DantzigParams, Lcp, LcpSolution, Lemke, LemkeParams};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn lemke(c: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>, lcp: &Lcp) {
    let n = lcp.dim();
    let mut solver = Lemke::new(LemkeParams::default());
    let mut out = LcpSolution::default();
    solver
        .solve_into(lcp, &mut out)
        .expect("benchmark problems are solvable");
    c.bench_with_input(BenchmarkId::new("lemke", n), lcp, |b, lcp| {
        b.iter(|| {
            solver
                .solve_into(black_box(lcp), &mut out)
                .expect("solvable")
        })
    });
}

fn dantzig(c: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>, lcp: &Lcp) {
    let problem = BoxLcp::from_lcp(lcp);
    let mut solver = Dantzig::new(DantzigParams::default());
    let mut out = LcpSolution::default();
    solver
        .solve_into(&problem, &mut out)
        .expect("benchmark problems are solvable");
    c.bench_with_input(
        BenchmarkId::new("dantzig", lcp.dim()),
        &problem,
        |b, problem| {
            b.iter(|| {
                solver
                    .solve_into(black_box(problem), &mut out)
                    .expect("solvable")
            })
        },
    );
}

fn random_pd(c: &mut Criterion) {
    let mut group = c.benchmark_group("lcp_random_pd");
    for n in [16, 64, 256, 1024] {
        if n >= 256 {
            group.sample_size(10);
        }
        let (m, q) = random_positive_definite(n, 0x5EED + n as u64);
        let rhs = Mat::from_fn(n, 1, |i, _| -q[i]);
        group.bench_with_input(BenchmarkId::new("faer_cholesky", n), &m, |b, m| {
            b.iter(|| {
                black_box(m)
                    .llt(contact_lcp::faer::Side::Lower)
                    .expect("SPD")
                    .solve(&rhs)
            })
        });
        let lcp = Lcp::new(m, q).expect("finite");
        lemke(&mut group, &lcp);
        dantzig(&mut group, &lcp);
    }
    group.finish();
}

fn box_stacks(c: &mut Criterion) {
    let mut group = c.benchmark_group("lcp_box_stack");
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
        lemke(&mut group, &Lcp::new(m, q).expect("finite"));
    }
    group.finish();
}

criterion_group!(benches, random_pd, box_stacks);
criterion_main!(benches);
