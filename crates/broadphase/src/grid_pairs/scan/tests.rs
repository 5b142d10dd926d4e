//! The scan's kernels against each other and against brute force.

use super::*;
use proxima_narrowphase::{Point, Vector};
use proxima_test_support::{rng, Rng};

/// Run lengths around the lane width and a long one.
const SIZES: [usize; 6] = [0, 1, 7, 8, 9, 1_000];

/// `n` random boxes as the grid lays them out: six bound arrays padded
/// with `LANES` NaNs, and ids (some below and some above the tested
/// box's) padded with `LANES` stale ones.
fn bound_arrays(r: &mut impl Rng, n: usize) -> ([Vec<Real>; 6], Vec<u32>) {
    let mut b: [Vec<Real>; 6] = Default::default();
    for _ in 0..n {
        let lo: [Real; 3] = core::array::from_fn(|_| r.random_range(0.0..4.0));
        for axis in 0..3 {
            b[axis].push(lo[axis]);
            b[3 + axis].push(lo[axis] + r.random_range(0.0..1.5));
        }
    }
    for v in &mut b {
        v.extend([Real::NAN; LANES]);
    }
    let ids = (0..n + LANES).map(|_| r.random_range(0..2 * n as u32 + 2)).collect();
    (b, ids)
}

/// The pairs of `id` (bounds `q`) with positions `start..end`, one at a time.
fn brute(b: &[&[Real]; 6], q: &Bounds, id: u32, ids: &[u32], start: usize, end: usize) -> Vec<(u32, u32)> {
    (start..end)
        .filter(|&k| (0..3).all(|axis| q[axis] <= b[3 + axis][k] && b[axis][k] <= q[3 + axis]))
        .map(|k| (id.min(ids[k]), id.max(ids[k])))
        .collect()
}

/// [`run`] appended after a pair already in the output (which it keeps).
#[allow(clippy::too_many_arguments)]
fn run_into<K: Kernel, S: Store>(
    kernel: K,
    store: S,
    b: &[&[Real]; 6],
    q: &Bounds,
    id: u32,
    ids: &[u32],
    start: usize,
    end: usize,
) -> Vec<(u32, u32)> {
    let mut out = vec![(u32::MAX, u32::MAX)];
    let columns = Columns::new(*b, ids);
    let mut tests = 0;
    Pairs::into(&mut out, chunks(start, end), |pairs| tests = run(&kernel, store, &columns, q, id, start, end, pairs));
    let tested = chunks(start, end.min(columns.tests_end));
    assert_eq!(tests * LANES, tested, "a test per eight positions that fit");
    assert_eq!(out[0], (u32::MAX, u32::MAX), "the earlier pair is kept");
    out.split_off(1)
}

/// Every kernel with every way of keeping pairs (those this CPU has)
/// against a loop over the positions, on runs of 0, 1, 7, 8, 9 and 1000
/// positions from several starts.
#[test]
fn runs_of_every_length_match_a_loop() {
    let mut r = rng(0x5CA7);
    for n in SIZES {
        let (arrays, ids) = bound_arrays(&mut r, n);
        let b: [&[Real]; 6] = core::array::from_fn(|i| arrays[i].as_slice());
        for case in 0..20 {
            let lo: [Real; 3] = core::array::from_fn(|_| r.random_range(-1.0..4.0));
            let q: Bounds = [lo[0], lo[1], lo[2], lo[0] + 2.0, lo[1] + 2.0, lo[2] + 2.0];
            let id = r.random_range(0..2 * n as u32 + 2);
            for start in [0, 1, n / 2, n.saturating_sub(1), n] {
                let expected = brute(&b, &q, id, &ids, start, n);
                let context = format!("n {n} case {case} start {start}");
                assert_eq!(run_into(portable, EachLane, &b, &q, id, &ids, start, n), expected, "{context}");
                let got = run_into(portable, SkipEmpty(EachLane), &b, &q, id, &ids, start, n);
                assert_eq!(got, expected, "{context}, empty tests skipped");
                #[cfg(target_arch = "x86_64")]
                if let Some(avx2) = cpu::Avx2::detect() {
                    let got = run_into(portable, avx2, &b, &q, id, &ids, start, n);
                    assert_eq!(got, expected, "{context}, packed");
                    let got = run_into(portable, SkipEmpty(avx2), &b, &q, id, &ids, start, n);
                    assert_eq!(got, expected, "{context}, packed, empty tests skipped");
                }
                #[cfg(target_arch = "x86_64")]
                if cpu::Avx::detect().is_some() {
                    // SAFETY: `Avx::detect` found AVX on this CPU just above.
                    let kernel = |lane: &Lanes<'_>, q: &Bounds| unsafe { avx(lane, q) };
                    assert_eq!(run_into(kernel, EachLane, &b, &q, id, &ids, start, n), expected, "{context}, AVX");
                    if let Some(avx2) = cpu::Avx2::detect() {
                        let got = run_into(kernel, avx2, &b, &q, id, &ids, start, n);
                        assert_eq!(got, expected, "{context}, AVX, packed");
                    }
                }
            }
        }
    }
}

