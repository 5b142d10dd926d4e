//! Where two overlapping lanes meet: the region that prunes the self-pair
//! descent (`pairs.rs`).
//!
//! Boxes `x` below lane `A` and `y` below lane `B` overlap only inside
//! `A ∩ B` (`x ∩ y ⊂ A ∩ B`), so a pair between the two subtrees has both
//! boxes, and every lane above them, reaching into that region. A descent
//! that carries the region tests each node's lanes against it once (one SIMD
//! mask) and opens only those: two neighbouring subtrees of a sparse scene
//! meet in a thin slab that few of their lanes touch. Min and max are exact
//! in floating point, so no touching pair is lost.

use proxima_narrowphase::kernels::AabbX8;
use proxima_narrowphase::{Aabb, Real};

/// The closed box where two lanes' boxes meet: per axis `min`, then `max`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Region {
    pub(crate) min: [Real; 3],
    pub(crate) max: [Real; 3],
}

impl Region {
    /// Lane `i` of `a` intersected with lane `j` of `b`, two lanes that
    /// overlap (so `min <= max` on every axis).
    #[inline(always)]
    pub(crate) fn of_lanes(a: &AabbX8, i: usize, b: &AabbX8, j: usize) -> Self {
        let (ra, rb) = (a.rows(), b.rows());
        Self {
            min: core::array::from_fn(|axis| ra[axis][0][i].max(rb[axis][0][j])),
            max: core::array::from_fn(|axis| ra[axis][1][i].min(rb[axis][1][j])),
        }
    }

    /// Whether `aabb` (closed) reaches into the region.
    #[inline(always)]
    pub(crate) fn touches(&self, aabb: &Aabb) -> bool {
        let (lo, hi) = (aabb.min(), aabb.max());
        (0..3).all(|axis| lo[axis] <= self.max[axis] && self.min[axis] <= hi[axis])
    }

    /// The part of `aabb` inside the region (where `aabb` touches it).
    #[inline(always)]
    pub(crate) fn clipped(&self, aabb: &Aabb) -> Self {
        let (lo, hi) = (aabb.min(), aabb.max());
        Self {
            min: core::array::from_fn(|axis| lo[axis].max(self.min[axis])),
            max: core::array::from_fn(|axis| hi[axis].min(self.max[axis])),
        }
    }
}
