//! The per-frame update: refit (or rebuild) the trees, find the new pairs of
//! the proxies that changed (one query each, or, when more than a quarter of
//! the dynamic proxies changed, one self-descent of the dynamic tree pruned
//! to their leaves), merge them into the pair set and report the difference.
//!
//! A pair is *new* this frame when one of its proxies is fresh (inserted or
//! re-filtered) or when the two fat boxes of the last update did not overlap:
//! the pair set held exactly the overlapping fat pairs then, so every other
//! pair a query finds is already in it. An old pair is kept when neither
//! proxy changed, or when one moved and the new fat boxes still overlap.

use super::{tree, Change, ChangeEntry, Entry, PairEvent, PairTracker, Record, TightRecord};
use crate::pairs::{pair_key, slots_of, sort_pairs, Pair};
use crate::prefetch::prefetch;
use crate::slots::Slots;
use crate::static_bvh::MarkedScratch;
#[cfg(feature = "parallel")]
use crate::static_bvh::MarkedTask;
use crate::ProxyId;
use core::ops::ControlFlow;
use proxima_narrowphase::{intersects_aabb_aabb, Aabb};

/// Counts of one update.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UpdateStats {
    /// Proxies queried: their fat box changed, or they were inserted or re-filtered.
    pub queried: usize,
    /// New overlapping pairs found by those queries (before the merge).
    pub found: usize,
    /// Whether a tree was built again (quality or many inserts/removals).
    pub rebuilt: bool,
    /// Whether the changed dynamic proxies found their dynamic neighbours by
    /// one self-descent of the dynamic tree pruned to their leaves, instead
    /// of one query each: the update takes it when more than a quarter of
    /// the dynamic proxies changed (the measured crossover).
    pub descended: bool,
}

impl<T> PairTracker<T> {
    /// Recomputes the pairs of the proxies that changed and returns the
    /// changes since the last update, sorted by pair `(a, b)` ascending (by
    /// slot indices; when a slot was reused, the old proxy's `Stopped` comes
    /// before the new one's `Started`). Each pair appears at most once.
    pub fn update(&mut self) -> &[PairEvent] {
        self.update_with(|_, _, _, _| true)
    }

    /// [`update`](Self::update) with a user filter: `predicate(a, data_a, b,
    /// data_b)`, called with `a < b`, decides whether a pair that begins to
    /// overlap is kept. It is asked once, when the fat boxes begin to
    /// overlap (or when a proxy is inserted or re-filtered with
    /// [`set_options`](Self::set_options), which forces the question again).
    pub fn update_with<F>(&mut self, mut predicate: F) -> &[PairEvent]
    where
        F: FnMut(ProxyId, &T, ProxyId, &T) -> bool,
    {
        if self.is_still() {
            return self.close_still_frame();
        }
        self.prepare();
        let (view, work) = self.parts();
        work.found.clear();
        view.marked_pairs(work.search, &mut predicate, work.found);
        for &(_, change) in work.queries {
            view.query(change as usize, &mut predicate, work.found);
        }
        self.finish()
    }

    /// Brings the trees up to date, chooses how the dynamic proxies that
    /// changed find their dynamic neighbours (one query each, or, when many
    /// changed, one marked self-descent of the dynamic BVH: their leaves are
    /// marked here), and lists the proxies that query, in leaf order
    /// (neighbouring queries share their path down the tree).
    fn prepare(&mut self) {
        let rebuilt_dynamic = self.dynamic.maintain(&mut self.records, false);
        let rebuilt_fixed = self.fixed.maintain(&mut self.records, false);
        self.stats.rebuilt = rebuilt_dynamic || rebuilt_fixed;
        self.queries.clear();
        let built_changed = self
            .changes
            .iter()
            .filter(|e| {
                let record = &self.records[e.id.index() as usize];
                !matches!(e.change, Change::Removed) && !record.is_static && record.leaf != tree::NONE
            })
            .count();
        self.descent = built_changed as f64 > DESCENT_FRACTION * self.dynamic.built_len() as f64;
        self.stats.descended = self.descent;
        // With the descent, the BVH's changed proxies still search the
        // static tree and the pending dynamic proxies, when there are any.
        let others = !self.fixed.is_empty() || self.dynamic.has_pending();
        let mut searched = 0;
        for (i, entry) in self.changes.iter().enumerate() {
            if matches!(entry.change, Change::Removed) {
                continue;
            }
            searched += 1;
            let record = &self.records[entry.id.index() as usize];
            let built_dynamic = !record.is_static && record.leaf != tree::NONE;
            if built_dynamic && self.descent {
                self.dynamic.mark(record.leaf);
            }
            if !built_dynamic || !self.descent || others {
                self.queries.push((record.leaf, i as u32));
            }
        }
        if self.descent {
            self.dynamic.mark_lanes();
        }
        self.queries.sort_unstable();
        self.stats.queried = searched;
    }

