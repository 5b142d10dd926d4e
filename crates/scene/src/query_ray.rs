//! Ray queries: closest hit, any hit (shadow rays), all hits, batches.

use core::ops::ControlFlow;

use proxima_broadphase::RayControl;
use proxima_narrowphase::{Ray, Real, UnitVector};

use crate::collider::ColliderHandle;
use crate::filter::QueryFilter;
use crate::scene::Scene;

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

impl Scene {
    /// The closest hit of `ray` among the colliders the filter accepts.
    ///
    /// Both trees are traversed with the ray clipped to the best hit so far,
    /// so boxes beyond it are never tested. Ties in `toi` keep the first found.
    pub fn cast_ray_closest(&self, ray: &Ray, filter: &QueryFilter) -> Option<SceneRayHit> {
        let mut best: Option<SceneRayHit> = None;
        let mut current = *ray;
        self.visit_ray_candidates(ray, |slot, _entry| {
            let Some(hit) = self.exact_ray_hit(slot, &current, filter) else {
                return RayControl::Continue;
            };
            if best.is_none_or(|b| hit.toi < b.toi) {
                best = Some(hit);
                current = current.with_max_toi(hit.toi);
            }
            RayControl::Clip(current.max_toi())
        });
        best
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
