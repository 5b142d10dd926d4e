//! Pair tracking for moving worlds: which proxies started or stopped
//! overlapping since the last update, at a cost that follows what moved.
//!
//! - this file: the tracker's public types, its state, construction and
//!   read access;
//! - `records`: the per-slot tables (fat box and leaf, tight box and change
//!   stamp) and this frame's change log;
//! - `edit`: insert, remove, move and re-filter, which write the change log;
//! - `query`: box and ray queries against the fat boxes;
//! - `validate`: the consistency check of trees and pair set;
//! - `tree`: one kind of proxy (dynamic or static) in a refitted 8-wide BVH;
//! - `update`: the per-frame update (tree upkeep, the choice of searches,
//!   the frame's close), with `search` (the changed proxies' searches for
//!   new pairs, over the `view` of the tracker's state), `merge` (the merge
//!   into the pair set) and `parallel` (the same on rayon's pool).

mod edit;
mod merge;
mod parallel;
mod query;
mod records;
mod search;
#[cfg(feature = "serde")]
mod snapshot;
mod tree;
mod update;
mod validate;
mod view;

pub use update::UpdateStats;

use crate::pairs::{slots_of, IndexPair, Pair};
use crate::slots::Slots;
use crate::static_bvh::MarkedScratch;
use crate::{BroadPhaseError, CollisionGroups, FatBoxOptions, ProxyId};
use proxima_narrowphase::Aabb;
use records::{held, Change, ChangeEntry, Entry, Record, TightRecord};
use tree::KindTree;

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

