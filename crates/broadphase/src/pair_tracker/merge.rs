//! The merge of one update: the old pair set (sorted slot keys) and this
//! frame's new pairs (sorted) into the next pair set, its exact pairs and
//! the frame's events, in one pass in pair order.
//!
//! Invariants: the pair set and its exact pairs stay sorted and unique, the
//! exact pairs a subsequence of the pair set; the events come in pair
//! order, a reused slot's `Stopped` before its new proxy's `Started`. A
//! merge of a key range writes exactly that range's part of the sequential
//! merge's output (what the parallel merge's pieces rely on).

use super::view::View;
use super::PairEvent;
use crate::pairs::{pair_key, slots_of, Pair};
use crate::prefetch::prefetch;

/// The merge's input (the old pair set and its exact pairs, this frame's
/// sorted new pairs) and output (the next pair set, its exact pairs, the
/// events).
pub(super) struct MergeIo<'a> {
    pub(super) old: &'a [u64],
    pub(super) old_exact: &'a [u64],
    pub(super) found: &'a [Pair],
    pub(super) next: &'a mut Vec<u64>,
    pub(super) exact: &'a mut Vec<u64>,
    pub(super) events: &'a mut Vec<PairEvent>,
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
pub(super) fn merge<T>(view: &View<'_, T>, io: MergeIo<'_>) {
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
    use crate::pair_tracker::TightRecord;

    /// `tests/pair_tracker_moving.rs` reaches the prefetching merge with
    /// 21,952 proxies (`exact_pairs_of_a_world_past_the_prefetch_threshold`):
    /// their tight records must stay past the threshold.
    #[test]
    fn the_prefetch_test_world_is_past_the_threshold() {
        assert!(21_952 * core::mem::size_of::<TightRecord>() > PREFETCH_MIN_BYTES);
    }
}
