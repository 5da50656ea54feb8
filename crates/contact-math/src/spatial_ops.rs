//! Vector-space operators shared by [`crate::Twist`] and [`crate::Wrench`]:
//! both are pairs of 3-vectors that add, subtract and scale component-wise.

/// Implements `Add`, `Sub`, `Neg`, `Mul<f64>` (both sides), `Div<f64>`,
/// `AddAssign`, `SubAssign`, `MulAssign<f64>` and `Sum` for a struct of two
/// `DVec3` fields.
macro_rules! impl_spatial_ops {
    ($ty:ident, $a:ident, $b:ident) => {
        impl core::ops::Add for $ty {
            type Output = $ty;
            #[inline]
            fn add(self, rhs: $ty) -> $ty {
                $ty {
                    $a: self.$a + rhs.$a,
                    $b: self.$b + rhs.$b,
                }
            }
        }

        impl core::ops::Sub for $ty {
            type Output = $ty;
            #[inline]
            fn sub(self, rhs: $ty) -> $ty {
                $ty {
                    $a: self.$a - rhs.$a,
                    $b: self.$b - rhs.$b,
                }
            }
        }

        impl core::ops::Neg for $ty {
            type Output = $ty;
            #[inline]
            fn neg(self) -> $ty {
                $ty {
                    $a: -self.$a,
                    $b: -self.$b,
                }
            }
        }

        impl core::ops::Mul<f64> for $ty {
            type Output = $ty;
            #[inline]
            fn mul(self, s: f64) -> $ty {
                $ty {
                    $a: self.$a * s,
                    $b: self.$b * s,
                }
            }
        }

        impl core::ops::Mul<$ty> for f64 {
            type Output = $ty;
            #[inline]
            fn mul(self, t: $ty) -> $ty {
                t * self
            }
        }

        impl core::ops::Div<f64> for $ty {
            type Output = $ty;
            #[inline]
            fn div(self, s: f64) -> $ty {
                $ty {
                    $a: self.$a / s,
                    $b: self.$b / s,
                }
            }
        }

        impl core::ops::AddAssign for $ty {
            #[inline]
            fn add_assign(&mut self, rhs: $ty) {
                self.$a += rhs.$a;
                self.$b += rhs.$b;
            }
        }

        impl core::ops::SubAssign for $ty {
            #[inline]
            fn sub_assign(&mut self, rhs: $ty) {
                self.$a -= rhs.$a;
                self.$b -= rhs.$b;
            }
        }

        impl core::ops::MulAssign<f64> for $ty {
            #[inline]
            fn mul_assign(&mut self, s: f64) {
                self.$a *= s;
                self.$b *= s;
            }
        }

        impl core::iter::Sum for $ty {
            fn sum<I: Iterator<Item = $ty>>(iter: I) -> $ty {
                iter.fold($ty::ZERO, |acc, x| acc + x)
            }
        }

        impl From<[f64; 6]> for $ty {
            #[inline]
            fn from(a: [f64; 6]) -> $ty {
                $ty::from_array(a)
            }
        }

        impl From<$ty> for [f64; 6] {
            #[inline]
            fn from(t: $ty) -> [f64; 6] {
                t.to_array()
            }
        }
    };
}