/// Only a mask's lane bits count, in both ways of keeping pairs: bits
/// above them neither add pairs nor advance the length.
#[test]
fn only_the_lane_bits_of_a_mask_keep_pairs() {
    let ids: [u32; LANES] = core::array::from_fn(|l| l as u32 * 5);
    let id = 11;
    for mask in 0..1u32 << LANES {
        let expected: Vec<(u32, u32)> =
            (0..LANES).filter(|l| mask >> l & 1 == 1).map(|l| (id.min(ids[l]), id.max(ids[l]))).collect();
        for high in [0, 1 << LANES, 0xffff_ff00, u32::MAX << LANES] {
            let mut out = Vec::new();
            Pairs::into(&mut out, LANES, |pairs| EachLane.keep(pairs, id, &ids, mask | high));
            assert_eq!(out, expected, "mask {:#x}", mask | high);
            #[cfg(target_arch = "x86_64")]
            if let Some(avx2) = cpu::Avx2::detect() {
                out.clear();
                Pairs::into(&mut out, LANES, |pairs| avx2.keep(pairs, id, &ids, mask | high));
                assert_eq!(out, expected, "mask {:#x}, packed", mask | high);
            }
        }
    }
}

/// The search's two halves at each requested level (whatever this CPU
/// has: the level is only a request), with and without packing, against
/// a double loop: 0, 1, 7, 8, 9 and 1000 binned boxes in one cell (every
/// run length below the count) and among three large boxes.
#[test]
fn every_requested_level_gives_the_double_loops_pairs() {
    let unit = Aabb::new(Point::new(0.0, 0.0, 0.0), Point::new(1.0, 1.0, 1.0));
    let wall = |x: Real| Aabb::new(Point::new(x, -50.0, -50.0), Point::new(x + 0.5, 50.0, 50.0));
    for n in SIZES {
        let mut boxes = vec![unit; n];
        if n >= 7 {
            boxes.extend([wall(0.5), wall(0.75), wall(5.0)]);
        }
        let count = boxes.len() as u32;
        let expected: Vec<(u32, u32)> = (0..count)
            .flat_map(|i| (i + 1..count).map(move |j| (i, j)))
            .filter(|&(i, j)| overlap(&boxes, i, j))
            .collect();
        // The unit boxes share one cell: box `k` tests the `n - 1 - k`
        // after it, eight at a time, and nothing else.
        let tests: usize = (0..n).map(|m| m.div_ceil(LANES)).sum();
        let mut reference: Option<Vec<(u32, u32)>> = None;
        for level in [SimdLevel::Scalar, SimdLevel::Sse2, SimdLevel::Avx] {
            for (pack, skip) in [(false, false), (true, false), (false, true), (true, true)] {
                let mut grid = GridPairs::new();
                grid.pack = pack;
                let mut out = Vec::new();
                let _ = grid.prepare(&boxes, &mut out);
                assert_eq!(grid.shape().large, if n >= 7 { 3 } else { 0 }, "n {n}");
                let counted = grid_pairs(&grid, level, skip, 0..grid.cells.len(), &mut out);
                assert_eq!(counted, tests, "n {n} {level:?}: the tests run");
                large_pairs(&grid, &boxes, level, &mut out);
                let case = format!("n {n} {level:?} pack {pack} skip {skip}");
                match &reference {
                    Some(first) => assert_eq!(&out, first, "{case}: the same order"),
                    None => reference = Some(out.clone()),
                }
                out.sort_unstable();
                assert_eq!(out, expected, "{case}");
            }
        }
    }
}

