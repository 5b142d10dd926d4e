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
#[must_use]
pub fn cast_ray_aabb(ray: &Ray, aabb: &Aabb) -> Option<RayHit> {
    let pre = PrecomputedRay::new(ray);
    let (t_enter, _) = ray_aabb_interval(&pre, aabb)?;
    // The entry face is on the axis whose near plane gave t_enter.
    let bounds = [aabb.min(), aabb.max()];
    let mut best: Option<(usize, Real)> = None;
    for axis in 0..3 {
        let near = (bounds[pre.sign[axis]][axis] - pre.origin[axis]) * pre.inv_dir[axis];
        if near >= 0.0 && near == t_enter && best.is_none_or(|(_, t)| near > t) {
            best = Some((axis, near));
        }
    }
    let normal = match best {
        Some((axis, _)) => {
            let mut n = Vector::zeros();
            n[axis] = if pre.sign[axis] == 1 { 1.0 } else { -1.0 };
            UnitVector::new_unchecked(n)
        }
        None => ray.back_normal(),
    };
    Some(RayHit { toi: t_enter, normal })
}
