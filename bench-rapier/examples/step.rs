//! Times the collision step (every body's pose in, candidate pairs and
//! contact manifolds out) of parry3d and of proxima's contact pipeline (its
//! default pair search and the grid search) on a recorded rapier scene:
//! `cargo run --release --example step -- [tall|wide] [seed=N] [bodies=N] [capsules=F] [floor=box|mesh] [passes=P]`.
//!
//! `wide` (the default) is the bench's wide, shallow pile, `tall` the tall
//! drop; `seed=N` (decimal or `0x` hex), `bodies=N`, `capsules=F` (the
//! fraction of capsules), `columns=N` and `steps=N` override the scene's
//! fields; `floor=mesh` puts the pile on the bumpy triangle-mesh floor
//! (8,192 triangles) instead of the flat ground box (`floor=box`, the
//! default). The contenders run in one process on one thread each (but
//! `proxima_2_threads`, the default pipeline's `update_parallel` on a
//! two-thread pool: the speed-up from a second thread, its own row),
//! alternating every step (their order rotated from step to step); with
//! `passes=P` the whole replay runs `P` times and each step keeps its
//! fastest time. Printed: the mean step time over the run and over each
//! third of it (falling, piling, resting), the speed-ups over parry3d, where
//! each contender's time goes, and, from the first pass, how the touching
//! pairs (deepest manifold point at depth >= 0) of proxima agree with
//! parry3d's (disagreements within 1e-4 m of depth 0, and those where
//! parry3d's one-shot `query::contact` sides with proxima, counted apart).

use proxima_bench_rapier::*;
use std::hint::black_box;
use std::time::Instant;

/// A disagreement on whether a pair touches is tolerated when parry3d's
/// deepest point is this close to depth 0, in metres.
const BAND: f32 = 1e-4;

fn main() {
    let (scene, passes) = scene_args();
    let layers = scene.bodies.div_ceil(scene.columns * scene.columns);
    println!(
        "scene: {} bodies ({:.0}% capsules) in {layers} layers of {c} x {c}, spacing {}, on {}, seed {:#x}, {} \
         steps; each step the fastest of {passes} passes",
        scene.bodies,
        scene.capsules * 100.0,
        scene.spacing,
        match scene.floor {
            Floor::Cuboid => "the ground box",
            Floor::TriMesh => "the bumpy mesh floor (8,192 triangles)",
        },
        scene.seed,
        scene.steps,
        c = scene.columns
    );
    let recording = record(&scene);
    let frames = &recording.frames;
    assert!(frames.len() >= 4, "at least 4 steps, to have three thirds to time");
    println!(
        "recorded {} colliders x {} steps in {:.1} s",
        recording.colliders(),
        frames.len(),
        recording.record_seconds
    );

    let mut contenders = all_steps();
    let names: Vec<&str> = contenders.iter().map(|c| c.name()).collect();
    assert_eq!(names[0], "parry3d", "the first contender is the reference of the speed-ups");
    let steps = frames.len() - 1;
    let mut best = vec![vec![f64::INFINITY; steps]; contenders.len()];
    // Per contender and third of the run: poses in, pair search, manifolds.
    let mut phases = vec![[[0.0f64; 3]; 3]; contenders.len()];
    let mut agreements = vec![Agreement::default(); contenders.len()];
    let (mut reference, mut other, mut previous) = (Vec::new(), Vec::new(), Vec::new());
    // Steps where a proxima contender's deepest points differ from the first proxima contender's.
    let mut searches_differ = 0;
    for pass in 0..passes {
        for contender in contenders.iter_mut() {
            contender.start(&recording);
        }
        for (k, frame) in frames.iter().enumerate().skip(1) {
            for r in 0..contenders.len() {
                let c = (k + r) % contenders.len();
                let t = Instant::now();
                contenders[c].step(frame);
                let ms = t.elapsed().as_secs_f64() * 1e3;
                black_box(&mut contenders[c]);
                best[c][k - 1] = best[c][k - 1].min(ms);
                let p = contenders[c].phases();
                // Step `k - 1` of the run, in the thirds of `thirds` below.
                let third = usize::from(k > steps / 3) + usize::from(k > 2 * steps / 3);
                for (sum, d) in phases[c][third].iter_mut().zip([p.poses, p.pair_search, p.manifolds]) {
                    *sum += d.as_secs_f64() * 1e3;
                }
            }
            if pass == 0 {
                contenders[0].deepest_points(&mut reference);
                for (c, agreement) in agreements.iter_mut().enumerate().skip(1) {
                    contenders[c].deepest_points(&mut other);
                    let exact = |a, b| one_shot_depth(&recording, frame, a, b);
                    compare_touching(k, &reference, &other, BAND, exact, agreement);
                    // The exact pipelines give the same manifolds whatever
                    // their search or thread count (not the reuse row).
                    if contenders[c].approximate_within().is_none() {
                        searches_differ += usize::from(c > 1 && other != previous);
                        std::mem::swap(&mut other, &mut previous);
                    }
                }
            }
        }
    }

    let thirds = [0..steps / 3, steps / 3..2 * steps / 3, 2 * steps / 3..steps];
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let by_third = |v: &[f64]| thirds.clone().map(|r| mean(&v[r]));
    let rapier = &recording.rapier_collision_ms[1..];
    println!(
        "rapier3d's own broad + narrow phase, timed inside its step while recording: {:.2} ms/step; by thirds {}",
        mean(rapier),
        by_third(rapier).map(|x| format!("{x:.2}")).join(" / ")
    );
    print_thirds(&names, &best);

    let runs = (passes * steps) as f64;
    println!(
        "\nwhere the time goes (ms per step, mean over every pass): poses in / pair search / manifolds, over the run \
         and in each third"
    );
    for (name, p) in names.iter().zip(&phases) {
        let whole: [f64; 3] = core::array::from_fn(|i| p.iter().map(|t| t[i]).sum::<f64>() / runs);
        let third = |t: usize| {
            let n = (passes * thirds[t].len()) as f64;
            format!("{:.2} / {:.2} / {:.2}", p[t][0] / n, p[t][1] / n, p[t][2] / n)
        };
        println!(
            "{name:<18} {:.3} / {:.3} / {:.3}   falling {}   piling {}   resting {}",
            whole[0],
            whole[1],
            whole[2],
            third(0),
            third(1),
            third(2)
        );
    }
    println!("\nlast step: candidate pairs, manifolds with points, manifold points");
    for contender in &contenders {
        let n = contender.counts();
        println!("{:<18} {} / {} / {}", contender.name(), n.candidates, n.manifolds, n.points);
    }
    println!("\ntouching pairs (deepest point at depth >= 0) against parry3d's, summed over {steps} steps:");
    for (name, a) in names.iter().zip(&agreements).skip(1) {
        println!(
            "{name:<18} {} in both; in one only: {} with |parry depth| <= {BAND:e}, {} outside that band where \
             parry's one-shot contact sides with {name}, {} other; largest depth difference {:.2e} m",
            a.touching_in_both,
            a.in_band,
            a.reference_off,
            a.outside_band.len(),
            a.max_depth_difference
        );
        if let Some(d) = a.largest_difference {
            println!(
                "    largest difference at step {}: parry3d {:?}, {name} {:?}, one-shot depth {:?}",
                d.step, d.reference, d.other, d.exact
            );
        }
        for d in a.outside_band.iter().take(5) {
            println!(
                "    step {}: parry3d {:?}, {name} {:?}, one-shot depth {:?}",
                d.step, d.reference, d.other, d.exact
            );
        }
    }
    println!("proxima's exact pipelines: deepest manifold points differ on {searches_differ} steps");
}
