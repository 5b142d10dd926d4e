//! Narrowphase benchmarks: every overlap, contact and closest-point function
//! of proxima next to its parry3d 0.31 counterpart, on the same seeded inputs.
//!
//! Each workload pre-generates `CASES` random pairs (placed so that about
//! half intersect, as in the differential tests) and converts them once to
//! parry's types; one criterion iteration runs the whole batch and folds the
//! answers into a checksum passed through `black_box`, so no call can be
//! dropped. `Throughput::Elements(CASES)` makes criterion report the time per
//! call. Ids are `<area>/<workload>/<implementation>` with implementation
//! `proxima` or `parry3d` (scripts/bench_report.py pairs them).
//!
//! parry is called through its public entry points, as a user would:
//! `query::intersection_test` / `query::contact` (prediction 0) with a `Pose`
//! per shape, `PointQuery::project_point`, `BoundingVolume::intersects` for
//! its AABB, `query::details::closest_points_segment_segment` and
//! `query::details::contact_manifold_cuboid_cuboid`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use parry3d::bounding_volume::BoundingVolume;
use parry3d::math::Pose;
use parry3d::query::{self, PointQuery};
use parry3d::shape::{Ball, Cuboid, Segment, Shape, Triangle as PTriangle};
use proxima::narrowphase::*;
use proxima_test_support::convert as cv;
use proxima_test_support::gen::{self, Placement};
use proxima_test_support::SmallRng;
use std::hint::black_box;

/// Cases per batch (one criterion iteration).
const CASES: usize = 4096;

/// Shapes of sizes 0.05..1.5 with centres in `[-spread, spread]^3`.
fn near(spread: Real) -> Placement {
    Placement::new(spread, 0.05, 1.5)
}

/// `CASES` seeded values. `PROXIMA_BENCH_SEED=k` shifts every workload's
/// seed by `1000 k`, to re-measure on inputs the default run never saw.
fn cases<T>(seed: u64, mut f: impl FnMut(&mut SmallRng) -> T) -> Vec<T> {
    let shift: u64 = std::env::var("PROXIMA_BENCH_SEED").ok().and_then(|k| k.parse().ok()).unwrap_or(0);
    let mut rng = proxima_test_support::rng(seed + 1000 * shift);
    (0..CASES).map(|_| f(&mut rng)).collect()
}

/// Two shapes as parry sees them.
struct Pp<A, B> {
    p1: Pose,
    g1: A,
    p2: Pose,
    g2: B,
}

impl<A: Shape, B: Shape> Pp<A, B> {
    fn new((p1, g1): (Pose, A), (p2, g2): (Pose, B)) -> Self {
        Self { p1, g1, p2, g2 }
    }

    #[inline]
    fn intersects(&self) -> bool {
        query::intersection_test(&self.p1, &self.g1, &self.p2, &self.g2).expect("supported").intersecting
    }

    #[inline]
    fn depth(&self) -> u32 {
        match query::contact(&self.p1, &self.g1, &self.p2, &self.g2, 0.0).expect("supported") {
            Some(c) => bits(-c.dist),
            None => 0,
        }
    }
}

/// Benchmarks one workload: `ours` over `a`, `theirs` over `b` (the same
/// cases converted), each call contributing a `u32` to the checksum: a hit
/// count for booleans, the bits of an `f32` result otherwise. Integer sums
/// keep the checksum's dependency chain at one cycle per call (an `f32`
/// sum cannot be reordered and would cost its 3-4 cycle add latency per
/// element, as much as the cheapest queries themselves).
fn pair<A, B>(c: &mut Criterion, id: &str, a: &[A], ours: impl Fn(&A) -> u32, b: &[B], theirs: impl Fn(&B) -> u32) {
    let mut g = c.benchmark_group(id);
    // One element per pair (parry's list): `a` may hold several pairs an item.
    g.throughput(Throughput::Elements(b.len() as u64));
    g.bench_function("proxima", |bench| {
        bench.iter(|| black_box(black_box(a).iter().map(&ours).fold(0u32, u32::wrapping_add)))
    });
    g.bench_function("parry3d", |bench| {
        bench.iter(|| black_box(black_box(b).iter().map(&theirs).fold(0u32, u32::wrapping_add)))
    });
    g.finish();
}

