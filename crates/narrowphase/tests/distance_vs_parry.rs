//! Differential tests of the `distance_*` functions against parry3d 0.31's
//! `query::distance` (the distance) and `query::closest_points` (the points,
//! when the shapes are apart), plus the conventions of [`ShapeDistance`]:
//! `point_a` on A and `point_b` on B (measured by parry's
//! `PointQuery::distance_to_point` on the solid shapes), `|point_a - point_b|
//! = distance`, and `point_a == point_b` when the distance is 0.
//!
//! Each function runs `CASES` (100,000) seeded pairs of shapes of size
//! 0.1..1 near the origin, placed so that 30-70% of them overlap (parry's
//! distance is 0).
//!
//! Tolerance `TOL = 1e-4` (absolute) on the conventions and on the distance
//! where parry is exact. Coordinates are below ~3, where one f32 rounding is
//! ~2.4e-7; our side is closed form, and the measured errors (points off
//! their shapes, `|pa - pb| - distance`, distance against parry's closed
//! forms) stay below ~1.3e-5. parry's GJK (capsule against anything but a
//! sphere, boxes against rotated boxes, triangles) stops at a tolerance: its
//! distance runs up to ~1e-2 above ours, so there the distance is pinned by a
//! slab certificate instead (see [`run`]), which is independent of parry.

mod common_np;

use common_np::{point_triangle_distance_f64, segment_segment_distance_f64, v64, V64};
use parry3d::math::Pose;
use parry3d::query;
use parry3d::shape::Shape;
use proxima_narrowphase::*;
use proxima_test_support::convert as cv;
use proxima_test_support::gen::{self, Placement};
use proxima_test_support::SmallRng;
use std::fmt::Debug;

/// Cases per function.
const CASES: usize = 100_000;

/// Absolute tolerance on distances and on points (see the module comment).
const TOL: Real = 1e-4;

/// A proxima shape as the parry shape and pose it is tested against.
trait ToParry: Debug {
    fn parry(&self) -> (Pose, Box<dyn Shape>);

    /// The support function `max over the shape of n . x`, in f64.
    fn support(&self, n: &V64) -> f64;

    /// Distance from `p` to the solid shape (0 inside), by parry.
    fn distance_to(&self, p: &Point) -> Real {
        let (pose, s) = self.parry();
        s.distance_to_point(&pose, cv::pt(p), true)
    }
}

impl ToParry for Sphere {
    fn support(&self, n: &V64) -> f64 {
        v64(self.center()).dot(n) + self.radius() as f64
    }
    fn parry(&self) -> (Pose, Box<dyn Shape>) {
        let (p, s) = cv::ball(self);
        (p, Box::new(s))
    }
}
impl ToParry for Capsule {
    fn support(&self, n: &V64) -> f64 {
        v64(self.a()).dot(n).max(v64(self.b()).dot(n)) + self.radius() as f64
    }
    fn parry(&self) -> (Pose, Box<dyn Shape>) {
        let (p, s) = cv::capsule(self);
        (p, Box::new(s))
    }
}
impl ToParry for Aabb {
    fn support(&self, n: &V64) -> f64 {
        v64(&self.center()).dot(n) + self.half_extents().cast::<f64>().dot(&n.abs())
    }
    fn parry(&self) -> (Pose, Box<dyn Shape>) {
        let (p, s) = cv::aabb_cuboid(self);
        (p, Box::new(s))
    }
}
impl ToParry for Obb {
    fn support(&self, n: &V64) -> f64 {
        v64(self.center()).dot(n)
            + (0..3)
                .map(|i| self.half_extents()[i] as f64 * self.axes().column(i).into_owned().cast::<f64>().dot(n).abs())
                .sum::<f64>()
    }
    fn parry(&self) -> (Pose, Box<dyn Shape>) {
        let (p, s) = cv::cuboid(self);
        (p, Box::new(s))
    }
}
impl ToParry for Triangle {
    fn support(&self, n: &V64) -> f64 {
        self.vertices().iter().map(|v| v64(v).dot(n)).fold(f64::NEG_INFINITY, f64::max)
    }
    fn parry(&self) -> (Pose, Box<dyn Shape>) {
        let (p, s) = cv::triangle(self);
        (p, Box::new(s))
    }
}

/// parry's distance between two shapes.
fn parry_distance<A: ToParry, B: ToParry>(a: &A, b: &B) -> Real {
    let ((pa, sa), (pb, sb)) = (a.parry(), b.parry());
    query::distance(&pa, &*sa, &pb, &*sb).expect("parry supports the pair").distance
}

