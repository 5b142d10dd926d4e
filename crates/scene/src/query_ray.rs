//! Ray queries: closest hit, any hit (shadow rays), all hits, batches.

use core::ops::ControlFlow;

use proxima_broadphase::RayControl;
use proxima_narrowphase::{cast_ray_aabb, ray_aabb_interval, Aabb, PrecomputedRay, Ray, Real, UnitVector};

use crate::collider::ColliderHandle;
use crate::filter::{groups_interact, QueryFilter};
use crate::scene::Scene;
use crate::shape::WorldShape;

/// A ray's hit on a collider.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneRayHit {
    /// The collider hit.
    pub collider: ColliderHandle,
    /// The ray parameter of the hit: the point is `ray.point_at(toi)`.
    pub toi: Real,
    /// Unit surface normal at the hit, out of the collider.
    pub normal: UnitVector,
}

/// The best hit so far of [`Scene::cast_ray_closest`]: the collider's slot,
/// the `toi`, and the normal, or for a box collider the box, whose normal is
/// computed once, for the final hit (its box in the static set is its shape).
#[derive(Clone, Copy)]
struct Best {
    slot: u32,
    toi: Real,
    normal: Result<UnitVector, Aabb>,
}

impl Scene {
    /// The closest hit of `ray` among the colliders the filter accepts.
    ///
    /// Both trees are traversed with the ray clipped to the best hit so far,
    /// so boxes beyond it are never tested. Ties in `toi` keep the first found.
    ///
    /// The static pass reads the static set's leaf table (each collider's
    /// slot, groups and whether its shape is its box, in the BVH's leaf
    /// order) instead of the colliders: with a filter of groups only, a box
    /// collider is accepted and hit without loading it (the BVH's entry `toi`
    /// is its exact `cast_ray_aabb` `toi`), and only the final hit's normal
    /// is computed. Other shapes get their exact test as before.
    pub fn cast_ray_closest(&self, ray: &Ray, filter: &QueryFilter) -> Option<SceneRayHit> {
        let mut best: Option<Best> = None;
        let mut max_toi = ray.max_toi();
        self.cast_ray_static(ray, filter, &mut best, &mut max_toi);
        let clipped = ray.with_max_toi(max_toi);
        let mut current = clipped;
        self.dynamic_tree.visit_ray(&clipped, |slot, _entry| {
            let Some(hit) = self.exact_ray_hit(slot, &current, filter) else {
                return RayControl::Continue;
            };
            if best.is_none_or(|b| hit.toi < b.toi) {
                best = Some(Best { slot, toi: hit.toi, normal: Ok(hit.normal) });
                current = current.with_max_toi(hit.toi);
            }
            RayControl::Clip(current.max_toi())
        });
        let Best { slot, toi, normal } = best?;
        let normal = normal.unwrap_or_else(|aabb| {
            // A box collider: its exact test again, for the normal of the face
            // entered (its toi is the BVH's entry toi, bit for bit).
            cast_ray_aabb(&ray.with_max_toi(toi), &aabb)
                .map_or_else(|| UnitVector::new_normalize(-ray.dir()), |h| h.normal)
        });
        Some(SceneRayHit { collider: self.handle_of(slot), toi, normal })
    }

