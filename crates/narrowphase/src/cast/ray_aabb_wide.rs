//! One ray against 4 or 8 axis-aligned boxes at once: the slab test of
//! [`ray_aabb_interval`](crate::kernels::ray_aabb_interval) on SIMD lanes.
//!
//! The boxes are stored structure-of-arrays ([`AabbX4`], [`AabbX8`]) so one
//! register holds the same bound of every lane. Each kernel gives, per lane,
//! exactly what the scalar slab test gives for that box: the same hit/miss
//! and, for a hit, the bit-identical entry `toi`. Three implementations:
//!
//! - `*_scalar`: portable, one lane at a time, on every target;
//! - `*_sse2`: 4 lanes per instruction, on `x86_64` (SSE2 is part of its baseline);
//! - [`cast_ray_aabb_x8_avx`]: 8 lanes per instruction, when the CPU has AVX
//!   (checked at run time, see [`SimdLevel`]). The kernel only needs AVX's
//!   256-bit float instructions, so it is gated on `avx`, which every AVX2 CPU has.
//!   AVX-512 is not used: 8 lanes fill one AVX register, and 16-lane nodes
//!   would be needed to fill a 512-bit one.
//!
//! [`cast_ray_aabb_x4`] and [`cast_ray_aabb_x8`] pick the best available one
//! (detection runs once per process and is cached).

pub use super::aabb_lanes::{AabbLanes, AabbX4, AabbX8};
pub use super::simd_level::SimdLevel;

use super::ray::PrecomputedRay;
use crate::math::Real;

/// Which lanes a ray enters, and where: the result of the wide kernels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayLaneHits<const W: usize> {
    /// Bit `i` is set when the ray enters lane `i`'s box at a `toi` in `[0, max_toi]`.
    pub mask: u32,
    /// Per lane, the entry `toi` (clipped below at 0) for lanes in `mask`,
    /// bit-identical to `ray_aabb_interval(..)?.toi_enter`. Lanes not in `mask` hold
    /// an unspecified value.
    pub toi: [Real; W],
}

/// The slab test of one lane with the SIMD kernels' operations, written out
/// once as their scalar meaning:
///
/// ```text
/// t_enter = 0, t_exit = max_toi
/// for each axis:
///     near = (bound[axis][sign]     - o) * inv_dir     // NaN when 0 * inf
///     far  = (bound[axis][1 - sign] - o) * inv_dir
///     t_enter = near > t_enter ? near : t_enter        // = maxps(near, t_enter)
///     t_exit  = far  < t_exit  ? far  : t_exit         // = minps(far, t_exit)
/// hit = t_enter <= t_exit
/// ```
///
/// `maxps(a, b)` returns `b` when either operand is NaN, so with the running
/// value second a NaN slab time is ignored, as `f32::max` ignores it in
/// [`ray_aabb_interval`](crate::kernels::ray_aabb_interval) (the running values are
/// never NaN: `max_toi` is not). On ties the running value is kept, so
/// `t_enter` is never `-0.0`, again as in the scalar kernel.
#[inline(always)]
fn lane_scalar<const W: usize>(ray: &PrecomputedRay, boxes: &AabbLanes<W>, lane: usize, max_toi: Real) -> (bool, Real) {
    let mut t_enter: Real = 0.0;
    let mut t_exit = max_toi;
    for axis in 0..3 {
        let s = ray.sign[axis] & 1;
        let near = (boxes.bounds[axis][s][lane] - ray.origin[axis]) * ray.inv_dir[axis];
        let far = (boxes.bounds[axis][1 - s][lane] - ray.origin[axis]) * ray.inv_dir[axis];
        t_enter = if near > t_enter { near } else { t_enter };
        t_exit = if far < t_exit { far } else { t_exit };
    }
    (t_enter <= t_exit, t_enter)
}

/// The portable kernel for `W` lanes (see [`cast_ray_aabb_x4`]).
#[inline]
#[must_use]
pub fn cast_ray_aabb_lanes_scalar<const W: usize>(
    ray: &PrecomputedRay,
    boxes: &AabbLanes<W>,
    max_toi: Real,
) -> RayLaneHits<W> {
    let mut out = RayLaneHits { mask: 0, toi: [0.0; W] };
    for lane in 0..W {
        let (hit, toi) = lane_scalar(ray, boxes, lane, max_toi);
        out.mask |= (hit as u32) << lane;
        out.toi[lane] = toi;
    }
    out
}