/// The point count of a manifold (the checksum of the manifold rows).
#[inline]
fn count(m: Option<ContactManifold>) -> u32 {
    m.map_or(0, |m| m.len() as u32)
}

/// A manifold row: proxima's function against parry's
/// `DefaultQueryDispatcher::contact_manifolds` on the same pairs, with the
/// same prediction; the checksum is the number of points.
fn manifold_pair<A, B: Shape, C: Shape>(
    c: &mut Criterion,
    id: &str,
    a: &[A],
    ours: impl Fn(&A) -> u32,
    b: &[Pp<B, C>],
    prediction: Real,
) {
    use parry3d::query::PersistentQueryDispatcher;
    let mut g = c.benchmark_group(id);
    // One element per pair (parry's list): `a` may hold several pairs an item.
    g.throughput(Throughput::Elements(b.len() as u64));
    g.bench_function("proxima", |bench| {
        bench.iter(|| black_box(black_box(a).iter().map(&ours).fold(0u32, u32::wrapping_add)))
    });
    g.bench_function("parry3d", |bench| {
        let mut manifolds: Vec<query::ContactManifold<(), ()>> = Vec::new();
        bench.iter(|| {
            black_box(b).iter().fold(0u32, |acc, x| {
                manifolds.clear();
                let pos12 = x.p1.inv_mul(&x.p2);
                query::DefaultQueryDispatcher
                    .contact_manifolds(&pos12, &x.g1, &x.g2, prediction, &mut manifolds, &mut None)
                    .expect("supported");
                acc.wrapping_add(manifolds.iter().map(|m| m.points.len() as u32).sum::<u32>())
            })
        })
    });
    g.finish();
}

#[inline]
fn f(b: bool) -> u32 {
    b as u32
}

/// The bits of an `f32` result (the checksum term).
#[inline]
fn bits(x: f32) -> u32 {
    x.to_bits()
}

