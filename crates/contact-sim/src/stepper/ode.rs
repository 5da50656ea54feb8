//! Explicit Runge-Kutta steps for `y' = f(t, y)` on a flat state vector:
//! the classical fourth-order method (fixed step) and the embedded 5(4)
//! pair of Dormand and Prince (1980), whose difference of orders estimates
//! the local error for step-size control (Hairer, Norsett & Wanner,
//! *Solving Ordinary Differential Equations I*, sec. II.4 and II.5, Table
//! 5.2; the fifth-order solution is kept, "local extrapolation").
//!
//! The error of a Dormand-Prince step is the root mean square, over the
//! components, of `e_i / (tol (1 + max(|y0_i|, |y1_i|)))`: absolute and
//! relative tolerance both `tol`. A step is accepted when it is at most 1;
//! the next step is `h min(5, max(0.2, 0.9 err^(-1/5)))`.
//! The first-same-as-last stage is not reused: the event-driven stepper
//! reclassifies contacts between steps, which changes `f`.

/// Which integrator the event-driven stepper uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OdeMethod {
    /// Classical fourth-order Runge-Kutta with a fixed step (the stepper's
    /// `max_step`), shortened only to meet events.
    Rk4,
    /// Dormand-Prince 5(4) with error control: adaptive steps between the
    /// stepper's `min_step` and `max_step`, local error per step within
    /// its `tolerance`.
    #[default]
    DormandPrince,
}

const RK4_C: [f64; 4] = [0.0, 0.5, 0.5, 1.0];
const RK4_A: [[f64; 3]; 4] = [
    [0.0, 0.0, 0.0],
    [0.5, 0.0, 0.0],
    [0.0, 0.5, 0.0],
    [0.0, 0.0, 1.0],
];
const RK4_B: [f64; 4] = [1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0];