/// The portable kernel for 4 lanes (see [`cast_ray_aabb_x4`]).
#[inline]
#[must_use]
pub fn cast_ray_aabb_x4_scalar(ray: &PrecomputedRay, boxes: &AabbX4, max_toi: Real) -> RayLaneHits<4> {
    cast_ray_aabb_lanes_scalar(ray, boxes, max_toi)
}

/// The portable kernel for 8 lanes (see [`cast_ray_aabb_x8`]).
#[inline]
#[must_use]
pub fn cast_ray_aabb_x8_scalar(ray: &PrecomputedRay, boxes: &AabbX8, max_toi: Real) -> RayLaneHits<8> {
    cast_ray_aabb_lanes_scalar(ray, boxes, max_toi)
}

/// The SSE2 kernel for 4 lanes (see [`cast_ray_aabb_x4`]). SSE2 is part of
/// the x86_64 baseline, so this needs no run-time check.
#[cfg(target_arch = "x86_64")]
#[inline]
#[must_use]
pub fn cast_ray_aabb_x4_sse2(ray: &PrecomputedRay, boxes: &AabbX4, max_toi: Real) -> RayLaneHits<4> {
    use core::arch::x86_64::*;
    let mut toi = [0.0; 4];
    // Scalar meaning: `lane_scalar` above, on 4 lanes at once.
    // SAFETY: SSE2 is enabled on every x86_64 target. Each load reads one
    // `[f32; 4]` row of `boxes.bounds`, which starts at a multiple of 16 bytes
    // inside a 32-byte-aligned struct, as `_mm_load_ps` requires; the store
    // writes 4 floats into the local `[f32; 4]` (unaligned store).
    let mask = unsafe {
        let mut t_enter = _mm_setzero_ps();
        let mut t_exit = _mm_set1_ps(max_toi);
        for axis in 0..3 {
            let s = ray.sign[axis] & 1;
            let o = _mm_set1_ps(ray.origin[axis]);
            let inv = _mm_set1_ps(ray.inv_dir[axis]);
            let near = _mm_mul_ps(_mm_sub_ps(_mm_load_ps(boxes.bounds[axis][s].as_ptr()), o), inv);
            let far = _mm_mul_ps(_mm_sub_ps(_mm_load_ps(boxes.bounds[axis][1 - s].as_ptr()), o), inv);
            // Running value second: a NaN slab time is ignored (see `lane_scalar`).
            t_enter = _mm_max_ps(near, t_enter);
            t_exit = _mm_min_ps(far, t_exit);
        }
        _mm_storeu_ps(toi.as_mut_ptr(), t_enter);
        _mm_movemask_ps(_mm_cmple_ps(t_enter, t_exit)) as u32
    };
    RayLaneHits { mask, toi }
}

/// The SSE2 kernel for 8 lanes: two 4-lane halves (see [`cast_ray_aabb_x8`]).
#[cfg(target_arch = "x86_64")]
#[inline]
#[must_use]
pub fn cast_ray_aabb_x8_sse2(ray: &PrecomputedRay, boxes: &AabbX8, max_toi: Real) -> RayLaneHits<8> {
    use core::arch::x86_64::*;
    let mut toi = [0.0; 8];
    // Scalar meaning: `lane_scalar` above, on lanes 0-3 then 4-7.
    // SAFETY: SSE2 is enabled on every x86_64 target. Row `bounds[axis][k]` is
    // an `[f32; 8]` at a multiple of 32 bytes in a 32-byte-aligned struct, so
    // it and its second half (`+ 4` floats) are 16-byte aligned for
    // `_mm_load_ps` and lie inside the row; the stores write 4 floats at
    // offsets 0 and 4 of the local `[f32; 8]`.
    let mask = unsafe {
        let mut mask = 0;
        for half in 0..2 {
            let mut t_enter = _mm_setzero_ps();
            let mut t_exit = _mm_set1_ps(max_toi);
            for axis in 0..3 {
                let s = ray.sign[axis] & 1;
                let o = _mm_set1_ps(ray.origin[axis]);
                let inv = _mm_set1_ps(ray.inv_dir[axis]);
                let near_row = boxes.bounds[axis][s].as_ptr().add(4 * half);
                let far_row = boxes.bounds[axis][1 - s].as_ptr().add(4 * half);
                let near = _mm_mul_ps(_mm_sub_ps(_mm_load_ps(near_row), o), inv);
                let far = _mm_mul_ps(_mm_sub_ps(_mm_load_ps(far_row), o), inv);
                t_enter = _mm_max_ps(near, t_enter);
                t_exit = _mm_min_ps(far, t_exit);
            }
            _mm_storeu_ps(toi.as_mut_ptr().add(4 * half), t_enter);
            mask |= (_mm_movemask_ps(_mm_cmple_ps(t_enter, t_exit)) as u32) << (4 * half);
        }
        mask
    };
    RayLaneHits { mask, toi }
}

