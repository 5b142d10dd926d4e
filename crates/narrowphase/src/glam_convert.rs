//! Conversions between glam 0.33 and proxima's types (feature `glam`).
//!
//! glam 0.33 is the math of rapier3d 0.36 and parry3d 0.31 (through glamx
//! 0.3): their positions are `glam::Vec3`, their rotations `glam::Quat`. A user
//! of those crates hands their data to proxima with the functions and the
//! `From`/`TryFrom` impls here.
//!
//! - points, vectors, rotations: [`point_from_glam`], [`vector_from_glam`],
//!   [`rotation_from_glam`], [`isometry_from_glam`] and the `*_to_glam`
//!   functions back. These are functions, not `From` impls, because both
//!   sides are foreign types (the orphan rule); nalgebra's own
//!   `convert-glam0xx` features stop at glam 0.32 in nalgebra 0.34.
//! - shapes: `TryFrom` tuples of glam values for [`Aabb`], [`Sphere`],
//!   [`Obb`], [`Capsule`], [`Triangle`] and [`Ray`]; each goes through the
//!   shape's `try_new`, so NaN, infinity, inverted bounds and negative radii
//!   are rejected with the same [`ShapeError`] as everywhere else.
//!   [`Plane`](crate::Plane) has none: a `(Vec3, Vec3)` pair already means an
//!   `Aabb`'s `(min, max)`, and a plane's `(point, normal)` read the same way
//!   would be a trap.
//!
//! Points and vectors convert exactly (the same three `f32`s); rotations are
//! renormalised (see [`rotation_from_glam`]).
//!
//! ```
//! # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
//! use proxima::narrowphase::glam_convert::point_from_glam;
//! use proxima::narrowphase::{Aabb, Point, Sphere};
//! // What parry3d's `Aabb { mins, maxs }` or rapier's `collider.compute_aabb()` hold:
//! let (mins, maxs) = (glam::Vec3::new(-1.0, 0.0, 2.0), glam::Vec3::new(1.0, 0.5, 3.0));
//! let aabb = Aabb::try_from((mins, maxs)).unwrap();
//! assert_eq!(*aabb.min(), Point::new(-1.0, 0.0, 2.0));
//! let ball: Sphere = (glam::Vec3::ZERO, 0.5).try_into().unwrap();
//! assert_eq!(ball.radius(), 0.5);
//! assert_eq!(point_from_glam(maxs), Point::new(1.0, 0.5, 3.0));
//! // Inverted bounds are rejected, as by `Aabb::try_new`.
//! assert!(Aabb::try_from((maxs, mins)).is_err());
//! ```

use crate::error::ShapeError;
use crate::math::{Isometry, Point, Real, Rotation, Vector};
use crate::{Aabb, Capsule, Obb, Ray, Sphere, Triangle};
use glam::{Quat, Vec3};
use nalgebra::{Quaternion, Translation3, Unit};

/// The largest `|q|^2 - 1` a rotation quaternion may have: the same bound
/// [`Obb::try_new`] accepts. Quaternions composed over many frames in `f32`
/// drift by about `1e-6` per product; `1e-3` leaves room for thousands of
/// frames while rejecting a scaled or garbage quaternion.
const UNIT_NORM_SQ_TOLERANCE: Real = 1e-3;

/// A glam vector read as a position (`Point3 { x, y, z }`, bit for bit).
#[inline]
#[must_use]
pub fn point_from_glam(v: Vec3) -> Point {
    Point::new(v.x, v.y, v.z)
}

/// A glam vector read as a displacement (`Vector3 { x, y, z }`, bit for bit).
#[inline]
#[must_use]
pub fn vector_from_glam(v: Vec3) -> Vector {
    Vector::new(v.x, v.y, v.z)
}

/// A position as a glam vector (parry3d 0.31 and rapier3d 0.36 store points
/// as `Vec3`), bit for bit.
#[inline]
#[must_use]
pub fn point_to_glam(p: &Point) -> Vec3 {
    Vec3::new(p.x, p.y, p.z)
}

/// A displacement as a glam vector, bit for bit.
#[inline]
#[must_use]
pub fn vector_to_glam(v: &Vector) -> Vec3 {
    Vec3::new(v.x, v.y, v.z)
}

