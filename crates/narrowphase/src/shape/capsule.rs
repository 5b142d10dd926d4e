//! Capsule: a segment swept by a sphere.

use super::Aabb;
use crate::error::ShapeError;
use crate::math::{is_finite_point, is_within_bound, within_bound, Point, Real, Vector, MAX_COORDINATE};

/// A solid capsule: every point within `radius` of the segment `[a, b]`.
///
/// Invariant: finite endpoints, finite `radius >= 0`; `a == b` gives a sphere.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "crate::validated_serde::CapsuleFields")
)]
pub struct Capsule {
    a: Point,
    b: Point,
    radius: Real,
}

impl Capsule {
    /// The shape with `o` as its origin (see the `relative` module). Not
    /// checked: the difference of two valid coordinates stays finite.
    #[inline(always)]
    pub(crate) fn relative_to(&self, o: &Vector) -> Self {
        Self { a: self.a - o, b: self.b - o, radius: self.radius }
    }

    /// A capsule around the segment `[a, b]`; rejects non-finite values, a
    /// negative radius, and a coordinate or radius beyond [`MAX_COORDINATE`] (`1e18`).
    #[inline(always)]
    pub fn try_new(a: Point, b: Point, radius: Real) -> Result<Self, ShapeError> {
        // Every rule in one test (`<=` is false for NaN and infinity).
        if within_bound(&a.coords) & within_bound(&b.coords) & (0.0..=MAX_COORDINATE).contains(&radius) {
            return Ok(Self { a, b, radius });
        }
        Err(Self::rejection(&a, &b, radius))
    }

    /// Why [`Capsule::try_new`] rejects its arguments, in the order of its rules.
    #[cold]
    #[inline(never)]
    fn rejection(a: &Point, b: &Point, radius: Real) -> ShapeError {
        if !is_finite_point(a) || !is_finite_point(b) || !radius.is_finite() {
            return ShapeError::NonFinite("capsule endpoint or radius");
        }
        if radius < 0.0 {
            return ShapeError::NegativeRadius;
        }
        debug_assert!(!is_within_bound(&a.coords) || !is_within_bound(&b.coords) || radius > MAX_COORDINATE);
        ShapeError::TooLarge("capsule endpoint or radius")
    }

    /// A capsule around the segment `[a, b]`.
    ///
    /// # Panics
    /// When [`Capsule::try_new`] would return an error.
    #[track_caller]
    pub fn new(a: Point, b: Point, radius: Real) -> Self {
        Self::try_new(a, b, radius).unwrap_or_else(|e| panic!("invalid Capsule: {e}"))
    }

    /// The first endpoint of the core segment.
    #[inline]
    pub fn a(&self) -> &Point {
        &self.a
    }

    /// The second endpoint of the core segment.
    #[inline]
    pub fn b(&self) -> &Point {
        &self.b
    }

    /// The radius, `>= 0`.
    #[inline]
    pub fn radius(&self) -> Real {
        self.radius
    }

    /// The tight bounding box: the segment's box grown by the radius.
    #[inline(always)]
    pub fn aabb(&self) -> Aabb {
        let r = Vector::repeat(self.radius);
        Aabb::new_saturating(self.a.inf(&self.b) - r, self.a.sup(&self.b) + r)
    }

    /// True when `p` lies inside or on the capsule.
    #[inline]
    pub fn contains_point(&self, p: &Point) -> bool {
        let q = crate::closest::closest_point_segment(p, &self.a, &self.b);
        (p - q).norm_squared() <= self.radius * self.radius
    }
}
