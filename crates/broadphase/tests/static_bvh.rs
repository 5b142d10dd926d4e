//! `StaticBvh` against brute force (plain double loops over the boxes, written
//! here independently of the crate) and against parry3d 0.31's `Bvh`.
//!
//! Every comparison is exact: pair lists and overlap sets are compared whole
//! after sorting, and ray hits compare `(toi, id)` bit for bit, since the
//! tree's ray kernel is bit-exact with `ray_aabb_interval` (tested in the
//! narrowphase) and leaves report the kernel's own entry `toi`.

use core::ops::ControlFlow;
use parry3d::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use proxima_broadphase::{BroadPhase, BuildOptions, Collapse, LeafCost, RayControl, StaticBvh, PACKET_SIZE};
use proxima_narrowphase::kernels::{ray_aabb_interval, PrecomputedRay, RayInterval, SimdLevel};
use proxima_narrowphase::{intersects_aabb_aabb, Aabb, Point, Ray, Real, Vector};
use proxima_test_support::gen::{self, uniform};
use proxima_test_support::{convert, parry, rng, scene, Rng};

// ---- oracles -------------------------------------------------------------

fn brute_pairs(boxes: &[Aabb]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for i in 0..boxes.len() {
        for j in i + 1..boxes.len() {
            if intersects_aabb_aabb(&boxes[i], &boxes[j]) {
                out.push((i as u32, j as u32));
            }
        }
    }
    out
}

fn brute_overlaps(boxes: &[Aabb], query: &Aabb) -> Vec<u32> {
    (0..boxes.len() as u32).filter(|&i| intersects_aabb_aabb(&boxes[i as usize], query)).collect()
}

/// The smallest entry toi over all boxes (then the smallest id).
fn brute_closest(boxes: &[Aabb], ray: &Ray) -> Option<(Real, u32)> {
    let pre = PrecomputedRay::new(ray);
    let mut best: Option<(Real, u32)> = None;
    for (i, b) in boxes.iter().enumerate() {
        if let Some(RayInterval { toi_enter: t, .. }) = ray_aabb_interval(&pre, b) {
            if best.is_none_or(|(bt, _)| t < bt) {
                best = Some((t, i as u32));
            }
        }
    }
    best
}

fn tree_pairs(bvh: &StaticBvh) -> Vec<(u32, u32)> {
    let mut out = vec![(7, 7)]; // must be cleared
    bvh.pairs_into(&mut out);
    out
}

fn check_queries(bvh: &StaticBvh, boxes: &[Aabb], seed: u64, queries: usize, context: &str) {
    let stats = bvh.validate().unwrap_or_else(|e| panic!("{context}: {e}"));
    assert_eq!(stats.leaves, boxes.len(), "{context}");
    // The traversals at every SIMD level this CPU runs (the masks must agree).
    let levels = at_every_level(bvh);
    let expected_pairs = brute_pairs(boxes);
    for tree in &levels {
        assert_eq!(tree_pairs(tree), expected_pairs, "{context}: pairs ({:?})", tree.simd_level());
    }
    let (lo, hi) = bounds_of(boxes);
    let mut rng = rng(seed);
    let mut nonempty = 0;
    for q in 0..queries {
        let query = random_query(&mut rng, &lo, &hi);
        let expected = brute_overlaps(boxes, &query);
        nonempty += usize::from(!expected.is_empty());
        for tree in &levels {
            let mut visited = Vec::new();
            let flow = tree.visit_overlaps(&query, |id| {
                visited.push(id);
                ControlFlow::Continue(())
            });
            assert_eq!(flow, ControlFlow::Continue(()));
            visited.sort_unstable();
            assert_eq!(visited, expected, "{context}: visit_overlaps ({:?}), query {q}", tree.simd_level());
        }
        let mut iterated: Vec<u32> = bvh.overlaps(&query).collect();
        iterated.sort_unstable();
        assert_eq!(iterated, expected, "{context}: overlaps(), query {q}");
    }
    // Both outcomes must occur (a scene of identical boxes is checked with `queries = 0`).
    if queries > 0 {
        assert!(
            nonempty > queries / 10 && nonempty < queries * 95 / 100,
            "{context}: {nonempty} of {queries} queries hit"
        );
    }
}

