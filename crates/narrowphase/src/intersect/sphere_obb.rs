//! Sphere against oriented box.

use crate::math::within_distance;
use crate::shape::{Obb, Sphere};

/// True when the solid sphere and box share a point: the centre, taken into
/// the box frame and clamped to `±half_extents`, is within the radius.
#[inline]
#[must_use]
pub fn intersects_sphere_obb(sphere: &Sphere, obb: &Obb) -> bool {
    let local = obb.to_local(sphere.center());
    let h = obb.half_extents();
    let d = local.zip_map(h, |x, h| (x.abs() - h).max(0.0));
    within_distance(&d, sphere.radius())
}
