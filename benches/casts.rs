//! Ray-cast, swept-sphere and convex shape-cast benchmarks: every `cast_*`
//! function of proxima that has a parry3d 0.31 counterpart, side by side on
//! the same seeded inputs.
//!
//! Each workload pre-generates `CASES` rays or sweeps aimed near random
//! shapes (about half of them hit, as in the differential tests of
//! `crates/narrowphase/tests/cast_*.rs`) and converts them once to parry's
//! types; one criterion iteration runs the whole batch and folds every
//! answer (the bits of its `toi` and normal, 0 for a miss) into a `u32` checksum
//! passed through `black_box`, so no call can be dropped (the normal and,
//! for sweeps, the contact point are folded in too, so their computation is
//! not dropped either).
//! `Throughput::Elements(CASES)` makes criterion report the time per call.
//! Ids are `cast/<workload>/<implementation>` with implementation `proxima`
//! or `parry3d` (scripts/bench_report.py pairs them).
//!
//! parry is called through its public entry points, as a user would:
//! `RayCast::cast_ray_and_get_normal` (solid) on the shape with its `Pose`
//! (proxima's ray casts also return the normal), and `query::cast_shapes`
//! with `ShapeCastOptions::with_max_time_of_impact(1.0)` for the sweeps.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use parry3d::math::{Pose, Vector as PVec};
use parry3d::query::{self, Ray as PRay, RayCast, ShapeCastOptions};
use parry3d::shape::Shape;
use proxima::narrowphase::*;
use proxima_test_support::convert as cv;
use proxima_test_support::gen::{self, Placement};
use proxima_test_support::SmallRng;
use std::hint::black_box;

#[path = "../examples/support/placed_hull.rs"]
mod placed_hull;
use placed_hull::placed_hull;

/// Cases per batch (one criterion iteration).
const CASES: usize = 4096;

/// Shapes of sizes 0.1..1 with centres in `[-2, 2]^3`.
fn place() -> Placement {
    Placement::new(2.0, 0.1, 1.0)
}

/// `CASES` seeded values.
fn cases<T>(seed: u64, mut f: impl FnMut(&mut SmallRng) -> T) -> Vec<T> {
    let mut rng = proxima_test_support::rng(seed);
    (0..CASES).map(|_| f(&mut rng)).collect()
}

/// A ray from up to 6 units away aimed within `reach` of `aim`, with a
/// `max_toi` between half and twice the distance to that point.
fn ray_towards(rng: &mut SmallRng, aim: &Point, reach: Real) -> Ray {
    let origin = aim + gen::unit_vector(rng) * gen::uniform(rng, 1.0, 6.0);
    let target = aim + gen::unit_vector(rng) * gen::uniform(rng, 0.0, reach);
    let d = target - origin;
    Ray::new(origin, d.normalize(), d.norm() * gen::uniform(rng, 0.5, 2.0))
}

/// A sphere of radius 0.05..0.5 starting up to 6 units from `aim`, moving
/// towards a point within `reach` of it (motion 0.3..1.3 of the distance).
fn sweep_towards(rng: &mut SmallRng, aim: &Point, reach: Real) -> (Sphere, Vector) {
    let r = gen::uniform(rng, 0.05, 0.5);
    let start = aim + gen::unit_vector(rng) * gen::uniform(rng, 0.5, 6.0);
    let target = aim + gen::unit_vector(rng) * gen::uniform(rng, 0.0, 1.5 * (reach + r));
    (Sphere::new(start, r), (target - start) * gen::uniform(rng, 0.3, 1.3))
}

/// The checksum term of a hit: the bits of its toi plus those of one
/// component of its normal (and of its contact point for sweeps), so that
/// the geometry is computed, not dropped as unused; 0 for a miss.
#[inline]
fn bits(hit: Option<[f32; 3]>) -> u32 {
    hit.map_or(0, |h| h.iter().fold(0u32, |acc, x| acc.wrapping_add(x.to_bits())))
}

#[inline]
fn ray_bits(hit: Option<RayHit>) -> u32 {
    bits(hit.map(|h| [h.toi, h.normal.x, 0.0]))
}

#[inline]
fn sweep_bits(hit: Option<SweepHit>) -> u32 {
    bits(hit.map(|h| [h.toi, h.normal.x, h.point.x]))
}

