//! Pair tracking for moving worlds: which proxies started or stopped
//! overlapping since the last update, at a cost that follows what moved.
//!
//! - this file: the tracker, its proxies and their options;
//! - `tree`: one kind of proxy (dynamic or static) in a refitted 8-wide BVH;
//! - `update`: the per-frame update (tree upkeep, the movers' queries, the
//!   merge into the pair set), sequential and parallel.

#[cfg(feature = "serde")]
mod snapshot;
mod tree;
mod update;

pub use update::UpdateStats;

use crate::pairs::{slots_of, Pair};
use crate::slots::Slots;
use crate::static_bvh::MarkedScratch;
use crate::{BroadPhaseError, CollisionGroups, DynamicTreeOptions, ProxyId};
use crate::{RayControl, TreeStats, ValidationError};
use core::ops::ControlFlow;
use proxima_narrowphase::{cast_ray_aabb, intersects_aabb_aabb, Aabb, Ray, Real, Vector};
use tree::KindTree;

/// The proxy slot `slot` held at the last update: its occupant now when it
/// did not change this frame, else the `before` of its latest change.
#[inline]
pub(crate) fn held<T>(
    proxies: &Slots<Entry<T>>,
    changed: &[u64],
    tights: &[TightRecord],
    changes: &[ChangeEntry],
    slot: u32,
) -> ProxyId {
    if changed[slot as usize / 64] & (1 << (slot % 64)) == 0 {
        proxies.id_of(slot as usize)
    } else {
        changes[tights[slot as usize].change as usize].before
    }
}

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

/// A proxy's user data and options (the slot map's value).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Entry<T> {
    pub(crate) data: T,
    pub(crate) options: ProxyOptions,
}

/// A proxy's fat box and where it lives: what a move, a query's hit and a
/// tree build read. Half a cache line.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
pub(crate) struct Record {
    /// The fat box every query tests.
    pub(crate) fat: Aabb,
    /// Its leaf slot in its kind's BVH, or `tree::NONE` while pending.
    pub(crate) leaf: u32,
    /// A copy of its options' static flag (which tree holds it).
    pub(crate) is_static: bool,
}

/// A proxy's tight box and this frame's change stamp: what the merge reads
/// for every pair of the set, kept apart from [`Record`] so that its table
/// (32 bytes a proxy, half of one shared record) stays in cache on large
/// pair sets.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
pub(crate) struct TightRecord {
    /// The tight box last given.
    pub(crate) tight: Aabb,
    /// The epoch of the proxy's last change.
    pub(crate) stamp: u32,
    /// That change's index in `changes`.
    pub(crate) change: u32,
}

/// One change of this frame: the proxy, how it changed, and the proxy its
/// slot held at the last update (`before`: the first of the slot's proxies to
/// change this frame; another than `id` when the slot was freed and reused
/// within the frame). The pair set stores slots, so `before` names the
/// proxies of its old pairs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChangeEntry {
    pub(crate) id: ProxyId,
    pub(crate) change: Change,
    pub(crate) before: ProxyId,
}

