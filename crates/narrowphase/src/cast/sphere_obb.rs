//! Swept sphere against oriented box.

use super::sphere_aabb::sweep_sphere_box;
use super::sweep::{motion_is_finite, SweepHit};
use crate::math::{UnitVector, Vector};
use crate::shape::{Obb, Sphere};

/// First contact of a sphere moving by `motion` with a static oriented box.
///
/// The centre and the motion are moved into the box frame (`R^T (c - centre)`
/// and `R^T motion`; a rotation keeps lengths, so `toi` is unchanged), the
/// box becomes `[-h, h]`, and the exact Minkowski-sum method of
/// [`cast_sphere_aabb`](crate::cast_sphere_aabb) (Ericson, Real-Time
/// Collision Detection, 5.5.7) runs there; the point and normal are mapped
/// back (`centre + R x`, `R n`). No iteration: the accuracy does not depend
/// on the box's size.
///
/// Degenerate cases are those of [`cast_sphere_aabb`](crate::cast_sphere_aabb):
/// a start overlapping or touching is
/// [`Penetrating`](crate::SweepStatus::Penetrating) (nearest box point; a
/// centre inside reports the nearest face), zero motion is the static
/// overlap test, a zero radius is the ray cast of
/// [`cast_ray_obb`](crate::cast_ray_obb), a flat box (zero half-extent) is a
/// rectangle.
///
/// ```
/// use proxima_narrowphase::{cast_sphere_obb, Obb, Point, Rotation, Sphere, Vector};
/// let rot = Rotation::from_euler_angles(0.0, 0.0, std::f32::consts::FRAC_PI_4);
/// let b = Obb::new(Point::new(10.0, 0.0, 0.0), rot, Vector::new(1.0, 1.0, 1.0));
/// let s = Sphere::new(Point::origin(), 1.0);
/// let hit = cast_sphere_obb(&s, &Vector::new(20.0, 0.0, 0.0), &b).unwrap();
/// // The box's vertical edge points at the sphere: contact at x = 10 - sqrt(2).
/// assert!((hit.point - Point::new(10.0 - 2f32.sqrt(), 0.0, 0.0)).norm() < 1e-4);
/// assert!((hit.toi - (9.0 - 2f32.sqrt()) / 20.0).abs() < 1e-6);
/// ```
#[inline]
#[must_use]
pub fn cast_sphere_obb(sphere: &Sphere, motion: &Vector, obb: &Obb) -> Option<SweepHit> {
    if !motion_is_finite(motion) {
        return None;
    }
    let o = obb.to_local(sphere.center());
    let m = obb.to_local_vector(motion);
    let h = obb.half_extents();
    let (toi, point, normal) = sweep_sphere_box(&o, &m, sphere.radius(), &-h, h)?;
    let normal = UnitVector::new_unchecked(obb.axes() * normal);
    Some(SweepHit::new(toi, obb.to_world(&point), normal))
}
