//! Tests of the `glam` feature's conversions (`proxima_narrowphase::glam_convert`).
//!
//! Run with `cargo test --release -p proxima-narrowphase --features glam --test glam_convert`
//! (add `mint` to the features for the mint bridge tests).
//!
//! Oracles, all independent of the code under test:
//! - points and vectors: test-support's nalgebra <-> parry3d conversions (parry
//!   0.31's `Vector` is the same `glam::Vec3`), compared bit for bit on random
//!   bit patterns (NaN payloads and infinities included);
//! - rotations and poses: glam's own `Quat * Vec3` and glamx's `Pose3 * Vec3`
//!   against nalgebra's `UnitQuaternion * Vector3` / `Isometry3 * Point3`;
//! - oriented boxes: parry3d's `Cuboid::aabb(&pose)` against `Obb::aabb`.
//!
//! Each random test runs `CASES` (200,000) seeded cases.
#![cfg(feature = "glam")]

use glam::{Quat, Vec3};
use parry3d::bounding_volume::Aabb as ParryAabb;
use parry3d::math::Pose;
use parry3d::shape::Cuboid;
use proxima_narrowphase::glam_convert::*;
use proxima_narrowphase::*;
use proxima_test_support::convert as cv;
use proxima_test_support::gen::{self, Placement};
use proxima_test_support::{Rng, SmallRng};

const CASES: usize = 200_000;

/// Rotation tolerance, relative to `|v|`: glam and nalgebra each rotate in
/// f32 with about 15 dependent operations on values of magnitude <= |v|,
/// each rounding by <= 2^-24 |v| (6e-8): their difference stays under
/// ~2e-6 |v|; 1e-5 |v| leaves margin while a wrong component order errs by
/// O(|v|).
const ROT_TOL: Real = 1e-5;

fn rng(seed: u64) -> SmallRng {
    proxima_test_support::rng(seed)
}

fn random_bits_vec3(rng: &mut SmallRng) -> Vec3 {
    Vec3::new(f32::from_bits(rng.random()), f32::from_bits(rng.random()), f32::from_bits(rng.random()))
}

fn random_vec3(rng: &mut SmallRng, spread: Real) -> Vec3 {
    cv::pt(&gen::point(rng, &Placement::new(spread, 0.0, 0.0)))
}

/// A unit quaternion from glam's own normalisation of a random 4-vector.
fn random_quat(rng: &mut SmallRng) -> Quat {
    loop {
        let q = Quat::from_xyzw(
            gen::uniform(rng, -1.0, 1.0),
            gen::uniform(rng, -1.0, 1.0),
            gen::uniform(rng, -1.0, 1.0),
            gen::uniform(rng, -1.0, 1.0),
        );
        if q.length_squared() > 1e-2 {
            return q.normalize();
        }
    }
}

fn same_bits(a: Real, b: Real) -> bool {
    a.to_bits() == b.to_bits()
}

fn same_bits_vec(a: Vec3, b: Vec3) -> bool {
    same_bits(a.x, b.x) && same_bits(a.y, b.y) && same_bits(a.z, b.z)
}

fn same_bits_point(a: &Point, b: &Point) -> bool {
    same_bits(a.x, b.x) && same_bits(a.y, b.y) && same_bits(a.z, b.z)
}

// ---- points, vectors ----

#[test]
fn points_and_vectors_convert_bit_for_bit() {
    let mut r = rng(1);
    for i in 0..CASES {
        let g = random_bits_vec3(&mut r);
        let p = point_from_glam(g);
        let v = vector_from_glam(g);
        assert!(same_bits_point(&p, &cv::from_pt(g)), "case {i}: point_from_glam({g:?}) = {p:?}");
        assert!(same_bits_point(&Point::from(v), &cv::from_pt(g)), "case {i}: vector_from_glam({g:?}) = {v:?}");
        assert!(same_bits_vec(point_to_glam(&p), cv::pt(&p)), "case {i}: point_to_glam");
        assert!(same_bits_vec(vector_to_glam(&v), cv::vec(&v)), "case {i}: vector_to_glam");
        assert!(same_bits_vec(point_to_glam(&p), g), "case {i}: point round trip");
        assert!(same_bits_vec(vector_to_glam(&v), g), "case {i}: vector round trip");
    }
}

