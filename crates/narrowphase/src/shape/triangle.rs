//! Triangle.

use super::Aabb;
use crate::error::ShapeError;
use crate::math::{is_finite_point, is_within_bound, Point, Real, Vector};

/// A triangle `(a, b, c)`, a flat two-sided surface. Its front face is the one
/// that `(b - a) x (c - a)` points out of (counter-clockwise seen from the front).
///
/// Invariant: finite vertices. Degenerate (zero-area) triangles are allowed;
/// every query handles them as the segment or point they collapse to.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "crate::validated_serde::TriangleFields")
)]
pub struct Triangle {
    /// First vertex.
    pub(crate) a: Point,
    /// Second vertex.
    pub(crate) b: Point,
    /// Third vertex.
    pub(crate) c: Point,
}

impl Triangle {
    /// A triangle; rejects non-finite vertices and a coordinate beyond
    /// [`MAX_COORDINATE`](crate::MAX_COORDINATE) (`1e18`).
    pub fn try_new(a: Point, b: Point, c: Point) -> Result<Self, ShapeError> {
        if !is_finite_point(&a) || !is_finite_point(&b) || !is_finite_point(&c) {
            return Err(ShapeError::NonFinite("triangle vertex"));
        }
        if !is_within_bound(&a.coords) || !is_within_bound(&b.coords) || !is_within_bound(&c.coords) {
            return Err(ShapeError::TooLarge("triangle vertex"));
        }
        Ok(Self { a, b, c })
    }

    /// A triangle of vertices the caller has already validated as
    /// [`Triangle::try_new`] does (a mesh's, checked once when the mesh was
    /// built): no check in release builds, a debug assertion otherwise. A
    /// vertex that would fail the check gives meaningless answers (NaN or
    /// overflowing coordinates), never undefined behaviour.
    #[inline]
    #[must_use]
    pub fn new_unchecked(a: Point, b: Point, c: Point) -> Self {
        debug_assert!(Self::try_new(a, b, c).is_ok(), "invalid Triangle: {a} {b} {c}");
        Self { a, b, c }
    }

    /// A triangle.
    ///
    /// # Panics
    /// When [`Triangle::try_new`] would return an error.
    #[track_caller]
    pub fn new(a: Point, b: Point, c: Point) -> Self {
        Self::try_new(a, b, c).unwrap_or_else(|e| panic!("invalid Triangle: {e}"))
    }

    /// First vertex.
    #[inline]
    pub fn a(&self) -> &Point {
        &self.a
    }

    /// Second vertex.
    #[inline]
    pub fn b(&self) -> &Point {
        &self.b
    }

    /// Third vertex.
    #[inline]
    pub fn c(&self) -> &Point {
        &self.c
    }

    /// The vertices as an array.
    #[inline]
    pub fn vertices(&self) -> [Point; 3] {
        [self.a, self.b, self.c]
    }

    /// The triangle with `o` as its origin: each vertex minus `o`, which
    /// rounds relative to that difference, so a query about a point near
    /// `o` keeps the precision of the shapes' size far from the origin. Not
    /// checked: the differences of two valid coordinates stay finite.
    #[inline]
    pub(crate) fn relative_to(&self, o: &Vector) -> Self {
        Self { a: self.a - o, b: self.b - o, c: self.c - o }
    }

    /// The unnormalised face normal `(b - a) x (c - a)` (zero when degenerate).
    #[inline]
    pub fn scaled_normal(&self) -> Vector {
        (self.b - self.a).cross(&(self.c - self.a))
    }

    /// Area, `|(b - a) x (c - a)| / 2`.
    #[inline]
    pub fn area(&self) -> Real {
        self.scaled_normal().norm() * 0.5
    }

    /// The tight bounding box of the three vertices.
    #[inline]
    pub fn aabb(&self) -> Aabb {
        Aabb::new_unchecked(self.a.inf(&self.b).inf(&self.c), self.a.sup(&self.b).sup(&self.c))
    }

    /// True when `p` lies on the triangle, within `1e-6` of the larger of 1 and
    /// the triangle's size (a surface has no inside: this is a distance test).
    pub fn contains_point(&self, p: &Point) -> bool {
        let q = crate::closest::closest_point_triangle(p, self);
        let scale = (self.b - self.a).norm().max((self.c - self.a).norm()).max(1.0);
        (p - q).norm() <= 1e-6 * scale
    }
}
