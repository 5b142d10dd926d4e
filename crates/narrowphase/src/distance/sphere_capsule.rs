//! Distance between a sphere and a capsule.

use super::{from_cores, ShapeDistance};
use crate::closest::closest_point_segment;
use crate::relative::about;
use crate::shape::{Capsule, Sphere};

/// The distance between sphere A and capsule B and their closest points:
/// the centre against the capsule's segment ([`closest_point_segment`]),
/// minus both radii, clamped to 0.
///
/// - Overlapping: distance 0 at a point of the line from the centre to its
///   closest segment point, inside both (see [`ShapeDistance`]).
/// - A zero-length capsule is a sphere.
/// - Far from the origin: found relative to the sphere's centre (see the `relative` module),
///   so the distance carries the rounding of the shapes' size and distance,
///   not of their coordinates.
#[inline]
#[must_use]
pub fn distance_sphere_capsule(a: &Sphere, b: &Capsule) -> ShapeDistance {
    about(a, b, &a.center().coords, distance_sphere_capsule_in_place)
}

/// [`distance_sphere_capsule`] in the shapes' own coordinates (no move to a point of
/// theirs): for callers that have moved them already.
#[inline(always)]
pub(crate) fn distance_sphere_capsule_in_place(a: &Sphere, b: &Capsule) -> ShapeDistance {
    from_cores(*a.center(), a.radius(), closest_point_segment(a.center(), b.a(), b.b()), b.radius())
}