    /// The state the searches and the merge read, and the buffers they
    /// write: one borrow of the tracker split in two.
    fn parts(&mut self) -> (View<'_, T>, Work<'_>) {
        let Self {
            proxies,
            records,
            tights,
            changed,
            renewed,
            touched,
            changes,
            dynamic,
            fixed,
            descent,
            queries,
            found,
            search,
            chunks,
            pairs,
            next_pairs,
            exact,
            next_exact,
            events,
            pieces,
            ..
        } = self;
        let view = View {
            proxies,
            records,
            tights,
            changed,
            renewed,
            touched,
            // Reading the old exact pairs in step pays while most slots are
            // untouched; with most touched (a physics step moves every
            // awake body), every pair tests its tight boxes.
            join_exact: touched.iter().map(|w| w.count_ones() as usize).sum::<usize>() <= proxies.len() / 4,
            changes,
            dynamic,
            fixed,
            descent: *descent,
        };
        let work = Work {
            queries,
            found,
            search,
            chunks,
            old: pairs,
            old_exact: exact,
            next: next_pairs,
            exact: next_exact,
            events,
            pieces,
        };
        (view, work)
    }

    /// Sorts the found pairs, merges them into the pair set, starts a new frame.
    fn finish(&mut self) -> &[PairEvent] {
        self.stats.found = self.found.len();
        sort_pairs(&mut self.found, &mut self.scratch);
        let (view, work) = self.parts();
        merge(&view, work.merge_io().0);
        self.close_frame()
    }

    /// True when nothing changed since the last update: no proxy was
    /// inserted, removed, re-filtered or got a new fat box, and no tight box
    /// changed (a world whose bodies all sleep).
    fn is_still(&self) -> bool {
        self.changes.is_empty() && !self.tights_moved
    }

    /// The update of a still frame: the pairs and exact pairs stay, no event,
    /// no work beyond starting a new frame.
    fn close_still_frame(&mut self) -> &[PairEvent] {
        self.events.clear();
        self.stats = UpdateStats::default();
        self.advance_epoch();
        &self.events
    }

    /// Makes the merged set current and starts a new frame.
    fn close_frame(&mut self) -> &[PairEvent] {
        self.tights_moved = false;
        core::mem::swap(&mut self.pairs, &mut self.next_pairs);
        core::mem::swap(&mut self.exact, &mut self.next_exact);
        // Every bit set since the last update goes (a memset of one bit per
        // slot: 12.5 kB for 100k proxies).
        self.touched.fill(0);
        for entry in &self.changes {
            self.changed[entry.id.index() as usize / 64] = 0;
            self.renewed[entry.id.index() as usize / 64] = 0;
        }
        self.changes.clear();
        self.trim_frame_lists();
        if self.descent {
            self.dynamic.clear_marks();
        }
        self.advance_epoch();
        &self.events
    }

    /// Gives back what a bulk frame (every proxy inserted, every pair
    /// started) left in the per-frame lists, which would otherwise hold ~90
    /// bytes per proxy for good. The change and query lists keep room for a
    /// quarter of the proxies (above, a frame takes the marked descent), the
    /// found pairs and the events for a quarter of the pair set; a list is
    /// shrunk only past twice that, so frames changing up to half of them
    /// do not shrink and regrow it (steady frames stay allocation-free).
    fn trim_frame_lists(&mut self) {
        fn trim<E>(list: &mut Vec<E>, keep: usize) {
            if list.capacity() > 2 * keep {
                list.shrink_to(keep);
            }
        }
        let (proxies, pairs) = ((self.proxies.len() / 4).max(256), (self.pairs.len() / 4).max(256));
        trim(&mut self.changes, proxies);
        trim(&mut self.queries, proxies);
        trim(&mut self.found, pairs);
        // The sort's scratch keeps its last length: it is scratch.
        self.scratch.clear();
        trim(&mut self.scratch, pairs);
        trim(&mut self.events, pairs);
    }

    /// Starts a new frame; on the (rare) wrap of the counter, clears the stamps.
    fn advance_epoch(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.tights.iter_mut().for_each(|r| r.stamp = 0);
            self.epoch = 1;
        }
    }
}

/// Number of slices the parallel update's searches are cut into (the query
/// list in ranges, the marked descent's open tasks in turn); fixed, so the
/// work split does not depend on the thread count.
#[cfg(feature = "parallel")]
const PAR_CHUNKS: usize = 16;
/// Below this many changed proxies the parallel update searches sequentially.
#[cfg(feature = "parallel")]
const PAR_MIN_QUERIES: usize = 256;
/// The tasks the marked descent's top is opened into for the parallel
/// update: several per slice, so that the slices' shares even out.
#[cfg(feature = "parallel")]
const PAR_DESCENT_TASKS: usize = 128;

