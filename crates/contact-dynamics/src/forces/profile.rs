//! Scalar functions of time for force magnitudes.

/// A magnitude as a function of simulated time `t` (s).
#[derive(Clone, Debug, PartialEq)]
pub enum Profile {
    /// `value`.
    Constant(f64),
    /// `initial + rate t`.
    Ramp {
        /// Value at `t = 0`.
        initial: f64,
        /// Change per second.
        rate: f64,
    },
    /// `offset + amplitude sin(2 pi frequency t + phase)`.
    Sine {
        /// Mean value.
        offset: f64,
        /// Amplitude.
        amplitude: f64,
        /// Frequency (Hz).
        frequency: f64,
        /// Phase (rad).
        phase: f64,
    },
    /// Piecewise linear through `(t, value)` points with increasing `t`,
    /// constant before the first and after the last.
    Table(Vec<(f64, f64)>),
}

impl Profile {
    /// The value at time `t`.
    #[must_use]
    pub fn at(&self, t: f64) -> f64 {
        match self {
            Self::Constant(value) => *value,
            Self::Ramp { initial, rate } => initial + rate * t,
            Self::Sine {
                offset,
                amplitude,
                frequency,
                phase,
            } => offset + amplitude * (std::f64::consts::TAU * frequency * t + phase).sin(),
            Self::Table(points) => {
                let after = points.partition_point(|&(time, _)| time <= t);
                match (after.checked_sub(1).map(|i| points[i]), points.get(after)) {
                    (None, Some(&(_, first))) => first,
                    (Some((_, last)), None) => last,
                    (Some((t0, v0)), Some(&(t1, v1))) => v0 + (v1 - v0) * (t - t0) / (t1 - t0),
                    (None, None) => 0.0,
                }
            }
        }
    }

    /// Checks that every number is finite and a table's times increase.
    pub(crate) fn check(&self) -> Result<(), &'static str> {
        let finite = match self {
            Self::Constant(value) => value.is_finite(),
            Self::Ramp { initial, rate } => initial.is_finite() && rate.is_finite(),
            Self::Sine {
                offset,
                amplitude,
                frequency,
                phase,
            } => [offset, amplitude, frequency, phase]
                .iter()
                .all(|x| x.is_finite()),
            Self::Table(points) => {
                if points.is_empty() {
                    return Err("a table needs at least one point");
                }
                if points
                    .windows(2)
                    .any(|w| w[0].0 >= w[1].0 || w[0].0.is_nan())
                {
                    return Err("a table's times must increase");
                }
                points.iter().all(|(t, v)| t.is_finite() && v.is_finite())
            }
        };
        if finite {
            Ok(())
        } else {
            Err("must be finite")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_interpolates_and_holds_its_ends() {
        let table = Profile::Table(vec![(0.0, 1.0), (2.0, 5.0), (3.0, -1.0)]);
        assert_eq!(table.at(-1.0), 1.0);
        assert_eq!(table.at(1.0), 3.0);
        assert_eq!(table.at(2.5), 2.0);
        assert_eq!(table.at(9.0), -1.0);
        assert!(
            Profile::Table(vec![(1.0, 0.0), (1.0, 2.0)])
                .check()
                .is_err()
        );
        assert!(
            Profile::Ramp {
                initial: 0.0,
                rate: f64::NAN
            }
            .check()
            .is_err()
        );
    }
}
