//! The dynamic colliders: a broadphase `DynamicTree` whose proxies carry
//! collider slots (the static ones are in `static_set.rs`).

use core::ops::ControlFlow;

use proxima_broadphase::{BroadPhase, DynamicTree, ProxyId, RayControl, TreeStats, ValidationError};
use proxima_narrowphase::{Aabb, Ray, Real, Vector};

/// Share of the tree above which [`DynamicSet::tidy`] refits the whole tree
/// instead of the enlarged leaves' paths: past `n / 8` leaves, their paths
/// (each as long as the tree is deep, about `log2 n` and more) hold about as
/// many boxes as the whole tree's `2n`, which one pass visits in order.
const FULL_REFIT_SHARE: usize = 8;

/// A whole refit waits until enlargements numbering `n / 2` have gathered,
/// over as many frames as that takes: when most bodies leave their fat boxes
/// each frame (a pile falling or scattering), tightening every frame costs
/// more than the looser boxes cost the queries of that frame, if any.
const FULL_REFIT_WAIT_SHARE: usize = 2;

/// The most tidies a whole refit waits (for bodies that stopped before half
/// the tree had moved, which would otherwise leave it loose for good).
const FULL_REFIT_MAX_WAIT: u32 = 8;

/// SAH-cost growth over the cost after the last rebuild past which
/// [`DynamicSet::tidy`] rebuilds the tree: refits keep the grouping, which
/// grows looser as bodies scatter (a pile collapsing, bodies wandering).
const REBUILD_GROWTH: f64 = 1.5;

/// Whole refits between two measures of the SAH cost: the measure (an area
/// per node, in `f64`) costs about twice the refit, and a tree wears over
/// many frames, not one.
const COST_CHECK_PERIOD: u32 = 8;

/// The dynamic colliders: a dynamic AABB tree whose proxies carry the
/// collider's slot index.
///
/// A move that leaves its fat box only grows the tree in place
/// ([`DynamicTree::enlarge_proxy`], a few box unions); [`tidy`](Self::tidy),
/// run by `Scene::prepare` (each contact-pipeline update), makes the grown
/// boxes tight again (at once when few moved, once half the tree has when
/// many did) and rebuilds the tree when its SAH cost has grown by half. Queries between the two are exact, as the tree's boxes always
/// contain the fat boxes below them.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct DynamicSet {
    tree: DynamicTree<u32>,
    /// The proxies enlarged since the last tidy, up to `len / FULL_REFIT_SHARE`
    /// of them; past that, `refit_all` is set and the list no longer grows.
    #[cfg_attr(feature = "serde", serde(default))]
    enlarged: Vec<ProxyId>,
    #[cfg_attr(feature = "serde", serde(default))]
    refit_all: bool,
    /// Enlargements since the boxes were last made tight.
    #[cfg_attr(feature = "serde", serde(default))]
    enlargements: usize,
    /// Tidies that found `refit_all` set and waited.
    #[cfg_attr(feature = "serde", serde(default))]
    waited: u32,
    /// The SAH cost after the last rebuild (or the first measure).
    #[cfg_attr(feature = "serde", serde(default))]
    rebuilt_cost: Option<f64>,
    /// Whole refits since the cost was last measured.
    #[cfg_attr(feature = "serde", serde(default))]
    refits_unmeasured: u32,
}

impl DynamicSet {
    pub(crate) fn insert(&mut self, aabb: Aabb, slot: u32) -> ProxyId {
        let id = self.tree.insert(aabb, slot);
        // Room for every entry `refatten` may list, so moves never allocate.
        let most = self.tree.len() / FULL_REFIT_SHARE + 1;
        self.enlarged.reserve(most.saturating_sub(self.enlarged.len()));
        id
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
        let moved = self.tree.enlarge_proxy(id, aabb, displacement);
        debug_assert!(moved.is_ok(), "scene and tree disagree on {id:?}");
        self.enlargements += 1;
        if self.refit_all {
            return;
        }
        if self.enlarged.len() * FULL_REFIT_SHARE >= self.tree.len() {
            self.refit_all = true;
            self.enlarged.clear();
        } else {
            self.enlarged.push(id);
        }
    }

