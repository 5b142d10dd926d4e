//! Every validating constructor rejects bad input with the right
//! [`ShapeError`] variant, one test per constructor and error (non-finite,
//! inverted or negative sizes, overflowing corners, coordinates beyond
//! `MAX_COORDINATE`, bad rotations, zero directions, bad `max_toi`), accepts
//! the degenerate shapes it documents, and every error displays what went
//! wrong.

use proxima_narrowphase::*;

const NAN: Real = Real::NAN;
const INF: Real = Real::INFINITY;

fn p(x: Real, y: Real, z: Real) -> Point {
    Point::new(x, y, z)
}

fn v(x: Real, y: Real, z: Real) -> Vector {
    Vector::new(x, y, z)
}

fn is_non_finite<T: std::fmt::Debug>(r: Result<T, ShapeError>) -> bool {
    matches!(r, Err(ShapeError::NonFinite(_)))
}

// ---- Aabb ----

#[test]
fn aabb_try_new_rejects_nan() {
    assert!(is_non_finite(Aabb::try_new(p(NAN, 0.0, 0.0), p(1.0, 1.0, 1.0))));
    assert!(is_non_finite(Aabb::try_new(p(0.0, 0.0, 0.0), p(1.0, 1.0, NAN))));
}

#[test]
fn aabb_try_new_rejects_infinity() {
    assert!(is_non_finite(Aabb::try_new(p(-INF, 0.0, 0.0), p(1.0, 1.0, 1.0))));
    assert!(is_non_finite(Aabb::try_new(p(0.0, 0.0, 0.0), p(1.0, INF, 1.0))));
}

#[test]
fn aabb_try_new_rejects_min_greater_than_max_on_each_axis() {
    for axis in 0..3 {
        let mut min = p(0.0, 0.0, 0.0);
        min[axis] = 2.0;
        assert_eq!(Aabb::try_new(min, p(1.0, 1.0, 1.0)), Err(ShapeError::InvertedBounds { axis }));
    }
}

#[test]
fn aabb_try_new_accepts_zero_size() {
    let a = Aabb::try_new(p(1.0, 2.0, 3.0), p(1.0, 2.0, 3.0)).expect("a point box is valid");
    assert_eq!(a.extents(), Vector::zeros());
}

#[test]
fn aabb_try_from_center_rejects_non_finite() {
    assert!(is_non_finite(Aabb::try_from_center(p(NAN, 0.0, 0.0), v(1.0, 1.0, 1.0))));
    assert!(is_non_finite(Aabb::try_from_center(p(0.0, 0.0, 0.0), v(1.0, INF, 1.0))));
}

#[test]
fn aabb_try_from_center_rejects_negative_half_extent() {
    assert_eq!(Aabb::try_from_center(p(0.0, 0.0, 0.0), v(1.0, 1.0, -0.5)), Err(ShapeError::NegativeExtent));
}

#[test]
fn aabb_try_from_min_size_rejects_non_finite() {
    assert!(is_non_finite(Aabb::try_from_min_size(p(0.0, INF, 0.0), v(1.0, 1.0, 1.0))));
    assert!(is_non_finite(Aabb::try_from_min_size(p(0.0, 0.0, 0.0), v(NAN, 1.0, 1.0))));
}

#[test]
fn aabb_try_from_min_size_rejects_negative_size() {
    assert_eq!(Aabb::try_from_min_size(p(0.0, 0.0, 0.0), v(-1.0, 1.0, 1.0)), Err(ShapeError::NegativeExtent));
}

#[test]
fn aabb_from_points_rejects_empty_and_non_finite() {
    assert!(Aabb::from_points(&[]).is_none());
    assert!(Aabb::from_points(&[p(0.0, 0.0, 0.0), p(NAN, 1.0, 1.0)]).is_none());
    assert!(Aabb::from_points(&[p(0.0, 0.0, 0.0), p(1.0, -1.0, 2.0)]).is_some());
}

// ---- Sphere ----

#[test]
fn sphere_try_new_rejects_nan_centre() {
    assert!(is_non_finite(Sphere::try_new(p(0.0, NAN, 0.0), 1.0)));
}

#[test]
fn sphere_try_new_rejects_non_finite_radius() {
    assert!(is_non_finite(Sphere::try_new(p(0.0, 0.0, 0.0), INF)));
    assert!(is_non_finite(Sphere::try_new(p(0.0, 0.0, 0.0), NAN)));
}

#[test]
fn sphere_try_new_rejects_negative_radius() {
    assert_eq!(Sphere::try_new(p(0.0, 0.0, 0.0), -1e-9), Err(ShapeError::NegativeRadius));
}

#[test]
fn sphere_try_new_accepts_zero_radius() {
    assert!(Sphere::try_new(p(0.0, 0.0, 0.0), 0.0).is_ok());
}

#[test]
fn sphere_try_with_center_rejects_infinity() {
    let s = Sphere::new(p(0.0, 0.0, 0.0), 1.0);
    assert!(is_non_finite(s.try_with_center(p(INF, 0.0, 0.0))));
}

// ---- Obb ----

#[test]
fn obb_try_new_rejects_non_finite_centre() {
    assert!(is_non_finite(Obb::try_new(p(NAN, 0.0, 0.0), Rotation::identity(), v(1.0, 1.0, 1.0))));
    assert!(is_non_finite(Obb::try_new(p(0.0, 0.0, -INF), Rotation::identity(), v(1.0, 1.0, 1.0))));
}

#[test]
fn obb_try_new_rejects_non_finite_half_extents() {
    assert!(is_non_finite(Obb::try_new(p(0.0, 0.0, 0.0), Rotation::identity(), v(1.0, INF, 1.0))));
}

