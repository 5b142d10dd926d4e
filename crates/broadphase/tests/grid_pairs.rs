//! `GridPairs` against a double loop over every pair: the same pair set
//! (sorted, so a pair found twice or missed fails) on piles, sparse and
//! varied worlds, large boxes, touching lattices, points, duplicates, huge
//! coordinates and a far outlier; the AVX and portable kernels give the same
//! pairs in the same order, at every requested level (lowered to what the CPU
//! has) and box counts around the lane width; a second call reuses the
//! buffers.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use proxima_broadphase::internal::MAX_LARGE;
use proxima_broadphase::GridPairs;
use proxima_narrowphase::kernels::SimdLevel;
use proxima_narrowphase::{Aabb, Point, Real, Vector};
use proxima_test_support::{rng, Rng};

/// Every overlapping pair by a double loop, written out here (closed boxes:
/// `a.min <= b.max && b.min <= a.max` on each axis), sorted.
fn double_loop(boxes: &[Aabb]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for (i, a) in boxes.iter().enumerate() {
        for (j, b) in boxes.iter().enumerate().skip(i + 1) {
            if (0..3).all(|k| a.min()[k] <= b.max()[k] && b.min()[k] <= a.max()[k]) {
                out.push((i as u32, j as u32));
            }
        }
    }
    out
}

/// Checks every kernel (portable, AVX, AVX with AVX2 packing: the ones
/// this CPU has) against the double loop; returns the pair count.
fn check(boxes: &[Aabb]) -> usize {
    let expected = double_loop(boxes);
    let mut portable = GridPairs::with_simd(SimdLevel::Scalar);
    let mut unpacked = GridPairs::new().without_packing();
    let mut best = GridPairs::new();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    portable.pairs_unsorted_into(boxes, &mut a);
    unpacked.pairs_unsorted_into(boxes, &mut b);
    assert_eq!(a, b, "the AVX kernel gives the portable one's pairs in the same order");
    best.pairs_unsorted_into(boxes, &mut b);
    assert_eq!(a, b, "the AVX2 packing gives the same pairs in the same order");
    assert!(a.iter().all(|&(i, j)| i < j), "canonical pairs");
    best.pairs_into(boxes, &mut b);
    assert_eq!(b, expected, "grid {:?}", best.shape());
    expected.len()
}

/// A box of zero extent.
fn point(p: Point) -> Aabb {
    Aabb::new(p, p)
}

fn cube(c: Vector, half: Vector) -> Aabb {
    Aabb::try_from_center(Point::from(c), half).expect("valid box")
}

fn random_boxes(r: &mut impl Rng, n: usize, side: Real, half: (Real, Real)) -> Vec<Aabb> {
    (0..n)
        .map(|_| {
            let c = Vector::new(r.random_range(0.0..side), r.random_range(0.0..side), r.random_range(0.0..side));
            let h = Vector::new(
                r.random_range(half.0..=half.1),
                r.random_range(half.0..=half.1),
                r.random_range(half.0..=half.1),
            );
            cube(c, h)
        })
        .collect()
}

#[test]
fn piles_and_sparse_worlds_match_the_double_loop() {
    let mut r = rng(0x6121);
    // Dense pile (several boxes per cell), medium, sparse.
    for (n, side) in [(3_000, 12.0), (3_000, 30.0), (2_000, 200.0)] {
        let boxes = random_boxes(&mut r, n, side, (0.2, 0.6));
        let pairs = check(&boxes);
        if side < 20.0 {
            assert!(pairs > 2 * n, "a dense pile: {pairs} pairs");
        }
    }
}

#[test]
fn varied_sizes_and_large_boxes_match_the_double_loop() {
    let mut r = rng(0x6122);
    // Sizes over two orders of magnitude.
    let boxes = random_boxes(&mut r, 2_000, 40.0, (0.05, 5.0));
    check(&boxes);
    // A floor and walls far larger than the bodies, and a few mid-size ones.
    let mut boxes = random_boxes(&mut r, 2_000, 20.0, (0.3, 0.5));
    boxes.push(cube(Vector::new(10.0, -1.0, 10.0), Vector::new(200.0, 1.0, 200.0)));
    boxes.push(cube(Vector::new(0.0, 10.0, 10.0), Vector::new(0.5, 10.0, 10.0)));
    boxes.push(cube(Vector::new(20.0, 10.0, 10.0), Vector::new(0.5, 10.0, 10.0)));
    boxes.push(cube(Vector::new(5.0, 5.0, 5.0), Vector::new(3.0, 3.0, 3.0)));
    let mut grid = GridPairs::new();
    let mut out = Vec::new();
    grid.pairs_into(&boxes, &mut out);
    assert!(grid.shape().large >= 3, "the floor and walls stay out of the grid: {:?}", grid.shape());
    check(&boxes);
    // More large boxes than MAX_LARGE: the largest stay out, the rest are binned.
    let mut boxes = random_boxes(&mut r, 1_000, 30.0, (0.2, 0.3));
    boxes.extend(random_boxes(&mut r, 2 * MAX_LARGE, 30.0, (4.0, 6.0)));
    grid.pairs_into(&boxes, &mut out);
    assert_eq!(grid.shape().large, MAX_LARGE, "{:?}", grid.shape());
    check(&boxes);
}