/// One slice of the parallel update's searches: its pairs found, and its
/// own stacks for the marked descent's tasks.
#[derive(Clone, Debug, Default)]
#[cfg_attr(not(feature = "parallel"), allow(dead_code))]
pub(super) struct ParChunk {
    found: Vec<Pair>,
    search: MarkedScratch,
}

impl ParChunk {
    /// Heap bytes held.
    pub(super) fn memory_bytes(&self) -> usize {
        self.found.capacity() * core::mem::size_of::<Pair>() + self.search.memory_bytes()
    }
}

#[cfg(feature = "parallel")]
impl<T: Sync> PairTracker<T> {
    /// [`update`](Self::update), with the searches of the changed proxies
    /// (their queries, or the marked self-descent below its top levels) and
    /// the merge into the pair set run on rayon's pool: the pool of the
    /// caller's [`ThreadPool::install`](rayon::ThreadPool::install) if there
    /// is one, the global pool otherwise (the tree upkeep and the sort stay
    /// sequential). Same events, in the same order, for any number of
    /// threads. Its own buffers are kept (one per slice), but rayon's
    /// scheduler may allocate now and then, so only
    /// [`update`](Self::update) is strictly allocation-free.
    pub fn update_parallel(&mut self) -> &[PairEvent] {
        self.update_parallel_with(|_, _, _, _| true)
    }

    /// [`update_with`](Self::update_with) on rayon's pool: the predicate is
    /// shared by the threads, so it is `Fn + Sync`.
    pub fn update_parallel_with<F>(&mut self, predicate: F) -> &[PairEvent]
    where
        F: Fn(ProxyId, &T, ProxyId, &T) -> bool + Sync,
    {
        use rayon::prelude::*;
        if self.is_still() {
            return self.close_still_frame();
        }
        self.prepare();
        let searched = self.stats.queried;
        let (view, work) = self.parts();
        let Work { queries, found, search, chunks, .. } = work;
        let mut keep = |a: ProxyId, da: &T, b: ProxyId, db: &T| predicate(a, da, b, db);
        found.clear();
        if searched < PAR_MIN_QUERIES {
            view.marked_pairs(search, &mut keep, found);
            for &(_, change) in queries {
                view.query(change as usize, &mut keep, found);
            }
            return self.finish_parallel(PAR_MERGE_MIN);
        }
        // The descent's top is opened here; its tasks are dealt to the
        // slices in turn (neighbouring tasks differ most in size).
        view.open_marked_pairs(search, PAR_DESCENT_TASKS, &mut keep, found);
        let tasks = &search.open;
        if chunks.len() != PAR_CHUNKS {
            chunks.resize_with(PAR_CHUNKS, Default::default);
        }
        let per = queries.len().div_ceil(PAR_CHUNKS);
        chunks.par_iter_mut().enumerate().for_each(|(c, chunk)| {
            let ParChunk { found: out, search } = chunk;
            out.clear();
            let mut keep = |a: ProxyId, da: &T, b: ProxyId, db: &T| predicate(a, da, b, db);
            view.marked_tasks(tasks.iter().skip(c).step_by(PAR_CHUNKS).copied(), search, &mut keep, out);
            let range = (c * per).min(queries.len())..((c + 1) * per).min(queries.len());
            for &(_, change) in &queries[range] {
                view.query(change as usize, &mut keep, out);
            }
        });
        for chunk in chunks.iter() {
            found.extend_from_slice(&chunk.found);
        }
        // The searches just ran on the pool: its threads are awake, so the
        // merge's cut costs no wake-up.
        self.finish_parallel(PAR_MERGE_MIN_AWAKE)
    }

    /// [`finish`](Self::finish) with the merge cut into one piece per
    /// thread of the pool, each of at least `min_piece` old pairs (see
    /// [`merge_parallel`]).
    fn finish_parallel(&mut self, min_piece: usize) -> &[PairEvent] {
        self.stats.found = self.found.len();
        sort_pairs(&mut self.found, &mut self.scratch);
        let (view, work) = self.parts();
        let (io, pieces) = work.merge_io();
        merge_parallel(&view, io, pieces, min_piece);
        self.close_frame()
    }
}

/// The tracker's buffers, as [`PairTracker::parts`] lends them: the query
/// list and the searches' output and scratch, then the merge's.
struct Work<'a> {
    queries: &'a [(u32, u32)],
    found: &'a mut Vec<Pair>,
    search: &'a mut MarkedScratch,
    /// The parallel update's per-slice outputs.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    chunks: &'a mut Vec<ParChunk>,
    old: &'a [u64],
    old_exact: &'a [u64],
    next: &'a mut Vec<u64>,
    exact: &'a mut Vec<u64>,
    events: &'a mut Vec<PairEvent>,
    pieces: &'a mut Vec<MergePiece>,
}