/// Copies of `bvh` set to each SIMD level this CPU runs.
fn at_every_level(bvh: &StaticBvh) -> Vec<StaticBvh> {
    simd_levels()
        .into_iter()
        .map(|level| {
            let mut tree = bvh.clone();
            tree.set_simd_level(level);
            tree
        })
        .collect()
}

fn bounds_of(boxes: &[Aabb]) -> (Point, Point) {
    let all = boxes.iter().copied().reduce(|a, b| a.merged(&b)).expect("boxes");
    (*all.min(), *all.max())
}

/// A query box centred in the scene's bounds, half-extents up to
/// the scene's size / 25 (empty and crowded queries both occur).
fn random_query(rng: &mut impl Rng, lo: &Point, hi: &Point) -> Aabb {
    let c = Point::new(uniform(rng, lo.x, hi.x), uniform(rng, lo.y, hi.y), uniform(rng, lo.z, hi.z));
    let s = (hi - lo) * 0.04;
    let h = Vector::new(uniform(rng, 0.0, s.x), uniform(rng, 0.0, s.y), uniform(rng, 0.0, s.z));
    Aabb::try_from_center(c, h).expect("finite")
}

/// Boxes with many overlaps, duplicates and zero-size boxes (for multi-box
/// leaves and degenerate centroids).
fn clustered(n: usize, seed: u64) -> Vec<Aabb> {
    let mut rng = rng(seed);
    let mut out: Vec<Aabb> = Vec::with_capacity(n);
    while out.len() < n {
        match rng.random_range(0..10) {
            0 if !out.is_empty() => {
                let k = rng.random_range(0..out.len());
                out.push(out[k]); // exact duplicate
            }
            1 => {
                let p = Point::new(uniform(&mut rng, 0.0, 20.0), uniform(&mut rng, 0.0, 20.0), 5.0);
                out.push(Aabb::new(p, p)); // a point, all on one plane
            }
            _ => {
                let p = gen::Placement::new(10.0, 0.0, 2.0).at(Point::new(10.0, 10.0, 10.0));
                out.push(gen::aabb(&mut rng, &p));
            }
        }
    }
    out
}

// ---- pairs and overlaps ----------------------------------------------------

#[test]
fn pairs_and_overlaps_match_brute_force() {
    for (n, dense, seed) in
        [(1_000, false, 1), (1_000, true, 2), (5_000, true, 3), (20_000, true, 4), (20_000, false, 5)]
    {
        let boxes = scene::boxes(n, dense, seed);
        for options in [BuildOptions::default(), BuildOptions::PAIRS] {
            let bvh = StaticBvh::build_with(&boxes, options);
            check_queries(&bvh, &boxes, seed, 300, &format!("scene {n} dense={dense} {options:?}"));
        }
    }
    let boxes = clustered(3_000, 6);
    for options in [
        BuildOptions::default(),
        BuildOptions { bins: 2, max_leaf_size: 1, ..Default::default() },
        BuildOptions { bins: 64, max_leaf_size: 16, ..Default::default() },
        BuildOptions::PAIRS,
        BuildOptions { bins: 2, max_leaf_size: 1, collapse: Collapse::Optimal, ..Default::default() },
        BuildOptions { bins: 64, max_leaf_size: 16, collapse: Collapse::Optimal, ..Default::default() },
        BuildOptions { max_leaf_size: 8, leaf_cost: LeafCost::Blocks { size: 8, cost: 2 }, ..Default::default() },
        BuildOptions { max_leaf_size: 16, leaf_cost: LeafCost::Blocks { size: 4, cost: 1 }, ..BuildOptions::PAIRS },
        // Clamped to size 1, cost 1: the default's costs.
        BuildOptions { leaf_cost: LeafCost::Blocks { size: 0, cost: 0 }, ..Default::default() },
    ] {
        let bvh = StaticBvh::build_with(&boxes, options);
        check_queries(&bvh, &boxes, 6, 300, &format!("clustered {options:?}"));
    }
}