/// A run handed positions past the arrays is clamped to the tests that fit
/// (`tests_end = min length + 1 - LANES`): it keeps the in-bounds pairs of
/// the loop over the positions it can test, and arrays shorter than a test
/// give none.
#[test]
fn runs_past_the_arrays_are_clamped() {
    let mut r = rng(0xC1A4);
    for n in [0, 1, 9, 40] {
        let (arrays, ids) = bound_arrays(&mut r, n);
        let b: [&[Real]; 6] = core::array::from_fn(|i| arrays[i].as_slice());
        let columns = Columns::new(b, &ids);
        assert_eq!(columns.tests_end, n + 1, "n {n}: arrays of n + LANES entries");
        // A box overlapping every box, and an end far past the arrays: the
        // tests stop at position n, and the lanes past `n` are NaN padding.
        let q: Bounds = [-10.0, -10.0, -10.0, 10.0, 10.0, 10.0];
        let got = run_into(portable, EachLane, &b, &q, 7, &ids, 0, n + 1000);
        assert_eq!(got, brute(&b, &q, 7, &ids, 0, n), "n {n}");
    }
    let short: [&[Real]; 6] = [&[0.0; LANES - 1]; 6];
    assert_eq!(Columns::new(short, &[0; LANES]).tests_end, 0);
}

/// A search that finds pairs in few of its tests makes the next one skip
/// the empty tests' stores, one that finds many does not; across the
/// switches both ways the pairs and their order stay those of a fresh grid
/// (which stores every test).
#[test]
fn the_stores_of_empty_tests_are_skipped_after_a_sparse_search() {
    let mut r = rng(0x5B1D);
    // 4,000 boxes of side 1 (past the size below which the parallel search
    // runs on one thread) on a lattice of spacing `gap`: apart when the gap
    // exceeds 1 (a few random ones moved onto a neighbour), each touching
    // its neighbours when it is below.
    let lattice = |r: &mut proxima_test_support::SmallRng, gap: Real| -> Vec<Aabb> {
        (0..4_000)
            .map(|i| {
                let mut p = Point::new((i % 20) as Real, (i / 20 % 20) as Real, (i / 400) as Real) * gap;
                if r.random_range(0..10) == 0 {
                    p.x += gap;
                }
                Aabb::new(p, p + Vector::repeat(1.0))
            })
            .collect()
    };
    let mut grid = GridPairs::new();
    #[cfg(feature = "parallel")]
    let (mut parallel_grid, pool) = (GridPairs::new(), rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap());
    for (frame, gap) in [3.0, 3.0, 0.9, 0.9, 3.0, 0.9].into_iter().enumerate() {
        let boxes = lattice(&mut r, gap);
        let skipped = grid.skip_empty;
        let mut out = Vec::new();
        grid.pairs_unsorted_into(&boxes, &mut out);
        let mut fresh = Vec::new();
        GridPairs::new().pairs_unsorted_into(&boxes, &mut fresh);
        assert_eq!(out, fresh, "frame {frame} (gap {gap}, skipped {skipped}): the pairs and their order");
        assert!(!fresh.is_empty(), "frame {frame}: the moved boxes touch a neighbour");
        assert_eq!(grid.skip_empty, gap > 1.0, "frame {frame}: the next search skips after a sparse one");
        // The parallel search counts its pieces' tests into the same choice.
        #[cfg(feature = "parallel")]
        {
            let mut parallel = Vec::new();
            pool.install(|| parallel_grid.pairs_unsorted_into_parallel(&boxes, &mut parallel));
            assert_eq!(parallel, fresh, "frame {frame}: the parallel search's pairs");
            assert_eq!(parallel_grid.skip_empty, grid.skip_empty, "frame {frame}: the parallel search's choice");
        }
    }
}
