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

/// The largest magnitude a shape constructor accepts for a coordinate or a
/// size (radius, half-extent): `1e18`. Beyond it, the constructors of
/// [`Sphere`](crate::Sphere), [`Capsule`](crate::Capsule),
/// [`Obb`](crate::Obb) and [`Triangle`](crate::Triangle) return
/// [`ShapeError::TooLarge`](crate::ShapeError::TooLarge).
///
/// Why `1e18`: every point of such a shape has coordinates below
/// `1e18 + sqrt(3) 1e18 < 2.8e18` (a box corner), a difference of two such
/// points has components below `5.6e18`, and its squared length is below
/// `3 (5.6e18)^2 = 9.4e37`, under `f32::MAX = 3.4e38`. So squared distances,
/// dot and cross products of differences, and the shapes' bounding boxes stay
/// finite (a box never saturates, so it contains its shape), and a ray or
/// sweep hit lies in the f32 range. A sphere of radius `f32::MAX` had a
/// surface beyond the f32 range, a box that could not contain it, and
/// overflowing squares: wrong answers rather than errors. The bound is far
/// beyond useful f32 worlds (the spacing of f32 at `1e18` is `1.4e11`).
/// It does not keep products of four lengths finite (the triangle kernels'
/// triple products, above about `1e9`): the narrowphase answers are checked
/// against an f64 oracle up to `1e6`, and beyond that only for being well
/// formed (finite, in range, unit normals).
/// Rays, motions, planes and [`Aabb`](crate::Aabb) (the broadphase's
/// bounding volume, valid up to `f32::MAX`, whose tests compare and clamp
/// and whose boxes saturate) are not bounded; a collider of the scene that
/// is a box is (`ColliderShape::placed`).
pub const MAX_COORDINATE: Real = 1e18;

/// True when every component is at most [`MAX_COORDINATE`] in magnitude
/// (`false` for NaN).
#[inline]
pub(crate) fn is_within_bound(v: &Vector) -> bool {
    v.iter().all(|x| x.abs() <= MAX_COORDINATE)
}

/// [`is_within_bound`] without branches, for a constructor's valid path:
/// one test of all its rules, the reason of a rejection worked out apart.
#[inline(always)]
pub(crate) fn within_bound(v: &Vector) -> bool {
    (v.x.abs() <= MAX_COORDINATE) & (v.y.abs() <= MAX_COORDINATE) & (v.z.abs() <= MAX_COORDINATE)
}

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

/// `rotation` with its quaternion scaled to unit length when it is off by
/// more than rounding (`||q|^2 - 1| > 4 eps`), else unchanged: a quaternion
/// off unit length scales what it rotates by `|q|^2`, and its conjugate is
/// then not its inverse (an oriented box's frame would be off by that
/// factor); a unit one is kept bit for bit, so a caller's
/// pose reproduces exactly. `Obb::try_new` and the scene's placement use it.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{renormalized_rotation, Rotation};
/// let off = Rotation::new_unchecked(nalgebra::Quaternion::new(1.0005, 0.0, 0.0, 0.0));
/// assert_eq!(renormalized_rotation(&off).quaternion().norm(), 1.0);
/// let unit = Rotation::from_euler_angles(0.1, 0.2, 0.3);
/// assert_eq!(renormalized_rotation(&unit), unit);
/// ```
#[inline]
#[must_use]
pub fn renormalized_rotation(rotation: &Rotation) -> Rotation {
    let q = rotation.as_ref();
    if (q.norm_squared() - 1.0).abs() > 4.0 * Real::EPSILON {
        Rotation::new_normalize(*q)
    } else {
        *rotation
    }
}

/// The rotation matrix of `rotation` in f64: the rotation that its quaternion
/// `q` represents, `v -> q v q^-1` (that of `q / |q|`), from every f32
/// component taken exactly.
///
/// The f32 matrix [`Obb::axes`](crate::Obb::axes) rounds each entry to
/// ~6e-8, which tilts a face by as much and moves it by ~6e-8 of the box's
/// size (3e-4 at a half-extent of 5000); for the sweeps, whose answer is a
/// position along a motion that need not grow with the box, that error is
/// far above the motion's own rounding. Here the entries carry ~1e-16.
#[inline]
#[must_use]
pub(crate) fn rotation_matrix_f64(rotation: &Rotation) -> nalgebra::Matrix3<f64> {
    // `v -> q v q* / |q|^2` is the rotation of `q / |q|`: its matrix is the
    // unit formula with `2` replaced by `s = 2 / |q|^2` (no square root).
    let q = rotation.as_ref().coords.cast::<f64>();
    let s = 2.0 / q.norm_squared();
    let (x, y, z, w) = (q.x, q.y, q.z, q.w);
    let (xx, yy, zz) = (x * x, y * y, z * z);
    let (xy, xz, yz) = (x * y, x * z, y * z);
    let (wx, wy, wz) = (w * x, w * y, w * z);
    nalgebra::Matrix3::new(
        1.0 - s * (yy + zz),
        s * (xy - wz),
        s * (xz + wy),
        s * (xy + wz),
        1.0 - s * (xx + zz),
        s * (yz - wx),
        s * (xz - wy),
        s * (yz + wx),
        1.0 - s * (xx + yy),
    )
}

/// `|d| <= r`: the touch test of every "closest points within the radius"
/// overlap (sphere, capsule).
///
/// In f32, `|d|^2` and `r^2` underflow to 0 below `~1e-19` (and overflow
/// above `~1.8e19`), where `0 <= 0` would report two points `1e-38` apart
/// as touching a sphere of radius 0 that a box cull rightly rejects.
/// Out of f32's normal range the squares are taken in f64, where the
/// square of any finite f32 is exact to rounding and in range.
#[inline]
pub(crate) fn within_distance(d: &Vector, r: Real) -> bool {
    let (d2, r2) = (d.norm_squared(), r * r);
    let normal = |x: Real| (Real::MIN_POSITIVE..=Real::MAX).contains(&x);
    if normal(d2) && normal(r2) {
        return d2 <= r2;
    }
    let d64 = d.iter().map(|&x| f64::from(x) * f64::from(x)).sum::<f64>();
    d64 <= f64::from(r) * f64::from(r)
}

/// `v / |v|` for any finite non-zero `v`, `None` for zero.
///
/// In f32, `|v|^2` overflows for `|v| > ~1.8e19` (a zero normal), underflows
/// for `|v| < ~1e-19` (NaN or infinity) and is subnormal, with few
/// significant bits, below `~1e-19` (a "unit" vector of length 1.015). When
/// `|v|^2` is outside `[1e-30, 1e30]`, `v` is first divided by its largest
/// component `m`, exactly rescaling it to `|v / m|` in `[1, sqrt 3]` (as
/// `Plane::try_new` does for its normal); otherwise the plain normalisation is exact
/// to rounding and costs one compare more.
#[inline]
pub(crate) fn normalize_any(v: &Vector) -> Option<UnitVector> {
    let n2 = v.norm_squared();
    if n2 > 1e-30 && n2 < 1e30 {
        return Some(UnitVector::new_unchecked(v / n2.sqrt()));
    }
    normalize_scaled(v)
}

#[cold]
#[inline(never)]
fn normalize_scaled(v: &Vector) -> Option<UnitVector> {
    let largest = v.amax();
    if largest == 0.0 || !largest.is_finite() {
        return None;
    }
    UnitVector::try_new(v / largest, 0.0)
}