/// `leaf_ranges` partitions the leaf order into the leaves (each within
/// `max_leaf_size`), and block costs fill the leaves: with
/// `LeafCost::Blocks { size: 8, .. }` and leaves of up to 8, a leaf costs the
/// same for 1 to 8 boxes, so the SAH makes fewer, fuller leaves than with one
/// box test per box (which stops splitting only when a leaf is no dearer).
/// A zero size or cost is clamped to 1 and builds the default's tree.
#[test]
fn leaf_ranges_partition_the_leaves_and_block_costs_fill_them() {
    let boxes = scene::boxes(20_000, true, 7);
    let ranges = |options: BuildOptions| {
        let bvh = StaticBvh::build_with(&boxes, options);
        let ranges = bvh.leaf_ranges();
        let mut next = 0;
        for r in &ranges {
            assert_eq!(r.start, next, "{options:?}: a gap or an overlap at {next}");
            assert!(!r.is_empty() && r.len() <= options.max_leaf_size, "{options:?}: leaf {r:?}");
            next = r.end;
        }
        assert_eq!(next as usize, boxes.len(), "{options:?}");
        (bvh, ranges)
    };
    let per_box = BuildOptions { max_leaf_size: 8, ..Default::default() };
    let blocks = BuildOptions { leaf_cost: LeafCost::Blocks { size: 8, cost: 2 }, ..per_box };
    let (_, loose) = ranges(per_box);
    let (_, full) = ranges(blocks);
    assert!(full.len() * 2 < loose.len(), "{} leaves with blocks, {} without", full.len(), loose.len());
    let (a, _) = ranges(BuildOptions { leaf_cost: LeafCost::Blocks { size: 0, cost: 0 }, ..Default::default() });
    let (b, _) = ranges(BuildOptions::default());
    assert_eq!(a.leaf_ids(), b.leaf_ids());
    assert!(StaticBvh::build(&[]).leaf_ranges().is_empty());
}

/// Boxes that only touch: unit cubes on an integer lattice (each touches its
/// 26 neighbours at a face, an edge or a corner), flat squares lying in the
/// lattice planes and points at lattice corners, near the origin and moved
/// to 2^20 (the coordinates stay integers, exact in `f32`). The self-pair
/// descent prunes by where two lanes meet, a flat or point-sized region
/// here: a strict comparison anywhere would lose these pairs.
#[test]
fn touching_boxes_pair_exactly() {
    for offset in [0.0, 1_048_576.0] {
        let at = |x: i32, y: i32, z: i32| Point::new(x as Real + offset, y as Real, z as Real - offset);
        let mut boxes = Vec::new();
        for x in 0..9 {
            for y in 0..9 {
                for z in 0..9 {
                    match (x + 2 * y + 3 * z) % 7 {
                        0 => boxes.push(Aabb::new(at(x, y, z), at(x, y, z))),
                        1 => boxes.push(Aabb::new(at(x, y, z), at(x + 1, y + 1, z))),
                        _ => boxes.push(Aabb::new(at(x, y, z), at(x + 1, y + 1, z + 1))),
                    }
                }
            }
        }
        for options in
            [BuildOptions::default(), BuildOptions::PAIRS, BuildOptions { max_leaf_size: 1, ..Default::default() }]
        {
            let bvh = StaticBvh::build_with(&boxes, options);
            let expected = brute_pairs(&boxes);
            assert!(expected.len() > 6 * boxes.len(), "a touching lattice: {} pairs", expected.len());
            for tree in at_every_level(&bvh) {
                assert_eq!(tree_pairs(&tree), expected, "offset {offset} {options:?} {:?}", tree.simd_level());
            }
            let mut unsorted = Vec::new();
            bvh.pairs_unsorted_into(&mut unsorted);
            unsorted.sort_unstable();
            assert_eq!(unsorted, expected, "unsorted, offset {offset} {options:?}");
            // Each box as a query finds itself and the boxes it touches.
            for tree in at_every_level(&bvh) {
                for (i, query) in boxes.iter().enumerate().step_by(7) {
                    let mut found: Vec<u32> = Vec::new();
                    let _ = tree.visit_overlaps(query, |id| {
                        found.push(id);
                        ControlFlow::Continue(())
                    });
                    found.sort_unstable();
                    assert_eq!(found, brute_overlaps(&boxes, query), "box {i}, {:?}", tree.simd_level());
                }
            }
        }
    }
}