    /// Makes the boxes grown since the last tidy tight again: the enlarged
    /// leaves' paths, or, when many were enlarged, the whole tree once
    /// `n / FULL_REFIT_WAIT_SHARE` enlargements have gathered or it has waited
    /// `FULL_REFIT_MAX_WAIT` tidies; every
    /// `COST_CHECK_PERIOD`-th whole refit also measures the tree's SAH cost
    /// and rebuilds the tree once it has grown past `REBUILD_GROWTH` times
    /// its cost after the last rebuild.
    pub(crate) fn tidy(&mut self) {
        if self.refit_all {
            if self.enlargements * FULL_REFIT_WAIT_SHARE < self.tree.len() && self.waited < FULL_REFIT_MAX_WAIT {
                self.waited += 1;
                return;
            }
            self.refit_all = false;
            self.enlargements = 0;
            self.waited = 0;
            self.tree.refit();
            self.refits_unmeasured += 1;
            if self.refits_unmeasured < COST_CHECK_PERIOD && self.rebuilt_cost.is_some() {
                return;
            }
            self.refits_unmeasured = 0;
            let cost = self.tree.sah_cost();
            match self.rebuilt_cost {
                Some(rebuilt) if cost > rebuilt * REBUILD_GROWTH => self.rebuild(),
                Some(_) => {}
                None => self.rebuilt_cost = Some(cost),
            }
        } else {
            self.enlargements = 0;
            for id in self.enlarged.drain(..) {
                // A proxy removed since it was enlarged is skipped: its old
                // ancestors still contain their children, and the next
                // whole refit or rebuild tightens them.
                let _ = self.tree.refit_path(id);
            }
        }
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

    /// Rebuilds the tree (binned SAH) and records its cost.
    pub(crate) fn rebuild(&mut self) {
        self.tree.rebuild();
        self.rebuilt_cost = Some(self.tree.sah_cost());
        self.refits_unmeasured = 0;
        self.enlarged.clear();
        self.refit_all = false;
        self.enlargements = 0;
        self.waited = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proxima_narrowphase::Point;

    fn unit_at(p: Vector) -> Aabb {
        Aabb::new(Point::from(p), Point::from(p + Vector::repeat(1.0)))
    }

    /// A few moves tighten only their paths; many moves refit everything once
    /// half the tree has moved, and once the bodies have scattered (the refit tree's cost grown past
    /// `REBUILD_GROWTH` times the last rebuild's) the set rebuilds.
    #[test]
    fn tidy_refits_paths_then_everything_then_rebuilds_once_the_tree_wore_out() {
        let mut set = DynamicSet::default();
        let mut boxes: Vec<(ProxyId, Aabb)> = (0..512)
            .map(|i| {
                let b = unit_at(Vector::new((i % 8) as f32 * 2.0, (i / 64) as f32 * 2.0, (i / 8 % 8) as f32 * 2.0));
                (set.insert(b, i), b)
            })
            .collect();
        set.rebuild();
        let rebuilt = set.rebuilt_cost.unwrap();
        // Three moves: listed, their paths refitted, the tree tight again.
        for (id, b) in boxes.iter_mut().take(3) {
            let moved = unit_at(b.min().coords + Vector::new(0.0, -3.0, 0.0));
            set.update(*id, moved, b);
            *b = moved;
        }
        assert_eq!(set.enlarged.len(), 3);
        set.tidy();
        assert!(set.enlarged.is_empty() && !set.refit_all);
        // A hundred moves: past the paths' share, short of the wait's.
        for (id, b) in boxes.iter_mut().take(100) {
            let moved = unit_at(b.min().coords + Vector::new(0.0, 3.0, 0.0));
            set.update(*id, moved, b);
            *b = moved;
        }
        assert!(set.refit_all);
        set.tidy();
        assert!(set.refit_all && set.enlargements == 100, "the whole refit waits");
        // The bodies stop: the refit comes after the longest wait all the same.
        for _ in 1..FULL_REFIT_MAX_WAIT {
            set.tidy();
        }
        assert!(set.refit_all, "still waiting");
        set.tidy();
        assert!(!set.refit_all && set.enlargements == 0);
        // Tight: a second refit changes no box (validation sums the same areas).
        let mut again = set.clone();
        again.tree.refit();
        assert_eq!(set.tree.validate().unwrap().sah_cost, again.tree.validate().unwrap().sah_cost);
        // Each box scatters along its own direction: the grouping goes stale.
        let mut state = 7u64;
        for (id, b) in boxes.iter_mut() {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let d = Vector::new((state >> 40 & 255) as f32 - 127.5, (state >> 48 & 255) as f32 - 127.5, 0.0);
            let moved = unit_at(b.min().coords + d);
            set.update(*id, moved, b);
            *b = moved;
        }
        assert!(set.refit_all && set.enlarged.is_empty());
        let mut refit_only = set.clone();
        refit_only.tree.refit();
        let worn = refit_only.tree.sah_cost();
        assert!(worn > rebuilt * REBUILD_GROWTH, "the scatter must wear the tree: {worn} vs {rebuilt}");
        // The cost is measured on every `COST_CHECK_PERIOD`-th whole refit.
        set.refits_unmeasured = COST_CHECK_PERIOD - 1;
        set.tidy();
        let now = set.tree.validate().unwrap().sah_cost;
        assert!(now < worn, "a rebuild: {now} vs {worn}");
        assert!((set.rebuilt_cost.unwrap() - now).abs() <= 1e-9 * now);
    }
}