fn overlap(c: &mut Criterion) {
    let p = near(1.2);
    let v = cases(1, |r| (gen::aabb(r, &p), gen::aabb(r, &p)));
    let w: Vec<_> = v.iter().map(|(a, b)| (cv::aabb(a), cv::aabb(b))).collect();
    pair(c, "overlap/aabb_aabb", &v, |(a, b)| f(intersects_aabb_aabb(a, b)), &w, |(a, b)| f(a.intersects(b)));

    let v = cases(2, |r| (gen::sphere(r, &p), gen::sphere(r, &p)));
    let w: Vec<_> = v.iter().map(|(a, b)| Pp::new(cv::ball(a), cv::ball(b))).collect();
    pair(c, "overlap/sphere_sphere", &v, |(a, b)| f(intersects_sphere_sphere(a, b)), &w, |x| f(x.intersects()));

    let p = near(1.3);
    let v = cases(3, |r| (gen::sphere(r, &p), gen::aabb(r, &p)));
    let w: Vec<_> = v.iter().map(|(a, b)| Pp::new(cv::ball(a), cv::aabb_cuboid(b))).collect();
    pair(c, "overlap/sphere_aabb", &v, |(a, b)| f(intersects_sphere_aabb(a, b)), &w, |x| f(x.intersects()));

    let v = cases(4, |r| (gen::sphere(r, &p), gen::obb(r, &p)));
    let w: Vec<_> = v.iter().map(|(a, b)| Pp::new(cv::ball(a), cv::cuboid(b))).collect();
    pair(c, "overlap/sphere_obb", &v, |(a, b)| f(intersects_sphere_obb(a, b)), &w, |x| f(x.intersects()));

    let p = near(1.4);
    let v = cases(5, |r| (gen::sphere(r, &p), gen::capsule(r, &p)));
    let w: Vec<_> = v.iter().map(|(a, b)| Pp::new(cv::ball(a), cv::capsule(b))).collect();
    pair(c, "overlap/sphere_capsule", &v, |(a, b)| f(intersects_sphere_capsule(a, b)), &w, |x| f(x.intersects()));

    let p = near(1.6);
    let v = cases(6, |r| (gen::capsule(r, &p), gen::capsule(r, &p)));
    let w: Vec<_> = v.iter().map(|(a, b)| Pp::new(cv::capsule(a), cv::capsule(b))).collect();
    pair(c, "overlap/capsule_capsule", &v, |(a, b)| f(intersects_capsule_capsule(a, b)), &w, |x| f(x.intersects()));

    let p = near(1.5);
    let v = cases(7, |r| (gen::aabb(r, &p), gen::obb(r, &p)));
    let w: Vec<_> = v.iter().map(|(a, b)| Pp::new(cv::aabb_cuboid(a), cv::cuboid(b))).collect();
    pair(c, "overlap/aabb_obb", &v, |(a, b)| f(intersects_aabb_obb(a, b)), &w, |x| f(x.intersects()));

    let v = cases(8, |r| (gen::obb(r, &p), gen::obb(r, &p)));
    let w: Vec<_> = v.iter().map(|(a, b)| Pp::new(cv::cuboid(a), cv::cuboid(b))).collect();
    pair(c, "overlap/obb_obb", &v, |(a, b)| f(intersects_obb_obb(a, b)), &w, |x| f(x.intersects()));

    let p = near(0.9);
    let v = cases(9, |r| (gen::triangle(r, &p), gen::aabb(r, &p)));
    let w: Vec<_> = v.iter().map(|(a, b)| Pp::new(cv::triangle(a), cv::aabb_cuboid(b))).collect();
    pair(c, "overlap/triangle_aabb", &v, |(a, b)| f(intersects_aabb_triangle(b, a)), &w, |x| f(x.intersects()));

    let p = near(0.75);
    let v = cases(10, |r| (gen::sphere(r, &p), gen::triangle(r, &p)));
    let w: Vec<_> = v.iter().map(|(a, b)| Pp::new(cv::ball(a), cv::triangle(b))).collect();
    pair(c, "overlap/sphere_triangle", &v, |(a, b)| f(intersects_sphere_triangle(a, b)), &w, |x| f(x.intersects()));
}

/// The depth of a contact, 0 for none (the checksum term).
#[inline]
fn depth(c: Option<Contact>) -> u32 {
    c.map_or(0, |c| bits(c.depth))
}

