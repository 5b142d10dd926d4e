//! Times self-pairs of 100k boxes (the `self_pairs_100k_*` bench's scenes)
//! for proxima's `StaticBvh` (`static`: built with `BuildOptions::PAIRS`;
//! `greedy`: the default build), its `GridPairs` (`grid`: binning included) and parry3d's `Bvh`, one thread each,
//! fastest of many passes: a quick A/B loop for tuning on other seeds
//! (`perf record` friendly).
//!
//! `cargo run --release --example profile_pairs -- [sparse|dense] [static|greedy|grid|parry|build-greedy|build-pairs|tracker-build] [seed]`

use parry3d::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use proxima::broadphase::{BroadPhase, BuildOptions, StaticBvh};
use proxima_test_support::{convert, scene};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dense = args.get(1).is_some_and(|a| a == "dense");
    let which = args.get(2).map_or("static", String::as_str).to_owned();
    let seed = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let boxes = scene::boxes(100_000, dense, seed);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
    let passes: usize = std::env::var("PASSES").ok().and_then(|s| s.parse().ok()).unwrap_or(100);
    let mut best = f64::INFINITY;
    let mut count = 0;
    if which == "tracker-build" {
        // `PairTracker::from_proxies` (the bulk_build bench's row), one thread.
        let options = proxima::broadphase::FatBoxOptions { margin: 0.1, prediction: 0.0 };
        let proxies = || boxes.iter().map(|b| (*b, (), proxima::broadphase::ProxyOptions::default()));
        for _ in 0..passes.min(20) {
            let t = Instant::now();
            let tracker = pool.install(|| proxima::broadphase::PairTracker::from_proxies(options, proxies()));
            best = best.min(t.elapsed().as_secs_f64());
            count = tracker.expect("options").len();
        }
    } else if which.starts_with("build") {
        // `build-greedy` / `build-pairs`: the build alone, one thread.
        let options = if which == "build-greedy" { BuildOptions::default() } else { BuildOptions::PAIRS };
        for _ in 0..passes.min(20) {
            let t = Instant::now();
            let bvh = pool.install(|| StaticBvh::build_with(&boxes, options));
            best = best.min(t.elapsed().as_secs_f64());
            count = bvh.len();
        }
    } else if which == "grid" {
        // `GridPairs`, its binning included, one thread.
        let mut grid = proxima::broadphase::GridPairs::new();
        let mut out = Vec::new();
        for _ in 0..passes {
            let t = Instant::now();
            grid.pairs_unsorted_into(&boxes, &mut out);
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!("grid {:?}", grid.shape());
        count = out.len();
    } else if which == "parry" {
        let leaves: Vec<_> = boxes.iter().map(convert::aabb).collect();
        let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves);
        let mut ws = BvhWorkspace::default();
        let mut out: Vec<(u32, u32)> = Vec::new();
        for _ in 0..passes {
            let t = Instant::now();
            out.clear();
            bvh.traverse_bvtt_single_tree::<false>(&mut ws, &mut |i, j| out.push((i, j)));
            best = best.min(t.elapsed().as_secs_f64());
        }
        count = out.len();
    } else {
        let options = if which == "greedy" { BuildOptions::default() } else { BuildOptions::PAIRS };
        let bvh = StaticBvh::build_with(&boxes, options);
        let stats = bvh.validate().expect("valid");
        println!("nodes {} height {} sah {:.1}", stats.nodes, stats.height, stats.sah_cost);
        let mut out = Vec::new();
        for _ in 0..passes {
            let t = Instant::now();
            pool.install(|| bvh.pairs_unsorted_into(&mut out));
            best = best.min(t.elapsed().as_secs_f64());
        }
        count += out.len();
    }
    println!("{which} {} seed {seed}: {count} pairs, {:.3} ms", if dense { "dense" } else { "sparse" }, best * 1e3);
}