impl<'a> Work<'a> {
    /// The merge's input and output, and the parallel merge's pieces.
    fn merge_io(self) -> (MergeIo<'a>, &'a mut Vec<MergePiece>) {
        let Self { old, old_exact, found, next, exact, events, pieces, .. } = self;
        (MergeIo { old, old_exact, found, next, exact, events }, pieces)
    }
}

/// The merge's input (the old pair set and its exact pairs, this frame's
/// sorted new pairs) and output (the next pair set, its exact pairs, the
/// events).
struct MergeIo<'a> {
    old: &'a [u64],
    old_exact: &'a [u64],
    found: &'a [Pair],
    next: &'a mut Vec<u64>,
    exact: &'a mut Vec<u64>,
    events: &'a mut Vec<PairEvent>,
}

/// The output of one piece of the parallel merge after the first (which
/// writes straight into the tracker's lists), kept between frames.
#[derive(Clone, Debug, Default)]
pub(crate) struct MergePiece {
    next: Vec<u64>,
    exact: Vec<u64>,
    events: Vec<PairEvent>,
}

impl MergePiece {
    /// Heap bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        (self.next.capacity() + self.exact.capacity()) * 8 + self.events.capacity() * core::mem::size_of::<PairEvent>()
    }
}

/// Below this many old pairs per piece the parallel merge does not cut. A
/// cut costs the wake-up of a sleeping pool thread, about what merging 30k
/// pairs costs on the rapier replays (a smaller merge cut in two made the
/// step slower, not faster): so a piece is worth it from about 32k pairs (a
/// set of 64k pairs on two threads;
/// docs/decisions/0012-parallel-paths-give-the-same-answer.md).
#[cfg(feature = "parallel")]
const PAR_MERGE_MIN: usize = 32_768;
/// [`PAR_MERGE_MIN`] right after the queries ran on the pool (its threads
/// awake): a cut then costs a task hand-off, not a wake-up.
#[cfg(feature = "parallel")]
const PAR_MERGE_MIN_AWAKE: usize = 4096;

/// The merge cut into one piece per thread of the current rayon pool (at
/// most 16, each of at least `min_piece` old pairs): piece `k` takes
/// the old pairs from `old.len() * k / pieces` on, and the found pairs from
/// the first whose key is not below that old pair's. Each piece is a merge
/// of its own key range, so their outputs, appended in order, are the
/// sequential merge's (the same events in the same order for any number of
/// threads). The first piece writes in place; the others are copied after.
#[cfg(feature = "parallel")]
fn merge_parallel<T: Sync>(view: &View<'_, T>, io: MergeIo<'_>, pieces: &mut Vec<MergePiece>, min_piece: usize) {
    let MergeIo { old, old_exact, found, next, exact, events } = io;
    let parts = rayon::current_num_threads().min(16).min(old.len() / min_piece);
    if parts < 2 {
        merge(view, MergeIo { old, old_exact, found, next, exact, events });
        return;
    }
    let start = |k: usize| -> (usize, usize, usize) {
        if k == parts {
            return (old.len(), old_exact.len(), found.len());
        }
        let i = old.len() * k / parts;
        let key = old[i];
        if k == 0 {
            return (0, 0, 0);
        }
        (i, old_exact.partition_point(|&e| e < key), found.partition_point(|f| pair_key(f) < key))
    };
    let part = |k: usize| {
        let ((i0, e0, j0), (i1, e1, j1)) = (start(k), start(k + 1));
        (&old[i0..i1], &old_exact[e0..e1], &found[j0..j1])
    };
    pieces.resize_with(parts - 1, MergePiece::default);
    rayon::join(
        || {
            let (old, old_exact, found) = part(0);
            merge(view, MergeIo { old, old_exact, found, next, exact, events });
        },
        || {
            use rayon::prelude::*;
            pieces.par_iter_mut().enumerate().for_each(|(k, piece)| {
                let (old, old_exact, found) = part(k + 1);
                let MergePiece { next, exact, events } = piece;
                merge(view, MergeIo { old, old_exact, found, next, exact, events });
            });
        },
    );
    for piece in pieces.iter() {
        next.extend_from_slice(&piece.next);
        exact.extend_from_slice(&piece.exact);
        events.extend_from_slice(&piece.events);
    }
}

/// Which changed proxies a search reports among its hits (an unchanged one
/// searches nothing, so its pairs are always reported).
#[derive(Clone, Copy)]
enum Rule {
    /// The changed ones of a higher slot: a changed hit searches for this
    /// proxy too, so the lower slot's search reports the pair.
    Mutual,
    /// None: each of them finds this proxy by a search that reports every hit.
    Unchanged,
    /// All of them: they do not search for this proxy.
    All,
}

