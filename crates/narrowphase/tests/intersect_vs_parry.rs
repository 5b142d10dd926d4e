//! Differential tests of every `intersects_*` function against parry3d 0.31
//! and an f64 oracle of the signed distance.
//!
//! Each function runs `CASES` (200,000) seeded random cases, with placements
//! tuned so that 30-70% intersect (asserted). Outside a touching band around
//! signed distance 0, proxima must agree with the oracle and with parry. The
//! oracle is an independent f64 computation where one is short (spheres,
//! capsules, axis-aligned boxes, sphere-triangle) and parry's
//! `distance`/`contact` for the box-box and triangle-box pairs.
//!
//! Band: `BAND = 1e-4`. The shapes have sizes 0.05..1.5 and lie within 3 of
//! the origin, so one f32 rounding is at most ~3e-7 and the few operations of
//! each test accumulate at most ~1e-5 (the OBB SAT adds its own `1e-6 * sum of
//! half-extents`, at most ~1e-5); parry's GJK `distance` is accurate to its
//! `eps_tol` (~1e-6) near contact. `1e-4` is ten times the worst of these. A
//! random case lands in the band with probability ~1e-4 times the density of
//! the signed distance near 0 (< 1 per unit here), so `MAX_IN_BAND = 200`
//! (0.1% of the cases) is a generous bound that still fails if the band
//! swallowed real errors.
//!
//! parry's capsule-capsule `intersection_test` runs GJK, which stops within a
//! relative tolerance (`sqrt(eps_tol)` ~ 1e-3 of the distance): it may call
//! capsules ~1e-4..1e-3 apart intersecting. Its disagreements with the f64
//! oracle are counted and bounded (`CAPSULE_PARRY_WRONG`, 0.01%); ours must
//! still agree with the oracle everywhere outside the band.

mod common_np;

use common_np::*;
use parry3d::bounding_volume::BoundingVolume;
use proxima_narrowphase::*;
use proxima_test_support::convert as cv;
use proxima_test_support::gen::{self, Placement};

const BAND: Real = 1e-4;
const MAX_IN_BAND: usize = 200;
const CAPSULE_PARRY_WRONG: usize = 20;

/// Placement of the shapes: centres in `[-spread, spread]^3`, sizes 0.05..1.5.
fn near(spread: Real) -> Placement {
    Placement::new(spread, 0.05, 1.5)
}

fn sd_sphere_sphere(a: &Sphere, b: &Sphere) -> f64 {
    (v64(a.center()) - v64(b.center())).norm() - a.radius() as f64 - b.radius() as f64
}

/// Exact for boxes: separated, the Euclidean norm of the per-axis gaps;
/// overlapping, minus the smallest per-axis overlap.
fn sd_aabb_aabb(a: &Aabb, b: &Aabb) -> f64 {
    let (mut gap2, mut overlap) = (0.0f64, f64::INFINITY);
    for i in 0..3 {
        let lo = (a.min()[i] as f64).max(b.min()[i] as f64);
        let hi = (a.max()[i] as f64).min(b.max()[i] as f64);
        if lo > hi {
            gap2 += (lo - hi) * (lo - hi);
        }
        overlap = overlap.min(hi - lo);
    }
    if gap2 > 0.0 {
        gap2.sqrt()
    } else {
        -overlap
    }
}

fn sd_sphere_aabb(s: &Sphere, b: &Aabb) -> f64 {
    let local = v64(s.center()) - v64(&b.center());
    point_box_signed_distance_f64(&local, &b.half_extents().cast()) - s.radius() as f64
}

fn sd_sphere_obb(s: &Sphere, b: &Obb) -> f64 {
    point_box_signed_distance_f64(&obb_local_f64(s.center(), b), &b.half_extents().cast()) - s.radius() as f64
}

fn sd_sphere_capsule(s: &Sphere, c: &Capsule) -> f64 {
    point_segment_distance_f64(&v64(s.center()), &v64(c.a()), &v64(c.b())) - (s.radius() + c.radius()) as f64
}

fn sd_capsule_capsule(a: &Capsule, b: &Capsule) -> f64 {
    segment_segment_distance_f64(&v64(a.a()), &v64(a.b()), &v64(b.a()), &v64(b.b())) - (a.radius() + b.radius()) as f64
}

fn sd_sphere_triangle(s: &Sphere, t: &Triangle) -> f64 {
    point_triangle_distance_f64(&v64(s.center()), &v64(t.a()), &v64(t.b()), &v64(t.c())) - s.radius() as f64
}

#[test]
fn aabb_aabb_vs_parry() {
    let p = near(1.2);
    check_bool(
        "aabb_aabb",
        1,
        BAND,
        MAX_IN_BAND,
        0,
        |r| (gen::aabb(r, &p), gen::aabb(r, &p)),
        |(a, b)| intersects_aabb_aabb(a, b),
        |(a, b)| cv::aabb(a).intersects(&cv::aabb(b)),
        |(a, b)| sd_aabb_aabb(a, b),
    );
}

#[test]
fn sphere_sphere_vs_parry() {
    let p = near(1.2);
    check_bool(
        "sphere_sphere",
        2,
        BAND,
        MAX_IN_BAND,
        0,
        |r| (gen::sphere(r, &p), gen::sphere(r, &p)),
        |(a, b)| intersects_sphere_sphere(a, b),
        |(a, b)| {
            let ((pa, ba), (pb, bb)) = (cv::ball(a), cv::ball(b));
            parry_intersects(&pa, &ba, &pb, &bb)
        },
        |(a, b)| sd_sphere_sphere(a, b),
    );
}

