//! Records the benchmark scene, checks every structure against the oracle
//! and prints the mean time per step of one full pass for each, without
//! criterion: `cargo run --release --example summary`.

use proxima_bench_rapier::*;
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let recording = record(&SceneOptions::default());
    let frames = &recording.frames;
    println!(
        "recorded {} colliders x {} steps in {:.1} s",
        recording.colliders(),
        frames.len(),
        recording.record_seconds
    );
    println!(
        "rapier broad phase {:.3} ms/step, whole step {:.3} ms",
        recording.mean_rapier_broad_phase_ms(),
        recording.mean_rapier_step_ms()
    );
    let reference = reference_digests(&recording);
    let counts: Vec<usize> = reference.iter().map(|d| d.count).collect();
    println!("pairs at steps 0, 30, 60, 120, 299: {:?}", [0, 30, 60, 120, 299].map(|i| counts[i]));
    for mut replay in all_replays() {
        if replay.name() == "brute_force" {
            continue;
        }
        check_replay(replay.as_mut(), &recording, &reference, frames.len()).unwrap();
        replay.start(&frames[0]);
        let mut per_step = Vec::new();
        for k in 1..frames.len() {
            let t = Instant::now();
            replay.step(&frames[k - 1], &frames[k]);
            per_step.push(t.elapsed().as_secs_f64() * 1e3);
            black_box(replay.pairs().len());
        }
        let mean = per_step.iter().sum::<f64>() / per_step.len() as f64;
        let max = per_step.iter().cloned().fold(0.0, f64::max);
        let phases: Vec<String> =
            per_step.chunks(50).map(|c| format!("{:.3}", c.iter().sum::<f64>() / c.len() as f64)).collect();
        println!("{:<20} mean {mean:.3} ms/step, max {max:.3}; per 50 steps: {}", replay.name(), phases.join(" "));
    }
}
