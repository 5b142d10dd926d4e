//! Boxes stored structure-of-arrays, four or eight to a node, for the wide
//! ray and overlap kernels.

use crate::math::{Point, Real};
use crate::shape::Aabb;

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
    pub(super) bounds: [[[Real; W]; 2]; 3],
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

    /// Every lane's box grown by `by[lane]` on each side (`by` finite and
    /// `>= 0`); padded lanes stay padded (`+inf - by` is `+inf`). A loop
    /// over the rows, which the compiler vectorises.
    #[inline]
    #[must_use]
    pub fn loosened(&self, by: &[Real; W]) -> Self {
        let mut out = *self;
        for row in &mut out.bounds {
            for lane in 0..W {
                row[0][lane] -= by[lane];
                row[1][lane] += by[lane];
            }
        }
        out
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
