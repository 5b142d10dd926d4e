//! Axis-aligned bounding box.

use crate::error::ShapeError;
use crate::math::{is_finite_point, is_finite_vec, Point, Real, Vector};

/// An axis-aligned box `[min, max]`, closed: points on the boundary are inside.
///
/// Invariant: every coordinate is finite and `min <= max` on each axis (a
/// zero-size box is allowed). The fields are private so the invariant holds
/// for every `Aabb` that exists.
///
/// The three classic representations are all constructible: min/max
/// ([`Aabb::try_new`]), centre + half-extents ([`Aabb::try_from_center`]) and
/// min + size ([`Aabb::try_from_min_size`]).
///
/// ```
/// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
/// use proxima::narrowphase::{Aabb, Point};
/// let a = Aabb::try_new(Point::new(0.0, 0.0, 0.0), Point::new(2.0, 2.0, 2.0)).unwrap();
/// assert_eq!(a.center(), Point::new(1.0, 1.0, 1.0));
/// assert!(Aabb::try_new(Point::new(1.0, 0.0, 0.0), Point::origin()).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "crate::validated_serde::AabbFields")
)]
pub struct Aabb {
    min: Point,
    max: Point,
}

impl Aabb {
    /// A box from its corners; rejects NaN, infinity and `min > max`.
    #[inline]
    pub fn try_new(min: Point, max: Point) -> Result<Self, ShapeError> {
        if !is_finite_point(&min) || !is_finite_point(&max) {
            return Err(ShapeError::NonFinite("aabb corner"));
        }
        for axis in 0..3 {
            if min[axis] > max[axis] {
                return Err(ShapeError::InvertedBounds { axis });
            }
        }
        Ok(Self { min, max })
    }

    /// A box from its corners.
    ///
    /// # Panics
    /// When [`Aabb::try_new`] would return an error.
    #[track_caller]
    pub fn new(min: Point, max: Point) -> Self {
        match Self::try_new(min, max) {
            Ok(aabb) => aabb,
            Err(e) => panic!("invalid Aabb: {e}"),
        }
    }

    /// A box from its centre and non-negative half-extents.
    #[inline]
    pub fn try_from_center(center: Point, half_extents: Vector) -> Result<Self, ShapeError> {
        if !is_finite_point(&center) || !is_finite_vec(&half_extents) {
            return Err(ShapeError::NonFinite("aabb centre or half-extents"));
        }
        if half_extents.iter().any(|&h| h < 0.0) {
            return Err(ShapeError::NegativeExtent);
        }
        Self::try_new(center - half_extents, center + half_extents)
    }

    /// A box from its min corner and non-negative size (`max = min + size`).
    pub fn try_from_min_size(min: Point, size: Vector) -> Result<Self, ShapeError> {
        if !is_finite_point(&min) || !is_finite_vec(&size) {
            return Err(ShapeError::NonFinite("aabb min or size"));
        }
        if size.iter().any(|&s| s < 0.0) {
            return Err(ShapeError::NegativeExtent);
        }
        Self::try_new(min, min + size)
    }