/// parry's closest points, `None` when parry calls the shapes intersecting.
fn parry_points<A: ToParry, B: ToParry>(a: &A, b: &B) -> Option<(Point, Point)> {
    let ((pa, sa), (pb, sb)) = (a.parry(), b.parry());
    match query::closest_points(&pa, &*sa, &pb, &*sb, 1e9).expect("parry supports the pair") {
        query::ClosestPoints::WithinMargin(p, q) => Some((cv::from_pt(p), cv::from_pt(q))),
        _ => None,
    }
}

/// The violations of the conventions by one result, with the tolerance `tol`:
/// returns the errors `(on A, on B, |pa - pb| - distance)`.
fn convention_errors<A: ToParry, B: ToParry>(a: &A, b: &B, d: &ShapeDistance) -> (Real, Real, Real) {
    let gap = (d.point_a - d.point_b).norm();
    (a.distance_to(&d.point_a), b.distance_to(&d.point_b), (gap - d.distance).abs())
}

/// The lower bound on the distance certified by the direction of our pair:
/// for a unit `n`, the slab between `max_A n.x` and `min_B n.x` separates the
/// shapes, so their distance is at least `min_B n.x - max_A n.x` (convex
/// duality: equality holds for the true closest pair). In f64.
fn certified_lower_bound<A: ToParry, B: ToParry>(a: &A, b: &B, d: &ShapeDistance) -> f64 {
    let n = v64(&d.point_b) - v64(&d.point_a);
    let len = n.norm();
    if len == 0.0 {
        return 0.0;
    }
    let n = n / len;
    -b.support(&-n) - a.support(&n)
}

/// The largest errors of a run.
#[derive(Debug, Default)]
struct Report {
    overlap_fraction: f64,
    /// Largest `|ours - parry|`.
    vs_parry: Real,
    /// Largest `parry - ours`: parry's GJK stops short of the minimum.
    vs_parry_short: Real,
    /// Cases parry calls intersecting that we prove apart.
    parry_overlap_ours_apart: usize,
    /// Largest `ours - certified lower bound`.
    vs_certificate: f64,
    on_a: Real,
    on_b: Real,
    gap: Real,
    /// Largest distance of our points from parry's, over separated cases.
    points: Real,
    /// Separated cases whose points differ from parry's by more than `TOL`
    /// (a closest pair is not unique for parallel features, and parry's GJK
    /// points are only as close as its distance).
    points_differ: usize,
}

/// How closely parry's answer is expected to match.
#[derive(Clone, Copy, Debug)]
struct Parry {
    /// parry's distance may exceed ours by this much more than `TOL` (its GJK
    /// stops at a tolerance; 0 for closed forms).
    slack: Real,
    /// Separated cases allowed to have points off parry's by more than `TOL`.
    points_differ: usize,
}

/// parry answers in closed form: distance and points within `TOL`.
const EXACT: Parry = Parry { slack: 0.0, points_differ: 0 };
/// parry answers by GJK: its distance up to `2e-2` above ours (measured: below
/// `1e-2` on capsule pairs, `1.3e-3` on polytope pairs); points not compared
/// (they carry the same error, and parallel features have many closest pairs).
const GJK: Parry = Parry { slack: 2e-2, points_differ: CASES };
/// Axis-aligned boxes: parry's distance is exact, its closest pair one of many
/// (faces of two AABBs are parallel).
const AABBS: Parry = Parry { slack: 0.0, points_differ: CASES };

/// The slab certificate is checked from this distance up.
const CERT_MIN_DISTANCE: Real = 1e-2;
/// Tolerance of the slab certificate, at least this. Where the minimum is
/// flat along a feature (nearly parallel edges or faces), the distance near
/// it is `f(s) ~ d + s^2 / (2 d)` along the feature (curvature at most
/// `1 / d`), so the f32 rounding `eps L` of the distances (`L` the shapes'
/// size, ~1.5 here) pins the closest points only to `s ~ sqrt(2 eps L d)`,
/// which tilts their direction by `s / d = sqrt(2 eps L / d)` and lowers the
/// slab's bound by about `L` times that: [`cert_tol`] allows
/// `CERT_FLAT sqrt(eps / d)` with `CERT_FLAT = 4 >= 1.5 L^1.5 sqrt 2`.
/// (Two cases at d = 0.77 and 0.095 sat at 1.01e-3 and 2.5e-3.)
const CERT_TOL: Real = 1e-3;
const CERT_FLAT: f64 = 4.0;

/// The slab certificate's tolerance at distance `d` (see [`CERT_TOL`]).
fn cert_tol(d: Real) -> f64 {
    (CERT_TOL as f64).max(CERT_FLAT * (f64::from(f32::EPSILON) / f64::from(d)).sqrt())
}

