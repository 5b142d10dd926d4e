//! Records the benchmark scene, checks every structure against the oracle
//! and prints the mean time per step of one full pass for each, without
//! criterion, then where the pair tracker's step spends its time:
//! `cargo run --release --example summary` (the default wide scene) or
//! `cargo run --release --example summary -- tall` (the tall drop).

use proxima_bench_rapier::*;
use proxima_broadphase::{DynamicTreeOptions, PairTracker, ProxyId, ProxyOptions};
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let tall = std::env::args().any(|a| a == "tall");
    let scene = if tall { SceneOptions::tall_drop() } else { SceneOptions::default() };
    println!("scene: {}", if tall { "tall drop (20 layers of 20 x 20)" } else { "wide (5 layers of 40 x 40)" });
    let recording = record(&scene);
    let frames = &recording.frames;
    println!(
        "recorded {} colliders x {} steps in {:.1} s",
        recording.colliders(),
        frames.len(),
        recording.record_seconds
    );
    println!(
        "rapier broad phase {:.3} ms/step, whole rapier step {:.3} ms",
        recording.mean_rapier_broad_phase_ms(),
        recording.mean_rapier_step_ms()
    );
    let reference = reference_digests(&recording);
    let counts: Vec<usize> = reference.iter().map(|d| d.count).collect();
    println!("exact pairs at steps 0, 30, 60, 120, 299: {:?}", [0, 30, 60, 120, 299].map(|i| counts[i]));
    for mut replay in all_replays() {
        if replay.name() == "brute_force" {
            continue; // ~32 M box tests a step
        }
        check_replay(replay.as_mut(), &recording, &reference, frames.len()).unwrap_or_else(|e| panic!("{e}"));
        replay.start(&frames[0]);
        let mut per_step = Vec::new();
        for k in 1..frames.len() {
            let t = Instant::now();
            replay.step(&frames[k - 1], &frames[k]);
            per_step.push(t.elapsed().as_secs_f64() * 1e3);
            black_box(replay.pairs().len());
        }
        let mean = per_step.iter().sum::<f64>() / per_step.len() as f64;
        let phases: Vec<String> =
            per_step.chunks(50).map(|c| format!("{:.3}", c.iter().sum::<f64>() / c.len() as f64)).collect();
        println!("{:<20} {mean:.3} ms/step; by 50-step block: {}", replay.name(), phases.join(" "));
    }
    pair_tracker_breakdown(&recording);
}

/// The pair tracker's step in its three parts, as `pair_tracker` drives it.
fn pair_tracker_breakdown(recording: &Recording) {
    let frames = &recording.frames;
    let options = DynamicTreeOptions { margin: MARGIN, ..Default::default() };
    let mut tracker = PairTracker::with_options(options).expect("valid options");
    let ids: Vec<ProxyId> = frames[0].boxes.iter().map(|b| tracker.insert(*b, (), ProxyOptions::default())).collect();
    tracker.update();
    let (mut moving, mut updating, mut filtering) = (0.0, 0.0, 0.0);
    let (mut reinserted, mut fat_pairs, mut rebuilds) = (0usize, 0usize, 0usize);
    let mut out = Vec::new();
    for k in 1..frames.len() {
        let (prev, next) = (&frames[k - 1].boxes, &frames[k].boxes);
        let t0 = Instant::now();
        for (i, (old, new)) in prev.iter().zip(next).enumerate() {
            reinserted += tracker.move_proxy(ids[i], *new, new.center() - old.center()).expect("live id") as usize;
        }
        let t1 = Instant::now();
        tracker.update();
        rebuilds += tracker.stats().rebuilt as usize;
        let t2 = Instant::now();
        out.clear();
        out.extend(tracker.exact_pairs().map(|(a, b)| (a.index(), b.index())));
        let t3 = Instant::now();
        black_box(out.len());
        fat_pairs += tracker.pairs().len();
        moving += (t1 - t0).as_secs_f64();
        updating += (t2 - t1).as_secs_f64();
        filtering += (t3 - t2).as_secs_f64();
    }
    let steps = (frames.len() - 1) as f64;
    println!(
        "pair_tracker breakdown: move_proxy x {} {:.3} ms, update {:.3} ms, tight filter {:.3} ms per step; \
         {:.0} moved proxies (fat box left, queried) and {:.0} fat pairs per step",
        ids.len(),
        moving * 1e3 / steps,
        updating * 1e3 / steps,
        filtering * 1e3 / steps,
        reinserted as f64 / steps,
        fat_pairs as f64 / steps
    );
    println!("pair_tracker: {rebuilds} tree rebuilds in {} steps", frames.len() - 1);
}
