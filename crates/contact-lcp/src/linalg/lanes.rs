//! Four-lane arithmetic on `f64`, as plain arrays or as AVX2 registers.
//!
//! Hot loops written against [`Lanes`] keep four independent partial
//! results so that they vectorise, on `[f64; 4]` arrays (any machine) or on
//! one 256-bit register (`pulp::x86::V3`, chosen at run time when the CPU
//! has AVX2 and FMA). Both compute the same IEEE operations in the same
//! order, with no fused multiply-add, so a result never depends on which
//! one ran. pulp (faer's SIMD layer) provides the dispatch and safe
//! intrinsics.

/// The operations of a four-lane vector of `f64`.
pub(crate) trait Lanes: Copy {
    /// The vector type.
    type V: Copy;
    /// All lanes `x`.
    fn splat(self, x: f64) -> Self::V;
    /// Loads four values.
    fn load(self, x: &[f64; 4]) -> Self::V;
    /// Stores four values.
    fn store(self, out: &mut [f64; 4], v: Self::V);
    /// Lanes of `a - b`.
    fn sub(self, a: Self::V, b: Self::V) -> Self::V;
    /// Lanes of `a + b`.
    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    /// Lanes of `a * b`.
    fn mul(self, a: Self::V, b: Self::V) -> Self::V;
    /// Lanes of `|a|`.
    fn abs(self, a: Self::V) -> Self::V;
    /// Lanes of `if a > b { a } else { b }` (so a NaN in `a` is passed over).
    fn max(self, a: Self::V, b: Self::V) -> Self::V;
    /// The four lanes.
    fn to_array(self, v: Self::V) -> [f64; 4];
}

/// Four lanes as a plain array.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ArrayLanes;

impl Lanes for ArrayLanes {
    type V = [f64; 4];

    #[inline(always)]
    fn splat(self, x: f64) -> [f64; 4] {
        [x; 4]
    }
    #[inline(always)]
    fn load(self, x: &[f64; 4]) -> [f64; 4] {
        *x
    }
    #[inline(always)]
    fn store(self, out: &mut [f64; 4], v: [f64; 4]) {
        *out = v;
    }
    #[inline(always)]
    fn sub(self, a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
        std::array::from_fn(|l| a[l] - b[l])
    }
    #[inline(always)]
    fn add(self, a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
        std::array::from_fn(|l| a[l] + b[l])
    }
    #[inline(always)]
    fn mul(self, a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
        std::array::from_fn(|l| a[l] * b[l])
    }
    #[inline(always)]
    fn abs(self, a: [f64; 4]) -> [f64; 4] {
        a.map(f64::abs)
    }
    #[inline(always)]
    fn max(self, a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
        std::array::from_fn(|l| if a[l] > b[l] { a[l] } else { b[l] })
    }
    #[inline(always)]
    fn to_array(self, v: [f64; 4]) -> [f64; 4] {
        v
    }
}

#[cfg(target_arch = "x86_64")]
impl Lanes for pulp::x86::V3 {
    type V = pulp::f64x4;

    #[inline(always)]
    fn splat(self, x: f64) -> pulp::f64x4 {
        self.splat_f64x4(x)
    }
    #[inline(always)]
    fn load(self, x: &[f64; 4]) -> pulp::f64x4 {
        pulp::cast(*x)
    }
    #[inline(always)]
    fn store(self, out: &mut [f64; 4], v: pulp::f64x4) {
        *out = pulp::cast(v);
    }
    #[inline(always)]
    fn sub(self, a: pulp::f64x4, b: pulp::f64x4) -> pulp::f64x4 {
        self.sub_f64x4(a, b)
    }
    #[inline(always)]
    fn add(self, a: pulp::f64x4, b: pulp::f64x4) -> pulp::f64x4 {
        self.add_f64x4(a, b)
    }
    #[inline(always)]
    fn mul(self, a: pulp::f64x4, b: pulp::f64x4) -> pulp::f64x4 {
        self.mul_f64x4(a, b)
    }
    #[inline(always)]
    fn abs(self, a: pulp::f64x4) -> pulp::f64x4 {
        self.abs_f64x4(a)
    }
    #[inline(always)]
    fn max(self, a: pulp::f64x4, b: pulp::f64x4) -> pulp::f64x4 {
        // vmaxpd: the second operand unless the first is greater.
        self.max_f64x4(a, b)
    }
    #[inline(always)]
    fn to_array(self, v: pulp::f64x4) -> [f64; 4] {
        pulp::cast(v)
    }
}