/// Runs `CASES` seeded pairs and checks, for each:
/// - the conventions: `point_a` on A, `point_b` on B, `|point_a - point_b| =
///   distance` (within `TOL`), `point_a == point_b` when the distance is 0;
/// - optimality: the distance is at most `TOL` above the lower bound that
///   the slab normal to `point_b - point_a` certifies, within [`cert_tol`] from
///   `CERT_MIN_DISTANCE` up (with the points on the shapes, this pins the
///   distance from both sides, independently of parry);
/// - parry: `ours <= parry + TOL` (parry's points are on the shapes, so its
///   distance is an upper bound) and `ours >= parry - slack - TOL`; the
///   points within `TOL` of parry's except in `points_differ` cases; where
///   parry calls a pair overlapping and ours is apart by more than `TOL`, the
///   slab must prove ours, or (triangle pairs, below `CERT_MIN_DISTANCE`) an
///   f64 distance agree with it within `TOL`;
/// - an overlapping fraction (parry's distance 0) in `[0.3, 0.7]`.
fn run<A: ToParry, B: ToParry>(
    name: &str,
    seed: u64,
    gen: impl FnMut(&mut SmallRng) -> (A, B),
    ours: impl Fn(&A, &B) -> ShapeDistance,
    parry: Parry,
) -> Report {
    run_with_oracle(name, seed, gen, ours, parry, None)
}

/// [`run`], with an f64 distance `exact` that decides the cases parry calls
/// overlapping and ours apart below `CERT_MIN_DISTANCE`, where the slab's
/// direction is too noisy to certify: ours must then be within `TOL` of it.
fn run_with_oracle<A: ToParry, B: ToParry>(
    name: &str,
    seed: u64,
    mut gen: impl FnMut(&mut SmallRng) -> (A, B),
    ours: impl Fn(&A, &B) -> ShapeDistance,
    parry: Parry,
    exact: Option<fn(&A, &B) -> f64>,
) -> Report {
    let mut rng = proxima_test_support::rng(seed);
    let mut rep = Report::default();
    let mut failures = Vec::new();
    let mut overlaps = 0usize;
    for k in 0..CASES {
        let (a, b) = gen(&mut rng);
        let d = ours(&a, &b);
        let pd = parry_distance(&a, &b);
        overlaps += (pd == 0.0) as usize;
        let (ea, eb, eg) = convention_errors(&a, &b, &d);
        // Below CERT_MIN_DISTANCE the slab's direction is too noisy to certify
        // anything, and parry's answer (within TOL there) is the check.
        let cert =
            if d.distance >= CERT_MIN_DISTANCE { d.distance as f64 - certified_lower_bound(&a, &b, &d) } else { 0.0 };
        rep.vs_parry = rep.vs_parry.max((d.distance - pd).abs());
        if pd > 0.0 {
            rep.vs_parry_short = rep.vs_parry_short.max(pd - d.distance);
        }
        rep.vs_certificate = rep.vs_certificate.max(cert);
        rep.on_a = rep.on_a.max(ea);
        rep.on_b = rep.on_b.max(eb);
        rep.gap = rep.gap.max(eg);
        let mut bad =
            d.distance.is_nan() || d.distance < 0.0 || ea > TOL || eb > TOL || eg > TOL || cert > cert_tol(d.distance);
        if pd == 0.0 && d.distance > TOL {
            // parry calls them intersecting (its GJK stops within a tolerance
            // of contact) and has no points: the slab must prove them apart.
            rep.parry_overlap_ours_apart += 1;
            let by_oracle = exact.is_some_and(|f| {
                let e = f(&a, &b);
                e > 0.0 && (e - f64::from(d.distance)).abs() <= f64::from(TOL)
            });
            bad |= certified_lower_bound(&a, &b, &d) <= 0.0 && !by_oracle;
        } else {
            bad |= d.distance > pd + TOL || d.distance < pd - parry.slack - TOL;
        }
        bad |= d.distance == 0.0 && d.point_a != d.point_b;
        if pd > 0.0 {
            if let Some((pa, pb)) = parry_points(&a, &b) {
                let e = (pa - d.point_a).norm().max((pb - d.point_b).norm());
                rep.points = rep.points.max(e);
                rep.points_differ += (e > TOL) as usize;
            }
        }
        if bad {
            failures.push(format!(
                "case {k}: ours {d:?}, parry distance {pd}, errors on A {ea:e} on B {eb:e} gap {eg:e} \
                 above certificate {cert:e}: {a:?} {b:?}"
            ));
        }
    }
    rep.overlap_fraction = overlaps as f64 / CASES as f64;
    eprintln!("{name}: {rep:?}");
    assert!(failures.is_empty(), "{name}: {} failures: {:#?}", failures.len(), &failures[..failures.len().min(5)]);
    assert!(
        (0.3..=0.7).contains(&rep.overlap_fraction),
        "{name}: overlap fraction {:.3} outside [0.3, 0.7]",
        rep.overlap_fraction
    );
    assert!(
        rep.points_differ <= parry.points_differ,
        "{name}: {} separated cases with points off parry's by more than {TOL:e} (max {})",
        rep.points_differ,
        parry.points_differ
    );
    rep
}

