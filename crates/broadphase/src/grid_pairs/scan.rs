//! The pair search over the binned boxes: for each box, its five runs of
//! neighbour cells (see the module's rule), each a contiguous run of
//! positions tested eight at a time against the box; then the large boxes
//! against every box. Written once, generic over the 8-lane kernel and the
//! way kept pairs are written, and instantiated three times: portable (the
//! compiler vectorises it with SSE2), in a function compiled for AVX (one
//! 256-bit comparison per bound), and for AVX2 (the same, with the kept pairs
//! packed by one permutation), chosen at run time as the trees' kernels are.
//! All give the same pairs in the same order.

use super::{overlap, GridPairs};
use core::mem::MaybeUninit;
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

/// For each 8-bit mask, its set lanes first, in order (then the others):
/// the permutation that packs a test's kept lanes to the front.
#[cfg(target_arch = "x86_64")]
static PACKED: [[u32; LANES]; 256] = {
    let mut table = [[0u32; LANES]; 256];
    let mut mask = 0;
    while mask < 256 {
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

/// The lanes `j..j + LANES` of the bound arrays whose box overlaps `q`
/// (closed boxes), as a mask; a NaN lane never does.
trait Kernel: Fn(&[&[Real]; 6], usize, &Bounds) -> u32 {}
impl<K: Fn(&[&[Real]; 6], usize, &Bounds) -> u32> Kernel for K {}

/// The bound arrays' lanes `j..j + LANES`, without a closure: closures
/// inside the AVX kernel (`core::array::from_fn`'s, a `load` helper) kept
/// its intrinsics out of line and made the search twice as slow (measured);
/// the closures that only call the kernel inline.
#[inline(always)]
fn lanes<'a>(b: &[&'a [Real]; 6], j: usize) -> [&'a [Real]; 6] {
    let end = j + LANES;
    [&b[0][j..end], &b[1][j..end], &b[2][j..end], &b[3][j..end], &b[4][j..end], &b[5][j..end]]
}

/// One box's bounds from the bound arrays, at position `k`.
#[inline(always)]
fn bounds_at(b: &[&[Real]; 6], k: usize) -> Bounds {
    [b[0][k], b[1][k], b[2][k], b[3][k], b[4][k], b[5][k]]
}

/// The portable kernel: per lane `q.min <= max && min <= q.max` on each
/// axis, branch-free (vectorised by the compiler).
#[inline(always)]
fn portable(b: &[&[Real]; 6], j: usize, q: &Bounds) -> u32 {
    let lane = lanes(b, j);
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
unsafe fn avx(b: &[&[Real]; 6], j: usize, q: &Bounds) -> u32 {
    use core::arch::x86_64::*;
    let lane = lanes(b, j);
    // SAFETY: each slice holds LANES floats; AVX is enabled on this function.
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
/// those positions.
pub(super) fn grid_pairs(grid: &GridPairs, simd: SimdLevel, positions: Range<usize>, out: &mut Vec<(u32, u32)>) {
    match simd {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `simd` is at most `SimdLevel::detect()`, which reports
        // AVX only when this CPU has it.
        SimdLevel::Avx if grid.pack && std::is_x86_feature_detected!("avx2") => unsafe {
            grid_pairs_avx2(grid, positions, out)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        SimdLevel::Avx => unsafe { grid_pairs_avx(grid, positions, out) },
        _ => grid_pairs_with::<_, false>(grid, portable, positions, out),
    }
}

/// [`grid_pairs_with`] compiled for AVX2: the AVX kernel, and each test's
/// kept pairs packed to the front by one permutation and stored as two
/// vectors ([`keep_packed`]).
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn grid_pairs_avx2(grid: &GridPairs, positions: Range<usize>, out: &mut Vec<(u32, u32)>) {
    // SAFETY: this function runs only with AVX2 (its caller's contract).
    grid_pairs_with::<_, true>(grid, |b, j, q| unsafe { avx(b, j, q) }, positions, out);
}

/// [`grid_pairs_with`] compiled for AVX, with the AVX kernel inlined.
///
/// # Safety
/// The CPU must have AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn grid_pairs_avx(grid: &GridPairs, positions: Range<usize>, out: &mut Vec<(u32, u32)>) {
    // SAFETY: this function runs only with AVX (its caller's contract).
    grid_pairs_with::<_, false>(grid, |b, j, q| unsafe { avx(b, j, q) }, positions, out);
}

/// For each binned box, its runs: its own cell from the next position on and
/// the next cell (`x + 1`), then the three cells around `x` of the rows
/// `y + 1`, and `z + 1` with `y - 1`, `y`, `y + 1`.
#[inline(always)]
fn grid_pairs_with<K: Kernel, const PACK: bool>(
    grid: &GridPairs,
    kernel: K,
    positions: Range<usize>,
    out: &mut Vec<(u32, u32)>,
) {
    let [nx, ny, _] = grid.shape.dims;
    let rows = [nx - 1, nx * ny - nx - 1, nx * ny - 1, nx * ny + nx - 1];
    let b = grid.bound_slices();
    let (first, ids) = (grid.first.as_slice(), grid.ids.as_slice());
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
        let lanes = runs.iter().map(|&(start, end)| chunks(start, end)).sum();
        Pairs::into(out, lanes, |pairs| {
            for (start, end) in runs {
                run::<K, PACK>(&kernel, &b, &q, id, ids, start, end, pairs);
            }
        });
    }
}

/// The number of lanes `LANES`-wide tests take to cover `start..end`.
#[inline(always)]
fn chunks(start: usize, end: usize) -> usize {
    end.saturating_sub(start).div_ceil(LANES) * LANES
}

/// The pairs of one box, written into the spare capacity of the output
/// (its length kept in a register, set once per box): every test writes its
/// eight candidate pairs and keeps those of its mask (a loop over the mask's
/// bits would mispredict its exit on most tests; eight stores do not).
struct Pairs<'a> {
    spare: &'a mut [MaybeUninit<(u32, u32)>],
    len: usize,
}

