//! Feeds a physics engine's poses into a `Scene`: `n` dynamic colliders
//! (boxes, balls and capsules in a loose grid) moved each frame by a small
//! random step and turn, through `set_pose` one by one or `set_poses` in one
//! call, with a `ContactPipeline` update per frame. A workload for
//! `valgrind --tool=callgrind` on the per-body pose path, and a quick timer.
//!
//! `cargo run --release --example profile_set_pose -- [set_pose|set_poses] [n] [frames] [pipeline|no_pipeline]`

use nalgebra::Translation3 as Translation;
use proxima::narrowphase::{Isometry, Rotation, Vector};
use proxima::scene::{ColliderDesc, ColliderHandle, ColliderShape, ContactPipeline, Scene};
use proxima_test_support::{gen, rng};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let which = args.get(1).map_or("set_pose", String::as_str).to_owned();
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1024);
    let frames: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(300);
    let with_pipeline = args.get(4).is_none_or(|s| s != "no_pipeline");
    let mut r = rng(7);
    let side = (n as f32).cbrt().ceil() as usize;
    let mut scene = Scene::new();
    let mut poses: Vec<(ColliderHandle, Isometry)> = Vec::with_capacity(n);
    for i in 0..n {
        let (x, y, z) = (i % side, (i / side) % side, i / (side * side));
        let shape = match i % 3 {
            0 => ColliderShape::Cuboid { half_extents: Vector::new(0.5, 0.4, 0.3) },
            1 => ColliderShape::Sphere { radius: 0.5 },
            _ => ColliderShape::Capsule { half_height: 0.3, radius: 0.3 },
        };
        let pose = Isometry::from_parts(Translation::new(x as f32, y as f32, z as f32), gen::rotation(&mut r));
        let h = scene.insert(ColliderDesc::new(shape, pose)).expect("valid collider");
        poses.push((h, pose));
    }
    let mut pipeline = ContactPipeline::new();
    pipeline.update(&mut scene);
    // Each frame's poses, drawn before the timed loop.
    let steps: Vec<Vec<Isometry>> = (0..frames)
        .map(|_| {
            poses
                .iter_mut()
                .map(|(_, pose)| {
                    let step = Vector::new(
                        gen::uniform(&mut r, -0.02, 0.02),
                        gen::uniform(&mut r, -0.02, 0.02),
                        gen::uniform(&mut r, -0.02, 0.02),
                    );
                    let turn = Rotation::new(step * 2.0);
                    *pose =
                        Isometry::from_parts(Translation::from(pose.translation.vector + step), turn * pose.rotation);
                    *pose
                })
                .collect()
        })
        .collect();
    let (mut in_poses, total) = (0.0, Instant::now());
    for frame in &steps {
        let t = Instant::now();
        if which == "set_poses" {
            for ((_, pose), new) in poses.iter_mut().zip(frame) {
                *pose = *new;
            }
            scene.set_poses(&poses).expect("valid poses");
        } else {
            for ((h, _), new) in poses.iter().zip(frame) {
                scene.set_pose(*h, *new).expect("valid pose");
            }
        }
        in_poses += t.elapsed().as_secs_f64();
        if with_pipeline {
            pipeline.update(&mut scene);
        }
    }
    println!(
        "{which}: {n} colliders, {frames} frames: poses in {:.1} ns per collider, {:.3} ms per frame in all",
        in_poses * 1e9 / (n * frames) as f64,
        total.elapsed().as_secs_f64() * 1e3 / frames as f64
    );
}
