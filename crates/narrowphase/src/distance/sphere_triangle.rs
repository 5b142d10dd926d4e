//! Distance between a sphere and a triangle.

use super::{from_cores, ShapeDistance};
use crate::closest::closest_point_triangle;
use crate::relative::about;
use crate::shape::{Sphere, Triangle};

/// The distance between sphere A and triangle B (a surface) and their closest
/// points: `x`, the triangle point closest to the centre
/// ([`closest_point_triangle`], Ericson 5.1.5), at `|x - c| - r`.
///
/// - Overlapping (`|x - c| <= r`): distance 0 at `x`.
/// - A degenerate triangle is the segment or point it collapses to.
/// - Far from the origin: found relative to `c` (see the `relative` module),
///   so the distance carries the rounding of the shapes' size and distance,
///   not of their coordinates.
#[inline]
#[must_use]
pub fn distance_sphere_triangle(a: &Sphere, b: &Triangle) -> ShapeDistance {
    about(a, b, &a.center().coords, distance_sphere_triangle_in_place)
}

/// [`distance_sphere_triangle`] in the shapes' own coordinates (no move to a point of
/// theirs): for callers that have moved them already.
#[inline(always)]
pub(crate) fn distance_sphere_triangle_in_place(a: &Sphere, b: &Triangle) -> ShapeDistance {
    from_cores(*a.center(), a.radius(), closest_point_triangle(a.center(), b), 0.0)
}
