//! Oriented bounding box.

use super::Aabb;
use crate::error::ShapeError;
use crate::math::{
    is_finite_point, is_finite_vec, is_within_bound, within_bound, Isometry, Matrix, Point, Rotation, Vector,
};

/// A solid box with its own orientation: the points `center + R x` with
/// `|x_i| <= half_extents_i`, where `R` is the rotation (boundary included).
///
/// The f32 rotation matrix, whose columns are the box's axes in world space,
/// is computed once at construction, since most queries work with the axes;
/// it is never stored on its own (the serde form holds the rotation only,
/// and rebuilds the matrix). Its entries are rounded to ~6e-8; the sweeps,
/// whose answers must not lose precision with the box's size, rebuild `R`
/// from the quaternion in f64. Invariant: finite centre, unit rotation, finite
/// half-extents `>= 0` (zero gives a flat or degenerate box).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "crate::validated_serde::ObbFields", into = "crate::validated_serde::ObbFields")
)]
pub struct Obb {
    center: Point,
    rotation: Rotation,
    axes: Matrix,
    half_extents: Vector,
}

impl Obb {
    /// The shape with `o` as its origin (see the `relative` module). Not
    /// checked: the difference of two valid coordinates stays finite.
    #[inline(always)]
    pub(crate) fn relative_to(&self, o: &Vector) -> Self {
        Self { center: self.center - o, ..*self }
    }

    /// A box from its centre, rotation and half-extents; rejects non-finite
    /// values, a rotation that is not unit (by more than `1e-3` in `|q|^2`;
    /// one within that is renormalised),
    /// negative half-extents, and a coordinate or half-extent beyond
    /// [`MAX_COORDINATE`](crate::MAX_COORDINATE) (`1e18`).
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
    /// use proxima::narrowphase::{Obb, Point, Rotation, Vector};
    /// let rot = Rotation::from_euler_angles(0.0, 0.0, std::f32::consts::FRAC_PI_4);
    /// let obb = Obb::try_new(Point::origin(), rot, Vector::new(1.0, 1.0, 1.0)).unwrap();
    /// assert!((obb.aabb().max().x - 2f32.sqrt()).abs() < 1e-6);
    /// ```
    #[inline(always)]
    pub fn try_new(center: Point, rotation: Rotation, half_extents: Vector) -> Result<Self, ShapeError> {
        // The valid case in one test, without branches: `|x| <= MAX_COORDINATE`
        // is false for NaN and infinity, and `||q|^2 - 1| <= 1e-3` for a
        // quaternion with a NaN, an infinity or an overflowing square.
        let q = rotation.as_ref().coords;
        let n2 = q.norm_squared();
        let h = &half_extents;
        let valid = within_bound(&center.coords)
            & within_bound(h)
            & (h.x >= 0.0)
            & (h.y >= 0.0)
            & (h.z >= 0.0)
            & ((n2 - 1.0).abs() <= 1e-3);
        if !valid {
            return Err(Self::rejection(&center, &rotation, &half_extents));
        }
        // Renormalised: within the accepted 1e-3 a quaternion off unit length
        // would scale the axes by `|q|^2` (a point 3,800 away from a box was
        // placed 5 units off, B31). One unit to rounding is kept bit for bit.
        let rotation = crate::math::renormalized_rotation(&rotation);
        let axes = rotation.to_rotation_matrix().into_inner();
        Ok(Self { center, rotation, axes, half_extents })
    }

    /// Why [`Obb::try_new`] rejects its arguments, in the order of its rules.
    #[cold]
    #[inline(never)]
    fn rejection(center: &Point, rotation: &Rotation, half_extents: &Vector) -> ShapeError {
        if !is_finite_point(center) || !is_finite_vec(half_extents) {
            return ShapeError::NonFinite("obb centre or half-extents");
        }
        let q = rotation.as_ref().coords;
        if !is_finite_vec(&q.xyz()) || !q.w.is_finite() || (q.norm_squared() - 1.0).abs() > 1e-3 {
            return ShapeError::InvalidRotation;
        }
        if half_extents.iter().any(|&h| h < 0.0) {
            return ShapeError::NegativeExtent;
        }
        debug_assert!(!is_within_bound(&center.coords) || !is_within_bound(half_extents));
        ShapeError::TooLarge("obb centre or half-extents")
    }

    /// A box placed by an isometry (the box's centre is the translation).
    pub fn try_from_isometry(pose: &Isometry, half_extents: Vector) -> Result<Self, ShapeError> {
        Self::try_new(Point::from(pose.translation.vector), pose.rotation, half_extents)
    }

    /// A box from its centre, rotation and half-extents.
    ///
    /// # Panics
    /// When [`Obb::try_new`] would return an error.
    #[track_caller]
    pub fn new(center: Point, rotation: Rotation, half_extents: Vector) -> Self {
        Self::try_new(center, rotation, half_extents).unwrap_or_else(|e| panic!("invalid Obb: {e}"))
    }

    /// The same box as an axis-aligned one, with identity rotation.
    pub fn from_aabb(aabb: &Aabb) -> Self {
        Self {
            center: aabb.center(),
            rotation: Rotation::identity(),
            axes: Matrix::identity(),
            half_extents: aabb.half_extents(),
        }
    }

    /// The centre.
    #[inline]
    pub fn center(&self) -> &Point {
        &self.center
    }

    /// The rotation from the box frame to world.
    #[inline]
    pub fn rotation(&self) -> &Rotation {
        &self.rotation
    }

    /// The rotation matrix: column `i` is the box's axis `i` in world space.
    #[inline]
    pub fn axes(&self) -> &Matrix {
        &self.axes
    }

    /// The half-extents along the box's own axes, each `>= 0`.
    #[inline]
    pub fn half_extents(&self) -> &Vector {
        &self.half_extents
    }

    /// The pose (box frame to world).
    pub fn isometry(&self) -> Isometry {
        Isometry::from_parts(self.center.coords.into(), self.rotation)
    }

    /// A world point expressed in the box frame: `R^T (p - c)`.
    #[inline]
    pub fn to_local(&self, p: &Point) -> Vector {
        self.axes.tr_mul(&(p - self.center))
    }

    /// A world direction expressed in the box frame: `R^T v`.
    #[inline]
    pub fn to_local_vector(&self, v: &Vector) -> Vector {
        self.axes.tr_mul(v)
    }

    /// A box-frame point in world space: `c + R x`.
    #[inline]
    pub fn to_world(&self, local: &Vector) -> Point {
        self.center + self.axes * local
    }

    /// The tight bounding box: half-extents `|R| h` around the centre.
    #[inline(always)]
    pub fn aabb(&self) -> Aabb {
        let e = self.axes.abs() * self.half_extents;
        Aabb::new_saturating(self.center - e, self.center + e)
    }

    /// True when `p` lies inside or on the box.
    #[inline]
    pub fn contains_point(&self, p: &Point) -> bool {
        let l = self.to_local(p);
        l.x.abs() <= self.half_extents.x && l.y.abs() <= self.half_extents.y && l.z.abs() <= self.half_extents.z
    }
}
