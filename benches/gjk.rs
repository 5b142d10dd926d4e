//! The generic convex queries (GJK distance, EPA contact) next to parry3d
//! 0.31's `query::distance` / `query::contact` and proxima's closed forms,
//! on the same seeded inputs.
//!
//! Each workload pre-generates `CASES` random pairs of shapes of sizes
//! 0.05..1.5: for the distance rows, pairs kept only when apart (the
//! closed-form distance is positive), as a broadphase hands over pairs
//! whose boxes overlap; for the contact row, overlapping box pairs. One
//! criterion iteration runs the whole batch and folds the bits of each
//! answer into a checksum through `black_box`; `Throughput::Elements`
//! makes criterion report the time per call. Ids are
//! `gjk/<query>_<pair>/<implementation>` with implementation `proxima_gjk`
//! (the generic query), `parry3d` (its public entry point, with a `Pose` per
//! shape) and `proxima_closed_form` (the pair's `distance_*` / `contact_*`;
//! the box-box and box-triangle distances take GJK's answer for a pair
//! clearly apart and run their exact edge search near touching).
//! One thread: criterion runs the closures on the calling thread.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use parry3d::math::Pose;
use parry3d::query;
use parry3d::shape::Shape;
use proxima::narrowphase::*;
use proxima_test_support::convert as cv;
use proxima_test_support::gen::{self, Placement};
use std::hint::black_box;

#[allow(dead_code)]
#[path = "common/inputs.rs"]
mod inputs;
use inputs::cases;

/// Shapes of sizes 0.05..1.5 with centres in `[-spread, spread]^3`.
fn near(spread: Real) -> Placement {
    Placement::new(spread, 0.05, 1.5)
}

/// A shape as parry sees it.
trait ToParry {
    fn parry(&self) -> (Pose, Box<dyn Shape>);
}
impl ToParry for Sphere {
    fn parry(&self) -> (Pose, Box<dyn Shape>) {
        let (p, s) = cv::ball(self);
        (p, Box::new(s))
    }
}
impl ToParry for Obb {
    fn parry(&self) -> (Pose, Box<dyn Shape>) {
        let (p, s) = cv::cuboid(self);
        (p, Box::new(s))
    }
}
impl ToParry for Capsule {
    fn parry(&self) -> (Pose, Box<dyn Shape>) {
        let (p, s) = cv::capsule(self);
        (p, Box::new(s))
    }
}
impl ToParry for Triangle {
    fn parry(&self) -> (Pose, Box<dyn Shape>) {
        let (p, s) = cv::triangle(self);
        (p, Box::new(s))
    }
}

/// Two shapes as parry sees them.
struct Pp {
    p1: Pose,
    g1: Box<dyn Shape>,
    p2: Pose,
    g2: Box<dyn Shape>,
}

fn to_parry<A: ToParry, B: ToParry>(pairs: &[(A, B)]) -> Vec<Pp> {
    pairs
        .iter()
        .map(|(a, b)| {
            let ((p1, g1), (p2, g2)) = (a.parry(), b.parry());
            Pp { p1, g1, p2, g2 }
        })
        .collect()
}

/// The bits of an `f32` (integer sums keep the checksum chain short).
#[inline]
fn bits(x: Real) -> u32 {
    x.to_bits()
}

/// One workload: the generic query, parry and the closed form on the same
/// pairs.
fn workload<A, B>(
    c: &mut Criterion,
    id: &str,
    pairs: &[(A, B)],
    gjk: impl Fn(&A, &B) -> u32,
    parry: impl Fn(&Pp) -> u32,
    closed: impl Fn(&A, &B) -> u32,
) where
    A: ToParry,
    B: ToParry,
{
    let theirs = to_parry(pairs);
    let mut g = c.benchmark_group(id);
    g.throughput(Throughput::Elements(pairs.len() as u64));
    let sum = |f: &dyn Fn(&A, &B) -> u32| black_box(pairs).iter().map(|(a, b)| f(a, b)).fold(0u32, u32::wrapping_add);
    g.bench_function("proxima_gjk", |bench| bench.iter(|| black_box(sum(&gjk))));
    g.bench_function("parry3d", |bench| {
        bench.iter(|| black_box(black_box(&theirs).iter().map(&parry).fold(0u32, u32::wrapping_add)))
    });
    g.bench_function("proxima_closed_form", |bench| bench.iter(|| black_box(sum(&closed))));
    g.finish();
}

