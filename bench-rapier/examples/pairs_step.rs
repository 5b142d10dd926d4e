//! Times the pair search alone, as an engine with its own exact tests runs
//! it (every body's pose in, the pairs whose world boxes overlap out):
//! proxima's broadphase-only contact pipeline (`Scene::set_pose` for every
//! body, `ContactPipeline::with_broadphase_only(0.0)`; its default search
//! and each search fixed) against parry3d's `Bvh` at margin 0, on a
//! recorded rapier scene:
//! `cargo run --release --example pairs_step -- [tall|wide] [seed=N] [bodies=N] [capsules=F] [floor=box|mesh] [passes=P]`
//! (the arguments of the `step` example). One process, one thread each,
//! contenders alternating every step (their order rotated from step to
//! step); each step keeps its fastest of `P` passes. Printed: the mean step
//! time over the run and over each third (falling, piling, resting), the
//! speed-ups over parry3d, and, from the first pass, how the pair sets
//! agree: every parry3d pair must be proxima's, and proxima's extra pairs
//! (its boxes carry `1e-5` of their coordinates' magnitudes as slack) are
//! counted with the largest gap between their boxes.

use proxima::narrowphase::Aabb;
use proxima_bench_rapier::*;
use std::collections::BTreeSet;
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let (scene, passes) = scene_args();
    println!(
        "scene: {} bodies ({:.0}% capsules), {} wide, seed {:#x}, {} steps; each step the fastest of {passes} passes",
        scene.bodies,
        scene.capsules * 100.0,
        scene.columns,
        scene.seed,
        scene.steps
    );
    let recording = record(&scene);
    let frames = &recording.frames;
    assert!(frames.len() >= 4, "at least 4 steps, to have three thirds to time");
    let mut contenders = all_pairs_steps();
    let names: Vec<&str> = contenders.iter().map(|c| c.name()).collect();
    let steps = frames.len() - 1;
    let mut best = vec![vec![f64::INFINITY; steps]; contenders.len()];
    let (mut reference, mut other) = (Vec::new(), Vec::new());
    // Per proxima contender: pairs missing from it, extra pairs, largest gap of an extra pair.
    let mut agreement = vec![(0usize, 0usize, 0.0f32); contenders.len()];
    for pass in 0..passes {
        for contender in contenders.iter_mut() {
            contender.start(&recording);
        }
        for (k, frame) in frames.iter().enumerate().skip(1) {
            for r in 0..contenders.len() {
                let c = (k + r) % contenders.len();
                let t = Instant::now();
                contenders[c].step(frame);
                best[c][k - 1] = best[c][k - 1].min(t.elapsed().as_secs_f64() * 1e3);
                black_box(&mut contenders[c]);
            }
            if pass == 0 {
                contenders[0].pairs(&mut reference);
                let parry: BTreeSet<_> = reference.iter().copied().collect();
                for (c, (missing, extra, gap)) in agreement.iter_mut().enumerate().skip(1) {
                    contenders[c].pairs(&mut other);
                    let ours: BTreeSet<_> = other.iter().copied().collect();
                    *missing += parry.difference(&ours).count();
                    for &(a, b) in ours.difference(&parry) {
                        *extra += 1;
                        *gap = gap.max(box_gap(&frame.boxes[a as usize], &frame.boxes[b as usize]));
                    }
                }
            }
        }
    }
    print_thirds(&names, &best);
    println!("\npair sets against parry3d's over {steps} steps (last step: {} pairs):", reference.len());
    for (name, (missing, extra, gap)) in names.iter().zip(&agreement).skip(1) {
        println!("{name:<16} {missing} missing, {extra} extra (largest gap between an extra pair's boxes {gap:.2e} m)");
    }
}

/// The largest gap between two boxes along an axis (0 when they overlap).
fn box_gap(a: &Aabb, b: &Aabb) -> f32 {
    (0..3).map(|k| (a.min()[k] - b.max()[k]).max(b.min()[k] - a.max()[k])).fold(0.0, f32::max)
}