/// Benchmarks one workload: `ours` over `a`, `theirs` over `b` (the same
/// cases converted), each call adding a `u32` to the checksum (integer
/// adds keep the checksum's dependency chain at one cycle per call).
fn pair<A, B>(c: &mut Criterion, id: &str, a: &[A], ours: impl Fn(&A) -> u32, b: &[B], theirs: impl Fn(&B) -> u32) {
    let mut g = c.benchmark_group(id);
    g.throughput(Throughput::Elements(a.len() as u64));
    g.bench_function("proxima", |bench| {
        bench.iter(|| black_box(black_box(a).iter().map(&ours).fold(0u32, u32::wrapping_add)))
    });
    g.bench_function("parry3d", |bench| {
        bench.iter(|| black_box(black_box(b).iter().map(&theirs).fold(0u32, u32::wrapping_add)))
    });
    g.finish();
}

/// A ray in parry's form with its `max_toi`.
fn p_ray(ray: &Ray) -> (PRay, Real) {
    (PRay::new(cv::pt(ray.origin()), cv::vec(ray.dir())), ray.max_toi())
}

/// parry's solid ray cast with normal, as the checksum term.
#[inline]
fn p_cast(shape: &impl RayCast, pose: &Pose, ray: &(PRay, Real)) -> u32 {
    bits(shape.cast_ray_and_get_normal(pose, &ray.0, ray.1, true).map(|h| [h.time_of_impact, h.normal.x, 0.0]))
}

/// A sweep in parry's form: the moving ball and its velocity, the target's
/// pose, velocity and shape.
struct PSweep<S> {
    pose1: Pose,
    ball: parry3d::shape::Ball,
    vel1: PVec,
    pose2: Pose,
    vel2: PVec,
    target: S,
}

impl<S: Shape> PSweep<S> {
    fn new(sphere: &Sphere, motion: &Vector, (pose2, target): (Pose, S), motion2: &Vector) -> Self {
        let (pose1, ball) = cv::ball(sphere);
        Self { pose1, ball, vel1: cv::vec(motion), pose2, vel2: cv::vec(motion2), target }
    }

    #[inline]
    fn toi(&self) -> u32 {
        let opts = ShapeCastOptions::with_max_time_of_impact(1.0);
        let hit = query::cast_shapes(&self.pose1, self.vel1, &self.ball, &self.pose2, self.vel2, &self.target, opts)
            .expect("supported");
        bits(hit.map(|h| [h.time_of_impact, h.normal1.x, h.witness1.x]))
    }
}

fn rays(c: &mut Criterion) {
    let p = place();
    let v = cases(1, |r| {
        let b = gen::obb(r, &p);
        (ray_towards(r, b.center(), 1.5 * b.half_extents().amax()), b)
    });
    let w: Vec<_> = v.iter().map(|(ray, b)| (p_ray(ray), cv::cuboid(b))).collect();
    pair(
        c,
        "cast/ray_obb",
        &v,
        |(ray, b)| ray_bits(cast_ray_obb(ray, b)),
        &w,
        |(ray, (pose, cuboid))| p_cast(cuboid, pose, ray),
    );

    let v = cases(2, |r| {
        let s = gen::sphere(r, &p);
        (ray_towards(r, s.center(), 1.6 * s.radius()), s)
    });
    let w: Vec<_> = v.iter().map(|(ray, s)| (p_ray(ray), cv::ball(s))).collect();
    pair(
        c,
        "cast/ray_sphere",
        &v,
        |(ray, s)| ray_bits(cast_ray_sphere(ray, s)),
        &w,
        |(ray, (pose, ball))| p_cast(ball, pose, ray),
    );

    let v = cases(3, |r| {
        let b = gen::aabb(r, &p);
        (ray_towards(r, &b.center(), 1.5 * b.half_extents().amax()), b)
    });
    let w: Vec<_> = v.iter().map(|(ray, b)| (p_ray(ray), cv::aabb(b))).collect();
    let id = Pose::identity();
    pair(c, "cast/ray_aabb", &v, |(ray, b)| ray_bits(cast_ray_aabb(ray, b)), &w, |(ray, aabb)| p_cast(aabb, &id, ray));

    let v = cases(4, |r| {
        let cap = gen::capsule(r, &p);
        let aim = nalgebra::center(cap.a(), cap.b());
        (ray_towards(r, &aim, 0.5 * (cap.b() - cap.a()).norm() + 1.6 * cap.radius()), cap)
    });
    let w: Vec<_> = v.iter().map(|(ray, cap)| (p_ray(ray), cv::capsule(cap))).collect();
    pair(
        c,
        "cast/ray_capsule",
        &v,
        |(ray, cap)| ray_bits(cast_ray_capsule(ray, cap)),
        &w,
        |(ray, (pose, capsule))| p_cast(capsule, pose, ray),
    );

    let v = cases(5, |r| {
        let tri = gen::triangle(r, &p);
        let centroid = Point::from((tri.a().coords + tri.b().coords + tri.c().coords) / 3.0);
        let reach = tri.vertices().iter().map(|v| (v - centroid).norm()).fold(0.0, Real::max);
        (ray_towards(r, &centroid, 0.7 * reach), tri)
    });
    let w: Vec<_> = v.iter().map(|(ray, tri)| (p_ray(ray), cv::triangle(tri))).collect();
    pair(
        c,
        "cast/ray_triangle",
        &v,
        |(ray, tri)| ray_bits(cast_ray_triangle(ray, tri)),
        &w,
        |(ray, (pose, t))| p_cast(t, pose, ray),
    );
}

