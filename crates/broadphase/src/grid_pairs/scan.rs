//! The pair search over the binned boxes: for each box, its five runs of
//! neighbour cells (see the module's rule), each a contiguous run of
//! positions tested eight at a time against the box; then the large boxes
//! against every box. Written once, generic over the 8-lane kernel and the
//! way kept pairs are written, and instantiated for three kernels: portable
//! (the compiler vectorises it with SSE2), in a function compiled for AVX
//! (one 256-bit comparison per bound), and for AVX2 (the same, with the kept
//! pairs packed by one permutation), chosen at run time as the trees'
//! kernels are; each twice, storing every test's lanes or skipping the
//! tests that find no pair, as the search's caller asks. All give the same
//! pairs in the same order.
//!
//! The level handed in is only a request: the AVX and AVX2 code runs only
//! with a value of [`cpu::Avx`] or [`cpu::Avx2`], which only their `detect`
//! makes, after checking this CPU at run time.

use super::{overlap, GridPairs};
use core::ops::Range;
use proxima_narrowphase::kernels::SimdLevel;
use proxima_narrowphase::{Aabb, Real};

/// Candidates per test; the bound arrays are padded with this many NaNs.
pub(super) const LANES: usize = 8;

/// The AVX2 stores write each pair as two `u32`s, the first at offset 0.
const _: () = assert!(
    core::mem::offset_of!((u32, u32), 0) == 0
        && core::mem::offset_of!((u32, u32), 1) == 4
        && core::mem::size_of::<(u32, u32)>() == 8
);

/// The bits of a test's mask that name lanes.
#[cfg(target_arch = "x86_64")]
const LANE_BITS: u32 = (1 << LANES) - 1;

/// Proofs of this CPU's features: each type has a private field, so only its
/// `detect` makes a value, and only after the run-time check
/// (`is_x86_feature_detected!`, which std caches). Code holding one may run
/// that feature's instructions.
#[cfg(target_arch = "x86_64")]
mod cpu {
    /// This CPU has AVX.
    #[derive(Clone, Copy, Debug)]
    pub(super) struct Avx(());

    impl Avx {
        /// `Some` exactly when this CPU has AVX.
        #[inline]
        pub(super) fn detect() -> Option<Self> {
            std::is_x86_feature_detected!("avx").then_some(Self(()))
        }
    }

    /// This CPU has AVX, AVX2 and POPCNT (every AVX2 CPU has the last).
    #[derive(Clone, Copy, Debug)]
    pub(super) struct Avx2(());

    impl Avx2 {
        /// `Some` exactly when this CPU has AVX, AVX2 and POPCNT.
        #[inline]
        pub(super) fn detect() -> Option<Self> {
            (std::is_x86_feature_detected!("avx")
                && std::is_x86_feature_detected!("avx2")
                && std::is_x86_feature_detected!("popcnt"))
            .then_some(Self(()))
        }
    }
}

/// For each 8-bit mask, its set lanes first, in order (then the others):
/// the permutation that packs a test's kept lanes to the front.
#[cfg(target_arch = "x86_64")]
static PACKED: [[u32; LANES]; 1 << LANES] = {
    let mut table = [[0u32; LANES]; 1 << LANES];
    let mut mask = 0;
    while mask < 1 << LANES {
        let (mut lane, mut at) = (0, 0);
        while lane < LANES {
            if mask & (1 << lane) != 0 {
                table[mask][at] = lane as u32;
                at += 1;
            }
            lane += 1;
        }
        mask += 1;
    }
    table
};

/// One box's bounds: min x, y, z, max x, y, z.
type Bounds = [Real; 6];

/// `LANES` consecutive entries of each bound array (min x, y, z, max x, y,
/// z): one test's candidates.
type Lanes<'a> = [&'a [Real; LANES]; 6];