// ---- rotations ----

#[test]
fn rotation_from_glam_rotates_like_glam() {
    let mut r = rng(2);
    for i in 0..CASES {
        let q = random_quat(&mut r);
        let v = random_vec3(&mut r, 100.0);
        let rot = rotation_from_glam(q).expect("unit quaternion");
        let expected = q * v; // glam's rotation
        let got = rot * vector_from_glam(v);
        let err = (vector_from_glam(expected) - got).norm();
        assert!(err <= ROT_TOL * v.length().max(1.0), "case {i}: q = {q:?}, v = {v:?}: {got:?} vs {expected:?}");
    }
}

#[test]
fn rotation_to_glam_matches_test_support_and_rotates_like_nalgebra() {
    let mut r = rng(3);
    for i in 0..CASES {
        let rot = gen::rotation(&mut r);
        let q = rotation_to_glam(&rot);
        let c = cv::rot(&rot);
        assert!(
            same_bits(q.x, c.x) && same_bits(q.y, c.y) && same_bits(q.z, c.z) && same_bits(q.w, c.w),
            "case {i}: {q:?} vs {c:?}"
        );
        let v = random_vec3(&mut r, 100.0);
        let err = (vector_from_glam(q * v) - rot * vector_from_glam(v)).norm();
        assert!(err <= ROT_TOL * v.length().max(1.0), "case {i}");
    }
}

#[test]
fn rotation_round_trip_keeps_the_quaternion() {
    // Renormalising a quaternion that glam already normalised changes each
    // component by a few ulps at most (components <= 1, ulp <= 1.2e-7): 1e-6.
    let mut r = rng(4);
    for i in 0..CASES {
        let q = random_quat(&mut r);
        let back = rotation_to_glam(&rotation_from_glam(q).expect("unit"));
        let d = (quat_parts(back) - quat_parts(q)).abs().max_element();
        assert!(d <= 1e-6, "case {i}: {q:?} -> {back:?}");
    }
}

/// A quaternion's four components `(x, y, z, w)` as a `glam::Vec4`, for differences.
fn quat_parts(q: Quat) -> glam::Vec4 {
    glam::Vec4::from_array(q.to_array())
}

#[test]
fn rotation_from_glam_rejects_non_rotations() {
    let bad = [
        Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
        Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0),
        Quat::from_xyzw(0.0, f32::INFINITY, 0.0, 1.0),
        Quat::from_xyzw(0.0, 0.0, 0.0, 2.0),
        // |q|^2 = 1.0201: off by more than the 1e-3 bound.
        Quat::from_xyzw(0.0, 0.0, 0.0, 1.01),
        Quat::from_xyzw(0.0, 0.0, 0.0, 0.99),
    ];
    for q in bad {
        assert_eq!(rotation_from_glam(q), Err(ShapeError::InvalidRotation), "{q:?}");
    }
}

#[test]
fn rotation_from_glam_renormalises_a_drifted_quaternion() {
    // |q|^2 = (1 + 2e-4)^2 ~ 1.0004: within the bound, so accepted and
    // scaled back to unit length (f32 normalisation: |q| - 1 within a few ulps).
    let q = Quat::from_xyzw(0.6, 0.0, 0.0, 0.8) * (1.0 + 2e-4);
    let rot = rotation_from_glam(q).expect("drift within the bound");
    assert!((rot.as_ref().norm() - 1.0).abs() <= 1e-6, "{rot:?}");
    assert!((rot.as_ref().coords - nalgebra::Vector4::new(0.6, 0.0, 0.0, 0.8)).norm() <= 1e-6);
}

// ---- isometries ----

#[test]
fn isometry_from_glam_transforms_like_parry_pose() {
    let mut r = rng(5);
    for i in 0..CASES {
        let (t, q) = (random_vec3(&mut r, 100.0), random_quat(&mut r));
        let p = random_vec3(&mut r, 100.0);
        let iso = isometry_from_glam(t, q).expect("valid pose");
        let expected = Pose::from_parts(t, q).transform_point(p); // glamx: q * p + t
        let got = iso * point_from_glam(p);
        let err = (point_from_glam(expected) - got).norm();
        assert!(err <= ROT_TOL * (p.length() + t.length()).max(1.0), "case {i}: {got:?} vs {expected:?}");
    }
}

