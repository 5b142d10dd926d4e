//! The per-frame update: query the moved proxies, sort what they found, merge
//! it into the pair set and report the difference.

use super::{PairEvent, PairTracker, Tracked};
use crate::pairs::{pair_key, sort_pairs, Pair};
use crate::{DynamicTree, ProxyId};

impl<T> PairTracker<T> {
    /// Recomputes the pairs of the queued proxies and returns the changes
    /// since the last update, sorted by pair `(a, b)` ascending (by slot
    /// indices; when a slot was reused, the old proxy's `Stopped` comes before
    /// the new one's `Started`). Each pair appears at most once.
    pub fn update(&mut self) -> &[PairEvent] {
        self.update_with(|_, _, _, _| true)
    }

    /// [`update`](Self::update) with a user filter: `predicate(a, data_a, b,
    /// data_b)`, called with `a < b`, decides whether a newly found
    /// overlapping pair is kept. The predicate should depend only on the two
    /// proxies' data: a kept pair is not asked again until one of them is
    /// re-queried (call [`set_options`](Self::set_options) to force it).
    pub fn update_with<F>(&mut self, mut predicate: F) -> &[PairEvent]
    where
        F: FnMut(ProxyId, &T, ProxyId, &T) -> bool,
    {
        self.prepare_moved();
        let Self { tree, moved, touched, epoch, found, stack, .. } = self;
        found.clear();
        for &a in moved.iter() {
            query_moved(tree, touched, *epoch, a, stack, &mut predicate, found);
        }
        self.finish_update()
    }

    /// Drops removed proxies from the moved list and orders it by leaf slot:
    /// consecutive queries then share most of their paths down the tree, so
    /// they hit the cache instead of memory.
    fn prepare_moved(&mut self) {
        let tree = &self.tree;
        self.moved.retain(|&id| tree.contains(id));
        self.moved.sort_unstable_by_key(|&id| tree.leaf_slot(id));
    }

    /// Sorts the found pairs, merges them into the pair set, starts a new frame.
    fn finish_update(&mut self) -> &[PairEvent] {
        let Self { touched, epoch, pairs, next_pairs, found, scratch, events, moved, .. } = self;
        sort_pairs(found, scratch);
        merge(pairs, found, touched, *epoch, next_pairs, events);
        core::mem::swap(pairs, next_pairs);
        moved.clear();
        self.advance_epoch();
        &self.events
    }

    /// Starts a new frame; on the (rare) wrap of the counter, clears the stamps.
    fn advance_epoch(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.touched.iter_mut().for_each(|t| *t = 0);
            let ids: Vec<ProxyId> = self.tree.iter().map(|(id, _, _)| id).collect();
            for id in ids {
                if let Some(t) = self.tree.get_mut(id) {
                    t.moved_epoch = 0;
                }
            }
            self.epoch = 1;
        }
    }
}

/// Number of slices the moved list is cut into for the parallel update.
#[cfg(feature = "parallel")]
const PAR_CHUNKS: usize = 8;
/// Below this many moved proxies the parallel update runs sequentially.
#[cfg(feature = "parallel")]
const PAR_MIN_MOVED: usize = 512;

#[cfg(feature = "parallel")]
impl<T: Sync> PairTracker<T> {
    /// [`update`](Self::update), with the queries of the moved proxies run
    /// on rayon's pool (the sort and merge stay sequential). Same events, in
    /// the same order. Its own buffers are kept (one per slice), but rayon's
    /// scheduler may allocate now and then (its work-stealing deques resize),
    /// so only [`update`](Self::update) is strictly allocation-free.
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
        if self.moved.len() < PAR_MIN_MOVED {
            return self.update_with(predicate);
        }
        self.prepare_moved();
        if self.chunks.len() != PAR_CHUNKS {
            self.chunks.resize_with(PAR_CHUNKS, Default::default);
        }
        let Self { tree, moved, touched, epoch, found, chunks, .. } = self;
        let (tree, touched, epoch, moved) = (&*tree, &touched[..], *epoch, &moved[..]);
        let per = moved.len().div_ceil(PAR_CHUNKS);
        chunks.par_iter_mut().enumerate().for_each(|(c, (out, stack))| {
            out.clear();
            let mut keep = |a: ProxyId, da: &T, b: ProxyId, db: &T| predicate(a, da, b, db);
            let range = (c * per).min(moved.len())..((c + 1) * per).min(moved.len());
            for &a in &moved[range] {
                query_moved(tree, touched, epoch, a, stack, &mut keep, out);
            }
        });
        found.clear();
        for (out, _) in chunks.iter() {
            found.extend_from_slice(out);
        }
        self.finish_update()
    }
}

/// Appends the pairs that the moved proxy `a` forms to `out`, canonical.
///
/// A live proxy with a touched slot is on the moved list too, so both
/// queries find their pair: the one from the lower index keeps it.
fn query_moved<T, F>(
    tree: &DynamicTree<Tracked<T>>,
    touched: &[u32],
    epoch: u32,
    a: ProxyId,
    stack: &mut Vec<u32>,
    predicate: &mut F,
    out: &mut Vec<Pair>,
) where
    F: FnMut(ProxyId, &T, ProxyId, &T) -> bool,
{
    let (Some(ta), Some(box_a)) = (tree.get(a), tree.fat_aabb(a)) else {
        return;
    };
    let index = a.index() as usize;
    tree.for_each_overlap_key(&box_a, stack, |key| {
        if key == index || (touched[key] == epoch && key < index) {
            return;
        }
        let tb = tree.data_of_key(key);
        if (ta.options.is_static && tb.options.is_static) || !ta.options.groups.interacts_with(tb.options.groups) {
            return;
        }
        let b = tree.id_of_key(key);
        let keep = if a < b { predicate(a, &ta.data, b, &tb.data) } else { predicate(b, &tb.data, a, &ta.data) };
        if keep {
            out.push(if a < b { (a, b) } else { (b, a) });
        }
    });
}

/// Merges the old pair set with this frame's found pairs (both sorted):
/// an old pair stays if neither proxy was touched, or if it was found again;
/// a touched old pair not found again stops; a found pair not in the old set
/// starts. Writes the new set to `next` and the events, in pair order, to `events`.
fn merge(old: &[Pair], found: &[Pair], touched: &[u32], epoch: u32, next: &mut Vec<Pair>, events: &mut Vec<PairEvent>) {
    next.clear();
    events.clear();
    let is_touched = |p: &Pair| touched[p.0.index() as usize] == epoch || touched[p.1.index() as usize] == epoch;
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < found.len() {
        // Take from `old` when its key is smaller, or equal but a different
        // generation (the reused slot's old pair stops before the new starts).
        let take_old = match (old.get(i), found.get(j)) {
            (Some(o), Some(f)) => {
                let (ko, kf) = (pair_key(o), pair_key(f));
                if ko == kf && o == f {
                    next.push(*o);
                    i += 1;
                    j += 1;
                    continue;
                }
                ko <= kf
            }
            (Some(_), None) => true,
            _ => false,
        };
        if take_old {
            let o = old[i];
            i += 1;
            if is_touched(&o) {
                events.push(PairEvent::Stopped(o.0, o.1));
            } else {
                next.push(o);
            }
        } else {
            let f = found[j];
            j += 1;
            events.push(PairEvent::Started(f.0, f.1));
            next.push(f);
        }
    }
}
