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

use super::ray::PrecomputedRay;
use crate::math::{Point, Real};
use crate::shape::Aabb;
use core::sync::atomic::{AtomicU8, Ordering};

/// Up to `W` boxes stored structure-of-arrays for the SIMD kernels.
///
/// A lane either holds a box (`min <= max`, finite) or is padded: `min = +inf`
/// and `max = -inf` on every axis, which no ray enters and no box overlaps
/// (the slab times are `+inf` for the near plane and `-inf` for the far one,
/// never NaN, since ray origins are finite). [`AabbLanes::EMPTY`] has every
/// lane padded. Aligned to 32 bytes so a lane row is one aligned load.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(32))]
pub struct AabbLanes<const W: usize> {
    /// `bounds[axis][0][lane]` is the lane's min on `axis`, `bounds[axis][1][lane]` its max.
    bounds: [[[Real; W]; 2]; 3],
}

/// Four boxes, structure-of-arrays (one SSE register per bound).
pub type AabbX4 = AabbLanes<4>;
/// Eight boxes, structure-of-arrays (one AVX register per bound).
pub type AabbX8 = AabbLanes<8>;

impl<const W: usize> Default for AabbLanes<W> {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl<const W: usize> AabbLanes<W> {
    /// Every lane padded (holds no box).
    pub const EMPTY: Self = Self { bounds: [[[Real::INFINITY; W], [Real::NEG_INFINITY; W]]; 3] };

    /// The bounds, structure of arrays: `rows()[axis][0][lane]` is the
    /// lane's min on `axis`, `rows()[axis][1][lane]` its max (padded lanes:
    /// `+inf` and `-inf`). For kernels written outside this crate.
    #[inline]
    pub fn rows(&self) -> &[[[Real; W]; 2]; 3] {
        &self.bounds
    }

    /// The lanes filled from `boxes` in order; lanes past `boxes.len()` are padded.
    ///
    /// # Panics
    /// When `boxes.len() > W`.
    #[track_caller]
    pub fn from_boxes(boxes: &[Aabb]) -> Self {
        assert!(boxes.len() <= W, "{} boxes do not fit in {W} lanes", boxes.len());
        let mut lanes = Self::EMPTY;
        for (lane, aabb) in boxes.iter().enumerate() {
            lanes.set(lane, aabb);
        }
        lanes
    }

    /// Puts `aabb` in `lane` (`lane < W`).
    #[inline]
    pub fn set(&mut self, lane: usize, aabb: &Aabb) {
        for axis in 0..3 {
            self.bounds[axis][0][lane] = aabb.min()[axis];
            self.bounds[axis][1][lane] = aabb.max()[axis];
        }
    }

    /// Puts the box of corners `min` and `max` (per axis) in `lane`
    /// (`lane < W`): [`set`](Self::set) for a box held as bounds, such as a
    /// union computed from rows. Nothing is checked: the caller passes
    /// `min <= max` on every axis (to pad a lane, use [`clear`](Self::clear)).
    #[inline]
    pub fn set_bounds(&mut self, lane: usize, min: [Real; 3], max: [Real; 3]) {
        for axis in 0..3 {
            self.bounds[axis][0][lane] = min[axis];
            self.bounds[axis][1][lane] = max[axis];
        }
    }

    /// Pads `lane` (`lane < W`): it then holds no box.
    #[inline]
    pub fn clear(&mut self, lane: usize) {
        for axis in 0..3 {
            self.bounds[axis][0][lane] = Real::INFINITY;
            self.bounds[axis][1][lane] = Real::NEG_INFINITY;
        }
    }

    /// The box in `lane` (`lane < W`); `None` for a padded lane.
    #[inline]
    pub fn get(&self, lane: usize) -> Option<Aabb> {
        let min = Point::new(self.bounds[0][0][lane], self.bounds[1][0][lane], self.bounds[2][0][lane]);
        let max = Point::new(self.bounds[0][1][lane], self.bounds[1][1][lane], self.bounds[2][1][lane]);
        Aabb::try_new(min, max).ok()
    }

    /// The smallest box containing the lanes whose bit is set in `mask`;
    /// `None` when they are all padded.
    pub fn union(&self, mask: u32) -> Option<Aabb> {
        (0..W).filter(|&lane| mask >> lane & 1 == 1).filter_map(|lane| self.get(lane)).reduce(|a, b| a.merged(&b))
    }

    /// The smallest box containing every lane's box; `None` when all lanes
    /// are padded. Padded lanes hold `(+inf, -inf)`, so the min/max over all
    /// `W` lanes needs no mask (and vectorises).
    #[inline]
    #[must_use]
    pub fn union_all(&self) -> Option<Aabb> {
        let lo: [Real; 3] =
            core::array::from_fn(|axis| self.bounds[axis][0].iter().copied().fold(Real::INFINITY, Real::min));
        let hi: [Real; 3] =
            core::array::from_fn(|axis| self.bounds[axis][1].iter().copied().fold(Real::NEG_INFINITY, Real::max));
        (lo[0] <= hi[0] && lo[1] <= hi[1] && lo[2] <= hi[2]).then(|| Aabb::new_unchecked(lo.into(), hi.into()))
    }