#[test]
fn isometry_from_glam_rejects_bad_parts() {
    let nan = Vec3::new(0.0, f32::NAN, 0.0);
    assert!(matches!(isometry_from_glam(nan, Quat::IDENTITY), Err(ShapeError::NonFinite(_))));
    assert!(matches!(
        isometry_from_glam(Vec3::X, Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)),
        Err(ShapeError::InvalidRotation)
    ));
}

// ---- shapes ----

#[test]
fn aabb_from_glam_matches_parry_aabb() {
    let mut r = rng(6);
    let place = Placement::new(1000.0, 0.0, 50.0);
    for i in 0..CASES {
        let (a, b) = (random_vec3(&mut r, 1000.0), random_vec3(&mut r, 1000.0));
        let parry = ParryAabb::new(a.min(b), a.max(b));
        let ours = Aabb::try_from((parry.mins, parry.maxs)).expect("valid box");
        assert!(same_bits_point(ours.min(), &cv::from_pt(parry.mins)), "case {i}");
        assert!(same_bits_point(ours.max(), &cv::from_pt(parry.maxs)), "case {i}");
        let (mins, maxs): (Vec3, Vec3) = ours.into();
        assert!(same_bits_vec(mins, parry.mins) && same_bits_vec(maxs, parry.maxs), "case {i}: round trip");
        // And from proxima's side: a generated box to glam and back.
        let g = gen::aabb(&mut r, &place);
        assert_eq!(Aabb::try_from(<(Vec3, Vec3)>::from(g)), Ok(g), "case {i}");
    }
}

#[test]
fn aabb_from_glam_rejects_what_try_new_rejects() {
    for axis in 0..3 {
        let mut min = Vec3::ZERO;
        min[axis] = 2.0;
        assert_eq!(Aabb::try_from((min, Vec3::ONE)), Err(ShapeError::InvertedBounds { axis }));
    }
    let nan = Vec3::new(f32::NAN, 0.0, 0.0);
    assert!(matches!(Aabb::try_from((nan, Vec3::ONE)), Err(ShapeError::NonFinite(_))));
    assert!(matches!(Aabb::try_from((Vec3::ZERO, Vec3::INFINITY)), Err(ShapeError::NonFinite(_))));
    // A zero-size box is a valid box.
    assert!(Aabb::try_from((Vec3::ONE, Vec3::ONE)).is_ok());
}

#[test]
fn obb_from_glam_has_parrys_cuboid_aabb() {
    // Tolerance: the AABB half-width is sum_j |R_ij| h_j; both sides compute R
    // from the quaternion in f32 (~4e-7 per entry after rounding) and sum three
    // products: error <= ~2e-6 (|c| + |h|). A transposed rotation (the
    // conjugate quaternion) changes the half-widths by O(|h|).
    let mut r = rng(7);
    for i in 0..CASES {
        let (c, q) = (random_vec3(&mut r, 10.0), random_quat(&mut r));
        let h =
            Vec3::new(gen::uniform(&mut r, 0.0, 5.0), gen::uniform(&mut r, 0.0, 5.0), gen::uniform(&mut r, 0.0, 5.0));
        let obb = Obb::try_from((c, q, h)).expect("valid box");
        let ours = obb.aabb();
        let parry = Cuboid::new(h).aabb(&Pose::from_parts(c, q));
        let tol = 1e-5 * (c.length() + h.length()).max(1.0);
        let err_min = (ours.min() - cv::from_pt(parry.mins)).amax();
        let err_max = (ours.max() - cv::from_pt(parry.maxs)).amax();
        assert!(err_min <= tol && err_max <= tol, "case {i}: {ours:?} vs {parry:?}");
    }
}

