//! Convex hull colliders against parry3d 0.31's `ConvexPolyhedron`, one
//! thread, the same pairs and rays for both (`cargo bench --bench
//! hull_collider`):
//! - `hull_manifold/*`: manifolds of hull-hull and hull-box pairs (prediction
//!   0.02; about half touch), proxima's `contact_manifolds` (GJK/EPA and face
//!   clipping) against parry's `DefaultQueryDispatcher::contact_manifolds`;
//! - `hull_overlap`: `intersects_convex` on the hulls placed as the scene
//!   places them (GJK from their boxes' centres) against parry's
//!   `intersection_test`;
//! - `hull_distance`: `distance_convex` on two placed hulls against parry's
//!   `query::distance`;
//! - `hull_contact/sphere_hull`: sphere-hull contacts (centres within 1.4 of
//!   the hull, radii 0.1 to 0.6),
//!   the closed form `contact_sphere_hull` and the GJK/EPA `contact_convex`
//!   it replaced in the scene against parry's `query::contact`;
//! - `hull_contact/capsule_hull`: the same for capsules (core half-lengths
//!   up to 0.6) and `contact_capsule_hull`;
//! - `hull_ray`: solid ray casts (`WorldShape::cast_ray`, the face planes)
//!   against parry's `cast_ray` (a GJK ray cast).
//!
//! Hulls: 24 random points in a box of half-size 0.3 to 1, placed and turned
//! at random; partners within reach. The checksum is the number of points
//! (or hits).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use parry3d::math::Pose;
use parry3d::query::{self, PersistentQueryDispatcher, Ray as PRay, RayCast};
use parry3d::shape::{Ball, Capsule as PCapsule, ConvexPolyhedron};
use proxima::narrowphase::*;
use proxima::scene::{contact_manifolds, ColliderShape, WorldShape};
use proxima_test_support::convert as cv;
use proxima_test_support::gen::{self, uniform};
use std::hint::black_box;

#[path = "../examples/support/hull_pairs.rs"]
mod hull_pairs;
use hull_pairs::{hull, pairs, parry_hull, parry_pose, Centred, PAIRS};

const PREDICTION: Real = 0.02;

fn manifolds(c: &mut Criterion) {
    for (name, boxes, seed) in [("hull_manifold/hull_hull", false, 0xB1), ("hull_manifold/hull_box", true, 0xB2)] {
        let pairs = pairs(seed, boxes);
        let mut g = c.benchmark_group(name);
        g.throughput(Throughput::Elements(PAIRS as u64));
        g.bench_function("proxima", |bench| {
            let mut out = Vec::new();
            bench.iter(|| {
                black_box(&pairs).iter().fold(0usize, |acc, p| {
                    out.clear();
                    contact_manifolds(&p.a, &p.b, PREDICTION, &mut out);
                    acc + out.iter().map(|m| m.len()).sum::<usize>()
                })
            })
        });
        g.bench_function("parry3d", |bench| {
            let mut out: Vec<query::ContactManifold<(), ()>> = Vec::new();
            bench.iter(|| {
                black_box(&pairs).iter().fold(0usize, |acc, p| {
                    out.clear();
                    let pos12 = p.pa.inv_mul(&p.pb);
                    query::DefaultQueryDispatcher
                        .contact_manifolds(&pos12, &*p.ga, &*p.gb, PREDICTION, &mut out, &mut None)
                        .expect("supported");
                    acc + out.iter().map(|m| m.points.len()).sum::<usize>()
                })
            })
        });
        g.finish();
    }
}

fn overlap(c: &mut Criterion) {
    let pairs = pairs(0xB3, false);
    let mut g = c.benchmark_group("hull_overlap/hull_hull");
    g.throughput(Throughput::Elements(PAIRS as u64));
    g.bench_function("proxima", |bench| {
        bench.iter(|| {
            black_box(&pairs).iter().filter(|p| intersects_convex(&Centred::new(&p.a), &Centred::new(&p.b))).count()
        })
    });
    g.bench_function("parry3d", |bench| {
        bench.iter(|| {
            black_box(&pairs)
                .iter()
                .filter(|p| query::intersection_test(&p.pa, &*p.ga, &p.pb, &*p.gb).expect("supported").intersecting)
                .count()
        })
    });
    g.finish();
}

/// Hull-hull distances: `distance_convex` on the two placed hulls (the
/// `PlacedHull`s built per call) against parry's `query::distance`, on all
/// the pairs (about half overlap, distance 0). The checksum is the sum of the
/// distances' bits.
fn distance(c: &mut Criterion) {
    let pairs = pairs(0xB4, false);
    let placed = |s: &WorldShape| match s {
        WorldShape::ConvexHull(hull, pose) => (hull.clone(), *pose),
        _ => unreachable!("hulls only"),
    };
    let hulls: Vec<_> = pairs.iter().map(|p| (placed(&p.a), placed(&p.b))).collect();
    let mut g = c.benchmark_group("hull_distance/hull_hull");
    g.throughput(Throughput::Elements(PAIRS as u64));
    g.bench_function("proxima", |bench| {
        bench.iter(|| {
            black_box(&hulls).iter().fold(0u32, |acc, ((ha, pa), (hb, pb))| {
                let d = distance_convex(&PlacedHull::new(ha, pa), &PlacedHull::new(hb, pb));
                acc.wrapping_add(d.distance.to_bits())
            })
        })
    });
    g.bench_function("parry3d", |bench| {
        bench.iter(|| {
            black_box(&pairs).iter().fold(0u32, |acc, p| {
                let d = query::distance(&p.pa, &*p.ga, &p.pb, &*p.gb).expect("supported");
                acc.wrapping_add(d.distance.to_bits())
            })
        })
    });
    g.finish();
}

