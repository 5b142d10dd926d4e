//! Box and ray queries: depth-first traversals with a `SmallVec` stack that
//! spills to the heap (never a fixed array that could drop subtrees).

use super::tree::ROOT;
use super::DynamicTree;
use crate::{ProxyId, RayControl};
use core::ops::ControlFlow;
use proxima_narrowphase::kernels::{ray_aabb_interval, PrecomputedRay, RayInterval};
use proxima_narrowphase::{intersects_aabb_aabb, Aabb, Ray, Real};
use smallvec::SmallVec;

/// Inline stack depth: a tree of a million leaves built by SAH insertion is
/// about 30 deep, and a depth-first stack holds at most one entry per level
/// plus one, so this rarely spills.
const STACK: usize = 48;

/// The proxies whose fat box overlaps a query box, depth first
/// (see [`DynamicTree::overlaps`]).
#[derive(Clone, Debug)]
pub struct Overlaps<'a, T> {
    tree: &'a DynamicTree<T>,
    aabb: Aabb,
    /// Slots whose box is known to overlap `aabb`.
    stack: SmallVec<[u32; STACK]>,
}

impl<T> Iterator for Overlaps<'_, T> {
    type Item = ProxyId;

    fn next(&mut self) -> Option<ProxyId> {
        while let Some(slot) = self.stack.pop() {
            let node = self.tree.node(slot);
            if node.is_leaf() {
                return Some(self.tree.leaves.id_of(node.key()));
            }
            for child in [node.child, node.child + 1] {
                if intersects_aabb_aabb(&self.tree.node(child).aabb, &self.aabb) {
                    self.stack.push(child);
                }
            }
        }
        None
    }
}

/// The closest proxy hit by a ray (see [`DynamicTree::cast_ray_closest`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProxyRayHit {
    /// The proxy hit.
    pub id: ProxyId,
    /// The ray parameter of the hit (`point = origin + toi * dir`), as
    /// returned by the caller's exact test.
    pub toi: Real,
}

/// Lowers a ray's `max_toi` to a visitor's clip value; NaN clips nothing.
#[inline]
pub(crate) fn clip(max_toi: &mut Real, toi: Real) {
    if toi < *max_toi {
        *max_toi = toi.max(0.0);
    }
}

impl<T> DynamicTree<T> {
    /// The proxies whose fat box overlaps `aabb` (touching counts), in tree order.
    pub fn overlaps(&self, aabb: &Aabb) -> Overlaps<'_, T> {
        let mut stack = SmallVec::new();
        if self.has_root && intersects_aabb_aabb(&self.node(ROOT).aabb, aabb) {
            stack.push(ROOT);
        }
        Overlaps { tree: self, aabb: *aabb, stack }
    }

    /// Appends the proxies whose fat box overlaps `aabb` to `out` (not cleared).
    pub fn overlaps_into<const N: usize>(&self, aabb: &Aabb, out: &mut SmallVec<[ProxyId; N]>) {
        out.extend(self.overlaps(aabb));
    }

    /// The closest hit of `ray` among the proxies, as decided by `hit(id, ray)`,
    /// the caller's exact test of the proxy's shape (returning its `toi`, or
    /// `None` for a miss). Candidates come nearest fat box first, and each hit
    /// clips the ray, so far subtrees are skipped. `None` when nothing is hit.
    ///
    /// The `ray` passed to `hit` carries the current (clipped) `max_toi`.
    pub fn cast_ray_closest<F>(&self, ray: &Ray, mut hit: F) -> Option<ProxyRayHit>
    where
        F: FnMut(ProxyId, &Ray) -> Option<Real>,
    {
        let mut best: Option<ProxyRayHit> = None;
        self.visit_ray_impl(ray, |id, _| {
            let clipped = ray.with_max_toi(best.map_or(ray.max_toi(), |b| b.toi));
            match hit(id, &clipped) {
                Some(toi) if toi <= clipped.max_toi() && best.is_none_or(|b| toi < b.toi) => {
                    best = Some(ProxyRayHit { id, toi });
                    RayControl::Clip(toi)
                }
                _ => RayControl::Continue,
            }
        });
        best
    }

    pub(crate) fn visit_overlaps_impl<F>(&self, aabb: &Aabb, mut visitor: F) -> ControlFlow<()>
    where
        F: FnMut(ProxyId) -> ControlFlow<()>,
    {
        for id in self.overlaps(aabb) {
            visitor(id)?;
        }
        ControlFlow::Continue(())
    }

    /// Nearest-first ray traversal: of two children hit, the one entered
    /// first is visited first, so a closest-hit visitor clips early and the
    /// farther subtree is skipped when its entry exceeds the clipped `max_toi`.
    pub(crate) fn visit_ray_impl<F>(&self, ray: &Ray, mut visitor: F)
    where
        F: FnMut(ProxyId, Real) -> RayControl,
    {
        if !self.has_root {
            return;
        }
        let mut pre = PrecomputedRay::new(ray);
        let mut stack: SmallVec<[(u32, Real); STACK]> = SmallVec::new();
        if let Some(RayInterval { toi_enter: t, .. }) = ray_aabb_interval(&pre, &self.node(ROOT).aabb) {
            stack.push((ROOT, t));
        }
        while let Some((slot, t_enter)) = stack.pop() {
            if t_enter > pre.max_toi {
                continue; // entered after a clip made since it was pushed
            }
            let node = self.node(slot);
            if node.is_leaf() {
                match visitor(self.leaves.id_of(node.key()), t_enter) {
                    RayControl::Continue => {}
                    RayControl::Clip(toi) => clip(&mut pre.max_toi, toi),
                    RayControl::Stop => return,
                }
                continue;
            }
            let (a, b) = (node.child, node.child + 1);
            let hit_a = ray_aabb_interval(&pre, &self.node(a).aabb);
            let hit_b = ray_aabb_interval(&pre, &self.node(b).aabb);
            match (hit_a, hit_b) {
                (Some(RayInterval { toi_enter: ta, .. }), Some(RayInterval { toi_enter: tb, .. })) => {
                    // Push the farther first so the nearer pops first.
                    if ta <= tb {
                        stack.push((b, tb));
                        stack.push((a, ta));
                    } else {
                        stack.push((a, ta));
                        stack.push((b, tb));
                    }
                }
                (Some(RayInterval { toi_enter: ta, .. }), None) => stack.push((a, ta)),
                (None, Some(RayInterval { toi_enter: tb, .. })) => stack.push((b, tb)),
                (None, None) => {}
            }
        }
    }
}
