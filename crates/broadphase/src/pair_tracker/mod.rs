//! Pair tracking: which proxies started or stopped overlapping since the last
//! update, found by re-querying only the proxies whose fat box changed.
//!
//! - this file: the tracker, its proxies and their options;
//! - `update`: the per-frame update (queries, sort, merge), sequential and parallel.

mod update;

use crate::pairs::{pair_key, Pair};
use crate::{BroadPhase, BroadPhaseError, CollisionGroups, DynamicTree, DynamicTreeOptions, ProxyId};
use crate::{RayControl, TreeStats, ValidationError};
use core::ops::ControlFlow;
use proxima_narrowphase::{intersects_aabb_aabb, Aabb, Ray, Real, Vector};

/// How a proxy takes part in pairing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ProxyOptions {
    /// Which proxies it may pair with (default: all).
    pub groups: CollisionGroups,
    /// A static proxy (level geometry) never pairs with another static proxy;
    /// it still pairs with dynamic ones. Default: dynamic.
    pub is_static: bool,
}

impl ProxyOptions {
    /// A static proxy in every group.
    pub const STATIC: Self = Self { groups: CollisionGroups::ALL, is_static: true };
}

/// A change in the pair set, with the pair in canonical `(min, max)` order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum PairEvent {
    /// The two fat boxes began to overlap (and the pair passes the filters).
    Started(ProxyId, ProxyId),
    /// The pair ended: the fat boxes separated, or a proxy was removed or re-filtered.
    Stopped(ProxyId, ProxyId),
}

impl PairEvent {
    /// The pair, `(min, max)`.
    #[inline]
    pub fn pair(&self) -> Pair {
        match *self {
            Self::Started(a, b) | Self::Stopped(a, b) => (a, b),
        }
    }
}

/// A tracked proxy's data in the tree.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Tracked<T> {
    pub(crate) data: T,
    pub(crate) options: ProxyOptions,
    /// The epoch in which it was last put on the moved list.
    pub(crate) moved_epoch: u32,
}

/// A [`DynamicTree`] that keeps the set of overlapping pairs and reports its
/// changes as [`PairEvent`]s (the pair manager of Box2D's `b2BroadPhase`).
///
/// A pair `(a, b)` is in the set when the fat boxes overlap (inclusive), not
/// both proxies are static, their [`CollisionGroups`] interact and the user
/// predicate of [`update_with`](Self::update_with) accepted it when it was found.
///
/// Each [`update`](Self::update) re-queries only the proxies inserted,
/// re-inserted by [`move_proxy`](Self::move_proxy) (their fat box changed) or
/// re-filtered since the last update; a proxy that moved inside its fat box
/// costs nothing. Output is deterministic: events are sorted by pair, never in
/// hash-map order. In steady state (no growth in proxies or pairs) `update`
/// allocates nothing: every buffer is kept between frames.
///
/// ```
/// use proxima_broadphase::{PairEvent, PairTracker, ProxyOptions};
/// use proxima_narrowphase::{Aabb, Point, Vector};
/// let mut tracker = PairTracker::new();
/// let unit = |x: f32| Aabb::new(Point::new(x, 0.0, 0.0), Point::new(x + 1.0, 1.0, 1.0));
/// let a = tracker.insert(unit(0.0), "a", ProxyOptions::default());
/// let b = tracker.insert(unit(5.0), "b", ProxyOptions::default());
/// assert!(tracker.update().is_empty());
/// tracker.move_proxy(b, unit(0.5), Vector::new(-4.5, 0.0, 0.0)).unwrap();
/// assert_eq!(tracker.update(), &[PairEvent::Started(a, b)]);
/// tracker.remove(a).unwrap();
/// assert_eq!(tracker.update(), &[PairEvent::Stopped(a, b)]);
/// ```
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PairTracker<T = ()> {
    tree: DynamicTree<Tracked<T>>,
    /// Proxies to re-query at the next update (may hold since-removed ids).
    moved: Vec<ProxyId>,
    /// Per slot: `epoch` when the slot's proxy was inserted, re-inserted,
    /// re-filtered or removed since the last update.
    touched: Vec<u32>,
    /// The current frame's stamp; advanced by every update.
    epoch: u32,
    /// The pair set as of the last update, sorted.
    pairs: Vec<Pair>,
    /// Buffers kept between frames so `update` does not allocate.
    next_pairs: Vec<Pair>,
    found: Vec<Pair>,
    scratch: Vec<Pair>,
    stack: Vec<u32>,
    events: Vec<PairEvent>,
    /// Per-slice output and traversal stack of the parallel update.
    chunks: Vec<(Vec<Pair>, Vec<u32>)>,
}

