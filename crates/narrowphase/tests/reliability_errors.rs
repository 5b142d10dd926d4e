//! The error cases of the validating constructors that
//! `shape_validation.rs` does not cover: each documented rejection, one test
//! each, with the exact `ShapeError` variant.

use proxima_narrowphase::*;

fn p(x: Real, y: Real, z: Real) -> Point {
    Point::new(x, y, z)
}

fn v(x: Real, y: Real, z: Real) -> Vector {
    Vector::new(x, y, z)
}

/// Finite centre and half-extents whose corners overflow: `NonFinite`
/// (boxes are bounding volumes, valid up to `f32::MAX`: not bounded by
/// `MAX_COORDINATE`).
#[test]
fn aabb_try_from_center_rejects_overflowing_corners() {
    let r = Aabb::try_from_center(p(3e38, 0.0, 0.0), v(3e38, 1.0, 1.0));
    assert!(matches!(r, Err(ShapeError::NonFinite(_))), "{r:?}");
    assert!(Aabb::try_from_center(p(1e38, 0.0, 0.0), v(1e38, 1.0, 1.0)).is_ok());
}

/// Finite min and size whose max corner overflows: `NonFinite`.
#[test]
fn aabb_try_from_min_size_rejects_overflowing_corner() {
    let r = Aabb::try_from_min_size(p(0.0, 3e38, 0.0), v(1.0, 3e38, 1.0));
    assert!(matches!(r, Err(ShapeError::NonFinite(_))), "{r:?}");
}

/// Every shape constructor checks `MAX_COORDINATE` after NaN/infinity and
/// negative sizes, on every coordinate and size; `Aabb` (the broadphase's
/// bounding volume) and `Plane::try_new` are not bounded.
#[test]
fn shape_constructors_reject_coordinates_beyond_the_bound() {
    let (m, over) = (MAX_COORDINATE, 1.0000001e18f32);
    assert!(over > m);
    let o = p(0.0, 0.0, 0.0);
    for k in 0..3 {
        let mut q = o;
        q[k] = -over;
        let mut h = v(1.0, 1.0, 1.0);
        h[k] = over;
        assert_eq!(Sphere::try_new(q, 1.0), Err(ShapeError::TooLarge("sphere centre or radius")));
        assert_eq!(Capsule::try_new(o, q, 1.0), Err(ShapeError::TooLarge("capsule endpoint or radius")));
        assert_eq!(Capsule::try_new(q, o, 1.0), Err(ShapeError::TooLarge("capsule endpoint or radius")));
        assert_eq!(
            Obb::try_new(q, Rotation::identity(), v(1.0, 1.0, 1.0)),
            Err(ShapeError::TooLarge("obb centre or half-extents"))
        );
        assert_eq!(Obb::try_new(o, Rotation::identity(), h), Err(ShapeError::TooLarge("obb centre or half-extents")));
        for t in [Triangle::try_new(q, o, o), Triangle::try_new(o, q, o), Triangle::try_new(o, o, q)] {
            assert_eq!(t, Err(ShapeError::TooLarge("triangle vertex")));
        }
    }
    assert_eq!(Sphere::try_new(o, over), Err(ShapeError::TooLarge("sphere centre or radius")));
    assert_eq!(Capsule::try_new(o, o, over), Err(ShapeError::TooLarge("capsule endpoint or radius")));
    // The order: NaN first, then negative sizes, then the bound.
    assert!(matches!(Sphere::try_new(p(over, 0.0, 0.0), f32::NAN), Err(ShapeError::NonFinite(_))));
    assert_eq!(Sphere::try_new(p(over, 0.0, 0.0), -1.0), Err(ShapeError::NegativeRadius));
    assert_eq!(
        Obb::try_new(p(over, 0.0, 0.0), Rotation::identity(), v(-1.0, 1.0, 1.0)),
        Err(ShapeError::NegativeExtent)
    );
    // At the bound: accepted.
    assert!(Sphere::try_new(p(m, -m, m), m).is_ok());
    assert!(Triangle::try_new(p(m, m, m), p(-m, -m, -m), p(m, -m, m)).is_ok());
    assert!(Aabb::try_new(p(-f32::MAX, 0.0, 0.0), p(f32::MAX, 1.0, 1.0)).is_ok());
    assert!(Plane::try_new(p(3e38, 0.0, 0.0), v(1.0, 0.0, 0.0)).is_ok());
    assert!(ShapeError::TooLarge("sphere centre or radius").to_string().contains("1e18"));
}