#[test]
fn pairs_match_parry() {
    for (n, dense, seed) in [(2_000, true, 11), (20_000, true, 12)] {
        let boxes = scene::boxes(n, dense, seed);
        let leaves: Vec<_> = boxes.iter().map(convert::aabb).collect();
        let parry = Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves);
        let mut expected = Vec::new();
        parry.traverse_bvtt_single_tree::<false>(&mut BvhWorkspace::default(), &mut |a, b| {
            expected.push((a.min(b), a.max(b)));
        });
        expected.sort_unstable();
        assert!(expected.len() > n / 4, "scene has {} pairs", expected.len());
        assert_eq!(tree_pairs(&StaticBvh::build(&boxes)), expected, "n {n}");
    }
}

#[test]
fn degenerate_inputs() {
    // Empty.
    let empty = StaticBvh::build(&[]);
    assert!(empty.is_empty());
    assert_eq!(empty.validate().unwrap().nodes, 0);
    assert_eq!(tree_pairs(&empty), vec![]);
    let unit = Aabb::new(Point::origin(), Point::new(1.0, 1.0, 1.0));
    assert_eq!(empty.overlaps(&unit).count(), 0);
    assert_eq!(empty.cast_ray_closest(&Ray::new(Point::origin(), Vector::x(), 1.0)), None);
    // One box: a root with one leaf lane.
    let one = StaticBvh::build(&[unit]);
    let stats = one.validate().unwrap();
    assert_eq!((stats.leaves, stats.nodes, stats.height), (1, 1, 1));
    assert_eq!(one.overlaps(&unit).collect::<Vec<_>>(), vec![0]);
    let hit = one.cast_ray_closest(&Ray::new(Point::new(-1.0, 0.5, 0.5), Vector::x(), 5.0)).unwrap();
    assert_eq!((hit.id, hit.toi), (0, 1.0));
    // Identical boxes: no plane separates the centroids, the ranges are halved.
    let same = vec![unit; 1_000];
    let bvh = StaticBvh::build(&same);
    check_queries(&bvh, &same, 21, 0, "identical boxes");
    assert_eq!(bvh.overlaps(&unit).count(), 1_000);
    assert_eq!(tree_pairs(&bvh).len(), 1_000 * 999 / 2);
}