impl<T> Default for PairTracker<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> PairTracker<T> {
    /// An empty tracker over a tree with [`DynamicTreeOptions::default`].
    pub fn new() -> Self {
        Self::from_tree(DynamicTree::new())
    }

    /// An empty tracker; rejects invalid tree options.
    pub fn with_options(options: DynamicTreeOptions) -> Result<Self, BroadPhaseError> {
        Ok(Self::from_tree(DynamicTree::with_options(options)?))
    }

    fn from_tree(tree: DynamicTree<Tracked<T>>) -> Self {
        Self {
            tree,
            moved: Vec::new(),
            touched: Vec::new(),
            epoch: 1,
            pairs: Vec::new(),
            next_pairs: Vec::new(),
            found: Vec::new(),
            scratch: Vec::new(),
            stack: Vec::new(),
            events: Vec::new(),
            chunks: Vec::new(),
        }
    }

    /// Marks slot `index` touched this frame.
    #[inline]
    fn touch(&mut self, index: u32) {
        let i = index as usize;
        if self.touched.len() <= i {
            self.touched.resize((i + 1).next_power_of_two(), 0);
        }
        self.touched[i] = self.epoch;
    }

    /// Queues a live proxy for re-query (once per frame).
    fn mark_moved(&mut self, id: ProxyId) {
        let epoch = self.epoch;
        if let Some(t) = self.tree.get_mut(id) {
            if t.moved_epoch != epoch {
                t.moved_epoch = epoch;
                self.moved.push(id);
            }
        }
        self.touch(id.index());
    }

    /// Adds a proxy; its pairs appear as `Started` events at the next update.
    pub fn insert(&mut self, aabb: Aabb, user_data: T, options: ProxyOptions) -> ProxyId {
        let id = self.tree.insert(aabb, Tracked { data: user_data, options, moved_epoch: 0 });
        self.mark_moved(id);
        id
    }

    /// Removes a proxy and returns its user data; its pairs end with `Stopped`
    /// events at the next update. A stale id is rejected and nothing changes.
    pub fn remove(&mut self, id: ProxyId) -> Result<T, BroadPhaseError> {
        let tracked = self.tree.remove(id)?;
        self.touch(id.index());
        Ok(tracked.data)
    }

    /// Moves a proxy (see [`DynamicTree::move_proxy`]); when its fat box
    /// changes it is re-queried at the next update. Returns whether it was
    /// re-inserted. Errors leave everything unchanged.
    pub fn move_proxy(&mut self, id: ProxyId, aabb: Aabb, displacement: Vector) -> Result<bool, BroadPhaseError> {
        let reinserted = self.tree.move_proxy(id, aabb, displacement)?;
        if reinserted {
            self.mark_moved(id);
        }
        Ok(reinserted)
    }

    /// Changes a proxy's groups and static flag; its pairs are re-evaluated at
    /// the next update. A stale id is rejected.
    pub fn set_options(&mut self, id: ProxyId, options: ProxyOptions) -> Result<(), BroadPhaseError> {
        self.tree.get_mut(id).ok_or(BroadPhaseError::StaleId(id))?.options = options;
        self.mark_moved(id);
        Ok(())
    }

    /// Rebuilds the tree by binned SAH (see [`DynamicTree::rebuild`]); the
    /// pair set is unchanged (fat boxes are kept).
    pub fn rebuild(&mut self) {
        self.tree.rebuild();
    }

    /// The events of the last update.
    pub fn events(&self) -> &[PairEvent] {
        &self.events
    }

