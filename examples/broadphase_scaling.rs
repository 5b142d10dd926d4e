//! The broadphase scaling table: build and all-pairs time of every structure
//! (and parry3d's `Bvh`) from 1,000 to 1,000,000 boxes of the sparse scene,
//! with the 1-thread vs all-threads speed-up of the parallel paths.
//!
//! `cargo run --release --example broadphase_scaling -- [--csv PATH]`
//!
//! Prints a Markdown table (the best of 3 runs per cell; `scripts/bench_report.py --scaling`
//! embeds it in BENCHMARKS.md and draws the chart from the CSV).

use std::time::Instant;

use parry3d::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use proxima::broadphase::{BroadPhase, BruteForce, DynamicTree, SapMode, StaticBvh, SweepAndPrune};
use proxima::narrowphase::Aabb;
use proxima_test_support::{convert, scene};

/// Best of `runs` wall times of `f`, in milliseconds.
fn best_ms<R>(runs: usize, mut f: impl FnMut() -> R) -> f64 {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min)
}

fn dynamic_tree(boxes: &[Aabb]) -> DynamicTree<u32> {
    let mut t = DynamicTree::new();
    for (i, b) in boxes.iter().enumerate() {
        t.insert(*b, i as u32);
    }
    t.rebuild();
    t
}

fn sap(boxes: &[Aabb]) -> SweepAndPrune<u32> {
    let mut s = SweepAndPrune::new(SapMode::Rebuild);
    for (i, b) in boxes.iter().enumerate() {
        s.insert(*b, i as u32);
    }
    s.update();
    s
}

fn main() {
    let mut csv_path = std::path::PathBuf::from("target/broadphase_scaling.csv");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--csv" {
            csv_path = args.next().expect("--csv needs a path").into();
        }
    }
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let threads = rayon::current_num_threads();
    let mut csv = String::from("n,structure,build_ms,pairs_ms,pairs\n");
    println!("| N | structure | build (ms) | all pairs (ms) | pairs | build 1 thread / {threads} | pairs 1 thread / {threads} |");
    println!("|---|---|---|---|---|---|---|");
    for n in [1_000usize, 10_000, 100_000, 1_000_000] {
        let boxes = scene::boxes(n, false, 42);
        let leaves: Vec<_> = boxes.iter().map(convert::aabb).collect();
        let runs = if n >= 1_000_000 { 2 } else { 3 };
        let mut out = Vec::new();
        let mut row = |name: &str, build: f64, pairs: f64, count: usize, b1: Option<f64>, p1: Option<f64>| {
            let speed = |one: Option<f64>, all: f64| one.map_or("-".to_string(), |o| format!("{:.2}x", o / all));
            println!(
                "| {n} | {name} | {build:.2} | {pairs:.2} | {count} | {} | {} |",
                speed(b1, build),
                speed(p1, pairs)
            );
            csv.push_str(&format!("{n},{name},{build:.4},{pairs:.4},{count}\n"));
        };

        let tree = StaticBvh::build(&boxes);
        let b = best_ms(runs, || StaticBvh::build(&boxes));
        let b1 = best_ms(runs, || one.install(|| StaticBvh::build(&boxes)));
        let p = best_ms(runs, || tree.pairs_into(&mut out));
        let p1 = best_ms(runs, || one.install(|| tree.pairs_into(&mut out)));
        row("StaticBvh", b, p, out.len(), Some(b1), Some(p1));

        let tree = dynamic_tree(&boxes);
        let b = best_ms(runs, || dynamic_tree(&boxes));
        let mut pairs = Vec::new();
        let p = best_ms(runs, || tree.pairs_into(&mut pairs));
        let p1 = best_ms(runs, || one.install(|| tree.pairs_into(&mut pairs)));
        row("DynamicTree (insert + rebuild)", b, p, pairs.len(), None, Some(p1));

        let s = sap(&boxes);
        let b = best_ms(runs, || sap(&boxes));
        let p = best_ms(runs, || s.pairs_into(&mut pairs));
        row("SweepAndPrune", b, p, pairs.len(), None, None);

        if n <= 10_000 {
            let mut bf = BruteForce::new();
            for (i, bx) in boxes.iter().enumerate() {
                bf.insert(*bx, i as u32);
            }
            let p = best_ms(runs, || bf.pairs_into(&mut pairs));
            row("BruteForce", 0.0, p, pairs.len(), None, None);
        }

        let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves);
        let b = best_ms(runs, || Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves));
        let mut ws = BvhWorkspace::default();
        let mut count = 0usize;
        let p = best_ms(runs, || {
            count = 0;
            bvh.traverse_bvtt_single_tree::<false>(&mut ws, &mut |_a, _b| count += 1);
        });
        row("parry3d Bvh (binned)", b, p, count, None, None);
    }
    if let Some(dir) = csv_path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    std::fs::write(&csv_path, csv).expect("write csv");
    println!("\ncsv: {}", csv_path.display());
}
