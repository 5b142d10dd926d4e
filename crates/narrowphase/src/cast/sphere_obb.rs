//! Swept sphere against oriented box.

use super::sphere_aabb::sweep_sphere_box;
use super::sweep::{motion_is_finite, SweepHit};
use crate::math::{rotation_matrix_f64, Point, Real, UnitVector, Vector};
use crate::shape::{Obb, Sphere};

/// First contact of a sphere moving by `motion` with a static oriented box.
///
/// The centre and the motion are moved into the box frame (`R^T (c - centre)`
/// and `R^T motion`, in f64: the offset is subtracted before it is rotated,
/// and the motion rotated apart, so neither the box's size nor its distance
/// from the origin costs precision; a rotation keeps lengths, so `toi` is
/// unchanged), the box becomes `[-h, h]`, and the exact Minkowski-sum method
/// of [`cast_sphere_aabb`](crate::cast_sphere_aabb) (Ericson, Real-Time
/// Collision Detection, 5.5.7) runs there; the point and normal are mapped
/// back (`centre + R x`, `R n`). `R` is the box's rotation built in f64 from
/// its quaternion, not the f32 [`Obb::axes`](crate::Obb::axes): their ~6e-8
/// rounding would move a face of a box of half-extent 5000 by 3e-4, a large
/// part of a short motion. No iteration: `toi` is exact to its f32 rounding
/// for any size, offset and motion length.
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
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{cast_sphere_obb, Obb, Point, Rotation, Sphere, Vector};
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
    // The frame change in f64: the difference of the nearby large
    // coordinates first (exact), then the rotation of that small offset and,
    // apart, of the motion (products of f32 values, exact in f64).
    let axes = rotation_matrix_f64(obb.rotation());
    let centre = obb.center().coords.cast::<f64>();
    let o = axes.tr_mul(&(sphere.center().coords.cast::<f64>() - centre));
    let m = axes.tr_mul(&motion.cast::<f64>());
    let h = obb.half_extents().cast::<f64>();
    let (toi, point, normal) = sweep_sphere_box(&o, &m, f64::from(sphere.radius()), &-h, &h)?;
    let normal = UnitVector::new_unchecked((axes * normal).cast::<Real>());
    let point = Point::from((centre + axes * point).cast::<Real>());
    Some(SweepHit::new(toi as Real, point, normal))
}