/// The AVX kernel of [`AabbLanes::overlap_mask_bounds`] for 8 lanes: the
/// lanes of `boxes` overlapping the closed box `[min, max]`, one 256-bit
/// comparison per bound (the SSE2 form takes two).
///
/// # Safety
/// The CPU must support AVX: check [`SimdLevel::Avx.is_available()`](SimdLevel::is_available).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
#[must_use]
pub unsafe fn overlap_mask_x8_avx(boxes: &AabbX8, min: &[Real; 3], max: &[Real; 3]) -> u32 {
    use core::arch::x86_64::{
        _mm256_and_ps, _mm256_cmp_ps, _mm256_loadu_ps, _mm256_movemask_ps, _mm256_set1_ps, _CMP_LE_OQ,
    };
    // SAFETY: AVX, as the caller guarantees; each load reads one `[Real; 8]` row.
    unsafe {
        let load = |row: &[Real; 8]| _mm256_loadu_ps(row.as_ptr());
        let mut hit = _mm256_cmp_ps::<_CMP_LE_OQ>(load(&boxes.bounds[0][0]), _mm256_set1_ps(max[0]));
        hit = _mm256_and_ps(hit, _mm256_cmp_ps::<_CMP_LE_OQ>(_mm256_set1_ps(min[0]), load(&boxes.bounds[0][1])));
        for axis in 1..3 {
            let lo = _mm256_cmp_ps::<_CMP_LE_OQ>(load(&boxes.bounds[axis][0]), _mm256_set1_ps(max[axis]));
            let hi = _mm256_cmp_ps::<_CMP_LE_OQ>(_mm256_set1_ps(min[axis]), load(&boxes.bounds[axis][1]));
            hit = _mm256_and_ps(hit, _mm256_and_ps(lo, hi));
        }
        _mm256_movemask_ps(hit) as u32
    }
}

/// The AVX kernel for 8 lanes (see [`cast_ray_aabb_x8`]).
///
/// # Safety
/// The CPU must support AVX: check [`SimdLevel::Avx.is_available()`](SimdLevel::is_available).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
#[must_use]
pub unsafe fn cast_ray_aabb_x8_avx(ray: &PrecomputedRay, boxes: &AabbX8, max_toi: Real) -> RayLaneHits<8> {
    use core::arch::x86_64::*;
    let mut toi = [0.0; 8];
    // Scalar meaning: `lane_scalar` above, on 8 lanes at once.
    // SAFETY: AVX is enabled for this function and the caller guarantees the
    // CPU has it. Each load reads one `[f32; 8]` row of `boxes.bounds`, at a
    // multiple of 32 bytes in a 32-byte-aligned struct, as `_mm256_load_ps`
    // requires; the store writes 8 floats into the local `[f32; 8]`.
    let mask = unsafe {
        let mut t_enter = _mm256_setzero_ps();
        let mut t_exit = _mm256_set1_ps(max_toi);
        for axis in 0..3 {
            let s = ray.sign[axis] & 1;
            let o = _mm256_set1_ps(ray.origin[axis]);
            let inv = _mm256_set1_ps(ray.inv_dir[axis]);
            let near = _mm256_mul_ps(_mm256_sub_ps(_mm256_load_ps(boxes.bounds[axis][s].as_ptr()), o), inv);
            let far = _mm256_mul_ps(_mm256_sub_ps(_mm256_load_ps(boxes.bounds[axis][1 - s].as_ptr()), o), inv);
            // Running value second: a NaN slab time is ignored (see `lane_scalar`).
            t_enter = _mm256_max_ps(near, t_enter);
            t_exit = _mm256_min_ps(far, t_exit);
        }
        _mm256_storeu_ps(toi.as_mut_ptr(), t_enter);
        _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(t_enter, t_exit)) as u32
    };
    RayLaneHits { mask, toi }
}