/// The fraction of the dynamic BVH's proxies that must have changed for a
/// frame to take the marked self-descent instead of one query per changed
/// proxy. On 100k sparse boxes the queries win at 5% and 10% changed, the
/// two are even at 15-20%, and the descent wins at 30% and 50%; on the rapier
/// tall drop (16% changed per step, a dense pile) the queries win
/// (docs/decisions/0007-marked-self-descent-above-a-quarter.md). A quarter
/// keeps the pile's busiest steps on the queries.
const DESCENT_FRACTION: f64 = 0.25;

/// The tracker's state as the queries and the merge read it.
struct View<'a, T> {
    /// This frame's dynamic pairs come from the marked self-descent.
    descent: bool,
    proxies: &'a Slots<Entry<T>>,
    records: &'a [Record],
    tights: &'a [TightRecord],
    changed: &'a [u64],
    renewed: &'a [u64],
    touched: &'a [u64],
    /// Whether the merge takes untouched pairs' exactness from the old
    /// exact pairs (most slots untouched) or tests every pair's tight boxes.
    join_exact: bool,
    changes: &'a [ChangeEntry],
    dynamic: &'a super::tree::KindTree,
    fixed: &'a super::tree::KindTree,
}

impl<T> View<'_, T> {
    /// Whether the tight boxes of slots `a` and `b` overlap.
    #[inline(always)]
    fn tights_overlap(&self, a: u32, b: u32) -> bool {
        intersects_aabb_aabb(&self.tights[a as usize].tight, &self.tights[b as usize].tight)
    }

    /// Whether slot `slot`'s tight box moved or it has a change since the
    /// last update (its bit in `touched`).
    #[inline(always)]
    fn is_touched(&self, slot: u32) -> bool {
        self.touched[slot as usize / 64] & (1 << (slot % 64)) != 0
    }

    /// Whether slot `slot` has a change this frame (its bit in `changed`).
    #[inline(always)]
    fn is_changed(&self, slot: u32) -> bool {
        self.changed[slot as usize / 64] & (1 << (slot % 64)) != 0
    }

    /// Whether slot `slot` has a change this frame that re-derives its pairs
    /// (its bit in `renewed`).
    #[inline(always)]
    fn is_renewed(&self, slot: u32) -> bool {
        self.renewed[slot as usize / 64] & (1 << (slot % 64)) != 0
    }

    /// The proxy slot `slot` held at the last update.
    #[inline]
    fn held(&self, slot: u32) -> ProxyId {
        super::held(self.proxies, self.changed, self.tights, self.changes, slot)
    }

    /// The fat box proxy `slot` had at the last update, given its box now:
    /// the same box when it did not change, its old box when it moved,
    /// `None` when it is fresh (every pair it has is new).
    #[inline]
    fn old_fat(&self, slot: u32, fat: &Aabb) -> Option<Aabb> {
        if !self.is_changed(slot) {
            return Some(*fat);
        }
        // The slot of a live proxy (a tree's hit): its latest change entry
        // is its own (`PairTracker::record` starts a new one when a slot is
        // reused), so its id need not be read to tell it from a removed one.
        let entry = &self.changes[self.tights[slot as usize].change as usize];
        debug_assert_eq!(entry.id, self.proxies.id_of(slot as usize), "a tree hit is the slot's live proxy");
        match entry.change {
            Change::Moved { old_fat } => Some(old_fat),
            Change::Fresh | Change::Removed => None,
        }
    }

    /// The pair of the live proxies in slots `a != b`, whose fat boxes
    /// overlap now and were `old_a` and `old_b` at the last update: appended
    /// to `out` (canonical) when it is new (the old boxes did not overlap,
    /// or one is fresh), the groups interact and `predicate` accepts it.
    /// Most hits are persistent neighbours (or, in a sparse world, the proxy
    /// itself), so the two entries (a cache miss each on a large world) are
    /// read only for a new pair.
    #[inline]
    fn offer<F>(&self, a: u32, old_a: Option<Aabb>, b: u32, old_b: Option<Aabb>, predicate: &mut F, out: &mut Vec<Pair>)
    where
        F: FnMut(ProxyId, &T, ProxyId, &T) -> bool,
    {
        if let (Some(oa), Some(ob)) = (old_a, old_b) {
            if intersects_aabb_aabb(&oa, &ob) {
                return; // in the set already (or filtered out when it began)
            }
        }
        let (ea, eb) = (self.proxies.by_key(a as usize), self.proxies.by_key(b as usize));
        if !ea.options.groups.interacts_with(eb.options.groups) {
            return;
        }
        let (ia, ib) = (self.proxies.id_of(a as usize), self.proxies.id_of(b as usize));
        let (lo, hi, da, db) = if ia < ib { (ia, ib, ea, eb) } else { (ib, ia, eb, ea) };
        if predicate(lo, &da.data, hi, &db.data) {
            out.push((lo, hi));
        }
    }

    /// With the descent, appends to `out` the new pairs of two dynamic
    /// proxies of the dynamic BVH, one of them changed (marked by `prepare`):
    /// one pruned self-descent finds each such overlapping pair once.
    fn marked_pairs<F>(&self, scratch: &mut MarkedScratch, predicate: &mut F, out: &mut Vec<Pair>)
    where
        F: FnMut(ProxyId, &T, ProxyId, &T) -> bool,
    {
        if self.descent {
            self.dynamic.visit_marked_pairs(scratch, |a, fat_a, b, fat_b| {
                self.offer(a, self.old_fat(a, fat_a), b, self.old_fat(b, fat_b), predicate, out);
            });
        }
    }

    /// [`marked_pairs`](Self::marked_pairs)' first part for threads: opens
    /// the descent's top into `scratch.open` (up to four levels down, until
    /// it holds `min_tasks` tasks), appending the pairs found on the way.
    #[cfg(feature = "parallel")]
    fn open_marked_pairs<F>(
        &self,
        scratch: &mut MarkedScratch,
        min_tasks: usize,
        predicate: &mut F,
        out: &mut Vec<Pair>,
    ) where
        F: FnMut(ProxyId, &T, ProxyId, &T) -> bool,
    {
        if self.descent {
            self.dynamic.open_marked_pairs(scratch, min_tasks, |a, fat_a, b, fat_b| {
                self.offer(a, self.old_fat(a, fat_a), b, self.old_fat(b, fat_b), predicate, out);
            });
        } else {
            scratch.open.clear();
        }
    }

    /// Appends to `out` the new pairs found below the descent's `tasks`
    /// (from [`open_marked_pairs`](Self::open_marked_pairs)).
    #[cfg(feature = "parallel")]
    fn marked_tasks<F>(
        &self,
        tasks: impl Iterator<Item = MarkedTask>,
        scratch: &mut MarkedScratch,
        predicate: &mut F,
        out: &mut Vec<Pair>,
    ) where
        F: FnMut(ProxyId, &T, ProxyId, &T) -> bool,
    {
        self.dynamic.visit_marked_tasks(tasks, scratch, |a, fat_a, b, fat_b| {
            self.offer(a, self.old_fat(a, fat_a), b, self.old_fat(b, fat_b), predicate, out);
        });
    }

    /// Appends to `out` the new pairs that the changed proxy `changes[change]`
    /// forms, canonical: a static proxy with the dynamic ones, a dynamic one
    /// with the static ones and (without the descent, or when it is pending)
    /// with the dynamic ones. A pair of two changed proxies that search for
    /// each other is reported by the lower slot's search only.
    fn query<F>(&self, change: usize, predicate: &mut F, out: &mut Vec<Pair>)
    where
        F: FnMut(ProxyId, &T, ProxyId, &T) -> bool,
    {
        let ChangeEntry { id: a, change: kind, .. } = self.changes[change];
        let index = a.index();
        let record = &self.records[index as usize];
        let (query, is_static, pending) = (record.fat, record.is_static, record.leaf == tree::NONE);
        let old_a = match kind {
            Change::Moved { old_fat } => Some(old_fat),
            _ => None,
        };
        let mut visit = |slot: u32, fat: &Aabb, rule: Rule| {
            let skip = slot == index
                || match rule {
                    Rule::Mutual => slot < index && self.is_changed(slot),
                    Rule::Unchanged => self.is_changed(slot),
                    Rule::All => false,
                };
            if !skip {
                self.offer(index, old_a, slot, self.old_fat(slot, fat), predicate, out);
            }
            ControlFlow::Continue(())
        };
        if is_static {
            // Static proxies never pair with each other; every changed
            // dynamic proxy searches the static tree.
            let _ = self.dynamic.visit_overlaps(&query, self.records, |s, f| visit(s, f, Rule::Mutual));
            return;
        }
        let _ = self.fixed.visit_overlaps(&query, self.records, |s, f| visit(s, f, Rule::Mutual));
        if !self.descent {
            let _ = self.dynamic.visit_overlaps(&query, self.records, |s, f| visit(s, f, Rule::Mutual));
        } else if pending {
            // A pending proxy is not in the marked self-descent: it finds
            // its pairs with the BVH's proxies, changed or not.
            let _ = self.dynamic.visit_built_overlaps(&query, |s, f| visit(s, f, Rule::All));
            let _ = self.dynamic.visit_pending_overlaps(&query, self.records, |s, f| visit(s, f, Rule::Mutual));
        } else {
            // A changed pending proxy finds this one (above); an unchanged
            // one searches nothing.
            let _ = self.dynamic.visit_pending_overlaps(&query, self.records, |s, f| visit(s, f, Rule::Unchanged));
        }
    }

    /// Whether the old pair of slots `a`, `b` (not found again this frame)
    /// stays in the set.
    ///
    /// A renewed slot's proxy was inserted, re-filtered or removed (or the
    /// slot reused): its pairs are re-derived, so an old one not found again
    /// ends. Two slots that only moved (or did not change) keep it while
    /// their fat boxes overlap (an unchanged pair's still do).
    #[inline]
    fn keeps(&self, a: u32, b: u32) -> bool {
        !self.is_renewed(a)
            && !self.is_renewed(b)
            && intersects_aabb_aabb(&self.records[a as usize].fat, &self.records[b as usize].fat)
    }
}

