//! The parallel update (with the `parallel` feature): the changed proxies'
//! searches cut into a fixed number of slices, and the merge cut into one
//! piece per thread of the pool, on rayon's pool. The buffers of both
//! (`ParChunk`, `MergePiece`) are kept by the tracker between frames.
//!
//! Invariant: the search slices depend on the data only, never on the
//! thread count; the merge pieces cut the old pair set into key ranges, each
//! merged on its own. Both outputs are appended in order: the same events in
//! the same order as the sequential update, for any number of threads.

#[cfg(feature = "parallel")]
use super::merge::{merge, MergeIo};
#[cfg(feature = "parallel")]
use super::update::Work;
#[cfg(feature = "parallel")]
use super::view::View;
use super::PairEvent;
#[cfg(feature = "parallel")]
use super::PairTracker;
use crate::pairs::Pair;
#[cfg(feature = "parallel")]
use crate::pairs::{pair_key, sort_pairs};
use crate::static_bvh::MarkedScratch;
#[cfg(feature = "parallel")]
use crate::ProxyId;

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

/// The output of one piece of the parallel merge after the first (which
/// writes straight into the tracker's lists), kept between frames.
#[derive(Clone, Debug, Default)]
pub(super) struct MergePiece {
    next: Vec<u64>,
    exact: Vec<u64>,
    events: Vec<PairEvent>,
}

impl MergePiece {
    /// Heap bytes held.
    pub(super) fn memory_bytes(&self) -> usize {
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