impl Pairs<'_> {
    /// Runs `f` with room for `lanes` candidate pairs after `out`'s, then
    /// keeps those written.
    #[inline(always)]
    fn into(out: &mut Vec<(u32, u32)>, lanes: usize, f: impl FnOnce(&mut Pairs<'_>)) {
        out.reserve(lanes);
        let mut pairs = Pairs { spare: &mut out.spare_capacity_mut()[..lanes], len: 0 };
        f(&mut pairs);
        let kept = pairs.len;
        // SAFETY: the first `kept` spare slots were written (`keep`).
        unsafe { out.set_len(out.len() + kept) };
    }

    /// [`keep`](Self::keep) with AVX2: the lanes set in `mask` packed to the
    /// front by one permutation (`PACKED[mask]`), paired with `id` by
    /// vector min and max, and stored as eight pairs whatever the mask (the
    /// room is reserved); the length advances by the mask's count.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn keep_packed(&mut self, id: u32, others: &[u32], mask: u32) {
        use core::arch::x86_64::*;
        let (others, room) = (&others[..LANES], &mut self.spare[self.len..self.len + LANES]);
        // SAFETY: AVX2 is enabled here; `others` holds 8 u32s, `room` 8
        // pairs of u32s (64 bytes), both unaligned loads and stores.
        unsafe {
            let packed = _mm256_permutevar8x32_epi32(
                _mm256_loadu_si256(others.as_ptr().cast()),
                _mm256_loadu_si256(PACKED[mask as usize & 0xff].as_ptr().cast()),
            );
            let id = _mm256_set1_epi32(id as i32);
            let (lo, hi) = (_mm256_min_epu32(id, packed), _mm256_max_epu32(id, packed));
            // Pairs 0, 1, 4, 5 and 2, 3, 6, 7 (interleaving works per half).
            let (front, back) = (_mm256_unpacklo_epi32(lo, hi), _mm256_unpackhi_epi32(lo, hi));
            let to = room.as_mut_ptr().cast::<__m256i>();
            _mm256_storeu_si256(to, _mm256_permute2x128_si256::<0x20>(front, back));
            _mm256_storeu_si256(to.add(1), _mm256_permute2x128_si256::<0x31>(front, back));
        }
        self.len += mask.count_ones() as usize;
    }

    /// The pairs of box `id` with the lanes of `others` set in `mask`.
    #[inline(always)]
    fn keep(&mut self, id: u32, others: &[u32], mask: u32) {
        for (lane, &other) in others[..LANES].iter().enumerate() {
            self.spare[self.len].write((id.min(other), id.max(other)));
            self.len += ((mask >> lane) & 1) as usize;
        }
    }
}

/// Tests box `id` (bounds `q`) against positions `start..end` and keeps the
/// overlapping pairs (room for them was reserved by [`chunks`]).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn run<K: Kernel, const PACK: bool>(
    kernel: &K,
    b: &[&[Real]; 6],
    q: &Bounds,
    id: u32,
    ids: &[u32],
    start: usize,
    end: usize,
    pairs: &mut Pairs<'_>,
) {
    let mut j = start;
    while j < end {
        // The lanes past `end` hold other cells' boxes (or padding).
        let inside = if end - j >= LANES { u32::MAX } else { (1 << (end - j)) - 1 };
        let mask = kernel(b, j, q) & inside;
        #[cfg(target_arch = "x86_64")]
        if PACK {
            // SAFETY: PACK is set only by `grid_pairs_avx2` (AVX2 present).
            unsafe { pairs.keep_packed(id, &ids[j..], mask) };
            j += LANES;
            continue;
        }
        pairs.keep(id, &ids[j..], mask);
        j += LANES;
    }
}

/// The pairs of a large box with a binned box (all binned boxes, eight at a
/// time) and of two large boxes, into `out`.
pub(super) fn large_pairs(grid: &GridPairs, boxes: &[Aabb], simd: SimdLevel, out: &mut Vec<(u32, u32)>) {
    if grid.large.is_empty() {
        return;
    }
    let b = grid.bound_slices();
    let n = grid.cells.len();
    for (k, &l) in grid.large.iter().enumerate() {
        let (lo, hi) = (boxes[l as usize].min(), boxes[l as usize].max());
        let q: Bounds = [lo.x, lo.y, lo.z, hi.x, hi.y, hi.z];
        match simd {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as in `grid_pairs`.
            SimdLevel::Avx => unsafe { large_run_avx(&b, &q, l, &grid.ids, n, out) },
            _ => Pairs::into(out, chunks(0, n), |pairs| run::<_, false>(&portable, &b, &q, l, &grid.ids, 0, n, pairs)),
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
/// The CPU must have AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn large_run_avx(b: &[&[Real]; 6], q: &Bounds, id: u32, ids: &[u32], n: usize, out: &mut Vec<(u32, u32)>) {
    // SAFETY: this function runs only with AVX (its caller's contract).
    let kernel = |b: &[&[Real]; 6], j, q: &Bounds| unsafe { avx(b, j, q) };
    Pairs::into(out, chunks(0, n), |pairs| run::<_, false>(&kernel, b, q, id, ids, 0, n, pairs));
}