#[test]
fn overlap_visitor_stops_when_asked() {
    let boxes = scene::boxes(2_000, true, 31);
    let bvh = StaticBvh::build(&boxes);
    let everything = Aabb::new(Point::new(-1e6, -1e6, -1e6), Point::new(1e6, 1e6, 1e6));
    let mut seen = 0;
    let flow = bvh.visit_overlaps(&everything, |_| {
        seen += 1;
        if seen == 10 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    assert_eq!((flow, seen), (ControlFlow::Break(()), 10));
}

// ---- rays ------------------------------------------------------------------

fn random_ray(rng: &mut impl Rng, side: Real) -> Ray {
    let o = Point::new(uniform(rng, 0.0, side), uniform(rng, 0.0, side), uniform(rng, 0.0, side));
    Ray::new(o, gen::unit_vector(rng), side * 3.0f32.sqrt())
}

fn simd_levels() -> Vec<SimdLevel> {
    [SimdLevel::Scalar, SimdLevel::Sse2, SimdLevel::Avx].into_iter().filter(|l| l.is_available()).collect()
}

/// `n` boxes as in `scene::boxes` (half-extents in `[0.1, 1)`) with centres
/// in `[0, side)^3`.
fn boxes_in_cube(n: usize, side: Real, seed: u64) -> Vec<Aabb> {
    let mut rng = rng(seed);
    let h = side / 2.0;
    let place = gen::Placement::new(h, 0.1, 1.0).at(Point::new(h, h, h));
    (0..n).map(|_| gen::aabb(&mut rng, &place)).collect()
}

/// 100,000 random rays of the benchmark's kind (origins in the scene cube,
/// uniform directions, max_toi the cube's diagonal), every kernel. The cube
/// side (110 for 10,000 boxes) is chosen so that about half the rays hit.
#[test]
fn closest_ray_matches_brute_force() {
    let n = 10_000;
    let side = 110.0;
    let boxes = boxes_in_cube(n, side, 41);
    let mut rng = rng(42);
    let rays: Vec<Ray> = (0..100_000).map(|_| random_ray(&mut rng, side)).collect();
    let expected: Vec<Option<(Real, u32)>> = rays.iter().map(|r| brute_closest(&boxes, r)).collect();
    let hits = expected.iter().filter(|e| e.is_some()).count();
    assert!(hits > 30_000 && hits < 70_000, "{hits} of 100000 rays hit");
    let expected_bits: Vec<Option<(u32, u32)>> = expected.iter().map(|e| e.map(|(t, id)| (t.to_bits(), id))).collect();
    let mut batch = Vec::new();
    let collapses = [BuildOptions::default(), BuildOptions::PAIRS];
    for (options, level) in collapses.iter().flat_map(|o| simd_levels().into_iter().map(move |l| (*o, l))) {
        let mut bvh = StaticBvh::build_with(&boxes, options);
        assert_eq!(bvh.set_simd_level(level), level);
        for (i, (ray, e)) in rays.iter().zip(&expected_bits).enumerate() {
            let got = bvh.cast_ray_closest(ray).map(|h| (h.toi.to_bits(), h.id));
            assert_eq!(got, *e, "{options:?} {level:?} ray {i}");
        }
        // The batch traversal (several rays in flight) gives the same answers.
        bvh.cast_rays_closest(&rays, &mut batch);
        let got: Vec<Option<(u32, u32)>> = batch.iter().map(|h| h.map(|h| (h.toi.to_bits(), h.id))).collect();
        assert!(got == expected_bits, "{options:?} {level:?}: cast_rays_closest differs from brute force");
    }
}

/// A visitor that clips to every third box it sees, and logs `(id, toi bits)`.
fn clipping_visitor(log: &mut Vec<(u32, u32)>, id: u32, toi: Real) -> RayControl {
    log.push((id, toi.to_bits()));
    if log.len() % 3 == 0 {
        RayControl::Clip(toi)
    } else {
        RayControl::Continue
    }
}

/// `visit_rays` calls the visitor for each ray in the order `visit_ray`
/// does, and applies each ray's controls to that ray only.
#[test]
fn batch_rays_match_single_rays() {
    let n = 5_000;
    let boxes = scene::boxes(n, true, 55);
    let side = scene::scene_side(n, true);
    let mut bvh = StaticBvh::build(&boxes);
    let mut rng = rng(56);
    let rays: Vec<Ray> = (0..1_000).map(|_| random_ray(&mut rng, side)).collect();
    for level in simd_levels() {
        bvh.set_simd_level(level);
        let single: Vec<Vec<(u32, u32)>> = rays
            .iter()
            .map(|ray| {
                let mut log = Vec::new();
                bvh.visit_ray(ray, |id, toi| clipping_visitor(&mut log, id, toi));
                log
            })
            .collect();
        let mut batch = vec![Vec::new(); rays.len()];
        bvh.visit_rays(&rays, |i, id, toi| clipping_visitor(&mut batch[i], id, toi));
        assert!(batch == single, "{level:?}");
        assert!(single.iter().filter(|l| !l.is_empty()).count() > 500);
        // Stop ends only the ray that asked.
        let mut calls = vec![0; rays.len()];
        bvh.visit_rays(&rays, |i, _, _| {
            calls[i] += 1;
            RayControl::Stop
        });
        assert!(calls.iter().zip(&single).all(|(&c, s)| c == usize::from(!s.is_empty())), "{level:?}");
    }
}

/// Continue visits every box entered within max_toi; Stop stops; Clip prunes.
#[test]
fn ray_visitor_controls() {
    let n = 5_000;
    let boxes = scene::boxes(n, true, 51);
    let side = scene::scene_side(n, true);
    let bvh = StaticBvh::build(&boxes);
    let mut rng = rng(52);
    for i in 0..2_000 {
        let ray = random_ray(&mut rng, side);
        let pre = PrecomputedRay::new(&ray);
        let mut expected: Vec<(u32, u32)> = (0..n as u32)
            .filter_map(|id| ray_aabb_interval(&pre, &boxes[id as usize]).map(|i| (id, i.toi_enter.to_bits())))
            .collect();
        let mut all = Vec::new();
        bvh.visit_ray(&ray, |id, toi| {
            all.push((id, toi.to_bits()));
            RayControl::Continue
        });
        all.sort_unstable();
        expected.sort_unstable();
        assert_eq!(all, expected, "ray {i}");
        let mut calls = 0;
        bvh.visit_ray(&ray, |_, _| {
            calls += 1;
            RayControl::Stop
        });
        assert_eq!(calls, usize::from(!expected.is_empty()), "ray {i}");
        // Clip(0) after the first box: only boxes entered at toi 0 follow.
        let mut tois = Vec::new();
        bvh.visit_ray(&ray, |_, toi| {
            tois.push(toi);
            RayControl::Clip(0.0)
        });
        assert!(tois.iter().skip(1).all(|&t| t == 0.0), "ray {i}: {tois:?}");
    }
}

// ---- refit, rebuild, determinism, quality ----------------------------------

#[test]
fn refit_keeps_queries_exact() {
    let n = 5_000;
    let mut boxes = scene::boxes(n, true, 61);
    let mut bvh = StaticBvh::build(&boxes);
    let mut rng = rng(62);
    for frame in 0..4 {
        for (i, d) in scene::moves(n, 0.5, 1.5, &mut rng) {
            boxes[i] = scene::translated(&boxes[i], &d);
        }
        bvh.refit(&boxes).unwrap();
        check_queries(&bvh, &boxes, 63 + frame, 100, &format!("refit frame {frame}"));
        let side = scene::scene_side(n, true);
        for _ in 0..2_000 {
            let ray = random_ray(&mut rng, side);
            let got = bvh.cast_ray_closest(&ray).map(|h| (h.toi.to_bits(), h.id));
            assert_eq!(got, brute_closest(&boxes, &ray).map(|(t, id)| (t.to_bits(), id)), "frame {frame}");
        }
    }
    assert!(bvh.refit(&boxes[1..]).is_err());
    assert_eq!(bvh.boxes(), boxes);
    bvh.rebuild();
    assert!(bvh == StaticBvh::build(&boxes), "rebuild differs from a fresh build");
    check_queries(&bvh, &boxes, 70, 100, "rebuilt");
}

#[cfg(feature = "parallel")]
#[test]
fn build_and_pairs_are_deterministic_across_thread_counts() {
    // Large enough for parallel binning (ranges of 65536+) and many jobs.
    let boxes = scene::boxes(150_000, true, 71);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
        pool.install(|| {
            [BuildOptions::default(), BuildOptions::PAIRS].map(|options| {
                let bvh = StaticBvh::build_with(&boxes, options);
                let pairs = tree_pairs(&bvh);
                (bvh, pairs)
            })
        })
    };
    for ((one, one_pairs), (two, two_pairs)) in run(1).into_iter().zip(run(2)) {
        assert!(one == two, "trees differ between 1 and 2 threads ({:?})", one.options());
        assert!(one_pairs == two_pairs, "pairs differ between 1 and 2 threads");
        assert!(one_pairs.len() > 50_000);
    }
}

/// The SAH cost of our tree is at most that of parry's binned tree, whose
/// leaves hold one box each (`TreeStats::sah_cost`'s formula, see
/// `proxima_test_support::parry::sah_cost`).
#[test]
fn sah_cost_at_most_parrys() {
    for (n, dense, seed) in [(100_000, false, 81), (20_000, true, 82), (5_000, false, 83)] {
        let boxes = scene::boxes(n, dense, seed);
        let ours = StaticBvh::build(&boxes).validate().unwrap().sah_cost;
        let leaves: Vec<_> = boxes.iter().map(convert::aabb).collect();
        let parry = parry::sah_cost(&Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves));
        assert!(ours <= parry, "n {n} dense {dense}: SAH {ours} vs parry {parry}");
        // A sanity floor: the cost includes the root (1) and every leaf's
        // area, so it exceeds 1 for more than one box.
        assert!(ours > 1.0);
    }
}

