//! Replays the tall drop through one structure 20 times (for `perf`, and
//! the fastest pass for A/B timing on a busy machine):
//! `cargo run --release --example profile_tracker [-- <replay name>]`.

use proxima_bench_rapier::*;
use std::hint::black_box;

fn main() {
    let recording = record(&SceneOptions::tall_drop());
    let frames = &recording.frames;
    let name = std::env::args().nth(1).unwrap_or_else(|| "pair_tracker".into());
    let mut replay = all_replays().into_iter().find(|r| r.name() == name).expect("a replay of that name");
    // The fastest of 20 passes: the least disturbed by other processes.
    let mut best = f64::INFINITY;
    for _ in 0..20 {
        replay.start(&frames[0]);
        let t = std::time::Instant::now();
        for k in 1..frames.len() {
            replay.step(&frames[k - 1], &frames[k]);
            black_box(replay.pairs().len());
        }
        best = best.min(t.elapsed().as_secs_f64() * 1e3 / (frames.len() - 1) as f64);
    }
    println!("{name}: {best:.3} ms/step (fastest of 20 passes)");
}