/// The AVX kernel of [`cast_ray_aabb_x8_loosened`]: the loosening and the
/// slab test in registers, with no grown copy of the boxes.
///
/// # Safety
/// The CPU must support AVX: check [`SimdLevel::Avx.is_available()`](SimdLevel::is_available).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
#[must_use]
pub unsafe fn cast_ray_aabb_x8_loosened_avx(
    ray: &PrecomputedRay,
    boxes: &AabbX8,
    by: &[Real; 8],
    max_toi: Real,
) -> RayLaneHits<8> {
    use core::arch::x86_64::*;
    let mut toi = [0.0; 8];
    // Scalar meaning, per lane: `lane_scalar` above on the box of
    // `AabbLanes::loosened`, each bound grown first:
    //     lo = min - by, hi = max + by
    //     near = inv_dir >= +0 ? lo : hi, far = the other
    // Both `(lo - o) * inv` and `(hi - o) * inv` are computed and the near
    // one is picked by the sign bit of `inv_dir` (`blendv` reads the sign
    // bit), which is `ray.sign[axis]`: the same operations on the same
    // operands as the kernel on the grown copy.
    // SAFETY: AVX is enabled for this function and the caller guarantees the
    // CPU has it. Each load reads one `[f32; 8]` (`by`, or a row of
    // `boxes.bounds`, unaligned loads); the store writes 8 floats into the
    // local `[f32; 8]`.
    let mask = unsafe {
        let by = _mm256_loadu_ps(by.as_ptr());
        let mut t_enter = _mm256_setzero_ps();
        let mut t_exit = _mm256_set1_ps(max_toi);
        for axis in 0..3 {
            let o = _mm256_set1_ps(ray.origin[axis]);
            let inv = _mm256_set1_ps(ray.inv_dir[axis]);
            let lo = _mm256_sub_ps(_mm256_loadu_ps(boxes.bounds[axis][0].as_ptr()), by);
            let hi = _mm256_add_ps(_mm256_loadu_ps(boxes.bounds[axis][1].as_ptr()), by);
            let t_lo = _mm256_mul_ps(_mm256_sub_ps(lo, o), inv);
            let t_hi = _mm256_mul_ps(_mm256_sub_ps(hi, o), inv);
            let near = _mm256_blendv_ps(t_lo, t_hi, inv);
            let far = _mm256_blendv_ps(t_hi, t_lo, inv);
            // Running value second: a NaN slab time is ignored (see `lane_scalar`).
            t_enter = _mm256_max_ps(near, t_enter);
            t_exit = _mm256_min_ps(far, t_exit);
        }
        _mm256_storeu_ps(toi.as_mut_ptr(), t_enter);
        _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(t_enter, t_exit)) as u32
    };
    RayLaneHits { mask, toi }
}