fn contact(c: &mut Criterion) {
    let p = near(1.2);
    let v = cases(21, |r| (gen::sphere(r, &p), gen::sphere(r, &p)));
    let w: Vec<_> = v.iter().map(|(a, b)| Pp::new(cv::ball(a), cv::ball(b))).collect();
    pair(c, "contact/sphere_sphere", &v, |(a, b)| depth(contact_sphere_sphere(a, b)), &w, Pp::depth);

    let p = near(1.3);
    let v = cases(22, |r| (gen::sphere(r, &p), gen::aabb(r, &p)));
    let w: Vec<_> = v.iter().map(|(a, b)| Pp::new(cv::ball(a), cv::aabb_cuboid(b))).collect();
    pair(c, "contact/sphere_aabb", &v, |(a, b)| depth(contact_sphere_aabb(a, b)), &w, Pp::depth);

    let v = cases(23, |r| (gen::sphere(r, &p), gen::obb(r, &p)));
    let w: Vec<_> = v.iter().map(|(a, b)| Pp::new(cv::ball(a), cv::cuboid(b))).collect();
    pair(c, "contact/sphere_obb", &v, |(a, b)| depth(contact_sphere_obb(a, b)), &w, Pp::depth);

    let p = near(1.4);
    let v = cases(24, |r| (gen::sphere(r, &p), gen::capsule(r, &p)));
    let w: Vec<_> = v.iter().map(|(a, b)| Pp::new(cv::ball(a), cv::capsule(b))).collect();
    pair(c, "contact/sphere_capsule", &v, |(a, b)| depth(contact_sphere_capsule(a, b)), &w, Pp::depth);

    let p = near(1.5);
    let v = cases(25, |r| (gen::obb(r, &p), gen::obb(r, &p)));
    let w: Vec<_> = v.iter().map(|(a, b)| Pp::new(cv::cuboid(a), cv::cuboid(b))).collect();
    pair(c, "contact/obb_obb", &v, |(a, b)| depth(contact_obb_obb(a, b)), &w, Pp::depth);

    // Manifolds: the point count is the checksum. parry's manifold is reused
    // and cleared before each pair (its spatial-coherence shortcut only
    // applies to the same pair across frames, and reuse avoids allocation).
    let mut g = c.benchmark_group("contact/obb_obb_manifold");
    g.throughput(Throughput::Elements(v.len() as u64));
    g.bench_function("proxima", |bench| {
        bench.iter(|| {
            black_box(&v).iter().fold(0u32, |acc, (a, b)| {
                acc.wrapping_add(contact_manifold_obb_obb(a, b, 0.0).map_or(0, |m| m.len() as u32))
            })
        })
    });
    g.bench_function("parry3d", |bench| {
        let mut manifold = query::ContactManifold::<(), ()>::new();
        bench.iter(|| {
            black_box(&w).iter().fold(0u32, |acc, x| {
                manifold.clear();
                let pos12 = x.p1.inv_mul(&x.p2);
                query::details::contact_manifold_cuboid_cuboid(&pos12, &x.g1, &x.g2, 0.0, &mut manifold);
                acc.wrapping_add(manifold.points.len() as u32)
            })
        })
    });
    g.finish();

    // The solver's everyday box-box case: a box resting on another, tilted
    // by up to 0.1 rad about a random axis, sunk 0..0.02 into it (four
    // clipped points nearly always).
    let v = cases(26, |r| {
        let (ha, hb) = (gen::half_extents(r, &p), gen::half_extents(r, &p));
        let a = Obb::new(Point::origin(), Rotation::identity(), ha);
        let tilt = Rotation::from_scaled_axis(gen::unit_vector(r) * gen::uniform(r, 0.0, 0.1));
        let spin = Rotation::from_axis_angle(&Vector::z_axis(), gen::uniform(r, -3.2, 3.2));
        let rot = tilt * spin;
        let slide = Vector::new(gen::uniform(r, -ha.x, ha.x), gen::uniform(r, -ha.y, ha.y), 0.0);
        // B's lowest point along z: its support extent below its centre.
        let reach = (rot.to_rotation_matrix().matrix().abs() * hb).z;
        let sink = gen::uniform(r, 0.0, 0.02);
        let b = Obb::new(Point::from(slide + Vector::z() * (ha.z + reach - sink)), rot, hb);
        (a, b)
    });
    let w: Vec<_> = v.iter().map(|(a, b)| Pp::new(cv::cuboid(a), cv::cuboid(b))).collect();
    let mut g = c.benchmark_group("contact/obb_obb_manifold_resting");
    g.throughput(Throughput::Elements(v.len() as u64));
    g.bench_function("proxima", |bench| {
        bench.iter(|| {
            black_box(&v).iter().fold(0u32, |acc, (a, b)| {
                acc.wrapping_add(contact_manifold_obb_obb(a, b, 0.0).map_or(0, |m| m.len() as u32))
            })
        })
    });
    g.bench_function("parry3d", |bench| {
        let mut manifold = query::ContactManifold::<(), ()>::new();
        bench.iter(|| {
            black_box(&w).iter().fold(0u32, |acc, x| {
                manifold.clear();
                let pos12 = x.p1.inv_mul(&x.p2);
                query::details::contact_manifold_cuboid_cuboid(&pos12, &x.g1, &x.g2, 0.0, &mut manifold);
                acc.wrapping_add(manifold.points.len() as u32)
            })
        })
    });
    g.finish();

    // Manifolds of the other pairs a solver meets, with a prediction of
    // 0.02 (speculative points) on both sides; parry through its
    // dispatcher, as rapier calls it, into a reused `Vec` cleared per pair.
    let prediction = 0.02;
    let p = near(1.4);
    let v = cases(27, |r| (gen::capsule(r, &p), gen::capsule(r, &p)));
    let w: Vec<_> = v.iter().map(|(a, b)| Pp::new(cv::capsule(a), cv::capsule(b))).collect();
    let ours = |(a, b): &(Capsule, Capsule)| count(contact_manifold_capsule_capsule(a, b, prediction));
    manifold_pair(c, "contact/capsule_capsule_manifold", &v, ours, &w, prediction);
    let v = cases(28, |r| (gen::capsule(r, &p), gen::obb(r, &p)));
    let w: Vec<_> = v.iter().map(|(a, b)| Pp::new(cv::capsule(a), cv::cuboid(b))).collect();
    let ours = |(a, b): &(Capsule, Obb)| count(contact_manifold_capsule_obb(a, b, prediction));
    manifold_pair(c, "contact/capsule_obb_manifold", &v, ours, &w, prediction);
    let v = cases(29, |r| (gen::obb(r, &p), gen::triangle(r, &p)));
    let w: Vec<_> = v.iter().map(|(a, b)| Pp::new(cv::cuboid(a), cv::triangle(b))).collect();
    let ours = |(a, b): &(Obb, Triangle)| count(contact_manifold_obb_triangle(a, b, prediction));
    manifold_pair(c, "contact/obb_triangle_manifold", &v, ours, &w, prediction);
    // The same kind of pairs, eight triangles to a box, as a mesh hands them:
    // the lane kernel against parry3d's manifold of each pair.
    let v = cases(41, |r| (gen::obb(r, &p), core::array::from_fn::<_, 8, _>(|_| gen::triangle(r, &p))));
    let w: Vec<_> =
        v.iter().flat_map(|(a, t)| t.iter().map(move |b| Pp::new(cv::cuboid(a), cv::triangle(b)))).collect();
    let v: Vec<(Obb, kernels::TriangleLanes)> = v
        .iter()
        .map(|(a, t)| (*a, core::array::from_fn(|k| core::array::from_fn(|axis| t.map(|b| b.vertices()[k][axis])))))
        .collect();
    let ours = |(a, lanes): &(Obb, kernels::TriangleLanes)| {
        let mut points = 0u32;
        kernels::contact_manifolds_obb_triangle_x8(a, lanes, 0xff, prediction, |_, m| points += m.len() as u32);
        points
    };
    manifold_pair(c, "contact/obb_triangle_manifold_x8", &v, ours, &w, prediction);
    let v = cases(40, |r| (gen::capsule(r, &p), gen::triangle(r, &p)));
    let w: Vec<_> = v.iter().map(|(a, b)| Pp::new(cv::capsule(a), cv::triangle(b))).collect();
    let ours = |(a, b): &(Capsule, Triangle)| count(contact_manifold_capsule_triangle(a, b, prediction));
    manifold_pair(c, "contact/capsule_triangle_manifold", &v, ours, &w, prediction);
    let v = cases(30, |r| (gen::sphere(r, &p), gen::obb(r, &p)));
    let w: Vec<_> = v.iter().map(|(a, b)| Pp::new(cv::ball(a), cv::cuboid(b))).collect();
    let ours = |(a, b): &(Sphere, Obb)| count(contact_manifold_sphere_obb(a, b, prediction));
    manifold_pair(c, "contact/sphere_obb_manifold", &v, ours, &w, prediction);

    // B centred within 0.1 of A's centroid: about 46% of the pairs cross.
    let tv = cases(26, |r| {
        let a = gen::triangle(r, &near(1.0));
        let centroid = Point::from(a.vertices().iter().map(|p| p.coords).sum::<Vector>() / 3.0);
        (a, gen::triangle(r, &near(0.1).at(centroid)))
    });
    let tw: Vec<_> = tv.iter().map(|(a, b)| Pp::new(cv::triangle(a), cv::triangle(b))).collect();
    pair(c, "contact/triangle_triangle", &tv, |(a, b)| depth(contact_triangle_triangle(a, b)), &tw, Pp::depth);
}