/// How a proxy changed since the last update.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) enum Change {
    /// Its fat box grew out of `old_fat`, the fat box it had at the last update.
    Moved { old_fat: Aabb },
    /// Inserted or re-filtered: every pair it had is re-derived.
    Fresh,
    /// Removed.
    Removed,
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
/// and stretched along its motion, see [`DynamicTreeOptions`]). A move that
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
/// use proxima_broadphase::{PairEvent, PairTracker, ProxyOptions};
/// use proxima_narrowphase::{Aabb, Point, Vector};
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
    options: DynamicTreeOptions,
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
    chunks: Vec<update::ParChunk>,
    /// The parallel merge's pieces after the first.
    pieces: Vec<update::MergePiece>,
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
    /// An empty tracker with [`DynamicTreeOptions::default`] (margin 0.1, prediction 4).
    pub fn new() -> Self {
        Self::from_options(DynamicTreeOptions::default())
    }

    /// An empty tracker; rejects a negative or non-finite margin or prediction.
    pub fn with_options(options: DynamicTreeOptions) -> Result<Self, BroadPhaseError> {
        crate::dynamic_tree::check_options(&options)?;
        Ok(Self::from_options(options))
    }

    fn from_options(options: DynamicTreeOptions) -> Self {
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
    /// use proxima_broadphase::{DynamicTreeOptions, PairTracker, ProxyOptions};
    /// use proxima_narrowphase::{Aabb, Point};
    /// let boxes = (0..100).map(|i| {
    ///     let x = i as f32 * 0.9;
    ///     (Aabb::new(Point::new(x, 0.0, 0.0), Point::new(x + 1.0, 1.0, 1.0)), i, ProxyOptions::default())
    /// });
    /// let mut tracker = PairTracker::from_proxies(DynamicTreeOptions::default(), boxes).unwrap();
    /// assert_eq!(tracker.update().len(), 99); // each box and its neighbour
    /// ```
    pub fn from_proxies(
        options: DynamicTreeOptions,
        proxies: impl IntoIterator<Item = (Aabb, T, ProxyOptions)>,
    ) -> Result<Self, BroadPhaseError> {
        let mut tracker = Self::with_options(options)?;
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
    pub fn tree_options(&self) -> DynamicTreeOptions {
        self.options
    }

    /// The tree holding the proxies of `options`' kind.
    #[inline]
    fn tree_mut(&mut self, options: &ProxyOptions) -> &mut KindTree {
        if options.is_static {
            &mut self.fixed
        } else {
            &mut self.dynamic
        }
    }

    /// Records a change of proxy `id` this frame (see
    /// [`record_entry`](Self::record_entry)); an insert, removal or re-filter
    /// also sets the slot's bit in `renewed` (its pairs are derived again).
    fn record(&mut self, id: ProxyId, change: Change) {
        if !matches!(change, Change::Moved { .. }) {
            let slot = id.index() as usize;
            self.renewed[slot / 64] |= 1 << (slot % 64);
        }
        self.record_entry(id, change);
    }

    /// The change entry of [`record`](Self::record), without the `renewed`
    /// bit: what `move_proxy` calls (a move renews nothing), inlined there.
    /// A proxy changed twice keeps its first `old_fat`, and `Fresh` or
    /// `Removed` override `Moved`. A slot's first change this frame names the
    /// proxy it held at the last update (a proxy inserted into a slot that
    /// was free then has no old pair, so what it names is never read).
    #[inline(always)]
    fn record_entry(&mut self, id: ProxyId, change: Change) {
        let slot = id.index() as usize;
        let mut before = id;
        if self.tights[slot].stamp == self.epoch {
            let entry = &mut self.changes[self.tights[slot].change as usize];
            if entry.id == id {
                if !matches!(change, Change::Moved { .. }) {
                    entry.change = change;
                }
                return;
            }
            before = entry.before; // the slot was freed and is reused
        }
        self.tights[slot].stamp = self.epoch;
        self.tights[slot].change = self.changes.len() as u32;
        self.changed[slot / 64] |= 1 << (slot % 64);
        self.touch(slot);
        self.changes.push(ChangeEntry { id, change, before });
    }

    /// Sets slot `slot`'s bit in `touched`.
    #[inline]
    fn touch(&mut self, slot: usize) {
        self.touched[slot / 64] |= 1 << (slot % 64);
    }

    /// The proxy slot `slot` held at the last update (for the slots of the
    /// pair set).
    #[inline]
    fn held(&self, slot: u32) -> ProxyId {
        held(&self.proxies, &self.changed, &self.tights, &self.changes, slot)
    }

    /// Adds a proxy with tight box `aabb`; its pairs appear as `Started`
    /// events at the next update.
    ///
    /// # Panics
    /// With more than 2^31 proxies at once.
    pub fn insert(&mut self, aabb: Aabb, user_data: T, options: ProxyOptions) -> ProxyId {
        let id = self.proxies.insert(Entry { data: user_data, options }, i32::MAX as u32);
        let slot = id.index() as usize;
        let record = Record { fat: aabb.loosened(self.options.margin), leaf: tree::NONE, is_static: options.is_static };
        if self.records.len() <= slot {
            self.records.resize(slot + 1, record);
            self.tights.resize(slot + 1, TightRecord { tight: aabb, stamp: 0, change: 0 });
            self.changed.resize(self.records.len().div_ceil(64), 0);
            self.renewed.resize(self.records.len().div_ceil(64), 0);
            self.touched.resize(self.records.len().div_ceil(64), 0);
        }
        self.records[slot] = record;
        // A slot freed this frame keeps its stamp (`record` finds the old
        // proxy's change by it).
        self.tights[slot].tight = aabb;
        self.tree_mut(&options).add(id.index());
        self.record(id, Change::Fresh);
        id
    }

    /// Removes a proxy and returns its user data; its pairs end with `Stopped`
    /// events at the next update. A stale id is rejected and nothing changes.
    pub fn remove(&mut self, id: ProxyId) -> Result<T, BroadPhaseError> {
        let options = self.proxies.try_get(id)?.options;
        let leaf = self.records[id.index() as usize].leaf;
        self.tree_mut(&options).remove(id.index(), leaf);
        self.record(id, Change::Removed);
        self.proxies.remove(id).map(|entry| entry.data)
    }

    /// Tells the tracker that proxy `id` now has tight box `aabb` after moving
    /// by `displacement` this step.
    ///
    /// Returns `Ok(false)` when `aabb` is still inside the fat box (only the
    /// tight box is recorded), `Ok(true)` when the proxy got a new fat box
    /// (`aabb` grown by the margin, stretched by `prediction * displacement`)
    /// and will be queried at the next update. A stale id or a NaN/infinite
    /// displacement is rejected and nothing changes.
    pub fn move_proxy(&mut self, id: ProxyId, aabb: Aabb, displacement: Vector) -> Result<bool, BroadPhaseError> {
        if !self.proxies.contains(id) {
            return Err(BroadPhaseError::StaleId(id));
        }
        if !displacement.iter().all(|d| d.is_finite()) {
            return Err(BroadPhaseError::InvalidDisplacement);
        }
        Ok(self.move_live(id, aabb, &displacement))
    }

    /// [`move_proxy`](Self::move_proxy) with the displacement taken as the
    /// move of the tight box's centre since the proxy's last tight box (zero
    /// where that is not finite: a box whose centre overflows), for a caller
    /// that does not track it: one lookup of the proxy instead of a
    /// [`tight_aabb`](Self::tight_aabb) and a `move_proxy`. A stale id is
    /// rejected and nothing changes.
    ///
    /// ```
    /// use proxima_broadphase::{PairTracker, ProxyOptions};
    /// use proxima_narrowphase::{Aabb, Point, Vector};
    /// let mut tracker = PairTracker::new();
    /// let unit = |x: f32| Aabb::new(Point::new(x, 0.0, 0.0), Point::new(x + 1.0, 1.0, 1.0));
    /// let a = tracker.insert(unit(0.0), (), ProxyOptions::default());
    /// let mut twin = tracker.clone();
    /// // Moved by 3 along x: the fat box is stretched along +x, as with the
    /// // displacement given.
    /// assert!(tracker.move_proxy_to(a, unit(3.0)).unwrap());
    /// twin.move_proxy(a, unit(3.0), Vector::new(3.0, 0.0, 0.0)).unwrap();
    /// assert_eq!(tracker.fat_aabb(a), twin.fat_aabb(a));
    /// ```
    pub fn move_proxy_to(&mut self, id: ProxyId, aabb: Aabb) -> Result<bool, BroadPhaseError> {
        if !self.proxies.contains(id) {
            return Err(BroadPhaseError::StaleId(id));
        }
        let old = &self.tights[id.index() as usize].tight;
        let displacement: Vector = aabb.center() - old.center();
        let displacement = if displacement.iter().all(|d| d.is_finite()) { displacement } else { Vector::zeros() };
        Ok(self.move_live(id, aabb, &displacement))
    }

    /// The move of live proxy `id` (checked by the caller) with a finite
    /// displacement: [`move_proxy`](Self::move_proxy)'s answer.
    #[inline]
    fn move_live(&mut self, id: ProxyId, aabb: Aabb, displacement: &Vector) -> bool {
        let slot = id.index() as usize;
        let tight = &mut self.tights[slot].tight;
        if *tight != aabb {
            *tight = aabb;
            self.tights_moved = true;
            self.touch(slot);
        }
        let record = &mut self.records[id.index() as usize];
        let old_fat = record.fat;
        if old_fat.contains_aabb(&aabb) {
            return false;
        }
        let fat = crate::dynamic_tree::fat_box(&self.options, &aabb, displacement);
        record.fat = fat;
        let (leaf, is_static) = (record.leaf, record.is_static);
        let tree = if is_static { &mut self.fixed } else { &mut self.dynamic };
        tree.set_box(leaf, &fat);
        self.record_entry(id, Change::Moved { old_fat });
        true
    }

    /// Changes a proxy's groups and static flag; its pairs are re-evaluated at
    /// the next update. A stale id is rejected.
    pub fn set_options(&mut self, id: ProxyId, options: ProxyOptions) -> Result<(), BroadPhaseError> {
        let entry = self.proxies.try_get_mut(id)?;
        let old = core::mem::replace(&mut entry.options, options);
        if old.is_static != options.is_static {
            let record = &mut self.records[id.index() as usize];
            let leaf = core::mem::replace(&mut record.leaf, tree::NONE);
            record.is_static = options.is_static;
            self.tree_mut(&old).remove(id.index(), leaf);
            self.tree_mut(&options).add(id.index());
        }
        self.record(id, Change::Fresh);
        Ok(())
    }

    /// Builds both trees again by binned SAH over the current fat boxes (the
    /// update does it by itself when they degrade); the pair set is unchanged.
    pub fn rebuild(&mut self) {
        self.dynamic.maintain(&mut self.records, true);
        self.fixed.maintain(&mut self.records, true);
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
    /// use proxima_broadphase::{PairTracker, ProxyOptions};
    /// use proxima_narrowphase::{Aabb, Point};
    /// let mut tracker = PairTracker::new();
    /// let unit = |x: f32| Aabb::new(Point::new(x, 0.0, 0.0), Point::new(x + 1.0, 1.0, 1.0));
    /// let a = tracker.insert(unit(0.0), (), ProxyOptions::default());
    /// let b = tracker.insert(unit(0.5), (), ProxyOptions::default());
    /// tracker.update();
    /// assert!(tracker.exact_pair_indices().eq([(a.index(), b.index())]));
    /// ```
    pub fn exact_pair_indices(&self) -> impl ExactSizeIterator<Item = (u32, u32)> + '_ {
        self.exact.iter().map(|&key| slots_of(key))
    }

    /// [`exact_pair_indices`](Self::exact_pair_indices) as stored: one key
    /// per pair, `(a << 32) | b` for proxy indices `a < b`, sorted ascending
    /// (so in the same order). A caller whose own tables are indexed like the
    /// proxies reads them in place, without copying a frame's pairs.
    ///
    /// ```
    /// use proxima_broadphase::{PairTracker, ProxyOptions};
    /// use proxima_narrowphase::{Aabb, Point};
    /// let mut tracker = PairTracker::new();
    /// let unit = |x: f32| Aabb::new(Point::new(x, 0.0, 0.0), Point::new(x + 1.0, 1.0, 1.0));
    /// let a = tracker.insert(unit(0.0), (), ProxyOptions::default());
    /// let b = tracker.insert(unit(0.5), (), ProxyOptions::default());
    /// tracker.update();
    /// assert_eq!(tracker.exact_pair_keys(), &[(u64::from(a.index()) << 32) | u64::from(b.index())]);
    /// ```
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

    /// Validates the trees against the proxies, then the pair set: sorted,
    /// canonical, unique, live, overlapping, never static-static, groups
    /// interacting. Call it right after an update (between updates the set
    /// is allowed to lag). The stats are the dynamic tree's.
    pub fn validate(&self) -> Result<TreeStats, ValidationError> {
        let fail = |what: String| Err(ValidationError(what));
        let (mut statics, mut dynamics) = (Vec::new(), Vec::new());
        for (id, entry) in self.proxies.iter() {
            let record = &self.records[id.index() as usize];
            if record.is_static != entry.options.is_static {
                return fail(format!("proxy {id:?}: its record's static flag disagrees with its options"));
            }
            if !record.fat.contains_aabb(&self.tights[id.index() as usize].tight) {
                return fail(format!("proxy {id:?}: tight box outside its fat box"));
            }
            if entry.options.is_static { &mut statics } else { &mut dynamics }.push(id.index());
        }
        self.fixed.check(&mut statics, &self.records).map_err(|e| ValidationError(format!("static tree: {e}")))?;
        self.dynamic.check(&mut dynamics, &self.records).map_err(|e| ValidationError(format!("dynamic tree: {e}")))?;
        for w in self.pairs.windows(2) {
            if w[0] >= w[1] {
                return fail(format!("pairs not sorted or repeated at {:?}", slots_of(w[1])));
            }
        }
        for (a, b) in self.pairs() {
            let (Some(ea), Some(eb)) = (self.proxies.get(a), self.proxies.get(b)) else {
                return fail(format!("pair {a:?}, {b:?} names a removed proxy"));
            };
            let (ra, rb) = (&self.records[a.index() as usize], &self.records[b.index() as usize]);
            let overlap = intersects_aabb_aabb(&ra.fat, &rb.fat);
            if a >= b
                || !overlap
                || (ea.options.is_static && eb.options.is_static)
                || !ea.options.groups.interacts_with(eb.options.groups)
            {
                return fail(format!("pair {a:?}, {b:?} should not be in the set"));
            }
        }
        let exact: Vec<u64> = self
            .pairs
            .iter()
            .copied()
            .filter(|&key| {
                let (a, b) = slots_of(key);
                intersects_aabb_aabb(&self.tights[a as usize].tight, &self.tights[b as usize].tight)
            })
            .collect();
        if exact != self.exact {
            return fail("the exact pairs are not the pairs whose tight boxes overlap".into());
        }
        let n = dynamics.len();
        let stats = self.dynamic.stats();
        Ok(stats.unwrap_or(TreeStats { leaves: n, nodes: 0, height: 0, sah_cost: 0.0 }))
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
            + self.chunks.iter().map(update::ParChunk::memory_bytes).sum::<usize>()
            + self.pieces.iter().map(update::MergePiece::memory_bytes).sum::<usize>()
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