    /// The lanes of `self` whose box overlaps lane `lane` of `other`, as
    /// [`overlap_mask`](Self::overlap_mask) with that lane's box (read in
    /// place: no `Aabb` is built). A padded lane overlaps nothing.
    #[inline]
    #[must_use]
    pub fn overlap_mask_lane(&self, other: &Self, lane: usize) -> u32 {
        let qmin: [Real; 3] = core::array::from_fn(|axis| other.bounds[axis][0][lane]);
        let qmax: [Real; 3] = core::array::from_fn(|axis| other.bounds[axis][1][lane]);
        self.mask_against(&qmin, &qmax)
    }

    /// The lanes whose box overlaps the closed box of bounds `min` and `max`
    /// (per axis `x`, `y`, `z`), as [`overlap_mask`](Self::overlap_mask):
    /// for a box the caller holds as bounds, such as the intersection of two
    /// overlapping lanes, without building an [`Aabb`].
    #[inline]
    #[must_use]
    pub fn overlap_mask_bounds(&self, min: &[Real; 3], max: &[Real; 3]) -> u32 {
        self.mask_against(min, max)
    }

    /// The lanes whose box overlaps `aabb` (closed boxes: touching counts), as
    /// a bit mask (bit `i` for lane `i`). Padded lanes never overlap.
    ///
    /// Per lane: `min_l <= max_q && min_q <= max_l` on each axis, as in
    /// [`intersects_aabb_aabb`](crate::intersects_aabb_aabb); written
    /// branch-free so the compiler vectorises it.
    #[inline]
    #[must_use]
    pub fn overlap_mask(&self, aabb: &Aabb) -> u32 {
        let (qmin, qmax) = (aabb.min(), aabb.max());
        self.mask_against(&[qmin.x, qmin.y, qmin.z], &[qmax.x, qmax.y, qmax.z])
    }

    /// The lanes whose box overlaps the box `[qmin, qmax]`, as a bit mask:
    /// per lane `min_l <= qmax && qmin <= max_l` on each axis. On x86_64,
    /// four lanes per SSE compare and one `movemask` per four lanes (SSE2 is
    /// part of the x86_64 baseline); elsewhere a loop the compiler vectorises.
    #[inline(always)]
    fn mask_against(&self, qmin: &[Real; 3], qmax: &[Real; 3]) -> u32 {
        #[cfg(target_arch = "x86_64")]
        if W % 4 == 0 {
            use core::arch::x86_64::{__m128, _mm_and_ps, _mm_cmple_ps, _mm_movemask_ps, _mm_set1_ps};
            let mut mask = 0u32;
            for chunk in 0..W / 4 {
                let at = chunk * 4;
                // SAFETY: SSE is part of the x86_64 baseline, so these
                // intrinsics exist on every CPU this code runs on; each
                // unaligned load reads lanes `at..at + 4` of a `[Real; W]`
                // with `at + 4 <= W` (W is a multiple of 4).
                let hit = unsafe {
                    let load = |v: &[Real; W]| core::arch::x86_64::_mm_loadu_ps(v.as_ptr().add(at));
                    let mut hit: __m128 = _mm_cmple_ps(_mm_set1_ps(qmin[0]), load(&self.bounds[0][1]));
                    for axis in 0..3 {
                        let lo = _mm_cmple_ps(load(&self.bounds[axis][0]), _mm_set1_ps(qmax[axis]));
                        let hi = _mm_cmple_ps(_mm_set1_ps(qmin[axis]), load(&self.bounds[axis][1]));
                        hit = _mm_and_ps(hit, _mm_and_ps(lo, hi));
                    }
                    _mm_movemask_ps(hit)
                };
                mask |= (hit as u32) << at;
            }
            return mask;
        }
        let mut hit = [true; W];
        for axis in 0..3 {
            for (lane, h) in hit.iter_mut().enumerate() {
                *h &= (self.bounds[axis][0][lane] <= qmax[axis]) & (qmin[axis] <= self.bounds[axis][1][lane]);
            }
        }
        hit.iter().enumerate().fold(0, |mask, (lane, &h)| mask | (h as u32) << lane)
    }
}

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

/// The widest kernel the running CPU supports, detected once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum SimdLevel {
    /// Portable code, one lane at a time.
    Scalar,
    /// 4 lanes per instruction (x86_64 baseline).
    Sse2,
    /// 8 lanes per instruction (x86_64 with AVX).
    Avx,
}

/// 0: not detected yet; otherwise `1 + SimdLevel as u8`.
static DETECTED: AtomicU8 = AtomicU8::new(0);

impl SimdLevel {
    /// The best level of this CPU. The CPUID check runs on the first call;
    /// later calls read a cached atomic.
    #[inline]
    pub fn detect() -> Self {
        match DETECTED.load(Ordering::Relaxed) {
            1 => SimdLevel::Scalar,
            2 => SimdLevel::Sse2,
            3 => SimdLevel::Avx,
            _ => {
                let level = Self::detect_uncached();
                DETECTED.store(level as u8 + 1, Ordering::Relaxed);
                level
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    fn detect_uncached() -> Self {
        if std::is_x86_feature_detected!("avx") {
            SimdLevel::Avx
        } else {
            SimdLevel::Sse2
        }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn detect_uncached() -> Self {
        SimdLevel::Scalar
    }

    /// True when this CPU can run kernels of this level.
    #[inline]
    pub fn is_available(self) -> bool {
        self <= Self::detect()
    }
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
/// use proxima_narrowphase::kernels::{cast_ray_aabb_x4, AabbX4, PrecomputedRay};
/// use proxima_narrowphase::{Aabb, Point, Ray, Vector};
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
