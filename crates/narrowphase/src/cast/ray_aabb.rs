//! Ray against axis-aligned box: the slab method.

use super::ray::{PrecomputedRay, Ray, RayHit};
use crate::math::{Real, UnitVector, Vector};
use crate::shape::Aabb;

/// The entry and exit parameters of a prepared ray through a closed box,
/// clipped to `[0, max_toi]`; `None` when the ray misses.
///
/// Per axis the slab `[min, max]` is entered at `(near - o) / d` and left at
/// `(far - o) / d`, where `near` is `min` for `d >= 0` and `max` for `d < 0`
/// (chosen by `sign`, Williams et al. 2005). The entry is the largest near
/// time, the exit the smallest far time. For a zero component `inv_dir` is
/// `±inf`: the slab gives `-inf`/`+inf` when the origin is strictly inside it
/// and an empty interval when outside. When the origin lies exactly on a slab
/// plane the product is `0 * inf = NaN`; `f32::max`/`f32::min` ignore a NaN
/// operand, which treats that slab as unbounded: a ray gliding along a face
/// hits the closed box, as it should.
#[inline]
pub fn ray_aabb_interval(ray: &PrecomputedRay, aabb: &Aabb) -> Option<(Real, Real)> {
    let bounds = [aabb.min(), aabb.max()];
    let mut t_enter: Real = 0.0;
    let mut t_exit = ray.max_toi;
    for axis in 0..3 {
        let near = (bounds[ray.sign[axis]][axis] - ray.origin[axis]) * ray.inv_dir[axis];
        let far = (bounds[1 - ray.sign[axis]][axis] - ray.origin[axis]) * ray.inv_dir[axis];
        t_enter = t_enter.max(near);
        t_exit = t_exit.min(far);
    }
    (t_enter <= t_exit).then_some((t_enter, t_exit))
}

/// Entry of the ray `o + t d`, `t` in `[0, max_toi]`, into the closed box
/// `[lo, hi]` (all in one frame): `(t_enter, axis)`, where `axis` is the
/// axis of the entry face, or `3` when the origin is inside the box (no face
/// crossed, `t_enter = 0`). `None` when the ray misses.
///
/// Slab method with sign-selected planes (Williams et al., "An Efficient and
/// Robust Ray-Box Intersection Algorithm", 2005): on each axis the near plane
/// is `lo` for `d >= +0` and `hi` for `d <= -0`, and
/// `t_near = (near - o) / d`, `t_far = (far - o) / d`. A zero component
/// divides by `±0`, giving `±inf` (outside the slab: an empty interval, a
/// miss; inside: unbounded) or, with the origin exactly on a slab plane,
/// `0 * inf = NaN`. NaN compares false in `>` and is ignored by
/// `f32::min`, so such a slab does not constrain the ray: a ray sliding
/// along a face hits the closed box, with no epsilon and no NaN in the result.
#[inline]
pub(crate) fn slab_enter(o: &Vector, d: &Vector, lo: &Vector, hi: &Vector, max_toi: Real) -> Option<(Real, usize)> {
    let mut t_enter: Real = 0.0;
    let mut axis = 3;
    let mut t_exit = max_toi;
    for i in 0..3 {
        let inv = 1.0 / d[i];
        let (near, far) = if inv.is_sign_negative() { (hi[i], lo[i]) } else { (lo[i], hi[i]) };
        let t_near = (near - o[i]) * inv;
        let t_far = (far - o[i]) * inv;
        // `>=`: an origin exactly on a near plane and moving inwards enters
        // through that face at t = 0 (its normal is reported).
        if t_near >= t_enter {
            t_enter = t_near;
            axis = i;
        }
        t_exit = t_exit.min(t_far);
    }
    (t_enter <= t_exit).then_some((t_enter, axis))
}

/// First hit of a ray on a solid axis-aligned box.
///
/// Returns the entry `toi` and the outward unit normal of the entry face. A
/// ray whose origin is inside (or on) the box and does not enter through a
/// face returns `toi = 0` with normal `-dir / |dir|`: the box is solid.
/// A ray parallel to a face is exact (no epsilon), including one that slides
/// along the face plane, which hits. `max_toi = 0` hits only when the origin
/// is in the box.
///
/// ```
/// use proxima_narrowphase::{cast_ray_aabb, Aabb, Point, Ray, Vector};
/// let aabb = Aabb::new(Point::new(1.0, -1.0, -1.0), Point::new(3.0, 1.0, 1.0));
/// let hit = cast_ray_aabb(&Ray::new(Point::origin(), Vector::x(), 10.0), &aabb).unwrap();
/// assert_eq!(hit.toi, 1.0);
/// assert_eq!(hit.normal.into_inner(), -Vector::x());
/// ```
#[inline]
#[must_use]
pub fn cast_ray_aabb(ray: &Ray, aabb: &Aabb) -> Option<RayHit> {
    let d = ray.dir();
    let (toi, axis) = slab_enter(&ray.origin().coords, d, &aabb.min().coords, &aabb.max().coords, ray.max_toi())?;
    if axis == 3 {
        return Some(RayHit { toi, normal: ray.back_normal() });
    }
    // The entry face's outward normal is -sign(d_axis) e_axis.
    let mut n = Vector::zeros();
    n[axis] = if d[axis] < 0.0 { 1.0 } else { -1.0 };
    Some(RayHit { toi, normal: UnitVector::new_unchecked(n) })
}
