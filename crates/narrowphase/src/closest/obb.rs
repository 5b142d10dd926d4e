//! Closest point on an oriented box.

use crate::math::{Point, Real};
use crate::shape::Obb;

/// The point of the solid box closest to `p`: clamp `p` in the box frame to
/// `±half_extents`, then map back to world (Ericson 5.1.4). A point inside
/// returns itself (up to rounding of the frame change).
#[inline]
#[must_use]
pub fn closest_point_obb(p: &Point, obb: &Obb) -> Point {
    let h = obb.half_extents();
    let local = obb.to_local(p).zip_map(h, |x, h| x.clamp(-h, h));
    obb.to_world(&local)
}

/// Distance from `p` to the solid box (0 inside), computed in the box frame.
#[inline]
#[must_use]
pub fn distance_point_obb(p: &Point, obb: &Obb) -> Real {
    let h = obb.half_extents();
    let local = obb.to_local(p);
    local.zip_map(h, |x, h| (x.abs() - h).max(0.0)).norm()
}