const DP_C: [f64; 7] = [0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0];
const DP_A: [[f64; 6]; 7] = [
    [0.0; 6],
    [1.0 / 5.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [3.0 / 40.0, 9.0 / 40.0, 0.0, 0.0, 0.0, 0.0],
    [44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0.0, 0.0, 0.0],
    [
        19372.0 / 6561.0,
        -25360.0 / 2187.0,
        64448.0 / 6561.0,
        -212.0 / 729.0,
        0.0,
        0.0,
    ],
    [
        9017.0 / 3168.0,
        -355.0 / 33.0,
        46732.0 / 5247.0,
        49.0 / 176.0,
        -5103.0 / 18656.0,
        0.0,
    ],
    [
        35.0 / 384.0,
        0.0,
        500.0 / 1113.0,
        125.0 / 192.0,
        -2187.0 / 6784.0,
        11.0 / 84.0,
    ],
];
/// Fifth-order weights (the last row of `DP_A`, and 0 for the seventh stage).
const DP_B: [f64; 7] = [
    35.0 / 384.0,
    0.0,
    500.0 / 1113.0,
    125.0 / 192.0,
    -2187.0 / 6784.0,
    11.0 / 84.0,
    0.0,
];
/// Fifth- minus fourth-order weights: the error estimate.
const DP_E: [f64; 7] = [
    71.0 / 57600.0,
    0.0,
    -71.0 / 16695.0,
    71.0 / 1920.0,
    -17253.0 / 339200.0,
    22.0 / 525.0,
    -1.0 / 40.0,
];

/// A method and its stages' storage; reused, so a step of a size seen
/// before allocates nothing.
#[derive(Debug, Default)]
pub(crate) struct RungeKutta {
    method: OdeMethod,
    stages: [Vec<f64>; 7],
    point: Vec<f64>,
}

impl RungeKutta {
    /// Steps of `method`.
    pub(crate) fn new(method: OdeMethod) -> Self {
        Self {
            method,
            ..Self::default()
        }
    }

    /// One step of length `h` from `(t, y0)` into `y1`. With an error
    /// `tolerance` (Dormand-Prince only) it returns the error norm of the
    /// module comment (one more evaluation, at `(t + h, y1)`); otherwise 0.
    ///
    /// # Errors
    /// The first error of `f`.
    pub(crate) fn step<E>(
        &mut self,
        f: &mut impl FnMut(f64, &[f64], &mut [f64]) -> Result<(), E>,
        t: f64,
        y0: &[f64],
        h: f64,
        y1: &mut Vec<f64>,
        tolerance: Option<f64>,
    ) -> Result<f64, E> {
        let n = y0.len();
        for stage in &mut self.stages {
            stage.resize(n, 0.0);
        }
        self.point.resize(n, 0.0);
        y1.resize(n, 0.0);
        match self.method {
            OdeMethod::Rk4 => {
                self.stages_of(f, t, y0, h, &RK4_C, |s, j| RK4_A[s][j])?;
                self.combine(y0, h, &RK4_B, y1);
                Ok(0.0)
            }
            OdeMethod::DormandPrince => {
                self.stages_of(f, t, y0, h, &DP_C[..6], |s, j| DP_A[s][j])?;
                self.combine(y0, h, &DP_B[..6], y1);
                let Some(tolerance) = tolerance else {
                    return Ok(0.0);
                };
                f(t + h, y1, &mut self.stages[6])?;
                let mut sum = 0.0;
                for i in 0..n {
                    let e: f64 = (0..7).map(|s| DP_E[s] * self.stages[s][i]).sum::<f64>() * h;
                    let scale = tolerance * (1.0 + y0[i].abs().max(y1[i].abs()));
                    sum += (e / scale).powi(2);
                }
                Ok((sum / n.max(1) as f64).sqrt())
            }
        }
    }

    /// Evaluates the stages `k_s = f(t + c_s h, y0 + h sum_j a(s, j) k_j)`.
    fn stages_of<E>(
        &mut self,
        f: &mut impl FnMut(f64, &[f64], &mut [f64]) -> Result<(), E>,
        t: f64,
        y0: &[f64],
        h: f64,
        c: &[f64],
        a: impl Fn(usize, usize) -> f64,
    ) -> Result<(), E> {
        for (s, &cs) in c.iter().enumerate() {
            self.point.copy_from_slice(y0);
            for j in 0..s {
                let coefficient = h * a(s, j);
                if coefficient != 0.0 {
                    for (p, k) in self.point.iter_mut().zip(&self.stages[j]) {
                        *p += coefficient * k;
                    }
                }
            }
            f(t + cs * h, &self.point, &mut self.stages[s])?;
        }
        Ok(())
    }

    /// `y1 = y0 + h sum_s b_s k_s`.
    fn combine(&self, y0: &[f64], h: f64, b: &[f64], y1: &mut [f64]) {
        y1.copy_from_slice(y0);
        for (s, &weight) in b.iter().enumerate() {
            if weight != 0.0 {
                for (y, k) in y1.iter_mut().zip(&self.stages[s]) {
                    *y += h * weight * k;
                }
            }
        }
    }
}

/// The next step after one with error norm `error` (module comment).
pub(crate) fn next_step(h: f64, error: f64) -> f64 {
    let factor = if error == 0.0 {
        5.0
    } else {
        (0.9 * error.powf(-0.2)).clamp(0.2, 5.0)
    };
    h * factor
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The harmonic oscillator `x'' = -x` from `(1, 0)` to `t = 1` in `steps`
    /// steps; the error against `(cos 1, -sin 1)`.
    fn oscillator_error(method: OdeMethod, steps: usize) -> f64 {
        let mut rk = RungeKutta::new(method);
        let mut f = |_t: f64, y: &[f64], dy: &mut [f64]| -> Result<(), ()> {
            dy[0] = y[1];
            dy[1] = -y[0];
            Ok(())
        };
        let h = 1.0 / steps as f64;
        let mut y = vec![1.0, 0.0];
        let mut next = Vec::new();
        for k in 0..steps {
            rk.step(&mut f, k as f64 * h, &y, h, &mut next, None)
                .unwrap();
            std::mem::swap(&mut y, &mut next);
        }
        ((y[0] - 1f64.cos()).powi(2) + (y[1] + 1f64.sin()).powi(2)).sqrt()
    }

    /// Halving the step divides the global error by 2^4 (RK4) and 2^5
    /// (the fifth-order solution of Dormand-Prince).
    #[test]
    fn orders_of_convergence() {
        for (method, order) in [(OdeMethod::Rk4, 4.0), (OdeMethod::DormandPrince, 5.0)] {
            let ratio = oscillator_error(method, 10) / oscillator_error(method, 20);
            let observed = ratio.log2();
            assert!((observed - order).abs() < 0.15, "{method:?}: {observed}");
        }
    }

    /// Both methods integrate a quartic in t exactly (free flight is a
    /// quadratic), and the Dormand-Prince error estimate of a polynomial
    /// of degree <= 4 is round-off.
    #[test]
    fn polynomials_are_exact() {
        let mut f = |t: f64, _y: &[f64], dy: &mut [f64]| -> Result<(), ()> {
            dy[0] = 4.0 * t * t * t - 3.0 * t + 1.0;
            Ok(())
        };
        for method in [OdeMethod::Rk4, OdeMethod::DormandPrince] {
            let mut y1 = Vec::new();
            let error = RungeKutta::new(method)
                .step(&mut f, 0.5, &[2.0], 0.7, &mut y1, Some(1e-12))
                .unwrap();
            let exact = |t: f64| t.powi(4) - 1.5 * t * t + t;
            let expected = 2.0 + exact(1.2) - exact(0.5);
            assert!((y1[0] - expected).abs() < 1e-14, "{method:?}");
            assert!(error < 1e-2, "{method:?}: {error}");
        }
    }

    /// The error estimate of one Dormand-Prince step on `y' = y` shrinks
    /// as h^5 (the local error of the fourth-order solution), and the
    /// controlled step keeps it near 1.
    #[test]
    fn error_estimate_has_order_five() {
        let mut rk = RungeKutta::new(OdeMethod::DormandPrince);
        let mut f = |_t: f64, y: &[f64], dy: &mut [f64]| -> Result<(), ()> {
            dy[0] = y[0];
            Ok(())
        };
        let mut y1 = Vec::new();
        let mut estimate = |h: f64| {
            rk.step(&mut f, 0.0, &[1.0], h, &mut y1, Some(1e-10))
                .unwrap()
        };
        let ratio = estimate(0.2) / estimate(0.1);
        assert!((ratio.log2() - 5.0).abs() < 0.3, "{}", ratio.log2());
        assert!((next_step(1.0, 1.0) - 0.9).abs() < 1e-15);
        assert_eq!(next_step(1.0, 0.0), 5.0);
        assert_eq!(next_step(1.0, 1e9), 0.2);
    }
}