#[test]
fn obb_try_new_rejects_negative_half_extent() {
    assert_eq!(
        Obb::try_new(p(0.0, 0.0, 0.0), Rotation::identity(), v(1.0, -1.0, 1.0)),
        Err(ShapeError::NegativeExtent)
    );
}

#[test]
fn obb_try_new_rejects_non_unit_rotation() {
    let q = Rotation::new_unchecked(nalgebra::Quaternion::new(2.0, 0.0, 0.0, 0.0));
    assert_eq!(Obb::try_new(p(0.0, 0.0, 0.0), q, v(1.0, 1.0, 1.0)), Err(ShapeError::InvalidRotation));
}

#[test]
fn obb_try_new_rejects_nan_rotation() {
    let q = Rotation::new_unchecked(nalgebra::Quaternion::new(NAN, 0.0, 0.0, 0.0));
    assert_eq!(Obb::try_new(p(0.0, 0.0, 0.0), q, v(1.0, 1.0, 1.0)), Err(ShapeError::InvalidRotation));
}

#[test]
fn obb_try_new_accepts_zero_thickness() {
    assert!(Obb::try_new(p(0.0, 0.0, 0.0), Rotation::identity(), v(1.0, 0.0, 1.0)).is_ok());
}

#[test]
fn obb_try_from_isometry_rejects_negative_half_extent() {
    let iso = Isometry::translation(1.0, 2.0, 3.0);
    assert_eq!(Obb::try_from_isometry(&iso, v(-1.0, 1.0, 1.0)), Err(ShapeError::NegativeExtent));
}

// ---- Capsule ----

#[test]
fn capsule_try_new_rejects_non_finite_endpoint() {
    assert!(is_non_finite(Capsule::try_new(p(0.0, 0.0, 0.0), p(NAN, 0.0, 0.0), 1.0)));
    assert!(is_non_finite(Capsule::try_new(p(0.0, INF, 0.0), p(1.0, 0.0, 0.0), 1.0)));
}

#[test]
fn capsule_try_new_rejects_non_finite_radius() {
    assert!(is_non_finite(Capsule::try_new(p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), INF)));
}

#[test]
fn capsule_try_new_rejects_negative_radius() {
    assert_eq!(Capsule::try_new(p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), -0.1), Err(ShapeError::NegativeRadius));
}

#[test]
fn capsule_try_new_accepts_zero_length_segment() {
    assert!(Capsule::try_new(p(1.0, 1.0, 1.0), p(1.0, 1.0, 1.0), 0.5).is_ok());
}

// ---- Triangle ----

#[test]
fn triangle_try_new_rejects_nan_vertex() {
    assert!(is_non_finite(Triangle::try_new(p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(0.0, NAN, 0.0))));
}

#[test]
fn triangle_try_new_rejects_infinite_vertex() {
    assert!(is_non_finite(Triangle::try_new(p(INF, 0.0, 0.0), p(1.0, 0.0, 0.0), p(0.0, 1.0, 0.0))));
}

#[test]
fn triangle_try_new_accepts_degenerate() {
    assert!(Triangle::try_new(p(0.0, 0.0, 0.0), p(1.0, 1.0, 1.0), p(2.0, 2.0, 2.0)).is_ok());
    assert!(Triangle::try_new(p(1.0, 1.0, 1.0), p(1.0, 1.0, 1.0), p(1.0, 1.0, 1.0)).is_ok());
}

// ---- Plane ----

#[test]
fn plane_try_new_rejects_non_finite() {
    assert!(is_non_finite(Plane::try_new(p(NAN, 0.0, 0.0), v(0.0, 1.0, 0.0))));
    assert!(is_non_finite(Plane::try_new(p(0.0, 0.0, 0.0), v(0.0, INF, 0.0))));
}

#[test]
fn plane_try_new_rejects_zero_normal() {
    assert_eq!(Plane::try_new(p(0.0, 0.0, 0.0), Vector::zeros()), Err(ShapeError::ZeroDirection));
}

// ---- Ray ----

#[test]
fn ray_try_new_rejects_non_finite_origin_or_direction() {
    assert!(is_non_finite(Ray::try_new(p(NAN, 0.0, 0.0), v(1.0, 0.0, 0.0), 1.0)));
    assert!(is_non_finite(Ray::try_new(p(0.0, 0.0, 0.0), v(INF, 0.0, 0.0), 1.0)));
}

#[test]
fn ray_try_new_rejects_zero_direction() {
    assert_eq!(Ray::try_new(p(0.0, 0.0, 0.0), Vector::zeros(), 1.0), Err(ShapeError::ZeroDirection));
}

#[test]
fn ray_try_new_rejects_nan_max_toi() {
    assert!(is_non_finite(Ray::try_new(p(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0), NAN)));
}

#[test]
fn ray_try_new_rejects_negative_max_toi() {
    assert_eq!(Ray::try_new(p(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0), -1.0), Err(ShapeError::NegativeMaxToi));
}

#[test]
fn ray_try_new_accepts_infinite_max_toi() {
    assert!(Ray::try_new(p(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0), INF).is_ok());
}

// ---- Errors display ----

#[test]
fn every_error_variant_displays() {
    let all = [
        ShapeError::NonFinite("x"),
        ShapeError::InvertedBounds { axis: 1 },
        ShapeError::NegativeRadius,
        ShapeError::NegativeExtent,
        ShapeError::ZeroDirection,
        ShapeError::NegativeMaxToi,
        ShapeError::InvalidRotation,
    ];
    for e in all {
        assert!(!e.to_string().is_empty());
    }
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