#[test]
fn obb_from_glam_rejects_bad_parts() {
    let zero_quat = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    assert_eq!(Obb::try_from((Vec3::ZERO, zero_quat, Vec3::ONE)), Err(ShapeError::InvalidRotation));
    let negative = Vec3::new(1.0, -1.0, 1.0);
    assert_eq!(Obb::try_from((Vec3::ZERO, Quat::IDENTITY, negative)), Err(ShapeError::NegativeExtent));
    let nan = Vec3::new(f32::NAN, 0.0, 0.0);
    assert!(matches!(Obb::try_from((nan, Quat::IDENTITY, Vec3::ONE)), Err(ShapeError::NonFinite(_))));
}

#[test]
fn sphere_capsule_triangle_ray_from_glam_keep_their_parts() {
    let mut r = rng(8);
    for i in 0..CASES / 4 {
        let (a, b, c) = (random_vec3(&mut r, 100.0), random_vec3(&mut r, 100.0), random_vec3(&mut r, 100.0));
        let radius = gen::uniform(&mut r, 0.0, 10.0);
        let s = Sphere::try_from((a, radius)).expect("valid sphere");
        assert!(same_bits_point(s.center(), &cv::from_pt(a)) && same_bits(s.radius(), radius), "case {i}");
        let cap = Capsule::try_from((a, b, radius)).expect("valid capsule");
        assert!(same_bits_point(cap.a(), &cv::from_pt(a)) && same_bits_point(cap.b(), &cv::from_pt(b)), "case {i}");
        assert!(same_bits(cap.radius(), radius), "case {i}");
        let tri = Triangle::try_from([a, b, c]).expect("valid triangle");
        assert_eq!(tri.vertices(), [cv::from_pt(a), cv::from_pt(b), cv::from_pt(c)], "case {i}");
        if b != Vec3::ZERO {
            let ray = Ray::try_from((a, b, radius)).expect("valid ray");
            assert_eq!(
                (*ray.origin(), *ray.dir(), ray.max_toi()),
                (cv::from_pt(a), cv::from_vec(b), radius),
                "case {i}"
            );
        }
    }
}

#[test]
fn sphere_capsule_triangle_ray_from_glam_reject_bad_input() {
    let nan = Vec3::new(0.0, 0.0, f32::NAN);
    assert_eq!(Sphere::try_from((Vec3::ZERO, -1.0)), Err(ShapeError::NegativeRadius));
    assert!(matches!(Sphere::try_from((nan, 1.0)), Err(ShapeError::NonFinite(_))));
    assert!(matches!(Sphere::try_from((Vec3::ZERO, f32::INFINITY)), Err(ShapeError::NonFinite(_))));
    assert_eq!(Capsule::try_from((Vec3::ZERO, Vec3::X, -0.5)), Err(ShapeError::NegativeRadius));
    assert!(matches!(Capsule::try_from((Vec3::ZERO, nan, 0.5)), Err(ShapeError::NonFinite(_))));
    assert!(matches!(Triangle::try_from([Vec3::ZERO, Vec3::X, nan]), Err(ShapeError::NonFinite(_))));
    assert_eq!(Ray::try_from((Vec3::ZERO, Vec3::ZERO, 1.0)), Err(ShapeError::ZeroDirection));
    assert_eq!(Ray::try_from((Vec3::ZERO, Vec3::X, -1.0)), Err(ShapeError::NegativeMaxToi));
    assert!(matches!(Ray::try_from((nan, Vec3::X, 1.0)), Err(ShapeError::NonFinite(_))));
}

// ---- mint: the bridge for other glam versions ----

#[cfg(feature = "mint")]
#[test]
fn mint_bridge_converts_points_vectors_and_quaternions() {
    let mut r = rng(9);
    for i in 0..CASES {
        let g = random_vec3(&mut r, 100.0);
        let p = Point::from(mint::Point3::<f32>::from(g));
        let v = Vector::from(mint::Vector3::<f32>::from(g));
        assert!(same_bits_point(&p, &cv::from_pt(g)) && same_bits_point(&Point::from(v), &cv::from_pt(g)), "case {i}");
        let q = random_quat(&mut r);
        let rot = Rotation::new_normalize(nalgebra::Quaternion::from(mint::Quaternion::<f32>::from(q)));
        // The same four numbers in the same order, normalised the same way: equal.
        assert_eq!(rot, rotation_from_glam(q).expect("unit"), "case {i}");
    }
}