/// The unsorted pair list holds the sorted list's pairs (each once), and its
/// order is the same on one thread and on two.
#[test]
fn unsorted_pairs_are_the_pairs_in_a_fixed_order() {
    for (n, dense) in [(3_000, true), (20_000, true), (20_000, false)] {
        let boxes = scene::boxes(n, dense, 17);
        let bvh = StaticBvh::build(&boxes);
        let mut unsorted = Vec::new();
        bvh.pairs_unsorted_into(&mut unsorted);
        let mut sorted = unsorted.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, brute_pairs(&boxes), "n {n}: unsorted pairs differ from brute force");
        #[cfg(feature = "parallel")]
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
            let mut again = Vec::new();
            pool.install(|| bvh.pairs_unsorted_into(&mut again));
            assert_eq!(again, unsorted, "n {n}: the order depends on the thread count ({threads})");
        }
    }
}

/// Packets of rays for `visit_packet_leaves`: bundles from one origin with
/// nearby directions (a camera's tile), rays with zero direction components
/// (axis-parallel, either sign), fully random rays (mixed signs in one
/// packet), parallel rays from scattered origins (a directional light's
/// shadow rays: every sign shared, the traversal's broadcast path) whose
/// direction sometimes has a zero component of either sign per ray (+0 and
/// -0 put the near plane on opposite sides: a mixed packet), and every
/// packet size from 1 to 8.
fn packets(rng: &mut impl Rng, side: Real, count: usize) -> Vec<Vec<Ray>> {
    (0..count)
        .map(|k| {
            let size = 1 + k % PACKET_SIZE;
            match k % 4 {
                3 => {
                    let d = gen::unit_vector(rng);
                    let zero = rng.random_range(0..6);
                    (0..size)
                        .map(|_| {
                            let mut d = d;
                            if zero < 3 {
                                d[zero] = if rng.random_range(0..2) == 0 { 0.0 } else { -0.0 };
                            }
                            let o =
                                Point::new(uniform(rng, 0.0, side), uniform(rng, 0.0, side), uniform(rng, 0.0, side));
                            Ray::new(o, d, side * 2.0)
                        })
                        .collect()
                }
                0 => {
                    let o = Point::new(uniform(rng, 0.0, side), uniform(rng, 0.0, side), uniform(rng, 0.0, side));
                    let d = gen::unit_vector(rng);
                    let spread = uniform(rng, 0.0, 0.05);
                    (0..size).map(|_| Ray::new(o, d + gen::unit_vector(rng) * spread, side * 2.0)).collect()
                }
                1 => (0..size)
                    .map(|_| {
                        let mut r = random_ray(rng, side);
                        let axis = rng.random_range(0..3);
                        let mut d = Vector::zeros();
                        d[axis] = if rng.random_range(0..2) == 0 { 1.0 } else { -1.0 };
                        if rng.random_range(0..2) == 0 {
                            d[(axis + 1) % 3] = uniform(rng, -1.0, 1.0);
                        }
                        r = Ray::new(*r.origin(), d, r.max_toi());
                        r
                    })
                    .collect(),
                _ => (0..size).map(|_| random_ray(rng, side)).collect(),
            }
        })
        .collect()
}

