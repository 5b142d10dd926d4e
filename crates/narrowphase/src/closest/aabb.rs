//! Closest point on an axis-aligned box.

use crate::math::{Point, Real};
use crate::shape::Aabb;

/// The point of the solid box closest to `p`: `p` clamped to `[min, max]`
/// per axis (Ericson 5.1.3). A point inside returns itself.
#[inline]
#[must_use]
pub fn closest_point_aabb(p: &Point, aabb: &Aabb) -> Point {
    p.sup(aabb.min()).inf(aabb.max())
}

/// Squared distance from `p` to the solid box (0 inside).
#[inline]
#[must_use]
pub fn distance_squared_point_aabb(p: &Point, aabb: &Aabb) -> Real {
    (p - closest_point_aabb(p, aabb)).norm_squared()
}

/// Distance from `p` to the solid box (0 inside).
#[inline]
#[must_use]
pub fn distance_point_aabb(p: &Point, aabb: &Aabb) -> Real {
    distance_squared_point_aabb(p, aabb).sqrt()
}