#[test]
fn sphere_aabb_vs_parry() {
    let p = near(1.3);
    check_bool(
        "sphere_aabb",
        3,
        BAND,
        MAX_IN_BAND,
        0,
        |r| (gen::sphere(r, &p), gen::aabb(r, &p)),
        |(s, b)| intersects_sphere_aabb(s, b),
        |(s, b)| {
            let ((ps, bs), (pb, cb)) = (cv::ball(s), cv::aabb_cuboid(b));
            parry_intersects(&ps, &bs, &pb, &cb)
        },
        |(s, b)| sd_sphere_aabb(s, b),
    );
}

#[test]
fn sphere_obb_vs_parry() {
    let p = near(1.3);
    check_bool(
        "sphere_obb",
        4,
        BAND,
        MAX_IN_BAND,
        0,
        |r| (gen::sphere(r, &p), gen::obb(r, &p)),
        |(s, b)| intersects_sphere_obb(s, b),
        |(s, b)| {
            let ((ps, bs), (pb, cb)) = (cv::ball(s), cv::cuboid(b));
            parry_intersects(&ps, &bs, &pb, &cb)
        },
        |(s, b)| sd_sphere_obb(s, b),
    );
}

#[test]
fn sphere_capsule_vs_parry() {
    let p = near(1.4);
    check_bool(
        "sphere_capsule",
        5,
        BAND,
        MAX_IN_BAND,
        0,
        |r| (gen::sphere(r, &p), gen::capsule(r, &p)),
        |(s, c)| intersects_sphere_capsule(s, c),
        |(s, c)| {
            let ((ps, bs), (pc, cc)) = (cv::ball(s), cv::capsule(c));
            parry_intersects(&ps, &bs, &pc, &cc)
        },
        |(s, c)| sd_sphere_capsule(s, c),
    );
}

#[test]
fn capsule_capsule_vs_parry() {
    let p = near(1.6);
    check_bool(
        "capsule_capsule",
        6,
        BAND,
        MAX_IN_BAND,
        CAPSULE_PARRY_WRONG,
        |r| (gen::capsule(r, &p), gen::capsule(r, &p)),
        |(a, b)| intersects_capsule_capsule(a, b),
        |(a, b)| {
            let ((pa, ca), (pb, cb)) = (cv::capsule(a), cv::capsule(b));
            parry_intersects(&pa, &ca, &pb, &cb)
        },
        |(a, b)| sd_capsule_capsule(a, b),
    );
}

#[test]
fn aabb_obb_vs_parry() {
    let p = near(1.5);
    check_bool(
        "aabb_obb",
        7,
        BAND,
        MAX_IN_BAND,
        0,
        |r| (gen::aabb(r, &p), gen::obb(r, &p)),
        |(a, b)| intersects_aabb_obb(a, b),
        |(a, b)| {
            let ((pa, ca), (pb, cb)) = (cv::aabb_cuboid(a), cv::cuboid(b));
            parry_intersects(&pa, &ca, &pb, &cb)
        },
        |(a, b)| {
            let ((pa, ca), (pb, cb)) = (cv::aabb_cuboid(a), cv::cuboid(b));
            parry_signed_distance(&pa, &ca, &pb, &cb) as f64
        },
    );
}

#[test]
fn obb_obb_vs_parry() {
    let p = near(1.5);
    check_bool(
        "obb_obb",
        8,
        BAND,
        MAX_IN_BAND,
        0,
        |r| (gen::obb(r, &p), gen::obb(r, &p)),
        |(a, b)| intersects_obb_obb(a, b),
        |(a, b)| {
            let ((pa, ca), (pb, cb)) = (cv::cuboid(a), cv::cuboid(b));
            parry_intersects(&pa, &ca, &pb, &cb)
        },
        |(a, b)| {
            let ((pa, ca), (pb, cb)) = (cv::cuboid(a), cv::cuboid(b));
            parry_signed_distance(&pa, &ca, &pb, &cb) as f64
        },
    );
}

#[test]
fn aabb_triangle_vs_parry() {
    let p = near(0.9);
    check_bool(
        "triangle_aabb",
        9,
        BAND,
        MAX_IN_BAND,
        0,
        |r| (gen::triangle(r, &p), gen::aabb(r, &p)),
        |(tr, b)| intersects_aabb_triangle(b, tr),
        |(tr, b)| {
            let ((pt, gt), (pb, cb)) = (cv::triangle(tr), cv::aabb_cuboid(b));
            parry_intersects(&pt, &gt, &pb, &cb)
        },
        |(tr, b)| {
            let ((pt, gt), (pb, cb)) = (cv::triangle(tr), cv::aabb_cuboid(b));
            parry_signed_distance(&pt, &gt, &pb, &cb) as f64
        },
    );
}

#[test]
fn sphere_triangle_vs_parry() {
    let p = near(0.75);
    check_bool(
        "sphere_triangle",
        10,
        BAND,
        MAX_IN_BAND,
        0,
        |r| (gen::sphere(r, &p), gen::triangle(r, &p)),
        |(s, tr)| intersects_sphere_triangle(s, tr),
        |(s, tr)| {
            let ((ps, bs), (pt, gt)) = (cv::ball(s), cv::triangle(tr));
            parry_intersects(&ps, &bs, &pt, &gt)
        },
        |(s, tr)| sd_sphere_triangle(s, tr),
    );
}