/// The persistent pair set of a moving world (the pair manager of Box2D's
/// `b2BroadPhase`), reported as [`PairEvent`]s: the broadphase a physics
/// engine runs every frame.
///
/// A pair `(a, b)` is in the set when the fat boxes overlap (inclusive), not
/// both proxies are static, their [`CollisionGroups`] interact and the user
/// predicate of [`update_with`](Self::update_with) accepted it when the pair
/// began.
///
/// **Fat boxes.** Each proxy keeps a fat box (its tight box grown by a margin
/// and stretched along its motion, see [`FatBoxOptions`]). A move that
/// stays inside it costs one containment test; a move out of it writes the
/// new fat box into the proxy's leaf. Static and dynamic proxies live in two
/// 8-wide BVHs (binned SAH); each update refits them once instead of
/// re-inserting proxy by proxy, and builds one again (in parallel with the
/// `parallel` feature) only when refits have cost it half its quality or many
/// proxies were added or removed.
///
/// **Per-frame cost follows what moved.** [`update`](Self::update) queries
/// only the proxies whose fat box changed (and the inserted or re-filtered
/// ones; when more than a quarter of the dynamic proxies changed, one
/// self-descent of the dynamic tree pruned to their leaves replaces their
/// queries), static proxies never query each other, and a pair is new exactly
/// when the two fat boxes did not overlap before: no hash set, no re-finding
/// of persistent pairs. Output is deterministic (sorted by pair, never in
/// hash order) and steady-state updates allocate nothing.
///
/// **Queries** ([`overlaps`](Self::overlaps), [`visit_overlaps`](Self::visit_overlaps),
/// [`visit_ray`](Self::visit_ray)) see the current fat boxes at any time,
/// also between [`move_proxy`](Self::move_proxy) and the next update (the
/// proxies moved since are tested one by one until the update's refit).
///
/// **Exact pairs.** The tight boxes passed to [`move_proxy`](Self::move_proxy)
/// are kept: [`exact_pairs`](Self::exact_pairs) yields the pairs whose tight
/// boxes overlap, without giving up fat-box persistence.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_broadphase as broadphase; }
/// use proxima::broadphase::{PairEvent, PairTracker, ProxyOptions};
/// use proxima::narrowphase::{Aabb, Point, Vector};
/// let mut tracker = PairTracker::new();
/// let unit = |x: f32| Aabb::new(Point::new(x, 0.0, 0.0), Point::new(x + 1.0, 1.0, 1.0));
/// let a = tracker.insert(unit(0.0), "a", ProxyOptions::default());
/// let b = tracker.insert(unit(5.0), "b", ProxyOptions::default());
/// assert!(tracker.update().is_empty());
/// tracker.move_proxy(b, unit(0.5), Vector::new(-4.5, 0.0, 0.0)).unwrap();
/// assert_eq!(tracker.update(), &[PairEvent::Started(a, b)]);
/// assert!(tracker.exact_pairs().eq([(a, b)]));
/// tracker.remove(a).unwrap();
/// assert_eq!(tracker.update(), &[PairEvent::Stopped(a, b)]);
/// ```
#[derive(Clone, Debug)]
pub struct PairTracker<T = ()> {
    options: FatBoxOptions,
    /// User data and options, with generations.
    proxies: Slots<Entry<T>>,
    /// Per slot: the fat box and its leaf.
    records: Vec<Record>,
    /// Per slot: the tight box and this frame's change stamp.
    tights: Vec<TightRecord>,
    /// One bit per slot, set while the slot has a change this frame: a
    /// query's hit on an unchanged proxy is decided from this table (a few
    /// kilobytes, in L1) and the leaf box, without reading its records.
    changed: Vec<u64>,
    /// One bit per slot, set while the slot has a change this frame that
    /// re-derives its pairs (inserted, re-filtered or removed; not a move):
    /// an old pair of two slots without it is kept exactly when the fat
    /// boxes overlap, decided without reading the change entries.
    renewed: Vec<u64>,
    /// One bit per slot, set while its tight box moved or it has a change
    /// since the last update: the merge takes the exactness of a pair of
    /// two untouched slots from the last update's exact list (read in step
    /// with the pair set) instead of reading their tight boxes, so the
    /// resting part of a world costs no random read.
    touched: Vec<u64>,
    /// The dynamic proxies, and the static ones.
    dynamic: KindTree,
    fixed: KindTree,
    /// This frame's changes, one per proxy id, in order of first change.
    changes: Vec<ChangeEntry>,
    /// The current frame's stamp; advanced by every update.
    epoch: u32,
    /// The pair set as of the last update, as sorted slot pairs (the sort
    /// key of `pairs::pair_key`, `a << 32 | b`: 8 bytes, half a `Pair`, and
    /// the merge streams the whole set every frame). Their proxies are the
    /// slots' occupants at that update (see `ChangeEntry::before`).
    pairs: Vec<u64>,
    /// Its pairs whose tight boxes overlap, sorted.
    exact: Vec<u64>,
    /// Buffers kept between frames so `update` does not allocate.
    next_pairs: Vec<u64>,
    next_exact: Vec<u64>,
    found: Vec<Pair>,
    scratch: Vec<Pair>,
    queries: Vec<(u32, u32)>,
    events: Vec<PairEvent>,
    /// Per-slice output and descent stacks of the parallel update's searches.
    chunks: Vec<parallel::ParChunk>,
    /// The parallel merge's pieces after the first.
    pieces: Vec<parallel::MergePiece>,
    /// The stacks of the marked self-descent.
    search: MarkedScratch,
    /// Whether this frame's dynamic pairs come from the marked self-descent.
    descent: bool,
    /// A tight box changed since the last update (so its exact pairs may
    /// have): with no change either, an update has nothing to do.
    tights_moved: bool,
    stats: UpdateStats,
}

impl<T> Default for PairTracker<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> PairTracker<T> {
    /// An empty tracker with [`FatBoxOptions::default`] (margin 0.1, prediction 4).
    pub fn new() -> Self {
        Self::unchecked(FatBoxOptions::default())
    }

    /// An empty tracker; rejects a negative or non-finite margin or prediction.
    pub fn new_with(options: FatBoxOptions) -> Result<Self, BroadPhaseError> {
        crate::dynamic_tree::check_options(&options)?;
        Ok(Self::unchecked(options))
    }

    /// The former name of [`new_with`](Self::new_with).
    #[deprecated(since = "0.2.0", note = "renamed to `new_with`: `with_*` names builder methods")]
    #[doc(hidden)]
    pub fn with_options(options: FatBoxOptions) -> Result<Self, BroadPhaseError> {
        Self::new_with(options)
    }

    fn unchecked(options: FatBoxOptions) -> Self {
        Self {
            options,
            proxies: Slots::default(),
            records: Vec::new(),
            tights: Vec::new(),
            changed: Vec::new(),
            renewed: Vec::new(),
            touched: Vec::new(),
            dynamic: KindTree::default(),
            fixed: KindTree::default(),
            changes: Vec::new(),
            epoch: 1,
            pairs: Vec::new(),
            exact: Vec::new(),
            next_pairs: Vec::new(),
            next_exact: Vec::new(),
            found: Vec::new(),
            scratch: Vec::new(),
            queries: Vec::new(),
            events: Vec::new(),
            chunks: Vec::new(),
            pieces: Vec::new(),
            search: MarkedScratch::default(),
            descent: false,
            tights_moved: false,
            stats: UpdateStats::default(),
        }
    }

