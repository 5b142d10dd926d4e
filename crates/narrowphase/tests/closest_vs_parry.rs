//! Differential tests of the closest-point and distance functions against
//! parry3d 0.31's `PointQuery::project_point` / `distance_to_point` (solid
//! shapes), and of `closest_points_segment_segment` against a brute-force
//! f64 oracle (parry has no segment-segment point query of the same form).
//!
//! Each function runs `CASES` (200,000) seeded cases; the query points are
//! placed so that 30-70% of them fall in the "interesting" region (inside the
//! solid, or in the face / interior region of a triangle or segment).
//!
//! Where ours and parry's disagree, an f64 closest point decides: the case
//! fails unless parry's is the one off it (counted, at most one in 10,000;
//! parry's projection onto sliver triangles is off by up to ~1e-5).
//!
//! Tolerance `TOL = 1e-5`: coordinates are below ~4 in magnitude, one f32
//! rounding is ~2.4e-7 there, and the longest path (triangle: ~12 dependent
//! operations; OBB: to the box frame and back, ~6 each) stays under ~5e-6.
//! Distances use the same bound.

mod common_np;

use common_np::*;
use parry3d::query::PointQuery;
use parry3d::shape::{Ball, Segment};
use proxima_narrowphase::*;
use proxima_test_support::convert as cv;
use proxima_test_support::gen::{self, Placement};
use proxima_test_support::{Rng, SmallRng};

const TOL: Real = 1e-5;

/// Shapes near the origin, sizes 0.05..1.5.
fn shapes() -> Placement {
    Placement::new(0.5, 0.05, 1.5)
}

/// A query point uniform in `[-spread, spread]^3`.
fn cube_point(r: &mut SmallRng, spread: Real) -> Point {
    gen::point(r, &Placement::new(spread, 0.0, 0.0))
}

/// A query point near the triangle: `a + u ab + v ac + h n` with `u, v` in
/// `[-0.15, 1)` (the triangle is 38% of that square) and `h` in `[-1, 1)`
/// along the unit normal.
fn near_triangle(r: &mut SmallRng, t: &Triangle) -> Point {
    let (u, v, h) = (gen::uniform(r, -0.15, 1.0), gen::uniform(r, -0.15, 1.0), gen::uniform(r, -1.0, 1.0));
    let n = t.scaled_normal().try_normalize(1e-12).unwrap_or_else(Vector::z);
    t.a() + (t.b() - t.a()) * u + (t.c() - t.a()) * v + n * h
}

/// Runs `CASES` point queries: `ours` returns (closest point, distance),
/// `parry` the same from parry, `exact` the closest point in f64 (the
/// oracle), `inside` tells whether the case is in the interesting region.
/// Asserts agreement with parry within `TOL`, except where parry is off the
/// oracle by more than `TOL` and ours is within it (counted: at most one
/// case in 10,000), and the fraction.
fn run_point<S: std::fmt::Debug>(
    name: &str,
    seed: u64,
    point: impl Fn(&mut SmallRng, &S) -> Point,
    mut shape: impl FnMut(&mut SmallRng) -> S,
    ours: impl Fn(&Point, &S) -> (Point, Real),
    parry: impl Fn(&Point, &S) -> (Point, Real),
    exact: impl Fn(&Point, &S) -> V64,
    interesting: impl Fn(&Point, &S) -> bool,
) {
    let mut rng = proxima_test_support::rng(seed);
    let (mut hits, mut parry_off, mut failures) = (0usize, 0usize, Vec::new());
    for k in 0..CASES {
        let s = shape(&mut rng);
        let p = point(&mut rng, &s);
        let (oq, od) = ours(&p, &s);
        let (pq, pd) = parry(&p, &s);
        hits += interesting(&p, &s) as usize;
        if dist(&oq, &pq) > TOL || (od - pd).abs() > TOL {
            let e = exact(&p, &s);
            let off = |q: &Point, d: Real| {
                (v64(q) - e).norm() > f64::from(TOL) || (f64::from(d) - (v64(&p) - e).norm()).abs() > f64::from(TOL)
            };
            if off(&pq, pd) && !off(&oq, od) {
                parry_off += 1;
            } else {
                failures.push(format!("case {k}: ours {oq:?} {od} parry {pq:?} {pd} oracle {e:?}: point {p:?} {s:?}"));
            }
        }
    }
    let frac = hits as f64 / CASES as f64;
    eprintln!("{name}: interesting fraction {frac:.3}, parry off the oracle {parry_off}, failures {}", failures.len());
    assert!(failures.is_empty(), "{name}: {} failures: {:#?}", failures.len(), &failures[..failures.len().min(5)]);
    assert!(parry_off * 10_000 <= CASES, "{name}: parry off the oracle in {parry_off} cases");
    assert!((0.3..=0.7).contains(&frac), "{name}: fraction {frac:.3} outside [0.3, 0.7]");
}