#[test]
fn touching_lattices_points_and_duplicates_match_the_double_loop() {
    // Unit cubes on a unit lattice: every neighbour touches (faces, edges,
    // corners), exactly at the cell size.
    let mut boxes = Vec::new();
    for x in 0..12 {
        for y in 0..12 {
            for z in 0..12 {
                let at = Point::new(x as Real, y as Real, z as Real);
                boxes.push(Aabb::new(at, at + Vector::repeat(1.0)));
            }
        }
    }
    assert_eq!(check(&boxes), 3 * 11 * 12 * 12 + 6 * 11 * 11 * 12 + 4 * 11 * 11 * 11);
    // Points (zero extent) on a lattice, some repeated: only repeats overlap.
    let mut points: Vec<Aabb> = (0..500).map(|i| point(Point::new((i % 50) as Real, 0.0, 0.0))).collect();
    points.push(point(Point::new(7.0, 0.0, 0.0)));
    check(&points);
    // Every box the same: every pair.
    let same = vec![Aabb::new(Point::new(1.0, 2.0, 3.0), Point::new(2.0, 3.0, 4.0)); 60];
    assert_eq!(check(&same), 60 * 59 / 2);
    // All points at one place, and boxes along one axis only.
    assert_eq!(check(&vec![point(Point::origin()); 40]), 40 * 39 / 2);
    let line: Vec<Aabb> = (0..300).map(|i| cube(Vector::new(i as Real * 0.7, 0.0, 0.0), Vector::repeat(0.5))).collect();
    check(&line);
    // Extents of -0.0 (a box from +0.0 to -0.0 is valid) beside more than
    // MAX_LARGE large boxes: ordered as zero, they leave the largest out and
    // no more than MAX_LARGE boxes stay out of the grid (`f64::max` may
    // return either zero; the bits of -0.0 would sort above every extent).
    let mut signed: Vec<Aabb> =
        (0..200).map(|i| cube(Vector::new((i % 20) as Real, (i / 20) as Real, 0.0), Vector::repeat(0.25))).collect();
    signed.extend((0..70).map(|i| cube(Vector::new(i as Real * 3.0, 0.0, 0.0), Vector::repeat(50.0))));
    signed.extend((0..70).map(|i| Aabb::new(Point::new(0.0, i as Real, 0.0), Point::new(-0.0, i as Real, -0.0))));
    check(&signed);
    let mut grid = GridPairs::new();
    grid.pairs_into(&signed, &mut Vec::new());
    assert!(grid.shape().large <= MAX_LARGE, "{:?}", grid.shape());
    // Nothing, one box.
    assert_eq!(check(&[]), 0);
    assert_eq!(check(&[point(Point::origin())]), 0);
}

#[test]
fn huge_coordinates_and_outliers_match_the_double_loop() {
    let mut r = rng(0x6123);
    // A pile far from the origin, where f32 spacing is coarse.
    let far = Vector::repeat(3.0e6);
    let boxes: Vec<Aabb> =
        random_boxes(&mut r, 1_000, 40.0, (0.5, 1.0)).iter().map(|b| Aabb::new(b.min() + far, b.max() + far)).collect();
    check(&boxes);
    // A dense cluster and a few boxes very far away: the cells grow.
    let mut boxes = random_boxes(&mut r, 1_500, 10.0, (0.2, 0.4));
    boxes.push(cube(Vector::repeat(1.0e30), Vector::repeat(1.0)));
    boxes.push(cube(Vector::repeat(-1.0e30), Vector::repeat(1.0)));
    boxes.push(cube(Vector::new(1.0e30, -1.0e30, 0.0), Vector::repeat(1.0e29)));
    check(&boxes);
    // Extents near f32::MAX.
    let big = Real::MAX / 4.0;
    let boxes = vec![
        Aabb::new(Point::new(-big, -big, -big), Point::new(big, big, big)),
        Aabb::new(Point::new(big, 0.0, 0.0), Point::new(Real::MAX, 1.0, 1.0)),
        Aabb::new(Point::new(-Real::MAX, -Real::MAX, -Real::MAX), Point::new(-big, -big, -big)),
        cube(Vector::zeros(), Vector::repeat(1.0)),
    ];
    assert_eq!(check(&boxes), 3); // the first box with each other
}