/// Merges the old pair set with this frame's new pairs (both sorted): an old
/// pair stays when [`View::keeps`] says so or when it was found again (a fresh
/// proxy's pairs are all found again); a found pair not in the old set
/// starts. Writes the new set to `next`, its pairs whose tight boxes overlap
/// to `exact`, and the events, in pair order, to `events`.
///
/// The found pairs are few beside the old ones (a frame's new contacts
/// against the persistent set), so the merge walks the old set in runs
/// between two found pairs: the run's loop has no three-way comparison, and
/// its common case (neither proxy changed: two bits of [`View::changed`], in
/// L1) reads only the two tight boxes.
fn merge<T>(view: &View<'_, T>, io: MergeIo<'_>) {
    // A table that stays in a core's L2 between updates gains nothing from
    // the prefetches: their instructions cost more than the misses they hide
    // (the rapier tall drop's 8,000 proxies, 256 kB, are faster without
    // them). A table past half the L2 (1 MiB on the Zen 4 measured) does not
    // stay there while the rest of a physics step (its narrowphase, its
    // solver) runs between two updates, so the prefetches pay from there
    // (the demo's 20,000 bodies, 640 kB; docs/decisions/0011-pair-merge.md).
    let prefetch = core::mem::size_of_val(view.tights) > PREFETCH_MIN_BYTES;
    match (view.join_exact, prefetch) {
        (true, true) => merge_with::<T, true, true>(view, io),
        (true, false) => merge_with::<T, true, false>(view, io),
        (false, true) => merge_with::<T, false, true>(view, io),
        (false, false) => merge_with::<T, false, false>(view, io),
    }
}