fn sweeps(c: &mut Criterion) {
    let p = place();
    let zero = Vector::zeros();
    let v = cases(11, |r| {
        let b = gen::sphere(r, &p);
        let (s, m) = sweep_towards(r, b.center(), b.radius());
        (s, m, b)
    });
    let w: Vec<_> = v.iter().map(|(s, m, b)| PSweep::new(s, m, cv::ball(b), &zero)).collect();
    pair(c, "cast/sweep_sphere_sphere", &v, |(s, m, b)| sweep_bits(cast_sphere_sphere(s, m, b)), &w, PSweep::toi);

    let v = cases(12, |r| {
        let b = gen::sphere(r, &p);
        let (s, rel) = sweep_towards(r, b.center(), b.radius());
        let mb = gen::unit_vector(r) * gen::uniform(r, 0.0, 2.0);
        (s, rel + mb, b, mb)
    });
    let w: Vec<_> = v.iter().map(|(s, ma, b, mb)| PSweep::new(s, ma, cv::ball(b), mb)).collect();
    pair(
        c,
        "cast/sweep_sphere_sphere_moving",
        &v,
        |(s, ma, b, mb)| sweep_bits(cast_sphere_moving_sphere(s, ma, b, mb)),
        &w,
        PSweep::toi,
    );

    let v = cases(13, |r| {
        let b = gen::obb(r, &p);
        let (s, m) = sweep_towards(r, b.center(), b.half_extents().norm());
        (s, m, b)
    });
    let w: Vec<_> = v.iter().map(|(s, m, b)| PSweep::new(s, m, cv::cuboid(b), &zero)).collect();
    pair(c, "cast/sweep_sphere_obb", &v, |(s, m, b)| sweep_bits(cast_sphere_obb(s, m, b)), &w, PSweep::toi);

    let v = cases(14, |r| {
        let b = gen::aabb(r, &p);
        let (s, m) = sweep_towards(r, &b.center(), b.half_extents().norm());
        (s, m, b)
    });
    let w: Vec<_> = v.iter().map(|(s, m, b)| PSweep::new(s, m, cv::aabb_cuboid(b), &zero)).collect();
    pair(c, "cast/sweep_sphere_aabb", &v, |(s, m, b)| sweep_bits(cast_sphere_aabb(s, m, b)), &w, PSweep::toi);

    let v = cases(15, |r| {
        let cap = gen::capsule(r, &p);
        let aim = nalgebra::center(cap.a(), cap.b());
        let (s, m) = sweep_towards(r, &aim, 0.5 * (cap.b() - cap.a()).norm() + cap.radius());
        (s, m, cap)
    });
    let w: Vec<_> = v.iter().map(|(s, m, cap)| PSweep::new(s, m, cv::capsule(cap), &zero)).collect();
    pair(c, "cast/sweep_sphere_capsule", &v, |(s, m, cap)| sweep_bits(cast_sphere_capsule(s, m, cap)), &w, PSweep::toi);

    let v = cases(16, |r| {
        let tri = gen::triangle(r, &p);
        let centroid = Point::from((tri.a().coords + tri.b().coords + tri.c().coords) / 3.0);
        let reach = tri.vertices().iter().map(|v| (v - centroid).norm()).fold(0.0, Real::max);
        let (s, m) = sweep_towards(r, &centroid, 0.6 * reach);
        (s, m, tri)
    });
    let w: Vec<_> = v.iter().map(|(s, m, tri)| PSweep::new(s, m, cv::triangle(tri), &zero)).collect();
    pair(
        c,
        "cast/sweep_sphere_triangle",
        &v,
        |(s, m, tri)| sweep_bits(cast_sphere_triangle(s, m, tri)),
        &w,
        PSweep::toi,
    );
}

