//! Measures of parry3d's structures, to compare proxima's with.

use parry3d::bounding_volume::Aabb as ParryAabb;
use parry3d::partitioning::{Bvh, TraversalAction};

/// The SAH cost of parry's BVH, walked: `(root area + sum over its nodes of
/// area) / root area`, areas the boxes' surface areas. Its leaves hold one
/// box each, so this is the formula of proxima's `TreeStats::sah_cost`
/// (`C_trav = C_isect = 1`).
#[must_use]
pub fn sah_cost(bvh: &Bvh) -> f64 {
    let area = |a: &ParryAabb| {
        let e = a.extents();
        f64::from(2.0 * (e.x * e.y + e.y * e.z + e.z * e.x))
    };
    let root = area(&bvh.root_aabb());
    let mut sum = root;
    bvh.traverse(|node| {
        sum += area(&node.aabb());
        TraversalAction::Continue
    });
    sum / root
}