    /// The pair set as of the last update, `(min, max)`, sorted ascending.
    pub fn pairs(&self) -> &[Pair] {
        &self.pairs
    }

    /// Number of proxies.
    pub fn len(&self) -> usize {
        self.tree.len()
    }

    /// True when there are no proxies.
    pub fn is_empty(&self) -> bool {
        self.tree.is_empty()
    }

    /// A proxy's user data; `None` for a stale id.
    pub fn get(&self, id: ProxyId) -> Option<&T> {
        self.tree.get(id).map(|t| &t.data)
    }

    /// A proxy's user data, mutably; `None` for a stale id.
    pub fn get_mut(&mut self, id: ProxyId) -> Option<&mut T> {
        self.tree.get_mut(id).map(|t| &mut t.data)
    }

    /// A proxy's options; `None` for a stale id.
    pub fn options(&self, id: ProxyId) -> Option<ProxyOptions> {
        self.tree.get(id).map(|t| t.options)
    }

    /// A proxy's fat box; `None` for a stale id.
    pub fn fat_aabb(&self, id: ProxyId) -> Option<Aabb> {
        self.tree.fat_aabb(id)
    }

    /// True when `id` names a live proxy.
    pub fn contains(&self, id: ProxyId) -> bool {
        self.tree.contains(id)
    }

    /// The proxies whose fat box overlaps `aabb` (no group filtering).
    pub fn overlaps<'a>(&'a self, aabb: &Aabb) -> impl Iterator<Item = ProxyId> + 'a {
        self.tree.overlaps(aabb)
    }

    /// Box query with early out (see [`BroadPhase::visit_overlaps`]).
    pub fn visit_overlaps<F>(&self, aabb: &Aabb, visitor: F) -> ControlFlow<()>
    where
        F: FnMut(ProxyId) -> ControlFlow<()>,
    {
        self.tree.visit_overlaps(aabb, visitor)
    }

    /// Ray query (see [`BroadPhase::visit_ray`]).
    pub fn visit_ray<F>(&self, ray: &Ray, visitor: F)
    where
        F: FnMut(ProxyId, Real) -> RayControl,
    {
        self.tree.visit_ray(ray, visitor)
    }

    /// Validates the tree, then the pair set: sorted, canonical, unique, live,
    /// overlapping, never static-static, groups interacting. Call it right
    /// after an update (between updates the set is allowed to lag).
    pub fn validate(&self) -> Result<TreeStats, ValidationError> {
        let stats = self.tree.validate()?;
        for w in self.pairs.windows(2) {
            if pair_key(&w[0]) >= pair_key(&w[1]) {
                return Err(ValidationError(format!("pairs not sorted or repeated at {:?}", w[1])));
            }
        }
        for &(a, b) in &self.pairs {
            let (Some(ta), Some(tb)) = (self.tree.get(a), self.tree.get(b)) else {
                return Err(ValidationError(format!("pair {a:?}, {b:?} names a removed proxy")));
            };
            let boxes = (self.tree.fat_aabb(a), self.tree.fat_aabb(b));
            let overlap = matches!(boxes, (Some(x), Some(y)) if intersects_aabb_aabb(&x, &y));
            if a >= b
                || !overlap
                || (ta.options.is_static && tb.options.is_static)
                || !ta.options.groups.interacts_with(tb.options.groups)
            {
                return Err(ValidationError(format!("pair {a:?}, {b:?} should not be in the set")));
            }
        }
        Ok(stats)
    }

    /// Heap bytes held: the tree plus the pair buffers and stamps.
    pub fn memory_bytes(&self) -> usize {
        let pair = core::mem::size_of::<Pair>();
        self.tree.memory_bytes()
            + (self.pairs.capacity() + self.next_pairs.capacity() + self.found.capacity() + self.scratch.capacity())
                * pair
            + self.events.capacity() * core::mem::size_of::<PairEvent>()
            + (self.touched.capacity() + self.stack.capacity()) * 4
            + self.moved.capacity() * core::mem::size_of::<ProxyId>()
            + self.chunks.iter().map(|(o, s)| o.capacity() * pair + s.capacity() * 4).sum::<usize>()
    }
}
