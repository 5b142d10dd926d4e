//! The rapier replay benchmark: time per replayed step of each broadphase
//! structure over the boxes recorded from rapier3d 0.36 (8,000 bodies, 300
//! steps at 60 Hz; see `SceneOptions::default`).
//!
//! The recording is made once per run (its wall time is printed). Before
//! timing, each structure is checked against the oracle at every step. Ids:
//! `rapier_replay/step/<structure>`, one step per element. A step walks the
//! recording in order; after the last frame the structure is rebuilt on frame
//! 0 outside the timed region.
//!
//! After criterion's measurements, a summary times one full pass over the
//! recording per structure (the mean over every step, so the falling, impact
//! and resting phases weigh as in the simulation) and prints it next to
//! rapier's own broad-phase time from its counters.

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use proxima_bench_rapier::*;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Mean ms per step of one untimed-start, timed pass over all frames.
fn full_pass_ms(replay: &mut dyn Replay, recording: &Recording) -> f64 {
    let frames = &recording.frames;
    replay.start(&frames[0]);
    let start = Instant::now();
    for k in 1..frames.len() {
        replay.step(&frames[k - 1], &frames[k]);
        black_box(replay.pairs().len());
    }
    start.elapsed().as_secs_f64() * 1e3 / (frames.len() - 1) as f64
}

/// Both recorded scenes: the wide, shallow pile and the tall drop.
fn replay(c: &mut Criterion) {
    replay_scene(c, "rapier_replay", &SceneOptions::default());
    replay_scene(c, "rapier_replay_tall", &SceneOptions::tall_drop());
}

fn replay_scene(c: &mut Criterion, group_name: &str, scene: &SceneOptions) {
    let recording = record(scene);
    let frames = &recording.frames;
    println!(
        "rapier_replay: recorded {} colliders x {} steps in {:.1} s",
        recording.colliders(),
        frames.len(),
        recording.record_seconds
    );
    let reference = reference_digests(&recording);
    let last = reference.last().copied().unwrap_or_default();
    println!("rapier_replay: {} overlapping pairs at the last step", last.count);

    let mut group = c.benchmark_group(group_name);
    group.throughput(Throughput::Elements(1));
    for mut replay in all_replays() {
        let name = replay.name();
        check_replay(replay.as_mut(), &recording, &reference, frames.len()).unwrap_or_else(|e| panic!("{e}"));
        if name == "brute_force" {
            group.sample_size(10).sampling_mode(SamplingMode::Flat);
        } else {
            group.sample_size(50).sampling_mode(SamplingMode::Auto);
        }
        let mut cursor = frames.len(); // the first iteration starts the structure
        group.bench_function(format!("step/{name}"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    if cursor >= frames.len() {
                        replay.start(&frames[0]);
                        cursor = 1;
                    }
                    let start = Instant::now();
                    replay.step(&frames[cursor - 1], &frames[cursor]);
                    total += start.elapsed();
                    black_box(replay.pairs().len());
                    cursor += 1;
                }
                total
            })
        });
    }
    group.finish();

    let rapier = recording.mean_rapier_broad_phase_ms();
    println!(
        "rapier_replay: rapier's own broad phase: {rapier:.3} ms/step (mean of {} steps; whole rapier step {:.3} ms)",
        frames.len(),
        recording.mean_rapier_step_ms()
    );
    println!("rapier_replay: one full pass over the recording, mean ms per step:");
    let mut parry = None;
    let mut rows = Vec::new();
    for mut replay in all_replays() {
        if replay.name() == "brute_force" {
            continue; // ~n^2 / 2 tests a step: see its criterion line
        }
        let ms = full_pass_ms(replay.as_mut(), &recording);
        if replay.name() == "parry3d" {
            parry = Some(ms);
        }
        rows.push((replay.name(), ms));
    }
    for (name, ms) in rows {
        let vs_parry = parry.map_or(String::new(), |p| format!(", parry3d / this = {:.2}x", p / ms));
        println!("  {name:<20} {ms:>8.3} ms/step  (rapier broad phase / this = {:.2}x{vs_parry})", rapier / ms);
    }
}

criterion_group!(benches, replay);
criterion_main!(benches);
