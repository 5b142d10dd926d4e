//! Records the benchmark scene, checks every structure against the oracle
//! and prints the mean time per step of one full pass for each, without
//! criterion, then where the pair tracker's step spends its time:
//! `cargo run --release --example summary` (the default wide scene) or
//! `cargo run --release --example summary -- tall` (the tall drop).
//!
//! Other scenes than the bench's, to check that a result holds on inputs it
//! was not tuned on: `seed=N` (decimal or `0x` hex), `bodies=N`, `columns=N` and `spacing=X`
//! override the scene's fields (after `tall`, if given), and `passes=N`
//! times each structure over `N` full passes and keeps the fastest (1 by
//! default); `only=a,b` times only the structures named (e.g.
//! `only=pair_tracker,parry3d`): `-- tall seed=7 bodies=12000 passes=5`.

use proxima_bench_rapier::*;
use proxima_broadphase::{FatBoxOptions, PairTracker, ProxyId, ProxyOptions};
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let tall = std::env::args().any(|a| a == "tall");
    let mut scene = if tall { SceneOptions::tall_drop() } else { SceneOptions::default() };
    let mut passes = 1;
    let mut only: Vec<String> = Vec::new();
    for arg in std::env::args().skip(1).filter(|a| a != "tall") {
        let (key, value) = arg.split_once('=').unwrap_or_else(|| panic!("unknown argument {arg}"));
        match key {
            "seed" => scene.seed = parse_seed(&arg, value),
            "bodies" => scene.bodies = parse(&arg, value),
            "columns" => scene.columns = parse(&arg, value),
            "spacing" => scene.spacing = parse(&arg, value),
            "passes" => passes = parse::<usize>(&arg, value).max(1),
            "only" => only = value.split(',').map(str::to_owned).collect(),
            _ => panic!("unknown argument {arg}"),
        }
    }
    assert!(scene.columns > 0 && scene.bodies > 0, "columns and bodies must be at least 1");
    let names: Vec<&str> = all_replays().iter().map(|r| r.name()).collect();
    if let Some(unknown) = only.iter().find(|n| !names.contains(&n.as_str())) {
        panic!("only={unknown}: no such structure (one of {names:?})");
    }
    let layers = scene.bodies.div_ceil(scene.columns * scene.columns);
    println!(
        "scene: {} bodies in {layers} layers of {c} x {c}, spacing {}, seed {:#x}; fastest of {passes} passes",
        scene.bodies,
        scene.spacing,
        scene.seed,
        c = scene.columns
    );
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
        if replay.name() == "brute_force" || !(only.is_empty() || only.iter().any(|n| n == replay.name())) {
            continue; // brute force: ~32 M box tests a step
        }
        check_replay(replay.as_mut(), &recording, &reference, frames.len()).unwrap_or_else(|e| panic!("{e}"));
        let mut best: Option<(f64, Vec<f64>)> = None;
        for _ in 0..passes {
            replay.start(&frames[0]);
            let mut per_step = Vec::new();
            for k in 1..frames.len() {
                let t = Instant::now();
                replay.step(&frames[k - 1], &frames[k]);
                per_step.push(t.elapsed().as_secs_f64() * 1e3);
                black_box(replay.pairs().len());
            }
            let mean = per_step.iter().sum::<f64>() / per_step.len() as f64;
            if !best.as_ref().is_some_and(|(b, _)| *b <= mean) {
                best = Some((mean, per_step));
            }
        }
        let (mean, per_step) = best.expect("at least one pass");
        let phases: Vec<String> =
            per_step.chunks(50).map(|c| format!("{:.3}", c.iter().sum::<f64>() / c.len() as f64)).collect();
        println!("{:<20} {mean:.3} ms/step; by 50-step block: {}", replay.name(), phases.join(" "));
    }
    pair_tracker_breakdown(&recording);
}

/// The pair tracker's step in its three parts, as `pair_tracker` drives it.
fn pair_tracker_breakdown(recording: &Recording) {
    let frames = &recording.frames;
    let options = FatBoxOptions { margin: MARGIN, ..Default::default() };
    let mut tracker = PairTracker::new_with(options).expect("valid options");
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