    /// The static pass of [`Scene::cast_ray_closest`]: updates `best` and
    /// clips `max_toi`, visiting candidates in the order `visit_ray` would
    /// and keeping the first of equal `toi`s, exactly as the per-collider
    /// path (`exact_ray_hit`) does.
    fn cast_ray_static(&self, ray: &Ray, filter: &QueryFilter, best: &mut Option<Best>, max_toi: &mut Real) {
        let info = |slot: u32| {
            let c = &self.colliders[slot as usize];
            (c.desc.groups, matches!(c.world, WorldShape::Aabb(_)))
        };
        let Some((tree, leaves)) = self.static_set.ray_leaves(info) else { return };
        let boxes = tree.leaf_boxes();
        let pre = PrecomputedRay::new(ray);
        // Without exclusions or a predicate, the groups decide alone.
        let groups_only = filter.exclude.is_empty() && filter.predicate.is_none();
        tree.visit_ray_leaves(ray, |slots, entry_toi| {
            let single = slots.len() == 1;
            let before = *max_toi;
            for s in slots.map(|s| s as usize) {
                // A one-box leaf's entry is the box's (the kernel's toi).
                let toi = if single {
                    entry_toi
                } else {
                    match ray_aabb_interval(&PrecomputedRay { max_toi: *max_toi, ..pre }, &boxes[s]) {
                        Some((t_enter, _)) => t_enter,
                        None => continue,
                    }
                };
                let leaf = leaves[s];
                if toi > *max_toi || !groups_interact(&filter.groups, &leaf.groups) {
                    continue;
                }
                let collider = || &self.colliders[leaf.slot as usize];
                if !groups_only && !filter.accepts(self.handle_of(leaf.slot), collider()) {
                    continue;
                }
                let (toi, normal) = if leaf.is_box {
                    (toi, Err(boxes[s]))
                } else {
                    match collider().world.cast_ray(&ray.with_max_toi(*max_toi)) {
                        Some(hit) => (hit.toi, Ok(hit.normal)),
                        None => continue,
                    }
                };
                if best.is_none_or(|b| toi < b.toi) {
                    *best = Some(Best { slot: leaf.slot, toi, normal });
                    *max_toi = toi;
                }
            }
            if *max_toi < before {
                RayControl::Clip(*max_toi)
            } else {
                RayControl::Continue
            }
        });
    }

    /// Some hit of `ray`, not necessarily the closest: the traversal stops at
    /// the first confirmed hit (shadow and line-of-sight rays).
    pub fn cast_ray_any(&self, ray: &Ray, filter: &QueryFilter) -> Option<SceneRayHit> {
        let mut found = None;
        self.visit_ray_candidates(ray, |slot, _entry| {
            let collider = &self.colliders[slot as usize];
            let handle = self.handle_of(slot);
            if !filter.accepts(handle, collider) || !collider.world.intersects_ray(ray) {
                return RayControl::Continue;
            }
            found = self.exact_ray_hit(slot, ray, filter);
            RayControl::Stop
        });
        found
    }

    /// Calls `visitor` with every hit of `ray` (in no particular order) until
    /// it breaks.
    pub fn visit_ray_hits(
        &self,
        ray: &Ray,
        filter: &QueryFilter,
        mut visitor: impl FnMut(SceneRayHit) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let mut flow = ControlFlow::Continue(());
        self.visit_ray_candidates(ray, |slot, _entry| match self.exact_ray_hit(slot, ray, filter) {
            Some(hit) if visitor(hit).is_break() => {
                flow = ControlFlow::Break(());
                RayControl::Stop
            }
            _ => RayControl::Continue,
        });
        flow
    }

    /// [`Scene::cast_ray_closest`] for each ray, in input order. With the
    /// `parallel` feature the rays are spread over rayon's threads; each result
    /// is computed exactly as the sequential call would, so the output is
    /// identical whatever the thread count.
    pub fn cast_rays(&self, rays: &[Ray], filter: &QueryFilter) -> Vec<Option<SceneRayHit>> {
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            rays.par_iter().with_min_len(64).map(|r| self.cast_ray_closest(r, filter)).collect()
        }
        #[cfg(not(feature = "parallel"))]
        {
            rays.iter().map(|r| self.cast_ray_closest(r, filter)).collect()
        }
    }

    fn exact_ray_hit(&self, slot: u32, ray: &Ray, filter: &QueryFilter) -> Option<SceneRayHit> {
        let collider = &self.colliders[slot as usize];
        let handle = self.handle_of(slot);
        if !filter.accepts(handle, collider) {
            return None;
        }
        let hit = collider.world.cast_ray(ray)?;
        Some(SceneRayHit { collider: handle, toi: hit.toi, normal: hit.normal })
    }
}
