//! The static tree's pass of the ray queries: the static set's leaf table
//! (each collider's slot, groups and whether its shape is its box, in the
//! BVH's leaf order) stands in for the colliders, so a box collider is hit at
//! the traversal's entry `toi` without loading it.

use core::ops::Range;

use proxima_broadphase::{RayControl, StaticBvh};
use proxima_narrowphase::kernels::{ray_aabb_interval, PrecomputedRay, RayInterval};
use proxima_narrowphase::{Aabb, Ray, Real};

use super::Best;
use crate::filter::{groups_interact, QueryFilter};
use crate::scene::Scene;
use crate::shape::WorldShape;
use crate::static_set::StaticLeaf;

/// The static pass of [`Scene::cast_ray_closest`] for one filter: the leaf
/// table of the static set and the tree's boxes, in leaf order.
pub(super) struct StaticPass<'a> {
    scene: &'a Scene,
    filter: &'a QueryFilter<'a>,
    pub(super) leaves: &'a [StaticLeaf],
    pub(super) boxes: &'a [Aabb],
    /// No exclusions and no predicate: the groups alone decide.
    groups_only: bool,
}

impl StaticPass<'_> {
    /// One leaf of the static tree entered by `ray` (`pre` is the ray
    /// prepared): updates `best` and clips `max_toi`, visiting the leaf's
    /// colliders in order and keeping the first of equal `toi`s, exactly as
    /// the per-collider path (`exact_ray_hit`) does.
    #[inline]
    pub(super) fn leaf(
        &self,
        ray: &Ray,
        pre: &PrecomputedRay,
        slots: Range<u32>,
        entry_toi: Real,
        best: &mut Option<Best>,
        max_toi: &mut Real,
    ) -> RayControl {
        let single = slots.len() == 1;
        let before = *max_toi;
        for s in slots.map(|s| s as usize) {
            // A one-box leaf's entry is the box's (the kernel's toi).
            let toi = if single {
                entry_toi
            } else {
                match ray_aabb_interval(&PrecomputedRay { max_toi: *max_toi, ..*pre }, &self.boxes[s]) {
                    Some(RayInterval { toi_enter: t_enter, .. }) => t_enter,
                    None => continue,
                }
            };
            if toi > *max_toi {
                continue;
            }
            // The ray itself until a hit clips it: a copy of it would be read
            // back (whole vectors) just after its piecewise stores.
            let clipped;
            let ray = if *max_toi < ray.max_toi() {
                clipped = ray.with_max_toi(*max_toi);
                &clipped
            } else {
                ray
            };
            let Some(hit) = self.exact(ray, s, toi, false) else { continue };
            if best.is_none_or(|b| hit.toi < b.toi) {
                // The final hit reads its handle's generation and, for a box
                // collider, its box (the normal): two cache misses on a
                // large scene, started now and hidden by the rest of the
                // traversal (a one-box leaf's box was never loaded: its lane
                // in the node was tested).
                self.scene.colliders.prefetch_handle(hit.slot);
                if let Err(leaf) = hit.normal {
                    proxima_broadphase::internal::prefetch(self.boxes, leaf);
                }
                *best = Some(hit);
                *max_toi = hit.toi;
            }
        }
        if *max_toi < before {
            RayControl::Clip(*max_toi)
        } else {
            RayControl::Continue
        }
    }
}

impl StaticPass<'_> {
    /// The exact test of leaf slot `s`, entered at `entry_toi`, for `ray`
    /// (clipped to the best so far): `None` when the filter rejects the
    /// collider or the ray misses it. A box collider is hit at the entry, its
    /// normal left for later; with `any`, a mesh stops at its first hit.
    #[inline(always)]
    fn exact(&self, ray: &Ray, s: usize, entry_toi: Real, any: bool) -> Option<Best> {
        let leaf = self.leaves[s];
        if !groups_interact(&self.filter.groups, &leaf.groups) {
            return None;
        }
        let collider = || &self.scene.colliders[leaf.slot];
        if !self.groups_only && !self.filter.accepts(self.scene.handle_of(leaf.slot), collider()) {
            return None;
        }
        if leaf.is_box {
            return Some(Best { slot: leaf.slot, toi: entry_toi, normal: Err(s as u32), triangle: None, child: None });
        }
        let h = collider().world.ray_hit(ray, any)?;
        Some(Best { slot: leaf.slot, toi: h.hit.toi, normal: Ok(h.hit.normal), triangle: h.triangle, child: h.child })
    }

    /// The hit of `ray` on the set's only collider (`any`: a mesh stops at
    /// its first hit). A box collider's box test is its exact test; any
    /// other shape goes straight to its exact test, which culls by itself
    /// (a mesh tests its own tree's root box), so the world box is not
    /// tested twice.
    #[inline(always)]
    pub(super) fn lone(&self, ray: &Ray, any: bool) -> Option<Best> {
        if self.leaves[0].is_box {
            let RayInterval { toi_enter, .. } = ray_aabb_interval(&PrecomputedRay::new(ray), &self.boxes[0])?;
            return self.exact(ray, 0, toi_enter, any);
        }
        self.exact(ray, 0, 0.0, any)
    }

    /// One leaf of the static tree for [`Scene::cast_ray_any`]: the first
    /// collider of the leaf that the ray hits, then `Stop`.
    #[inline]
    pub(super) fn leaf_any(&self, ray: &Ray, pre: &PrecomputedRay, slots: Range<u32>, entry_toi: Real) -> Option<Best> {
        let single = slots.len() == 1;
        for s in slots.map(|s| s as usize) {
            let toi = if single {
                entry_toi
            } else {
                match ray_aabb_interval(pre, &self.boxes[s]) {
                    Some(RayInterval { toi_enter, .. }) if toi_enter <= ray.max_toi() => toi_enter,
                    _ => continue,
                }
            };
            if let Some(hit) = self.exact(ray, s, toi, true) {
                return Some(hit);
            }
        }
        None
    }
}

impl Scene {
    /// The static set's tree and what its leaves need, `None` when it is
    /// empty or the filter rejects every static collider.
    #[inline]
    pub(super) fn static_pass<'a>(&'a self, filter: &'a QueryFilter<'a>) -> Option<(&'a StaticBvh, StaticPass<'a>)> {
        if filter.skips_statics() {
            return None;
        }
        let info = |slot: u32| {
            let c = &self.colliders[slot];
            (c.desc.groups, matches!(c.world, WorldShape::Aabb(_)))
        };
        let (tree, leaves) = self.static_set.ray_leaves(info)?;
        // Without exclusions or a predicate, the groups decide alone.
        let groups_only = filter.groups_decide_statics();
        Some((tree, StaticPass { scene: self, filter, leaves, boxes: tree.leaf_boxes(), groups_only }))
    }
}
