//! Closest points and distances from a point to each shape.

mod aabb;
mod obb;
mod precise;
mod segment;
mod segment_box;
mod segment_triangle;
mod sphere;
mod triangle;

pub use aabb::{closest_point_aabb, distance_point_aabb, distance_squared_point_aabb};
pub use obb::{closest_point_obb, distance_point_obb};
pub(crate) use precise::{closest_points_segment_box_f64, closest_points_segment_triangle_f64, V64};
pub use segment::{closest_point_segment, closest_points_segment_segment, distance_point_segment};
pub(crate) use segment_box::closest_points_segment_box_local;
pub use segment_box::{closest_points_segment_aabb, closest_points_segment_obb};
pub use segment_triangle::closest_points_segment_triangle;
pub(crate) use segment_triangle::closest_points_segment_triangle_boundary;
pub use sphere::{closest_point_sphere, distance_point_sphere};
pub(crate) use triangle::face_normal;
pub use triangle::{closest_point_triangle, distance_point_triangle};

use crate::math::Point;

/// The closest pair of points between two shapes A and B (the first and the
/// second operand of a `closest_points_*` function), in world space. When the
/// shapes overlap, both are a common point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClosestPoints {
    /// The point of A closest to B.
    pub point_a: Point,
    /// The point of B closest to A.
    pub point_b: Point,
}