/// The f64 closest point of a solid box `[lo, hi]` to `p`.
fn clamp_f64(p: &V64, lo: &V64, hi: &V64) -> V64 {
    V64::new(p.x.clamp(lo.x, hi.x), p.y.clamp(lo.y, hi.y), p.z.clamp(lo.z, hi.z))
}

#[test]
fn closest_point_aabb_vs_parry() {
    let pl = shapes();
    run_point(
        "closest_point_aabb",
        31,
        |r, _| cube_point(r, 0.75),
        |r| gen::aabb(r, &pl),
        |p, b| {
            let q = closest_point_aabb(p, b);
            // The squared form must match the distance.
            assert!((distance_squared_point_aabb(p, b) - distance_point_aabb(p, b).powi(2)).abs() <= TOL);
            (q, distance_point_aabb(p, b))
        },
        |p, b| {
            let (pose, c) = cv::aabb_cuboid(b);
            let proj = c.project_point(&pose, cv::pt(p), true);
            (cv::from_pt(proj.point), c.distance_to_point(&pose, cv::pt(p), true))
        },
        |p, b| clamp_f64(&v64(p), &v64(b.min()), &v64(b.max())),
        |p, b| b.contains_point(p),
    );
}

#[test]
fn closest_point_obb_vs_parry() {
    let pl = shapes();
    run_point(
        "closest_point_obb",
        32,
        |r, _| cube_point(r, 0.75),
        |r| gen::obb(r, &pl),
        |p, b| (closest_point_obb(p, b), distance_point_obb(p, b)),
        |p, b| {
            let (pose, c) = cv::cuboid(b);
            let proj = c.project_point(&pose, cv::pt(p), true);
            (cv::from_pt(proj.point), c.distance_to_point(&pose, cv::pt(p), true))
        },
        |p, b| {
            let h = b.half_extents().cast::<f64>();
            v64(b.center()) + b.axes().cast::<f64>() * clamp_f64(&obb_local_f64(p, b), &-h, &h)
        },
        |p, b| point_box_signed_distance_f64(&obb_local_f64(p, b), &b.half_extents().cast()) <= 0.0,
    );
}

#[test]
fn closest_point_sphere_vs_parry() {
    let pl = shapes();
    run_point(
        "closest_point_sphere",
        33,
        |r, _| cube_point(r, 0.85),
        |r| gen::sphere(r, &pl),
        |p, s| (closest_point_sphere(p, s), distance_point_sphere(p, s)),
        |p, s| {
            let pose = cv::pose_at(s.center());
            let ball = Ball::new(s.radius());
            let proj = ball.project_point(&pose, cv::pt(p), true);
            (cv::from_pt(proj.point), ball.distance_to_point(&pose, cv::pt(p), true))
        },
        |p, s| {
            let (c, d) = (v64(s.center()), v64(p) - v64(s.center()));
            let r = f64::from(s.radius());
            if d.norm() <= r {
                v64(p)
            } else {
                c + d * (r / d.norm())
            }
        },
        |p, s| (v64(p) - v64(s.center())).norm() <= s.radius() as f64,
    );
}

/// Projection of `p` onto the triangle's plane falls inside it (f64).
fn in_face_region(p: &Point, t: &Triangle) -> bool {
    let (a, b, c, p) = (v64(t.a()), v64(t.b()), v64(t.c()), v64(p));
    let n = (b - a).cross(&(c - a));
    (b - a).cross(&(p - a)).dot(&n) >= 0.0
        && (c - b).cross(&(p - b)).dot(&n) >= 0.0
        && (a - c).cross(&(p - c)).dot(&n) >= 0.0
}

#[test]
fn closest_point_triangle_vs_parry() {
    let pl = shapes();
    run_point(
        "closest_point_triangle",
        34,
        near_triangle,
        |r| gen::triangle(r, &pl),
        |p, t| (closest_point_triangle(p, t), distance_point_triangle(p, t)),
        |p, t| {
            let (pose, g) = cv::triangle(t);
            let proj = g.project_point(&pose, cv::pt(p), true);
            (cv::from_pt(proj.point), g.distance_to_point(&pose, cv::pt(p), true))
        },
        |p, t| closest_on_triangle_f64(&v64(p), &v64(t.a()), &v64(t.b()), &v64(t.c())),
        in_face_region,
    );
}