    /// A tracker over many proxies at once: every tree is built in one
    /// binned-SAH build (parallel with the `parallel` feature) instead of
    /// proxy by proxy. Ids are handed out in order (`0..n` for a new
    /// tracker's slots). The pairs appear as `Started` events at the first
    /// update. Rejects invalid options.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_broadphase as broadphase; }
    /// use proxima::broadphase::{FatBoxOptions, PairTracker, ProxyOptions};
    /// use proxima::narrowphase::{Aabb, Point};
    /// let boxes = (0..100).map(|i| {
    ///     let x = i as f32 * 0.9;
    ///     (Aabb::new(Point::new(x, 0.0, 0.0), Point::new(x + 1.0, 1.0, 1.0)), i, ProxyOptions::default())
    /// });
    /// let mut tracker = PairTracker::from_proxies(FatBoxOptions::default(), boxes).unwrap();
    /// assert_eq!(tracker.update().len(), 99); // each box and its neighbour
    /// ```
    pub fn from_proxies(
        options: FatBoxOptions,
        proxies: impl IntoIterator<Item = (Aabb, T, ProxyOptions)>,
    ) -> Result<Self, BroadPhaseError> {
        let mut tracker = Self::new_with(options)?;
        let proxies = proxies.into_iter();
        let n = proxies.size_hint().0;
        tracker.proxies.reserve(n);
        tracker.records.reserve(n);
        tracker.tights.reserve(n);
        tracker.changes.reserve(n);
        for (aabb, data, options) in proxies {
            tracker.insert(aabb, data, options);
        }
        tracker.rebuild();
        Ok(tracker)
    }

    /// The options the tracker was made with.
    pub fn tree_options(&self) -> FatBoxOptions {
        self.options
    }

    /// The proxy slot `slot` held at the last update (for the slots of the
    /// pair set).
    #[inline]
    fn held(&self, slot: u32) -> ProxyId {
        held(&self.proxies, &self.changed, &self.tights, &self.changes, slot)
    }

    /// The events of the last update.
    pub fn events(&self) -> &[PairEvent] {
        &self.events
    }

