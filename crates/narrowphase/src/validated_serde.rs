//! Validating deserialization (`serde` feature): each shape and [`Ray`] is
//! read into a plain record of its fields and rebuilt by its constructor
//! (`#[serde(try_from = ...)]`), so a payload that the constructor would
//! reject (NaN, infinity, `min > max`, a negative size, a coordinate beyond
//! [`MAX_COORDINATE`](crate::MAX_COORDINATE), a rotation that is not unit)
//! is a deserialization error carrying the [`ShapeError`]'s message, never
//! a value that breaks its type's invariant.
//!
//! The serialized form is the fields' (unchanged), except [`Obb`]'s: its
//! rotation matrix is derived from the rotation, so only the centre, the
//! rotation and the half-extents are written, and the matrix is computed
//! again on the way back (the same f32 operations: bit for bit the same).
//! Not validated: [`Plane`](crate::Plane) (its normal is a
//! `UnitVector`, read as nalgebra writes it).

use crate::cast::Ray;
use crate::error::ShapeError;
use crate::math::{Point, Real, Rotation, Vector};
use crate::shape::{Aabb, Capsule, Obb, Sphere, Triangle};
use serde::{Deserialize, Serialize};

#[derive(Deserialize)]
pub(crate) struct AabbFields {
    min: Point,
    max: Point,
}

impl TryFrom<AabbFields> for Aabb {
    type Error = ShapeError;
    fn try_from(f: AabbFields) -> Result<Self, ShapeError> {
        Aabb::try_new(f.min, f.max)
    }
}

#[derive(Deserialize)]
pub(crate) struct SphereFields {
    center: Point,
    radius: Real,
}

impl TryFrom<SphereFields> for Sphere {
    type Error = ShapeError;
    fn try_from(f: SphereFields) -> Result<Self, ShapeError> {
        Sphere::try_new(f.center, f.radius)
    }
}

#[derive(Deserialize)]
pub(crate) struct CapsuleFields {
    a: Point,
    b: Point,
    radius: Real,
}

impl TryFrom<CapsuleFields> for Capsule {
    type Error = ShapeError;
    fn try_from(f: CapsuleFields) -> Result<Self, ShapeError> {
        Capsule::try_new(f.a, f.b, f.radius)
    }
}

#[derive(Deserialize)]
pub(crate) struct TriangleFields {
    a: Point,
    b: Point,
    c: Point,
}

impl TryFrom<TriangleFields> for Triangle {
    type Error = ShapeError;
    fn try_from(f: TriangleFields) -> Result<Self, ShapeError> {
        Triangle::try_new(f.a, f.b, f.c)
    }
}

#[derive(Deserialize)]
pub(crate) struct RayFields {
    origin: Point,
    dir: Vector,
    max_toi: Real,
}

impl TryFrom<RayFields> for Ray {
    type Error = ShapeError;
    fn try_from(f: RayFields) -> Result<Self, ShapeError> {
        Ray::try_new(f.origin, f.dir, f.max_toi)
    }
}

/// An [`Obb`] as written: no rotation matrix (derived from `rotation`).
#[derive(Clone, Copy, Serialize, Deserialize)]
pub(crate) struct ObbFields {
    center: Point,
    rotation: Rotation,
    half_extents: Vector,
}

impl From<Obb> for ObbFields {
    fn from(o: Obb) -> Self {
        Self { center: *o.center(), rotation: *o.rotation(), half_extents: *o.half_extents() }
    }
}

impl TryFrom<ObbFields> for Obb {
    type Error = ShapeError;
    fn try_from(f: ObbFields) -> Result<Self, ShapeError> {
        Obb::try_new(f.center, f.rotation, f.half_extents)
    }
}
