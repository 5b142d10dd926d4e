//! Distance between a sphere and a triangle.

use super::{from_cores, ShapeDistance};
use crate::closest::closest_point_triangle;
use crate::math::Point;
use crate::shape::{Sphere, Triangle};

/// The distance between sphere A and triangle B (a surface) and their closest
/// points: `x`, the triangle point closest to the centre
/// ([`closest_point_triangle`], Ericson 5.1.5), at `|x - c| - r`.
///
/// - Overlapping (`|x - c| <= r`): distance 0 at `x`.
/// - A degenerate triangle is the segment or point it collapses to.
/// - Far from the origin: `x` is found relative to `c` (each vertex minus
///   `c` rounds relative to that difference), so the distance carries the
///   rounding of the shapes' size and distance, not of their coordinates.
#[inline]
#[must_use]
pub fn distance_sphere_triangle(a: &Sphere, b: &Triangle) -> ShapeDistance {
    let c = a.center().coords;
    let x = closest_point_triangle(&Point::origin(), &b.relative_to(&c));
    from_cores(Point::origin(), a.radius(), x, 0.0).moved_by(&c)
}
