//! GJK distance, the box closed forms and compound ray casts against
//! parry3d, one thread, on the inputs of `benches/gjk.rs` and
//! `benches/compound.rs` (the same seeds and generators).
//!
//! ```text
//! cargo run --release --example profile_gjk -- [--query gjk_obb_obb|gjk_obb_triangle|obb_obb|obb_triangle|ray8|ray32] [--passes N] [--only proxima|parry3d]
//! ```
//! Both sides run once per pass, in turn, and each keeps its fastest pass.
//! `--only` runs one side (for `valgrind --tool=callgrind`: divide the
//! query function's inclusive count by `passes * cases`). The checksum
//! printed beside each time must agree closely between the two libraries.

use std::time::Instant;

use parry3d::math::Pose;
use parry3d::query::{self, Ray as PRay, RayCast};
use parry3d::shape::SharedShape;
use proxima::narrowphase::*;
use proxima_test_support::convert as cv;
use proxima_test_support::gen::{self, Placement};

#[allow(dead_code)]
#[path = "../benches/common/inputs.rs"]
mod inputs;
use inputs::{aimed_rays, cases, compound, CASES, RAYS};

/// One side's pass: the checksum of its answers.
type Pass = Box<dyn FnMut() -> u64>;

fn main() {
    let (mut q, mut passes, mut only) = ("gjk_obb_obb".to_string(), 20, String::new());
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{a} needs a value"));
        match a.as_str() {
            "--query" => q = value(),
            "--passes" => passes = value().parse().expect("--passes N"),
            "--only" => only = value(),
            other => panic!("unknown argument {other}"),
        }
    }
    let p = Placement::new(2.5, 0.05, 1.5);
    let obb_pairs = || cases(1, |r| (gen::obb(r, &p), gen::obb(r, &p)), |(a, b)| distance_obb_obb(a, b).distance > 0.0);
    let tri_pairs =
        || cases(4, |r| (gen::obb(r, &p), gen::triangle(r, &p)), |(a, b)| distance_obb_triangle(a, b).distance > 0.0);
    let parry_pairs = |a: (Pose, SharedShape), b: (Pose, SharedShape)| (a, b);
    let sum = |x: Real| (f64::from(x) * 1e3) as u64;
    let (mut ours, mut theirs): (Pass, Pass) = match q.as_str() {
        "gjk_obb_obb" | "obb_obb" => {
            let pairs = obb_pairs();
            let pp: Vec<_> = pairs
                .iter()
                .map(|(a, b)| {
                    let ((pa, ca), (pb, cb)) = (cv::cuboid(a), cv::cuboid(b));
                    parry_pairs((pa, SharedShape::new(ca)), (pb, SharedShape::new(cb)))
                })
                .collect();
            let closed = q == "obb_obb";
            (
                Box::new(move || {
                    let f = if closed { distance_obb_obb } else { |a: &Obb, b: &Obb| distance_convex(a, b) };
                    pairs.iter().map(|(a, b)| sum(f(a, b).distance)).sum()
                }),
                Box::new(move || {
                    pp.iter()
                        .map(|((p1, g1), (p2, g2))| sum(query::distance(p1, &**g1, p2, &**g2).unwrap().distance))
                        .sum()
                }),
            )
        }
        "gjk_obb_triangle" | "obb_triangle" => {
            let pairs = tri_pairs();
            let pp: Vec<_> = pairs
                .iter()
                .map(|(a, b)| {
                    let ((pa, ca), (pb, cb)) = (cv::cuboid(a), cv::triangle(b));
                    parry_pairs((pa, SharedShape::new(ca)), (pb, SharedShape::new(cb)))
                })
                .collect();
            let closed = q == "obb_triangle";
            (
                Box::new(move || {
                    let f = if closed { distance_obb_triangle } else { |a: &Obb, b: &Triangle| distance_convex(a, b) };
                    pairs.iter().map(|(a, b)| sum(f(a, b).distance)).sum()
                }),
                Box::new(move || {
                    pp.iter()
                        .map(|((p1, g1), (p2, g2))| sum(query::distance(p1, &**g1, p2, &**g2).unwrap().distance))
                        .sum()
                }),
            )
        }
        "ray8" | "ray32" => {
            let mut rng = proxima_test_support::rng(0xC0_B001);
            // The bench's order: the 8-child compound and its rays, then the 32-child one's.
            let mut c = compound(&mut rng, 8);
            let mut rays = aimed_rays(&mut rng, &c.centres);
            if q == "ray32" {
                c = compound(&mut rng, 32);
                rays = aimed_rays(&mut rng, &c.centres);
            }
            let inputs::Both { world, parry, pose, .. } = c;
            let prays: Vec<PRay> = rays.iter().map(|r| PRay::new(cv::pt(r.origin()), cv::vec(r.dir()))).collect();
            (
                Box::new(move || rays.iter().filter(|r| world.cast_ray(r).is_some()).count() as u64),
                Box::new(move || {
                    prays.iter().filter(|r| parry.cast_ray_and_get_normal(&pose, r, 100.0, true).is_some()).count()
                        as u64
                }),
            )
        }
        other => panic!("unknown query {other}"),
    };
    let (mut best_ours, mut best_theirs) = (f64::INFINITY, f64::INFINITY);
    let (mut sum_ours, mut sum_theirs) = (0, 0);
    for _ in 0..passes {
        if only != "parry3d" {
            let t = Instant::now();
            sum_ours = std::hint::black_box(ours());
            best_ours = best_ours.min(t.elapsed().as_secs_f64());
        }
        if only != "proxima" {
            let t = Instant::now();
            sum_theirs = std::hint::black_box(theirs());
            best_theirs = best_theirs.min(t.elapsed().as_secs_f64());
        }
    }
    let n = if q.starts_with("ray") { RAYS } else { CASES } as f64;
    println!("{q}: proxima {:.1} ns/query (checksum {sum_ours})", best_ours * 1e9 / n);
    println!("{q}: parry3d {:.1} ns/query (checksum {sum_theirs})", best_theirs * 1e9 / n);
}