#[test]
fn closest_point_segment_vs_parry() {
    let pl = shapes();
    run_point(
        "closest_point_segment",
        35,
        |r, _| cube_point(r, 1.2),
        |r| {
            let c = gen::capsule(r, &pl);
            (*c.a(), *c.b())
        },
        |p, (a, b)| (closest_point_segment(p, a, b), distance_point_segment(p, a, b)),
        |p, (a, b)| {
            let seg = Segment::new(cv::pt(a), cv::pt(b));
            let pose = parry3d::math::Pose::identity();
            let proj = seg.project_point(&pose, cv::pt(p), true);
            (cv::from_pt(proj.point), seg.distance_to_point(&pose, cv::pt(p), true))
        },
        |p, (a, b)| closest_on_segment_f64(&v64(p), &v64(a), &v64(b)),
        |p, (a, b)| {
            // Interior region: the projection parameter lies strictly in (0, 1).
            let (a, b, p) = (v64(a), v64(b), v64(p));
            let t = (p - a).dot(&(b - a)) / (b - a).norm_squared();
            t > 0.0 && t < 1.0
        },
    );
}

/// A random segment pair: 10% parallel (the second a scaled, shifted copy
/// of the first's direction), 5% with a zero-length second segment, the rest
/// independent.
fn segment_pair(r: &mut SmallRng) -> [Point; 4] {
    let pl = Placement::new(0.5, 0.2, 1.5);
    let c1 = gen::capsule(r, &pl);
    let (p1, q1) = (*c1.a(), *c1.b());
    let kind: f32 = r.random();
    let (p2, q2) = if kind < 0.10 {
        let p2 = gen::point(r, &pl);
        (p2, p2 + (q1 - p1) * gen::uniform(r, -1.5, 1.5))
    } else if kind < 0.15 {
        let p2 = gen::point(r, &pl);
        (p2, p2)
    } else {
        let c2 = gen::capsule(r, &pl);
        (*c2.a(), *c2.b())
    };
    [p1, q1, p2, q2]
}

/// `closest_points_segment_segment` against the f64 brute-force distance
/// (`segment_segment_distance_f64`): the returned points must lie on their
/// segments (within `TOL`) and be `TOL`-close to the true distance apart.
/// Closest pairs are not unique for parallel segments, so points are not
/// compared to an oracle pair. Interesting region: both points interior.
#[test]
fn closest_points_segment_segment_vs_oracle() {
    let mut rng = proxima_test_support::rng(36);
    let (mut interior, mut failures) = (0usize, Vec::new());
    for k in 0..CASES {
        let [p1, q1, p2, q2] = segment_pair(&mut rng);
        let ClosestPoints { point_a: a, point_b: b } = closest_points_segment_segment(&p1, &q1, &p2, &q2);
        let (p1d, q1d, p2d, q2d) = (v64(&p1), v64(&q1), v64(&p2), v64(&q2));
        let truth = segment_segment_distance_f64(&p1d, &q1d, &p2d, &q2d);
        let got = (v64(&a) - v64(&b)).norm();
        let on1 = point_segment_distance_f64(&v64(&a), &p1d, &q1d);
        let on2 = point_segment_distance_f64(&v64(&b), &p2d, &q2d);
        if (got - truth).abs() > TOL as f64 || on1 > TOL as f64 || on2 > TOL as f64 {
            failures
                .push(format!("case {k}: got {got} truth {truth} off {on1:e} {on2:e}: {p1:?} {q1:?} {p2:?} {q2:?}"));
        }
        let ends = [p1, q1, p2, q2];
        let at_end = |x: &Point| ends.iter().any(|e| dist(x, e) < 1e-6);
        interior += (!at_end(&a) && !at_end(&b)) as usize;
    }
    let frac = interior as f64 / CASES as f64;
    eprintln!("closest_points_segment_segment: interior fraction {frac:.3}, failures {}", failures.len());
    assert!(failures.is_empty(), "{} failures: {:#?}", failures.len(), &failures[..failures.len().min(5)]);
    assert!((0.3..=0.7).contains(&frac), "interior fraction {frac:.3}");
}