/// One prepared ray against 4 boxes: per lane, the slab test of
/// [`ray_aabb_interval`](crate::kernels::ray_aabb_interval) with `max_toi` in place of
/// `ray.max_toi` (which is ignored), so a traversal can pass its clipped value.
///
/// Bit `i` of the mask is set when lane `i`'s box is entered at a `toi` in
/// `[0, max_toi]`; its entry `toi` is then bit-identical to the scalar one.
/// Degenerate cases behave as in the scalar kernel: a ray parallel to a slab
/// hits only when its origin is inside the slab or on one of its planes (no
/// epsilon), a zero-size box can be hit, `max_toi = 0` hits only boxes
/// containing the origin, and padded lanes never hit. `max_toi` must not be
/// NaN and `ray.sign` must be the one [`PrecomputedRay::new`] computes.
///
/// Uses SSE2 on x86_64 and portable code elsewhere.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::kernels::{cast_ray_aabb_x4, AabbX4, PrecomputedRay};
/// use proxima::narrowphase::{Aabb, Point, Ray, Vector};
/// let boxes = AabbX4::from_boxes(&[
///     Aabb::new(Point::new(2.0, -1.0, -1.0), Point::new(3.0, 1.0, 1.0)),
///     Aabb::new(Point::new(2.0, 5.0, -1.0), Point::new(3.0, 6.0, 1.0)),
/// ]);
/// let ray = PrecomputedRay::new(&Ray::new(Point::origin(), Vector::x(), 10.0));
/// let hits = cast_ray_aabb_x4(&ray, &boxes, 10.0);
/// assert_eq!(hits.mask, 0b0001);
/// assert_eq!(hits.toi[0], 2.0);
/// ```
#[inline]
#[must_use]
pub fn cast_ray_aabb_x4(ray: &PrecomputedRay, boxes: &AabbX4, max_toi: Real) -> RayLaneHits<4> {
    #[cfg(target_arch = "x86_64")]
    {
        cast_ray_aabb_x4_sse2(ray, boxes, max_toi)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        cast_ray_aabb_x4_scalar(ray, boxes, max_toi)
    }
}

/// One prepared ray against 8 boxes: [`cast_ray_aabb_x4`] on 8 lanes.
///
/// Dispatches at run time (cached detection, [`SimdLevel::detect`]) to the
/// AVX kernel, else SSE2 on x86_64, else portable code. A traversal that
/// calls it per node can instead dispatch once and call a kernel directly.
#[inline]
#[must_use]
pub fn cast_ray_aabb_x8(ray: &PrecomputedRay, boxes: &AabbX8, max_toi: Real) -> RayLaneHits<8> {
    match SimdLevel::detect() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `detect` reported AVX on this CPU.
        SimdLevel::Avx => unsafe { cast_ray_aabb_x8_avx(ray, boxes, max_toi) },
        #[cfg(target_arch = "x86_64")]
        SimdLevel::Sse2 => cast_ray_aabb_x8_sse2(ray, boxes, max_toi),
        _ => cast_ray_aabb_x8_scalar(ray, boxes, max_toi),
    }
}

/// One prepared ray against 8 boxes, each grown by `by[lane]` on every side
/// (`by` finite and `>= 0`): the mask and entry `toi`s of
/// `cast_ray_aabb_x8(ray, &boxes.loosened(by), max_toi)`, bit for bit, for
/// a caller whose boxes carry a rounding allowance known only at the query.
///
/// With AVX (cached detection, [`SimdLevel::detect`]) the bounds are grown
/// in registers ([`cast_ray_aabb_x8_loosened_avx`]); otherwise the grown
/// copy is tested by [`cast_ray_aabb_x8`], out of line.
#[inline]
#[must_use]
pub fn cast_ray_aabb_x8_loosened(
    ray: &PrecomputedRay,
    boxes: &AabbX8,
    by: &[Real; 8],
    max_toi: Real,
) -> RayLaneHits<8> {
    #[cfg(target_arch = "x86_64")]
    if SimdLevel::detect() == SimdLevel::Avx {
        // SAFETY: `detect` reported AVX on this CPU.
        return unsafe { cast_ray_aabb_x8_loosened_avx(ray, boxes, by, max_toi) };
    }
    cast_ray_aabb_x8_loosened_copy(ray, boxes, by, max_toi)
}

/// [`cast_ray_aabb_x8_loosened`] without AVX: the grown copy, tested by
/// [`cast_ray_aabb_x8`].
#[inline(never)]
fn cast_ray_aabb_x8_loosened_copy(
    ray: &PrecomputedRay,
    boxes: &AabbX8,
    by: &[Real; 8],
    max_toi: Real,
) -> RayLaneHits<8> {
    cast_ray_aabb_x8(ray, &boxes.loosened(by), max_toi)
}
