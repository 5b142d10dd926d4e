//! Broadphase benchmarks: every workload measured side by side with parry3d
//! 0.31's `Bvh` on the same seeded scenes (`proxima_test_support::scene`).
//!
//! - `self_pairs_100k_{sparse,dense}`: all overlapping pairs of 100k static
//!   boxes (sparse: ~500 pairs; dense: ~1 pair per box). Ours return a sorted
//!   `Vec` of canonical pairs; parry's closure pushes into a `Vec` (unsorted).
//!   `dynamic_tree` is the binary tree after a binned-SAH `rebuild`,
//!   `static_bvh` the 8-wide tree (`static_bvh_pairs_*`: built with
//!   `BuildOptions::PAIRS`, the SAH-optimal collapse); `*_unsorted_1t` skip
//!   the sort (as parry's callback does), one thread.
//! - `dynamic_frame_100k` (fat-box margin 0.2) and
//!   `dynamic_frame_100k_margin_0.5`: one frame in which 10% of the boxes move
//!   by `U[-0.5, 0.5)^3`, then the pair set. Every structure uses the same
//!   margin (parry3d's `change_detection_margin`). With margin 0.2 about 94%
//!   of the moved boxes leave their fat box and are re-inserted; with 0.5
//!   (the largest step), about 35%.
//! - `dynamic_frame_100k_1pct` and `_0.1pct`: the same with 1% and 0.1% of
//!   the boxes moving (a mostly sleeping world), tracker and parry3d only.
//!
//! - `bulk_build_{100k,1m}`: `PairTracker::from_proxies` (one binned-SAH
//!   build) against parry3d's binned `Bvh::from_leaves`, same fat boxes.
//!
//! - `grid_pairs` (self-pairs and the 10% frames): `GridPairs`, every pair
//!   found from scratch by a uniform grid, its binning included, one thread;
//!   in the frames, the exact pairs of the moved tight boxes.
//!
//! `*_1t` variants run ours inside a one-thread rayon pool (parry3d is built
//! without its `parallel` feature, so it is single-threaded).

use criterion::{criterion_group, criterion_main, Criterion};
use parry3d::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use proxima::broadphase::{
    BroadPhase, BuildOptions, DynamicTree, FatBoxOptions, GridPairs, PairTracker, ProxyId, ProxyOptions, SapMode,
    StaticBvh, SweepAndPrune,
};
use proxima::narrowphase::{Aabb, Real, Vector};
use proxima_test_support::{convert, rng, scene};
use std::time::Duration;

const N: usize = 100_000;
/// Pre-generated frames of motion, cycled.
const FRAMES: usize = 64;

fn one_thread() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("thread pool")
}

/// A tree over `boxes` with tight leaves, rebuilt by binned SAH (as parry's
/// `from_leaves` builds its tree).
fn built_tree(boxes: &[Aabb]) -> DynamicTree {
    let mut tree = DynamicTree::new_with(FatBoxOptions::TIGHT).expect("options");
    for b in boxes {
        tree.insert(*b, ());
    }
    tree.rebuild();
    tree
}

fn parry_bvh(boxes: &[Aabb], margin: Real) -> Bvh {
    let leaves: Vec<_> = boxes.iter().map(|b| convert::aabb(&b.loosened(margin))).collect();
    Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves)
}