/// Shapes of size 0.1..1 with centres in `[-spread, spread]^3`.
fn pl(spread: Real) -> Placement {
    Placement::new(spread, 0.1, 1.0)
}

const SPREAD_SPHERE_SPHERE: Real = 1.1;
const MAXDIFF_SPHERE_SPHERE: Parry = EXACT;
const SPREAD_SPHERE_CAPSULE: Real = 1.0;
const MAXDIFF_SPHERE_CAPSULE: Parry = EXACT;
const SPREAD_SPHERE_AABB: Real = 1.0;
const MAXDIFF_SPHERE_AABB: Parry = EXACT;
const SPREAD_SPHERE_OBB: Real = 1.0;
const MAXDIFF_SPHERE_OBB: Parry = EXACT;
const SPREAD_SPHERE_TRIANGLE: Real = 0.7;
const MAXDIFF_SPHERE_TRIANGLE: Parry = EXACT;
const SPREAD_CAPSULE_CAPSULE: Real = 1.0;
const MAXDIFF_CAPSULE_CAPSULE: Parry = GJK;
const SPREAD_CAPSULE_AABB: Real = 1.0;
const MAXDIFF_CAPSULE_AABB: Parry = GJK;
const SPREAD_CAPSULE_OBB: Real = 1.0;
const MAXDIFF_CAPSULE_OBB: Parry = GJK;
const SPREAD_CAPSULE_TRIANGLE: Real = 0.85;
const MAXDIFF_CAPSULE_TRIANGLE: Parry = GJK;
const SPREAD_AABB_AABB: Real = 1.0;
const MAXDIFF_AABB_AABB: Parry = AABBS;
const SPREAD_AABB_OBB: Real = 1.0;
const MAXDIFF_AABB_OBB: Parry = GJK;
const SPREAD_OBB_OBB: Real = 1.0;
const MAXDIFF_OBB_OBB: Parry = GJK;
const SPREAD_AABB_TRIANGLE: Real = 0.8;
const MAXDIFF_AABB_TRIANGLE: Parry = GJK;
const SPREAD_OBB_TRIANGLE: Real = 0.8;
const MAXDIFF_OBB_TRIANGLE: Parry = GJK;
const SPREAD_TRIANGLE_TRIANGLE: Real = 0.3;
const MAXDIFF_TRIANGLE_TRIANGLE: Parry = GJK;

// Spreads tuned so that 30-70% of the pairs overlap (printed by each test).

#[test]
fn distance_sphere_sphere_vs_parry() {
    let p = pl(SPREAD_SPHERE_SPHERE);
    run(
        "distance_sphere_sphere",
        100,
        |r| (gen::sphere(r, &p), gen::sphere(r, &p)),
        distance_sphere_sphere,
        MAXDIFF_SPHERE_SPHERE,
    );
}

#[test]
fn distance_sphere_capsule_vs_parry() {
    let p = pl(SPREAD_SPHERE_CAPSULE);
    run(
        "distance_sphere_capsule",
        101,
        |r| (gen::sphere(r, &p), gen::capsule(r, &p)),
        distance_sphere_capsule,
        MAXDIFF_SPHERE_CAPSULE,
    );
}

#[test]
fn distance_sphere_aabb_vs_parry() {
    let p = pl(SPREAD_SPHERE_AABB);
    run(
        "distance_sphere_aabb",
        102,
        |r| (gen::sphere(r, &p), gen::aabb(r, &p)),
        distance_sphere_aabb,
        MAXDIFF_SPHERE_AABB,
    );
}

#[test]
fn distance_sphere_obb_vs_parry() {
    let p = pl(SPREAD_SPHERE_OBB);
    run("distance_sphere_obb", 103, |r| (gen::sphere(r, &p), gen::obb(r, &p)), distance_sphere_obb, MAXDIFF_SPHERE_OBB);
}

#[test]
fn distance_sphere_triangle_vs_parry() {
    let p = pl(SPREAD_SPHERE_TRIANGLE);
    run(
        "distance_sphere_triangle",
        104,
        |r| (gen::sphere(r, &p), gen::triangle(r, &p)),
        distance_sphere_triangle,
        MAXDIFF_SPHERE_TRIANGLE,
    );
}

#[test]
fn distance_capsule_capsule_vs_parry() {
    let p = pl(SPREAD_CAPSULE_CAPSULE);
    run(
        "distance_capsule_capsule",
        105,
        |r| (gen::capsule(r, &p), gen::capsule(r, &p)),
        distance_capsule_capsule,
        MAXDIFF_CAPSULE_CAPSULE,
    );
}

