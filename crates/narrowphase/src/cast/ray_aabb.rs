//! Ray against axis-aligned box: the slab method.

use super::ray::{PrecomputedRay, Ray, RayHit};
use crate::math::{Real, UnitVector, Vector};
use crate::shape::Aabb;

/// Where a prepared ray is inside a closed box: the result of [`ray_aabb_interval`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayInterval {
    /// The ray parameter where the ray enters the box, clipped below at 0
    /// (so 0 when the origin is inside), never `-0.0`.
    pub toi_enter: Real,
    /// The ray parameter where the ray leaves the box, clipped above at
    /// `max_toi`; `toi_enter <= toi_exit`.
    pub toi_exit: Real,
}

/// The entry and exit parameters of a prepared ray through a closed box,
/// clipped to `[0, max_toi]`; `None` when the ray misses.
///
/// Per axis the slab `[min, max]` is entered at `(near - o) / d` and left at
/// `(far - o) / d`, where `near` is `min` for `d >= 0` and `max` for `d < 0`
/// (chosen by `sign`, Williams et al. 2005). The entry is the largest near
/// time, the exit the smallest far time. For a zero component `inv_dir` is
/// `±inf`: the slab gives `-inf`/`+inf` when the origin is strictly inside it
/// and an empty interval when outside. When the origin lies exactly on a slab
/// plane the product is `0 * inf = NaN`; the running maximum and minimum
/// ignore a NaN operand, which treats that slab as unbounded: a ray gliding
/// along a face hits the closed box, as it should.
///
/// The maximum and minimum are the selects `near > t_enter ? near : t_enter`
/// and `far < t_exit ? far : t_exit`, the SIMD kernels' `maxps(near,
/// t_enter)` and `minps(far, t_exit)` (see
/// [`cast_ray_aabb_x8`](crate::kernels::cast_ray_aabb_x8)): on ties the running value
/// is kept, so the entry is bit-identical to theirs and never `-0.0`.
/// `f32::max(0.0, -0.0)` may return either zero, which one depending on the
/// build (a fuzzing build gave `-0.0` where the x8 kernel gave `+0.0`).
#[inline]
pub fn ray_aabb_interval(ray: &PrecomputedRay, aabb: &Aabb) -> Option<RayInterval> {
    let bounds = [aabb.min(), aabb.max()];
    let mut t_enter: Real = 0.0;
    let mut t_exit = ray.max_toi;
    for axis in 0..3 {
        let near = (bounds[ray.sign[axis]][axis] - ray.origin[axis]) * ray.inv_dir[axis];
        let far = (bounds[1 - ray.sign[axis]][axis] - ray.origin[axis]) * ray.inv_dir[axis];
        t_enter = if near > t_enter { near } else { t_enter };
        t_exit = if far < t_exit { far } else { t_exit };
    }
    (t_enter <= t_exit).then_some(RayInterval { toi_enter: t_enter, toi_exit: t_exit })
}

/// Entry of the ray `o + t d`, `t` in `[0, max_toi]`, into the closed box
/// `[lo, hi]` (all in one frame): `(t_enter, axis, hit)`, where `axis` is
/// the axis of the entry face, or `3` when the origin is inside the box (no
/// face crossed, `t_enter = 0`), and `hit` whether the ray meets the box at
/// all (`t_enter` and `axis` are meaningless otherwise).
///
/// Slab method with sign-selected planes (Williams et al., "An Efficient and
/// Robust Ray-Box Intersection Algorithm", 2005): on each axis the near plane
/// is `lo` for `d >= +0` and `hi` for `d <= -0`, and
/// `t_near = (near - o) / d`, `t_far = (far - o) / d`. A zero component
/// divides by `±0`, giving `±inf` (outside the slab: an empty interval, a
/// miss; inside: unbounded) or, with the origin exactly on a slab plane,
/// `0 * inf = NaN`. NaN compares false in `>=` and is ignored by the
/// running maximum and minimum (the selects of [`ray_aabb_interval`], which
/// also keep `+0.0` on a tie with `-0.0`), so such a slab does not constrain
/// the ray: a ray sliding along a face hits the closed box, with no epsilon
/// and no NaN in the result.
///
/// Branch-free: the planes are selected by the sign bit of `1 / d` with bit
/// masks and the entry axis is tracked with integer masks, so random rays
/// cost no mispredicted branches. `>=` makes an origin exactly on a near
/// plane, moving inwards, enter through that face at `t = 0`.
#[inline]
pub(crate) fn slab(o: &Vector, d: &Vector, lo: &Vector, hi: &Vector, max_toi: Real) -> (Real, usize, bool) {
    let mut t_enter: Real = 0.0;
    let mut axis = 3;
    let mut t_exit = max_toi;
    for i in 0..3 {
        let inv = 1.0 / d[i];
        // All ones when 1/d is negative (d <= -0), else zero.
        let neg = ((inv.to_bits() as i32) >> 31) as u32;
        let t_near = (select(neg, lo[i], hi[i]) - o[i]) * inv;
        let t_far = (select(neg, hi[i], lo[i]) - o[i]) * inv;
        let entered = 0usize.wrapping_sub((t_near >= t_enter) as usize);
        axis ^= (axis ^ i) & entered;
        t_enter = if t_near > t_enter { t_near } else { t_enter };
        t_exit = if t_far < t_exit { t_far } else { t_exit };
    }
    (t_enter, axis, t_enter <= t_exit)
}

/// `b` where `mask` is all ones, `a` where it is zero, bit for bit.
#[inline(always)]
fn select(mask: u32, a: Real, b: Real) -> Real {
    Real::from_bits((a.to_bits() & !mask) | (b.to_bits() & mask))
}

/// `-sign(x)` as `±1.0`: `-1` for `x >= +0`, `+1` for `x <= -0` (the sign bit
/// of `x` flipped onto 1.0). The outward normal of the face a ray with
/// direction component `x` enters.
#[inline(always)]
pub(crate) fn against(x: Real) -> Real {
    Real::from_bits(1.0f32.to_bits() | (!x.to_bits() & 0x8000_0000))
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
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{cast_ray_aabb, Aabb, Point, Ray, Vector};
/// let aabb = Aabb::new(Point::new(1.0, -1.0, -1.0), Point::new(3.0, 1.0, 1.0));
/// let hit = cast_ray_aabb(&Ray::new(Point::origin(), Vector::x(), 10.0), &aabb).unwrap();
/// assert_eq!(hit.toi, 1.0);
/// assert_eq!(hit.normal.into_inner(), -Vector::x());
/// ```
#[inline]
#[must_use]
pub fn cast_ray_aabb(ray: &Ray, aabb: &Aabb) -> Option<RayHit> {
    let d = ray.dir();
    let (toi, axis, hit) = slab(&ray.origin().coords, d, &aabb.min().coords, &aabb.max().coords, ray.max_toi());
    if axis == 3 {
        return hit.then(|| RayHit { toi, normal: ray.back_normal() });
    }
    // The entry face's outward normal is -sign(d_axis) e_axis. Selected, not
    // branched on: see `slab`.
    let mut n = Vector::zeros();
    n[axis] = against(d[axis]);
    let h = RayHit { toi, normal: UnitVector::new_unchecked(n) };
    if hit {
        Some(h)
    } else {
        None
    }
}
