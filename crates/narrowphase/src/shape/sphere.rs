//! Sphere (ball).

use super::Aabb;
use crate::error::ShapeError;
use crate::math::{is_finite_point, Point, Real, Vector};

/// A solid sphere: every point within `radius` of `center` (boundary included).
///
/// Invariant: finite centre, finite `radius >= 0` (a zero radius is a point).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Sphere {
    center: Point,
    radius: Real,
}

impl Sphere {
    /// A sphere; rejects a non-finite centre or radius and a negative radius.
    ///
    /// ```
    /// use proxima_narrowphase::{Point, Sphere, ShapeError};
    /// assert!(Sphere::try_new(Point::origin(), 1.0).is_ok());
    /// assert_eq!(Sphere::try_new(Point::origin(), -1.0), Err(ShapeError::NegativeRadius));
    /// ```
    pub fn try_new(center: Point, radius: Real) -> Result<Self, ShapeError> {
        if !is_finite_point(&center) || !radius.is_finite() {
            return Err(ShapeError::NonFinite("sphere centre or radius"));
        }
        if radius < 0.0 {
            return Err(ShapeError::NegativeRadius);
        }
        Ok(Self { center, radius })
    }

    /// A sphere.
    ///
    /// # Panics
    /// When [`Sphere::try_new`] would return an error.
    #[track_caller]
    pub fn new(center: Point, radius: Real) -> Self {
        Self::try_new(center, radius).unwrap_or_else(|e| panic!("invalid Sphere: {e}"))
    }

    /// The centre.
    #[inline]
    pub fn center(&self) -> &Point {
        &self.center
    }

    /// The radius, `>= 0`.
    #[inline]
    pub fn radius(&self) -> Real {
        self.radius
    }

    /// This sphere moved to a new centre (the radius is kept).
    pub fn try_with_center(&self, center: Point) -> Result<Self, ShapeError> {
        Self::try_new(center, self.radius)
    }

    /// The tight bounding box, `center ± radius`.
    #[inline]
    pub fn aabb(&self) -> Aabb {
        let r = Vector::repeat(self.radius);
        Aabb::new_saturating(self.center - r, self.center + r)
    }

    /// True when `p` lies inside or on the sphere: `|p - c|^2 <= r^2`.
    #[inline]
    pub fn contains_point(&self, p: &Point) -> bool {
        (p - self.center).norm_squared() <= self.radius * self.radius
    }
}
