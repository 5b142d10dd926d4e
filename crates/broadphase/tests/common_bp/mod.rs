//! Helpers shared by the broadphase tests: random boxes, the parry3d oracle.
#![allow(dead_code)]

use parry3d::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use proxima_narrowphase::{Aabb, Point, Real, Vector};
use proxima_test_support::gen::uniform;
use proxima_test_support::{convert, Rng};

/// A box with centre uniform in `[0, side)^3` and half-extents in `[lo, hi)`.
pub fn random_box(rng: &mut impl Rng, side: Real, lo: Real, hi: Real) -> Aabb {
    let c = Point::new(uniform(rng, 0.0, side), uniform(rng, 0.0, side), uniform(rng, 0.0, side));
    let h = Vector::new(uniform(rng, lo, hi), uniform(rng, lo, hi), uniform(rng, lo, hi));
    Aabb::try_from_center(c, h).expect("finite box")
}

/// A displacement uniform in `[-step, step)^3`.
pub fn random_step(rng: &mut impl Rng, step: Real) -> Vector {
    Vector::new(uniform(rng, -step, step), uniform(rng, -step, step), uniform(rng, -step, step))
}

/// `aabb` translated by `d`.
pub fn translated(aabb: &Aabb, d: &Vector) -> Aabb {
    Aabb::try_new(aabb.min() + d, aabb.max() + d).expect("finite translation")
}

/// The self-overlapping pairs of `boxes` as found by parry3d 0.31's `Bvh`
/// (binned SAH build, then its tree-against-itself traversal), as sorted
/// `(i, j)` index pairs with `i < j`.
pub fn parry_pairs(boxes: &[Aabb]) -> Vec<(usize, usize)> {
    let leaves: Vec<_> = boxes.iter().map(convert::aabb).collect();
    let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves);
    let mut ws = BvhWorkspace::default();
    let mut out = Vec::new();
    bvh.traverse_bvtt_single_tree::<false>(&mut ws, &mut |a, b| {
        let (a, b) = (a as usize, b as usize);
        out.push((a.min(b), a.max(b)));
    });
    out.sort_unstable();
    out
}
