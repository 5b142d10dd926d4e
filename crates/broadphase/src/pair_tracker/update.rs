//! The per-frame update: refit (or rebuild) the trees, find the new pairs of
//! the proxies that changed (one query each, or, when more than a quarter of
//! the dynamic proxies changed, one self-descent of the dynamic tree pruned
//! to their leaves), merge them into the pair set and report the difference.
//! The searches are in `search`, the merge in `merge`, the parallel update
//! in `parallel`; this file drives a frame from its start to its close.
//!
//! A pair is *new* this frame when one of its proxies is fresh (inserted or
//! re-filtered) or when the two fat boxes of the last update did not overlap:
//! the pair set held exactly the overlapping fat pairs then, so every other
//! pair a query finds is already in it. An old pair is kept when neither
//! proxy changed, or when one moved and the new fat boxes still overlap.
//! Closing a frame clears every per-frame bit and the change log and
//! advances the epoch, so the next frame starts with no change recorded.

use super::merge::{merge, MergeIo};
use super::parallel::{MergePiece, ParChunk};
use super::view::View;
use super::{tree, Change, PairEvent, PairTracker};
use crate::pairs::{sort_pairs, Pair};
use crate::static_bvh::MarkedScratch;
use crate::ProxyId;

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
    pub(super) fn prepare(&mut self) {
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
        // In leaf order, neighbouring queries share their path down the
        // trees. With the descent, the built dynamic proxies' queries search
        // only the static tree (and the pending lists, scanned whole); a
        // static tree of a few nodes stays in cache whatever the order, and
        // the sort, `n log n` over every changed proxy, would cost more than
        // the queries. The found pairs are sorted before the merge, so the
        // order changes no result.
        if !self.descent || self.fixed.built_len() > UNSORTED_STATIC_MAX {
            self.queries.sort_unstable();
        }
        self.stats.queried = searched;
    }

    /// The state the searches and the merge read, and the buffers they
    /// write: one borrow of the tracker split in two.
    pub(super) fn parts(&mut self) -> (View<'_, T>, Work<'_>) {
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
    pub(super) fn is_still(&self) -> bool {
        self.changes.is_empty() && !self.tights_moved
    }

    /// The update of a still frame: the pairs and exact pairs stay, no event,
    /// no work beyond starting a new frame.
    pub(super) fn close_still_frame(&mut self) -> &[PairEvent] {
        self.events.clear();
        self.stats = UpdateStats::default();
        self.advance_epoch();
        &self.events
    }

    /// Makes the merged set current and starts a new frame.
    pub(super) fn close_frame(&mut self) -> &[PairEvent] {
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

/// The tracker's buffers, as [`PairTracker::parts`] lends them: the query
/// list and the searches' output and scratch, then the merge's.
pub(super) struct Work<'a> {
    pub(super) queries: &'a [(u32, u32)],
    pub(super) found: &'a mut Vec<Pair>,
    pub(super) search: &'a mut MarkedScratch,
    /// The parallel update's per-slice outputs.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    pub(super) chunks: &'a mut Vec<ParChunk>,
    old: &'a [u64],
    old_exact: &'a [u64],
    next: &'a mut Vec<u64>,
    exact: &'a mut Vec<u64>,
    events: &'a mut Vec<PairEvent>,
    pieces: &'a mut Vec<MergePiece>,
}

impl<'a> Work<'a> {
    /// The merge's input and output, and the parallel merge's pieces.
    pub(super) fn merge_io(self) -> (MergeIo<'a>, &'a mut Vec<MergePiece>) {
        let Self { old, old_exact, found, next, exact, events, pieces, .. } = self;
        (MergeIo { old, old_exact, found, next, exact, events }, pieces)
    }
}

/// The fraction of the dynamic BVH's proxies that must have changed for a
/// frame to take the marked self-descent instead of one query per changed
/// proxy. On 100k sparse boxes the queries win at 5% and 10% changed, the
/// two are even at 15-20%, and the descent wins at 30% and 50%; on the rapier
/// tall drop (16% changed per step, a dense pile) the queries win
/// (docs/decisions/0007-marked-self-descent-above-a-quarter.md). A quarter
/// keeps the pile's busiest steps on the queries.
const DESCENT_FRACTION: f64 = 0.25;

/// The most static proxies for which a frame with the descent leaves its
/// queries unsorted: a BVH of 64 leaves is a handful of 8-wide nodes (a
/// ground, a few walls).
const UNSORTED_STATIC_MAX: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FatBoxOptions, ProxyOptions};
    use proxima_test_support::scene;

    /// A bulk frame (every proxy inserted, every pair started) does not leave
    /// its per-frame lists at full size: after two light frames each holds
    /// at most twice the room kept (a quarter of the proxies or pairs), and
    /// the update still reports what it should.
    #[test]
    fn bulk_frame_lists_are_given_back() {
        let n = 20_000;
        let boxes = scene::boxes(n, true, 4);
        let proxies = boxes.iter().enumerate().map(|(i, b)| (*b, i, ProxyOptions::default()));
        let mut tracker = PairTracker::from_proxies(FatBoxOptions::default(), proxies).unwrap();
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