/// `visit_packet_leaves` at every SIMD level (AVX runs the packet
/// traversal, the others each ray alone): without clipping, each ray of a
/// packet is handed exactly the leaves `visit_ray_leaves` hands it alone; a
/// visitor that clips each ray to its nearest box finds brute force's
/// closest box (`toi` bits, then smallest id: order-free); a visitor that
/// retires each ray (`clip < 0`) at its first leaf sees one leaf per ray.
#[test]
fn packets_visit_what_each_ray_visits_alone() {
    let side = 110.0;
    let boxes = boxes_in_cube(10_000, side, 43);
    let mut rng = rng(44);
    let random = packets(&mut rng, side, 3_000);
    check_packets(&boxes, &random, (4, 9));
    // Edge cases: unit cubes on an integer grid (every other cell), each
    // listed twice (equal entry tois: the smaller id must win), plus flat
    // boxes; rays from grid points along axes and face diagonals, so that
    // they run along faces and through edges (`t_enter == t_exit`).
    let mut grid = Vec::new();
    for (x, y, z) in (0..8).flat_map(|x| (0..8).flat_map(move |y| (0..8).map(move |z| (x, y, z)))) {
        if (x + y + z) % 2 == 0 {
            let lo = Point::new(x as Real, y as Real, z as Real);
            let cube = Aabb::new(lo, lo + Vector::repeat(1.0));
            grid.extend([cube, cube]);
        } else if x % 3 == 0 {
            let lo = Point::new(x as Real, y as Real, z as Real + 0.5);
            grid.push(Aabb::new(lo, lo + Vector::new(1.0, 1.0, 0.0)));
        }
    }
    let dirs = [Vector::x(), -Vector::y(), Vector::z(), Vector::new(1.0, 1.0, 0.0), Vector::new(0.0, -1.0, 1.0)];
    let grid_packets: Vec<Vec<Ray>> = (0..2_000)
        .map(|k| {
            (0..1 + k % PACKET_SIZE)
                .map(|_| {
                    let o = Point::new(
                        rng.random_range(-1..9) as Real,
                        rng.random_range(-1..9) as Real,
                        rng.random_range(-1..9) as Real,
                    );
                    Ray::new(o, dirs[rng.random_range(0..dirs.len())], 20.0)
                })
                .collect()
        })
        .collect();
    check_packets(&grid, &grid_packets, (4, 10));
}