#[test]
fn distance_capsule_aabb_vs_parry() {
    let p = pl(SPREAD_CAPSULE_AABB);
    run(
        "distance_capsule_aabb",
        106,
        |r| (gen::capsule(r, &p), gen::aabb(r, &p)),
        distance_capsule_aabb,
        MAXDIFF_CAPSULE_AABB,
    );
}

#[test]
fn distance_capsule_obb_vs_parry() {
    let p = pl(SPREAD_CAPSULE_OBB);
    run(
        "distance_capsule_obb",
        107,
        |r| (gen::capsule(r, &p), gen::obb(r, &p)),
        distance_capsule_obb,
        MAXDIFF_CAPSULE_OBB,
    );
}

#[test]
fn distance_capsule_triangle_vs_parry() {
    let p = pl(SPREAD_CAPSULE_TRIANGLE);
    run(
        "distance_capsule_triangle",
        108,
        |r| (gen::capsule(r, &p), gen::triangle(r, &p)),
        distance_capsule_triangle,
        MAXDIFF_CAPSULE_TRIANGLE,
    );
}

#[test]
fn distance_aabb_aabb_vs_parry() {
    let p = pl(SPREAD_AABB_AABB);
    run("distance_aabb_aabb", 109, |r| (gen::aabb(r, &p), gen::aabb(r, &p)), distance_aabb_aabb, MAXDIFF_AABB_AABB);
}

#[test]
fn distance_aabb_obb_vs_parry() {
    let p = pl(SPREAD_AABB_OBB);
    run("distance_aabb_obb", 110, |r| (gen::aabb(r, &p), gen::obb(r, &p)), distance_aabb_obb, MAXDIFF_AABB_OBB);
}

#[test]
fn distance_obb_obb_vs_parry() {
    let p = pl(SPREAD_OBB_OBB);
    run("distance_obb_obb", 111, |r| (gen::obb(r, &p), gen::obb(r, &p)), distance_obb_obb, MAXDIFF_OBB_OBB);
}

#[test]
fn distance_aabb_triangle_vs_parry() {
    let p = pl(SPREAD_AABB_TRIANGLE);
    run(
        "distance_aabb_triangle",
        112,
        |r| (gen::aabb(r, &p), gen::triangle(r, &p)),
        distance_aabb_triangle,
        MAXDIFF_AABB_TRIANGLE,
    );
}

#[test]
fn distance_obb_triangle_vs_parry() {
    let p = pl(SPREAD_OBB_TRIANGLE);
    run(
        "distance_obb_triangle",
        113,
        |r| (gen::obb(r, &p), gen::triangle(r, &p)),
        distance_obb_triangle,
        MAXDIFF_OBB_TRIANGLE,
    );
}

#[test]
fn distance_triangle_triangle_vs_parry() {
    // Two thin shapes cross less often: larger triangles (0.5..1), B placed
    // about A's centroid.
    let p = Placement::new(SPREAD_TRIANGLE_TRIANGLE, 0.5, 1.0);
    let gen = |r: &mut SmallRng| {
        let a = gen::triangle(r, &p);
        let c = Point::from((a.a().coords + a.b().coords + a.c().coords) / 3.0);
        (a, gen::triangle(r, &p.at(c)))
    };
    let exact = Some(triangle_triangle_distance_f64 as fn(&Triangle, &Triangle) -> f64);
    run_with_oracle(
        "distance_triangle_triangle",
        114,
        gen,
        distance_triangle_triangle,
        MAXDIFF_TRIANGLE_TRIANGLE,
        exact,
    );
}

/// The distance of two triangles in f64: 0 when an edge of one crosses the
/// other, else the least of the six vertex-triangle and nine edge-edge
/// distances (a closest pair of disjoint triangles has a point on an edge).
fn triangle_triangle_distance_f64(a: &Triangle, b: &Triangle) -> f64 {
    let (ta, tb) = (a.vertices().map(|p| v64(&p)), b.vertices().map(|p| v64(&p)));
    let crosses = |p: &V64, q: &V64, t: &[V64; 3]| {
        let n = (t[1] - t[0]).cross(&(t[2] - t[0]));
        let (dp, dq) = ((p - t[0]).dot(&n), (q - t[0]).dot(&n));
        if dp * dq > 0.0 || dp == dq {
            return false;
        }
        let x = p + (q - p) * (dp / (dp - dq));
        (0..3).all(|i| (t[(i + 1) % 3] - t[i]).cross(&(x - t[i])).dot(&n) >= 0.0)
    };
    let edges = |t: &[V64; 3]| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])];
    if edges(&ta).iter().any(|(p, q)| crosses(p, q, &tb)) || edges(&tb).iter().any(|(p, q)| crosses(p, q, &ta)) {
        return 0.0;
    }
    let mut least = f64::INFINITY;
    for (v, t) in ta.iter().map(|v| (v, &tb)).chain(tb.iter().map(|v| (v, &ta))) {
        least = least.min(point_triangle_distance_f64(v, &t[0], &t[1], &t[2]));
    }
    for (p1, q1) in edges(&ta) {
        for (p2, q2) in edges(&tb) {
            least = least.min(segment_segment_distance_f64(&p1, &q1, &p2, &q2));
        }
    }
    least
}