/// Up to this size of the tight-record table, the merge does not prefetch:
/// half the L2 of the CPU measured.
const PREFETCH_MIN_BYTES: usize = 1 << 19;

/// [`merge`], reading the old exact pairs in step (`JOIN`) or not, and
/// prefetching the records of the pairs ahead (`PREFETCH`) or not.
#[inline(always)]
fn merge_with<T, const JOIN: bool, const PREFETCH: bool>(view: &View<'_, T>, io: MergeIo<'_>) {
    let MergeIo { old, old_exact, found, next, exact, events } = io;
    next.clear();
    exact.clear();
    events.clear();
    let (mut i, mut e) = (0, 0);
    for &f in found {
        let key = pair_key(&f);
        let run = count_below(&old[i..], key);
        merge_old::<T, JOIN, PREFETCH>(view, &old[i..i + run], (old_exact, &mut e), next, exact, events);
        i += run;
        let (a, b) = slots_of(key);
        if old.get(i) == Some(&key) {
            i += 1;
            if JOIN {
                e += usize::from(old_exact.get(e) == Some(&key));
            }
            if view.held(a) != f.0 || view.held(b) != f.1 {
                // A slot was freed and reused: the old proxy's pair stops
                // before the new one's starts.
                events.push(PairEvent::Stopped(view.held(a), view.held(b)));
                events.push(PairEvent::Started(f.0, f.1));
            }
        } else {
            events.push(PairEvent::Started(f.0, f.1));
        }
        next.push(key);
        if view.tights_overlap(a, b) {
            exact.push(key);
        }
    }
    merge_old::<T, JOIN, PREFETCH>(view, &old[i..], (old_exact, &mut e), next, exact, events);
}

/// The number of keys in the sorted `keys` below `key`, by a galloping
/// search from the front: the found pairs are sorted, so each run starts
/// where the last ended, and a run of `r` pairs costs `O(log r)` reads near
/// the front instead of a binary search's cache misses across the whole set.
#[inline]
fn count_below(keys: &[u64], key: u64) -> usize {
    let mut end = 1;
    while end < keys.len() && keys[end - 1] < key {
        end *= 2;
    }
    let start = end / 2;
    start + keys[start..end.min(keys.len())].partition_point(|&k| k < key)
}