fn self_pairs(c: &mut Criterion, dense: bool) {
    let name = if dense { "broadphase/self_pairs_100k_dense" } else { "broadphase/self_pairs_100k_sparse" };
    let boxes = scene::boxes(N, dense, 1);
    let mut group = c.benchmark_group(name);
    group.sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));

    let tree = built_tree(&boxes);
    let mut out: Vec<(ProxyId, ProxyId)> = Vec::new();
    // Every implementation's count is checked against the tree's, computed
    // here so the checks hold whichever benchmarks a filter selects (a
    // check only compares an implementation that ran).
    tree.pairs_into(&mut out);
    let expected = out.len();
    let ran = |v: usize| v == 0 || v == expected;
    group.bench_function("dynamic_tree", |b| b.iter(|| tree.pairs_into(&mut out)));
    let pool = one_thread();
    group.bench_function("dynamic_tree_1t", |b| b.iter(|| pool.install(|| tree.pairs_into(&mut out))));

    group
        .bench_function("dynamic_tree_unsorted_1t", |b| b.iter(|| pool.install(|| tree.pairs_unsorted_into(&mut out))));

    let bvh = StaticBvh::build(&boxes);
    let mut static_out: Vec<(u32, u32)> = Vec::new();
    group.bench_function("static_bvh", |b| b.iter(|| bvh.pairs_into(&mut static_out)));
    group.bench_function("static_bvh_1t", |b| b.iter(|| pool.install(|| bvh.pairs_into(&mut static_out))));
    group.bench_function("static_bvh_unsorted_1t", |b| {
        b.iter(|| pool.install(|| bvh.pairs_unsorted_into(&mut static_out)))
    });
    assert!(ran(static_out.len()), "static_bvh: {} pairs, {expected} expected", static_out.len());
    // The tree built for pairs (`Collapse::Optimal`): what the pair tracker builds.
    let pairs_bvh = StaticBvh::build_with(&boxes, BuildOptions::PAIRS);
    static_out.clear();
    group.bench_function("static_bvh_pairs_unsorted_1t", |b| {
        b.iter(|| pool.install(|| pairs_bvh.pairs_unsorted_into(&mut static_out)))
    });
    assert!(ran(static_out.len()), "static_bvh (pairs build): {} pairs, {expected} expected", static_out.len());

    // GridPairs: from scratch, its binning included (one thread, unsorted).
    let mut grid = GridPairs::new();
    static_out.clear();
    group.bench_function("grid_pairs", |b| b.iter(|| grid.pairs_unsorted_into(&boxes, &mut static_out)));
    assert!(ran(static_out.len()), "grid_pairs: {} pairs, {expected} expected", static_out.len());

    let mut incremental = DynamicTree::new_with(FatBoxOptions::TIGHT).expect("options");
    for b in &boxes {
        incremental.insert(*b, ());
    }
    group.bench_function("dynamic_tree_inserted", |b| b.iter(|| incremental.pairs_into(&mut out)));

    let mut sap = SweepAndPrune::new(SapMode::Rebuild);
    for b in &boxes {
        sap.insert(*b, ());
    }
    sap.update();
    group.sample_size(10);
    out.clear();
    group.bench_function("sap", |b| b.iter(|| sap.pairs_into(&mut out)));
    assert!(ran(out.len()), "sap: {} pairs, {expected} expected", out.len());
    group.sample_size(20);

    let bvh = parry_bvh(&boxes, 0.0);
    let mut ws = BvhWorkspace::default();
    let mut parry_out: Vec<(u32, u32)> = Vec::new();
    group.bench_function("parry3d", |b| {
        b.iter(|| {
            parry_out.clear();
            bvh.traverse_bvtt_single_tree::<false>(&mut ws, &mut |i, j| parry_out.push((i, j)));
        })
    });
    assert!(ran(parry_out.len()), "parry3d: {} pairs, {expected} expected", parry_out.len());
    group.finish();
}

fn self_pairs_sparse(c: &mut Criterion) {
    self_pairs(c, false);
}

fn self_pairs_dense(c: &mut Criterion) {
    self_pairs(c, true);
}

/// The moves of `FRAMES` frames: which box moves, and by how much.
fn frames(fraction: f64) -> Vec<Vec<(usize, Vector)>> {
    let mut r = rng(7);
    (0..FRAMES).map(|_| scene::moves(N, fraction, 0.5, &mut r)).collect()
}