// Edge cases. Each checks the conventions and parry's distance (`check`).

/// Checks one pair: conventions within `tol`, and the distance against
/// `expected` within `tol`.
fn check<A: ToParry, B: ToParry>(a: &A, b: &B, d: ShapeDistance, expected: Real, tol: Real) {
    let (ea, eb, eg) = convention_errors(a, b, &d);
    assert!(ea <= tol && eb <= tol && eg <= tol, "conventions {ea:e} {eb:e} {eg:e}: {d:?} {a:?} {b:?}");
    assert!((d.distance - expected).abs() <= tol, "distance {} expected {expected}: {a:?} {b:?}", d.distance);
    if d.distance == 0.0 {
        assert_eq!(d.point_a, d.point_b);
    }
}

fn unit_box(c: Point) -> Aabb {
    Aabb::try_from_center(c, Vector::new(1.0, 1.0, 1.0)).unwrap()
}

#[test]
fn touching_shapes_are_at_distance_zero() {
    let s = Sphere::new(Point::origin(), 1.0);
    let b = unit_box(Point::new(2.0, 0.3, -0.2));
    check(&s, &b, distance_sphere_aabb(&s, &b), 0.0, 1e-6);
    check(
        &s,
        &Sphere::new(Point::new(0.0, 3.0, 0.0), 2.0),
        distance_sphere_sphere(&s, &Sphere::new(Point::new(0.0, 3.0, 0.0), 2.0)),
        0.0,
        1e-6,
    );
    // Boxes sharing a face, an edge, a corner.
    let a = unit_box(Point::origin());
    for c in [Point::new(2.0, 0.5, 0.5), Point::new(2.0, 2.0, 0.0), Point::new(2.0, 2.0, 2.0)] {
        let b = unit_box(c);
        assert_eq!(distance_aabb_aabb(&a, &b).distance, 0.0);
        assert_eq!(distance_aabb_obb(&a, &Obb::from_aabb(&b)).distance, 0.0);
        assert_eq!(distance_obb_obb(&Obb::from_aabb(&a), &Obb::from_aabb(&b)).distance, 0.0);
    }
    // A triangle lying on a box face, and two triangles sharing an edge.
    let t = Triangle::new(Point::new(-0.5, -0.5, 1.0), Point::new(0.5, -0.5, 1.0), Point::new(0.0, 0.5, 1.0));
    assert_eq!(distance_aabb_triangle(&a, &t).distance, 0.0);
    let u = Triangle::new(Point::new(-0.5, -0.5, 1.0), Point::new(0.5, -0.5, 1.0), Point::new(0.0, -1.0, 2.0));
    assert_eq!(distance_triangle_triangle(&t, &u).distance, 0.0);
    let c = Capsule::new(Point::new(0.0, 0.0, 2.0), Point::new(0.0, 0.0, 3.0), 1.0);
    check(&c, &t, distance_capsule_triangle(&c, &t), 0.0, 1e-6);
}

#[test]
fn parallel_faces_and_edges() {
    // Parallel faces 0.5 apart, offset sideways: a whole patch of closest
    // pairs; any one of them.
    let a = Obb::from_aabb(&unit_box(Point::origin()));
    let b = Obb::new(Point::new(2.5, 0.7, -0.4), Rotation::identity(), Vector::new(1.0, 1.0, 1.0));
    check(&a, &b, distance_obb_obb(&a, &b), 0.5, 1e-5);
    let rot = Rotation::from_euler_angles(0.3, 0.0, 0.0); // about x: the x faces stay parallel
    let b = Obb::new(Point::new(2.5, 0.2, 0.1), rot, Vector::new(1.0, 0.5, 0.5));
    check(&a, &b, distance_obb_obb(&a, &b), 0.5, 1e-5);
    check(&a.aabb(), &b, distance_aabb_obb(&a.aabb(), &b), 0.5, 1e-5);
    // Parallel capsules, overlapping in extent.
    let c1 = Capsule::new(Point::new(0.0, 0.0, 0.0), Point::new(2.0, 0.0, 0.0), 0.25);
    let c2 = Capsule::new(Point::new(1.0, 1.0, 0.0), Point::new(3.0, 1.0, 0.0), 0.25);
    check(&c1, &c2, distance_capsule_capsule(&c1, &c2), 0.5, 1e-6);
    // A capsule parallel to a box face, and to a triangle.
    let c3 = Capsule::new(Point::new(-0.5, 0.2, 1.5), Point::new(0.5, -0.2, 1.5), 0.25);
    check(&c3, &a, distance_capsule_obb(&c3, &a), 0.25, 1e-6);
    let t = Triangle::new(Point::new(-2.0, -2.0, 0.0), Point::new(2.0, -2.0, 0.0), Point::new(0.0, 2.0, 0.0));
    let c4 = Capsule::new(Point::new(-0.5, 0.0, 1.0), Point::new(0.5, 0.0, 1.0), 0.25);
    check(&c4, &t, distance_capsule_triangle(&c4, &t), 0.75, 1e-6);
    // A triangle parallel to a box face, and parallel triangles.
    let t2 = Triangle::new(Point::new(-0.5, -0.5, 1.5), Point::new(0.5, -0.5, 1.5), Point::new(0.0, 0.5, 1.5));
    check(&a, &t2, distance_obb_triangle(&a, &t2), 0.5, 1e-6);
    check(&a.aabb(), &t2, distance_aabb_triangle(&a.aabb(), &t2), 0.5, 1e-6);
    let t3 = Triangle::new(Point::new(-0.5, -0.5, 0.0), Point::new(0.5, -0.5, 0.0), Point::new(0.0, 0.5, 0.0));
    check(&t3, &t2, distance_triangle_triangle(&t3, &t2), 1.5, 1e-6);
}

