//! Sphere (ball).

use super::Aabb;
use crate::error::ShapeError;
use crate::math::{is_finite_point, is_within_bound, within_bound, Point, Real, Vector, MAX_COORDINATE};

/// A solid sphere: every point within `radius` of `center` (boundary included).
///
/// Invariant: finite centre, finite `radius >= 0` (a zero radius is a point).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "crate::validated_serde::SphereFields")
)]
pub struct Sphere {
    center: Point,
    radius: Real,
}

impl Sphere {
    /// The shape with `o` as its origin (see the `relative` module). Not
    /// checked: the difference of two valid coordinates stays finite.
    #[inline(always)]
    pub(crate) fn relative_to(&self, o: &Vector) -> Self {
        Self { center: self.center - o, radius: self.radius }
    }

    /// A sphere; rejects a non-finite centre or radius, a negative radius, and
    /// a centre coordinate or radius beyond [`MAX_COORDINATE`] (`1e18`).
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
    /// use proxima::narrowphase::{Point, Sphere, ShapeError};
    /// assert!(Sphere::try_new(Point::origin(), 1.0).is_ok());
    /// assert_eq!(Sphere::try_new(Point::origin(), -1.0), Err(ShapeError::NegativeRadius));
    /// ```
    #[inline(always)]
    pub fn try_new(center: Point, radius: Real) -> Result<Self, ShapeError> {
        // Every rule in one test (`<=` is false for NaN and infinity).
        if within_bound(&center.coords) & (0.0..=MAX_COORDINATE).contains(&radius) {
            return Ok(Self { center, radius });
        }
        Err(Self::rejection(&center, radius))
    }

    /// Why [`Sphere::try_new`] rejects its arguments, in the order of its rules.
    #[cold]
    #[inline(never)]
    fn rejection(center: &Point, radius: Real) -> ShapeError {
        if !is_finite_point(center) || !radius.is_finite() {
            return ShapeError::NonFinite("sphere centre or radius");
        }
        if radius < 0.0 {
            return ShapeError::NegativeRadius;
        }
        debug_assert!(!is_within_bound(&center.coords) || radius > MAX_COORDINATE);
        ShapeError::TooLarge("sphere centre or radius")
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
    #[inline(always)]
    pub fn aabb(&self) -> Aabb {
        let r = Vector::repeat(self.radius);
        Aabb::new_saturating(self.center - r, self.center + r)
    }

    /// The box swept by the sphere moving by `motion` (`c -> c + motion`):
    /// the start and end boxes merged, saturating at `±f32::MAX` (a long
    /// motion may end beyond [`MAX_COORDINATE`], where no sphere can be
    /// built, and beyond the f32 range). `None` for a NaN or infinite motion.
    #[inline]
    pub fn swept_aabb(&self, motion: &Vector) -> Option<Aabb> {
        if !motion.iter().all(|x| x.is_finite()) {
            return None;
        }
        let r = Vector::repeat(self.radius);
        let end = self.center + motion;
        let (lo, hi) = (self.center.inf(&end), self.center.sup(&end));
        Some(Aabb::new_saturating(lo - r, hi + r))
    }

    /// True when `p` lies inside or on the sphere: `|p - c|^2 <= r^2`.
    #[inline]
    pub fn contains_point(&self, p: &Point) -> bool {
        (p - self.center).norm_squared() <= self.radius * self.radius
    }
}
