//! Distance between two capsules.

use super::{from_cores, ShapeDistance};
use crate::closest::{closest_points_segment_segment, ClosestPoints};
use crate::relative::about;
use crate::shape::Capsule;

/// The distance between capsules A and B and their closest points: the
/// closest pair `(s, t)` of the two segments
/// ([`closest_points_segment_segment`], Ericson 5.1.9) at `|t - s| - r_a - r_b`.
///
/// - Overlapping: distance 0 at `s + (t - s) r_a / (r_a + r_b)`, inside both.
/// - Parallel segments: one of their closest pairs (the distance is unique).
/// - Zero-length segments are spheres.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{distance_capsule_capsule, Capsule, Point};
/// let a = Capsule::new(Point::new(-1.0, 0.0, 0.0), Point::new(1.0, 0.0, 0.0), 0.5);
/// let b = Capsule::new(Point::new(0.0, 2.0, -1.0), Point::new(0.0, 2.0, 1.0), 0.5);
/// let d = distance_capsule_capsule(&a, &b);
/// assert!((d.distance - 1.0).abs() < 1e-6);
/// assert!((d.point_a - Point::new(0.0, 0.5, 0.0)).norm() < 1e-6);
/// assert!((d.point_b - Point::new(0.0, 1.5, 0.0)).norm() < 1e-6);
/// ```
#[inline]
#[must_use]
pub fn distance_capsule_capsule(a: &Capsule, b: &Capsule) -> ShapeDistance {
    about(a, b, &a.a().coords, distance_capsule_capsule_in_place)
}

/// [`distance_capsule_capsule`] in the shapes' own coordinates (no move to a point of
/// theirs): for callers that have moved them already.
#[inline(always)]
pub(crate) fn distance_capsule_capsule_in_place(a: &Capsule, b: &Capsule) -> ShapeDistance {
    let ClosestPoints { point_a: s, point_b: t } = closest_points_segment_segment(a.a(), a.b(), b.a(), b.b());
    from_cores(s, a.radius(), t, b.radius())
}