/// A motion from `from` towards `to` (0.3..1.3 of the way, plus up to 1 unit
/// aside): about half the casts hit.
fn motion_towards(rng: &mut SmallRng, from: &Point, to: &Point) -> Vector {
    (to - from) * gen::uniform(rng, 0.3, 1.3) + gen::unit_vector(rng) * gen::uniform(rng, 0.0, 1.0)
}

/// A linear cast in parry's form: both shapes with their poses, A's velocity.
struct PCast {
    pose1: Pose,
    shape1: Box<dyn Shape>,
    vel1: PVec,
    pose2: Pose,
    shape2: Box<dyn Shape>,
}

impl PCast {
    fn new<A: Shape + 'static, B: Shape + 'static>(
        (pose1, a): (Pose, A),
        motion: &Vector,
        (pose2, b): (Pose, B),
    ) -> Self {
        Self { pose1, shape1: Box::new(a), vel1: cv::vec(motion), pose2, shape2: Box::new(b) }
    }

    #[inline]
    fn toi(&self) -> u32 {
        let opts = ShapeCastOptions::with_max_time_of_impact(1.0);
        let zero = PVec::ZERO;
        let hit = query::cast_shapes(&self.pose1, self.vel1, &*self.shape1, &self.pose2, zero, &*self.shape2, opts)
            .expect("supported");
        bits(hit.map(|h| [h.time_of_impact, h.normal1.x, h.witness1.x]))
    }
}

/// Convex shape casts (the pair kernels of `Scene::cast_shape`: the closed
/// form `cast_obb_obb` for two boxes, `cast_shape_convex` for the others)
/// against parry's `cast_shapes`: box-box (both rotated; also through the
/// generic `cast_shape_convex`), capsule-box, hull-hull.
fn shape_casts(c: &mut Criterion) {
    let p = place();
    let v = cases(21, |r| {
        let (a, b) = (gen::obb(r, &p), gen::obb(r, &p));
        let m = motion_towards(r, a.center(), b.center());
        (a, m, b)
    });
    let w: Vec<_> = v.iter().map(|(a, m, b)| PCast::new(cv::cuboid(a), m, cv::cuboid(b))).collect();
    pair(c, "cast/shape_box_box", &v, |(a, m, b)| sweep_bits(cast_obb_obb(a, m, b)), &w, PCast::toi);
    pair(c, "cast/shape_box_box_gjk", &v, |(a, m, b)| sweep_bits(cast_shape_convex(a, m, b)), &w, PCast::toi);

    let v = cases(22, |r| {
        let (a, b) = (gen::capsule(r, &p), gen::obb(r, &p));
        let m = motion_towards(r, &nalgebra::center(a.a(), a.b()), b.center());
        (a, m, b)
    });
    let w: Vec<_> = v.iter().map(|(a, m, b)| PCast::new(cv::capsule(a), m, cv::cuboid(b))).collect();
    pair(c, "cast/shape_capsule_box", &v, |(a, m, b)| sweep_bits(cast_shape_convex(a, m, b)), &w, PCast::toi);

    let v = cases(23, |r| {
        let (a, b) = (placed_hull(r, &p), placed_hull(r, &p));
        let m = motion_towards(r, &a.core_center(), &b.core_center());
        (a, m, b)
    });
    let w: Vec<_> = v
        .iter()
        .map(|(a, m, b)| PCast::new(cv::convex_hull(a.hull, &a.pose), m, cv::convex_hull(b.hull, &b.pose)))
        .collect();
    pair(c, "cast/shape_hull_hull", &v, |(a, m, b)| sweep_bits(cast_shape_convex(a, m, b)), &w, PCast::toi);
}

criterion_group!(benches, rays, sweeps, shape_casts);
criterion_main!(benches);