#[test]
fn degenerate_triangles_and_zero_size_boxes() {
    // A triangle collapsed to a segment, and to a point.
    let seg = Triangle::new(Point::new(2.0, -1.0, 0.0), Point::new(2.0, 1.0, 0.0), Point::new(2.0, 0.0, 0.0));
    let pt = Triangle::new(Point::new(0.0, 3.0, 0.0), Point::new(0.0, 3.0, 0.0), Point::new(0.0, 3.0, 0.0));
    let a = unit_box(Point::origin());
    let o = Obb::from_aabb(&a);
    check(&a, &seg, distance_aabb_triangle(&a, &seg), 1.0, 1e-6);
    check(&o, &pt, distance_obb_triangle(&o, &pt), 2.0, 1e-6);
    check(&seg, &pt, distance_triangle_triangle(&seg, &pt), (4.0f32 + 4.0).sqrt(), 1e-6);
    let s = Sphere::new(Point::new(4.0, 0.0, 0.0), 1.0);
    check(&s, &seg, distance_sphere_triangle(&s, &seg), 1.0, 1e-6);
    let c = Capsule::new(Point::new(2.0, 0.0, -1.0), Point::new(2.0, 0.0, 1.0), 0.5);
    check(&c, &seg, distance_capsule_triangle(&c, &seg), 0.0, 1e-6); // crossing segments
                                                                     // Zero-size boxes are points.
    let p = Aabb::try_from_center(Point::new(3.0, 0.0, 0.0), Vector::zeros()).unwrap();
    let q = Obb::new(Point::new(0.0, 0.0, 4.0), Rotation::identity(), Vector::zeros());
    check(&a, &p, distance_aabb_aabb(&a, &p), 2.0, 1e-6);
    check(&p, &q, distance_aabb_obb(&p, &q), 5.0, 1e-6);
    check(&o, &q, distance_obb_obb(&o, &q), 3.0, 1e-6);
    check(&q, &seg, distance_obb_triangle(&q, &seg), (16.0f32 + 4.0).sqrt(), 1e-5);
    check(&c, &p, distance_capsule_aabb(&c, &p), 0.5, 1e-6);
    check(&c, &q, distance_capsule_obb(&c, &q), (4.0f32 + 9.0).sqrt() - 0.5, 1e-6);
    // A zero-radius sphere is a point, a zero-length capsule a sphere.
    let z = Sphere::new(Point::new(0.0, 0.0, 3.0), 0.0);
    check(&z, &o, distance_sphere_obb(&z, &o), 2.0, 1e-6);
    let k = Capsule::new(Point::new(0.0, 5.0, 0.0), Point::new(0.0, 5.0, 0.0), 1.0);
    check(&z, &k, distance_sphere_capsule(&z, &k), 34.0f32.sqrt() - 1.0, 1e-6);
}