/// The checks of `packets_visit_what_each_ray_visits_alone` on `boxes`:
/// between `hit.0` and `hit.1` tenths of the rays must hit.
fn check_packets(boxes: &[Aabb], packets: &[Vec<Ray>], hit: (usize, usize)) {
    for level in simd_levels() {
        let mut bvh = StaticBvh::build(boxes);
        assert_eq!(bvh.set_simd_level(level), level);
        let mut hits = 0;
        for (p, rays) in packets.iter().enumerate() {
            // Without clipping: the same leaves, per ray.
            let mut got: Vec<Vec<u32>> = vec![Vec::new(); rays.len()];
            bvh.visit_packet_leaves(rays, |mask, slots, _clip| {
                assert!(mask != 0 && mask >> rays.len() == 0, "{level:?} packet {p}: mask {mask:#b}");
                for (r, leaves) in got.iter_mut().enumerate() {
                    if mask & 1 << r != 0 {
                        leaves.push(slots.start);
                    }
                }
            });
            for (r, ray) in rays.iter().enumerate() {
                let mut alone = Vec::new();
                bvh.visit_ray_leaves(ray, |slots, _| {
                    alone.push(slots.start);
                    RayControl::Continue
                });
                alone.sort_unstable();
                got[r].sort_unstable();
                assert_eq!(got[r], alone, "{level:?} packet {p} ray {r}: {ray:?}");
            }
            // Clipped to the nearest box: brute force's closest.
            let mut best: Vec<Option<(Real, u32)>> = vec![None; rays.len()];
            bvh.visit_packet_leaves(rays, |mask, slots, clip| {
                for r in (0..rays.len()).filter(|r| mask & 1 << r != 0) {
                    let pre = PrecomputedRay::new(&rays[r]);
                    for s in slots.clone() {
                        let Some(RayInterval { toi_enter: t, .. }) =
                            ray_aabb_interval(&pre, &bvh.leaf_boxes()[s as usize])
                        else {
                            continue;
                        };
                        let id = bvh.leaf_ids()[s as usize];
                        if t <= clip[r] && best[r].is_none_or(|(bt, bid)| t < bt || (t == bt && id < bid)) {
                            best[r] = Some((t, id));
                            clip[r] = t;
                        }
                    }
                }
            });
            for (r, ray) in rays.iter().enumerate() {
                let expected = brute_closest(boxes, ray);
                let bits = |b: Option<(Real, u32)>| b.map(|(t, id)| (t.to_bits(), id));
                assert_eq!(bits(best[r]), bits(expected), "{level:?} packet {p} ray {r}: {ray:?}");
                hits += usize::from(expected.is_some());
            }
            // Retired at the first leaf.
            let mut calls = vec![0; rays.len()];
            bvh.visit_packet_leaves(rays, |mask, _slots, clip| {
                for r in (0..rays.len()).filter(|r| mask & 1 << r != 0) {
                    calls[r] += 1;
                    clip[r] = -1.0;
                }
            });
            assert!(calls.iter().all(|&c| c <= 1), "{level:?} packet {p}: {calls:?}");
        }
        let rays: usize = packets.iter().map(Vec::len).sum();
        assert!(hits * 10 > rays * hit.0 && hits * 10 < rays * hit.1, "{level:?}: {hits} of {rays} rays hit");
    }
}

#[test]
#[should_panic(expected = "at most 8 rays")]
fn a_packet_of_nine_rays_panics() {
    let bvh = StaticBvh::build(&[Aabb::new(Point::origin(), Point::new(1.0, 1.0, 1.0))]);
    let rays = vec![Ray::new(Point::origin(), Vector::x(), 1.0); 9];
    bvh.visit_packet_leaves(&rays, |_, _, _| {});
}
