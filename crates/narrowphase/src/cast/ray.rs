//! Rays, their hits, and the precomputed form used by tree traversal.

use crate::error::ShapeError;
use crate::math::{is_finite_point, is_finite_vec, normalize_any, Point, Real, UnitVector, Vector};

/// A ray `point(toi) = origin + toi * dir` for `toi` in `[0, max_toi]`.
///
/// `dir` is not normalised: `toi` is measured in multiples of `dir`, so with
/// a unit `dir` it is a distance. Invariant: finite origin, finite `dir`
/// with a component of at least `f32::MIN_POSITIVE` in magnitude (a
/// direction of subnormal components cannot be inverted in f32 and is
/// rejected as zero), `0 <= max_toi <= f32::MAX` (a `max_toi` of `+inf`, an
/// unbounded ray, is stored as `f32::MAX`: a hit's `toi` is an `f32`, so
/// that is the reach of any ray). With a tiny `dir` (say `1e-30`) a surface
/// at distance 1e9 is `1e39` multiples of `dir` away, out of that reach, and
/// is not reported; no kernel reports a hit at `toi = inf`.
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{Point, Ray, Vector, ShapeError};
/// let ray = Ray::try_new(Point::origin(), Vector::x(), 10.0).unwrap();
/// assert_eq!(ray.point_at(2.0), Point::new(2.0, 0.0, 0.0));
/// assert_eq!(Ray::try_new(Point::origin(), Vector::zeros(), 1.0), Err(ShapeError::ZeroDirection));
/// assert_eq!(Ray::try_new(Point::origin(), Vector::repeat(1e-40), 1.0), Err(ShapeError::ZeroDirection));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "crate::validated_serde::RayFields")
)]
pub struct Ray {
    origin: Point,
    dir: Vector,
    max_toi: Real,
}

impl Ray {
    /// A ray; rejects a non-finite origin or direction, a zero direction and a
    /// negative or NaN `max_toi` (`+inf` is kept as `f32::MAX`).
    #[inline]
    pub fn try_new(origin: Point, dir: Vector, max_toi: Real) -> Result<Self, ShapeError> {
        if !is_finite_point(&origin) || !is_finite_vec(&dir) {
            return Err(ShapeError::NonFinite("ray origin or direction"));
        }
        // A direction whose every component is subnormal (or zero) cannot be
        // inverted in f32 (`1 / 1e-40` overflows), and the kernels divide by
        // its largest component: such a ray is "zero" too (B30: a ray along
        // `(1e-40; 3)` missed a crossing at toi 1.9e38).
        if dir.amax() < Real::MIN_POSITIVE {
            return Err(ShapeError::ZeroDirection);
        }
        if max_toi.is_nan() {
            return Err(ShapeError::NonFinite("ray max_toi"));
        }
        if max_toi < 0.0 {
            return Err(ShapeError::NegativeMaxToi);
        }
        // An f32 toi reaches f32::MAX: an unbounded ray stops there, so no
        // kernel reports a hit at toi = inf (a tiny direction component
        // overflows the slab times to infinity).
        Ok(Self { origin, dir, max_toi: max_toi.min(Real::MAX) })
    }

    /// A ray.
    ///
    /// # Panics
    /// When [`Ray::try_new`] would return an error.
    #[track_caller]
    pub fn new(origin: Point, dir: Vector, max_toi: Real) -> Self {
        Self::try_new(origin, dir, max_toi).unwrap_or_else(|e| panic!("invalid Ray: {e}"))
    }

    /// The origin.
    #[inline]
    pub fn origin(&self) -> &Point {
        &self.origin
    }

    /// The direction (not normalised).
    #[inline]
    pub fn dir(&self) -> &Vector {
        &self.dir
    }

    /// The largest `toi` a hit may have.
    #[inline]
    pub fn max_toi(&self) -> Real {
        self.max_toi
    }

    /// The same ray with another `max_toi` (clamped to `[0, f32::MAX]`; NaN gives 0).
    #[inline]
    #[must_use]
    pub fn with_max_toi(&self, max_toi: Real) -> Self {
        let max_toi = if max_toi.is_nan() { 0.0 } else { max_toi.clamp(0.0, Real::MAX) };
        Self { max_toi, ..*self }
    }

    /// `origin + toi * dir`.
    #[inline]
    pub fn point_at(&self, toi: Real) -> Point {
        self.origin + self.dir * toi
    }

    /// `-dir` normalised: the normal reported for a ray that starts inside a
    /// solid. Unit for any valid (finite, non-zero) `dir`, however short or
    /// long (see `normalize_any`). Out of line: the kernels' hot paths stay
    /// small enough for the compiler to keep them unrolled and branch-free.
    #[cold]
    #[inline(never)]
    #[must_use]
    pub fn back_normal(&self) -> UnitVector {
        normalize_any(&-self.dir).unwrap_or(UnitVector::new_unchecked(-Vector::z()))
    }
}

/// Where a ray first meets a shape.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RayHit {
    /// The ray parameter of the hit, in `[0, max_toi]`; the point is `ray.point_at(toi)`.
    pub toi: Real,
    /// The unit surface normal at the hit, pointing out of the shape (towards
    /// the ray's origin side). A ray starting inside a solid gets `toi = 0`
    /// and `normal = -dir / |dir|`.
    pub normal: UnitVector,
}

/// A ray prepared for many box tests: the inverse direction (with IEEE
/// infinities for zero components) and, per axis, whether `dir` is negative.
///
/// The slab test picks the near and far planes by these signs, so a zero
/// direction component needs no epsilon and no branch (see
/// [`cast_ray_aabb`](crate::cast_ray_aabb)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrecomputedRay {
    /// The ray's origin.
    pub origin: Point,
    /// `1 / dir` per component; `±inf` where `dir` is `±0`.
    pub inv_dir: Vector,
    /// Per axis, `1` when `dir < 0` (or `-0.0`), else `0`.
    pub sign: [usize; 3],
    /// The ray's `max_toi`.
    pub max_toi: Real,
}

impl PrecomputedRay {
    /// Prepares `ray` for repeated box tests.
    #[inline]
    pub fn new(ray: &Ray) -> Self {
        let inv_dir = ray.dir.map(|d| 1.0 / d);
        let sign = [
            inv_dir.x.is_sign_negative() as usize,
            inv_dir.y.is_sign_negative() as usize,
            inv_dir.z.is_sign_negative() as usize,
        ];
        Self { origin: ray.origin, inv_dir, sign, max_toi: ray.max_toi }
    }
}
