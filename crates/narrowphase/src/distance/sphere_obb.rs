//! Distance between a sphere and a box.

use super::{from_cores, ShapeDistance};
use crate::closest::{closest_point_aabb, closest_point_obb};
use crate::relative::about;
use crate::shape::{Aabb, Obb, Sphere};

/// The distance between sphere A and the solid axis-aligned box B and their
/// closest points: `x`, the box point closest to the centre
/// ([`closest_point_aabb`], a clamp per axis), at `|x - c| - r`.
///
/// - Overlapping (`|x - c| <= r`, a centre inside the box included): distance
///   0 at `x`, which lies in the box and in the sphere.
/// - A zero-size box is a point.
#[inline]
#[must_use]
pub fn distance_sphere_aabb(a: &Sphere, b: &Aabb) -> ShapeDistance {
    from_cores(*a.center(), a.radius(), closest_point_aabb(a.center(), b), 0.0)
}

/// The distance between sphere A and the solid oriented box B and their
/// closest points, as [`distance_sphere_aabb`] in the box frame
/// ([`closest_point_obb`]).
///
/// - Far from the origin: found relative to the sphere's centre (see the `relative` module),
///   so the distance carries the rounding of the shapes' size and distance,
///   not of their coordinates.
#[inline]
#[must_use]
pub fn distance_sphere_obb(a: &Sphere, b: &Obb) -> ShapeDistance {
    about(a, b, &a.center().coords, distance_sphere_obb_in_place)
}

/// [`distance_sphere_obb`] in the shapes' own coordinates (no move to a point of
/// theirs): for callers that have moved them already.
#[inline(always)]
pub(crate) fn distance_sphere_obb_in_place(a: &Sphere, b: &Obb) -> ShapeDistance {
    from_cores(*a.center(), a.radius(), closest_point_obb(a.center(), b), 0.0)
}
