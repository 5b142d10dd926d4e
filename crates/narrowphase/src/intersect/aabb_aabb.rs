//! Axis-aligned box against axis-aligned box.

use crate::shape::Aabb;

/// True when the closed boxes share a point (touching boxes intersect).
///
/// Two intervals overlap iff `min_a <= max_b && min_b <= max_a`; boxes overlap
/// iff their intervals overlap on all three axes.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{intersects_aabb_aabb, Aabb, Point};
/// let a = Aabb::new(Point::new(0.0, 0.0, 0.0), Point::new(1.0, 1.0, 1.0));
/// let b = Aabb::new(Point::new(1.0, 0.0, 0.0), Point::new(2.0, 1.0, 1.0));
/// assert!(intersects_aabb_aabb(&a, &b)); // sharing a face
/// ```
#[inline]
#[must_use]
pub fn intersects_aabb_aabb(a: &Aabb, b: &Aabb) -> bool {
    let (amin, amax, bmin, bmax) = (a.min(), a.max(), b.min(), b.max());
    // Non-short-circuit `&` lets the compiler evaluate all six compares branch-free.
    (amin.x <= bmax.x)
        & (bmin.x <= amax.x)
        & (amin.y <= bmax.y)
        & (bmin.y <= amax.y)
        & (amin.z <= bmax.z)
        & (bmin.z <= amax.z)
}
