//! Every validating constructor rejects bad input with the right
//! [`ShapeError`] variant: one test per constructor and error.

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
