//! Box and ray queries against the tracker's fat boxes, static proxies
//! first. They see the current fat boxes at any time: a leaf moved since
//! the last refit, or a proxy not yet in its tree's BVH, is tested apart.

use super::PairTracker;
use crate::{ProxyId, RayControl};
use core::ops::ControlFlow;
use proxima_narrowphase::{cast_ray_aabb, Aabb, Ray, Real};

impl<T> PairTracker<T> {
    /// The proxies whose fat box overlaps `aabb` (no group filtering), static
    /// ones first. Collects them: prefer [`visit_overlaps`](Self::visit_overlaps)
    /// in a loop that must not allocate.
    pub fn overlaps(&self, aabb: &Aabb) -> impl Iterator<Item = ProxyId> + '_ {
        let mut out = Vec::new();
        let _ = self.visit_overlaps(aabb, |id| {
            out.push(id);
            ControlFlow::Continue(())
        });
        out.into_iter()
    }

    /// Box query with early out (see [`BroadPhase::visit_overlaps`](crate::BroadPhase::visit_overlaps)), static proxies first.
    pub fn visit_overlaps<F>(&self, aabb: &Aabb, mut visitor: F) -> ControlFlow<()>
    where
        F: FnMut(ProxyId) -> ControlFlow<()>,
    {
        let proxies = &self.proxies;
        let mut visit = |slot: u32, _: &Aabb| visitor(proxies.id_of(slot as usize));
        self.fixed.visit_overlaps(aabb, &self.records, &mut visit)?;
        self.dynamic.visit_overlaps(aabb, &self.records, &mut visit)
    }

    /// Ray query against the fat boxes (see
    /// [`BroadPhase::visit_ray`](crate::BroadPhase::visit_ray)): static proxies,
    /// then dynamic ones; a `Clip` shortens the ray for the rest, `Stop` ends it.
    pub fn visit_ray<F>(&self, ray: &Ray, mut visitor: F)
    where
        F: FnMut(ProxyId, Real) -> RayControl,
    {
        let mut ray = *ray;
        for tree in [&self.fixed, &self.dynamic] {
            let (bvh, members, pending) = tree.parts();
            let mut stopped = false;
            if let Some(bvh) = bvh {
                let start = ray;
                crate::BroadPhase::visit_ray(bvh, &start, |id, toi| {
                    let slot = members[id as usize];
                    // A leaf moved since the last refit is cast apart below
                    // (see `KindTree::visit_moved`).
                    if slot == u32::MAX || toi > ray.max_toi() || tree.is_moved(self.records[slot as usize].leaf) {
                        return RayControl::Continue;
                    }
                    let control = visitor(self.proxies.id_of(slot as usize), toi);
                    match control {
                        RayControl::Stop => stopped = true,
                        RayControl::Clip(t) => ray = ray.with_max_toi(t.min(ray.max_toi())),
                        RayControl::Continue => {}
                    }
                    control
                });
            }
            if stopped {
                return;
            }
            // The pending proxies, and the leaves moved since the last refit.
            let mut cast = |slot: u32, fat: &Aabb| {
                let Some(hit) = cast_ray_aabb(&ray, fat) else { return ControlFlow::Continue(()) };
                match visitor(self.proxies.id_of(slot as usize), hit.toi) {
                    RayControl::Stop => return ControlFlow::Break(()),
                    RayControl::Clip(t) => ray = ray.with_max_toi(t.min(ray.max_toi())),
                    RayControl::Continue => {}
                }
                ControlFlow::Continue(())
            };
            if tree.visit_moved(&mut cast).is_break() {
                return;
            }
            for &slot in pending {
                if cast(slot, &self.records[slot as usize].fat).is_break() {
                    return;
                }
            }
        }
    }
}