#[inline]
fn parry_distance(p: &Pp) -> u32 {
    bits(query::distance(&p.p1, &*p.g1, &p.p2, &*p.g2).expect("supported").distance)
}

#[inline]
fn parry_depth(p: &Pp) -> u32 {
    match query::contact(&p.p1, &*p.g1, &p.p2, &*p.g2, 0.0).expect("supported") {
        Some(c) => bits(-c.dist),
        None => 0,
    }
}

fn gjk_distance<A: SupportMap, B: SupportMap>(a: &A, b: &B) -> u32 {
    bits(distance_convex(a, b).distance)
}

fn distance(c: &mut Criterion) {
    let p = near(2.5);
    let apart_obb = |(a, b): &(Obb, Obb)| distance_obb_obb(a, b).distance > 0.0;
    let pairs = cases(1, |r| (gen::obb(r, &p), gen::obb(r, &p)), apart_obb);
    workload(c, "gjk/distance_obb_obb", &pairs, gjk_distance, parry_distance, |a, b| {
        bits(distance_obb_obb(a, b).distance)
    });

    let apart = |(a, b): &(Sphere, Obb)| distance_sphere_obb(a, b).distance > 0.0;
    let pairs = cases(2, |r| (gen::sphere(r, &p), gen::obb(r, &p)), apart);
    workload(c, "gjk/distance_sphere_obb", &pairs, gjk_distance, parry_distance, |a, b| {
        bits(distance_sphere_obb(a, b).distance)
    });

    let apart = |(a, b): &(Capsule, Obb)| distance_capsule_obb(a, b).distance > 0.0;
    let pairs = cases(3, |r| (gen::capsule(r, &p), gen::obb(r, &p)), apart);
    workload(c, "gjk/distance_capsule_obb", &pairs, gjk_distance, parry_distance, |a, b| {
        bits(distance_capsule_obb(a, b).distance)
    });

    let apart = |(a, b): &(Obb, Triangle)| distance_obb_triangle(a, b).distance > 0.0;
    let pairs = cases(4, |r| (gen::obb(r, &p), gen::triangle(r, &p)), apart);
    workload(c, "gjk/distance_obb_triangle", &pairs, gjk_distance, parry_distance, |a, b| {
        bits(distance_obb_triangle(a, b).distance)
    });

    let apart = |(a, b): &(Capsule, Capsule)| distance_capsule_capsule(a, b).distance > 0.0;
    let pairs = cases(5, |r| (gen::capsule(r, &p), gen::capsule(r, &p)), apart);
    workload(c, "gjk/distance_capsule_capsule", &pairs, gjk_distance, parry_distance, |a, b| {
        bits(distance_capsule_capsule(a, b).distance)
    });
}

fn contact(c: &mut Criterion) {
    let p = near(0.8);
    let overlap = |(a, b): &(Obb, Obb)| intersects_obb_obb(a, b);
    let pairs = cases(6, |r| (gen::obb(r, &p), gen::obb(r, &p)), overlap);
    let depth = |c: Option<Contact>| c.map_or(0, |c| bits(c.depth));
    workload(
        c,
        "gjk/contact_obb_obb",
        &pairs,
        |a, b| depth(contact_convex(a, b, 0.0)),
        parry_depth,
        |a, b| depth(contact_obb_obb(a, b)),
    );
}

criterion_group!(benches, distance, contact);
criterion_main!(benches);