fn sphere_contacts(c: &mut Criterion) {
    let mut rng = proxima_test_support::rng(0xB5);
    let cases: Vec<(WorldShape, Sphere, Pose, ConvexPolyhedron, Pose, Ball)> = (0..PAIRS)
        .map(|_| {
            let (h, pose) = hull(&mut rng, Vector::zeros());
            let centre =
                Point::new(uniform(&mut rng, -1.4, 1.4), uniform(&mut rng, -1.4, 1.4), uniform(&mut rng, -1.4, 1.4));
            let s = Sphere::new(centre, uniform(&mut rng, 0.1, 0.6));
            let placed = ColliderShape::ConvexHull(h.clone()).placed(&pose).unwrap();
            (placed, s, parry_pose(&pose), parry_hull(&h), cv::pose_at(&centre), Ball::new(s.radius()))
        })
        .collect();
    let mut g = c.benchmark_group("hull_contact/sphere_hull");
    g.throughput(Throughput::Elements(PAIRS as u64));
    g.bench_function("proxima", |bench| {
        bench.iter(|| {
            black_box(&cases)
                .iter()
                .filter(|(h, s, ..)| {
                    let WorldShape::ConvexHull(hull, pose) = h else { unreachable!("hulls only") };
                    contact_sphere_hull(s, hull, pose).is_some()
                })
                .count()
        })
    });
    g.bench_function("proxima_gjk", |bench| {
        bench.iter(|| {
            black_box(&cases).iter().filter(|(h, s, ..)| contact_convex(s, &Centred::new(h), 0.0).is_some()).count()
        })
    });
    g.bench_function("parry3d", |bench| {
        bench.iter(|| {
            black_box(&cases)
                .iter()
                .filter(|(_, _, ph, poly, ps, ball)| {
                    query::contact(ps, ball, ph, poly, 0.0).expect("supported").is_some()
                })
                .count()
        })
    });
    g.finish();
}

fn capsule_contacts(c: &mut Criterion) {
    let mut rng = proxima_test_support::rng(0xB6);
    let cases: Vec<(WorldShape, Capsule, Pose, ConvexPolyhedron, PCapsule)> = (0..PAIRS)
        .map(|_| {
            let (h, pose) = hull(&mut rng, Vector::zeros());
            let mid =
                Point::new(uniform(&mut rng, -1.4, 1.4), uniform(&mut rng, -1.4, 1.4), uniform(&mut rng, -1.4, 1.4));
            let half = gen::unit_vector(&mut rng) * uniform(&mut rng, 0.0, 0.6);
            let cap = Capsule::new(mid - half, mid + half, uniform(&mut rng, 0.1, 0.4));
            let placed = ColliderShape::ConvexHull(h.clone()).placed(&pose).unwrap();
            let theirs = PCapsule::new(cv::pt(cap.a()), cv::pt(cap.b()), cap.radius());
            (placed, cap, parry_pose(&pose), parry_hull(&h), theirs)
        })
        .collect();
    let mut g = c.benchmark_group("hull_contact/capsule_hull");
    g.throughput(Throughput::Elements(PAIRS as u64));
    g.bench_function("proxima", |bench| {
        bench.iter(|| {
            black_box(&cases)
                .iter()
                .filter(|(h, k, ..)| {
                    let WorldShape::ConvexHull(hull, pose) = h else { unreachable!("hulls only") };
                    contact_capsule_hull(k, hull, pose).is_some()
                })
                .count()
        })
    });
    g.bench_function("proxima_gjk", |bench| {
        bench.iter(|| {
            black_box(&cases).iter().filter(|(h, k, ..)| contact_convex(k, &Centred::new(h), 0.0).is_some()).count()
        })
    });
    g.bench_function("parry3d", |bench| {
        bench.iter(|| {
            black_box(&cases)
                .iter()
                .filter(|(_, _, ph, poly, cap)| {
                    query::contact(&Pose::identity(), cap, ph, poly, 0.0).expect("supported").is_some()
                })
                .count()
        })
    });
    g.finish();
}

fn rays(c: &mut Criterion) {
    let mut rng = proxima_test_support::rng(0xB4);
    let cases: Vec<(WorldShape, Pose, ConvexPolyhedron, Ray)> = (0..PAIRS)
        .map(|_| {
            let (h, pose) = hull(&mut rng, Vector::zeros());
            let origin =
                Point::new(uniform(&mut rng, -5.0, 5.0), uniform(&mut rng, -5.0, 5.0), uniform(&mut rng, -5.0, 5.0));
            let aim =
                Point::new(uniform(&mut rng, -0.8, 0.8), uniform(&mut rng, -0.8, 0.8), uniform(&mut rng, -0.8, 0.8));
            let ray = Ray::try_new(origin, aim - origin, 2.0).unwrap();
            (ColliderShape::ConvexHull(h.clone()).placed(&pose).unwrap(), parry_pose(&pose), parry_hull(&h), ray)
        })
        .collect();
    let mut g = c.benchmark_group("hull_ray/solid");
    g.throughput(Throughput::Elements(PAIRS as u64));
    g.bench_function("proxima", |bench| {
        bench.iter(|| black_box(&cases).iter().filter(|(s, _, _, r)| s.cast_ray(r).is_some()).count())
    });
    g.bench_function("parry3d", |bench| {
        bench.iter(|| {
            black_box(&cases)
                .iter()
                .filter(|(_, p, h, r)| {
                    let ray = PRay::new(cv::pt(r.origin()), cv::vec(r.dir()));
                    h.cast_ray(p, &ray, r.max_toi(), true).is_some()
                })
                .count()
        })
    });
    g.finish();
}

criterion_group!(benches, manifolds, overlap, distance, sphere_contacts, capsule_contacts, rays);
criterion_main!(benches);