    /// The pair set as of the last update (fat boxes), `(min, max)`, sorted
    /// ascending. The set is stored as slot pairs; the iterator names their
    /// proxies (those of the last update, also after a removal since).
    pub fn pairs(&self) -> impl ExactSizeIterator<Item = Pair> + '_ {
        self.pairs.iter().map(|&key| self.pair_of(key))
    }

    /// The pairs of the last update whose tight boxes (as given to
    /// [`insert`](Self::insert) or [`move_proxy`](Self::move_proxy) before
    /// that update) overlap, inclusive: the exact overlap set of the filtered
    /// proxies, sorted. Computed by the update's merge, in the same pass.
    pub fn exact_pairs(&self) -> impl ExactSizeIterator<Item = Pair> + '_ {
        self.exact.iter().map(|&key| self.pair_of(key))
    }

    /// [`exact_pairs`](Self::exact_pairs) as proxy indices
    /// ([`ProxyId::index`]), in the same order: a sequential read of the
    /// stored list, for a caller that keys its own tables by index (the
    /// ids' generations are a random read per proxy).
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_broadphase as broadphase; }
    /// use proxima::broadphase::{PairTracker, ProxyOptions};
    /// use proxima::narrowphase::{Aabb, Point};
    /// let mut tracker = PairTracker::new();
    /// let unit = |x: f32| Aabb::new(Point::new(x, 0.0, 0.0), Point::new(x + 1.0, 1.0, 1.0));
    /// let a = tracker.insert(unit(0.0), (), ProxyOptions::default());
    /// let b = tracker.insert(unit(0.5), (), ProxyOptions::default());
    /// tracker.update();
    /// assert!(tracker.exact_pair_indices().eq([(a.index(), b.index())]));
    /// ```
    pub fn exact_pair_indices(&self) -> impl ExactSizeIterator<Item = IndexPair> + '_ {
        self.exact.iter().map(|&key| slots_of(key))
    }

    /// [`exact_pair_indices`](Self::exact_pair_indices) as stored: one key
    /// per pair, `(a << 32) | b` for proxy indices `a < b`, sorted ascending
    /// (so in the same order). A caller whose own tables are indexed like the
    /// proxies reads them in place, without copying a frame's pairs.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; pub(crate) use ::proxima_broadphase as broadphase; }
    /// use proxima::broadphase::{PairTracker, ProxyOptions};
    /// use proxima::narrowphase::{Aabb, Point};
    /// let mut tracker = PairTracker::new();
    /// let unit = |x: f32| Aabb::new(Point::new(x, 0.0, 0.0), Point::new(x + 1.0, 1.0, 1.0));
    /// let a = tracker.insert(unit(0.0), (), ProxyOptions::default());
    /// let b = tracker.insert(unit(0.5), (), ProxyOptions::default());
    /// tracker.update();
    /// assert_eq!(tracker.exact_pair_keys(), &[(u64::from(a.index()) << 32) | u64::from(b.index())]);
    /// ```
    #[doc(hidden)]
    pub fn exact_pair_keys(&self) -> &[u64] {
        &self.exact
    }

    /// The proxies of a stored slot pair.
    #[inline]
    fn pair_of(&self, key: u64) -> Pair {
        let (a, b) = slots_of(key);
        (self.held(a), self.held(b))
    }

    /// Counts of the last update (proxies queried, pairs found, rebuilds).
    pub fn stats(&self) -> &UpdateStats {
        &self.stats
    }

    /// Number of proxies.
    pub fn len(&self) -> usize {
        self.proxies.len()
    }

    /// True when there are no proxies.
    pub fn is_empty(&self) -> bool {
        self.proxies.len() == 0
    }

    /// A proxy's user data; `None` for a stale id.
    pub fn get(&self, id: ProxyId) -> Option<&T> {
        self.proxies.get(id).map(|e| &e.data)
    }

    /// A proxy's user data, mutably; `None` for a stale id.
    pub fn get_mut(&mut self, id: ProxyId) -> Option<&mut T> {
        self.proxies.get_mut(id).map(|e| &mut e.data)
    }

    /// A proxy's options; `None` for a stale id.
    pub fn options(&self, id: ProxyId) -> Option<ProxyOptions> {
        self.proxies.get(id).map(|e| e.options)
    }

    /// A proxy's fat box; `None` for a stale id.
    pub fn fat_aabb(&self, id: ProxyId) -> Option<Aabb> {
        self.proxies.get(id).map(|_| self.records[id.index() as usize].fat)
    }

    /// A proxy's tight box, as last given; `None` for a stale id.
    pub fn tight_aabb(&self, id: ProxyId) -> Option<Aabb> {
        self.proxies.get(id).map(|_| self.tights[id.index() as usize].tight)
    }

    /// True when `id` names a live proxy.
    pub fn contains(&self, id: ProxyId) -> bool {
        self.proxies.contains(id)
    }

    /// Heap bytes held: trees, per-proxy tables, pair buffers.
    pub fn memory_bytes(&self) -> usize {
        let pair = core::mem::size_of::<Pair>();
        self.dynamic.memory_bytes()
            + self.fixed.memory_bytes()
            + self.proxies.heap_bytes()
            + self.records.capacity() * core::mem::size_of::<Record>()
            + self.tights.capacity() * core::mem::size_of::<TightRecord>()
            + (self.changed.capacity() + self.renewed.capacity() + self.touched.capacity()) * 8
            + self.changes.capacity() * core::mem::size_of::<ChangeEntry>()
            + (self.pairs.capacity() + self.exact.capacity() + self.next_pairs.capacity() + self.next_exact.capacity())
                * 8
            + (self.found.capacity() + self.scratch.capacity()) * pair
            + self.queries.capacity() * 8
            + self.events.capacity() * core::mem::size_of::<PairEvent>()
            + self.chunks.iter().map(parallel::ParChunk::memory_bytes).sum::<usize>()
            + self.pieces.iter().map(parallel::MergePiece::memory_bytes).sum::<usize>()
            + self.search.memory_bytes()
    }

    /// [`memory_bytes`](Self::memory_bytes) per live proxy (0 when empty).
    pub fn bytes_per_proxy(&self) -> f64 {
        match self.len() {
            0 => 0.0,
            n => self.memory_bytes() as f64 / n as f64,
        }
    }
}
