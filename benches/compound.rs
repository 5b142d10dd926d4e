//! Compound colliders against parry3d 0.31's `Compound`, one thread, the
//! same compound, rays and boxes for both (`cargo bench --bench compound`):
//! - `compound_ray/children_{8,32}`: solid ray casts with the normal, aimed
//!   near a random child (origins 3 to 10 away), proxima's
//!   `WorldShape::cast_ray` on the placed compound against parry's
//!   `cast_ray_and_get_normal` with the compound's `Pose`;
//! - `compound_contact/box_children_{8,32}`: the deepest contact of the
//!   compound and an oriented box placed near a random child (about half
//!   touch), `proxima_scene::contact` against parry's `query::contact`
//!   (prediction 0).
//!
//! The compounds: 8 or 32 children, boxes, spheres and capsules of size 0.1
//! to 0.7 at random local poses (within 1.5 of the origin for 8 children,
//! 2.4 for 32), the compound placed at a random pose. The checksum is the
//! number of hits (or touching pairs).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use parry3d::math::Pose;
use parry3d::query::{self, Ray as PRay, RayCast};
use parry3d::shape::Cuboid;
use proxima::nalgebra::Translation3;
use proxima::narrowphase::*;
use proxima::scene::{contact, ColliderShape, WorldShape};
use proxima_test_support::convert as cv;
use proxima_test_support::gen::{self, uniform};
use proxima_test_support::Rng;

const BOXES: usize = 2_048;

#[allow(dead_code)]
#[path = "common/inputs.rs"]
mod inputs;
use inputs::{aimed_rays, compound, parry_pose, RAYS};

/// Both libraries answer the same workload: their hit counts agree to 1%
/// (grazing rays and touching boxes may differ), and 20% to 90% hit.
fn same_workload(ours: usize, theirs: usize, total: usize) {
    assert!(ours.abs_diff(theirs) <= total / 100, "proxima {ours} hits, parry3d {theirs}, of {total}");
    assert!((total / 5..=total * 9 / 10).contains(&ours), "{ours} hits of {total}");
}

fn rays(c: &mut Criterion) {
    let mut rng = proxima_test_support::rng(0xC0_B001);
    for n in [8, 32] {
        let both = compound(&mut rng, n);
        let rays = aimed_rays(&mut rng, &both.centres);
        let prays: Vec<PRay> = rays.iter().map(|r| PRay::new(cv::pt(r.origin()), cv::vec(r.dir()))).collect();
        let ours = rays.iter().filter(|r| both.world.cast_ray(r).is_some()).count();
        let theirs = prays.iter().filter(|r| both.parry.cast_ray_and_get_normal(&both.pose, r, 100.0, true).is_some());
        same_workload(ours, theirs.count(), RAYS);
        let mut g = c.benchmark_group(format!("compound_ray/children_{n}"));
        g.throughput(Throughput::Elements(RAYS as u64));
        g.bench_function("proxima", |bench| {
            bench.iter(|| black_box(&rays).iter().filter(|r| both.world.cast_ray(r).is_some()).count())
        });
        g.bench_function("parry3d", |bench| {
            bench.iter(|| {
                black_box(&prays)
                    .iter()
                    .filter(|r| both.parry.cast_ray_and_get_normal(&both.pose, r, 100.0, true).is_some())
                    .count()
            })
        });
        g.finish();
    }
}

fn contacts(c: &mut Criterion) {
    let mut rng = proxima_test_support::rng(0xC0_B002);
    for n in [8, 32] {
        let both = compound(&mut rng, n);
        let boxes: Vec<(WorldShape, Pose, Cuboid)> = (0..BOXES)
            .map(|_| {
                let h = Vector::from_fn(|_, _| uniform(&mut rng, 0.2, 0.8));
                let centre = both.centres[rng.random_range(0..n)].coords
                    + gen::unit_vector(&mut rng) * uniform(&mut rng, 0.0, 1.6);
                let pose = Isometry::from_parts(Translation3::from(centre), gen::rotation(&mut rng));
                let w = ColliderShape::Cuboid { half_extents: h }.placed(&pose).expect("placed");
                (w, parry_pose(&pose), Cuboid::new(cv::vec(&h)))
            })
            .collect();
        let ours = boxes.iter().filter(|b| contact(&both.world, &b.0).is_some()).count();
        let theirs =
            boxes.iter().filter(|b| query::contact(&both.pose, &both.parry, &b.1, &b.2, 0.0).unwrap().is_some());
        same_workload(ours, theirs.count(), BOXES);
        let mut g = c.benchmark_group(format!("compound_contact/box_children_{n}"));
        g.throughput(Throughput::Elements(BOXES as u64));
        g.bench_function("proxima", |bench| {
            bench.iter(|| black_box(&boxes).iter().filter(|b| contact(&both.world, &b.0).is_some()).count())
        });
        g.bench_function("parry3d", |bench| {
            bench.iter(|| {
                black_box(&boxes)
                    .iter()
                    .filter(|b| query::contact(&both.pose, &both.parry, &b.1, &b.2, 0.0).expect("supported").is_some())
                    .count()
            })
        });
        g.finish();
    }
}

criterion_group!(benches, rays, contacts);
criterion_main!(benches);