/// A query point and a parry shape with its pose.
struct Pq<S> {
    pose: Pose,
    shape: S,
    point: parry3d::math::Vector,
}

impl<S: PointQuery> Pq<S> {
    #[inline]
    fn project_x(&self) -> u32 {
        bits(self.shape.project_point(&self.pose, self.point, true).point.x)
    }
}

fn closest(c: &mut Criterion) {
    let sp = near(0.5);
    let pts = Placement::new(0.8, 0.0, 0.0);

    let v = cases(31, |r| (gen::point(r, &pts), gen::aabb(r, &sp)));
    let w: Vec<_> = v
        .iter()
        .map(|(q, b)| {
            let (pose, shape) = cv::aabb_cuboid(b);
            Pq { pose, shape, point: cv::pt(q) }
        })
        .collect();
    pair(c, "closest/point_aabb", &v, |(q, b)| bits(closest_point_aabb(q, b).x), &w, Pq::<Cuboid>::project_x);

    let v = cases(32, |r| (gen::point(r, &pts), gen::obb(r, &sp)));
    let w: Vec<_> = v
        .iter()
        .map(|(q, b)| {
            let (pose, shape) = cv::cuboid(b);
            Pq { pose, shape, point: cv::pt(q) }
        })
        .collect();
    pair(c, "closest/point_obb", &v, |(q, b)| bits(closest_point_obb(q, b).x), &w, Pq::<Cuboid>::project_x);

    let v = cases(33, |r| (gen::point(r, &pts), gen::sphere(r, &sp)));
    let w: Vec<_> = v
        .iter()
        .map(|(q, s)| {
            let (pose, shape) = cv::ball(s);
            Pq { pose, shape, point: cv::pt(q) }
        })
        .collect();
    pair(c, "closest/point_sphere", &v, |(q, s)| bits(closest_point_sphere(q, s).x), &w, Pq::<Ball>::project_x);

    let v = cases(34, |r| (gen::point(r, &pts), gen::triangle(r, &sp)));
    let w: Vec<_> = v
        .iter()
        .map(|(q, t)| {
            let (pose, shape) = cv::triangle(t);
            Pq { pose, shape, point: cv::pt(q) }
        })
        .collect();
    pair(
        c,
        "closest/point_triangle",
        &v,
        |(q, t)| bits(closest_point_triangle(q, t).x),
        &w,
        Pq::<PTriangle>::project_x,
    );

    let v = cases(35, |r| {
        let k = gen::capsule(r, &sp);
        (gen::point(r, &pts), *k.a(), *k.b())
    });
    let w: Vec<_> = v
        .iter()
        .map(|(q, a, b)| Pq { pose: Pose::identity(), shape: Segment::new(cv::pt(a), cv::pt(b)), point: cv::pt(q) })
        .collect();
    pair(
        c,
        "closest/point_segment",
        &v,
        |(q, a, b)| bits(closest_point_segment(q, a, b).x),
        &w,
        Pq::<Segment>::project_x,
    );

    let sp = Placement::new(0.5, 0.2, 1.5);
    let v = cases(36, |r| (gen::capsule(r, &sp), gen::capsule(r, &sp)));
    let w: Vec<_> = v
        .iter()
        .map(|(a, b)| (Segment::new(cv::pt(a.a()), cv::pt(a.b())), Segment::new(cv::pt(b.a()), cv::pt(b.b()))))
        .collect();
    pair(
        c,
        "closest/segment_segment",
        &v,
        |(a, b)| {
            let ClosestPoints { point_a: x, point_b: y } = closest_points_segment_segment(a.a(), a.b(), b.a(), b.b());
            bits(x.x) ^ bits(y.x)
        },
        &w,
        |(a, b)| match query::details::closest_points_segment_segment(&Pose::identity(), a, b, f32::MAX) {
            query::ClosestPoints::WithinMargin(x, y) => bits(x.x) ^ bits(y.x),
            _ => 0,
        },
    );
}

criterion_group!(benches, overlap, contact, closest);
criterion_main!(benches);