/// `-0.0` is not negative: a zero-size box from a `-0.0` size is valid.
#[test]
fn aabb_negative_zero_sizes_are_valid() {
    assert!(Aabb::try_from_center(p(1.0, 2.0, 3.0), v(-0.0, 0.0, -0.0)).is_ok());
    assert!(Aabb::try_from_min_size(p(1.0, 2.0, 3.0), v(-0.0, -0.0, 0.0)).is_ok());
}

/// The plane's offset `n . p` overflows although `p` and `n` are finite.
#[test]
fn plane_try_new_rejects_overflowing_offset() {
    let r = Plane::try_new(p(3e38, 3e38, 0.0), v(1.0, 1.0, 0.0));
    assert!(matches!(r, Err(ShapeError::NonFinite(_))), "{r:?}");
}

#[test]
fn obb_try_from_isometry_rejects_non_finite_translation() {
    let iso = Isometry::translation(f32::NAN, 0.0, 0.0);
    assert!(matches!(Obb::try_from_isometry(&iso, v(1.0, 1.0, 1.0)), Err(ShapeError::NonFinite(_))));
}

#[test]
fn obb_try_from_isometry_rejects_non_unit_rotation() {
    let q = Rotation::new_unchecked(nalgebra::Quaternion::new(0.5, 0.0, 0.0, 0.0));
    let iso = Isometry::from_parts(Vector::zeros().into(), q);
    assert_eq!(Obb::try_from_isometry(&iso, v(1.0, 1.0, 1.0)), Err(ShapeError::InvalidRotation));
}

/// The order of the checks: a NaN half-extent is `NonFinite` even with a
/// bad rotation, and a bad rotation is reported before a negative extent.
#[test]
fn obb_try_new_reports_errors_in_documented_order() {
    let bad = Rotation::new_unchecked(nalgebra::Quaternion::new(3.0, 0.0, 0.0, 0.0));
    assert!(matches!(Obb::try_new(p(0.0, 0.0, 0.0), bad, v(f32::NAN, 1.0, 1.0)), Err(ShapeError::NonFinite(_))));
    assert_eq!(Obb::try_new(p(0.0, 0.0, 0.0), bad, v(-1.0, 1.0, 1.0)), Err(ShapeError::InvalidRotation));
}

/// `-inf` is a negative `max_toi`, `+inf` an unbounded ray.
#[test]
fn ray_try_new_rejects_negative_infinite_max_toi() {
    assert_eq!(Ray::try_new(p(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0), f32::NEG_INFINITY), Err(ShapeError::NegativeMaxToi));
}

#[test]
fn ray_try_new_rejects_negative_zero_direction() {
    assert_eq!(Ray::try_new(p(0.0, 0.0, 0.0), v(-0.0, 0.0, -0.0), 1.0), Err(ShapeError::ZeroDirection));
}

/// `with_max_toi` clamps instead of failing: NaN and negatives give 0.
#[test]
fn ray_with_max_toi_clamps() {
    let r = Ray::new(p(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0), 5.0);
    assert_eq!(r.with_max_toi(-3.0).max_toi(), 0.0);
    assert_eq!(r.with_max_toi(f32::NAN).max_toi(), 0.0);
}

#[test]
fn capsule_try_new_rejects_nan_radius() {
    assert!(matches!(Capsule::try_new(p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), f32::NAN), Err(ShapeError::NonFinite(_))));
}

#[test]
fn sphere_try_with_center_rejects_nan() {
    let s = Sphere::new(p(0.0, 0.0, 0.0), 1.0);
    assert!(matches!(s.try_with_center(p(0.0, f32::NAN, 0.0)), Err(ShapeError::NonFinite(_))));
}

/// Every variant is a `std::error::Error` with a message naming the problem.
#[test]
fn error_messages_name_the_problem() {
    assert!(ShapeError::NonFinite("ray origin").to_string().contains("ray origin"));
    assert!(ShapeError::InvertedBounds { axis: 2 }.to_string().contains('2'));
    let e: Box<dyn std::error::Error> = Box::new(ShapeError::NegativeRadius);
    assert!(e.source().is_none());
}
