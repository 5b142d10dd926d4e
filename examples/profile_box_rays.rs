//! Times the box-scene ray workload of the `scene/rays_closest_*` benches
//! (sparse boxes as static box colliders, 20,000 rays from uniform origins in
//! uniform directions, closest hit) through `Scene` and through parry3d's
//! `Bvh`, one thread each, interleaved (proxima, parry3d, proxima, ...) with
//! the fastest pass of each kept: a quick A/B loop on other sizes and seeds
//! than the bench's (`perf record` friendly with `--only proxima`).
//!
//! `cargo run --release --example profile_box_rays -- [boxes] [seed] [passes] [--only proxima|parry3d|bare]`
//!
//! `bare` is the `StaticBvh` over the same boxes, without the `Scene` (the
//! cost of the scene's layer).

use parry3d::partitioning::{Bvh, BvhBuildStrategy};
use parry3d::query::{Ray as PRay, RayCast};
use proxima::broadphase::StaticBvh;
use proxima::narrowphase::{Isometry, Ray};
use proxima::scene::{ColliderDesc, ColliderShape, QueryFilter, Scene};
use proxima_test_support::{convert, scene};
use std::hint::black_box;
use std::time::Instant;

const RAYS: usize = 20_000;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let only = match args.iter().position(|a| a == "--only") {
        Some(i) => {
            let v = args.get(i + 1).cloned().expect("--only proxima|parry3d|bare");
            args.drain(i..i + 2);
            v
        }
        None => String::new(),
    };
    let arg = |i: usize, default: u64| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(default);
    let (n, seed, passes) = (arg(0, 100_000) as usize, arg(1, 7), arg(2, 7));

    let boxes = scene::boxes(n, false, seed);
    let rays: Vec<Ray> = scene::rays(n, RAYS, seed + 1);
    let mut world = Scene::new();
    for b in &boxes {
        let pose = Isometry::translation(b.center().x, b.center().y, b.center().z);
        world
            .insert(ColliderDesc::new(ColliderShape::Cuboid { half_extents: b.half_extents() }, pose).fixed())
            .unwrap();
    }
    let all = QueryFilter::default();
    let leaves: Vec<_> = boxes.iter().map(convert::aabb).collect();
    let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves);
    let prays: Vec<_> = rays.iter().map(|r| PRay::new(convert::pt(r.origin()), convert::vec(r.dir()))).collect();

    // The same hits (toi within 1e-5 relative) before any timing.
    let (mut hits, mut agree) = (0, 0);
    for (ray, pray) in rays.iter().zip(&prays) {
        let ours = world.cast_ray_closest(ray, &all).map(|h| h.toi);
        let theirs = bvh
            .cast_ray(pray, ray.max_toi(), |leaf, best| leaves[leaf as usize].cast_local_ray(pray, best, true))
            .map(|(_, t)| t);
        hits += usize::from(ours.is_some());
        agree += usize::from(match (ours, theirs) {
            (Some(a), Some(b)) => (a - b).abs() <= 1e-5 * a.abs().max(1.0),
            (a, b) => a.is_none() && b.is_none(),
        });
    }
    println!("{n} boxes, seed {seed}: {RAYS} rays, {hits} hit, {agree} agree with parry3d");

    // The bare structure under the scene's static colliders, for the cost of
    // the `Scene` layer over the bare `StaticBvh`.
    // Built over the colliders' own boxes (centre and half extents round
    // slightly differently from the input boxes), so both answer alike.
    let placed: Vec<_> = world.iter().map(|(_, c)| *c.aabb()).collect();
    let bare = StaticBvh::build(&placed);
    assert!(rays
        .iter()
        .all(|r| bare.cast_ray_closest(r).map(|h| h.toi) == world.cast_ray_closest(r, &all).map(|h| h.toi)));
    let (mut ours, mut theirs, mut alone) = (f64::INFINITY, f64::INFINITY, f64::INFINITY);
    // Each pass's Scene over bare: the two run a few milliseconds apart, so
    // their ratio moves less with this machine's swings than the fastest
    // times do.
    let mut over = Vec::new();
    for _ in 0..passes {
        let (mut pass_bare, mut pass_scene) = (0.0, 0.0);
        if only.is_empty() || only == "bare" {
            let t = Instant::now();
            let mut sum = 0.0;
            for ray in &rays {
                if let Some(h) = bare.cast_ray_closest(ray) {
                    sum += h.toi;
                }
            }
            black_box(sum);
            pass_bare = t.elapsed().as_secs_f64();
            alone = alone.min(pass_bare);
        }
        if only.is_empty() || only == "proxima" {
            let t = Instant::now();
            let mut sum = 0.0;
            for ray in &rays {
                if let Some(h) = world.cast_ray_closest(ray, &all) {
                    sum += h.toi;
                }
            }
            black_box(sum);
            pass_scene = t.elapsed().as_secs_f64();
            ours = ours.min(pass_scene);
        }
        if pass_bare > 0.0 && pass_scene > 0.0 {
            over.push(pass_scene / pass_bare);
        }
        if only.is_empty() || only == "parry3d" {
            let t = Instant::now();
            let mut sum = 0.0;
            for (pray, ray) in prays.iter().zip(&rays) {
                let hit = bvh
                    .cast_ray(pray, ray.max_toi(), |leaf, best| leaves[leaf as usize].cast_local_ray(pray, best, true));
                if let Some((_, t)) = hit {
                    sum += t;
                }
            }
            black_box(sum);
            theirs = theirs.min(t.elapsed().as_secs_f64());
        }
    }
    let per_ray = |s: f64| s * 1e9 / RAYS as f64;
    println!("Scene {:.1} ns/ray, parry3d {:.1} ns/ray: {:.2}x", per_ray(ours), per_ray(theirs), theirs / ours);
    if only.is_empty() {
        over.sort_by(f64::total_cmp);
        println!(
            "bare StaticBvh {:.1} ns/ray: {:.2}x parry3d; Scene over it {:+.1}% (median of the passes' ratios {:+.1}%)",
            per_ray(alone),
            theirs / alone,
            100.0 * (ours / alone - 1.0),
            100.0 * (over[over.len() / 2] - 1.0)
        );
    }
}