/// The old pairs of one run of the merge (none of them found again): each
/// stays if [`View::keeps`] says so, else stops. With `JOIN`,
/// `old_exact[at..]` are the old exact pairs from this run's first on
/// (advanced past the run's): a pair of two untouched slots is exact now as
/// it was then, read from there in step (the old exact pairs are a sorted
/// subsequence of the old pairs); the others test their tight boxes.
#[inline]
fn merge_old<T, const JOIN: bool, const PREFETCH: bool>(
    view: &View<'_, T>,
    old: &[u64],
    (old_exact, at): (&[u64], &mut usize),
    next: &mut Vec<u64>,
    exact: &mut Vec<u64>,
    events: &mut Vec<PairEvent>,
) {
    // Written into the spare capacity with lengths in registers: through
    // `push`, every pair reloaded both vectors' lengths from memory.
    next.reserve(old.len());
    exact.reserve(old.len());
    let (next_len, exact_len) = (next.len(), exact.len());
    let (mut n, mut e) = (0, 0);
    let next_out = &mut next.spare_capacity_mut()[..old.len()];
    let exact_out = &mut exact.spare_capacity_mut()[..old.len()];
    let mut x = *at;
    for (k, &o) in old.iter().enumerate() {
        // The records of old pairs are random reads (the second proxy of
        // sorted pairs jumps around): start loading them a few pairs ahead,
        // those that will be read.
        if let (true, Some(&ahead)) = (PREFETCH, old.get(k + PREFETCH_AHEAD)) {
            let (a, b) = slots_of(ahead);
            if !JOIN || view.is_touched(a) || view.is_touched(b) {
                prefetch(view.tights, a);
                prefetch(view.tights, b);
            }
            // A changed pair is kept by its fat boxes: load them too (in a
            // world mostly at rest, where the tables are too large for the
            // cache to hold what a step touches).
            if JOIN && (view.is_changed(a) || view.is_changed(b)) {
                prefetch(view.records, a);
                prefetch(view.records, b);
            }
        }
        let was_exact = JOIN && old_exact.get(x) == Some(&o);
        x += usize::from(was_exact);
        let (a, b) = slots_of(o);
        if (view.is_changed(a) || view.is_changed(b)) && !view.keeps(a, b) {
            events.push(PairEvent::Stopped(view.held(a), view.held(b)));
            continue;
        }
        next_out[n].write(o);
        n += 1;
        // Written always, kept when the tight boxes overlap: whether they do
        // follows no pattern, and a branch on it would be mispredicted on
        // about a third of the pairs.
        exact_out[e].write(o);
        let is_exact =
            if !JOIN || view.is_touched(a) || view.is_touched(b) { view.tights_overlap(a, b) } else { was_exact };
        e += usize::from(is_exact);
    }
    *at = x;
    // SAFETY: the first `n` (`e`) spare slots of `next` (`exact`) were
    // written above, and `n, e <= old.len()` fit the capacity reserved.
    unsafe {
        next.set_len(next_len + n);
        exact.set_len(exact_len + e);
    }
}

/// How many old pairs ahead the merge prefetches their records: enough to
/// cover a miss to memory at a few nanoseconds per pair.
const PREFETCH_AHEAD: usize = 16;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DynamicTreeOptions, ProxyOptions};
    use proxima_test_support::scene;

    /// `tests/pair_tracker_moving.rs` reaches the prefetching merge with
    /// 21,952 proxies (`exact_pairs_of_a_world_past_the_prefetch_threshold`):
    /// their tight records must stay past the threshold.
    #[test]
    fn the_prefetch_test_world_is_past_the_threshold() {
        assert!(21_952 * core::mem::size_of::<TightRecord>() > PREFETCH_MIN_BYTES);
    }

    /// A bulk frame (every proxy inserted, every pair started) does not leave
    /// its per-frame lists at full size: after two light frames each holds
    /// at most twice the room kept (a quarter of the proxies or pairs), and
    /// the update still reports what it should.
    #[test]
    fn bulk_frame_lists_are_given_back() {
        let n = 20_000;
        let boxes = scene::boxes(n, true, 4);
        let proxies = boxes.iter().enumerate().map(|(i, b)| (*b, i, ProxyOptions::default()));
        let mut tracker = PairTracker::from_proxies(DynamicTreeOptions::default(), proxies).unwrap();
        let started = tracker.update().len();
        assert!(started > n, "a dense world: {started} pairs");
        for (slot, b) in boxes.iter().enumerate().take(2) {
            let id = tracker.proxies.id_of(slot);
            let moved = scene::translated(b, &proxima_narrowphase::Vector::repeat(5.0));
            tracker.move_proxy(id, moved, proxima_narrowphase::Vector::zeros()).unwrap();
            tracker.update();
        }
        let (proxies, pairs) = (n / 4, tracker.pairs.len() / 4);
        assert!(tracker.changes.capacity() <= 2 * proxies, "changes: {}", tracker.changes.capacity());
        assert!(tracker.queries.capacity() <= 2 * proxies, "queries: {}", tracker.queries.capacity());
        assert!(tracker.found.capacity() <= 2 * pairs, "found: {}", tracker.found.capacity());
        assert!(tracker.scratch.capacity() <= 2 * pairs, "scratch: {}", tracker.scratch.capacity());
        assert!(tracker.events.capacity() <= 2 * pairs, "events: {}", tracker.events.capacity());
        tracker.validate().unwrap();
    }
}
