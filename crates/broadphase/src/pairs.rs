//! Canonical pair keys and the radix sort that orders pair lists.

use crate::ProxyId;

/// A pair of proxies in canonical order `(min, max)`: the pair type of the
/// structures that hand out ids ([`DynamicTree`](crate::DynamicTree),
/// [`PairTracker`](crate::PairTracker), [`BruteForce`](crate::BruteForce)).
pub type Pair = (ProxyId, ProxyId);

/// A pair of indices into the caller's slice of boxes, `(i, j)` with
/// `i < j`: the pair type of the structures built on a slice
/// ([`StaticBvh`](crate::StaticBvh), [`GridPairs`](crate::GridPairs)), and
/// of [`PairTracker::exact_pair_indices`](crate::PairTracker::exact_pair_indices)
/// (proxy indices).
pub type IndexPair = (u32, u32);

/// The pair `(a, b)` in canonical order `(min, max)`.
#[inline]
#[must_use]
pub fn canonical_pair(a: ProxyId, b: ProxyId) -> Pair {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

/// The sort key of a canonical pair: the two slot indices, `a` in the high
/// half. Within one structure live ids have distinct slot indices, so this
/// key orders pairs exactly as the `(ProxyId, ProxyId)` order does.
#[inline]
pub(crate) fn pair_key(p: &Pair) -> u64 {
    ((p.0.index() as u64) << 32) | p.1.index() as u64
}

/// The two slots of a sort key of [`pair_key`] (or of a pair set's stored
/// slot pair, which is that key).
#[inline]
pub(crate) fn slots_of(key: u64) -> (u32, u32) {
    ((key >> 32) as u32, key as u32)
}

/// Digit width of the radix sort: 2^11 buckets, an 8 KiB histogram that stays in L1.
const RADIX_BITS: u32 = 11;
const RADIX: usize = 1 << RADIX_BITS;
const PASSES: usize = 64usize.div_ceil(RADIX_BITS as usize);
/// Below this length a comparison sort is faster than the histogram passes.
const SMALL: usize = 512;

/// Sorts canonical pairs ascending by [`pair_key`]. The lists sorted here
/// hold live ids of one structure, whose slot indices are distinct, so the
/// result is also ascending in the `(ProxyId, ProxyId)` order.
///
/// `scratch` is reused, so a caller that keeps it sorts without allocating
/// once it has grown.
pub(crate) fn sort_pairs(pairs: &mut Vec<Pair>, scratch: &mut Vec<Pair>) {
    if pairs.len() < SMALL {
        pairs.sort_unstable();
        return;
    }
    radix_sort_by_key(pairs, scratch, pair_key);
}

/// Sorts 64-bit keys ascending (see [`radix_sort_by_key`]).
pub(crate) fn sort_keys(keys: &mut Vec<u64>, scratch: &mut Vec<u64>) {
    if keys.len() < SMALL {
        keys.sort_unstable();
        return;
    }
    radix_sort_by_key(keys, scratch, |k| *k);
}

/// Sorts pairs of indices ascending (by the first index, then the second),
/// with the LSD radix sort the structures use for their pair lists: linear
/// time, stable, and allocation-free once `scratch` has grown. For callers
/// that map proxy pairs to their own indices (a collider's slot, an entity)
/// and need them ordered again.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_broadphase as broadphase; }
/// let mut pairs = vec![(5, 9), (1, 7), (5, 2), (0, 3)];
/// proxima::broadphase::internal::sort_index_pairs(&mut pairs, &mut Vec::new());
/// assert_eq!(pairs, [(0, 3), (1, 7), (5, 2), (5, 9)]);
/// ```
pub fn sort_index_pairs(pairs: &mut Vec<(u32, u32)>, scratch: &mut Vec<(u32, u32)>) {
    if pairs.len() < SMALL {
        pairs.sort_unstable();
        return;
    }
    radix_sort_by_key(pairs, scratch, |&(a, b)| (u64::from(a) << 32) | u64::from(b));
}

/// An LSD radix sort by a 64-bit key, 11 bits per pass, stable, skipping the
/// passes whose digit is the same for every item (for pair keys of fewer than
/// 2^21 slots, 4 of the 6 passes run). One read pass builds every digit's
/// histogram; each pass scatters between `items` and `scratch`.
fn radix_sort_by_key<T: Copy>(items: &mut Vec<T>, scratch: &mut Vec<T>, key: impl Fn(&T) -> u64) {
    let Some(&first) = items.first() else {
        return;
    };
    let mut hist = vec_of_hist();
    for item in items.iter() {
        let k = key(item);
        for (pass, h) in hist.iter_mut().enumerate() {
            h[((k >> (pass as u32 * RADIX_BITS)) as usize) & (RADIX - 1)] += 1;
        }
    }
    scratch.clear();
    scratch.resize(items.len(), first);
    let n = items.len() as u32;
    let mut in_items = true; // where the data lives now
    for (pass, h) in hist.iter_mut().enumerate() {
        if h.contains(&n) {
            continue; // every key has the same digit: the pass would be the identity
        }
        // Exclusive prefix sums: the first output slot of each digit.
        let mut sum = 0u32;
        for c in h.iter_mut() {
            let count = *c;
            *c = sum;
            sum += count;
        }
        let shift = pass as u32 * RADIX_BITS;
        let (src, dst) = if in_items { (&*items, &mut *scratch) } else { (&*scratch, &mut *items) };
        for item in src.iter() {
            let d = ((key(item) >> shift) as usize) & (RADIX - 1);
            dst[h[d] as usize] = *item;
            h[d] += 1;
        }
        in_items = !in_items;
    }
    if !in_items {
        core::mem::swap(items, scratch);
    }
    debug_assert!(items.windows(2).all(|w| key(&w[0]) <= key(&w[1])));
}

/// The per-pass histograms, on the stack (6 x 8 KiB).
#[inline]
fn vec_of_hist() -> [[u32; RADIX]; PASSES] {
    [[0u32; RADIX]; PASSES]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radix_sort_matches_comparison_sort() {
        // A fixed LCG: the test needs varied keys, not statistical quality.
        let mut state = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) as u32
        };
        for n in [0usize, 1, 511, 512, 513, 5000, 70_000] {
            let mut v: Vec<Pair> = (0..n)
                .map(|_| {
                    let (a, b) = (next() % 300_000, next() % 300_000);
                    canonical_pair(ProxyId::new(a, 0), ProxyId::new(b, 0))
                })
                .collect();
            let mut expected = v.clone();
            expected.sort();
            let mut keys: Vec<u64> = v.iter().map(pair_key).collect();
            let mut scratch = Vec::new();
            sort_pairs(&mut v, &mut scratch);
            assert_eq!(v, expected);
            let mut key_scratch = Vec::new();
            sort_keys(&mut keys, &mut key_scratch);
            assert_eq!(keys, expected.iter().map(pair_key).collect::<Vec<_>>());
            // Index pairs, in both orders of each pair (not canonical).
            let mut index: Vec<(u32, u32)> = expected
                .iter()
                .enumerate()
                .map(|(i, p)| if i % 2 == 0 { (p.0.index(), p.1.index()) } else { (p.1.index(), p.0.index()) })
                .collect();
            let mut sorted = index.clone();
            sorted.sort_unstable();
            sort_index_pairs(&mut index, &mut Vec::new());
            assert_eq!(index, sorted);
        }
    }
}
