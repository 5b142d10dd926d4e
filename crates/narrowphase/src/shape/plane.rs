//! Plane.

use crate::error::ShapeError;
use crate::math::{is_finite_point, is_finite_vec, normalize_any, Point, Real, UnitVector, Vector};

/// The plane `{x : normal . x = offset}`. Its positive side is the one the
/// normal points into; a ray cast hits it from either side.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Plane {
    normal: UnitVector,
    offset: Real,
}

impl Plane {
    /// The plane through `point` with normal `normal` (any non-zero length).
    pub fn try_new(point: Point, normal: Vector) -> Result<Self, ShapeError> {
        if !is_finite_point(&point) || !is_finite_vec(&normal) {
            return Err(ShapeError::NonFinite("plane point or normal"));
        }
        // Scaled by the largest component when |n|^2 would overflow
        // (|n| > 1.8e19) or underflow (|n| < 1e-19).
        let n = normalize_any(&normal).ok_or(ShapeError::ZeroDirection)?;
        // `n . p` in f64, rounded once to f32: in f32 a partial sum can
        // overflow although the offset is finite (B19: a point at
        // `(f32::MAX, f32::MAX, f32::MAX)` and normal `(0.57, 0.58, -0.58)`
        // have offset 1.94e38). Each product of two f32 values is exact in
        // f64 and no f64 sum of three of them can overflow; an offset beyond
        // `f32::MAX` rounds to infinity and is rejected.
        let offset = n.into_inner().cast::<f64>().dot(&point.coords.cast::<f64>()) as Real;
        if !offset.is_finite() {
            return Err(ShapeError::NonFinite("plane offset"));
        }
        Ok(Self { normal: n, offset })
    }

    /// The unit normal.
    #[inline]
    pub fn normal(&self) -> &UnitVector {
        &self.normal
    }

    /// The signed distance of the plane from the origin along the normal.
    #[inline]
    pub fn offset(&self) -> Real {
        self.offset
    }

    /// Signed distance of `p`: positive on the normal's side.
    #[inline]
    pub fn signed_distance(&self, p: &Point) -> Real {
        self.normal.dot(&p.coords) - self.offset
    }
}
