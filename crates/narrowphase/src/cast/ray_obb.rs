//! Ray against oriented box: the slab method in the box frame.

use super::ray::{Ray, RayHit};
use super::ray_aabb::{against, slab};
use crate::math::UnitVector;
use crate::shape::Obb;

/// First hit of a ray on a solid oriented box.
///
/// The ray is moved into the box frame (`R^T (o - c)`, `R^T d`, exact up to
/// rounding since `R` is a rotation, so `toi` is unchanged), cut by the three
/// slabs `[-h, h]` (see the slab rules in [`cast_ray_aabb`](crate::cast_ray_aabb)),
/// and the entry face's normal is rotated back to world: it is column `axis`
/// of `R`, negated when the ray travels along it.
///
/// Degenerate cases: a ray starting inside (or on the boundary, moving out)
/// returns `toi = 0` with normal `-dir / |dir|`; a ray parallel to a face,
/// including one sliding exactly in the face plane, is handled without an
/// epsilon (the closed box is hit); a flat box (a zero half-extent) is hit
/// like a rectangle; `max_toi = 0` hits only when the origin is in the box.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{cast_ray_obb, Obb, Point, Ray, Rotation, Vector};
/// let rot = Rotation::from_euler_angles(0.0, 0.0, std::f32::consts::FRAC_PI_4);
/// let obb = Obb::new(Point::new(5.0, 0.0, 0.0), rot, Vector::new(1.0, 1.0, 1.0));
/// let hit = cast_ray_obb(&Ray::new(Point::origin(), Vector::x(), 10.0), &obb).unwrap();
/// assert!((hit.toi - (5.0 - 2f32.sqrt())).abs() < 1e-5);
/// ```
#[inline]
#[must_use]
pub fn cast_ray_obb(ray: &Ray, obb: &Obb) -> Option<RayHit> {
    let o = obb.to_local(ray.origin());
    let d = obb.to_local_vector(ray.dir());
    let h = obb.half_extents();
    let (toi, axis, hit) = slab(&o, &d, &-h, h, ray.max_toi());
    if axis == 3 {
        return hit.then(|| RayHit { toi, normal: ray.back_normal() });
    }
    // Entry face normal: -sign(d_axis) e_axis in the box frame, i.e. column
    // `axis` of R, negated when the ray travels along it.
    let normal = obb.axes().column(axis) * against(d[axis]);
    let h = RayHit { toi, normal: UnitVector::new_unchecked(normal) };
    if hit {
        Some(h)
    } else {
        None
    }
}
