//! Times the dynamic frame (the `dynamic_frame_100k` bench's workload: 100k
//! sparse boxes, a fraction of them moved by `U[-step, step)^3` per frame,
//! then the pair set) for proxima's `PairTracker` and parry3d's `Bvh`, one
//! thread each, fastest of many passes: a quick A/B loop for tuning on other
//! seeds, fractions and steps than the bench's (`perf record` friendly).
//!
//! `cargo run --release --example profile_frame -- [tracker|tracker_par|parry] [fraction] [step] [margin] [seed] [dense]`
//!
//! `tracker_par` runs `update_parallel` on rayon's pool (set
//! `RAYON_NUM_THREADS` for the thread count).

use parry3d::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use proxima::broadphase::{FatBoxOptions, PairTracker, ProxyId, ProxyOptions};
use proxima_test_support::{convert, rng, scene};
use std::time::Instant;

const N: usize = 100_000;
const FRAMES: usize = 32;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize, default: f64| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(default);
    let which = args.get(1).map_or("tracker", String::as_str).to_owned();
    let (fraction, step, margin, seed) = (arg(2, 0.1), arg(3, 0.5) as f32, arg(4, 0.2) as f32, arg(5, 2.0) as u64);
    let dense = args.get(6).is_some_and(|a| a == "dense");
    let boxes0 = scene::boxes(N, dense, seed);
    let mut r = rng(seed + 100);
    let frames: Vec<_> = (0..FRAMES).map(|_| scene::moves(N, fraction, step, &mut r)).collect();
    let mut boxes = boxes0.clone();
    let passes = 5;
    let mut best = f64::INFINITY;
    let mut pairs = 0;
    if which == "parry" {
        let leaves: Vec<_> = boxes0.iter().map(|b| convert::aabb(&b.loosened(margin))).collect();
        let mut bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves);
        let mut ws = BvhWorkspace::default();
        let mut out: Vec<(u32, u32)> = Vec::new();
        for _ in 0..passes {
            let t = Instant::now();
            for frame in &frames {
                for (i, d) in frame {
                    boxes[*i] = scene::translated(&boxes[*i], d);
                    bvh.insert_or_update_partially(convert::aabb(&boxes[*i]), *i as u32, margin);
                }
                bvh.refit(&mut ws);
                bvh.optimize_incremental(&mut ws);
                out.clear();
                bvh.traverse_bvtt_single_tree::<false>(&mut ws, &mut |i, j| out.push((i, j)));
            }
            best = best.min(t.elapsed().as_secs_f64() / FRAMES as f64);
            pairs = out.len();
        }
    } else {
        let options = FatBoxOptions { margin, prediction: 0.0 };
        let mut tracker = PairTracker::new_with(options).expect("options");
        let ids: Vec<ProxyId> = boxes0.iter().map(|b| tracker.insert(*b, (), ProxyOptions::default())).collect();
        tracker.rebuild();
        tracker.update();
        let (mut queried, mut updates) = (0, 0);
        for _ in 0..passes {
            let t = Instant::now();
            for frame in &frames {
                for (i, d) in frame {
                    boxes[*i] = scene::translated(&boxes[*i], d);
                    tracker.move_proxy(ids[*i], boxes[*i], *d).expect("live id");
                }
                update(&mut tracker, which == "tracker_par");
                queried += tracker.stats().queried;
                updates += 1;
            }
            best = best.min(t.elapsed().as_secs_f64() / FRAMES as f64);
            pairs = tracker.pairs().len();
        }
        println!(
            "queried {} per frame; memory {:.0} B per proxy (PairTracker::bytes_per_proxy: trees, tables, pair buffers)",
            queried / updates,
            tracker.bytes_per_proxy()
        );
    }
    println!(
        "{which} fraction {fraction} step {step} margin {margin} seed {seed}{}: {pairs} pairs, {:.3} ms/frame",
        if dense { " dense" } else { "" },
        best * 1e3
    );
}

/// `update_parallel` (with the `parallel` feature) or `update`.
fn update(tracker: &mut PairTracker, parallel: bool) {
    #[cfg(feature = "parallel")]
    if parallel {
        tracker.update_parallel();
        return;
    }
    assert!(!parallel, "tracker_par needs the parallel feature");
    tracker.update();
}