    /// The smallest box containing every point; `None` for no points or a non-finite one.
    pub fn from_points<'a>(points: impl IntoIterator<Item = &'a Point>) -> Option<Self> {
        let mut it = points.into_iter();
        let first = *it.next()?;
        let (mut min, mut max) = (first, first);
        for p in it {
            min = min.inf(p);
            max = max.sup(p);
        }
        Self::try_new(min, max).ok()
    }

    /// A box from corners computed from valid data that may have overflowed
    /// (a centre near `f32::MAX` plus a radius): each coordinate is clamped to
    /// `[-f32::MAX, f32::MAX]`, so the box stays finite and still contains the
    /// shape's finite points.
    #[inline]
    pub(crate) fn new_saturating(min: Point, max: Point) -> Self {
        let lo = Vector::repeat(-Real::MAX);
        let hi = Vector::repeat(Real::MAX);
        Self::new_unchecked(Point::from(min.coords.sup(&lo)), Point::from(max.coords.inf(&hi)))
    }

    /// Internal constructor for callers that already hold the invariant
    /// (results of `merged`, kernels computing bounds from valid shapes).
    #[inline]
    pub(crate) fn new_unchecked(min: Point, max: Point) -> Self {
        debug_assert!(min.x <= max.x && min.y <= max.y && min.z <= max.z);
        Self { min, max }
    }

    /// The min corner.
    #[inline]
    pub fn min(&self) -> &Point {
        &self.min
    }

    /// The max corner.
    #[inline]
    pub fn max(&self) -> &Point {
        &self.max
    }

    /// The centre, `(min + max) / 2`.
    #[inline]
    pub fn center(&self) -> Point {
        nalgebra::center(&self.min, &self.max)
    }

    /// The half-extents, `(max - min) / 2`, each `>= 0`.
    #[inline]
    pub fn half_extents(&self) -> Vector {
        (self.max - self.min) * 0.5
    }

    /// The size, `max - min`.
    #[inline]
    pub fn extents(&self) -> Vector {
        self.max - self.min
    }

    /// The smallest box containing both.
    #[inline]
    #[must_use]
    pub fn merged(&self, other: &Aabb) -> Aabb {
        Aabb::new_unchecked(self.min.inf(&other.min), self.max.sup(&other.max))
    }

    /// This box grown by `margin >= 0` on every side, saturating at
    /// `±f32::MAX`. A negative or non-finite margin leaves the box unchanged,
    /// so the invariant cannot break.
    #[inline]
    #[must_use]
    pub fn loosened(&self, margin: Real) -> Aabb {
        if !(margin >= 0.0 && margin.is_finite()) {
            return *self;
        }
        let m = Vector::repeat(margin);
        Aabb::new_saturating(self.min - m, self.max + m)
    }

    /// [`loosened`](Self::loosened) by a margin per axis: axis `i` of the box
    /// grown by `margins[i]` on both sides, the corners clamped to
    /// `[-f32::MAX, f32::MAX]`. As with `loosened`, a margin that is negative,
    /// NaN or infinite leaves its axis as it is (the other axes still grow),
    /// so the invariant cannot break.
    ///
    /// ```
    /// # mod proxima { pub(crate) use ::proxima_narrowphase as narrowphase; }
    /// use proxima::narrowphase::{Aabb, Point, Vector};
    /// let b = Aabb::new(Point::origin(), Point::new(1.0, 1.0, 1.0));
    /// let g = b.loosened_per_axis(&Vector::new(0.5, 0.0, 2.0));
    /// assert_eq!((*g.min(), *g.max()), (Point::new(-0.5, 0.0, -2.0), Point::new(1.5, 1.0, 3.0)));
    /// let h = b.loosened_per_axis(&Vector::new(-1.0, f32::NAN, 0.5));
    /// assert_eq!((*h.min(), *h.max()), (Point::new(0.0, 0.0, -0.5), Point::new(1.0, 1.0, 1.5)));
    /// ```
    #[inline]
    #[must_use]
    pub fn loosened_per_axis(&self, margins: &Vector) -> Aabb {
        // `0 <= m <= MAX` is false for NaN and infinities: every kept margin
        // is finite and non-negative.
        let keep = |m: Real| if (0.0..=Real::MAX).contains(&m) { m } else { 0.0 };
        let m = Vector::new(keep(margins.x), keep(margins.y), keep(margins.z));
        Aabb::new_saturating(self.min - m, self.max + m)
    }

    /// Surface area, `2 (xy + yz + zx)` of the extents: the SAH weight.
    #[inline]
    pub fn surface_area(&self) -> Real {
        let e = self.extents();
        2.0 * (e.x * e.y + e.y * e.z + e.z * e.x)
    }

    /// Volume, `x y z` of the extents.
    #[inline]
    pub fn volume(&self) -> Real {
        let e = self.extents();
        e.x * e.y * e.z
    }

    /// True when `p` lies inside or on the boundary.
    #[inline]
    pub fn contains_point(&self, p: &Point) -> bool {
        (self.min.x <= p.x && p.x <= self.max.x)
            && (self.min.y <= p.y && p.y <= self.max.y)
            && (self.min.z <= p.z && p.z <= self.max.z)
    }

    /// True when `other` lies entirely inside this box (boundary included).
    #[inline]
    pub fn contains_aabb(&self, other: &Aabb) -> bool {
        // `other.min <= other.max` (the invariant) makes the other four
        // comparisons of "both corners inside" redundant; no branches, as a
        // moving proxy's fat-box test is taken on every move.
        let (a, b) = (self, other);
        (a.min.x <= b.min.x)
            & (a.min.y <= b.min.y)
            & (a.min.z <= b.min.z)
            & (b.max.x <= a.max.x)
            & (b.max.y <= a.max.y)
            & (b.max.z <= a.max.z)
    }

    /// Re-checks the invariant: finite corners, `min <= max`. Always true for
    /// a box built through the public constructors.
    pub fn is_valid(&self) -> bool {
        Self::try_new(self.min, self.max).is_ok()
    }

    /// The eight corners, bit `i` of the index selecting max on axis `i`.
    pub fn corners(&self) -> [Point; 8] {
        core::array::from_fn(|i| {
            Point::new(
                if i & 1 == 0 { self.min.x } else { self.max.x },
                if i & 2 == 0 { self.min.y } else { self.max.y },
                if i & 4 == 0 { self.min.z } else { self.max.z },
            )
        })
    }
}
