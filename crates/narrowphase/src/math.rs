//! The math types of proxima's public API, aliased once.
//!
//! proxima works in 3D with `f32`. Every public position is a [`Point`], every
//! displacement a [`Vector`], every normal a [`UnitVector`].

/// The scalar type.
pub type Real = f32;
/// A position in space.
pub type Point = nalgebra::Point3<Real>;
/// A displacement or direction.
pub type Vector = nalgebra::Vector3<Real>;
/// A vector of unit length (normals).
pub type UnitVector = nalgebra::Unit<Vector>;
/// A rotation.
pub type Rotation = nalgebra::UnitQuaternion<Real>;
/// A rigid transform: rotation then translation.
pub type Isometry = nalgebra::Isometry3<Real>;
/// A 3x3 matrix (rotation matrices, whose columns are a box's axes).
pub type Matrix = nalgebra::Matrix3<Real>;

/// True when every component is finite (no NaN, no infinity).
#[inline]
pub(crate) fn is_finite_vec(v: &Vector) -> bool {
    v.x.is_finite() && v.y.is_finite() && v.z.is_finite()
}

/// True when every coordinate is finite (no NaN, no infinity).
#[inline]
pub(crate) fn is_finite_point(p: &Point) -> bool {
    is_finite_vec(&p.coords)
}
