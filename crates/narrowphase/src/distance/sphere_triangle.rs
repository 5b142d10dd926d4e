//! Distance between a sphere and a triangle.

use super::{from_cores, ShapeDistance};
use crate::closest::closest_point_triangle;
use crate::shape::{Sphere, Triangle};

/// The distance between sphere A and triangle B (a surface) and their closest
/// points: `x`, the triangle point closest to the centre
/// ([`closest_point_triangle`], Ericson 5.1.5), at `|x - c| - r`.
///
/// - Overlapping (`|x - c| <= r`): distance 0 at `x`.
/// - A degenerate triangle is the segment or point it collapses to.
#[inline]
#[must_use]
pub fn distance_sphere_triangle(a: &Sphere, b: &Triangle) -> ShapeDistance {
    from_cores(*a.center(), a.radius(), closest_point_triangle(a.center(), b), 0.0)
}
