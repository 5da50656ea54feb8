//! One projected Gauss-Seidel sweep against one dense `M x` (faer), timed
//! interleaved in one process: the ratio issue 3 bounds by 2.
//!
//! Criterion times each benchmark on its own, seconds apart; on a machine
//! whose speed drifts between phases (the shared hosts these figures come
//! from move by up to 2x) the ratio of two such medians is mostly the
//! drift. Here batches of sweeps and of products alternate (ABBA order),
//! and the figure is the median of the per-pair ratios, with quartiles.
//! The problems and states are those of the `pgs_sweep` criterion group
//! (benches/lcp.rs): the random SPD problem of size n, mid-solve (the 10th
//! iterate of the LCP) and with every row moving (bounds lifted).
//!
//! ```text
//! cargo run --release -p contact-benches --example pgs_sweep_ratio [-- N...]
//! ```

use std::hint::black_box;
use std::time::Instant;

use contact_benches::{SweepCases, faer_matvec, pgs_sweep_cases};
use contact_lcp::faer::Mat;
use contact_lcp::{BoxLcp, ProjectedGaussSeidel};

/// Pairs of batches per size and state.
const PAIRS: usize = 200;

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("sizes are integers"))
        .collect();
    let sizes = if sizes.is_empty() {
        vec![16, 64, 256, 1024]
    } else {
        sizes
    };
    for n in sizes {
        // About 0.2-1 ms a batch: long against the clock, short against
        // the machine's phases.
        let batch = (200_000 / (n * n)).clamp(4, 1000);
        let SweepCases {
            m,
            q,
            mid_solve,
            z,
            w,
            every_row,
        } = pgs_sweep_cases(n);
        for (name, problem, z0, w0) in [
            ("mid-solve", &mid_solve, z, w),
            ("every row", &every_row, vec![0.0; n], q.clone()),
        ] {
            let (ratio, sweep, product) = interleaved(&m, &q, problem, &z0, &w0, batch);
            println!(
                "n {n:5} {name:9}: sweep / M x median {:.3} (quartiles {:.3} {:.3}); \
                 sweep {:.0} ns, M x {:.0} ns",
                ratio[1],
                ratio[0],
                ratio[2],
                sweep * 1e9,
                product * 1e9
            );
        }
    }
}

/// Quartiles of the per-pair ratios sweep / product, and the median
/// seconds of one sweep and of one product.
fn interleaved(
    m: &Mat<f64>,
    x: &[f64],
    problem: &BoxLcp,
    z0: &[f64],
    w0: &[f64],
    batch: usize,
) -> ([f64; 3], f64, f64) {
    let n = x.len();
    let x = Mat::from_fn(n, 1, |i, _| x[i]);
    let mut y = Mat::<f64>::zeros(n, 1);
    let mut solver = ProjectedGaussSeidel::default();
    let (mut z, mut w) = (z0.to_vec(), w0.to_vec());
    let mut sweeps = || {
        let start = Instant::now();
        for _ in 0..batch {
            z.copy_from_slice(z0);
            w.copy_from_slice(w0);
            solver
                .sweep(black_box(problem), &mut z, &mut w)
                .expect("valid problem");
            black_box(w[0]);
        }
        start.elapsed().as_secs_f64() / batch as f64
    };
    let mut products = || {
        let start = Instant::now();
        for _ in 0..batch {
            faer_matvec(y.as_mut(), black_box(m).as_ref(), x.as_ref());
            black_box(y[(0, 0)]);
        }
        start.elapsed().as_secs_f64() / batch as f64
    };
    // Warm-up: caches, the solver's workspace, the clock.
    sweeps();
    products();
    let (mut ratios, mut sweep, mut product) = (vec![], vec![], vec![]);
    for pair in 0..PAIRS {
        let (s, p) = if pair % 2 == 0 {
            let s = sweeps();
            (s, products())
        } else {
            let p = products();
            (sweeps(), p)
        };
        ratios.push(s / p);
        sweep.push(s);
        product.push(p);
    }
    let quartiles = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        [v[v.len() / 4], v[v.len() / 2], v[3 * v.len() / 4]]
    };
    (
        quartiles(&mut ratios),
        quartiles(&mut sweep)[1],
        quartiles(&mut product)[1],
    )
}
