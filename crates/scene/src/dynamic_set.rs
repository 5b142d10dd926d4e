//! The dynamic colliders: a broadphase `DynamicTree` whose proxies carry
//! collider slots (the static ones are in `static_set.rs`).

use core::ops::ControlFlow;

use proxima_broadphase::{BroadPhase, DynamicTree, ProxyId, RayControl, TreeStats, ValidationError};
use proxima_narrowphase::{Aabb, Ray, Real, Vector};

/// The dynamic colliders: a dynamic AABB tree whose proxies carry the
/// collider's slot index.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct DynamicSet {
    tree: DynamicTree<u32>,
}

impl DynamicSet {
    pub(crate) fn insert(&mut self, aabb: Aabb, slot: u32) -> ProxyId {
        self.tree.insert(aabb, slot)
    }

    pub(crate) fn remove(&mut self, id: ProxyId) {
        let removed = self.tree.remove(id);
        debug_assert!(removed.is_ok(), "scene and tree disagree on {id:?}");
    }

    /// Moves a proxy whose tight box went from `previous` to `aabb`. A box
    /// still inside its fat box (most moves of a frame) changes nothing, so
    /// that is tested here, before the displacement is worked out.
    #[inline(always)]
    pub(crate) fn update(&mut self, id: ProxyId, aabb: Aabb, previous: &Aabb) {
        if !self.tree.fat_aabb(id).is_some_and(|fat| fat.contains_aabb(&aabb)) {
            self.refatten(id, aabb, previous);
        }
    }

    /// [`update`](Self::update) of a box that left its fat box.
    #[inline(never)]
    fn refatten(&mut self, id: ProxyId, aabb: Aabb, previous: &Aabb) {
        // The motion only stretches the fat box; a jump between boxes near
        // ±f32::MAX overflows it, and the tree would reject the move.
        let displacement: Vector = aabb.center() - previous.center();
        let displacement = if displacement.iter().all(|d| d.is_finite()) { displacement } else { Vector::zeros() };
        let moved = self.tree.move_proxy(id, aabb, displacement);
        debug_assert!(moved.is_ok(), "scene and tree disagree on {id:?}");
    }

    pub(crate) fn len(&self) -> usize {
        self.tree.len()
    }

    /// The collider slot of a live proxy and its fat box; `None` for a stale id.
    pub(crate) fn entry(&self, id: ProxyId) -> Option<(u32, Aabb)> {
        Some((*self.tree.get(id)?, self.tree.fat_aabb(id)?))
    }

    pub(crate) fn visit_overlaps(&self, aabb: &Aabb, mut f: impl FnMut(u32) -> ControlFlow<()>) -> ControlFlow<()> {
        self.tree.visit_overlaps(aabb, |id| match self.tree.get(id) {
            Some(&slot) => f(slot),
            None => ControlFlow::Continue(()),
        })
    }

    pub(crate) fn visit_ray(&self, ray: &Ray, mut f: impl FnMut(u32, Real) -> RayControl) {
        self.tree.visit_ray(ray, |id, toi| match self.tree.get(id) {
            Some(&slot) => f(slot, toi),
            None => RayControl::Continue,
        })
    }

    pub(crate) fn validate(&self) -> Result<TreeStats, ValidationError> {
        self.tree.validate()
    }

    pub(crate) fn rebuild(&mut self) {
        self.tree.rebuild();
    }
}
