//! Canonical pair keys and the radix sort that orders pair lists.

use crate::ProxyId;

/// A pair of proxies in canonical order `(min, max)`.
pub type Pair = (ProxyId, ProxyId);

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
/// An LSD radix sort over the 64-bit key, 11 bits per pass, stable, skipping
/// the passes whose digit is the same for every pair (with fewer than 2^21
/// slots, only 4 of the 6 passes run). `scratch` is reused, so a caller that
/// keeps it sorts without allocating once it has grown.
pub(crate) fn sort_pairs(pairs: &mut Vec<Pair>, scratch: &mut Vec<Pair>) {
    if pairs.len() < SMALL {
        pairs.sort_unstable();
        return;
    }
    // One read pass builds every digit's histogram.
    let mut hist = vec_of_hist();
    for p in pairs.iter() {
        let k = pair_key(p);
        for (pass, h) in hist.iter_mut().enumerate() {
            h[((k >> (pass as u32 * RADIX_BITS)) as usize) & (RADIX - 1)] += 1;
        }
    }
    scratch.clear();
    scratch.resize(pairs.len(), pairs[0]);
    let n = pairs.len() as u32;
    let mut in_pairs = true; // where the data lives now
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
        let (src, dst) = if in_pairs { (&*pairs, &mut *scratch) } else { (&*scratch, &mut *pairs) };
        for p in src.iter() {
            let d = ((pair_key(p) >> shift) as usize) & (RADIX - 1);
            dst[h[d] as usize] = *p;
            h[d] += 1;
        }
        in_pairs = !in_pairs;
    }
    if !in_pairs {
        core::mem::swap(pairs, scratch);
    }
    debug_assert!(pairs.windows(2).all(|w| pair_key(&w[0]) <= pair_key(&w[1])));
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
            let mut scratch = Vec::new();
            sort_pairs(&mut v, &mut scratch);
            assert_eq!(v, expected);
        }
    }
}