/// The parallel search gives the sequential pairs in the same order on
/// pools of one and two threads (piles with large boxes, past the size
/// below which it runs on one thread).
#[cfg(feature = "parallel")]
#[test]
fn the_parallel_search_gives_the_sequential_pairs() {
    let mut r = rng(0x6125);
    let pool = |t: usize| rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap();
    for (n, side) in [(3_000, 12.0), (20_000, 40.0), (500, 8.0)] {
        let mut boxes = random_boxes(&mut r, n, side, (0.2, 0.6));
        boxes.push(cube(Vector::new(side / 2.0, 0.0, side / 2.0), Vector::new(side, 0.5, side)));
        let mut sequential = Vec::new();
        GridPairs::new().pairs_unsorted_into(&boxes, &mut sequential);
        for threads in [1, 2] {
            let mut parallel = Vec::new();
            let mut grid = GridPairs::new();
            pool(threads).install(|| grid.pairs_unsorted_into_parallel(&boxes, &mut parallel));
            assert_eq!(parallel, sequential, "{n} boxes, {threads} threads");
            // Reused buffers give the same again.
            pool(threads).install(|| grid.pairs_unsorted_into_parallel(&boxes, &mut parallel));
            assert_eq!(parallel, sequential, "{n} boxes, {threads} threads, second call");
        }
        assert!(sequential.len() > n / 2, "{} pairs", sequential.len());
    }
}

/// The default grid searches with this CPU's best kernels, and a requested
/// level is lowered to what this CPU has (a request, never trusted).
#[test]
fn the_default_and_requested_levels_are_what_the_cpu_has() {
    assert_eq!(GridPairs::new().simd_level(), SimdLevel::detect());
    assert_eq!(GridPairs::default().simd_level(), SimdLevel::detect());
    for level in [SimdLevel::Scalar, SimdLevel::Sse2, SimdLevel::Avx] {
        let grid = GridPairs::with_simd(level);
        assert_eq!(grid.simd_level(), level.min(SimdLevel::detect()), "{level:?}");
        assert!(grid.simd_level().is_available(), "{level:?}");
        assert_eq!(grid.without_packing().simd_level(), level.min(SimdLevel::detect()), "{level:?}");
    }
}

/// Every grid the search can be asked for: the default (`new`, `default`),
/// each requested level, each with and without the AVX2 packing: the double
/// loop's pairs, all in the same order, and the parallel search's the same.
fn check_every_level(boxes: &[Aabb], context: &str) {
    let expected = double_loop(boxes);
    let mut grids = vec![
        ("new".to_string(), GridPairs::new()),
        ("default".to_string(), GridPairs::default()),
        ("new, unpacked".to_string(), GridPairs::new().without_packing()),
    ];
    for level in [SimdLevel::Scalar, SimdLevel::Sse2, SimdLevel::Avx] {
        grids.push((format!("{level:?}"), GridPairs::with_simd(level)));
        grids.push((format!("{level:?}, unpacked"), GridPairs::with_simd(level).without_packing()));
    }
    let mut first: Option<Vec<(u32, u32)>> = None;
    for (name, mut grid) in grids {
        let mut out = Vec::new();
        grid.pairs_unsorted_into(boxes, &mut out);
        #[cfg(feature = "parallel")]
        {
            let mut parallel = Vec::new();
            grid.pairs_unsorted_into_parallel(boxes, &mut parallel);
            assert_eq!(parallel, out, "{context}, {name}: the parallel search's pairs in the same order");
        }
        match &first {
            Some(first) => assert_eq!(&out, first, "{context}, {name}: the same pairs in the same order"),
            None => first = Some(out.clone()),
        }
        out.sort_unstable();
        assert_eq!(out, expected, "{context}, {name}: {:?}", grid.shape());
    }
}

/// 0, 1, 7, 8, 9 and 3000 boxes (runs around the eight lanes of a test, and
/// a world the parallel search splits): a pile, copies of one box (in one
/// cell: every run length below the count) and a pile beside three walls
/// kept out of the grid (tested against every binned box), through every
/// grid of `check_every_level`.
#[test]
fn box_counts_around_the_lane_width_match_the_double_loop() {
    let mut r = rng(0x6126);
    let wall = |x: Real| cube(Vector::new(x, 0.0, 0.0), Vector::new(0.25, 100.0, 100.0));
    for n in [0, 1, 7, 8, 9, 3_000] {
        let side = 1.5 * (n as Real).cbrt();
        check_every_level(&random_boxes(&mut r, n, side, (0.2, 0.6)), &format!("{n} boxes, a pile"));
        let copies = vec![cube(Vector::new(1.0, 2.0, 3.0), Vector::repeat(0.5)); n];
        check_every_level(&copies, &format!("{n} copies"));
        if n >= 7 {
            let mut walled = random_boxes(&mut r, n, side, (0.2, 0.6));
            walled.extend([wall(0.5), wall(0.7), wall(side + 5.0)]);
            let mut grid = GridPairs::new();
            grid.pairs_into(&walled, &mut Vec::new());
            assert_eq!(grid.shape().large, 3, "{n} boxes: the walls stay out of the grid");
            check_every_level(&walled, &format!("{n} boxes and walls"));
        }
    }
}