#[test]
fn one_shape_inside_the_other() {
    let big = Obb::new(Point::new(0.1, 0.2, 0.3), gen_rotation(7), Vector::new(3.0, 3.0, 3.0));
    let small = Obb::new(Point::new(0.0, 0.0, 0.0), gen_rotation(8), Vector::new(0.2, 0.3, 0.1));
    // No edge of the big box meets the small one: the small box's edges do.
    for d in [distance_obb_obb(&big, &small), distance_obb_obb(&small, &big)] {
        assert_eq!(d.distance, 0.0);
        assert!(big.contains_point(&d.point_a) && small.aabb().loosened(1e-5).contains_point(&d.point_a));
    }
    let t = Triangle::new(Point::new(-0.1, 0.0, 0.0), Point::new(0.1, 0.0, 0.0), Point::new(0.0, 0.1, 0.05));
    check(&big, &t, distance_obb_triangle(&big, &t), 0.0, 1e-6);
    let s = Sphere::new(Point::origin(), 10.0);
    for d in [distance_sphere_obb(&s, &small), distance_sphere_triangle(&s, &t)] {
        assert_eq!(d.distance, 0.0);
    }
    let c = Capsule::new(Point::new(-0.1, 0.0, 0.0), Point::new(0.1, 0.0, 0.0), 0.05);
    check(&c, &big, distance_capsule_obb(&c, &big), 0.0, 1e-6);
    check(
        &c,
        &Sphere::new(Point::origin(), 5.0),
        distance_capsule_capsule(&c, &Capsule::new(Point::origin(), Point::origin(), 5.0)),
        0.0,
        1e-6,
    );
    check(
        &Sphere::new(Point::origin(), 5.0),
        &c,
        distance_sphere_capsule(&Sphere::new(Point::origin(), 5.0), &c),
        0.0,
        1e-6,
    );
}

fn gen_rotation(seed: u64) -> Rotation {
    gen::rotation(&mut proxima_test_support::rng(seed))
}

/// Far-apart pairs: conventions within `tol`, the slab certificate within
/// `tol`, at most `tol` above parry and at most `5e-3` of the distance below it
/// (parry's GJK stops when its bounds agree to `sqrt(100 eps) ~ 3.5e-3` relative: 1e-3 measured; the certificate is the tight check).
fn check_far<A: ToParry, B: ToParry>(a: &A, b: &B, d: ShapeDistance, tol: Real) {
    let pd = parry_distance(a, b);
    let (ea, eb, eg) = convention_errors(a, b, &d);
    assert!(ea <= tol && eb <= tol && eg <= tol, "conventions {ea:e} {eb:e} {eg:e}: {d:?} {a:?} {b:?}");
    let cert = d.distance as f64 - certified_lower_bound(a, b, &d);
    assert!(cert <= tol as f64, "certificate off by {cert:e}: {d:?} {a:?} {b:?}");
    assert!(
        d.distance <= pd + tol && d.distance >= pd * (1.0 - 5e-3) - tol,
        "{} vs parry {pd}: {a:?} {b:?}",
        d.distance
    );
}

/// Every pair about 1e3 apart, placed near `(1e3, -5e2, 2e2)` and the origin:
/// `tol = 2e-3`, 1e-6 of the distance (f32 at 1e3 rounds by 6e-5, and the
/// points are in world space).
#[test]
fn far_apart() {
    let mut r = proxima_test_support::rng(9);
    let near = pl(0.5);
    let far = pl(0.5).at(Point::new(1e3, -5e2, 2e2));
    let tol = 1e3 * 2e-6;
    for _ in 0..200 {
        let (s1, s2) = (gen::sphere(&mut r, &near), gen::sphere(&mut r, &far));
        let (c1, c2) = (gen::capsule(&mut r, &near), gen::capsule(&mut r, &far));
        let (a1, a2) = (gen::aabb(&mut r, &near), gen::aabb(&mut r, &far));
        let (o1, o2) = (gen::obb(&mut r, &near), gen::obb(&mut r, &far));
        let (t1, t2) = (gen::triangle(&mut r, &near), gen::triangle(&mut r, &far));
        check_far(&s1, &s2, distance_sphere_sphere(&s1, &s2), tol);
        check_far(&s1, &c2, distance_sphere_capsule(&s1, &c2), tol);
        check_far(&s1, &a2, distance_sphere_aabb(&s1, &a2), tol);
        check_far(&s1, &o2, distance_sphere_obb(&s1, &o2), tol);
        check_far(&s1, &t2, distance_sphere_triangle(&s1, &t2), tol);
        check_far(&c1, &c2, distance_capsule_capsule(&c1, &c2), tol);
        check_far(&c1, &a2, distance_capsule_aabb(&c1, &a2), tol);
        check_far(&c1, &o2, distance_capsule_obb(&c1, &o2), tol);
        check_far(&c1, &t2, distance_capsule_triangle(&c1, &t2), tol);
        check_far(&a1, &a2, distance_aabb_aabb(&a1, &a2), tol);
        check_far(&a1, &o2, distance_aabb_obb(&a1, &o2), tol);
        check_far(&o1, &o2, distance_obb_obb(&o1, &o2), tol);
        check_far(&a1, &t2, distance_aabb_triangle(&a1, &t2), tol);
        check_far(&o1, &t2, distance_obb_triangle(&o1, &t2), tol);
        check_far(&t1, &t2, distance_triangle_triangle(&t1, &t2), tol);
    }
}
