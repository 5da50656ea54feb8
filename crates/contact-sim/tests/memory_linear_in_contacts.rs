//! Guards issue 26's "memory linear in the number of contacts": building
//! and stepping a wall pyramid of base 8 (36 cubes, 256 contacts) takes at
//! most about as many times the peak heap of one of base 4 (10 cubes, 64
//! contacts) as it has times the contacts. Both islands (192 and 768 rows)
//! are above `sparse_from`, so the sparse route solves them in body space
//! and never forms the `n x n` Delassus matrix; that matrix alone would
//! grow with the square of the contacts (16 times here, 4.7 MB at base 8),
//! which the same measurement of the dense route shows.

use allocation_counter::AllocationInfo;
use contact_sim::contact_lcp::Method;
use contact_sim::scenes::{WallPyramid, wall_pyramid};
use contact_sim::{FixedStepParams, FixedStepper, TimeSteppingParams};

/// Steps taken: contacts form in the first, the later ones are warm-started.
const STEPS: usize = 3;

/// What building and stepping a pyramid of `base` allocated, its contacts,
/// and the solver of its last step with the number of rows.
fn measure(base: usize, sparse_from: usize) -> (AllocationInfo, usize, Method, usize) {
    let (mut contacts, mut method, mut rows) = (0, Method::default(), 0);
    let info = allocation_counter::measure(|| {
        let pyramid = WallPyramid {
            base,
            ..WallPyramid::default()
        };
        let mut world = wall_pyramid(&pyramid).unwrap();
        let mut stepper = FixedStepper::new(FixedStepParams {
            dynamics: TimeSteppingParams {
                sparse_from,
                ..TimeSteppingParams::default()
            },
            ..FixedStepParams::default()
        })
        .unwrap();
        for _ in 0..STEPS {
            contacts = stepper.step(&mut world).unwrap().contacts;
        }
        // The ground is fixed, so the pyramid is one island.
        assert_eq!(stepper.last_island_count(), 1);
        let solution = stepper.last_lcp_solution(0);
        (method, rows) = (solution.method, solution.z.len());
    });
    (info, contacts, method, rows)
}

/// The growth of the peak heap from base 4 to base 8 over the growth of
/// the contacts, with `sparse_from` as given.
fn growth(sparse_from: usize, route: Method) -> (f64, String) {
    let (small, small_contacts, method, rows) = measure(4, sparse_from);
    assert_eq!(method, route, "base 4");
    assert!(rows >= TimeSteppingParams::default().sparse_from, "{rows}");
    let (large, large_contacts, method, _) = measure(8, sparse_from);
    assert_eq!(method, route, "base 8");
    let peak_ratio = large.bytes_max as f64 / small.bytes_max as f64;
    let contact_ratio = large_contacts as f64 / small_contacts as f64;
    let figures = format!(
        "{route:?}: peak {} B for {small_contacts} contacts, {} B for {large_contacts}",
        small.bytes_max, large.bytes_max
    );
    (peak_ratio / contact_ratio, figures)
}

#[test]
fn peak_memory_grows_linearly_with_the_contacts() {
    // The allocation counter counts the calling thread only: one rayon
    // thread, this one, runs every island.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    pool.install(|| {
        // A first run unmeasured: gemm's per-thread scratch (the size of
        // the L2 cache, 4 MiB here) is allocated once per thread on the
        // first large product and kept, a constant that is no contact's.
        measure(8, TimeSteppingParams::default().sparse_from);
        let (sparse, figures) = growth(
            TimeSteppingParams::default().sparse_from,
            Method::BlockPivoting,
        );
        assert!(sparse <= 1.5, "{sparse:.2} x linear; {figures}");
        // The measurement sees a quadratic term: the dense route, which
        // forms `J W J'`, fails the same bound.
        let (dense, figures) = growth(usize::MAX, Method::Dantzig);
        assert!(dense > 1.5, "{dense:.2} x linear; {figures}");
    });
}
