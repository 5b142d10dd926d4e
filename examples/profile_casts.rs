//! Convex shape casts (`cast_shape_convex`) against parry3d's `cast_shapes`,
//! one thread, interleaved timings, on the inputs of `benches/casts.rs`'s
//! `cast/shape_*` rows (other seeds with `--seed`).
//!
//! ```text
//! cargo run --release --example profile_casts -- [--pair box|capsule|hull] [--passes N] [--seed S] [--only proxima|parry3d] [--generic]
//! ```
//! Every variant runs once per pass, in turn, and its fastest pass is kept.
//! `--only` runs one side (for `perf record` or `valgrind --tool=callgrind`,
//! whose instruction counts do not depend on the machine's load). Before
//! timing, every case's answer is compared with parry's: the count of cases
//! whose hit or miss differs, and the largest toi difference, are printed.

use std::time::Instant;

use parry3d::math::{Pose, Vector as PVec};
use parry3d::query::{self, ShapeCastOptions};
use parry3d::shape::Shape;
use proxima::narrowphase::*;
use proxima_test_support::convert as cv;
use proxima_test_support::gen::{self, Placement};
use proxima_test_support::SmallRng;

#[path = "support/placed_hull.rs"]
mod placed_hull;
use placed_hull::placed_hull;

/// Casts per pass.
const CASES: usize = 4096;

/// One cast in both libraries' forms (for box pairs, the boxes too: they
/// run through `cast_obb_obb`).
struct Case {
    a: Box<dyn SupportMap>,
    motion: Vector,
    b: Box<dyn SupportMap>,
    boxes: Option<(Obb, Obb)>,
    parry: (Pose, Box<dyn Shape>, PVec, Pose, Box<dyn Shape>),
}

fn main() {
    let (mut pair, mut passes, mut seed, mut only) = ("box".to_string(), 20, 21u64, String::new());
    // `--generic`: box pairs through `cast_shape_convex` too.
    let mut generic = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{a} needs a value"));
        match a.as_str() {
            "--pair" => pair = value(),
            "--passes" => passes = value().parse().expect("--passes N"),
            "--seed" => seed = value().parse().expect("--seed S"),
            "--only" => only = value(),
            "--generic" => generic = true,
            other => panic!("unknown argument {other}"),
        }
    }
    let mut rng = proxima_test_support::rng(seed);
    let cases: Vec<Case> = (0..CASES).map(|_| case(&mut rng, &pair)).collect();
    let ours = |c: &Case| match &c.boxes {
        Some((a, b)) if !generic => cast_obb_obb(a, &c.motion, b).map(|h| h.toi),
        _ => cast_shape_convex(&*c.a, &c.motion, &*c.b).map(|h| h.toi),
    };
    let theirs = |c: &Case| {
        let (p1, s1, v1, p2, s2) = &c.parry;
        let opts = ShapeCastOptions::with_max_time_of_impact(1.0);
        query::cast_shapes(p1, *v1, &**s1, p2, PVec::ZERO, &**s2, opts).expect("supported").map(|h| h.time_of_impact)
    };
    if only.is_empty() {
        let (mut differ, mut worst) = (0, 0.0f32);
        for c in &cases {
            match (ours(c), theirs(c)) {
                (Some(x), Some(y)) => worst = worst.max((x - y).abs()),
                (None, None) => {}
                _ => differ += 1,
            }
        }
        println!("{pair}: {CASES} casts, hit/miss differs on {differ}, largest toi difference {worst:.2e}");
    }
    let mut best = [f64::INFINITY; 2];
    let mut sum = 0u32;
    for _ in 0..passes {
        for (k, name) in ["proxima", "parry3d"].iter().enumerate() {
            if !only.is_empty() && only != *name {
                continue;
            }
            let t = Instant::now();
            for c in &cases {
                let toi = if k == 0 { ours(c) } else { theirs(c) };
                sum = sum.wrapping_add(toi.map_or(0, f32::to_bits));
            }
            best[k] = best[k].min(t.elapsed().as_secs_f64());
        }
    }
    let per = |k: usize| best[k] / CASES as f64 * 1e9;
    println!(
        "proxima {:.1} ns/cast, parry3d {:.1} ns/cast, ratio {:.2}x (checksum {sum})",
        per(0),
        per(1),
        per(1) / per(0)
    );
}

/// A random cast of the named pair: shapes of sizes 0.1..1 with centres in
/// `[-2, 2]^3`, moving 0.3..1.3 of the way to the target plus up to 1 unit
/// aside (about half hit).
fn case(rng: &mut SmallRng, pair: &str) -> Case {
    let p = Placement::new(2.0, 0.1, 1.0);
    let toward = |rng: &mut SmallRng, from: &Point, to: &Point| {
        (to - from) * gen::uniform(rng, 0.3, 1.3) + gen::unit_vector(rng) * gen::uniform(rng, 0.0, 1.0)
    };
    match pair {
        "box" => {
            let (a, b) = (gen::obb(rng, &p), gen::obb(rng, &p));
            let motion = toward(rng, a.center(), b.center());
            let parry = parry_case(cv::cuboid(&a), &motion, cv::cuboid(&b));
            Case { a: Box::new(a), motion, b: Box::new(b), boxes: Some((a, b)), parry }
        }
        "capsule" => {
            let (a, b) = (gen::capsule(rng, &p), gen::obb(rng, &p));
            let motion = toward(rng, &nalgebra::center(a.a(), a.b()), b.center());
            let parry = parry_case(cv::capsule(&a), &motion, cv::cuboid(&b));
            Case { a: Box::new(a), motion, b: Box::new(b), boxes: None, parry }
        }
        "hull" => {
            let (a, b) = (placed_hull(rng, &p), placed_hull(rng, &p));
            let motion = toward(rng, &a.core_center(), &b.core_center());
            let parry = parry_case(cv::convex_hull(a.hull, &a.pose), &motion, cv::convex_hull(b.hull, &b.pose));
            Case { a: Box::new(a), motion, b: Box::new(b), boxes: None, parry }
        }
        other => panic!("unknown pair {other} (box, capsule, hull)"),
    }
}

/// The parry form of a cast: A's pose, shape and velocity, B's pose and shape.
fn parry_case<A: Shape + 'static, B: Shape + 'static>(
    (pose1, a): (Pose, A),
    motion: &Vector,
    (pose2, b): (Pose, B),
) -> (Pose, Box<dyn Shape>, PVec, Pose, Box<dyn Shape>) {
    (pose1, Box::new(a), cv::vec(motion), pose2, Box::new(b))
}