/// What the grid holds between calls, per box: at most 64 bytes on 100k
/// boxes, sparse or dense (the memory bound set for a moving world's structure;
/// the caller's list of pairs not counted). The bound arrays and the scratch
/// take 24 + 8 bytes, the positions and cells 8, the cell table at most 4
/// cells per box and its padding.
#[test]
fn memory_per_box_stays_under_64_bytes() {
    for dense in [false, true] {
        let boxes = proxima_test_support::scene::boxes(100_000, dense, 1);
        let mut grid = GridPairs::new();
        let mut out = Vec::new();
        grid.pairs_unsorted_into(&boxes, &mut out);
        let per_box = grid.memory_bytes() as f64 / boxes.len() as f64;
        assert!(per_box <= 64.0, "dense {dense}: {per_box:.1} bytes per box, {:?}", grid.shape());
        assert!(per_box >= 40.0, "dense {dense}: {per_box:.1} bytes per box: memory_bytes misses a buffer");
        println!("dense {dense}: {per_box:.1} bytes per box, {:?}", grid.shape());
    }
}

#[test]
fn a_second_call_reuses_the_buffers() {
    let mut r = rng(0x6124);
    let boxes = random_boxes(&mut r, 5_000, 25.0, (0.2, 0.6));
    let mut grid = GridPairs::new();
    let mut out = Vec::new();
    grid.pairs_unsorted_into(&boxes, &mut out);
    let (memory, first) = (grid.memory_bytes(), out.clone());
    let moved: Vec<Aabb> =
        boxes.iter().map(|b| Aabb::new(b.min() + Vector::x() * 0.01, b.max() + Vector::x() * 0.01)).collect();
    grid.pairs_unsorted_into(&moved, &mut out);
    assert_eq!(grid.memory_bytes(), memory, "the same boxes, moved a little: no buffer grows");
    grid.pairs_unsorted_into(&boxes, &mut out);
    assert_eq!(out, first, "the same boxes give the same pairs in the same order");
}

/// A seeded ChaCha runner without failure persistence: every run draws the
/// same worlds (as `fuzz_properties.rs` does).
fn runner(cases: u32, seed: u8) -> TestRunner {
    let config = Config { cases, failure_persistence: None, rng_algorithm: RngAlgorithm::ChaCha, ..Config::default() };
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]))
}

/// Boxes with corners on an integer lattice (`corner` ranges per axis,
/// extents 0 to 3), scaled: touching faces, equal boxes and zero extents
/// are common.
fn lattice_world(corner: (i32, i32, i32), count: usize, scales: Vec<Real>) -> impl Strategy<Value = Vec<Aabb>> {
    let boxes = prop::collection::vec(((0..corner.0, 0..corner.1, 0..corner.2), (0i32..4, 0i32..4, 0i32..4)), 0..count);
    (boxes, prop::sample::select(scales)).prop_map(|(boxes, scale)| {
        boxes
            .iter()
            .map(|&((x, y, z), (w, h, d))| {
                let min = Point::new(x as Real, y as Real, z as Real) * scale;
                Aabb::new(min, min + Vector::new(w as Real, h as Real, d as Real) * scale)
            })
            .collect()
    })
}

/// 1,000 small random worlds on a coarse lattice, at several scales.
#[test]
fn random_worlds_match_the_double_loop() {
    let world = lattice_world((24, 24, 24), 300, vec![0.25, 1.0, 1.0e-3, 1.0e4]);
    if let Err(e) = runner(1_000, 0x61).run(&world, |boxes| {
        check(&boxes);
        Ok(())
    }) {
        panic!("{e}");
    }
}

/// 1,000 worlds three cells wide in x and y (the fewest the grid makes),
/// where the cell after a run's end can be a true neighbour of the box (the
/// next row's first cell): a run that tests a box past its end reports that
/// pair twice (a mask off by one lane fails here).
#[test]
fn narrow_worlds_match_the_double_loop() {
    let world = lattice_world((7, 7, 40), 400, vec![1.0]);
    if let Err(e) = runner(1_000, 0x62).run(&world, |boxes| {
        check(&boxes);
        Ok(())
    }) {
        panic!("{e}");
    }
}