/// A glam quaternion as a rotation.
///
/// glam stores `(x, y, z, w)` with `w` the scalar part; nalgebra's
/// `Quaternion::new` takes `(w, i, j, k)`: the components are reordered, not
/// reinterpreted. The result is renormalised (`q / |q|`), so a quaternion
/// that drifted from unit length by rounding still gives a pure rotation.
///
/// Errors: [`ShapeError::InvalidRotation`] when a component is NaN or
/// infinite, or `| |q|^2 - 1 | > 1e-3` (a zero, scaled or uninitialised
/// quaternion), the bound [`Obb::try_new`] uses.
pub fn rotation_from_glam(q: Quat) -> Result<Rotation, ShapeError> {
    let [x, y, z, w] = q.to_array();
    let quat = Quaternion::new(w, x, y, z);
    let norm_sq = quat.norm_squared();
    if !norm_sq.is_finite() || (norm_sq - 1.0).abs() > UNIT_NORM_SQ_TOLERANCE {
        return Err(ShapeError::InvalidRotation);
    }
    Ok(Unit::new_normalize(quat))
}

/// A rotation as a glam quaternion `(x, y, z, w)` (the same four numbers,
/// reordered; no renormalisation).
#[inline]
#[must_use]
pub fn rotation_to_glam(r: &Rotation) -> Quat {
    let c = r.as_ref().coords; // nalgebra stores (i, j, k, w)
    Quat::from_xyzw(c.x, c.y, c.z, c.w)
}

/// A rigid transform from a glam translation and rotation (the parts of
/// rapier's and parry's `Pose`: `p -> rotation * p + translation`).
///
/// Errors: [`ShapeError::NonFinite`] for a NaN or infinite translation, and
/// those of [`rotation_from_glam`].
pub fn isometry_from_glam(translation: Vec3, rotation: Quat) -> Result<Isometry, ShapeError> {
    if !translation.is_finite() {
        return Err(ShapeError::NonFinite("isometry translation"));
    }
    let rotation = rotation_from_glam(rotation)?;
    Ok(Isometry::from_parts(Translation3::from(vector_from_glam(translation)), rotation))
}

/// `(min, max)` corners, as in parry3d's `Aabb { mins, maxs }`, validated by
/// [`Aabb::try_new`].
impl TryFrom<(Vec3, Vec3)> for Aabb {
    type Error = ShapeError;

    fn try_from((min, max): (Vec3, Vec3)) -> Result<Self, ShapeError> {
        Aabb::try_new(point_from_glam(min), point_from_glam(max))
    }
}

/// The `(min, max)` corners as glam vectors.
impl From<Aabb> for (Vec3, Vec3) {
    fn from(aabb: Aabb) -> Self {
        (point_to_glam(aabb.min()), point_to_glam(aabb.max()))
    }
}

/// `(center, radius)`, validated by [`Sphere::try_new`].
impl TryFrom<(Vec3, Real)> for Sphere {
    type Error = ShapeError;

    fn try_from((center, radius): (Vec3, Real)) -> Result<Self, ShapeError> {
        Sphere::try_new(point_from_glam(center), radius)
    }
}

/// `(center, rotation, half_extents)`, as a parry `Cuboid` at a `Pose`:
/// the rotation goes through [`rotation_from_glam`], then [`Obb::try_new`].
impl TryFrom<(Vec3, Quat, Vec3)> for Obb {
    type Error = ShapeError;

    fn try_from((center, rotation, half_extents): (Vec3, Quat, Vec3)) -> Result<Self, ShapeError> {
        let rotation = rotation_from_glam(rotation)?;
        Obb::try_new(point_from_glam(center), rotation, vector_from_glam(half_extents))
    }
}

/// `(a, b, radius)`: the segment's end points in world space and the
/// radius, validated by [`Capsule::try_new`].
impl TryFrom<(Vec3, Vec3, Real)> for Capsule {
    type Error = ShapeError;

    fn try_from((a, b, radius): (Vec3, Vec3, Real)) -> Result<Self, ShapeError> {
        Capsule::try_new(point_from_glam(a), point_from_glam(b), radius)
    }
}

/// `[a, b, c]`, validated by [`Triangle::try_new`].
impl TryFrom<[Vec3; 3]> for Triangle {
    type Error = ShapeError;

    fn try_from([a, b, c]: [Vec3; 3]) -> Result<Self, ShapeError> {
        Triangle::try_new(point_from_glam(a), point_from_glam(b), point_from_glam(c))
    }
}

/// `(origin, dir, max_toi)`, as parry's `Ray { origin, dir }` plus its
/// `max_time_of_impact`, validated by [`Ray::try_new`].
impl TryFrom<(Vec3, Vec3, Real)> for Ray {
    type Error = ShapeError;

    fn try_from((origin, dir, max_toi): (Vec3, Vec3, Real)) -> Result<Self, ShapeError> {
        Ray::try_new(point_from_glam(origin), vector_from_glam(dir), max_toi)
    }
}