/// `w += d col` (over `w`'s length), with the bits of a scalar loop.
#[inline(always)]
pub(crate) fn add_column<L: Lanes>(l: L, w: &mut [f64], d: f64, col: &[f64]) {
    let col = &col[..w.len()];
    let (w4, w_rest) = pulp::as_arrays_mut::<4, f64>(w);
    let (c4, c_rest) = pulp::as_arrays::<4, f64>(col);
    let dv = l.splat(d);
    for (ws, cs) in w4.iter_mut().zip(c4) {
        let v = l.add(l.load(ws), l.mul(dv, l.load(cs)));
        l.store(ws, v);
    }
    for (w, &c) in w_rest.iter_mut().zip(c_rest) {
        *w += d * c;
    }
}

/// The bits of four [`add_column`] calls (`d[t]`, `cols[t]` in turn), with
/// `w` loaded and stored once; every column has `w.len()` entries.
#[inline(always)]
pub(crate) fn add_four_columns<L: Lanes>(l: L, w: &mut [f64], d: [f64; 4], cols: [&[f64]; 4]) {
    let n = w.len();
    let (w4, w_rest) = pulp::as_arrays_mut::<4, f64>(w);
    // Written out, not by `map`, whose closures are not reliably inlined.
    let c4 = [
        pulp::as_arrays::<4, f64>(&cols[0][..n]).0,
        pulp::as_arrays::<4, f64>(&cols[1][..n]).0,
        pulp::as_arrays::<4, f64>(&cols[2][..n]).0,
        pulp::as_arrays::<4, f64>(&cols[3][..n]).0,
    ];
    let dv = [l.splat(d[0]), l.splat(d[1]), l.splat(d[2]), l.splat(d[3])];
    for (p, ws) in w4.iter_mut().enumerate() {
        let mut v = l.load(ws);
        for t in 0..4 {
            v = l.add(v, l.mul(dv[t], l.load(&c4[t][p])));
        }
        l.store(ws, v);
    }
    let tail = n - w_rest.len();
    for (i, w) in w_rest.iter_mut().enumerate() {
        for t in 0..4 {
            *w += d[t] * cols[t][tail + i];
        }
    }
}

/// Runs `op` with the best [`Lanes`] of this machine: AVX2 registers when
/// the CPU has them (x86-64 with AVX2 and FMA), arrays otherwise.
#[inline(always)]
pub(crate) fn with_best_lanes<R>(op: impl LanesOp<Output = R>) -> R {
    #[cfg(target_arch = "x86_64")]
    if let Some(simd) = pulp::x86::V3::try_new() {
        return pulp::Simd::vectorize(simd, InV3 { op, simd });
    }
    op.run(ArrayLanes)
}

/// An operation written once for any [`Lanes`].
pub(crate) trait LanesOp {
    /// What it returns.
    type Output;
    /// Runs it with `lanes` (`#[inline(always)]`, so that it is compiled
    /// inside the dispatched AVX2-enabled function).
    fn run<L: Lanes>(self, lanes: L) -> Self::Output;
}

/// Carries an operation into pulp's AVX2-enabled function.
#[cfg(target_arch = "x86_64")]
struct InV3<Op> {
    op: Op,
    simd: pulp::x86::V3,
}

#[cfg(target_arch = "x86_64")]
impl<Op: LanesOp> pulp::WithSimd for InV3<Op> {
    type Output = Op::Output;

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _: S) -> Op::Output {
        self.op.run(self.simd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both implementations agree to the bit on each operation, including
    /// the max select on signed zeros and NaN.
    #[test]
    fn array_and_register_lanes_agree() {
        let a = [1.5, -0.0, f64::NAN, -3.25];
        let b = [-2.0, 0.0, 7.0, f64::NAN];
        check(ArrayLanes, a, b);
        #[cfg(target_arch = "x86_64")]
        if let Some(simd) = pulp::x86::V3::try_new() {
            check(simd, a, b);
        }
    }

    fn check<L: Lanes>(l: L, a: [f64; 4], b: [f64; 4]) {
        let (va, vb) = (l.load(&a), l.load(&b));
        let bits = |v: L::V| l.to_array(v).map(f64::to_bits);
        let expect = |f: &dyn Fn(f64, f64) -> f64| std::array::from_fn(|i| f(a[i], b[i]).to_bits());
        assert_eq!(bits(l.sub(va, vb)), expect(&|x, y| x - y));
        assert_eq!(bits(l.add(va, vb)), expect(&|x, y| x + y));
        assert_eq!(bits(l.mul(va, vb)), expect(&|x, y| x * y));
        assert_eq!(bits(l.abs(va)), expect(&|x, _| x.abs()));
        assert_eq!(
            bits(l.max(va, vb)),
            expect(&|x, y| if x > y { x } else { y })
        );
        let mut out = [0.0; 4];
        l.store(&mut out, l.splat(2.5));
        assert_eq!(out, [2.5; 4]);
    }
}