/// The lanes of a test whose box overlaps `q` (closed boxes), as a mask; a
/// NaN lane never does. The lanes come as arrays, read from [`Columns`]
/// without bounds checks; closures inside the AVX kernel would be compiled
/// without its feature (docs/decisions/0010-grid-pair-search.md), the
/// closures that only call the kernel inline.
trait Kernel: Fn(&Lanes<'_>, &Bounds) -> u32 {}
impl<K: Fn(&Lanes<'_>, &Bounds) -> u32> Kernel for K {}

/// The six bound arrays and the ids, read a test (`LANES` positions) at a
/// time without a bounds check: slice indexing checked each of the seven
/// ranges of every test, about a third of a test's instructions. Built from
/// the slices, it keeps their common length, and [`run`] clamps every run
/// to it, so each read is in bounds whatever positions it is handed.
#[derive(Clone, Copy)]
struct Columns<'a> {
    bounds: [&'a [Real]; 6],
    ids: &'a [u32],
    /// The first position from which a test would read past an array:
    /// `min(lengths) + 1 - LANES` (0 when an array is shorter than `LANES`).
    tests_end: usize,
}

impl<'a> Columns<'a> {
    #[inline(always)]
    fn new(bounds: [&'a [Real]; 6], ids: &'a [u32]) -> Self {
        let len = bounds.iter().map(|b| b.len()).fold(ids.len(), usize::min);
        Self { bounds, ids, tests_end: (len + 1).saturating_sub(LANES) }
    }

    /// The lanes and ids of the test at positions `at..at + LANES`.
    ///
    /// # Safety
    /// `at < self.tests_end`, so that `at + LANES` is at most every array's
    /// length.
    #[inline(always)]
    unsafe fn test(&self, at: usize) -> (Lanes<'a>, &'a [u32; LANES]) {
        // SAFETY: `at + LANES <= len` for each array (the caller's
        // contract, and `tests_end`'s definition), so each cast reads
        // `LANES` initialised elements inside the slice, for its lifetime.
        unsafe {
            let lanes = |b: &'a [Real]| &*b.as_ptr().add(at).cast::<[Real; LANES]>();
            let b = &self.bounds;
            (
                [lanes(b[0]), lanes(b[1]), lanes(b[2]), lanes(b[3]), lanes(b[4]), lanes(b[5])],
                &*self.ids.as_ptr().add(at).cast::<[u32; LANES]>(),
            )
        }
    }
}

/// One box's bounds from the bound arrays, at position `k`.
#[inline(always)]
fn bounds_at(b: &[&[Real]; 6], k: usize) -> Bounds {
    [b[0][k], b[1][k], b[2][k], b[3][k], b[4][k], b[5][k]]
}

/// The portable kernel: per lane `q.min <= max && min <= q.max` on each
/// axis, branch-free (vectorised by the compiler).
#[inline(always)]
fn portable(lane: &Lanes<'_>, q: &Bounds) -> u32 {
    let mut mask = 0;
    #[allow(clippy::needless_range_loop)] // six arrays indexed alike
    for l in 0..LANES {
        let hit = (q[0] <= lane[3][l])
            & (lane[0][l] <= q[3])
            & (q[1] <= lane[4][l])
            & (lane[1][l] <= q[4])
            & (q[2] <= lane[5][l])
            & (lane[2][l] <= q[5]);
        mask |= u32::from(hit) << l;
    }
    mask
}

/// The AVX kernel: the portable one's comparisons, eight lanes per
/// instruction (`_CMP_LE_OQ` is false on NaN, as `<=` is).
///
/// # Safety
/// The CPU must have AVX.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx")]
unsafe fn avx(lane: &Lanes<'_>, q: &Bounds) -> u32 {
    use core::arch::x86_64::*;
    // SAFETY: each array holds LANES floats; AVX is enabled on this function.
    unsafe {
        let (min_x, min_y, min_z) =
            (_mm256_loadu_ps(lane[0].as_ptr()), _mm256_loadu_ps(lane[1].as_ptr()), _mm256_loadu_ps(lane[2].as_ptr()));
        let (max_x, max_y, max_z) =
            (_mm256_loadu_ps(lane[3].as_ptr()), _mm256_loadu_ps(lane[4].as_ptr()), _mm256_loadu_ps(lane[5].as_ptr()));
        let x = _mm256_and_ps(
            _mm256_cmp_ps::<_CMP_LE_OQ>(_mm256_set1_ps(q[0]), max_x),
            _mm256_cmp_ps::<_CMP_LE_OQ>(min_x, _mm256_set1_ps(q[3])),
        );
        let y = _mm256_and_ps(
            _mm256_cmp_ps::<_CMP_LE_OQ>(_mm256_set1_ps(q[1]), max_y),
            _mm256_cmp_ps::<_CMP_LE_OQ>(min_y, _mm256_set1_ps(q[4])),
        );
        let z = _mm256_and_ps(
            _mm256_cmp_ps::<_CMP_LE_OQ>(_mm256_set1_ps(q[2]), max_z),
            _mm256_cmp_ps::<_CMP_LE_OQ>(min_z, _mm256_set1_ps(q[5])),
        );
        _mm256_movemask_ps(_mm256_and_ps(_mm256_and_ps(x, y), z)) as u32
    }
}

/// The pairs of two binned boxes found from the boxes at `positions`
/// (the first of each pair in the order), appended to `out` in the order of
/// those positions; returns the number of eight-lane tests run. `simd` is a
/// request: the AVX kernels run only where [`cpu`] finds the features on
/// this CPU, the portable one otherwise. With `skip_empty`, a test that
/// finds no pair writes nothing ([`SkipEmpty`]); the pairs are the same.
pub(super) fn grid_pairs(
    grid: &GridPairs,
    simd: SimdLevel,
    skip_empty: bool,
    positions: Range<usize>,
    out: &mut Vec<(u32, u32)>,
) -> usize {
    #[cfg(target_arch = "x86_64")]
    if simd == SimdLevel::Avx {
        if let Some(avx2) = cpu::Avx2::detect().filter(|_| grid.pack) {
            // SAFETY: `avx2` exists, so this CPU has AVX2 and POPCNT
            // (`Avx2::detect`).
            return unsafe { grid_pairs_avx2(avx2, grid, skip_empty, positions, out) };
        }
        if let Some(avx) = cpu::Avx::detect() {
            // SAFETY: `avx` exists, so this CPU has AVX (`Avx::detect`).
            return unsafe { grid_pairs_avx(avx, grid, skip_empty, positions, out) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = simd;
    storing(grid, portable, EachLane, skip_empty, positions, out)
}

/// [`grid_pairs_with`] storing through `store`, behind [`SkipEmpty`] when
/// `skip_empty`.
#[inline(always)]
fn storing<K: Kernel, S: Store>(
    grid: &GridPairs,
    kernel: K,
    store: S,
    skip_empty: bool,
    positions: Range<usize>,
    out: &mut Vec<(u32, u32)>,
) -> usize {
    if skip_empty {
        grid_pairs_with(grid, kernel, SkipEmpty(store), positions, out)
    } else {
        grid_pairs_with(grid, kernel, store, positions, out)
    }
}

/// [`grid_pairs_with`] compiled for AVX2: the AVX kernel, and each test's
/// kept pairs packed to the front by one permutation and stored as two
/// vectors ([`Pairs::keep_packed`]), counted by one `popcnt`.
///
/// # Safety
/// The CPU must have AVX2 and POPCNT, which `avx2` proves: holding one is
/// enough.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn grid_pairs_avx2(
    avx2: cpu::Avx2,
    grid: &GridPairs,
    skip_empty: bool,
    positions: Range<usize>,
    out: &mut Vec<(u32, u32)>,
) -> usize {
    // SAFETY: `avx2` exists, so this CPU has AVX2, and with it AVX
    // (`Avx2::detect` checks all three features).
    storing(grid, |lane, q| unsafe { avx(lane, q) }, avx2, skip_empty, positions, out)
}

/// [`grid_pairs_with`] compiled for AVX, with the AVX kernel inlined.
///
/// # Safety
/// The CPU must have AVX, which `avx` proves: holding one is enough.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn grid_pairs_avx(
    _avx: cpu::Avx,
    grid: &GridPairs,
    skip_empty: bool,
    positions: Range<usize>,
    out: &mut Vec<(u32, u32)>,
) -> usize {
    // SAFETY: `_avx` exists, so this CPU has AVX (`Avx::detect`).
    storing(grid, |lane, q| unsafe { avx(lane, q) }, EachLane, skip_empty, positions, out)
}

/// For each binned box, its runs: its own cell from the next position on and
/// the next cell (`x + 1`), then the three cells around `x` of the rows
/// `y + 1`, and `z + 1` with `y - 1`, `y`, `y + 1`.
#[inline(always)]
fn grid_pairs_with<K: Kernel, S: Store>(
    grid: &GridPairs,
    kernel: K,
    store: S,
    positions: Range<usize>,
    out: &mut Vec<(u32, u32)>,
) -> usize {
    let [nx, ny, _] = grid.shape.dims;
    let rows = [nx - 1, nx * ny - nx - 1, nx * ny - 1, nx * ny + nx - 1];
    let b = grid.bound_slices();
    let (first, ids) = (grid.first.as_slice(), grid.ids.as_slice());
    let columns = Columns::new(b, ids);
    let mut tests = 0;
    for k in positions {
        let c = grid.cells[k] as usize;
        let runs = [
            (k + 1, first[c + 2] as usize),
            (first[c + rows[0]] as usize, first[c + rows[0] + 3] as usize),
            (first[c + rows[1]] as usize, first[c + rows[1] + 3] as usize),
            (first[c + rows[2]] as usize, first[c + rows[2] + 3] as usize),
            (first[c + rows[3]] as usize, first[c + rows[3] + 3] as usize),
        ];
        let (q, id) = (bounds_at(&b, k), ids[k]);
        let lanes = runs.iter().map(|&(start, end)| end.saturating_sub(start)).sum::<usize>() + RUNS_ROUNDING;
        Pairs::into(out, lanes, |pairs| {
            for (start, end) in runs {
                tests += run(&kernel, store, &columns, &q, id, start, end, pairs);
            }
        });
    }
    tests
}

/// The number of lanes `LANES`-wide tests take to cover `start..end`.
#[inline(always)]
fn chunks(start: usize, end: usize) -> usize {
    end.saturating_sub(start).div_ceil(LANES) * LANES
}

/// What rounding each of a box's five runs up to whole tests adds at most:
/// `chunks(s, e) <= (e - s) + LANES - 1`, so a box's boxes to test plus
/// this bound the lanes its tests cover (the room [`Pairs`] needs), in one
/// sum instead of five roundings.
const RUNS_ROUNDING: usize = 5 * (LANES - 1);

/// The way a test's kept pairs are written into [`Pairs`].
trait Store: Copy {
    /// The pairs of box `id` with the lanes of `others` set in `mask`.
    fn keep(self, pairs: &mut Pairs<'_>, id: u32, others: &[u32; LANES], mask: u32);
}

/// [`Pairs::keep`]: one store per lane (any CPU).
#[derive(Clone, Copy)]
struct EachLane;

impl Store for EachLane {
    #[inline(always)]
    fn keep(self, pairs: &mut Pairs<'_>, id: u32, others: &[u32; LANES], mask: u32) {
        pairs.keep(id, others, mask);
    }
}

/// Store `S` behind a branch: a test that finds no pair writes nothing.
#[derive(Clone, Copy)]
struct SkipEmpty<S>(S);

impl<S: Store> Store for SkipEmpty<S> {
    #[inline(always)]
    fn keep(self, pairs: &mut Pairs<'_>, id: u32, others: &[u32; LANES], mask: u32) {
        if mask != 0 {
            self.0.keep(pairs, id, others, mask);
        }
    }
}

/// [`Pairs::keep_packed`]: one permutation and two stores, with AVX2 and
/// POPCNT (the value proves the CPU has them).
#[cfg(target_arch = "x86_64")]
impl Store for cpu::Avx2 {
    #[inline(always)]
    fn keep(self, pairs: &mut Pairs<'_>, id: u32, others: &[u32; LANES], mask: u32) {
        // SAFETY: `self` exists, so this CPU has AVX2 and POPCNT
        // (`Avx2::detect`).
        unsafe { pairs.keep_packed(id, others, mask) };
    }
}

/// [`Pairs`], in a module of its own so that only its methods reach its
/// fields.
mod pairs {
    use super::LANES;
    #[cfg(target_arch = "x86_64")]
    use super::{LANE_BITS, PACKED};
    use core::mem::MaybeUninit;

    /// The pairs of one box, written into the spare capacity of the output
    /// (its length kept in a register, set once per box): every test writes
    /// its eight candidate pairs and keeps those of its mask (a loop over the
    /// mask's bits would mispredict its exit on most tests; eight stores do
    /// not).
    ///
    /// Invariant: `len <= spare.len()` and the slots below `len` are written.
    /// Only `keep` and `keep_packed` change `len`, and each writes a slot
    /// (through bounds-checked indexing) before counting it, and never
    /// writes below `len`.
    pub(super) struct Pairs<'a> {
        spare: &'a mut [MaybeUninit<(u32, u32)>],
        len: usize,
    }

    impl Pairs<'_> {
        /// Runs `f` with room for `lanes` candidate pairs after `out`'s, then
        /// keeps those written.
        #[inline(always)]
        pub(super) fn into(out: &mut Vec<(u32, u32)>, lanes: usize, f: impl FnOnce(&mut Pairs<'_>)) {
            out.reserve(lanes);
            let mut pairs = Pairs { spare: &mut out.spare_capacity_mut()[..lanes], len: 0 };
            f(&mut pairs);
            let kept = pairs.len;
            assert!(kept <= lanes, "kept {kept} pairs in room for {lanes}");
            // SAFETY: `kept <= lanes` (just checked) and `spare` was sliced
            // to `lanes` slots of `out`'s spare capacity, so the new length
            // is within the capacity; the `kept` slots after `out`'s pairs
            // were written (the invariant of `Pairs`).
            unsafe { out.set_len(out.len() + kept) };
        }

        /// [`keep`](Self::keep) with AVX2: the lanes set in `mask` (its low
        /// `LANES` bits; the others are ignored, as `keep` ignores them)
        /// packed to the front by one permutation (`PACKED[mask]`), paired
        /// with `id` by vector min and max, and stored as eight pairs whatever
        /// the mask (the room is checked); the length advances by the count
        /// of those bits, at most `LANES`.
        ///
        /// # Safety
        /// The CPU must have AVX2 and POPCNT.
        #[cfg(target_arch = "x86_64")]
        #[inline]
        #[target_feature(enable = "avx2,popcnt")]
        pub(super) unsafe fn keep_packed(&mut self, id: u32, others: &[u32; LANES], mask: u32) {
            use core::arch::x86_64::*;
            // The two 256-bit stores below write 8 pairs from 8 lanes.
            const { assert!(LANES == 8) };
            let mask = mask & LANE_BITS;
            let room = &mut self.spare[self.len..self.len + LANES];
            // SAFETY: AVX2 is enabled here (the caller's contract); `others`
            // holds 8 u32s (32 bytes), `room` 8 pairs of u32s (64 bytes), as
            // the bounds-checked slicing above ensures; `PACKED[mask]` is in
            // bounds (`mask < 1 << LANES`) and holds 8 u32s; loads and stores
            // are unaligned.
            unsafe {
                let packed = _mm256_permutevar8x32_epi32(
                    _mm256_loadu_si256(others.as_ptr().cast()),
                    _mm256_loadu_si256(PACKED[mask as usize].as_ptr().cast()),
                );
                let id = _mm256_set1_epi32(id as i32);
                let (lo, hi) = (_mm256_min_epu32(id, packed), _mm256_max_epu32(id, packed));
                // Pairs 0, 1, 4, 5 and 2, 3, 6, 7 (interleaving works per half).
                let (front, back) = (_mm256_unpacklo_epi32(lo, hi), _mm256_unpackhi_epi32(lo, hi));
                let to = room.as_mut_ptr().cast::<__m256i>();
                _mm256_storeu_si256(to, _mm256_permute2x128_si256::<0x20>(front, back));
                _mm256_storeu_si256(to.add(1), _mm256_permute2x128_si256::<0x31>(front, back));
            }
            // The first `mask.count_ones() <= LANES` slots of `room` were written.
            self.len += mask.count_ones() as usize;
        }

        /// The pairs of box `id` with the lanes of `others` set in `mask`
        /// (its low `LANES` bits).
        #[inline(always)]
        pub(super) fn keep(&mut self, id: u32, others: &[u32; LANES], mask: u32) {
            for (lane, &other) in others.iter().enumerate() {
                self.spare[self.len].write((id.min(other), id.max(other)));
                self.len += ((mask >> lane) & 1) as usize;
            }
        }
    }
}
use pairs::Pairs;

/// Tests box `id` (bounds `q`) against positions `start..end` and keeps the
/// overlapping pairs (room for them was reserved by [`chunks`] or
/// [`RUNS_ROUNDING`]), and returns the tests run. Every test stores through
/// `store`, which skips an empty test's stores only when it is
/// [`SkipEmpty`] (chosen per search: the skip's branch mispredicts where
/// many tests find a pair, see `SKIP_EMPTY_BELOW`). The grid's runs end at
/// most at the binned count, `LANES` short of the padded arrays' length, so
/// the clamp to `tests_end` never cuts one.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn run<K: Kernel, S: Store>(
    kernel: &K,
    store: S,
    columns: &Columns<'_>,
    q: &Bounds,
    id: u32,
    start: usize,
    end: usize,
    pairs: &mut Pairs<'_>,
) -> usize {
    let mut j = start;
    let tests_end = end.min(columns.tests_end);
    while j < tests_end {
        // The lanes past `end` hold other cells' boxes (or padding).
        let inside = if end - j >= LANES { u32::MAX } else { (1 << (end - j)) - 1 };
        // SAFETY: `j < tests_end <= columns.tests_end`.
        let (lanes, others) = unsafe { columns.test(j) };
        store.keep(pairs, id, others, kernel(&lanes, q) & inside);
        j += LANES;
    }
    (j - start) / LANES
}

/// The pairs of a large box with a binned box (all binned boxes, eight at a
/// time) and of two large boxes, into `out`. `simd` is a request, as in
/// [`grid_pairs`].
pub(super) fn large_pairs(grid: &GridPairs, boxes: &[Aabb], simd: SimdLevel, out: &mut Vec<(u32, u32)>) {
    if grid.large.is_empty() {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    let avx = cpu::Avx::detect().filter(|_| simd == SimdLevel::Avx);
    #[cfg(not(target_arch = "x86_64"))]
    let avx: Option<()> = {
        let _ = simd;
        None
    };
    let b = grid.bound_slices();
    let n = grid.cells.len();
    for (k, &l) in grid.large.iter().enumerate() {
        let (lo, hi) = (boxes[l as usize].min(), boxes[l as usize].max());
        let q: Bounds = [lo.x, lo.y, lo.z, hi.x, hi.y, hi.z];
        match avx {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `avx` exists, so this CPU has AVX (`Avx::detect`).
            Some(avx) => unsafe { large_run_avx(avx, &b, &q, l, &grid.ids, n, out) },
            _ => {
                let columns = Columns::new(b, &grid.ids);
                Pairs::into(out, chunks(0, n), |pairs| {
                    run(&portable, EachLane, &columns, &q, l, 0, n, pairs);
                });
            }
        }
        for &m in &grid.large[k + 1..] {
            if overlap(boxes, l, m) {
                out.push((l, m));
            }
        }
    }
}

/// [`run`] over every binned box with the AVX kernel.
///
/// # Safety
/// The CPU must have AVX, which `avx` proves: holding one is enough.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn large_run_avx(
    _avx: cpu::Avx,
    b: &[&[Real]; 6],
    q: &Bounds,
    id: u32,
    ids: &[u32],
    n: usize,
    out: &mut Vec<(u32, u32)>,
) {
    // SAFETY: `_avx` exists, so this CPU has AVX (`Avx::detect`).
    let kernel = |lane: &Lanes<'_>, q: &Bounds| unsafe { avx(lane, q) };
    let columns = Columns::new(*b, ids);
    Pairs::into(out, chunks(0, n), |pairs| {
        run(&kernel, EachLane, &columns, q, id, 0, n, pairs);
    });
}

#[cfg(test)]
mod tests;