/// One frame of `fraction` of the boxes moving. Below 10% only the tracker
/// and parry3d run: the others find every pair again each frame whatever
/// moved.
fn dynamic_frame(c: &mut Criterion, name: &str, margin: Real, fraction: f64) {
    let boxes0 = scene::boxes(N, false, 2);
    let frames = frames(fraction);
    let all = fraction >= 0.1;
    let mut group = c.benchmark_group(name);
    group.sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    let options = FatBoxOptions { margin, prediction: 0.0 };

    // DynamicTree: move_proxy for the moved boxes, then all pairs.
    if all {
        let mut tree = DynamicTree::new_with(options).expect("options");
        let ids: Vec<ProxyId> = boxes0.iter().map(|b| tree.insert(*b, ())).collect();
        tree.rebuild();
        let mut boxes = boxes0.clone();
        let mut out = Vec::new();
        let mut f = 0;
        group.bench_function("dynamic_tree", |b| {
            b.iter(|| {
                for (i, d) in &frames[f % FRAMES] {
                    boxes[*i] = scene::translated(&boxes[*i], d);
                    tree.move_proxy(ids[*i], boxes[*i], *d).expect("live id");
                }
                f += 1;
                tree.pairs_into(&mut out);
            })
        });
    }

    // PairTracker: move_proxy, then update (re-queries the re-inserted proxies only;
    // leaves the full sorted pair set and the events); sequential and parallel updates.
    for parallel in [false, true] {
        let mut tracker = PairTracker::new_with(options).expect("options");
        let ids: Vec<ProxyId> = boxes0.iter().map(|b| tracker.insert(*b, (), ProxyOptions::default())).collect();
        tracker.rebuild();
        tracker.update();
        let mut boxes = boxes0.clone();
        let mut f = 0;
        let name = if parallel { "pair_tracker_par" } else { "pair_tracker" };
        group.bench_function(name, |b| {
            b.iter(|| {
                for (i, d) in &frames[f % FRAMES] {
                    boxes[*i] = scene::translated(&boxes[*i], d);
                    tracker.move_proxy(ids[*i], boxes[*i], *d).expect("live id");
                }
                f += 1;
                if parallel {
                    tracker.update_parallel().len()
                } else {
                    tracker.update().len()
                }
            })
        });
    }

    // GridPairs: the moved boxes, then every pair of the tight boxes from
    // scratch (the exact pairs, which the fat-box structures above would
    // still have to filter).
    if all {
        let mut grid = GridPairs::new();
        let mut boxes = boxes0.clone();
        let mut out = Vec::new();
        let mut f = 0;
        group.bench_function("grid_pairs", |b| {
            b.iter(|| {
                for (i, d) in &frames[f % FRAMES] {
                    boxes[*i] = scene::translated(&boxes[*i], d);
                }
                f += 1;
                grid.pairs_unsorted_into(&boxes, &mut out);
                out.len()
            })
        });
    }

    // SweepAndPrune, persistent: set the moved boxes (grown by the margin), insertion sort, sweep.
    if all {
        let mut sap = SweepAndPrune::new(SapMode::Persistent);
        let ids: Vec<ProxyId> = boxes0.iter().map(|b| sap.insert(b.loosened(margin), ())).collect();
        sap.update();
        let mut boxes = boxes0.clone();
        let mut out = Vec::new();
        let mut f = 0;
        group.sample_size(10);
        group.bench_function("sap", |b| {
            b.iter(|| {
                for (i, d) in &frames[f % FRAMES] {
                    boxes[*i] = scene::translated(&boxes[*i], d);
                    sap.move_proxy(ids[*i], boxes[*i].loosened(margin), Vector::zeros()).expect("live id");
                }
                f += 1;
                sap.update();
                sap.pairs_into(&mut out);
            })
        });
        group.sample_size(20);
    }

    // parry3d: leaf updates with the same margin, refit, incremental optimization, all pairs.
    {
        let mut bvh = parry_bvh(&boxes0, margin);
        let mut ws = BvhWorkspace::default();
        let mut boxes = boxes0.clone();
        let mut out: Vec<(u32, u32)> = Vec::new();
        let mut f = 0;
        group.bench_function("parry3d", |b| {
            b.iter(|| {
                for (i, d) in &frames[f % FRAMES] {
                    boxes[*i] = scene::translated(&boxes[*i], d);
                    bvh.insert_or_update_partially(convert::aabb(&boxes[*i]), *i as u32, margin);
                }
                f += 1;
                bvh.refit(&mut ws);
                bvh.optimize_incremental(&mut ws);
                out.clear();
                bvh.traverse_bvtt_single_tree::<false>(&mut ws, &mut |i, j| out.push((i, j)));
            })
        });
    }
    group.finish();
}

/// The bulk build of the moving-world structure: `PairTracker::from_proxies`
/// (one binned-SAH build, parallel) against parry3d's binned `Bvh::from_leaves`.
fn bulk_build(c: &mut Criterion, n: usize) {
    let boxes = scene::boxes(n, false, 3);
    let mut group = c.benchmark_group(format!("broadphase/bulk_build_{}k", n / 1000));
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    let options = FatBoxOptions { margin: 0.1, prediction: 0.0 };
    let proxies = || boxes.iter().map(|b| (*b, (), ProxyOptions::default()));
    group
        .bench_function("pair_tracker", |b| b.iter(|| PairTracker::from_proxies(options, proxies()).expect("options")));
    let pool = one_thread();
    group.bench_function("pair_tracker_1t", |b| {
        b.iter(|| pool.install(|| PairTracker::from_proxies(options, proxies()).expect("options")))
    });
    group.bench_function("parry3d", |b| b.iter(|| parry_bvh(&boxes, 0.1)));
    group.finish();
}

fn bulk_build_100k(c: &mut Criterion) {
    bulk_build(c, 100_000);
}

fn bulk_build_1m(c: &mut Criterion) {
    bulk_build(c, 1_000_000);
}

fn dynamic_frame_margin_02(c: &mut Criterion) {
    dynamic_frame(c, "broadphase/dynamic_frame_100k", 0.2, 0.1);
}

fn dynamic_frame_margin_05(c: &mut Criterion) {
    dynamic_frame(c, "broadphase/dynamic_frame_100k_margin_0.5", 0.5, 0.1);
}

/// A mostly sleeping world: 1% and 0.1% of the boxes move.
fn dynamic_frame_few_moving(c: &mut Criterion) {
    dynamic_frame(c, "broadphase/dynamic_frame_100k_1pct", 0.2, 0.01);
    dynamic_frame(c, "broadphase/dynamic_frame_100k_0.1pct", 0.2, 0.001);
}

criterion_group!(
    benches,
    self_pairs_sparse,
    self_pairs_dense,
    dynamic_frame_margin_02,
    dynamic_frame_margin_05,
    dynamic_frame_few_moving,
    bulk_build_100k,
    bulk_build_1m
);
criterion_main!(benches);
